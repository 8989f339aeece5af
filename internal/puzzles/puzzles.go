// Package puzzles finds puzzles in finished games: decisions (take or
// pass) where the strong bot's search, from the deciding seat's own view
// only, finds one action clearly better than the other, again and again
// over searches with different seeds. A puzzle may run over a few
// decisions of the same seat in one round (its line). Ratings of solvers
// and puzzles are in package glicko2; see docs/puzzles.md.
//
// It is pure logic: it imports the engine, the bot and the analysis's
// Game type, and nothing of SQL, HTTP or HTML.
package puzzles

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"nothanks/internal/analysis"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// Config is how hard Mine looks. A zero field takes its default (see
// DefaultConfig).
type Config struct {
	// Screen is the playouts of the first, cheap look at every decision;
	// a decision whose two win shares there are less than ScreenGap
	// apart is no puzzle and gets no further search.
	Screen    int
	ScreenGap float64
	// Searches is how many searches of Playouts playouts each, with
	// different seeds, a candidate gets; every one of them must find the
	// same action better by at least Margin in win share, and by more than
	// NoiseSE combined standard errors.
	Searches int
	Playouts int
	Margin   float64
	NoiseSE  float64
	// MaxSteps caps the decisions of a puzzle's line.
	MaxSteps int
}

// Defaults, chosen by the measurement in docs/puzzles.md.
const (
	DefaultScreen    = 300
	DefaultScreenGap = 0.05
	DefaultSearches  = 3
	DefaultPlayouts  = 2000
	DefaultMargin    = 0.10
	DefaultNoiseSE   = 2.0
	DefaultMaxSteps  = 3
)

// DefaultConfig is the search the background mining uses.
func DefaultConfig() Config {
	return Config{Screen: DefaultScreen, ScreenGap: DefaultScreenGap, Searches: DefaultSearches,
		Playouts: DefaultPlayouts, Margin: DefaultMargin, NoiseSE: DefaultNoiseSE, MaxSteps: DefaultMaxSteps}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Screen <= 0 {
		c.Screen = d.Screen
	}
	if c.ScreenGap <= 0 {
		c.ScreenGap = d.ScreenGap
	}
	if c.Searches <= 0 {
		c.Searches = d.Searches
	}
	if c.Playouts <= 0 {
		c.Playouts = d.Playouts
	}
	if c.Margin <= 0 {
		c.Margin = d.Margin
	}
	if c.NoiseSE <= 0 {
		c.NoiseSE = d.NoiseSE
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = d.MaxSteps
	}
	return c
}

// Option is what the searches expect of one action, pooled over them: the
// mean of their estimates, with the standard error of that mean.
type Option struct {
	// Win is the seat's expected share of the game's win (as in the
	// analysis: a shared win split, before the last round the chance the
	// lead holds).
	Win   float64 `json:"win"`
	WinSE float64 `json:"win_se"`
	// CardPoints is the seat's expected card points at the end of the
	// round, Score its expected round score (card points less tokens).
	CardPoints   float64 `json:"card_points"`
	CardPointsSE float64 `json:"card_points_se"`
	Score        float64 `json:"score"`
	ScoreSE      float64 `json:"score_se"`
}

// Step is one decision of a puzzle's line.
type Step struct {
	// Move is the decision's index in the game's actions: View(game,
	// Move) is what the solver sees.
	Move     int               `json:"move"`
	Card     int               `json:"card"`
	Pot      int               `json:"pot"`
	Tokens   int               `json:"tokens"` // the seat's own tokens
	DeckLeft int               `json:"deck_left"`
	Best     engine.ActionKind `json:"best"`
	// Played is what the game's player did.
	Played engine.ActionKind `json:"played"`
	Take   Option            `json:"take"`
	Pass   Option            `json:"pass"`
	// Margin is the smallest gap in win share between the best action and
	// the other over the searches.
	Margin float64 `json:"margin"`
	// Replies is what happened at the table from the solver's action to
	// the next step (the card turned up after a take, the others' passes
	// after a pass), from the game's public log; none after the last step.
	Replies []engine.Event `json:"replies,omitempty"`
}

// Puzzle is a position from a finished game with a clear answer. Its
// first step's fields are repeated at the top.
type Puzzle struct {
	GameID int64             `json:"game_id"`
	Move   int               `json:"move"`
	Round  int               `json:"round"`
	Seat   int               `json:"seat"`
	Card   int               `json:"card"`
	Pot    int               `json:"pot"`
	Best   engine.ActionKind `json:"best"`
	Take   Option            `json:"take"`
	Pass   Option            `json:"pass"`
	Margin float64           `json:"margin"`
	// Themes are stable identifiers (see the Theme constants) of what the
	// first position is about.
	Themes []string `json:"themes"`
	// Line is every step, the first included.
	Line []Step `json:"line"`
	// Obvious: the one-line heuristic (bot.HeuristicBot: take when the
	// pot pays for enough of the card's cost) plays the best action at
	// every step. Such a puzzle teaches little; the site may prefer the
	// others where it picks one (the daily puzzle).
	Obvious  bool `json:"obvious"`
	Searches int  `json:"searches"`
	Playouts int  `json:"playouts"` // per search and decision
}

