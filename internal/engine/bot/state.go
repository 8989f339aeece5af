package bot

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"nothanks/internal/engine"
)

// allCards is every card of the box.
const allCards = engine.CardSet(((1 << (engine.MaxCard + 1)) - 1) &^ ((1 << engine.MinCard) - 1))

// round is the round in play as the rule and search bots simulate it: the
// part a perfect-memory player knows, taken from a View, and a deck the
// search deals at random from the unseen cards (the rule bot never reads
// it). Everything fits in fixed arrays so that copying it is cheap.
type round struct {
	n      int
	cards  [engine.MaxPlayers]engine.CardSet
	tokens [engine.MaxPlayers]int
	prior  [engine.MaxPlayers]int // totals of the scored rounds
	tiger  [engine.MaxPlayers]bool
	// seen is every card known not to be in the deck or among the removed
	// cards of the round: play areas, the active card, a variant's fixed
	// removals. The rest are "unseen": the deck and the random removals.
	seen        engine.CardSet
	deck        [engine.DeckCards]int
	deckLen     int // cards face down when the view was taken
	next        int // deck cards turned up since
	active      int
	pot         int
	turn        int
	done        bool
	roundsAfter int // rounds still to play after this one
	// facts, prices and plans cache what the rules work out about the
	// active card; they hold until the card is taken, which bumps cardNo.
	facts  cardFacts
	prices [numRules]prices
	plans  [numRules]plan
	cardNo int
	// bias moves each seat's own price of a card, in points (the eager and
	// wary models).
	bias [engine.MaxPlayers]float64
	// model is how each seat plays in the search's playouts.
	model [engine.MaxPlayers]model
}

// roundFromView builds the known part of the round in play.
func roundFromView(v engine.View) round {
	r := round{
		n:           len(v.Seats),
		active:      v.ActiveCard,
		pot:         v.Pot,
		turn:        v.Turn,
		deckLen:     v.DeckLeft,
		seen:        v.Seen(),
		roundsAfter: max(v.Options.Rounds-v.Round, 0),
	}
	tokens := Tokens(v)
	for i, seat := range v.Seats {
		r.cards[i] = engine.SetOf(seat.Cards...)
		r.tokens[i] = tokens[i]
		if i < len(v.Totals) {
			r.prior[i] = v.Totals[i]
		}
		r.tiger[i] = seat.TigerHeld || seat.TigerPlayed
	}
	return r
}

// deckLeft is how many cards are still face down.
func (r *round) deckLeft() int { return r.deckLen - r.next }

// unseen is the cards that may still be turned up.
func (r *round) unseen() engine.CardSet { return allCards &^ r.seen }

// deal fills the deck with a random ordered pick of the unseen cards.
func (r *round) deal(rng *rand.Rand) {
	var pool [engine.NumCards]int
	n := 0
	for m := uint64(r.unseen()); m != 0; m &= m - 1 {
		pool[n] = bits.TrailingZeros64(m)
		n++
	}
	for i := range r.deckLen {
		j := i + rng.IntN(n-i)
		pool[i], pool[j] = pool[j], pool[i]
		r.deck[i] = pool[i]
	}
	r.next = 0
}

// take gives the active card and the pot to the seat to play and turns up
// the next card, or ends the round.
func (r *round) take() {
	r.cards[r.turn] = r.cards[r.turn].With(r.active)
	r.tokens[r.turn] += r.pot
	r.pot = 0
	r.cardNo++
	if r.next == r.deckLen {
		r.done = true
		return
	}
	r.active = r.deck[r.next]
	r.seen = r.seen.With(r.active)
	r.next++
}

// pass puts a token of the seat to play on the active card.
func (r *round) pass() {
	r.tokens[r.turn]--
	r.pot++
	r.turn++
	if r.turn == r.n {
		r.turn = 0
	}
}

// totals is every seat's game total once the round is scored.
func (r *round) totals() [engine.MaxPlayers]int {
	var out [engine.MaxPlayers]int
	for i := range r.n {
		cards := r.cards[i]
		if r.tiger[i] {
			if c := engine.TigerCard(cards); c != 0 {
				cards = cards.With(c)
			}
		}
		out[i] = r.prior[i] + cards.Points() - r.tokens[i]
	}
	return out
}

// roundSD is the spread, in points, of one player's score over a round
// between players of equal strength; with rounds still to play a lead in
// the totals is worth less than a sure win.
const roundSD = 16.0

// outcome is a finished round seen from every seat.
type outcome struct {
	// win is each seat's share of the game's win: exact (ties shared)
	// after the last round; before it, the chance a lead holds over the
	// rounds still to play, modelled as independent noise of roundSD per
	// round and player (a softmax over the totals, which is exact for
	// Gumbel noise and close for normal).
	win [engine.MaxPlayers]float64
	// diff is the seat's round score less the mean of the others' round
	// scores (negative is good).
	diff [engine.MaxPlayers]float64
	// reward is what the search maximizes for the seat, in [0, 1].
	reward [engine.MaxPlayers]float64
}

// marginWeight is the part of the search's reward that comes from the
// margin rather than the win: enough to keep a seat that cannot win (or has
// won) playing sensibly, small enough that placing decides.
const marginWeight = 0.2

// marginScale is the lead over the others' mean, in points, that earns
// three quarters of the margin part: it never stops rising, so a seat far
// ahead or far behind still plays for points rather than at random.
const marginScale = 10

func (r *round) outcome() outcome {
	var o outcome
	totals := r.totals()
	sum := 0
	for i := range r.n {
		sum += totals[i]
	}
	if r.roundsAfter == 0 {
		best := math.MaxInt
		for i := range r.n {
			best = min(best, totals[i])
		}
		leaders := 0
		for i := range r.n {
			if totals[i] == best {
				leaders++
			}
		}
		for i := range r.n {
			if totals[i] == best {
				o.win[i] = 1 / float64(leaders)
			}
		}
	} else {
		beta := roundSD * 0.78 * math.Sqrt(float64(r.roundsAfter))
		best := math.MaxInt
		for i := range r.n {
			best = min(best, totals[i])
		}
		z := 0.0
		for i := range r.n {
			o.win[i] = math.Exp(-float64(totals[i]-best) / beta)
			z += o.win[i]
		}
		for i := range r.n {
			o.win[i] /= z
		}
	}
	roundSum := 0
	for i := range r.n {
		roundSum += totals[i] - r.prior[i]
	}
	for i := range r.n {
		own := totals[i] - r.prior[i]
		o.diff[i] = float64(own) - float64(roundSum-own)/float64(r.n-1)
		othersMean := float64(sum-totals[i]) / float64(r.n-1)
		margin := 1 / (1 + math.Exp((float64(totals[i])-othersMean)/marginScale))
		o.reward[i] = (1-marginWeight)*o.win[i] + marginWeight*margin
	}
	return o
}
