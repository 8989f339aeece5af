package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Deal is one round's shuffle: the 9 removed cards and the 24 deck cards in
// the order they will be turned up (Deck[0] is the first active card).
type Deal struct {
	Removed []int `json:"removed"`
	Deck    []int `json:"deck"`
}

// Setup is everything chance decides in a game: a deal per round and the
// seat that starts round 1 (the next seat starts each later round).
type Setup struct {
	FirstSeat int
	Deals     []Deal
}

// SetupFromSeed draws a game's deals and first seat from a seed. The same
// seed and options always give the same setup; the server draws the seed
// with crypto/rand and keeps it secret.
func SetupFromSeed(o Options, seed uint64) Setup {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := Setup{FirstSeat: rng.IntN(max(o.Players, 1))}
	for range max(o.Rounds, 0) {
		s.Deals = append(s.Deals, shuffleDeal(o.Variant, rng))
	}
	return s
}

func shuffleDeal(v Variant, rng *rand.Rand) Deal {
	fixed := v.FixedRemoved()
	cards := make([]int, 0, NumCards)
	for c := MinCard; c <= MaxCard; c++ {
		if !slices.Contains(fixed, c) {
			cards = append(cards, c)
		}
	}
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	random := RemovedCards - len(fixed)
	removed := append(slices.Clone(fixed), cards[:random]...)
	slices.Sort(removed)
	return Deal{Removed: removed, Deck: slices.Clone(cards[random:])}
}

// check reports whether the deal is a legal shuffle for the variant: every
// card exactly once, 9 removed, the variant's fixed cards among them.
func (d Deal) check(v Variant) error {
	if len(d.Removed) != RemovedCards || len(d.Deck) != DeckCards {
		return fmt.Errorf("engine: a deal has %d removed cards and %d in the deck, not %d and %d", len(d.Removed), len(d.Deck), RemovedCards, DeckCards)
	}
	var seen CardSet
	for _, c := range append(slices.Clone(d.Removed), d.Deck...) {
		if c < MinCard || c > MaxCard {
			return fmt.Errorf("engine: card %d is not between %d and %d", c, MinCard, MaxCard)
		}
		if seen.Has(c) {
			return fmt.Errorf("engine: card %d is dealt twice", c)
		}
		seen = seen.With(c)
	}
	for _, c := range v.FixedRemoved() {
		if !slices.Contains(d.Removed, c) {
			return fmt.Errorf("engine: the %s variant removes card %d", v, c)
		}
	}
	return nil
}
