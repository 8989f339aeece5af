package bot

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"nothanks/internal/engine"
)

// position starts a standard one-round game of n players at seat 0 whose
// deck begins with first (the other cards follow in the order rest gives,
// the last nine of them removed) and plays moves: 't' takes, 'p' passes.
func position(t *testing.T, n int, first []int, rest func([]int), moves string) *engine.Game {
	t.Helper()
	var others []int
	for c := engine.MinCard; c <= engine.MaxCard; c++ {
		if !slices.Contains(first, c) {
			others = append(others, c)
		}
	}
	if rest != nil {
		rest(others)
	}
	k := engine.DeckCards - len(first)
	deal := engine.Deal{Deck: append(slices.Clone(first), others[:k]...), Removed: slices.Clone(others[k:])}
	slices.Sort(deal.Removed)
	g, err := engine.NewFromSetup(engine.DefaultOptions(n), engine.Setup{FirstSeat: 0, Deals: []engine.Deal{deal}})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range moves {
		kind := engine.Pass
		if m == 't' {
			kind = engine.Take
		}
		if err := g.Apply(engine.Action{Seat: g.Turn(), Kind: kind}); err != nil {
			t.Fatalf("move %d (%c): %v", i, m, err)
		}
	}
	return g
}

// The positions below were worked out by hand; the search must agree on
// every seed.
func TestStrongDecisions(t *testing.T) {
	tests := []struct {
		name  string
		first []int
		moves string
		want  engine.ActionKind
	}{
		// Seat 0 holds 20 and 21; 22 has gone round once and carries 3
		// tokens; seat 1 holds 23 and would take it next. Taking costs
		// nothing and brings 3 tokens; passing loses the card for good.
		{"TakesFreeRunCardWithPotThatTheNextSeatWants", []int{23, 20, 21, 22}, "ptppttppp", engine.Take},
		// The first card is 35, nothing on it, everyone holds 11 tokens.
		{"PassesOn35WithEmptyPotAndPlentyOfTokens", []int{35}, "", engine.Pass},
		// Seat 0 holds 28 and 29 and faces 30 with no tokens on it; nobody
		// else holds a card near it and 30 costs anyone else 30 points, so
		// the card will come back with the others' tokens on it.
		{"LetsARunCardNobodyElseWantsGoRound", []int{28, 29, 30}, "tt", engine.Pass},
		// Seat 0 faces 4 after taking 3, with a pot of 5: cheap and a run.
		{"TakesLowRunCardWithBigPot", []int{3, 4}, "tpppppp", engine.Take},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := position(t, 3, tt.first, nil, tt.moves)
			if g.Turn() != 0 {
				t.Fatalf("position has seat %d to play, want seat 0", g.Turn())
			}
			v := g.View(0)
			b := NewSearchBot(Budget{Iterations: 3000})
			for seed := range uint64(4) {
				if got := b.Decide(v, rand.New(rand.NewPCG(seed, 1))); got != tt.want {
					t.Errorf("seed %d: card %d pot %d: got %s, want %s", seed, v.ActiveCard, v.Pot, got, tt.want)
				}
			}
		})
	}
}

