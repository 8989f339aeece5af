package pairing

import (
	"cmp"
	"slices"
)

// Entrant is a player to be seated in a Swiss round.
type Entrant struct {
	ID     int64
	Score  Points
	Rating float64
	Byes   int
	// Met counts how many times this player has met each other player.
	// Either side of a pair may hold the count; the larger is used.
	Met map[int64]int
}

// Limits of the seating search, so that a field of a thousand stays far
// under a second whatever its history. Every pair of tables is tried for a
// swap while a round has at most allPairsTables tables; beyond that a table
// is only tried against the swapReach tables after it, which hold the
// nearest scores. Rotations look cycleReach tables either way. Passes stop
// at maxPasses even if moves still help, and the last search gives up after
// searchBudget steps.
const (
	allPairsTables = 40
	swapReach      = 8
	cycleReach     = 4
	maxPasses      = 20
	searchBudget   = 200_000
)

// SwissRound seats one round of a Swiss event whose tables hold size
// players.
//
// Tables are always full. When the players do not divide into tables, the
// len%size left over get a bye: those who have had the fewest byes, and
// among them the lowest in the standings order (score, then rating, then
// the higher ID), so the leaders play. byes lists them in that order. With
// fewer players than a table everyone gets a bye; the event should not run
// such a round.
//
// The others are ordered by score, rating and ID and seated by this rule:
// of two seatings the better is the one with fewer repeated meetings (every
// earlier meeting of two players at one table, counted as many times as
// they met), then, when those are equal, the one whose tables' spreads
// (each table's highest score minus its lowest) add up to less, then the
// one whose widest spread is smaller.
//
// When at most exactPlayers (12) are seated, the seating is the best there
// is by that rule: every seating is tried (see exact; the tests check the
// result against every seating). Among seatings equal by the rule, the one
// found by the moves below is kept if it is among the best; otherwise it is
// the first of the best in the order where each table takes the best
// player left and then the others in the round's order, the best-placed
// first.
//
// Larger fields are seated by moves that cost a linear time in the field,
// and weigh repeats and the total spread alone, as one cost: every
// repeated meeting above any difference in score, plus each table's
// spread. A first seating is built table by table, best player first, each
// seat going to the player among the next few in order who adds the least
// cost; then single players are swapped between tables while that lowers
// the cost, and three players are rotated round three tables when no swap
// removes a repeat that is left. If repeats are still left, a bounded
// search over all seatings looks for one with fewer. What is sure: no
// exchange of two players between tables close in the standings (any two
// tables while there are at most 40) lowers the cost, unless the passes
// ran out (maxPasses); and when the search runs to its end within its
// budget, which it does in fields of a few tables, the repeats are the
// fewest possible. The total spread is not sure to be the least there,
// and the widest spread is not looked at.
//
// Each table lists its IDs in the order above, tables in the order of their
// best player; the caller shuffles the seats. The result depends only on
// the input, and entrants is not modified. size must be at least 1.
func SwissRound(entrants []Entrant, size int) (tables [][]int64, byes []int64) {
	if size < 1 {
		panic("pairing: SwissRound with a table size below 1")
	}
	players := slices.Clone(entrants)
	if r := len(players) % size; r > 0 {
		slices.SortFunc(players, func(a, b Entrant) int {
			return cmp.Or(
				cmp.Compare(a.Byes, b.Byes),
				cmp.Compare(a.Score, b.Score),
				cmp.Compare(a.Rating, b.Rating),
				cmp.Compare(b.ID, a.ID),
			)
		})
		byes = make([]int64, r)
		for i := range r {
			byes[i] = players[i].ID
		}
		players = players[r:]
	}
	if len(players) == 0 {
		return nil, byes
	}
	slices.SortFunc(players, func(a, b Entrant) int {
		return cmp.Or(
			cmp.Compare(b.Score, a.Score),
			cmp.Compare(b.Rating, a.Rating),
			cmp.Compare(a.ID, b.ID),
		)
	})
	s := newSeating(players, size)
	s.seatGreedily()
	s.improve()
	if len(players) <= exactPlayers {
		s.exact()
	} else if s.search() {
		s.improve()
	}
	return s.ids(), byes
}

