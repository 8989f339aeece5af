package engine

import "testing"

// BenchmarkApply measures actions applied per second in random play,
// counting only Apply (each op is one action).
func BenchmarkApply(b *testing.B) {
	rng := newTestRand(1)
	o := Options{Players: 4, Rounds: 10, Variant: Standard}
	g, _ := New(o, 1)
	b.ReportAllocs()
	for b.Loop() {
		if g.Finished() {
			b.StopTimer()
			g, _ = New(o, rng.Uint64())
			b.StartTimer()
		}
		seat := g.Turn()
		kind := Take
		if g.players[seat].tokens > 0 && rng.IntN(3) != 0 {
			kind = Pass
		}
		if err := g.Apply(Action{Seat: seat, Kind: kind}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRandomGame measures whole one-round 4-player games (deal,
// legal moves and every action) per second.
func BenchmarkRandomGame(b *testing.B) {
	rng := newTestRand(2)
	o := DefaultOptions(4)
	b.ReportAllocs()
	for b.Loop() {
		g, _ := New(o, rng.Uint64())
		playRandom(g, rng)
	}
}

// BenchmarkView measures building one seat's projection mid-game.
func BenchmarkView(b *testing.B) {
	g, _ := New(DefaultOptions(5), 3)
	rng := newTestRand(3)
	for range 60 {
		legal := g.Legal(g.Turn())
		_ = g.Apply(Action{Seat: g.Turn(), Kind: legal[rng.IntN(len(legal))]})
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = g.View(1)
	}
}
