package analysis

import (
	"testing"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// BenchmarkAnalyseGame analyses a whole 3-player, 4-round game played by
// heuristic bots, every seat judged, at the background analysis's search.
// The target: under 2 s of one core (run with GOMAXPROCS=1).
func BenchmarkAnalyseGame(b *testing.B) {
	g := botGame(b, engine.Options{Players: 3, Rounds: 4, Variant: engine.Standard}, 11, heuristics(3))
	var decisions int
	for b.Loop() {
		r, err := Analyse(g, Playouts)
		if err != nil {
			b.Fatal(err)
		}
		decisions = len(r.Decisions)
	}
	b.ReportMetric(float64(decisions), "decisions")
}

// BenchmarkAgreementWithDeep compares the marks of the background search
// with a twenty times longer one on a sample of decisions from bot games:
// agree-% is the share given the same mark (no mark counts as a mark).
func BenchmarkAgreementWithDeep(b *testing.B) {
	o := engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}
	var agree, total, marked, markedAgree int
	for b.Loop() {
		agree, total, marked, markedAgree = 0, 0, 0, 0
		for seed := uint64(1); seed <= 6; seed++ {
			bots := []bot.Bot{bot.HeuristicBot{}, bot.RandomBot{}, bot.HeuristicBot{}}
			g := botGame(b, o, seed, bots)
			short, err := Analyse(g, Playouts)
			if err != nil {
				b.Fatal(err)
			}
			for i, d := range short.Decisions {
				if i%2 == 1 { // every other decision: a sample
					continue
				}
				deep, err := JudgeOne(g, d.Move, Deep)
				if err != nil {
					b.Fatal(err)
				}
				total++
				if deep.Mark == d.Mark {
					agree++
				}
				if d.Mark != MarkNone {
					marked++
					if deep.Mark != MarkNone {
						markedAgree++
					}
				}
			}
		}
	}
	b.ReportMetric(float64(total), "decisions")
	b.ReportMetric(100*float64(agree)/float64(max(total, 1)), "agree-%")
	b.ReportMetric(100*float64(markedAgree)/float64(max(marked, 1)), "marked-also-deep-%")
}

// BenchmarkBlunderShare plays 200 three-player games with the bot under
// test in seat 1 to 3 in turn against two heuristic bots, analyses the
// tested seat's decisions and reports the share marked as blunders, for
// the heuristic bot and for the strong bot's search.
func BenchmarkBlunderShare(b *testing.B) {
	for _, c := range []struct {
		name string
		bot  bot.Bot
	}{
		{"heuristic", bot.HeuristicBot{}},
		{"strong", bot.NewSearchBot(bot.Budget{Iterations: 2000})},
	} {
		b.Run(c.name, func(b *testing.B) {
			o := engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}
			var blunders, mistakes, judged int
			for b.Loop() {
				blunders, mistakes, judged = 0, 0, 0
				for game := uint64(1); game <= 200; game++ {
					tested := int(game % 3)
					bots := heuristics(3)
					bots[tested] = c.bot
					g := botGame(b, o, game, bots)
					g.Judge = make([]bool, 3)
					g.Judge[tested] = true
					r, err := Analyse(g, Playouts)
					if err != nil {
						b.Fatal(err)
					}
					p := r.Players[tested]
					blunders += p.Blunders
					mistakes += p.Mistakes
					judged += p.Judged
				}
			}
			b.ReportMetric(float64(judged), "decisions")
			b.ReportMetric(100*float64(blunders)/float64(max(judged, 1)), "blunder-%")
			b.ReportMetric(100*float64(mistakes)/float64(max(judged, 1)), "mistake-%")
		})
	}
}
