package pairing

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// fresh gives n players who have not played, IDs 1…n, rated 2000 − 10×ID so
// a lower ID is a higher rating.
func fresh(n int) []Entrant {
	es := make([]Entrant, n)
	for i := range es {
		id := int64(i + 1)
		es[i] = Entrant{ID: id, Rating: float64(2000 - 10*id), Met: map[int64]int{}}
	}
	return es
}

// scored sets the players' scores in halves, by ID.
func scored(es []Entrant, scores map[int64]Points) []Entrant {
	for i := range es {
		es[i].Score = scores[es[i].ID]
	}
	return es
}

// sat records that the players at each table met (both sides of each pair).
func sat(es []Entrant, tables ...[]int64) []Entrant {
	at := map[int64]*Entrant{}
	for i := range es {
		at[es[i].ID] = &es[i]
	}
	for _, table := range tables {
		for _, a := range table {
			for _, b := range table {
				if a != b {
					at[a].Met[b]++
				}
			}
		}
	}
	return es
}

// meetings counts the earlier meetings of pairs seated together.
func meetings(es []Entrant, tables [][]int64) int {
	return countMeetings(metPairs(es), tables)
}

// metPairs gives how often each pair met, from either side's count.
func metPairs(es []Entrant) map[[2]int64]int {
	met := map[[2]int64]int{}
	for _, e := range es {
		for o, n := range e.Met {
			met[[2]int64{e.ID, o}] = max(met[[2]int64{e.ID, o}], n)
			met[[2]int64{o, e.ID}] = max(met[[2]int64{o, e.ID}], n)
		}
	}
	return met
}

func countMeetings(met map[[2]int64]int, tables [][]int64) int {
	sum := 0
	for _, table := range tables {
		for i, a := range table {
			for _, b := range table[i+1:] {
				sum += met[[2]int64{a, b}]
			}
		}
	}
	return sum
}

// seatValue is how good a seating is, by the rule of docs/tournaments.md:
// fewer repeated meetings first, then a smaller total of the tables'
// spreads (highest score minus lowest), then a smaller widest spread.
type seatValue struct{ repeats, spreads, widest int }

func (v seatValue) String() string {
	return fmt.Sprintf("%d repeats, spreads %d, widest %d", v.repeats, v.spreads, v.widest)
}

// better reports whether v is strictly better than w.
func (v seatValue) better(w seatValue) bool {
	if v.repeats != w.repeats {
		return v.repeats < w.repeats
	}
	if v.spreads != w.spreads {
		return v.spreads < w.spreads
	}
	return v.widest < w.widest
}

// value measures a seating of es, given as tables of IDs.
func value(es []Entrant, tables [][]int64) seatValue {
	score := map[int64]Points{}
	for _, e := range es {
		score[e.ID] = e.Score
	}
	v := seatValue{repeats: meetings(es, tables)}
	for _, table := range tables {
		hi, lo := score[table[0]], score[table[0]]
		for _, id := range table {
			hi, lo = max(hi, score[id]), min(lo, score[id])
		}
		v.spreads += int(hi - lo)
		v.widest = max(v.widest, int(hi-lo))
	}
	return v
}

// bestSeating is the best value over every way of seating ids at tables of
// size, found by trying them all: the first player left takes the next
// table with every choice of size-1 others, and each complete seating is
// measured table by table. seatings is how many ways it tried.
func bestSeating(es []Entrant, ids []int64, size int) (best seatValue, seatings int) {
	pairs := metPairs(es)
	score := map[int64]Points{}
	for _, e := range es {
		score[e.ID] = e.Score
	}
	n := len(ids)
	met := make([][]int, n)
	sc := make([]int, n)
	for i := range met {
		met[i] = make([]int, n)
		for j := range met[i] {
			met[i][j] = pairs[[2]int64{ids[i], ids[j]}]
		}
		sc[i] = int(score[ids[i]])
	}
	// seq holds the players seated so far (as indices in ids), table
	// after table.
	seq := make([]int, 0, n)
	var seat func(used uint64)
	var pick func(used uint64, from int)
	seat = func(used uint64) {
		if used == 1<<n-1 {
			var v seatValue
			for k := 0; k < n; k += size {
				table := seq[k : k+size]
				hi, lo := sc[table[0]], sc[table[0]]
				for i, a := range table {
					hi, lo = max(hi, sc[a]), min(lo, sc[a])
					for _, b := range table[i+1:] {
						v.repeats += met[a][b]
					}
				}
				v.spreads += hi - lo
				v.widest = max(v.widest, hi-lo)
			}
			if seatings == 0 || v.better(best) {
				best = v
			}
			seatings++
			return
		}
		first := 0
		for used&(1<<first) != 0 {
			first++
		}
		seq = append(seq, first)
		pick(used|1<<first, first+1)
		seq = seq[:len(seq)-1]
	}
	pick = func(used uint64, from int) {
		if len(seq)%size == 0 {
			seat(used)
			return
		}
		for i := from; i < n; i++ {
			if used&(1<<i) != 0 {
				continue
			}
			seq = append(seq, i)
			pick(used|1<<i, i+1)
			seq = seq[:len(seq)-1]
		}
	}
	seat(0)
	return best, seatings
}

// first is the best value of bestSeating, without the count.
func first(best seatValue, _ int) seatValue { return best }

