package matching

import (
	"math/rand/v2"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

func queue(rng *rand.Rand, n int) []Entry {
	paces := []string{"live", "correspondence"}
	es := make([]Entry, n)
	for i := range es {
		var sizes []int
		for _, s := range Sizes {
			if rng.IntN(2) == 0 {
				sizes = append(sizes, s)
			}
		}
		if len(sizes) == 0 {
			sizes = []int{Sizes[rng.IntN(3)]}
		}
		es[i] = Entry{
			UserID:   int64(i + 1),
			Rating:   1500 + rng.NormFloat64()*300,
			Sizes:    sizes,
			Pace:     paces[rng.IntN(2)],
			JoinedAt: now.Add(-time.Duration(rng.IntN(20*60)) * time.Second),
		}
	}
	return es
}

func TestMatchFormsOnlyAllowedTablesAndNobodyTwice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		es := queue(rng, 10+rng.IntN(60))
		tables := Match(es, now)
		seen := map[int64]bool{}
		for _, tb := range tables {
			if !Allowed(tb.Players, now) {
				t.Fatalf("round %d: table not allowed: %+v", round, tb.Players)
			}
			for _, p := range tb.Players {
				if seen[p.UserID] {
					t.Fatalf("round %d: player %d matched twice", round, p.UserID)
				}
				seen[p.UserID] = true
			}
		}
		var left []Entry
		for _, e := range es {
			if !seen[e.UserID] {
				left = append(left, e)
			}
		}
		if tb := anyAllowed(left); tb != nil {
			t.Fatalf("round %d: %d players left although they could play: %+v", round, len(left), tb)
		}
	}
}

// anyAllowed searches every combination of 3 to 5 players for an allowed
// table (small queues only).
func anyAllowed(es []Entry) []Entry {
	var pick []Entry
	var rec func(start, size int) []Entry
	rec = func(start, size int) []Entry {
		if len(pick) == size {
			if Allowed(pick, now) {
				return append([]Entry(nil), pick...)
			}
			return nil
		}
		for i := start; i < len(es); i++ {
			pick = append(pick, es[i])
			if found := rec(i+1, size); found != nil {
				return found
			}
			pick = pick[:len(pick)-1]
		}
		return nil
	}
	for size := 3; size <= 5; size++ {
		if found := rec(0, size); found != nil {
			return found
		}
	}
	return nil
}

func TestGapWidensWithWaiting(t *testing.T) {
	e := Entry{JoinedAt: now}
	if e.Gap(now) != BaseGap || e.Gap(now.Add(2*time.Minute)) != BaseGap+2*GapPerMinute || e.Gap(now.Add(24*time.Hour)) != MaxGap {
		t.Errorf("gaps: %v %v %v", e.Gap(now), e.Gap(now.Add(2*time.Minute)), e.Gap(now.Add(24*time.Hour)))
	}
	// Two far-apart players and one between: no table at first, one later.
	es := []Entry{
		{UserID: 1, Rating: 1300, Sizes: []int{3}, Pace: "live", JoinedAt: now},
		{UserID: 2, Rating: 1500, Sizes: []int{3}, Pace: "live", JoinedAt: now},
		{UserID: 3, Rating: 1700, Sizes: []int{3}, Pace: "live", JoinedAt: now},
	}
	if got := Match(es, now); len(got) != 0 {
		t.Errorf("a 400-point spread matched at once: %+v", got)
	}
	if got := Match(es, now.Add(7*time.Minute)); len(got) != 1 {
		t.Errorf("after 7 minutes (gap 450) no table: %+v", got)
	}
}

func TestMiddlePlayerWithNarrowGapIsSkipped(t *testing.T) {
	es := []Entry{
		{UserID: 1, Rating: 1500, Sizes: []int{3}, Pace: "live", JoinedAt: now.Add(-10 * time.Minute)},
		{UserID: 2, Rating: 1560, Sizes: []int{3}, Pace: "live", JoinedAt: now},                        // gap 100: too narrow for any table here
		{UserID: 3, Rating: 1620, Sizes: []int{3}, Pace: "live", JoinedAt: now.Add(-10 * time.Minute)}, // {1,2,3} spreads 120
		{UserID: 4, Rating: 1650, Sizes: []int{3}, Pace: "live", JoinedAt: now.Add(-10 * time.Minute)},
	}
	got := Match(es, now)
	if len(got) != 1 || got[0].Players[0].UserID != 1 || got[0].Players[2].UserID != 4 {
		t.Errorf("tables: %+v", got)
	}
}

func TestPacesAndSizesAreRespected(t *testing.T) {
	es := []Entry{
		{UserID: 1, Rating: 1500, Sizes: []int{3}, Pace: "live", JoinedAt: now},
		{UserID: 2, Rating: 1500, Sizes: []int{3}, Pace: "live", JoinedAt: now},
		{UserID: 3, Rating: 1500, Sizes: []int{3}, Pace: "correspondence", JoinedAt: now},
		{UserID: 4, Rating: 1500, Sizes: []int{4}, Pace: "live", JoinedAt: now},
	}
	if got := Match(es, now); len(got) != 0 {
		t.Errorf("matched across paces or sizes: %+v", got)
	}
}

// BenchmarkMatch10000 matches a queue of 10,000 waiting players.
func BenchmarkMatch10000(b *testing.B) {
	es := queue(rand.New(rand.NewPCG(3, 4)), 10000)
	for b.Loop() {
		Match(append([]Entry(nil), es...), now)
	}
}