// TestSearchReadsOnlyTheView plays the same moves on deals that differ only
// in cards nobody has seen: the views, and so the decisions and estimates
// for a given seed, are the same.
func TestSearchReadsOnlyTheView(t *testing.T) {
	first := []int{23, 20, 21, 22}
	moves := "ptppttp"
	a := position(t, 3, first, nil, moves)
	b := position(t, 3, first, func(c []int) {
		rng := rand.New(rand.NewPCG(7, 7))
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	}, moves)
	// The deals really differ: taking every card shows another order.
	a2, b2 := a.Clone(), b.Clone()
	differ := false
	for !a2.Finished() && !differ {
		_ = a2.Apply(engine.Action{Seat: a2.Turn(), Kind: engine.Take})
		_ = b2.Apply(engine.Action{Seat: b2.Turn(), Kind: engine.Take})
		differ = a2.ActiveCard() != b2.ActiveCard()
	}
	if !differ {
		t.Fatal("the two deals turn up the same cards")
	}
	seat := a.Turn()
	va, vb := a.View(seat), b.View(seat)
	if !reflect.DeepEqual(va, vb) {
		t.Fatalf("views differ:\n%+v\n%+v", va, vb)
	}
	for _, level := range []Budget{{Iterations: 500}, {Iterations: 2000}} {
		bot := NewSearchBot(level)
		for seed := range uint64(3) {
			da := bot.Decide(va, rand.New(rand.NewPCG(seed, 3)))
			db := bot.Decide(vb, rand.New(rand.NewPCG(seed, 3)))
			if da != db {
				t.Errorf("budget %v seed %d: %s on one deal, %s on the other", level, seed, da, db)
			}
		}
	}
	ta, pa := Evaluate(va, Budget{Iterations: 1000}, rand.New(rand.NewPCG(1, 1)))
	tb, pb := Evaluate(vb, Budget{Iterations: 1000}, rand.New(rand.NewPCG(1, 1)))
	if ta != tb || pa != pb {
		t.Errorf("estimates differ: %+v %+v vs %+v %+v", ta, pa, tb, pb)
	}
}

func TestFixedIterationsAreReproducible(t *testing.T) {
	g, _ := engine.New(engine.DefaultOptions(4), 12)
	rng := rand.New(rand.NewPCG(5, 5))
	for range 25 { // move into the round
		_ = g.Apply(engine.Action{Seat: g.Turn(), Kind: HeuristicBot{}.Decide(g.View(g.Turn()), rng)})
	}
	v := g.View(g.Turn())
	b := NewSearchBot(Budget{Iterations: 800})
	s1 := newSearch(v, b.Budget, false)
	s1.run(rand.New(rand.NewPCG(9, 9)))
	s2 := newSearch(v, b.Budget, false)
	s2.run(rand.New(rand.NewPCG(9, 9)))
	if !reflect.DeepEqual(s1.chain, s2.chain) || !reflect.DeepEqual(s1.side, s2.side) {
		t.Error("two searches with the same seed differ")
	}
	t1, p1 := Evaluate(v, Budget{Iterations: 800}, rand.New(rand.NewPCG(2, 2)))
	t2, p2 := Evaluate(v, Budget{Iterations: 800}, rand.New(rand.NewPCG(2, 2)))
	if t1 != t2 || p1 != p2 {
		t.Errorf("Evaluate differs between runs: %+v %+v / %+v %+v", t1, p1, t2, p2)
	}
}