func TestBestSeating(t *testing.T) {
	// The checker itself, on cases worked by hand. Seatings of 3k players
	// at tables of 3: (3k)! / (3!^k k!), so 6 → 10, 9 → 280, 12 → 15,400;
	// 8 at tables of 4: 8! / (4!^2 2!) = 35; 14 at tables of 7: 1,716.
	tests := []struct {
		name     string
		players  []Entrant
		size     int
		seated   []int64 // nil: all the players
		best     seatValue
		seatings int
	}{
		{"Fresh", fresh(9), 3, nil, seatValue{}, 280},
		{"AfterOneRound", sat(fresh(9), []int64{1, 2, 3}, []int64{4, 5, 6}, []int64{7, 8, 9}), 3, nil, seatValue{}, 280},
		// See FewestTimesMet in TestSwissRoundSeating.
		{"ForcedRepeat", sat(sat(fresh(6), []int64{1, 2}, []int64{1, 2}), []int64{3, 4, 5, 6}), 3, nil, seatValue{2, 0, 0}, 10},
		// See PartsAPairThatMet: 4 halves between the tables, at both.
		{"Parted", sat(scored(fresh(6), map[int64]Points{1: 4, 2: 4, 3: 4}), []int64{1, 2}), 3, nil, seatValue{0, 8, 4}, 10},
		// See UnavoidableRepeatsKeptFewest.
		{"TwoTablesOfFour", sat(fresh(8), []int64{1, 2, 3, 4}, []int64{5, 6, 7, 8}), 4, nil, seatValue{4, 0, 0}, 35},
		{"TwelveAtThree", fresh(12), 3, nil, seatValue{}, 15400},
		// Two tables of 7 after two tables of 7: 3 and 4 from each old
		// table at each new one is the least, 3 + 6 pairs = 9 at each, 18.
		{"TwoTablesOfSeven", sat(fresh(14), []int64{1, 2, 3, 4, 5, 6, 7}, []int64{8, 9, 10, 11, 12, 13, 14}), 7, nil, seatValue{18, 0, 0}, 1716},
		// See TestSwissRoundClosestScores for these two, less the bye.
		{"WidestSpread", widestSpreadField(), 3, []int64{2, 3, 4, 5, 6, 7, 8, 9, 10}, seatValue{0, 10, 4}, 280},
		{"TotalSpread", totalSpreadField(), 3, []int64{1, 2, 3, 5, 6, 7, 8, 9, 10}, seatValue{0, 6, 3}, 280},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := tt.seated
			if ids == nil {
				for _, p := range tt.players {
					ids = append(ids, p.ID)
				}
			}
			got, seatings := bestSeating(tt.players, ids, tt.size)
			if want := tt.best; got != want || seatings != tt.seatings {
				t.Errorf("bestSeating = %v over %d seatings, want %v over %d", got, seatings, want, tt.seatings)
			}
		})
	}
}

func TestSwissRoundByes(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		players []Entrant
		byes    []int64
		tables  [][]int64
	}{
		// 10 at tables of 3 leave 1 over: nobody has had a bye, all have 0
		// points, so the lowest rated, 10, sits out. The rest are all
		// level and sit in rating order.
		{"LowestRatedSitsOut", 3, fresh(10), []int64{10}, [][]int64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}},
		// 10 has had a bye, so the next lowest, 9, gets this one.
		{"FewestByesFirst", 3, func() []Entrant { es := fresh(10); es[9].Byes = 1; return es }(),
			[]int64{9}, [][]int64{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}}},
		// Points come before rating: 1 is the best rated but has nothing
		// while the others have 2 halves, so 1 sits out.
		{"LowestScoreBeforeRating", 3, scored(fresh(7), map[int64]Points{2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2}),
			[]int64{1}, [][]int64{{2, 3, 4}, {5, 6, 7}}},
		// Fewest byes before points: 4 has the least points but has had a
		// bye, so the lowest of the others (3) sits out.
		{"ByesBeforeScore", 3, func() []Entrant {
			es := scored(fresh(4), map[int64]Points{1: 2, 2: 2, 3: 2})
			es[3].Byes = 1
			return es
		}(), []int64{3}, [][]int64{{1, 2, 4}}},
		// Equal on everything: the higher ID sits out.
		{"EqualHigherIDSitsOut", 3, []Entrant{{ID: 1}, {ID: 2}, {ID: 3}, {ID: 4}}, []int64{4}, [][]int64{{1, 2, 3}}},
		// 7 at tables of 4 leave 3 over: the three lowest, lowest first.
		{"ThreeOverAtTablesOfFour", 4, fresh(7), []int64{7, 6, 5}, [][]int64{{1, 2, 3, 4}}},
		// 13 at tables of 7 leave 6 over.
		{"SixOverAtTablesOfSeven", 7, fresh(13), []int64{13, 12, 11, 10, 9, 8}, [][]int64{{1, 2, 3, 4, 5, 6, 7}}},
		// Fewer than a table: nobody can play, everyone gets a bye.
		{"FewerThanATable", 3, fresh(2), []int64{2, 1}, nil},
		{"NobodyEntered", 5, nil, nil, nil},
		// 12 at tables of 4, 6 or 3 divide: no byes.
		{"DividesTablesOfFour", 4, fresh(12), nil, [][]int64{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}},
		{"DividesTablesOfSix", 6, fresh(12), nil, [][]int64{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}},
		{"FiveAtTablesOfFive", 5, fresh(5), nil, [][]int64{{1, 2, 3, 4, 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tables, byes := SwissRound(tt.players, tt.size)
			if !slices.Equal(byes, tt.byes) {
				t.Errorf("byes = %v, want %v", byes, tt.byes)
			}
			if !slices.EqualFunc(tables, tt.tables, slices.Equal) {
				t.Errorf("tables = %v, want %v", tables, tt.tables)
			}
		})
	}
}

