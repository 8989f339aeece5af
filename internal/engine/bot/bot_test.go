package bot

import (
	"math/rand/v2"
	"slices"
	"testing"

	"nothanks/internal/engine"
)

func TestBotsPlayOnlyLegalActions(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	bots := map[string]Bot{
		"auction": RuleBot{Auction: true},
		"rule":    RuleBot{},
		"sharp":   RuleBot{Sharp: true},
	}
	for _, level := range Levels {
		b, err := New(level)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := b.(SearchBot); ok {
			b = NewSearchBot(Budget{Iterations: 40})
		}
		bots[string(level)] = b
	}
	for name, b := range bots {
		t.Run(name, func(t *testing.T) {
			for i := range 30 {
				o := engine.Options{Players: 3 + i%5, Rounds: 2, Variant: engine.Variants[i%4], HiddenTiger: i%3 == 0, OpenTokens: i%4 == 0}
				if o.Players > 5 {
					o.Variant = engine.Standard
				}
				g, err := engine.New(o, uint64(i))
				if err != nil {
					t.Fatal(err)
				}
				for !g.Finished() {
					v := g.View(g.Turn())
					kind := b.Decide(v, rng)
					if !slices.Contains(v.Legal, kind) {
						t.Fatalf("chose %q, legal %v", kind, v.Legal)
					}
					if err := g.Apply(engine.Action{Seat: g.Turn(), Kind: kind}); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
	if _, err := New("grandmaster"); err == nil {
		t.Error("New accepted an unknown level")
	}
}

func TestTokensCountedFromTheLogMatchTheTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 200 {
		o := engine.Options{Players: 3 + i%5, Rounds: 3, Variant: engine.Standard}
		g, _ := engine.New(o, uint64(i))
		for !g.Finished() {
			viewer := rng.IntN(o.Players)
			got := Tokens(g.View(viewer))
			for s := range o.Players {
				if got[s] != g.Tokens(s) {
					t.Fatalf("game %d: seat %d counted %d tokens, holds %d", i, s, got[s], g.Tokens(s))
				}
			}
			legal := g.Legal(g.Turn())
			_ = g.Apply(engine.Action{Seat: g.Turn(), Kind: legal[rng.IntN(len(legal))]})
		}
	}
}

func TestHeuristicRule(t *testing.T) {
	tests := []struct {
		name   string
		cards  []int
		tokens int
		card   int
		pot    int
		want   bool
	}{
		{"TakesWhenNoTokens", nil, 0, 35, 0, true},
		{"PassesHighCardWithFullHand", nil, 11, 35, 0, false},
		{"PassesHighCardWithSmallPot", nil, 11, 35, 10, false},
		{"TakesHighCardWhenPotCoversMostOfIt", nil, 11, 30, 18, true},
		{"TakesCardThatExtendsRunUpward", []int{21}, 11, 22, 0, true},
		{"TakesCardThatExtendsRunDownward", []int{21}, 11, 20, 0, true},
		{"TakesCardThatJoinsRuns", []int{20, 22}, 11, 21, 0, true},
		{"PassesLowCardWithNothingOnIt", nil, 11, 5, 0, false},
		{"TakesLowCardWithTokensOnIt", nil, 11, 5, 3, true},
		{"AcceptsMoreWithFewTokens", nil, 2, 20, 7, true},
		{"RefusesSameWithManyTokens", nil, 11, 20, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := takeByRule(engine.SetOf(tt.cards...), tt.tokens, tt.card, tt.pot, 0); got != tt.want {
				t.Errorf("take = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHeuristicBeatsRandom(t *testing.T) {
	standings, err := Tournament{
		Names: []string{"heuristic", "random", "random"}, Bots: []Bot{HeuristicBot{}, RandomBot{}, RandomBot{}},
		Options: engine.Options{Rounds: 1, Variant: engine.Standard}, Deals: 200, Seed: 11,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	h, r := standings[0], standings[1]
	if h.WinShare-h.WinCI <= 1.0/3 || h.MeanScore+h.ScoreCI >= r.MeanScore-r.ScoreCI {
		t.Errorf("heuristic does not clearly beat random: %+v vs %+v", h, r)
	}
}

// TestStrongBeatsHeuristic is the quick version of the tournaments in
// docs/bots.md: few games and a small fixed budget, same demand that the
// strong bot wins well above parity.
func TestStrongBeatsHeuristic(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 60 search-bot games")
	}
	standings, err := Tournament{
		Names: []string{"strong", "heuristic", "heuristic"}, Bots: []Bot{NewSearchBot(Budget{Iterations: 300}), HeuristicBot{}, HeuristicBot{}},
		Options: engine.Options{Rounds: 1, Variant: engine.Standard}, Deals: 20, Seed: 5,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	s, h := standings[0], standings[1]
	if s.WinShare-s.WinCI <= 1.0/3 || s.MeanScore >= h.MeanScore {
		t.Errorf("strong does not clearly beat heuristic: %+v vs %+v", s, h)
	}
}

func TestRuleBeatsHeuristic(t *testing.T) {
	standings, err := Tournament{
		Names: []string{"rule", "heuristic", "heuristic"}, Bots: []Bot{RuleBot{}, HeuristicBot{}, HeuristicBot{}},
		Options: engine.Options{Rounds: 1, Variant: engine.Standard}, Deals: 300, Seed: 6,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if r := standings[0]; r.WinShare-r.WinCI <= 1.0/3 {
		t.Errorf("rule does not clearly beat heuristic: %+v", r)
	}
}

type namedBot struct {
	games *[]string
}

func (b namedBot) Decide(v engine.View, rng *rand.Rand) engine.ActionKind {
	return HeuristicBot{}.Decide(v, rng)
}

func (b namedBot) ForGame(id string) Bot {
	*b.games = append(*b.games, id)
	return b
}

func TestTournamentNamesEveryGameForGameBots(t *testing.T) {
	var games []string
	_, err := Tournament{
		Names: []string{"named", "heuristic", "heuristic"}, Bots: []Bot{namedBot{&games}, HeuristicBot{}, HeuristicBot{}},
		Options: engine.Options{Rounds: 1, Variant: engine.Standard}, Deals: 4, Seed: 2, Workers: 1,
	}.Run()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range games {
		seen[id] = true
	}
	if got, want := len(seen), 4*3; len(games) != want || got != want {
		t.Errorf("ForGame called %d times with %d distinct ids, want %d distinct calls", len(games), got, want)
	}
}
