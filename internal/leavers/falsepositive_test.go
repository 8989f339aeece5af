package leavers

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/reliability"
)

// decisionsPerSeat plays one-round games of n seats between heuristic
// bots and gives every seat's count of decisions (takes and passes).
func decisionsPerSeat(t *testing.T, n, games int, rng *rand.Rand) []int {
	t.Helper()
	var out []int
	b, err := bot.New(bot.Heuristic)
	if err != nil {
		t.Fatal(err)
	}
	for range games {
		g, err := engine.New(engine.DefaultOptions(n), rng.Uint64())
		if err != nil {
			t.Fatal(err)
		}
		for !g.Finished() {
			seat := g.Turn()
			if err := g.Apply(engine.Action{Seat: seat, Kind: b.Decide(g.View(seat), rng)}); err != nil {
				t.Fatal(err)
			}
		}
		for s := range n {
			out = append(out, g.Decisions(s))
		}
	}
	return out
}

// TestPausesSpareHonestPlayers measures, before pauses act on anyone, how
// often they would fall on a player who never leaves but whose connection
// drops now and then: each decision of theirs runs out with probability
// p, independently; a game where three do is an abandonment (the
// engine's rule), and the pause steps are the real ones. Decisions per
// game come from real games of 3 to 7 seats. Simulated: 20,000 such
// players, 3 rated games a day for 30 days each. The share paused is
// checked against the binomial figure worked out by hand (an abandonment
// in a game of d decisions is P(X ≥ 3) for X ~ Bin(d, p); a pause needs
// two abandonments within the 30-day run), and is kept below 1 in 1,000
// for a player who loses one decision in 200 (p = 0.5 %), which is far
// flakier than a live table tolerates.
func TestPausesSpareHonestPlayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 7))
	var decisions []int
	for n := 3; n <= 7; n++ {
		decisions = append(decisions, decisionsPerSeat(t, n, 200, rng)...)
	}
	const players, perDay, days = 20000, 3, 30
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		p       float64
		atMost  float64 // the share paused that is tolerated
		because string
	}{
		{0.001, 0.0001, "one decision in 1,000 lost"},
		{0.005, 0.001, "one in 200"},
		{0.02, 1, "one in 50: reported, not bounded"},
	} {
		paused, abandons, games := 0, 0, 0
		for range players {
			var prevAt *time.Time
			step, wasPaused := 0, false
			for i := range perDay * days {
				games++
				d := decisions[rng.IntN(len(decisions))]
				out := 0
				for range d {
					if rng.Float64() < c.p {
						out++
					}
				}
				if out < engine.MaxTimeouts {
					continue
				}
				abandons++
				at := start.Add(time.Duration(i) * 24 * time.Hour / perDay)
				step = reliability.Step(prevAt, step, at)
				prevAt = &at
				if reliability.PauseFor(step) > 0 {
					wasPaused = true
				}
			}
			if wasPaused {
				paused++
			}
		}
		// By hand: the chance a game is an abandonment, averaged over
		// the games' decisions, then two or more of them in 90 games
		// (Poisson with the same mean, close for rare events).
		var q float64
		for _, d := range decisions {
			q += atLeast3(d, c.p)
		}
		q /= float64(len(decisions))
		lambda := q * perDay * days
		wantPaused := 1 - math.Exp(-lambda)*(1+lambda)
		share := float64(paused) / players
		t.Logf("p = %.3f (%s): %.6f of games abandoned (by hand %.6f); %.5f of honest players paused in 30 days (by hand %.5f)",
			c.p, c.because, float64(abandons)/float64(games), q, share, wantPaused)
		if got := float64(abandons) / float64(games); math.Abs(got-q) > 4*math.Sqrt(q/float64(games))+1e-6 {
			t.Errorf("p = %.3f: simulated abandonments %.5f, the binomial gives %.5f", c.p, got, q)
		}
		if math.Abs(share-wantPaused) > 4*math.Sqrt(wantPaused/players)+1e-4 {
			t.Errorf("p = %.3f: simulated pauses %.5f, by hand %.5f", c.p, share, wantPaused)
		}
		if share > c.atMost {
			t.Errorf("p = %.3f: %.5f of honest players paused, more than the %.5f tolerated", c.p, share, c.atMost)
		}
	}
}

// atLeast3 is P(X ≥ 3) for X ~ Bin(d, p).
func atLeast3(d int, p float64) float64 {
	q := 1 - p
	n := float64(d)
	p0 := math.Pow(q, n)
	p1 := n * p * math.Pow(q, n-1)
	p2 := n * (n - 1) / 2 * p * p * math.Pow(q, n-2)
	return 1 - p0 - p1 - p2
}
