package puzzles

import (
	"flag"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"nothanks/internal/analysis"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

var (
	measureGames     = flag.Int("puzzles.games", 300, "bot games BenchmarkMeasure mines")
	measureMargin    = flag.Float64("puzzles.margin", DefaultMargin, "BenchmarkMeasure's Margin")
	measureScreenGap = flag.Float64("puzzles.screengap", DefaultScreenGap, "BenchmarkMeasure's ScreenGap")
	measureSearches  = flag.Int("puzzles.searches", DefaultSearches, "BenchmarkMeasure's Searches")
)

// lineupBots are the bots the measurement seats: every level from random
// play to the search, so that the games hold mistakes of every size.
var lineupBots = []bot.Bot{
	bot.RandomBot{},
	bot.HeuristicBot{},
	bot.RuleBot{},
	bot.RuleBot{Sharp: true},
	bot.NewSearchBot(bot.Budget{Iterations: 1000}),
}

// botGame plays game number n of the measurement: 3 to 5 players, 1 to 4
// rounds, a line-up drawn from lineupBots, every seat judged.
func botGame(tb testing.TB, n uint64) analysis.Game {
	tb.Helper()
	rng := rand.New(rand.NewPCG(n, 0xb07))
	o := engine.Options{Players: 3 + rng.IntN(3), Rounds: 1 + rng.IntN(4), Variant: engine.Standard}
	bots := make([]bot.Bot, o.Players)
	for i := range bots {
		bots[i] = lineupBots[rng.IntN(len(lineupBots))]
	}
	return playGame(tb, int64(n), o, bots, rng)
}

func playGame(tb testing.TB, id int64, o engine.Options, bots []bot.Bot, rng *rand.Rand) analysis.Game {
	tb.Helper()
	eg, err := bot.Play(o, uint64(id), bots, rng)
	if err != nil {
		tb.Fatal(err)
	}
	var actions []engine.Action
	for _, e := range eg.Events() {
		if a, ok := e.Action(); ok {
			actions = append(actions, a)
		}
	}
	judge := make([]bool, o.Players)
	for i := range judge {
		judge[i] = true
	}
	return analysis.Game{ID: id, Options: o, Setup: engine.SetupFromSeed(o, uint64(id)), Actions: actions, Judge: judge}
}

// tally is what the measurement counts.
type tally struct {
	games, decisions, eligible, screened, puzzles, steps, obvious int
	lines                                                         [DefaultMaxSteps + 1]int
	bests                                                         map[engine.ActionKind]int
	themes                                                        map[string]int
	// rechecked steps at 4× playouts with fresh seeds; flips changed the
	// best action, held kept the Margin in that search too.
	rechecked, flips, held int
	// missed: of the eligible decisions that failed the screen in the
	// sampled games, those the full searches would have found clear.
	sampled, missedChecked, missed int
	// gaps is the screen's gap of each puzzle's first step.
	gaps []float64
}

func (t *tally) add(o tally) {
	t.games += o.games
	t.decisions += o.decisions
	t.eligible += o.eligible
	t.screened += o.screened
	t.puzzles += o.puzzles
	t.steps += o.steps
	t.obvious += o.obvious
	for i := range t.lines {
		t.lines[i] += o.lines[i]
	}
	for k, v := range o.bests {
		t.bests[k] += v
	}
	for k, v := range o.themes {
		t.themes[k] += v
	}
	t.rechecked += o.rechecked
	t.flips += o.flips
	t.held += o.held
	t.sampled += o.sampled
	t.missedChecked += o.missedChecked
	t.missed += o.missed
	t.gaps = append(t.gaps, o.gaps...)
}

// measure mines one game and checks its puzzles again.
func measure(tb testing.TB, n uint64, c Config, sampleMisses bool) tally {
	g := botGame(tb, n)
	t := tally{games: 1, decisions: len(g.Actions), bests: map[engine.ActionKind]int{}, themes: map[string]int{}}
	m, err := newMiner(g, c)
	if err != nil {
		tb.Fatal(err)
	}
	passed := map[int]bool{}
	gap := map[int]float64{}
	m.screen = func(move int, v engine.View) bool {
		t.eligible++
		take, pass := bot.Evaluate(v, bot.Budget{Iterations: m.cfg.Screen}, rngFor(m.g.ID, seedSalt, move, 0))
		gap[move] = math.Abs(take.Win - pass.Win)
		ok := gap[move] >= m.cfg.ScreenGap
		if ok {
			t.screened++
			passed[move] = true
		}
		return ok
	}
	m.judge = func(move int, v engine.View) verdict {
		return searchVerdict(v, m.cfg, func(k int) *rand.Rand { return rngFor(g.ID, seedSalt, move, k) })
	}
	ps := m.mine()
	for _, p := range ps {
		t.puzzles++
		t.steps += len(p.Line)
		t.lines[len(p.Line)]++
		t.bests[p.Best]++
		t.gaps = append(t.gaps, gap[p.Move])
		if p.Obvious {
			t.obvious++
		}
		for _, th := range p.Themes {
			t.themes[th]++
		}
		for _, s := range p.Line {
			v := m.decisions[s.Move].view
			take, pass := bot.Evaluate(v, bot.Budget{Iterations: 4 * m.cfg.Playouts}, rngFor(g.ID, recheckSalt, s.Move, 1))
			best, gap := engine.Take, take.Win-pass.Win
			if gap < 0 {
				best, gap = engine.Pass, -gap
			}
			t.rechecked++
			if best != s.Best {
				t.flips++
			} else if gap >= m.cfg.Margin {
				t.held++
			}
		}
	}
	if sampleMisses {
		t.sampled = 1
		covered := map[int]bool{}
		for _, p := range ps {
			for _, s := range p.Line {
				covered[s.Move] = true
			}
		}
		for move, d := range m.decisions {
			if !d.eligible || passed[move] || covered[move] {
				continue
			}
			t.missedChecked++
			if m.verdict(move).clear {
				t.missed++
			}
		}
	}
	return t
}

// recheckSalt seeds the measurement's fresh searches.
const recheckSalt = 0x636865636b000000

// BenchmarkMeasure mines -puzzles.games bot games (see botGame) with the
// default config and reports what docs/puzzles.md gives: decisions
// screened, puzzles per game, steps, and how often a puzzle's answer
// flips when each of its steps is searched again with fresh seeds at four
// times the playouts. Every tenth game also runs the full searches on the
// decisions the screen turned away, to count the puzzles it misses.
//
//	go test -run '^$' -bench Measure -benchtime 1x -timeout 3h ./internal/puzzles/
func BenchmarkMeasure(b *testing.B) {
	for b.Loop() {
		total := tally{bests: map[engine.ActionKind]int{}, themes: map[string]int{}}
		var mu sync.Mutex
		var wg sync.WaitGroup
		next := make(chan uint64)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for n := range next {
					c := DefaultConfig()
					c.Margin, c.ScreenGap, c.Searches = *measureMargin, *measureScreenGap, *measureSearches
					t := measure(b, n, c, n%10 == 0)
					mu.Lock()
					total.add(t)
					mu.Unlock()
				}
			})
		}
		for n := uint64(1); n <= uint64(*measureGames); n++ {
			next <- n
		}
		close(next)
		wg.Wait()
		report(b, total)
	}
}

