package pairing

import (
	"cmp"
	"slices"
)

// Standing is one line of an event's standings. The lines come in order;
// Rank is shared by players the tie-breaks that count for a rank cannot
// separate (1, 1, 3, …), while the order itself is always total.
type Standing struct {
	ID   int64
	Rank int
}

// ArenaEntry is one player's arena result so far.
type ArenaEntry struct {
	ID     int64
	Total  Points // from ArenaScore
	Games  int
	Wins   int
	OnFire bool // shown beside the player; it does not affect the order
	Rating float64
}

// RankArena orders an arena's players: most points first, then more wins
// (wins are what the streak rewards), then fewer games (the same points
// from fewer games were earned at a better rate), then higher rating, then
// ID. Players equal on points, wins and games share a rank; rating and ID
// only keep the order stable and do not separate ranks. entries is not
// modified.
func RankArena(entries []ArenaEntry) []Standing {
	sorted := slices.Clone(entries)
	rankKey := func(a, b ArenaEntry) int {
		return cmp.Or(
			cmp.Compare(b.Total, a.Total),
			cmp.Compare(b.Wins, a.Wins),
			cmp.Compare(a.Games, b.Games),
		)
	}
	slices.SortFunc(sorted, func(a, b ArenaEntry) int {
		return cmp.Or(
			rankKey(a, b),
			cmp.Compare(b.Rating, a.Rating),
			cmp.Compare(a.ID, b.ID),
		)
	})
	out := make([]Standing, len(sorted))
	for i, e := range sorted {
		out[i] = Standing{ID: e.ID, Rank: i + 1}
		if i > 0 && rankKey(sorted[i-1], e) == 0 {
			out[i].Rank = out[i-1].Rank
		}
	}
	return out
}

// SwissEntry is one player's Swiss result so far.
type SwissEntry struct {
	ID    int64
	Score Points
	// Opponents has one entry per opponent per game, repeats kept: a game
	// at a table of four adds three.
	Opponents []int64
	Byes      int
	Wins      int
	Rating    float64
}

// RankSwiss orders a Swiss event's players of tables of size: most points
// first, then the higher Buchholz, then more wins, then higher rating, then
// ID. Players equal on points, Buchholz and wins share a rank.
//
// Buchholz, returned for display, measures how strong the field a player
// faced was: the sum of the final scores of every opponent met, once per
// game shared. An opponent missing from entries counts nothing, so keep
// players who withdrew in the list. A bye stands for a game against
// size-1 opponents as strong as the player, so each bye adds the player's
// own score size-1 times; counting it once would make a bye cost Buchholz
// next to a game, which adds size-1 opponents. entries is not modified.
func RankSwiss(entries []SwissEntry, size int) (order []Standing, buchholz map[int64]Points) {
	score := make(map[int64]Points, len(entries))
	for _, e := range entries {
		score[e.ID] = e.Score
	}
	buchholz = make(map[int64]Points, len(entries))
	for _, e := range entries {
		var b Points
		for _, o := range e.Opponents {
			b += score[o]
		}
		b += Points(e.Byes*(size-1)) * e.Score
		buchholz[e.ID] = b
	}
	// The sort compares keys held beside each entry, not looked up in the
	// map on every comparison.
	type line struct {
		e        *SwissEntry
		buchholz Points
	}
	lines := make([]line, len(entries))
	for i := range entries {
		lines[i] = line{&entries[i], buchholz[entries[i].ID]}
	}
	rankKey := func(a, b line) int {
		return cmp.Or(
			cmp.Compare(b.e.Score, a.e.Score),
			cmp.Compare(b.buchholz, a.buchholz),
			cmp.Compare(b.e.Wins, a.e.Wins),
		)
	}
	slices.SortFunc(lines, func(a, b line) int {
		return cmp.Or(
			rankKey(a, b),
			cmp.Compare(b.e.Rating, a.e.Rating),
			cmp.Compare(a.e.ID, b.e.ID),
		)
	})
	order = make([]Standing, len(lines))
	for i, l := range lines {
		order[i] = Standing{ID: l.e.ID, Rank: i + 1}
		if i > 0 && rankKey(lines[i-1], l) == 0 {
			order[i].Rank = order[i-1].Rank
		}
	}
	return order, buchholz
}
