package matching

import (
	"fmt"
	"math"
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

// The queue prefers players alike in reliability: a player who finished
// 60 % of their games does not join two who finished all of theirs at
// first (a spread of 40 points against gaps of 15), but does once each has
// waited 2½ minutes (15 + 2.5 × 10 = 40); a third reliable player of the
// same rating makes a table with the first two at once instead.
func TestMatchPrefersAlikeReliability(t *testing.T) {
	entry := func(id int64, rel float64) Entry {
		return Entry{UserID: id, Rating: 1500 + float64(id), Sizes: []int{3}, Pace: "live", JoinedAt: now, Reliability: rel}
	}
	three := []Entry{entry(1, 100), entry(2, 100), entry(3, 60)}
	if got := Match(three, now); len(got) != 0 {
		t.Errorf("at once: %d tables, want none", len(got))
	}
	if got := Match(three, now.Add(150*time.Second)); len(got) != 1 || len(got[0].Players) != 3 {
		t.Errorf("after 2½ minutes: %v, want one table of three", got)
	}
	if Allowed(three, now) || !Allowed(three, now.Add(150*time.Second)) {
		t.Error("Allowed disagrees with Match on the reliability gap")
	}
	four := append([]Entry{entry(4, 95)}, three...)
	got := Match(four, now)
	if len(got) != 1 {
		t.Fatalf("four players at once: %d tables, want 1", len(got))
	}
	for _, p := range got[0].Players {
		if p.UserID == 3 {
			t.Errorf("the 60 %% player was seated at once: %v", got[0].Players)
		}
	}
}

// The matcher's own chances: four players of one rating who all want a
// table of 3 fill one table each time, so the six pairs share three
// seatings a matching between them; two players who alone want tables of
// 4 and join together are seated together by the real matcher, but once
// their choices are shuffled among the others they are no likelier than
// any other pair.
func TestPairChances(t *testing.T) {

	var es []Entry
	for i := range 4 {
		es = append(es, Entry{UserID: int64(i + 1), Rating: 1500, Sizes: []int{3}, Pace: "live", JoinedAt: now.Add(-time.Duration(i+1) * time.Minute)})
	}
	ch := PairChances(es, now, rand.New(rand.NewPCG(1, 2)))
	sum := 0.0
	for k, c := range ch {
		if k[0] >= k[1] || c <= 0 || c > 1 {
			t.Errorf("pair %v: chance %v", k, c)
		}
		sum += c
	}
	if math.Abs(sum-3) > 1e-9 || len(ch) != 6 {
		t.Errorf("chances %v: sum %v over %d pairs, want 3 over 6", ch, sum, len(ch))
	}
	for i := range 6 {
		es = append(es, Entry{UserID: int64(10 + i), Rating: 1500, Sizes: []int{3}, Pace: "live", JoinedAt: now.Add(-time.Minute)})
	}
	es[0].Sizes, es[1].Sizes = []int{4}, []int{4}
	ch = PairChances(es, now, rand.New(rand.NewPCG(3, 4)))
	if c := ch[[2]int64{1, 2}]; c > 0.5 {
		t.Errorf("the coordinating pair's chance %v: the shuffle should break their coordination", c)
	}
}

// BenchmarkPairChances is what the fair-play signals add each time the
// ranked queue forms tables: the waiting matched again Permutations
// times (docs/fair-play.md), for a queue of 100 and of 1,000.
func BenchmarkPairChances(b *testing.B) {
	for _, n := range []int{100, 1000} {
		es := queue(rand.New(rand.NewPCG(5, 6)), n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 8))
			for b.Loop() {
				PairChances(es, now, rng)
			}
		})
	}
}