func report(b *testing.B, t tally) {
	per := func(x int) float64 { return float64(x) / float64(max(t.games, 1)) }
	pct := func(x, of int) float64 { return 100 * float64(x) / float64(max(of, 1)) }
	b.ReportMetric(float64(t.games), "games")
	b.ReportMetric(per(t.decisions), "decisions/game")
	b.ReportMetric(per(t.eligible), "eligible/game")
	b.ReportMetric(pct(t.screened, t.eligible), "screened-%")
	b.ReportMetric(per(t.puzzles), "puzzles/game")
	b.ReportMetric(pct(t.puzzles, t.eligible), "puzzles/100-eligible")
	b.ReportMetric(float64(t.steps)/float64(max(t.puzzles, 1)), "steps/puzzle")
	b.ReportMetric(pct(t.lines[2]+t.lines[3], t.puzzles), "multi-step-%")
	b.ReportMetric(pct(t.bests[engine.Pass], t.puzzles), "best-pass-%")
	b.ReportMetric(pct(t.obvious, t.puzzles), "obvious-%")
	b.ReportMetric(float64(t.rechecked), "rechecked-steps")
	b.ReportMetric(pct(t.flips, t.rechecked), "flip-%")
	b.ReportMetric(pct(t.held, t.rechecked), "margin-held-%")
	b.ReportMetric(float64(t.missedChecked), "screen-rejects-checked")
	b.ReportMetric(pct(t.missed, t.missedChecked), "screen-miss-%")
	b.ReportMetric(float64(t.missed), "screen-missed")
	for _, name := range ThemeNames() {
		b.ReportMetric(pct(t.themes[name], t.puzzles), name+"-%")
	}
	below := func(x float64) int {
		n := 0
		for _, g := range t.gaps {
			if g < x {
				n++
			}
		}
		return n
	}
	b.ReportMetric(pct(below(0.08), t.puzzles), "screen-gap-below-0.08-%")
	b.ReportMetric(pct(below(0.10), t.puzzles), "screen-gap-below-0.10-%")
	b.Logf("lines by steps %v, flips %d of %d, missed %d of %d", t.lines, t.flips, t.rechecked, t.missed, t.missedChecked)
}

// BenchmarkMine is the cost of mining one game with the default config: a
// 3-player, 4-round game (the recommended length) between a heuristic, a
// rule and a random bot, every seat judged, so a game with people in
// only some seats costs less. Run on one core:
//
//	GOMAXPROCS=1 go test -run '^$' -bench 'Mine$' -benchtime 5x ./internal/puzzles/
func BenchmarkMine(b *testing.B) {
	o := engine.Options{Players: 3, Rounds: 4, Variant: engine.Standard}
	var gs []analysis.Game
	for n := range int64(4) {
		gs = append(gs, playGame(b, 100+n, o, []bot.Bot{bot.HeuristicBot{}, bot.RuleBot{}, bot.RandomBot{}}, rand.New(rand.NewPCG(uint64(n), 7))))
	}
	var puzzles, i int
	for b.Loop() {
		ps, err := Mine(gs[i%len(gs)], DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		puzzles += len(ps)
		i++
	}
	b.ReportMetric(float64(puzzles)/float64(i), "puzzles/game")
}