func TestSwissRoundSeating(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		players  []Entrant
		tables   [][]int64
		meetings int
	}{
		// After round 1 at {1,2,3} {4,5,6} {7,8,9}, where 1, 4, 7 won (4
		// halves), 2, 5, 8 came second (2) and 3, 6, 9 last (0): the
		// order is 1 4 7 2 5 8 3 6 9 and each table takes the next three,
		// who never met. Spread 0, no repeat.
		{"WinnersMeetWinners", 3,
			sat(scored(fresh(9), map[int64]Points{1: 4, 4: 4, 7: 4, 2: 2, 5: 2, 8: 2}), []int64{1, 2, 3}, []int64{4, 5, 6}, []int64{7, 8, 9}),
			[][]int64{{1, 4, 7}, {2, 5, 8}, {3, 6, 9}}, 0},
		// Same first round, but 1 and 2 shared the win (3 halves each):
		// 4 and 7 have 4, 1 and 2 have 3, 5 and 8 have 2, the rest 0.
		// Order 4 7 1 2 5 8 3 6 9. The first table starts with 4 and 7
		// (never met, both on 4), then takes 1 (3 halves: spread 1; 2
		// would also give 1, but 1 comes first; 5 and 8 met 4 and 7). The
		// second takes 2, 5 (2 halves: spread 1, never met) and 8 (never
		// met either); the last 3, 6, 9.
		// Spreads 1 + 1 + 0 = 2 is the least any seating can have (the
		// two 3s sit with the 4s or the 2s), so no swap helps.
		{"SharedWinSitsWithLeaders", 3,
			sat(scored(fresh(9), map[int64]Points{4: 4, 7: 4, 1: 3, 2: 3, 5: 2, 8: 2}), []int64{1, 2, 3}, []int64{4, 5, 6}, []int64{7, 8, 9}),
			[][]int64{{4, 7, 1}, {2, 5, 8}, {3, 6, 9}}, 0},
		// 1, 2, 3 have 4 halves each and 4, 5, 6 none, but 1 and 2 met.
		// {1,2,3} {4,5,6} would cost a meeting; parting 1 and 2 costs
		// spread 4 at both tables, 8 in all, still less than one meeting
		// (2 tables × 4 halves + 1 = 9). Table one: 1, then 3 (2 met 1),
		// then 4, the first of the equal 4, 5, 6.
		{"PartsAPairThatMet", 3,
			sat(scored(fresh(6), map[int64]Points{1: 4, 2: 4, 3: 4}), []int64{1, 2}),
			[][]int64{{1, 3, 4}, {2, 5, 6}}, 0},
		// The same with the meeting known to one side only.
		{"MeetingKnownToOneSide", 3,
			func() []Entrant {
				es := scored(fresh(6), map[int64]Points{1: 4, 2: 4, 3: 4})
				es[1].Met[1] = 1
				return es
			}(),
			[][]int64{{1, 3, 4}, {2, 5, 6}}, 0},
		// All level; 1 and 2 met twice, and 3, 4, 5, 6 have all met each
		// other once. Every table of three holds a pair that met: with 1
		// and 2 together it is 2 + 3 = 5 meetings, apart 1 + 1 = 2. Table
		// one: 1, then 3 (2 met 1 twice), then 4, the first of 4, 5, 6
		// (each met 3 once).
		{"FewestTimesMet", 3,
			sat(sat(fresh(6), []int64{1, 2}, []int64{1, 2}), []int64{3, 4, 5, 6}),
			[][]int64{{1, 3, 4}, {2, 5, 6}}, 2},
		// Tables of four after {1,2,3,4} {5,6,7,8}, placed in ID order at
		// each (6, 4, 2, 0 halves). Two tables of four from two old tables
		// always repeat; the fewest is two from each old table at each new
		// one, a pair that met from each: 2 + 2 = 4 (3 and 1 give 3 + 3).
		// Order 1 5 2 6 3 7 4 8: table one 1, 5 (never met), then 2
		// (met 1; as good as any), then 6 (met 5; 3 would meet 1 and 2),
		// the winners and seconds together; the rest at table two.
		{"UnavoidableRepeatsKeptFewest", 4,
			sat(scored(fresh(8), map[int64]Points{1: 6, 5: 6, 2: 4, 6: 4, 3: 2, 7: 2}), []int64{1, 2, 3, 4}, []int64{5, 6, 7, 8}),
			[][]int64{{1, 5, 2, 6}, {3, 7, 4, 8}}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tables, byes := SwissRound(tt.players, tt.size)
			if byes != nil {
				t.Errorf("byes = %v, want none", byes)
			}
			if !slices.EqualFunc(tables, tt.tables, slices.Equal) {
				t.Errorf("tables = %v, want %v", tables, tt.tables)
			}
			if got := meetings(tt.players, tables); got != tt.meetings {
				t.Errorf("%d repeated meetings, want %d", got, tt.meetings)
			}
		})
	}
}

// widestSpreadField is round 3 of ten players at tables of three, the
// field of the report that brought in the widest spread as a tie-break.
// Round 1: {1,2,3} {4,5,6} {7,8,9}, 10 sits out; 3, 6 and 9 win (4
// halves), 2, 4 and 8 come second (2), 1, 5 and 7 last, 10 gets 2 for the
// bye. Round 2: {3,6,9} {2,4,8} {10,1,5}, 7 sits out; 6, 2 and 5 win, 3, 8
// and 10 come second, 9, 4 and 1 last. All in halves.
func widestSpreadField() []Entrant {
	es := sat(scored(fresh(10), map[int64]Points{1: 0, 2: 6, 3: 6, 4: 2, 5: 4, 6: 8, 7: 2, 8: 4, 9: 4, 10: 4}),
		[]int64{1, 2, 3}, []int64{4, 5, 6}, []int64{7, 8, 9},
		[]int64{3, 6, 9}, []int64{2, 4, 8}, []int64{10, 1, 5})
	es[6].Byes, es[9].Byes = 1, 1
	return es
}