func TestEvaluate(t *testing.T) {
	t.Run("PassingOn35IsWorthMore", func(t *testing.T) {
		v := position(t, 3, []int{35}, nil, "").View(0)
		take, pass := Evaluate(v, Budget{Iterations: 4000}, rand.New(rand.NewPCG(1, 2)))
		if !take.Legal || !pass.Legal {
			t.Fatalf("both actions are legal: %+v %+v", take, pass)
		}
		if got, want := take.Playouts+pass.Playouts, 4000; got != want {
			t.Errorf("playouts %d, want %d", got, want)
		}
		if take.Playouts != pass.Playouts {
			t.Errorf("playouts split %d/%d, want even", take.Playouts, pass.Playouts)
		}
		se := math.Hypot(take.WinSE, pass.WinSE)
		if pass.Win-take.Win < 2*se {
			t.Errorf("pass win %.3f not clearly above take %.3f (se %.3f)", pass.Win, take.Win, se)
		}
		if take.Diff-pass.Diff < 5 {
			t.Errorf("taking 35 for nothing should cost points: diff %.1f vs %.1f", take.Diff, pass.Diff)
		}
		for _, e := range []Estimate{take, pass} {
			if e.Win < 0 || e.Win > 1 || e.WinSE <= 0 || e.WinSE > 0.05 || e.DiffSE <= 0 {
				t.Errorf("implausible estimate %+v", e)
			}
		}
	})
	t.Run("NoTokensLeavesOnlyTake", func(t *testing.T) {
		// Seat 0 passes eleven times on 35 (the others too) and must take.
		v := position(t, 3, []int{35}, nil, repeat("ppp", 11)).View(0)
		take, pass := Evaluate(v, Budget{Iterations: 200}, rand.New(rand.NewPCG(1, 2)))
		if !take.Legal || pass.Legal || pass != (Estimate{}) || take.Playouts != 200 {
			t.Errorf("got %+v %+v, want take only", take, pass)
		}
	})
	t.Run("NotYourTurn", func(t *testing.T) {
		v := position(t, 3, []int{35}, nil, "").View(1)
		take, pass := Evaluate(v, Budget{Iterations: 200}, rand.New(rand.NewPCG(1, 2)))
		if take != (Estimate{}) || pass != (Estimate{}) {
			t.Errorf("got %+v %+v, want nothing", take, pass)
		}
	})
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestModelsTellPlayersApart plays part of a round and asks what the
// search believes of each other seat from the log alone.
func TestModelsTellPlayersApart(t *testing.T) {
	tests := []struct {
		name   string
		player Bot
		family []model
	}{
		{"Heuristic", HeuristicBot{}, []model{modelHeuristic}},
		{"Rule", RuleBot{}, []model{modelRule, modelEager, modelWary, modelAuction}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 3))
			right := 0
			for seed := range 10 {
				g, _ := engine.New(engine.DefaultOptions(3), uint64(seed))
				bots := []Bot{RuleBot{Sharp: true}, tt.player, RuleBot{Sharp: true}}
				for i := 0; i < 100 && !g.Finished(); i++ {
					s := g.Turn()
					_ = g.Apply(engine.Action{Seat: s, Kind: bots[s].Decide(g.View(s), rng)})
				}
				belief := inferModels(g.View(0))[1]
				share := 0.0
				for _, m := range tt.family {
					share += belief[m]
				}
				if share > 0.5 {
					right++
				} else {
					t.Logf("game %d: belief %.2f", seed, belief)
				}
				if sum := sumOf(belief[:]); math.Abs(sum-1) > 1e-9 {
					t.Fatalf("belief sums to %v", sum)
				}
			}
			if right < 9 {
				t.Errorf("the %s player was recognised in %d games of 10", tt.name, right)
			}
		})
	}
}

func sumOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		name        string
		cards       [][]int
		tokens      []int
		prior       []int
		roundsAfter int
		win         []float64
	}{
		{"LowestWins", [][]int{{10}, {20}, {30}}, []int{5, 5, 5}, []int{0, 0, 0}, 0, []float64{1, 0, 0}},
		{"TieShared", [][]int{{10}, {10}, {30}}, []int{5, 5, 5}, []int{0, 0, 0}, 0, []float64{0.5, 0.5, 0}},
		{"EarlierRoundsCount", [][]int{{10}, {20}, {30}}, []int{5, 5, 5}, []int{40, 0, 0}, 0, []float64{0, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := round{n: len(tt.cards), roundsAfter: tt.roundsAfter}
			for i := range tt.cards {
				r.cards[i] = engine.SetOf(tt.cards[i]...)
				r.tokens[i] = tt.tokens[i]
				r.prior[i] = tt.prior[i]
			}
			o := r.outcome()
			if got := o.win[:r.n]; !slices.Equal(got, tt.win) {
				t.Errorf("win = %v, want %v", got, tt.win)
			}
			for i := range r.n {
				if o.reward[i] < 0 || o.reward[i] > 1 {
					t.Errorf("reward %v out of [0, 1]", o.reward[i])
				}
			}
		})
	}
	t.Run("RoundsToComeSoftenTheLead", func(t *testing.T) {
		r := round{n: 3, roundsAfter: 2}
		for i, c := range []int{10, 20, 30} {
			r.cards[i] = engine.SetOf(c)
		}
		o := r.outcome()
		if !(o.win[0] > o.win[1] && o.win[1] > o.win[2] && o.win[0] < 0.9) {
			t.Errorf("win = %v, want ordered by total and uncertain", o.win[:3])
		}
		if got := sumOf(o.win[:3]); math.Abs(got-1) > 1e-9 {
			t.Errorf("win shares sum to %v", got)
		}
		if o.diff[0] != -15 || o.diff[2] != 15 {
			t.Errorf("diff = %v, want -15, 0, 15", o.diff[:3])
		}
	})
}
