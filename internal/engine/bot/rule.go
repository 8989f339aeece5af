package bot

import (
	"math/rand/v2"
	"slices"

	"nothanks/internal/engine"
)

// RuleBot prices the active card for every seat and takes it when it is
// worth more to it than a token, unless it can let the card go round once
// more because no other seat would take it: then it passes and collects the
// others' tokens when the card comes back ("milking" a card it needs).
//
// A card's price for a seat is what it adds to the seat's expected card
// points, where the unseen cards that would join the seat's runs count at
// the chance of still getting them (less when another seat needs them too)
// and for the tokens they would bring, against the tokens on the card, each
// worth a point at the end of the round, more while much of the deck is to
// come, and much more when the seat holds few (a seat without tokens must
// take whatever comes).
//
// It was written from the idea of the public bot "danbot" (see
// docs/bots.md) and is close to it in strength. The search bot plays its
// playouts with it and with its variants.
type RuleBot struct {
	// Sharp plays the weights that did best against themselves instead of
	// the default ones: more for tokens and runs, milking whenever nobody
	// would take the card.
	Sharp bool
	// Auction plays each auction out by backward induction on the prices
	// (see rule.auctionTake) instead of looking once round the table.
	Auction bool
}

func (b RuleBot) Decide(v engine.View, _ *rand.Rand) engine.ActionKind {
	if len(v.Legal) == 1 {
		return v.Legal[0]
	}
	if slices.Contains(v.Legal, engine.LayTiger) {
		return engine.LayTiger // a laid Tiger never costs points
	}
	r := roundFromView(v)
	p := defaultRule
	if b.Sharp {
		p = sharpRule
	}
	take := p.take
	if b.Auction {
		take = p.auctionTake
	}
	if take(&r) {
		return engine.Take
	}
	return engine.Pass
}

// ruleParams are the weights of the rule.
type ruleParams struct {
	// tokenEnd is a token's worth in points at the end of the round (it is
	// subtracted from the score); tokenDeck is what it is worth more with a
	// whole deck still to come, when it buys the refusal of a bad card.
	tokenEnd, tokenDeck float64
	// fewTokens prices holding few tokens: fewTokens/(t+1) points with t
	// tokens, fading over the last cards of the round.
	fewTokens float64
	// runTokens is how many tokens, per point of its face value, a card that
	// joins a seat's run is expected to bring it: the others pass it round
	// while the seat waits.
	runTokens float64
	// runChance scales the chance of getting such a card (it is in the
	// deck, it is not grabbed first); contested scales it again when
	// another seat needs the card too.
	runChance, contested float64
	// milkMargin is how clearly each other seat must refuse the card at
	// the pot it would see for the rule to let it go round.
	milkMargin float64
}

// defaultParams price cards much as danbot does.
var defaultParams = ruleParams{
	tokenEnd:   1,
	tokenDeck:  1,
	fewTokens:  15,
	runTokens:  0.32,
	runChance:  0.75,
	contested:  0.5,
	milkMargin: 3,
}

// sharpParams are the weights that did best in tournaments of the rule
// against itself (coordinate search from defaultParams, 3 and 4 players).
var sharpParams = ruleParams{
	tokenEnd:   1,
	tokenDeck:  1.3,
	fewTokens:  15,
	runTokens:  0.48,
	runChance:  0.75,
	contested:  0.5,
	milkMargin: 0,
}

// tokenValue is what holding t tokens is worth, in points, with d cards to
// come.
func (p *ruleParams) tokenValue(t, d int) float64 {
	f := float64(d) / engine.DeckCards
	few := p.fewTokens * min(float64(d)/6, 1) / float64(t+1)
	return float64(t)*(p.tokenEnd+p.tokenDeck*f) - few
}

// maxTokens bounds any seat's tokens: the box holds BoxTokens.
const maxTokens = engine.BoxTokens

// rule is a ruleParams ready to play: tokenValue tabulated, since the
// playouts price every decision.
type rule struct {
	id int // index of its prices in a round
	ruleParams
	tokens [engine.DeckCards + 1][maxTokens + 1]float64
}

