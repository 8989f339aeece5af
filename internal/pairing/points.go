// Package pairing holds the rules of tournaments of No Thanks!: what a
// table's placings are worth in tournament points, the arena's streak and
// how an arena seats its free players in waves, how a Swiss round seats its
// players and gives its byes, and how standings are ordered and tie-broken.
//
// It is pure, so the rules can be read and tested on their own: numbers in,
// numbers out. It imports the standard library only; it must not import
// SQL, HTTP or any other nothanks package (the services that run events
// turn games and rows into the plain values it takes).
package pairing

import (
	"slices"
	"strconv"
)

// Points are tournament points counted in half points: 5 means 2½. Players
// tied at a table share the positions they cover equally, and that share is
// always a whole number of half points, so counting halves keeps every
// score exact.
type Points int

// String writes points as players read them: "2½", "3", "½", "0".
func (p Points) String() string {
	// Go's division truncates toward zero, so -5 gives "-2" and a half,
	// and -1 gives a bare "-½"; there is no negation to overflow.
	whole, half := p/2, p%2 != 0
	if !half {
		return strconv.Itoa(int(whole))
	}
	if whole == 0 {
		if p < 0 {
			return "-½"
		}
		return "½"
	}
	return strconv.Itoa(int(whole)) + "½"
}

// PlacePoints gives each seat its tournament points for one finished game,
// from the seats' placings (lower is better, ties share a placing, as
// engine.Placings and engine.PlacingsAbandoned give them). At a table of n
// players the positions of the finishing order are worth n-1, n-2, …, 0
// points, so a table's points always add up to the same total whatever the
// ties; players with the same placing share the positions they cover
// equally.
//
// Only the order of the placings matters, not their numbering: a placing
// covers the positions after every seat placed strictly better. Abandoned
// players share the worst placing and so the last positions.
func PlacePoints(placings []int) []Points {
	n := len(placings)
	out := make([]Points, n)
	for i, p := range placings {
		ahead, tied := 0, 0
		for _, q := range placings {
			switch {
			case q < p:
				ahead++
			case q == p:
				tied++
			}
		}
		// The tied players cover positions ahead … ahead+tied-1, worth
		// n-1-ahead down to n-ahead-tied points. Consecutive values average
		// to half the sum of the first and the last, so that sum is the
		// share in half points.
		out[i] = Points((n - 1 - ahead) + (n - ahead - tied))
	}
	return out
}

// Won reports whether seat finished first. A shared first place counts as
// won: the streak is about finishing on top, and a tie for the top is not
// beaten by anyone. A seat outside the table did not win.
func Won(placings []int, seat int) bool {
	if seat < 0 || seat >= len(placings) {
		return false
	}
	return placings[seat] == slices.Min(placings)
}

// ByePoints is what a bye is worth in a Swiss event of tables of size
// players: the mean of a table's placing points, (size-1)/2 points, which is
// size-1 half points. A player who sits out through no choice of their own
// neither gains nor loses against the field on average.
func ByePoints(size int) Points {
	return Points(size - 1)
}