// totalSpreadField is round 3 of another such event, where the moves
// between tables leave a total spread well above the least. Round 1:
// {1,2,3} {4,5,6} {7,8,9}, 10 sits out; round 2: {5,9,1} {2,10,4}
// {3,8,6}, 7 sits out. Scores in halves.
func totalSpreadField() []Entrant {
	es := sat(scored(fresh(10), map[int64]Points{1: 4, 2: 5, 3: 6, 4: 1, 5: 6, 6: 2, 7: 2, 8: 3, 9: 6, 10: 5}),
		[]int64{1, 2, 3}, []int64{4, 5, 6}, []int64{7, 8, 9},
		[]int64{5, 9, 1}, []int64{2, 10, 4}, []int64{3, 8, 6})
	es[6].Byes, es[9].Byes = 1, 1
	return es
}

// TestSwissRoundClosestScores checks the tie-breaks after the repeats on
// fields where a seating without repeats exists: the least total of the
// tables' spreads, then the least widest spread. Both fields are small
// enough to be seated by trying every seating. All points in halves.
func TestSwissRoundClosestScores(t *testing.T) {
	tests := []struct {
		name    string
		players []Entrant
		byes    []int64
		tables  [][]int64
		value   seatValue
	}{
		// 7 and 10 have had a bye, so 1, last with 0, sits out. Order:
		// 6 (8), 2 3 (6), 5 8 9 10 (4), 4 7 (2). Of these, 2-3, 4-5, 4-6,
		// 5-6, 7-8, 7-9, 8-9, 3-6, 3-9, 6-9, 2-4, 2-8, 4-8 and 5-10 met.
		// Total: 6, 2 and 3 cannot sit together (2-3 and 3-6 met), so
		// the step from 6 to 4 is crossed at two tables; 8 to 6 at one
		// and 4 to 2 at one or more: at least 2 + 4 + 2 = 8. That needs
		// 6 with 2 (3 met both) and a 4, 3 at another table, and 4 with
		// 7: 6's table is {6,2,10} (6 met 3, 5, 9; 2 met 8), and the rest
		// {3,5,8} and {4,7,9} (7-9 met) or {3,4,7} and {5,8,9} (8-9
		// met). So 8 cannot be had; scores are even, and the next total
		// is 10. The widest: 6's table spreads 2 only with two 6s,
		// and 6, 2 and 3 cannot sit together, so 4 at best: 6 with 2
		// and 10, or 8 and 10 (6 with 7 would spread 6). {6,2,10} leaves
		// 3 with two of 5, 8, 4, 7 (3 met 9), and each way the other
		// three hold a pair that met ({4,7,9}, {8,9,4} or {5,8,9}). So
		// {6,8,10}; then 2 first with 5 and 9 (2 met 3 and 4), and
		// {3,4,7}: spreads 4 + 2 + 4 = 10, widest 4, the first such
		// seating in the order. The moves alone reach {6,2,7} {3,5,8}
		// {9,10,4}: 6 + 2 + 2 = 10 as well, but one table 3 points (6
		// halves) apart.
		{"NoTableMoreThanTwoPointsApart", widestSpreadField(), []int64{1},
			[][]int64{{6, 8, 10}, {2, 5, 9}, {3, 4, 7}}, seatValue{0, 10, 4}},
		// 7 and 10 have had a bye, so 4, last with 1, sits out. Order:
		// 3 5 9 (6), 2 10 (5), 1 (4), 8 (3), 6 7 (2). Of these, 1-2,
		// 1-3, 2-3, 5-6, 7-8, 7-9, 8-9, 1-5, 1-9, 5-9, 2-10, 3-6, 3-8
		// and 6-8 met. The steps down the order, 6 to 5, 5 to 4, 4 to 3
		// and 3 to 2, are 1 each. 5 and 9 met, so the three 6s cannot
		// sit together and the step from 6 to 5 is crossed at two
		// tables; 8 met 6 and 7, so the three lowest cannot either and
		// 4 to 3 is crossed at two; the other steps at one at least: a
		// total of 6 at least. For 6, 6 and 7 sit together (3 to 2 once)
		// and the four lowest split 3 + 1 (5 to 4 once), so 6 and 7 sit
		// with 1 (8 met both): {1,6,7}, spread 2. The other six then
		// total 4: without 8, three of 3, 5, 9, 2, 10 spread 1 at least
		// (3, 5, 9 cannot sit together), so 8's table spreads 3: 8 with
		// a 6 it has not met, 5, and with 2 or 10 (with both, 3, 5, 9
		// would be left together). {3,9,2} holds 2-3, so {5,2,8} and
		// {3,9,10}: 3 + 1 + 2 = 6, the only seating with 6, widest 3.
		// The moves alone reach {3,5,7} {9,2,6} {10,1,8}: 4 + 4 + 2 = 10.
		{"LeastTotalSpread", totalSpreadField(), []int64{4},
			[][]int64{{3, 9, 10}, {5, 2, 8}, {1, 6, 7}}, seatValue{0, 6, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, byes := SwissRound(tt.players, 3)
			if !slices.Equal(byes, tt.byes) {
				t.Errorf("byes = %v, want %v", byes, tt.byes)
			}
			if want := tt.tables; !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("tables = %v, want %v", got, want)
			}
			if got, want := value(tt.players, got), tt.value; got != want {
				t.Errorf("seating has %v, want %v", got, want)
			}
		})
	}
}

