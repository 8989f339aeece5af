package games

import (
	"sync"

	"nothanks/internal/engine"
)

// gameCache keeps, per game, the latest engine state this process has
// rebuilt or made. A game at a given version is always the same state (the
// deals follow from the seed, the moves are append-only), so a cached state
// is never wrong, only perhaps behind: a reader brings it up to the row's
// version with the moves since. Entries are never modified: readers
// project them, writers clone them.
type gameCache struct {
	mu    sync.Mutex
	games map[int64]*engine.Game
	max   int
}

func newGameCache(max int) *gameCache {
	return &gameCache{games: map[int64]*engine.Game{}, max: max}
}

// get returns the latest cached state of a game, or nil.
func (c *gameCache) get(id int64) *engine.Game {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.games[id]
}

// put keeps a game's state unless a later one is kept already; when full,
// an arbitrary entry makes room (Go's map order), which is cheap and good
// enough for a cache of active games.
func (c *gameCache) put(id int64, g *engine.Game) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.games[id]
	if ok && old.Version() >= g.Version() {
		return
	}
	if !ok && len(c.games) >= c.max {
		for k := range c.games {
			delete(c.games, k)
			break
		}
	}
	c.games[id] = g
}

// drop forgets a game.
func (c *gameCache) drop(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.games, id)
}
