package bot

import (
	"math"
	"math/rand/v2"
	"testing"

	"nothanks/internal/engine"
)

// expectedPoints is the rule's expected card points of a seat's cards,
// straight from the definition: points now, less for every unseen card
// that would join a run what it would save and the tokens it would bring,
// times the chance of getting it.
func expectedPoints(p *ruleParams, r *round, seat int, cards engine.CardSet) float64 {
	unseen := r.unseen()
	chance := float64(r.deckLeft()) / float64(unseen.Len())
	v := float64(cards.Points())
	for x := engine.MinCard; x <= engine.MaxCard; x++ {
		if !unseen.Has(x) || cards.Has(x) || !(cards.Has(x-1) || cards.Has(x+1)) {
			continue
		}
		q := chance * p.runChance
		for j := range r.n {
			if j != seat && !r.cards[j].Has(x) && (r.cards[j].Has(x-1) || r.cards[j].Has(x+1)) {
				q *= p.contested
				break
			}
		}
		saves := cards.Points() - cards.With(x).Points()
		v -= (p.runTokens*float64(x) + float64(saves)) * q
	}
	return v
}

func TestRulePriceMatchesItsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 300 {
		g, _ := engine.New(engine.DefaultOptions(3+i%5), uint64(i))
		for steps := rng.IntN(120); steps > 0 && !g.Finished(); steps-- {
			_ = g.Apply(engine.Action{Seat: g.Turn(), Kind: RandomBot{}.Decide(g.View(g.Turn()), rng)})
		}
		if g.Finished() {
			continue
		}
		v := g.View(g.Turn())
		for _, p := range []*rule{defaultRule, sharpRule} {
			r := roundFromView(v)
			pr := &r.prices[p.id]
			p.priceCard(&r, pr)
			for seat := range r.n {
				cards := r.cards[seat]
				want := expectedPoints(&p.ruleParams, &r, seat, cards.With(r.active)) - expectedPoints(&p.ruleParams, &r, seat, cards)
				if got := pr.card[seat]; math.Abs(got-want) > 1e-9 {
					t.Fatalf("game %d rule %d seat %d card %d cards %v: price %v, want %v", i, p.id, seat, r.active, cards.Cards(), got, want)
				}
			}
		}
	}
}

func TestRuleDecisions(t *testing.T) {
	tests := []struct {
		name  string
		first []int
		moves string
		bot   RuleBot
		want  engine.ActionKind
	}{
		{"PassesOn35WithEmptyPot", []int{35}, "", RuleBot{}, engine.Pass},
		{"TakesFreeRunCardTheNextSeatWants", []int{23, 20, 21, 22}, "ptppttppp", RuleBot{}, engine.Take},
		{"MilksAHighRunCardNobodyWants", []int{28, 29, 30}, "tt", RuleBot{}, engine.Pass},
		{"SharpMilksToo", []int{28, 29, 30}, "tt", RuleBot{Sharp: true}, engine.Pass},
		{"AuctionMilksToo", []int{28, 29, 30}, "tt", RuleBot{Auction: true}, engine.Pass},
		// After two rounds of passes 35 carries 6 tokens and seat 0 has
		// 9: still far too dear.
		{"StillPasses35WithSixOnIt", []int{35}, "pppppp", RuleBot{}, engine.Pass},
		// Seat 0 has passed 35 until it holds one token, the pot is 30.
		{"TakesWhenTheTokensRunOut", []int{35}, repeat("ppp", 10), RuleBot{}, engine.Take},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := position(t, 3, tt.first, nil, tt.moves).View(0)
			if got := tt.bot.Decide(v, nil); got != tt.want {
				t.Errorf("card %d pot %d tokens %v: got %s, want %s", v.ActiveCard, v.Pot, Tokens(v), got, tt.want)
			}
		})
	}
}

// TestAuctionPlanIsConsistent checks that the plan an auction bot makes at
// the first decision is the one it follows later in the same auction.
func TestAuctionPlanIsConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range 100 {
		g, _ := engine.New(engine.DefaultOptions(3+i%3), uint64(i))
		for steps := rng.IntN(60); steps > 0 && !g.Finished(); steps-- {
			_ = g.Apply(engine.Action{Seat: g.Turn(), Kind: RuleBot{}.Decide(g.View(g.Turn()), rng)})
		}
		if g.Finished() {
			continue
		}
		r := roundFromView(g.View(g.Turn()))
		planned := r
		for !r.done && r.active == planned.active && r.tokens[r.turn] > 0 {
			fresh := r
			fresh.plans = [numRules]plan{}
			if got, want := defaultRule.auctionTake(&r), defaultRule.auctionTake(&fresh); got != want {
				t.Fatalf("game %d pot %d: planned %v, fresh %v", i, r.pot, got, want)
			}
			r.pass()
		}
	}
}
