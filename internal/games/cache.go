package games

import (
	"sync"

	"nothanks/internal/engine"
)

// gameCache keeps rebuilt games by id at the version they were rebuilt at.
// A game at a given version is always the same state (the deals follow from
// the seed, the moves are append-only), so a cached game is never stale as
// long as the version matches the row, whichever instance moved it. Entries
// are never modified: readers project them, writers clone them.
type gameCache struct {
	mu    sync.Mutex
	games map[int64]*engine.Game
	max   int
}

func newGameCache(max int) *gameCache {
	return &gameCache{games: map[int64]*engine.Game{}, max: max}
}

// get returns the cached game at exactly version, or nil.
func (c *gameCache) get(id int64, version int) *engine.Game {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.games[id]; g != nil && g.Version() == version {
		return g
	}
	return nil
}

// put keeps a game; when full, an arbitrary entry makes room (Go's map
// order), which is cheap and good enough for a cache of active games.
func (c *gameCache) put(id int64, g *engine.Game) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.games[id]; !ok && len(c.games) >= c.max {
		for k := range c.games {
			delete(c.games, k)
			break
		}
	}
	c.games[id] = g
}