// seating is a Swiss round being seated. Players are known by their index
// in players, which is the round's order (best first), so a lower index
// means a higher place.
type seating struct {
	players []Entrant
	size    int
	// weight is the cost of one repeated meeting. It is more than the
	// largest possible total of the tables' spreads, so avoiding a meeting
	// always beats keeping scores together.
	weight int64
	tables []*table
	// Scratch for trySwap, kept so trying a pair of tables allocates
	// nothing: cross[j*size+i] is how often B's j-th player met A's i-th;
	// rowB[j] sums B's j-th against all of A, colA[i] A's i-th against all
	// of B.
	cross, rowB, colA []int64
}

// table is one table of a seating with what trySwap needs kept up to date.
type table struct {
	seats    []int   // player indices
	met      []int64 // met[i]: meetings of seats[i] with the others here
	meetings int64   // meetings of all pairs here
	// The two highest and two lowest scores and where the highest and
	// lowest sit, so the spread without any one player is known at once.
	hi, hi2, lo, lo2 Points
	hiAt, loAt       int
}

func newSeating(players []Entrant, size int) *seating {
	hi, lo := players[0].Score, players[len(players)-1].Score
	return &seating{
		players: players,
		size:    size,
		weight:  int64(len(players)/size)*int64(hi-lo) + 1,
		cross:   make([]int64, size*size),
		rowB:    make([]int64, size),
		colA:    make([]int64, size),
	}
}

// met is how many times players i and j have met.
func (s *seating) met(i, j int) int64 {
	a, b := &s.players[i], &s.players[j]
	return int64(max(a.Met[b.ID], b.Met[a.ID]))
}

func (s *seating) score(i int) Points { return s.players[i].Score }

// seatGreedily builds the first seating: each table starts with the best
// player not yet seated, and each further seat goes to the player who adds
// the least cost among the next 3×size in order (the earliest on a tie, so
// scores stay together when nothing else differs). Looking no further
// keeps the cost of a round linear in the field.
func (s *seating) seatGreedily() {
	rest := make([]int, len(s.players))
	for i := range rest {
		rest[i] = i
	}
	window := 3 * s.size
	for len(rest) > 0 {
		seats := make([]int, 1, s.size)
		seats[0], rest = rest[0], rest[1:]
		hi, lo := s.score(seats[0]), s.score(seats[0])
		for len(seats) < s.size {
			best, bestCost := 0, int64(0)
			for w := range min(window, len(rest)) {
				c := rest[w]
				var m int64
				for _, x := range seats {
					m += s.met(c, x)
				}
				sc := s.score(c)
				grow := int64(max(hi, sc)-min(lo, sc)) - int64(hi-lo)
				if cost := m*s.weight + grow; w == 0 || cost < bestCost {
					best, bestCost = w, cost
				}
			}
			c := rest[best]
			rest = slices.Delete(rest, best, best+1)
			seats = append(seats, c)
			hi, lo = max(hi, s.score(c)), min(lo, s.score(c))
		}
		t := &table{seats: seats, met: make([]int64, s.size)}
		s.refresh(t)
		s.tables = append(s.tables, t)
	}
}

// refresh recomputes what a table keeps after its seats change.
func (s *seating) refresh(t *table) {
	t.meetings = 0
	clear(t.met)
	for i, a := range t.seats {
		for j := i + 1; j < len(t.seats); j++ {
			m := s.met(a, t.seats[j])
			t.met[i] += m
			t.met[j] += m
			t.meetings += m
		}
	}
	t.hiAt, t.loAt = 0, 0
	for i, a := range t.seats {
		if s.score(a) > s.score(t.seats[t.hiAt]) {
			t.hiAt = i
		}
		if s.score(a) < s.score(t.seats[t.loAt]) {
			t.loAt = i
		}
	}
	t.hi, t.lo = s.score(t.seats[t.hiAt]), s.score(t.seats[t.loAt])
	// With a single seat there is nobody else: the spread without it is
	// never asked for, as no swap can change a table of one.
	t.hi2, t.lo2 = t.lo, t.hi
	for i, a := range t.seats {
		if i != t.hiAt {
			t.hi2 = max(t.hi2, s.score(a))
		}
		if i != t.loAt {
			t.lo2 = min(t.lo2, s.score(a))
		}
	}
}