// TestSwissTenPlayersThreeRounds plays a whole event of ten players at
// tables of three, the results fixed by hand as card totals (lower is
// better), and checks each round's seating, byes and scores, and the final
// standings. Players are rated 2000 − 10×ID. All points are in halves.
func TestSwissTenPlayersThreeRounds(t *testing.T) {
	rounds := []struct {
		tables [][]int64
		byes   []int64
		totals map[int64]int // card totals at the table
		scores map[int64]Points
	}{
		{
			// Round 1. Nobody has a bye or points: 10, the lowest rated,
			// sits out. All level, so tables in rating order.
			tables: [][]int64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}},
			byes:   []int64{10},
			// {1,2,3}: 3 wins (4), 1 and 2 share last (½ = 1 each).
			// {4,5,6}: 4, 5, 6 in turn (4, 2, 0).
			// {7,8,9}: 9 wins (4), 7 and 8 share last (1 each).
			// 10's bye: 2.
			totals: map[int64]int{1: 40, 2: 40, 3: 20, 4: 30, 5: 35, 6: 50, 7: 33, 8: 33, 9: 25},
			scores: map[int64]Points{1: 1, 2: 1, 3: 4, 4: 4, 5: 2, 6: 0, 7: 1, 8: 1, 9: 4, 10: 2},
		},
		{
			// Round 2. 6 has the fewest points of those without a bye and
			// sits out. Order: 3 4 9 (4), 5 10 (2), 1 2 7 8 (1).
			// Greedy: 3 4 9 (never met, spread 0); 5 10, then 1 (first of
			// the 1s, none met 5 or 10: spread 1); 2 7 8, where 7 and 8
			// met. A meeting costs 3 tables × (4 − 1) + 1 = 10.
			// Swaps: none between {3,4,9} and another table (a 4 leaves
			// and spreads grow; none takes 7 or 8 away without a new
			// meeting). Between {5,10,1} and {2,7,8}, 5↔7, 5↔8, 10↔7 and
			// 10↔8 each remove the meeting and add 1 spread (−9); 5↔7 is
			// tried first and taken: {7,10,1} {2,5,8}, cost 0+1+1. Nothing
			// lowers it further (5 and 10 could only sit together again
			// with 7 or 8 going back beside each other or 1 beside 2).
			// In round order 3 4 9 5 10 1 2 7 8 the tables list as below.
			tables: [][]int64{{3, 4, 9}, {5, 2, 8}, {10, 1, 7}},
			byes:   []int64{6},
			// {3,4,9}: 4 wins (4), 9 second (2), 3 last (0).
			// {5,2,8}: all tied (2 each).
			// {10,1,7}: 1 wins (4), 10 second (2), 7 last (0).
			// 6's bye: 2.
			totals: map[int64]int{3: 50, 4: 22, 9: 30, 5: 15, 2: 15, 8: 15, 10: 40, 1: 28, 7: 45},
			scores: map[int64]Points{1: 5, 2: 3, 3: 4, 4: 8, 5: 4, 6: 2, 7: 1, 8: 3, 9: 6, 10: 4},
		},
		{
			// Round 3. Of those without a bye, 7 has the fewest points and
			// sits out: three byes, three different players. Order: 4 (8),
			// 9 (6), 1 (5), 3 5 10 (4), 2 8 (3), 6 (2); a meeting costs
			// 3 × (8 − 2) + 1 = 19.
			// Greedy: 4, then 1 (9, 3, 5, 6 met 4; 1 adds spread 3, 10
			// adds 4), then 8 (9, 5 and 6 met 4; 3 met both; 10 and 2 met
			// 1; 8 met neither, spread +2): {4,1,8} spread 5. Then 9, 5
			// (3 met 9; 5 and 10 add 2, 5 first), 10 (met neither, +0):
			// {9,5,10} spread 2. Last {3,2,6}, where 3 and 2 met: 19 + 2.
			// Swaps: none with {4,1,8} helps (every exchange puts a pair
			// that met together). 9↔3 between the other two removes the
			// meeting: {3,5,10} (4,4,4) and {9,2,6} (6,3,2), cost
			// −19 + (0 − 2) + (4 − 2) = −19, the best. After it no swap
			// lowers 5 + 0 + 4 without a meeting.
			tables: [][]int64{{4, 1, 8}, {9, 2, 6}, {3, 5, 10}},
			byes:   []int64{7},
			// {4,1,8}: 4 and 1 share the win (1½ = 3 each), 8 last (0).
			// {9,2,6}: 9, 2, 6 in turn (4, 2, 0).
			// {3,5,10}: 10 wins (4), 3 second (2), 5 last (0).
			// 7's bye: 2.
			totals: map[int64]int{4: 30, 1: 30, 8: 60, 9: 20, 2: 25, 6: 30, 3: 35, 5: 40, 10: 18},
			scores: map[int64]Points{1: 8, 2: 5, 3: 6, 4: 11, 5: 4, 6: 2, 7: 3, 8: 3, 9: 10, 10: 8},
		},
	}
	players := fresh(10)
	standing := map[int64]*SwissEntry{}
	for _, p := range players {
		standing[p.ID] = &SwissEntry{ID: p.ID, Rating: p.Rating}
	}
	var hadBye []int64
	for r, want := range rounds {
		tables, byes := SwissRound(players, 3)
		if !slices.EqualFunc(tables, want.tables, slices.Equal) || !slices.Equal(byes, want.byes) {
			t.Fatalf("round %d: tables %v byes %v, want %v byes %v", r+1, tables, byes, want.tables, want.byes)
		}
		if len(byes) != 1 || slices.Contains(hadBye, byes[0]) {
			t.Fatalf("round %d: byes %v after %v", r+1, byes, hadBye)
		}
		hadBye = append(hadBye, byes...)
		var seated []int64
		for _, table := range tables {
			seated = append(seated, table...)
		}
		if got, want := value(players, tables), first(bestSeating(players, seated, 3)); got != want {
			t.Fatalf("round %d: seating has %v, the best has %v", r+1, got, want)
		}

		// Play the round.
		at := map[int64]*Entrant{}
		for i := range players {
			at[players[i].ID] = &players[i]
		}
		for _, table := range tables {
			totals := make([]int, len(table))
			for i, id := range table {
				totals[i] = want.totals[id]
			}
			placings := densePlacings(totals)
			points := PlacePoints(placings)
			for i, id := range table {
				at[id].Score += points[i]
				if Won(placings, i) {
					standing[id].Wins++
				}
				for _, o := range table {
					if o != id {
						at[id].Met[o]++
						standing[id].Opponents = append(standing[id].Opponents, o)
					}
				}
			}
		}
		for _, id := range byes {
			at[id].Score += ByePoints(3)
			at[id].Byes++
			standing[id].Byes++
		}
		got := map[int64]Points{}
		for _, p := range players {
			got[p.ID] = p.Score
			standing[p.ID].Score = p.Score
		}
		if !maps.Equal(got, want.scores) {
			t.Fatalf("round %d: scores %v, want %v", r+1, got, want.scores)
		}
	}

	// Final standings. Wins (a shared first counts): 1: R2 R3; 2: R2;
	// 3: R1; 4: R1 R2 R3; 5: R2; 8: R2; 9: R1 R3; 10: R3; 6, 7: none.
	// Buchholz, opponents' final scores, a bye adding twice one's own:
	//   1: 2 3 | 10 7 | 4 8   = 5+6+8+3+11+3      = 36
	//   2: 1 3 | 5 8 | 9 6    = 8+6+4+3+10+2      = 33
	//   3: 1 2 | 4 9 | 5 10   = 8+5+11+10+4+8     = 46
	//   4: 5 6 | 3 9 | 1 8    = 4+2+6+10+8+3      = 33
	//   5: 4 6 | 2 8 | 3 10   = 11+2+5+3+6+8      = 35
	//   6: 4 5 | bye | 9 2    = 11+4+10+5 + 2×2   = 34
	//   7: 8 9 | 10 1 | bye   = 3+10+8+8 + 2×3    = 35
	//   8: 7 9 | 5 2 | 4 1    = 3+10+4+5+11+8     = 41
	//   9: 7 8 | 3 4 | 2 6    = 3+3+6+11+5+2      = 30
	//  10: bye | 1 7 | 3 5    = 8+3+6+4 + 2×8     = 37
	// Order by points: 4 (11), 9 (10), 10 and 1 (8: 10 ahead on
	// Buchholz 37 to 36), 3 (6), 2 (5), 5 (4), 8 and 7 (3: 8 ahead on 41
	// to 35), 6 (2). No two share a rank.
	var entries []SwissEntry
	for _, p := range players {
		entries = append(entries, *standing[p.ID])
	}
	order, buchholz := RankSwiss(entries, 3)
	wantOrder := []Standing{{4, 1}, {9, 2}, {10, 3}, {1, 4}, {3, 5}, {2, 6}, {5, 7}, {8, 8}, {7, 9}, {6, 10}}
	wantBuchholz := map[int64]Points{1: 36, 2: 33, 3: 46, 4: 33, 5: 35, 6: 34, 7: 35, 8: 41, 9: 30, 10: 37}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("standings %v, want %v", order, wantOrder)
	}
	if !maps.Equal(buchholz, wantBuchholz) {
		t.Errorf("buchholz %v, want %v", buchholz, wantBuchholz)
	}
}

