// Package matching forms ranked tables from the players waiting in the
// queue. It is pure: entries in, tables out. It imports the standard
// library only.
//
// A table is allowed when its rating spread (highest minus lowest) is
// within every member's allowed gap, which widens the longer that member
// has waited, its spread of reliability (the share of games finished, in
// percent) is within every member's reliability gap, which widens too
// (reliability.QueueGapAt), and every member accepts its size. Match is
// maximal: when it returns, no allowed table can be formed from the
// players left.
package matching

import (
	"math/rand/v2"
	"slices"
	"time"

	"nothanks/internal/reliability"
)

// Gap widening: a new entry accepts opponents within BaseGap rating points;
// each minute of waiting adds GapPerMinute, up to MaxGap.
const (
	BaseGap      = 100.0
	GapPerMinute = 50.0
	MaxGap       = 1000.0
)

// Sizes a player may choose.
var Sizes = []int{3, 4, 5}

// Entry is a player waiting in the queue.
type Entry struct {
	UserID   int64
	Rating   float64
	Sizes    []int
	Pace     string
	JoinedAt time.Time
	// Reliability is the player's share of games finished, in percent
	// (reliability.QueueShare: 100 for a new account).
	Reliability float64
}

// Gap is how far from its rating an entry accepts others at time now.
func (e Entry) Gap(now time.Time) float64 {
	waited := now.Sub(e.JoinedAt).Minutes()
	return min(BaseGap+max(waited, 0)*GapPerMinute, MaxGap)
}

// ReliabilityGap is how far from its reliability an entry accepts others
// at time now.
func (e Entry) ReliabilityGap(now time.Time) float64 {
	return reliability.QueueGapAt(now.Sub(e.JoinedAt))
}

// alike reports whether entries' reliability spread is within each one's
// reliability gap.
func alike(es []Entry, gaps []float64) bool {
	lo, hi := es[0].Reliability, es[0].Reliability
	for _, e := range es {
		lo, hi = min(lo, e.Reliability), max(hi, e.Reliability)
	}
	for _, g := range gaps {
		if g < hi-lo {
			return false
		}
	}
	return true
}

// Table is a formed table: its size, pace and players (ordered by rating).
type Table struct {
	Pace    string
	Players []Entry
}

// Match forms as many tables as it can, larger tables first.
func Match(entries []Entry, now time.Time) []Table {
	byPace := map[string][]Entry{}
	var paces []string
	for _, e := range entries {
		if _, ok := byPace[e.Pace]; !ok {
			paces = append(paces, e.Pace)
		}
		byPace[e.Pace] = append(byPace[e.Pace], e)
	}
	slices.Sort(paces)
	var tables []Table
	for _, pace := range paces {
		tables = append(tables, matchPace(pace, byPace[pace], now)...)
	}
	return tables
}

func matchPace(pace string, es []Entry, now time.Time) []Table {
	slices.SortFunc(es, func(a, b Entry) int {
		switch {
		case a.Rating < b.Rating:
			return -1
		case a.Rating > b.Rating:
			return 1
		}
		return a.JoinedAt.Compare(b.JoinedAt)
	})
	gaps, relGaps := make([]float64, len(es)), make([]float64, len(es))
	for i, e := range es {
		gaps[i], relGaps[i] = e.Gap(now), e.ReliabilityGap(now)
	}
	// near reports whether two entries' reliability is within both
	// their gaps.
	near := func(i, j int) bool {
		d := es[i].Reliability - es[j].Reliability
		return max(d, -d) <= min(relGaps[i], relGaps[j])
	}
	taken := make([]bool, len(es))
	var tables []Table
	for _, k := range []int{5, 4, 3} {
		ok := func(i int) bool { return !taken[i] && slices.Contains(es[i].Sizes, k) }
		mids := make([]int, 0, k)
		for lo := range es {
			if !ok(lo) {
				continue
			}
			// Sweep the top member upward: the spread grows, and a middle
			// member fits while its own gap covers the spread.
		top:
			for hi := lo + 1; hi < len(es) && es[hi].Rating-es[lo].Rating <= gaps[lo]; hi++ {
				spread := es[hi].Rating - es[lo].Rating
				if !ok(hi) || gaps[hi] < spread || !near(lo, hi) {
					continue
				}
				mids = mids[:0]
				for m := lo + 1; m < hi && len(mids) < k-2; m++ {
					if ok(m) && gaps[m] >= spread && near(m, lo) && near(m, hi) {
						mids = append(mids, m)
					}
				}
				if len(mids) < k-2 {
					continue
				}
				members := append([]int{lo}, append(mids, hi)...)
				var set []Entry
				var setGaps []float64
				for _, i := range members {
					set, setGaps = append(set, es[i]), append(setGaps, relGaps[i])
				}
				if !alike(set, setGaps) {
					continue
				}
				t := Table{Pace: pace}
				for _, i := range members {
					taken[i] = true
					t.Players = append(t.Players, es[i])
				}
				tables = append(tables, t)
				break top
			}
		}
	}
	return tables
}

// Allowed reports whether players may form a table at time now.
func Allowed(players []Entry, now time.Time) bool {
	if len(players) < 3 || len(players) > 5 {
		return false
	}
	lo, hi := players[0].Rating, players[0].Rating
	for _, p := range players {
		lo, hi = min(lo, p.Rating), max(hi, p.Rating)
	}
	relGaps := make([]float64, len(players))
	for i, p := range players {
		if !slices.Contains(p.Sizes, len(players)) || p.Gap(now) < hi-lo || p.Pace != players[0].Pace {
			return false
		}
		relGaps[i] = p.ReliabilityGap(now)
	}
	return alike(players, relGaps)
}

// Permutations is how many times PairChances matches the waiting players
// again.
const Permutations = 64

// PairChances is the matcher's own chance of seating each pair of the
// waiting entries together, what honest players of those ratings would
// get: the entries are matched again Permutations times with their
// accepted sizes and join times shuffled among them (ratings and
// reliability kept), which breaks any coordination of two players'
// choices, and each pair gets the share of those matchings that seated
// them at one table. Pairs never seated together are left out. The
// fair-play signals sum it over the times tables are formed
// (docs/fair-play.md).
func PairChances(entries []Entry, now time.Time, rng *rand.Rand) map[[2]int64]float64 {
	out := map[[2]int64]float64{}
	es := slices.Clone(entries)
	order := make([]int, len(es))
	for range Permutations {
		for i := range order {
			order[i] = i
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for i := range es {
			es[i] = entries[i]
			es[i].Sizes, es[i].JoinedAt = entries[order[i]].Sizes, entries[order[i]].JoinedAt
		}
		for _, t := range Match(slices.Clone(es), now) {
			for i, a := range t.Players {
				for _, c := range t.Players[i+1:] {
					out[[2]int64{min(a.UserID, c.UserID), max(a.UserID, c.UserID)}] += 1.0 / Permutations
				}
			}
		}
	}
	return out
}