// spreadSwapped is the spread of t once its seat i holds a player of score
// sc instead.
func (t *table) spreadSwapped(i int, sc Points) int64 {
	hi, lo := t.hi, t.lo
	if i == t.hiAt {
		hi = t.hi2
	}
	if i == t.loAt {
		lo = t.lo2
	}
	return int64(max(hi, sc) - min(lo, sc))
}

// improve swaps single players between tables while the cost goes down.
// When no swap helps but a table still holds a repeated meeting, it tries
// rotating three players round three tables, which gets out of seatings
// where every single swap would put some pair together again.
func (s *seating) improve() {
	if s.size < 2 {
		return
	}
	reach := swapReach
	if len(s.tables) <= allPairsTables {
		reach = len(s.tables)
	}
	for range maxPasses {
		improved := false
		for a := range s.tables {
			for b := a + 1; b < len(s.tables) && b-a <= reach; b++ {
				if s.trySwap(s.tables[a], s.tables[b]) {
					improved = true
				}
			}
		}
		if !improved && !s.rotate() {
			return
		}
	}
}

// rotate makes the first rotation found that lowers the number of repeated
// meetings: a player who met someone at table A moves to B, one of B's
// moves to C and one of C's to A, with B and C within cycleReach of A. Any
// rotation that lowers the meetings lowers them at some table, by moving
// out a player who met someone there, so only those players are tried as
// the one leaving A.
func (s *seating) rotate() bool {
	for a, A := range s.tables {
		if A.meetings == 0 {
			continue
		}
		lo, hi := max(0, a-cycleReach), min(len(s.tables)-1, a+cycleReach)
		for b := lo; b <= hi; b++ {
			for c := lo; c <= hi; c++ {
				if b == a || c == a || b == c {
					continue
				}
				if s.tryRotate(A, s.tables[b], s.tables[c]) {
					return true
				}
			}
		}
	}
	return false
}

// tryRotate makes the best rotation of A's player i to B's seat j, B's
// player j to C's seat k and C's player k to A's seat i, if it lowers the
// meetings, and reports whether it did.
func (s *seating) tryRotate(A, B, C *table) bool {
	best, bi, bj, bk := int64(0), -1, -1, -1
	for i, p := range A.seats {
		if A.met[i] == 0 {
			continue
		}
		for k, r := range C.seats {
			toA := s.replaced(A, i, r)
			for j, q := range B.seats {
				meetings := toA + s.replaced(B, j, p) + s.replaced(C, k, q)
				if meetings >= 0 {
					continue
				}
				d := meetings*s.weight +
					A.spreadSwapped(i, s.score(r)) - int64(A.hi-A.lo) +
					B.spreadSwapped(j, s.score(p)) - int64(B.hi-B.lo) +
					C.spreadSwapped(k, s.score(q)) - int64(C.hi-C.lo)
				if d < best {
					best, bi, bj, bk = d, i, j, k
				}
			}
		}
	}
	if bi < 0 {
		return false
	}
	A.seats[bi], B.seats[bj], C.seats[bk] = C.seats[bk], A.seats[bi], B.seats[bj]
	s.refresh(A)
	s.refresh(B)
	s.refresh(C)
	return true
}

// replaced is how the meetings at t change when player x takes seat i.
func (s *seating) replaced(t *table, i, x int) int64 {
	m := -t.met[i]
	for k, y := range t.seats {
		if k != i {
			m += s.met(x, y)
		}
	}
	return m
}