// densePlacings ranks card totals the way engine.Placings does: lowest
// first, equal totals share a placing, the next total takes the next one.
func densePlacings(totals []int) []int {
	distinct := slices.Clone(totals)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	out := make([]int, len(totals))
	for i, t := range totals {
		out[i], _ = slices.BinarySearch(distinct, t)
		out[i]++
	}
	return out
}

// playRound seats a round with SwissRound, plays it with random placings
// and records the points, meetings and byes.
func playRound(rng *rand.Rand, players []Entrant, size int) {
	tables, byes := SwissRound(players, size)
	at := map[int64]*Entrant{}
	for i := range players {
		at[players[i].ID] = &players[i]
	}
	sat(players, tables...)
	for _, table := range tables {
		placings := make([]int, len(table))
		for i := range placings {
			placings[i] = 1 + rng.IntN(size)
		}
		for i, p := range PlacePoints(placings) {
			at[table[i]].Score += p
		}
	}
	for _, id := range byes {
		at[id].Score += ByePoints(size)
		at[id].Byes++
	}
}

// TestSwissRoundFewestRepeats checks the seating against every possible
// seating in small fields: round after round of random results, the round
// SwissRound seats has as few repeated meetings as any seating can, and in
// particular none whenever a seating without repeats exists; with at most
// 12 seated it is the best seating outright, also on the tables' spreads.
// Earlier rounds are seated by SwissRound itself, or at random, or are a
// few random meetings, to reach histories SwissRound would not make (at
// tables of 4 and more, a small field cannot avoid repeats after whole
// rounds: there are fewer tables than seats).
func TestSwissRoundFewestRepeats(t *testing.T) {
	tests := []struct {
		players, size, rounds, events int
	}{
		{9, 3, 4, 300},  // after 4 rounds everyone may have met everyone
		{10, 3, 4, 150}, // one bye each round
		{12, 3, 5, 60},
		{8, 4, 3, 150},
		{12, 4, 3, 60},
		{10, 5, 3, 150},
		{12, 6, 3, 60},
		{14, 7, 3, 30},
		{15, 7, 3, 30}, // one bye
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dPlayersAtTablesOf%d", tt.players, tt.size), func(t *testing.T) {
			avoidable := 0
			for event := range tt.events {
				rng := rand.New(rand.NewPCG(uint64(event), uint64(tt.size)))
				players := fresh(tt.players)
				rng.Shuffle(len(players), func(i, j int) { players[i].Rating, players[j].Rating = players[j].Rating, players[i].Rating })
				for round := range tt.rounds {
					tables, _ := SwissRound(players, tt.size)
					var seated []int64
					for _, table := range tables {
						seated = append(seated, table...)
					}
					got, best := value(players, tables), first(bestSeating(players, seated, tt.size))
					if len(seated) > exactPlayers {
						// Beyond the exact search only the repeats are
						// sure to be the fewest.
						got.spreads, got.widest, best.spreads, best.widest = 0, 0, 0, 0
					}
					if got != best {
						t.Fatalf("event %d round %d: seating has %v, the best has %v", event, round+1, got, best)
					}
					if best.repeats == 0 && round > 0 {
						avoidable++
					}
					switch event % 3 {
					case 0:
						playRound(rng, players, tt.size)
						continue
					case 1:
						// A whole round seated at random.
						ids := make([]int64, len(players))
						for i, p := range players {
							ids[i] = p.ID
						}
						rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
						var random [][]int64
						for k := 0; k+tt.size <= len(ids); k += tt.size {
							random = append(random, ids[k:k+tt.size])
						}
						sat(players, random...)
					case 2:
						// A few random pairs meet.
						for range tt.players / 2 {
							a, b := rng.IntN(tt.players), rng.IntN(tt.players)
							if a != b {
								sat(players, []int64{players[a].ID, players[b].ID})
							}
						}
					}
					for i := range players {
						players[i].Score += Points(rng.IntN(2 * tt.size))
					}
				}
			}
			t.Logf("%d rounds after the first where repeats were avoidable", avoidable)
		})
	}
}

