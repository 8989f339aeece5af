package bot

import (
	"math"
	"math/rand/v2"

	"nothanks/internal/engine"
)

// model is a way of playing that the search may assume of another seat.
// The search does not know how the others play; it weighs these models by
// how well each explains what the seat has done so far in the round (see
// inferModels) and draws one per seat for every playout.
type model uint8

const (
	// modelRule plays like RuleBot: prices cards and runs, milks.
	modelRule model = iota
	// modelEager is the rule taking a card that costs it a few points
	// more; modelWary wants a few points more before it takes.
	modelEager
	modelWary
	// modelAuction plays each auction out by backward induction on the
	// rule's prices (RuleBot{Auction: true}).
	modelAuction
	// modelHeuristic plays like HeuristicBot: pot against card cost, no
	// milking, run cards at once.
	modelHeuristic
	// modelSharp plays like the sharp rule: tokens and runs worth more,
	// milking whenever nobody else would take the card.
	modelSharp
	// modelSearch is a seat that searches too: in the auction of the
	// active card it plays what the search's own playouts say is best for
	// it (UCB1 on its reward), then plays on like the sharp rule. It is
	// how the search sees another strong bot, whose moves no rule
	// predicts: it plays as the sharp rule would on searchFit of its
	// decisions.
	modelSearch
	numModels
)

// modelBias is how many points an eager or wary seat's price moves.
const modelBias = 4

// modelPrior is how likely each model is of a seat that has not acted yet.
// Before any evidence the search expects a mix of the rule family, the
// patient heuristic and other searchers; a seat's first decisions of the
// round soon move it.
var modelPrior = [numModels]float64{
	modelRule:      0.2,
	modelEager:     0.05,
	modelWary:      0.05,
	modelAuction:   0.1,
	modelHeuristic: 0.2,
	modelSharp:     0.15,
	modelSearch:    0.25,
}

// tremble is the chance that a seat playing a rule-like model does
// otherwise on a decision (the likelihood of an action the model would not
// take).
const tremble = 0.05

// searchFit is how often a searching seat plays as the sharp rule would:
// the strong bot agrees with it on about 85% of its decisions, the rule
// bots on 95% or more, so a seat that often departs from every rule is
// taken for a searcher.
const searchFit = 0.85

// searchFloor is the part of every belief that stays on modelSearch
// whatever the log says: a seat that has played like a rule so far may
// still see what the rule does not.
const searchFloor = 0.15

// selfModel is how the search plays the root seat's later decisions.
const selfModel = modelSharpSelf

// modelSharpSelf is the sharp rule, which the search plays for itself after
// the auction in hand; it is not a model of other seats.
const modelSharpSelf = numModels

// policyTake is the decision of the seat to play, by its model. Other
// seats' modelSearch plays the sharp rule here: the search handles it in
// the auction in hand (see search.playout).
func (r *round) policyTake() bool {
	switch r.model[r.turn] {
	case modelHeuristic:
		return takeByRule(r.cards[r.turn], r.tokens[r.turn], r.active, r.pot, 0)
	case modelSharpSelf, modelSearch, modelSharp:
		return sharpRule.take(r)
	case modelAuction:
		return defaultRule.auctionTake(r)
	case modelEager:
		r.bias[r.turn] = -modelBias
	case modelWary:
		r.bias[r.turn] = modelBias
	}
	return defaultRule.take(r)
}

// modelBelief is how likely each model is of a seat.
type modelBelief [numModels]float64

// draw picks a model at random by the belief.
func (b *modelBelief) draw(rng *rand.Rand) model {
	x := rng.Float64()
	for m := range numModels - 1 {
		if x < b[m] {
			return m
		}
		x -= b[m]
	}
	return numModels - 1
}

// inferModels replays the public log of the round in play and weighs each
// model of every other seat by the chance it gives the seat's decisions
// (forced takes tell nothing), from modelPrior. It reads only the log, the
// view's public part, so it knows what a perfect-memory player knows.
func inferModels(v engine.View) [engine.MaxPlayers]modelBelief {
	n := len(v.Seats)
	var logL [engine.MaxPlayers][numModels]float64
	r := round{n: n, seen: engine.SetOf(v.Options.Variant.FixedRemoved()...), deckLen: engine.DeckCards - 1}
	for i := range n {
		r.tokens[i] = v.StartingTokens
	}
	hit, miss := math.Log(1-tremble), math.Log(tremble)
	fit, unfit := math.Log(searchFit), math.Log(1-searchFit)
	for _, e := range v.Events {
		if e.Round != v.Round || e.Seat < 0 || e.Seat >= n {
			continue
		}
		switch e.Kind {
		case engine.EventRoundStart, engine.EventFlip:
			r.active, r.turn = e.Card, e.Seat
			r.seen = r.seen.With(e.Card)
			if e.Kind == engine.EventFlip {
				r.deckLen--
			}
			r.cardNo++
		case engine.EventPass, engine.EventTake:
			j := e.Seat
			r.turn, r.pot = j, e.Tokens
			took := e.Kind == engine.EventTake
			if j != v.Viewer && r.tokens[j] > 0 {
				for m := range numModels {
					r.model[j], r.bias[j] = m, 0
					if m == modelSearch {
						r.model[j] = modelSharpSelf
					}
					agrees := r.policyTake() == took
					switch {
					case m == modelSearch && agrees:
						logL[j][m] += fit
					case m == modelSearch:
						logL[j][m] += unfit
					case agrees:
						logL[j][m] += hit
					default:
						logL[j][m] += miss
					}
				}
				r.bias[j] = 0
			}
			if took {
				r.cards[j] = r.cards[j].With(r.active)
				r.tokens[j] += r.pot
				r.pot = 0
				r.cardNo++
			} else {
				r.tokens[j]--
				r.pot++
			}
		}
	}
	var out [engine.MaxPlayers]modelBelief
	for j := range n {
		best := math.Inf(-1)
		for m := range numModels {
			best = max(best, logL[j][m]+math.Log(modelPrior[m]))
		}
		z := 0.0
		for m := range numModels {
			out[j][m] = math.Exp(logL[j][m] + math.Log(modelPrior[m]) - best)
			z += out[j][m]
		}
		for m := range numModels {
			out[j][m] = out[j][m] / z * (1 - searchFloor)
		}
		out[j][modelSearch] += searchFloor
	}
	return out
}
