package games

import (
	"testing"

	"nothanks/internal/engine"
)

func TestGameCacheMatchesVersionOnly(t *testing.T) {
	c := newGameCache(2)
	g, _ := engine.New(engine.DefaultOptions(3), 1)
	c.put(1, g)
	if c.get(1, 0) != g {
		t.Fatal("the cached game at its version is not found")
	}
	if c.get(1, 1) != nil {
		t.Error("a game at another version was returned")
	}
	c.put(2, g)
	c.put(3, g)
	if len(c.games) != 2 {
		t.Errorf("the cache holds %d games, its limit is 2", len(c.games))
	}
}