func newRule(id int, p ruleParams) *rule {
	r := &rule{id: id, ruleParams: p}
	for d := range r.tokens {
		for t := range r.tokens[d] {
			r.tokens[d][t] = p.tokenValue(t, d)
		}
	}
	return r
}

// The rules the bots play, each with its own prices in a round.
const numRules = 2

var (
	defaultRule = newRule(0, defaultParams)
	sharpRule   = newRule(1, sharpParams)
)

// prices are a rule's prices of the active card for every seat, computed
// when the card is turned up, valid while at is the round's cardNo+1.
type prices struct {
	card   [engine.MaxPlayers]float64
	tokens *[maxTokens + 1]float64 // the rule's token values at this deck size
	at     int
}

// joinCost is what card x adds to the card points of cards (negative when
// it lowers a run or joins two).
func joinCost(cards engine.CardSet, x int) int {
	below, above := cards.Has(x-1), cards.Has(x+1)
	switch {
	case below && above:
		return -(x + 1)
	case above:
		return -1
	case below:
		return 0
	}
	return x
}

// cardFacts is what every rule's price of the active card is made of, the
// same for every rule: computed once per card.
type cardFacts struct {
	chance float64 // the chance that an unseen card is still to come
	open   int     // unseen neighbours of the active card (0 to 2)
	// For each seat: the card points the active card adds, and for each
	// open neighbour x, what getting x later would save the seat once it
	// holds the active card, as fixed + runTokens*perToken, and whether
	// another seat needs x too.
	points    [engine.MaxPlayers]float64
	fixed     [engine.MaxPlayers][2]float64
	perToken  [engine.MaxPlayers][2]float64
	contested [engine.MaxPlayers][2]bool
	at        int // valid while the round's cardNo+1
}

// factCard sets the round's facts of the active card.
//
// A seat's expected card points are its points less, for every unseen card
// that would join its runs, what that card would save and the tokens it
// would bring, times the chance of getting it. Only the unseen neighbours
// of the active card change when it is taken, so the facts hold those two
// alone: taking the active card makes a neighbour the seat did not need
// worth runTokens of its value in tokens plus the points it would save, and
// one it needed already worth the points it saves more.
func (r *round) factCard() *cardFacts {
	f := &r.facts
	if f.at == r.cardNo+1 {
		return f
	}
	unseen := r.unseen()
	f.chance = 0
	if k := unseen.Len(); k > 0 {
		f.chance = float64(r.deckLeft()) / float64(k)
	}
	c := r.active
	var xs [2]int
	var need [2]int
	f.open = 0
	for _, x := range [2]int{c - 1, c + 1} {
		if !unseen.Has(x) {
			continue
		}
		xs[f.open] = x
		for j := range r.n {
			if r.cards[j].Has(x-1) || r.cards[j].Has(x+1) {
				need[f.open]++
			}
		}
		f.open++
	}
	for j := range r.n {
		cards := r.cards[j]
		f.points[j] = float64(joinCost(cards, c))
		for i := range f.open {
			x := xs[i]
			mine := cards.Has(x-1) || cards.Has(x+1)
			after := joinCost(cards.With(c), x)
			if mine {
				f.fixed[j][i], f.perToken[j][i] = float64(joinCost(cards, x)-after), 0
			} else {
				f.fixed[j][i], f.perToken[j][i] = float64(-after), float64(x)
			}
			f.contested[j][i] = mine && need[i] > 1 || !mine && need[i] > 0
		}
	}
	f.at = r.cardNo + 1
	return f
}

// priceCard sets every seat's price of the active card by this rule: what
// taking it would cost the seat in expected card points (negative: it
// saves points), the chance of getting a neighbour scaled by runChance,
// and again by contested when another seat needs it.
func (p *rule) priceCard(r *round, pr *prices) {
	f := r.factCard()
	q0 := f.chance * p.runChance
	for j := range r.n {
		v := f.points[j]
		for i := range f.open {
			q := q0
			if f.contested[j][i] {
				q *= p.contested
			}
			v -= (f.fixed[j][i] + p.runTokens*f.perToken[j][i]) * q
		}
		pr.card[j] = v
	}
	pr.tokens = &p.tokens[r.deckLeft()]
	pr.at = r.cardNo + 1
}

