package pairing

import (
	"cmp"
	"slices"
)

// ArenaGame is one finished arena game of one player: the placing points
// it earned and whether the player finished first (see Won).
type ArenaGame struct {
	Points Points
	Won    bool
}

// ArenaScore adds up one player's arena games, given in the order they
// finished. A game counts double when the player's two games just before
// it in this event were both won: two wins in a row put the player on
// fire, and the next game is doubled whatever its result. A game that is
// not won ends the streak, so the game after it counts normally again.
//
// each is what every game counted (doubled or not), for the player's game
// list; onFire is true when the last two games were both won, which is the
// mark shown beside the player because their next game will count double.
func ArenaScore(games []ArenaGame) (total Points, each []Points, onFire bool) {
	each = make([]Points, len(games))
	for i, g := range games {
		p := g.Points
		if i >= 2 && games[i-1].Won && games[i-2].Won {
			p *= 2
		}
		each[i] = p
		total += p
	}
	n := len(games)
	onFire = n >= 2 && games[n-1].Won && games[n-2].Won
	return total, each, onFire
}

// Free is an arena player who is not at a table and waits to be seated.
type Free struct {
	ID     int64
	Points Points // arena total so far
	Rating float64
	// Since is when the player became free, in any increasing unit
	// (smaller means waiting longer).
	Since int64
}

// ArenaWave seats one wave of an arena whose tables hold size players.
//
// Nobody is seated while fewer than size players are free: a table is
// never short. Otherwise the players who have waited longest are seated, as
// many as fill whole tables (Since ascending, then ID), and the few who
// came free most recently wait for the next wave, so nobody ever waits
// behind a player who came free after them. The seated players are then
// grouped with the players closest to them (arena points, then rating,
// then ID) and cut into consecutive tables, so leaders meet leaders.
//
// Each table lists its IDs in that order; the caller shuffles the seats.
// waiting lists those left free, longest waiting first. free is not
// modified. size must be at least 1.
func ArenaWave(free []Free, size int) (tables [][]int64, waiting []int64) {
	if size < 1 {
		panic("pairing: ArenaWave with a table size below 1")
	}
	byWait := slices.Clone(free)
	slices.SortFunc(byWait, longestWaiting)
	k := len(byWait) / size * size
	seated, rest := byWait[:k], byWait[k:]
	for _, f := range rest {
		waiting = append(waiting, f.ID)
	}
	if k == 0 {
		return nil, waiting
	}
	slices.SortFunc(seated, closest)
	ids := make([]int64, k)
	for i, f := range seated {
		ids[i] = f.ID
	}
	tables = make([][]int64, 0, k/size)
	for t := 0; t < k; t += size {
		// Full slice expressions, so a caller appending to one table
		// cannot write into the next.
		tables = append(tables, ids[t:t+size:t+size])
	}
	return tables, waiting
}

// longestWaiting orders free players by when they came free, then by ID.
func longestWaiting(a, b Free) int {
	if c := cmp.Compare(a.Since, b.Since); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// closest orders free players by arena points, then rating, highest first,
// then by ID, so neighbours in the order are the closest opponents.
func closest(a, b Free) int {
	if c := cmp.Compare(b.Points, a.Points); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Rating, a.Rating); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}
