package bot

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"nothanks/internal/engine"
)

// benchViews are decisions met in games of 3, 4 and 5 rule bots, from the
// first card to the last, forced ones left out: what a bot at a live table
// meets.
var benchViews = func() []engine.View {
	var out []engine.View
	rng := rand.New(rand.NewPCG(11, 11))
	for i := range 12 {
		g, _ := engine.New(engine.DefaultOptions(3+i%3), uint64(100+i))
		for k := 0; !g.Finished(); k++ {
			v := g.View(g.Turn())
			if len(v.Legal) > 1 && k%9 == 0 {
				out = append(out, v)
			}
			_ = g.Apply(engine.Action{Seat: g.Turn(), Kind: RuleBot{}.Decide(v, rng)})
		}
	}
	return out
}()

// benchDecisions times one decision per op over benchViews and reports the
// median and the 99th percentile in milliseconds.
func benchDecisions(b *testing.B, bot Bot) {
	rng := rand.New(rand.NewPCG(1, 2))
	var took []time.Duration
	i := 0
	for b.Loop() {
		v := benchViews[i%len(benchViews)]
		i++
		start := time.Now()
		bot.Decide(v, rng)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	ms := func(q float64) float64 {
		return float64(took[min(int(q*float64(len(took))), len(took)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// BenchmarkStrongDecision times the strong level as the site plays it (a
// 35 ms budget) over decisions of 3- to 5-player games. Its p99-ms is the
// figure to watch; run enough decisions for it to mean something:
//
//	go test -run '^$' -bench StrongDecision -benchtime 500x ./internal/engine/bot/
func BenchmarkStrongDecision(b *testing.B) { benchDecisions(b, NewSearchBot(StrongBudget)) }

// BenchmarkExpertDecision times the expert level (a 350 ms budget).
func BenchmarkExpertDecision(b *testing.B) { benchDecisions(b, NewSearchBot(ExpertBudget)) }

// BenchmarkSearchPlayouts times the search at a fixed 3,000 playouts: the
// speed of the playouts, independent of the budget.
func BenchmarkSearchPlayouts(b *testing.B) {
	benchDecisions(b, NewSearchBot(Budget{Iterations: 3000}))
}

func BenchmarkRuleDecision(b *testing.B)        { benchDecisions(b, RuleBot{}) }
func BenchmarkAuctionRuleDecision(b *testing.B) { benchDecisions(b, RuleBot{Auction: true}) }
func BenchmarkHeuristicDecision(b *testing.B)   { benchDecisions(b, HeuristicBot{}) }

// BenchmarkEvaluate times the judge of a decision at 4,000 playouts.
func BenchmarkEvaluate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	i := 0
	for b.Loop() {
		Evaluate(benchViews[i%len(benchViews)], Budget{Iterations: 4000}, rng)
		i++
	}
}