// verdict is the searches' judgement of one decision.
type verdict struct {
	clear      bool
	best       engine.ActionKind
	take, pass Option
	margin     float64
}

// decision is what the miner keeps of one of the game's actions.
type decision struct {
	eligible bool
	round    int
	view     engine.View // set when eligible
	events   int         // length of the public log before the action
}

type miner struct {
	g         analysis.Game
	cfg       Config
	decisions []decision
	log       []engine.Event // the game's whole public log
	verdicts  map[int]verdict
	// screen and judge look at one decision; tests replace them.
	screen func(move int, v engine.View) bool
	judge  func(move int, v engine.View) verdict
}

// seedSalt keeps the puzzles' playouts apart from the analysis's, which
// seeds with the game's id and the move alone.
const seedSalt = 0x70757a7a6c657300

// rngFor is the source of search k of a move (k = 0: the screen), from
// the game's id, so that the same game mines the same puzzles.
func rngFor(gameID int64, salt uint64, move, k int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(gameID)^salt, uint64(move)<<8|uint64(k)))
}

// Mine finds the puzzles of a game: decisions of the judged seats (not
// timeouts, not of an abandoned seat, with both Take and Pass legal and
// no Hidden Tiger to lay) that pass the screen and then the searches, with
// their lines. A decision already in an earlier puzzle's line does not
// start another. The same game and config always give the same puzzles.
func Mine(g analysis.Game, c Config) ([]Puzzle, error) {
	m, err := newMiner(g, c)
	if err != nil {
		return nil, err
	}
	m.screen = m.searchScreen
	m.judge = func(move int, v engine.View) verdict {
		return searchVerdict(v, m.cfg, func(k int) *rand.Rand { return rngFor(g.ID, seedSalt, move, k) })
	}
	return m.mine(), nil
}

func newMiner(g analysis.Game, c Config) (*miner, error) {
	eg, err := engine.NewFromSetup(g.Options, g.Setup)
	if err != nil {
		return nil, fmt.Errorf("puzzles: game %d: %w", g.ID, err)
	}
	m := &miner{g: g, cfg: c.withDefaults(), decisions: make([]decision, len(g.Actions)), verdicts: map[int]verdict{}}
	for i, a := range g.Actions {
		d := decision{round: eg.Round(), events: len(eg.Events())}
		if eligible(g, eg, a) {
			d.eligible, d.view = true, eg.View(a.Seat)
		}
		m.decisions[i] = d
		if err := eg.Apply(a); err != nil {
			return nil, fmt.Errorf("puzzles: game %d action %d: %w", g.ID, i, err)
		}
	}
	m.log = eg.Events()
	return m, nil
}

// eligible reports whether a is a decision a puzzle may come from.
func eligible(g analysis.Game, eg *engine.Game, a engine.Action) bool {
	if a.Seat < 0 || a.Seat >= len(g.Judge) || !g.Judge[a.Seat] || a.Timeout {
		return false
	}
	if a.Kind != engine.Take && a.Kind != engine.Pass || eg.Turn() != a.Seat || eg.Abandoned(a.Seat) {
		return false
	}
	legal := eg.Legal(a.Seat)
	return slices.Contains(legal, engine.Take) && slices.Contains(legal, engine.Pass) && !slices.Contains(legal, engine.LayTiger)
}

func (m *miner) mine() []Puzzle {
	var out []Puzzle
	covered := map[int]bool{}
	for move, d := range m.decisions {
		if !d.eligible || covered[move] || !m.screen(move, d.view) {
			continue
		}
		vd := m.verdict(move)
		if !vd.clear {
			continue
		}
		line := []Step{m.step(move, vd)}
		for cur := move; len(line) < m.cfg.MaxSteps && m.g.Actions[cur].Kind == m.verdict(cur).best; {
			next, ok := m.next(cur)
			if !ok || !m.decisions[next].eligible {
				break
			}
			vn := m.verdict(next)
			if !vn.clear {
				break
			}
			line[len(line)-1].Replies = slices.Clone(m.log[m.decisions[cur].events+1 : m.decisions[next].events])
			line = append(line, m.step(next, vn))
			cur = next
		}
		for _, s := range line {
			covered[s.Move] = true
		}
		obvious := true
		for _, s := range line {
			obvious = obvious && bot.HeuristicBot{}.Decide(m.decisions[s.Move].view, nil) == s.Best
		}
		v := d.view
		first := line[0]
		out = append(out, Puzzle{
			GameID: m.g.ID, Move: move, Round: v.Round, Seat: v.Viewer, Card: v.ActiveCard, Pot: v.Pot,
			Best: first.Best, Take: first.Take, Pass: first.Pass, Margin: first.Margin,
			Themes: Themes(v, first.Best), Line: line, Obvious: obvious, Searches: m.cfg.Searches, Playouts: m.cfg.Playouts,
		})
	}
	return out
}

