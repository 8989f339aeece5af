package engine

import (
	"sync"
	"testing"
)

// playTo plays a game of o (seed) with "take when the pot holds two or
// more, or when out of tokens" until it has n events or ends.
func playTo(t testing.TB, o Options, seed uint64, n int) *Game {
	t.Helper()
	g, err := New(o, seed)
	if err != nil {
		t.Fatal(err)
	}
	for !g.Finished() && len(g.events) < n {
		if err := g.Apply(nextMove(g)); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func nextMove(g *Game) Action {
	s := g.Turn()
	if g.Pot() >= 2 || g.Tokens(s) == 0 {
		return Action{Seat: s, Kind: Take}
	}
	return Action{Seat: s, Kind: Pass}
}

// Clones share the event log without a copy, yet each game's log stays
// its own: two clones of one game (taken at once, as two requests on one
// cached game do) each play on, and the game itself plays on too; every
// log is what playing from scratch gives, and the original is unchanged
// by its clones.
func TestClonesOfOneGameKeepTheirOwnLogs(t *testing.T) {
	o := Options{Players: 3, Rounds: 2, Variant: Standard}
	base := playTo(t, o, 7, 40)
	base = base.Clone() // a cached game is itself a clone
	want := append([]Event(nil), base.Events()...)
	clones := make([]*Game, 2)
	var wg sync.WaitGroup
	for i := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := base.Clone()
			for range 3 + 2*i {
				if err := c.Apply(nextMove(c)); err != nil {
					t.Error(err)
				}
			}
			clones[i] = c
		}()
	}
	wg.Wait()
	if err := base.Apply(nextMove(base)); err != nil {
		t.Fatal(err)
	}
	// Each, against the same play from scratch.
	for i, g := range append(clones, base) {
		ref := playTo(t, o, 7, 40)
		for len(ref.events) < len(g.events) {
			if err := ref.Apply(nextMove(ref)); err != nil {
				t.Fatal(err)
			}
		}
		if !sameEvents(ref.Events(), g.Events()) {
			t.Errorf("game %d's log differs from the same play from scratch", i)
		}
		if !sameEvents(g.Events()[:len(want)], want) {
			t.Errorf("game %d changed the events before the clone", i)
		}
	}
	// Appending to what Events returns never writes into a game's log.
	evs := clones[0].Events()
	_ = append(evs, Event{Kind: "x"})
	if c := clones[0].Clone(); c.Apply(nextMove(c)) == nil && c.Events()[len(evs)].Kind == "x" {
		t.Error("an append to Events() reached a clone's log")
	}
}

func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkCloneAndMove is the engine's part of a move in a long game, as
// the server makes it: clone the cached game (the last move's result) and
// apply one decision, the result being the next move's cached game; from
// event 300 of a ten-round game to its end, again and again.
//
//	go test -run '^$' -bench CloneAndMove -benchmem ./internal/engine/
func BenchmarkCloneAndMove(b *testing.B) {
	start := playTo(b, Options{Players: 3, Rounds: 10, Variant: Standard}, 11, 300)
	g := start.Clone()
	b.ReportAllocs()
	for b.Loop() {
		if g.Finished() {
			g = start.Clone()
		}
		c := g.Clone()
		if err := c.Apply(nextMove(c)); err != nil {
			b.Fatal(err)
		}
		g = c
	}
}