// TestSwissRoundBestOfEverySeating compares SwissRound with every seating
// on random fields of 3 to 12 seated players (and up to size-1 more who
// sit out) at tables of 2 to 7: random scores from a few values or many,
// random byes, and random earlier meetings, sparse or dense, some known to
// one side only. The seating must be the best: the fewest repeats, then
// the least total of the tables' spreads, then the least widest spread.
func TestSwissRoundBestOfEverySeating(t *testing.T) {
	for size := 2; size <= 7; size++ {
		t.Run(fmt.Sprintf("BestAtTablesOf%d", size), func(t *testing.T) {
			for trial := range 300 {
				rng := rand.New(rand.NewPCG(uint64(size), uint64(trial)))
				fewest := (3 + size - 1) / size // tables for 3 seated or more
				tables := fewest + rng.IntN(exactPlayers/size-fewest+1)
				n := tables*size + rng.IntN(size)
				players := fresh(n)
				rng.Shuffle(n, func(i, j int) { players[i].Rating, players[j].Rating = players[j].Rating, players[i].Rating })
				spread, density := 1+rng.IntN(4*size), rng.Float64()
				for i := range players {
					players[i].Score = Points(rng.IntN(spread))
					players[i].Byes = rng.IntN(2)
					for j := range i {
						if rng.Float64() < density {
							times := 1 + rng.IntN(2)
							switch rng.IntN(3) {
							case 0:
								players[i].Met[players[j].ID] = times
							case 1:
								players[j].Met[players[i].ID] = times
							default:
								players[i].Met[players[j].ID] = times
								players[j].Met[players[i].ID] = times
							}
						}
					}
				}
				got, byes := SwissRound(players, size)
				var seated []int64
				for _, table := range got {
					seated = append(seated, table...)
				}
				if len(seated) != tables*size || len(byes) != n-tables*size {
					t.Fatalf("trial %d: %d seated and %d byes of %d", trial, len(seated), len(byes), n)
				}
				if got, want := value(players, got), first(bestSeating(players, seated, size)); got != want {
					t.Fatalf("trial %d, %d players: seating has %v, the best has %v", trial, n, got, want)
				}
			}
		})
	}
}