// trySwap makes the best exchange of one player of A with one of B, if it
// lowers the cost, and reports whether it did.
func (s *seating) trySwap(A, B *table) bool {
	n, cross, rb, ca := s.size, s.cross, s.rowB, s.colA
	clear(rb)
	clear(ca)
	for j, q := range B.seats {
		for i, p := range A.seats {
			m := s.met(q, p)
			cross[j*n+i] = m
			rb[j] += m
			ca[i] += m
		}
	}
	spreadA, spreadB := int64(A.hi-A.lo), int64(B.hi-B.lo)
	bestI, bestJ, best := -1, -1, int64(0)
	for i, p := range A.seats {
		for j, q := range B.seats {
			// q takes p's seat at A: A loses p's meetings there and gains
			// q's with everyone at A but p; the same the other way at B.
			m := cross[j*n+i]
			meetings := (rb[j] - m - A.met[i]) + (ca[i] - m - B.met[j])
			spread := A.spreadSwapped(i, s.score(q)) - spreadA +
				B.spreadSwapped(j, s.score(p)) - spreadB
			if d := meetings*s.weight + spread; d < best {
				bestI, bestJ, best = i, j, d
			}
		}
	}
	if bestI < 0 {
		return false
	}
	A.seats[bestI], B.seats[bestJ] = B.seats[bestJ], A.seats[bestI]
	s.refresh(A)
	s.refresh(B)
	return true
}

// search looks for a seating with fewer repeated meetings than the one
// found, in case the swaps got stuck, and takes it if found. It is a
// depth-first search over seatings that cuts off any partial seating with
// as many meetings as the best known; in small fields it is exhaustive,
// which makes a seating without repeats certain to be found when one
// exists. It tries players in the round's order, so the first seatings it
// meets keep scores together, and it stops after searchBudget steps (a
// step is a player looked at), so a large field costs a bounded time;
// there the swaps and rotations have done the work already.
func (s *seating) search() bool {
	var best int64
	for _, t := range s.tables {
		best += t.meetings
	}
	if best == 0 {
		return false
	}
	m, n := len(s.players), s.size
	seated := make([]bool, m)
	cur := make([]int, 0, m) // table t is cur[t*n : t*n+n]
	var found []int
	steps := 0
	var place func(meetings int64)
	place = func(meetings int64) {
		if len(cur) == m {
			best, found = meetings, slices.Clone(cur)
			return
		}
		from := 0
		if len(cur)%n != 0 {
			// Within a table players come in order, so each table is
			// tried once, not once per order of its seats.
			from = cur[len(cur)-1] + 1
		}
		table := cur[len(cur)-len(cur)%n:]
		// free counts the players left after i, so the search stops
		// trying a seat once too few are left to fill the table after it.
		free := 0
		for i := from; i < m; i++ {
			if !seated[i] {
				free++
			}
		}
		steps += m - from
		for i := from; i < m && steps < searchBudget; i++ {
			if seated[i] {
				continue
			}
			free--
			if free < n-len(table)-1 {
				return
			}
			steps++
			add := int64(0)
			for _, x := range table {
				add += s.met(i, x)
			}
			if meetings+add < best {
				seated[i] = true
				cur = append(cur, i)
				place(meetings + add)
				cur = cur[:len(cur)-1]
				seated[i] = false
			}
			if len(table) == 0 {
				// A new table starts with the best player left: tables
				// are not ordered, so any other first player would only
				// repeat seatings already tried.
				return
			}
		}
	}
	place(0)
	if found == nil {
		return false
	}
	for k, t := range s.tables {
		copy(t.seats, found[k*n:k*n+n])
		s.refresh(t)
	}
	return true
}

// ids gives the seating as IDs: each table in the round's order, tables in
// the order of their best player.
func (s *seating) ids() [][]int64 {
	for _, t := range s.tables {
		slices.Sort(t.seats)
	}
	slices.SortFunc(s.tables, func(a, b *table) int { return cmp.Compare(a.seats[0], b.seats[0]) })
	out := make([][]int64, len(s.tables))
	ids := make([]int64, 0, len(s.players))
	for k, t := range s.tables {
		for _, i := range t.seats {
			ids = append(ids, s.players[i].ID)
		}
		out[k] = ids[len(ids)-s.size : len(ids) : len(ids)]
	}
	return out
}
