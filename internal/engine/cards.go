package engine

import (
	"math/bits"
	"slices"
)

// The card set: 33 cards numbered 3 to 35, of which 9 are removed face down
// each round and 24 form the deck.
const (
	MinCard      = 3
	MaxCard      = 35
	NumCards     = MaxCard - MinCard + 1
	RemovedCards = 9
	DeckCards    = NumCards - RemovedCards
)

// CardPoints returns the card points of a set of cards: each card counts its
// face value, except that in a run of consecutive values only the lowest card
// counts. Pass tokens are not included. The argument is neither reordered nor
// modified. It accepts any integers (a repeated value counts once), so it can
// score hands from outside a game too.
func CardPoints(cards []int) int {
	points := 0
	for _, run := range Runs(cards) {
		points += run[0]
	}
	return points
}

// Runs groups cards into runs of consecutive values, lowest first. A card
// that has no neighbour is a run of one. The argument is not modified.
func Runs(cards []int) [][]int {
	if len(cards) == 0 {
		return nil
	}
	sorted := slices.Clone(cards)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var runs [][]int
	start := 0
	for i := 1; i <= len(sorted); i++ {
		if i == len(sorted) || sorted[i] != sorted[i-1]+1 {
			runs = append(runs, sorted[start:i:i])
			start = i
		}
	}
	return runs
}

// CardSet is a set of cards as a bit mask (bit c set when card c is in it).
// The card points of a set are the sum of the cards whose predecessor is
// absent, which the mask gives without sorting; bots use it in their inner
// loops.
type CardSet uint64

// SetOf returns the set of the given cards.
func SetOf(cards ...int) CardSet {
	var s CardSet
	for _, c := range cards {
		s = s.With(c)
	}
	return s
}

// With returns the set with card c added.
func (s CardSet) With(c int) CardSet { return s | 1<<uint(c) }

// Without returns the set with card c removed.
func (s CardSet) Without(c int) CardSet { return s &^ (1 << uint(c)) }

// Has reports whether card c is in the set.
func (s CardSet) Has(c int) bool { return s&(1<<uint(c)) != 0 }

// Len is the number of cards in the set.
func (s CardSet) Len() int { return bits.OnesCount64(uint64(s)) }

// Points is the card points of the set (runs count their lowest card).
func (s CardSet) Points() int {
	heads := uint64(s &^ (s << 1))
	sum := 0
	for heads != 0 {
		sum += bits.TrailingZeros64(heads)
		heads &= heads - 1
	}
	return sum
}

// Cost is how many card points taking card c would add to the set; it is
// negative when c joins two runs.
func (s CardSet) Cost(c int) int { return s.With(c).Points() - s.Points() }

// Cards lists the set's cards, lowest first.
func (s CardSet) Cards() []int {
	out := make([]int, 0, s.Len())
	for m := uint64(s); m != 0; m &= m - 1 {
		out = append(out, bits.TrailingZeros64(m))
	}
	return out
}