// price is how many points seat would lose by taking the active card with
// pot tokens on it rather than paying a token (negative: taking gains).
func (pr *prices) price(r *round, seat, pot int) float64 {
	t := r.tokens[seat]
	return pr.card[seat] - (pr.tokens[min(t+pot, maxTokens)] - pr.tokens[t-1])
}

// take is the rule's decision for the seat to play.
func (p *rule) take(r *round) bool {
	seat := r.turn
	if r.tokens[seat] == 0 {
		return true
	}
	pr := &r.prices[p.id]
	if pr.at != r.cardNo+1 {
		p.priceCard(r, pr)
	}
	if pr.price(r, seat, r.pot)+r.bias[seat] >= 0 {
		return false
	}
	// Worth taking; let it go round if nobody else would take it.
	j := seat
	for k := 1; k < r.n; k++ {
		if j++; j == r.n {
			j = 0
		}
		if r.tokens[j] == 0 || pr.price(r, j, r.pot+k) < p.milkMargin {
			return true
		}
	}
	return false
}

// maxPlan is how many passes ahead an auction plan looks.
const maxPlan = 64

// plan is the outcome of the active card's auction played out by backward
// induction: takes has bit k set when the seat to play after k more passes
// (from pot0) would take.
type plan struct {
	takes uint64
	pot0  int
	at    int // valid while the round's cardNo+1
}

// auctionTake is the decision of the seat to play if every seat plays the
// active card's auction rationally by p's prices: each takes when that
// beats what the rest of the auction would leave it, given that a seat
// without tokens must take. It milks a card nobody else would take, and
// takes before someone who would.
func (p *rule) auctionTake(r *round) bool {
	if r.tokens[r.turn] == 0 {
		return true
	}
	pl := &r.plans[p.id]
	if pl.at != r.cardNo+1 || r.pot < pl.pot0 || r.pot-pl.pot0 >= maxPlan {
		p.planAuction(r, pl)
	}
	return pl.takes&(1<<uint(r.pot-pl.pot0)) != 0
}

func (p *rule) planAuction(r *round, pl *plan) {
	pr := &r.prices[p.id]
	if pr.at != r.cardNo+1 {
		p.priceCard(r, pr)
	}
	n, turn := r.n, r.turn
	// The chain of passes until a seat has no token left (or maxPlan).
	var seat [maxPlan]int8
	var tok [maxPlan]int8
	left := r.tokens
	last := maxPlan - 1
	for k := range maxPlan {
		s := (turn + k) % n
		seat[k], tok[k] = int8(s), int8(left[s])
		if left[s] == 0 {
			last = k
			break
		}
		left[s]--
	}
	// tokensAt is seat s's tokens when the card is taken at step m.
	tokensAt := func(s, m int) int {
		off := (s - turn + n) % n
		passed := 0
		if m > off {
			passed = (m - off + n - 1) / n
		}
		return r.tokens[s] - passed
	}
	tv := pr.tokens
	var takes uint64
	taker := last // the step at which the subgame from k ends
	takes |= 1 << uint(last)
	for k := last - 1; k >= 0; k-- {
		s := int(seat[k])
		now := -pr.card[s] + tv[min(int(tok[k])+r.pot+k, maxTokens)]
		var later float64
		if int(seat[taker]) == s {
			later = -pr.card[s] + tv[min(int(tok[taker])+r.pot+taker, maxTokens)]
		} else {
			later = tv[tokensAt(s, taker)]
		}
		if now >= later {
			taker = k
			takes |= 1 << uint(k)
		}
	}
	pl.takes, pl.pot0, pl.at = takes, r.pot, r.cardNo+1
}