// TestSwissRoundShape checks, for tables of 3 to 7 and fields of every
// size up to five tables, over a few rounds: tables are full, the byes are
// the leftovers, everyone is seated or sits out once, the input is left as
// it was and its order does not matter.
func TestSwissRoundShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for size := 3; size <= 7; size++ {
		for n := 1; n <= 5*size+size-1; n++ {
			players := fresh(n)
			for round := range 3 {
				before := cloneEntrants(players)
				tables, byes := SwissRound(players, size)
				if !reflect.DeepEqual(before, players) {
					t.Fatalf("size %d, %d players, round %d: SwissRound changed its input", size, n, round+1)
				}
				shuffled := cloneEntrants(players)
				rng.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				t2, b2 := SwissRound(shuffled, size)
				if !slices.EqualFunc(tables, t2, slices.Equal) || !slices.Equal(byes, b2) {
					t.Fatalf("size %d, %d players, round %d: the order of the input changed the seating", size, n, round+1)
				}
				if len(byes) != n%size {
					t.Fatalf("size %d, %d players: %d byes", size, n, len(byes))
				}
				seen := map[int64]int{}
				for _, table := range tables {
					if len(table) != size {
						t.Fatalf("size %d, %d players: a table of %d", size, n, len(table))
					}
					for _, id := range table {
						seen[id]++
					}
				}
				for _, id := range byes {
					seen[id]++
				}
				for _, p := range players {
					if seen[p.ID] != 1 {
						t.Fatalf("size %d, %d players: %d placed %d times", size, n, p.ID, seen[p.ID])
					}
				}
				playRound(rng, players, size)
			}
		}
	}
}

func cloneEntrants(es []Entrant) []Entrant {
	out := slices.Clone(es)
	for i := range out {
		out[i].Met = maps.Clone(es[i].Met)
	}
	return out
}

func TestSwissRoundPanicsOnNoSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SwissRound with size 0 did not panic")
		}
	}()
	SwissRound(fresh(3), 0)
}

// history gives n players after rounds of random results at tables of
// size, seated by SwissRound.
func history(n, size, rounds int) []Entrant {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	players := fresh(n)
	rng.Shuffle(n, func(i, j int) { players[i].Rating, players[j].Rating = players[j].Rating, players[i].Rating })
	for range rounds {
		playRound(rng, players, size)
	}
	return players
}

// BenchmarkSwissRound1000 seats round 6 of an event of 1,000 players.
func BenchmarkSwissRound1000(b *testing.B) {
	for _, size := range []int{3, 4, 7} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			players := history(1000, size, 5)
			b.ReportAllocs()
			for b.Loop() {
				SwissRound(players, size)
			}
		})
	}
}

// BenchmarkSwissRound12 seats round 6 of an event of 12 players, the
// largest field seated by trying every seating.
func BenchmarkSwissRound12(b *testing.B) {
	for _, size := range []int{2, 3, 4, 6} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			players := history(12, size, 5)
			b.ReportAllocs()
			for b.Loop() {
				SwissRound(players, size)
			}
		})
	}
}

// BenchmarkSwissRoundCrowded seats round 9 of 40 players at tables of
// five, where everyone has met most of the field and repeats cannot all
// be avoided: the search runs to its budget.
func BenchmarkSwissRoundCrowded(b *testing.B) {
	players := history(40, 5, 8)
	b.ReportAllocs()
	for b.Loop() {
		SwissRound(players, 5)
	}
}

// TestSwissExampleOfTheDocs plays the bye example of docs/tournaments.md:
// Ann (1), Ben (2), Cat (3) and Dan (4), rated in that order, at tables of
// three. All points in halves.
func TestSwissExampleOfTheDocs(t *testing.T) {
	players := fresh(4)
	wins := map[int64]int{}
	opponents := map[int64][]int64{}
	rounds := []struct {
		tables [][]int64
		byes   []int64
		points map[int64]Points // placing points at the table
		winner int64
	}{
		// Round 1: all level, so Dan, the lowest rated, sits out. Ann wins
		// (4), Ben second (2), Cat last (0).
		{[][]int64{{1, 2, 3}}, []int64{4}, map[int64]Points{1: 4, 2: 2, 3: 0}, 1},
		// Round 2: of Ann (4), Ben (2) and Cat (0), who have had no bye,
		// Cat has the least and sits out. Dan wins (4), Ben second (2),
		// Ann last (0).
		{[][]int64{{1, 2, 4}}, []int64{3}, map[int64]Points{4: 4, 2: 2, 1: 0}, 4},
	}
	for r, want := range rounds {
		tables, byes := SwissRound(players, 3)
		if !slices.EqualFunc(tables, want.tables, slices.Equal) || !slices.Equal(byes, want.byes) {
			t.Fatalf("round %d: tables %v byes %v, want %v byes %v", r+1, tables, byes, want.tables, want.byes)
		}
		sat(players, tables...)
		for i := range players {
			p := &players[i]
			p.Score += want.points[p.ID]
			if slices.Contains(byes, p.ID) {
				p.Score += ByePoints(3)
				p.Byes++
			}
			for _, o := range tables[0] {
				if o != p.ID && slices.Contains(tables[0], p.ID) {
					opponents[p.ID] = append(opponents[p.ID], o)
				}
			}
		}
		wins[want.winner]++
	}
	// Dan 3 points, Ann 2, Ben 2, Cat 1. Buchholz: Dan 3+3 (bye) + 2 + 2 =
	// 10; Ann 2+1+2+3 = 8; Ben 2+1+2+3 = 8; Cat 2+2 + 1+1 (bye) = 6. Ann
	// and Ben are level on both; Ann has a win and Ben none.
	var entries []SwissEntry
	for _, p := range players {
		entries = append(entries, SwissEntry{ID: p.ID, Score: p.Score, Opponents: opponents[p.ID], Byes: p.Byes, Wins: wins[p.ID], Rating: p.Rating})
	}
	order, buchholz := RankSwiss(entries, 3)
	if want := []Standing{{4, 1}, {1, 2}, {2, 3}, {3, 4}}; !slices.Equal(order, want) {
		t.Errorf("standings %v, want %v", order, want)
	}
	if want := map[int64]Points{4: 20, 1: 16, 2: 16, 3: 12}; !maps.Equal(buchholz, want) {
		t.Errorf("buchholz %v, want %v", buchholz, want)
	}
}
