package pairing

import "slices"

// exactPlayers is the largest number of seated players whose round is
// seated by trying every seating. Twelve at tables of 3 have 15,400
// seatings, at tables of 2 10,395, at tables of 4 5,775; with the cut-offs
// of exact a round takes about a millisecond at most.
const exactPlayers = 12

// quality is how good a seating is, compared in this order: fewer repeated
// meetings, then a smaller total of the tables' spreads, then a smaller
// widest spread (a table's spread is its highest score minus its lowest).
type quality struct {
	repeats, spreads, widest int64
}

// less reports whether q is strictly better than r.
func (q quality) less(r quality) bool {
	if q.repeats != r.repeats {
		return q.repeats < r.repeats
	}
	if q.spreads != r.spreads {
		return q.spreads < r.spreads
	}
	return q.widest < r.widest
}

// quality measures the seating as it stands.
func (s *seating) quality() quality {
	var q quality
	for _, t := range s.tables {
		spread := int64(t.hi - t.lo)
		q.repeats += t.meetings
		q.spreads += spread
		q.widest = max(q.widest, spread)
	}
	return q
}

// exact replaces the seating with the best of all seatings by quality, if
// the seating found so far is not already among the best. It is a
// depth-first search: each table starts with the best player not yet
// seated (tables are not ordered, so any other first player would only
// repeat seatings) and takes the others in the round's order, so each
// seating is met once and in the order of its players' places. Since the
// round's order is by score, best first, a table's spread is its first
// player's score minus its last one's.
//
// A partial seating is cut off once even the best way of finishing it
// could not beat the best seating known: its repeats so far, its spreads so
// far and its widest spread so far can only grow, and the players not yet
// at a finished table can sit no closer than in runs of the round's order
// (see blockSpreads). Only a strictly better seating replaces the best
// known, so the result is the one found by the moves when it is among the
// best, and otherwise the first of the best in the search's order.
func (s *seating) exact() {
	m, n := len(s.players), s.size
	if n >= m || n < 2 {
		return // a single seating
	}
	met := make([]int64, m*m)
	score := make([]int64, m)
	for i := range m {
		score[i] = int64(s.score(i))
		for j := i + 1; j < m; j++ {
			met[i*m+j] = s.met(i, j)
			met[j*m+i] = met[i*m+j]
		}
	}
	best := s.quality()
	var found []int
	seated := make([]bool, m)
	cur := make([]int, 0, m) // table t is cur[t*n : t*n+n]

	// place seats the next player. done holds the repeats so far, the
	// spreads of the finished tables and the widest spread so far, the
	// table being filled included; rest is blockSpreads of the players not
	// at a finished table, worked out when that table was started.
	var place func(done quality, rest int64)
	place = func(done quality, rest int64) {
		if len(cur) == m {
			if done.less(best) {
				best, found = done, slices.Clone(cur)
			}
			return
		}
		filled := len(cur) % n
		table := cur[len(cur)-filled:]
		if filled == 0 {
			rest = blockSpreads(score, seated, n)
			i := slices.Index(seated, false)
			if !(quality{done.repeats, done.spreads + rest, done.widest}).less(best) {
				return
			}
			seated[i] = true
			cur = append(cur, i)
			place(done, rest)
			cur = cur[:len(cur)-1]
			seated[i] = false
			return
		}
		// free counts the players left after i, so the search stops
		// trying a seat once too few are left to fill the table after it.
		free := 0
		for i := table[filled-1] + 1; i < m; i++ {
			if !seated[i] {
				free++
			}
		}
		for i := table[filled-1] + 1; i < m; i++ {
			if seated[i] {
				continue
			}
			free--
			if free < n-filled-1 {
				return
			}
			next := done
			for _, x := range table {
				next.repeats += met[i*m+x]
			}
			spread := score[table[0]] - score[i]
			next.widest = max(next.widest, spread)
			bound := next
			bound.spreads += max(rest, spread)
			if !bound.less(best) {
				// Every later player has as low a score or lower, so with
				// any of them the spreads are no better; only the repeats
				// may be. When fewer repeats would not help, stop.
				floor := quality{done.repeats, bound.spreads, bound.widest}
				if !floor.less(best) {
					return
				}
				continue
			}
			if filled == n-1 {
				next.spreads += spread
			}
			seated[i] = true
			cur = append(cur, i)
			if filled == n-1 {
				place(next, 0)
			} else {
				place(next, rest)
			}
			cur = cur[:len(cur)-1]
			seated[i] = false
		}
	}
	place(quality{}, 0)
	if found == nil {
		return
	}
	for k, t := range s.tables {
		copy(t.seats, found[k*n:k*n+n])
		s.refresh(t)
	}
}

// blockSpreads is the least total spread the players not yet seated can
// have at tables of n: that of seating them in runs of the round's order,
// the first n together, then the next n, and so on. Take the players by
// score and any cut between two neighbours in that order: when the number
// above the cut is not a multiple of n, some table has players on both
// sides, and its spread covers the gap in score at the cut. The runs cover
// each such gap once and no other, so no seating does better.
func blockSpreads(score []int64, seated []bool, n int) int64 {
	var sum, top int64
	k := 0
	for i, done := range seated {
		if done {
			continue
		}
		if k%n == 0 {
			top = score[i]
		}
		k++
		if k%n == 0 {
			sum += top - score[i]
		}
	}
	return sum
}
