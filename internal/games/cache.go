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
//
// It also keeps, per live game, the whole State this process last wrote
// (states), which the next move may act on without reading the game
// (Service.Act): only while nothing said the game changed since. Every
// change to a game is announced on the game channel (db.GameChannel): a
// move's with its new version and turn ("id:version:user"), a change that
// keeps the version (a seat abandoned, clocks moved) as "id:version". A
// State is forgotten at any announcement but the one of its own version in
// the first form, and at a reconnect of the listener; one that is stale
// nevertheless (the announcement still on its way) costs a refused write,
// never a wrong one: the write only applies on the version it was decided
// on.
type gameCache struct {
	mu     sync.Mutex
	games  map[int64]*engine.Game
	states map[int64]*State
	max    int
}

func newGameCache(max int) *gameCache {
	return &gameCache{games: map[int64]*engine.Game{}, states: map[int64]*State{}, max: max}
}

// current is the State kept of a game at version, or nil.
func (c *gameCache) current(id int64, version int) *State {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.states[id]; st != nil && st.Game.Version == version {
		return st
	}
	return nil
}

// keep keeps the State a write made, unless a later one is kept.
func (c *gameCache) keep(st *State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := st.Game.ID
	old, ok := c.states[id]
	if ok && old.Game.Version >= st.Game.Version {
		return
	}
	if !ok && len(c.states) >= c.max {
		for k := range c.states {
			delete(c.states, k)
			break
		}
	}
	c.states[id] = st
}

// noted hears an announcement of the game channel: the kept State of the
// game goes, unless this is the announcement of its own version.
func (c *gameCache) noted(id int64, version int, turn bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.states[id]; st != nil && !(turn && st.Game.Version == version) {
		delete(c.states, id)
	}
}

// unkeep forgets the State kept of a game (its engine state stays: it is
// only behind, never wrong).
func (c *gameCache) unkeep(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.states, id)
}

// forgetStates forgets every kept State (the listener reconnected: an
// announcement may have been missed).
func (c *gameCache) forgetStates() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.states = map[int64]*State{}
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
	delete(c.states, id)
}
