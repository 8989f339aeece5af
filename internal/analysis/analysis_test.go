package analysis

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// botGame plays a whole game with bots and returns it for analysis, every
// seat judged.
func botGame(t testing.TB, o engine.Options, seed uint64, bots []bot.Bot) Game {
	t.Helper()
	setup := engine.SetupFromSeed(o, seed)
	eg, err := engine.NewFromSetup(o, setup)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var actions []engine.Action
	for !eg.Finished() {
		v := eg.View(eg.Turn())
		a := engine.Action{Seat: v.Viewer, Kind: bots[v.Viewer].Decide(v, rng)}
		if err := eg.Apply(a); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, a)
	}
	judge := make([]bool, o.Players)
	for i := range judge {
		judge[i] = true
	}
	return Game{ID: int64(seed), Options: o, Setup: setup, Actions: actions, Judge: judge}
}

func heuristics(n int) []bot.Bot {
	out := make([]bot.Bot, n)
	for i := range out {
		out[i] = bot.HeuristicBot{}
	}
	return out
}

func TestTheSameGameGivesTheSameReport(t *testing.T) {
	g := botGame(t, engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}, 7, heuristics(3))
	a, err := Analyse(g, 300)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Analyse(g, 300)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two analyses of one game differ")
	}
	if len(a.Decisions) == 0 || len(a.Curve) != len(g.Actions) {
		t.Fatalf("%d decisions judged, %d curve points for %d actions", len(a.Decisions), len(a.Curve), len(g.Actions))
	}
	// Every judged decision had two choices, and is its player's.
	judged := 0
	for _, p := range a.Players {
		judged += p.Judged
		if p.Accuracy < 0 || p.Accuracy > 100 {
			t.Errorf("seat %d accuracy %v", p.Seat, p.Accuracy)
		}
	}
	if judged != len(a.Decisions) {
		t.Errorf("players count %d judged decisions, the report lists %d", judged, len(a.Decisions))
	}
	// The curve ends at the final totals.
	eg, _ := engine.Replay(g.Options, g.Setup, g.Actions)
	if last := a.Curve[len(a.Curve)-1].Score; !reflect.DeepEqual(last, eg.Totals()) {
		t.Errorf("the curve ends at %v, the game at %v", last, eg.Totals())
	}
}

// Taking the highest card with nothing on it, first thing in a one-round
// game, when a token would have let it go by: a blunder by any measure.
func TestTakingABigCardForNothingIsABlunder(t *testing.T) {
	o := engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}
	var g Game
	for seed := uint64(1); ; seed++ {
		setup := engine.SetupFromSeed(o, seed)
		eg, _ := engine.NewFromSetup(o, setup)
		if v := eg.View(eg.Turn()); v.ActiveCard >= 34 {
			g = Game{ID: 1, Options: o, Setup: setup, Actions: []engine.Action{{Seat: v.Viewer, Kind: engine.Take}}, Judge: []bool{true, true, true}}
			break
		}
	}
	r, err := Analyse(g, Playouts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Decisions) != 1 {
		t.Fatalf("%d decisions", len(r.Decisions))
	}
	d := r.Decisions[0]
	if d.Mark != MarkBlunder || d.Best != engine.Pass {
		t.Errorf("taking %d for nothing: mark %q, best %s (take %.3f, pass %.3f)", d.Card, d.Mark, d.Best, d.Take.Win, d.Pass.Win)
	}
	// The same decision the other way is no mistake.
	g.Actions[0].Kind = engine.Pass
	r, _ = Analyse(g, Playouts)
	if d := r.Decisions[0]; d.Mark != MarkNone || d.Loss != 0 {
		t.Errorf("passing on %d: mark %q, loss %v", d.Card, d.Mark, d.Loss)
	}
}

func TestMarksAndNoise(t *testing.T) {
	est := func(win, se float64) bot.Estimate { return bot.Estimate{Legal: true, Win: win, WinSE: se} }
	for _, c := range []struct {
		take, pass bot.Estimate
		chosen     engine.ActionKind
		loss       float64
		mark       string
	}{
		{est(0.40, 0.02), est(0.45, 0.02), engine.Take, 0, MarkNone},            // 5% < 2 × 2.8%: noise
		{est(0.40, 0.01), est(0.43, 0.01), engine.Take, 0.03, MarkNone},         // beyond noise, below a mark
		{est(0.40, 0.005), est(0.45, 0.005), engine.Take, 0.05, MarkInaccuracy}, // beyond noise
		{est(0.40, 0.005), est(0.52, 0.005), engine.Take, 0.12, MarkMistake},
		{est(0.10, 0.005), est(0.45, 0.005), engine.Take, 0.35, MarkBlunder},
		{est(0.10, 0.005), est(0.45, 0.005), engine.Pass, 0, MarkNone},     // the better one
		{est(0.30, 0.11), est(0.60, 0.11), engine.Take, 0, MarkNone},       // 30% < 2 × 15.6%: noise
		{est(0.30, 0.10), est(0.60, 0.10), engine.Take, 0.30, MarkBlunder}, // 30% > 2 × 14.1%
	} {
		_, loss, mark := markOf(c.take, c.pass, c.chosen)
		if loss != c.loss || mark != c.mark {
			t.Errorf("take %v pass %v chose %s: loss %v mark %q, want %v %q", c.take.Win, c.pass.Win, c.chosen, loss, mark, c.loss, c.mark)
		}
	}
	if a := DecisionAccuracy(0); a != 100 {
		t.Errorf("accuracy of a loss of 0: %v", a)
	}
	if a := DecisionAccuracy(0.125); a != 50 {
		t.Errorf("accuracy of a loss of 1/8 of a win: %v", a)
	}
	if a := DecisionAccuracy(0.5); a != 0 {
		t.Errorf("accuracy of a loss of half a win: %v", a)
	}
}
