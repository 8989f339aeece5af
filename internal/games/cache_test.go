package games

import (
	"testing"

	"nothanks/internal/engine"
)

func TestGameCacheKeepsTheLatestState(t *testing.T) {
	c := newGameCache(2)
	g, _ := engine.New(engine.DefaultOptions(3), 1)
	c.put(1, g)
	if c.get(1) != g {
		t.Fatal("the cached game is not found")
	}
	later := g.Clone()
	if err := later.Apply(engine.Action{Seat: later.Turn(), Kind: engine.Take}); err != nil {
		t.Fatal(err)
	}
	c.put(1, later)
	c.put(1, g) // an older state arriving late does not replace it
	if got := c.get(1); got != later {
		t.Errorf("cached version %d, want %d", got.Version(), later.Version())
	}
	c.put(2, g)
	c.put(3, g)
	if len(c.games) != 2 {
		t.Errorf("the cache holds %d games, its limit is 2", len(c.games))
	}
	c.drop(3)
	if c.get(3) != nil {
		t.Error("a dropped game is still cached")
	}
}