func (m *miner) verdict(move int) verdict {
	if vd, ok := m.verdicts[move]; ok {
		return vd
	}
	vd := m.judge(move, m.decisions[move].view)
	m.verdicts[move] = vd
	return vd
}

func (m *miner) step(move int, vd verdict) Step {
	v := m.decisions[move].view
	s := Step{Move: move, Card: v.ActiveCard, Pot: v.Pot, DeckLeft: v.DeckLeft, Best: vd.best,
		Played: m.g.Actions[move].Kind, Take: vd.take, Pass: vd.pass, Margin: vd.margin}
	if t := v.Seats[v.Viewer].Tokens; t != nil {
		s.Tokens = *t
	}
	return s
}

// next is the same seat's next decision on the line after move, if the
// game's action there leads straight to one: after a take, the seat's
// decision on the card turned up (not once the round is over); after a
// pass, its decision when the same card comes back round (not if another
// seat took it). Leaving seats and laid Tigers of other seats change
// nothing on the table and are stepped over.
func (m *miner) next(move int) (int, bool) {
	a := m.g.Actions[move]
	for j := move + 1; j < len(m.g.Actions); j++ {
		b := m.g.Actions[j]
		switch {
		case b.Kind == engine.Leave:
			continue
		case b.Seat == a.Seat:
			return j, m.decisions[j].round == m.decisions[move].round
		case a.Kind == engine.Take:
			return 0, false // the round ended and another seat starts the next
		case b.Kind == engine.Take:
			return 0, false // another seat took the card
		}
	}
	return 0, false
}

// searchScreen is the cheap first look: the two win shares at least
// ScreenGap apart.
func (m *miner) searchScreen(move int, v engine.View) bool {
	take, pass := bot.Evaluate(v, bot.Budget{Iterations: m.cfg.Screen}, rngFor(m.g.ID, seedSalt, move, 0))
	return math.Abs(take.Win-pass.Win) >= m.cfg.ScreenGap
}

// searchVerdict runs the config's searches on v (search k, from 1, with
// the source rng(k)) and judges whether one action is clearly the better:
// the same in every search, ahead by Margin and by more than NoiseSE
// combined standard errors in each. It stops at the first search that
// fails.
func searchVerdict(v engine.View, c Config, rng func(k int) *rand.Rand) verdict {
	vd := verdict{clear: true, margin: math.Inf(1)}
	var takes, passes []bot.Estimate
	for k := 1; k <= c.Searches; k++ {
		take, pass := bot.Evaluate(v, bot.Budget{Iterations: c.Playouts}, rng(k))
		takes, passes = append(takes, take), append(passes, pass)
		best, gap := engine.Take, take.Win-pass.Win
		if gap < 0 {
			best, gap = engine.Pass, -gap
		}
		if k == 1 {
			vd.best = best
		}
		noise := c.NoiseSE * math.Sqrt(take.WinSE*take.WinSE+pass.WinSE*pass.WinSE)
		if best != vd.best || gap == 0 || gap < c.Margin || gap <= noise {
			vd.clear = false
		}
		vd.margin = min(vd.margin, gap)
		if !vd.clear {
			break
		}
	}
	vd.take, vd.pass, vd.margin = pool(takes), pool(passes), round4(vd.margin)
	return vd
}

// pool is the mean of the searches' estimates, with the standard error
// of the mean (the searches are independent).
func pool(es []bot.Estimate) Option {
	var o Option
	var win2, points2, score2 float64
	for _, e := range es {
		o.Win += e.Win
		o.CardPoints += e.CardPoints
		o.Score += e.Score
		win2 += e.WinSE * e.WinSE
		points2 += e.CardPointsSE * e.CardPointsSE
		score2 += e.ScoreSE * e.ScoreSE
	}
	n := float64(len(es))
	return Option{
		Win: round4(o.Win / n), WinSE: round4(math.Sqrt(win2) / n),
		CardPoints: round2(o.CardPoints / n), CardPointsSE: round2(math.Sqrt(points2) / n),
		Score: round2(o.Score / n), ScoreSE: round2(math.Sqrt(score2) / n),
	}
}

// View is what the deciding seat saw at a decision of the game: the only
// thing of the game the site may show a solver (the view holds neither
// the deck order, nor the removed cards of the round in play, nor the
// others' token counts unless the game has open tokens).
func View(g analysis.Game, move int) (engine.View, error) {
	if move < 0 || move >= len(g.Actions) {
		return engine.View{}, fmt.Errorf("puzzles: game %d has no move %d", g.ID, move)
	}
	eg, err := engine.Replay(g.Options, g.Setup, g.Actions[:move])
	if err != nil {
		return engine.View{}, fmt.Errorf("puzzles: game %d: %w", g.ID, err)
	}
	a := g.Actions[move]
	if a.Kind == engine.Leave || eg.Turn() != a.Seat {
		return engine.View{}, fmt.Errorf("puzzles: move %d of game %d is not a decision", move, g.ID)
	}
	return eg.View(a.Seat), nil
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
func round4(x float64) float64 { return math.Round(x*10000) / 10000 }
