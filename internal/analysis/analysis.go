// Package analysis reviews a finished game: every decision of the people
// at the table (take or pass) is judged by the strong bot's search from the
// deciding seat's own view only, as the bot would see it in that seat
// (bot.Evaluate: the seat's tokens, the public cards and log, never the
// deck order, the removed cards or others' tokens beyond what the log
// tells a player with perfect memory). It knows nothing of HTTP or SQL.
//
// For each decision the search estimates the seat's expected share of the
// game's win after taking and after passing. The loss of the chosen action
// is the share given up against the better one. A loss within the noise of
// the two estimates (twice their combined standard error) is no loss at
// all; otherwise it is marked by size:
//
//	inaccuracy  at least 4% of a win given up
//	mistake     at least 10%
//	blunder     at least 20%
//
// A player's accuracy is the mean over their judged decisions of
// 100 × max(0, 1 − loss / 0.25): a decision as good as the better one scores
// 100, one giving up a quarter of a win or more scores 0. Decisions with one
// legal action (no tokens left) and decisions the server made when time ran
// out are not judged.
//
// The playouts of each decision are seeded from the game's id and the
// decision's number, with a fixed number of them, so the same game analysed
// twice gives the same report.
package analysis

import (
	"math"
	"math/rand/v2"
	"slices"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// Thresholds of the marks, in shares of a win given up.
const (
	Inaccuracy = 0.04
	Mistake    = 0.10
	Blunder    = 0.20
	// ZeroAccuracyLoss is the loss at which a decision's accuracy is 0.
	ZeroAccuracyLoss = 0.25
	// NoiseSE is how many combined standard errors a loss must exceed to
	// count at all.
	NoiseSE = 2.0
)

// Playouts is the search a decision gets in the background analysis; Deep
// is the search of a decision looked at again on request.
const (
	Playouts = 2000
	Deep     = 40000
)

// Marks of a decision.
const (
	MarkNone       = ""
	MarkInaccuracy = "inaccuracy"
	MarkMistake    = "mistake"
	MarkBlunder    = "blunder"
)

// Option is the search's estimate of one action.
type Option struct {
	Win   float64 `json:"win"`
	WinSE float64 `json:"win_se"`
	// Diff is the round's expected score less the others' mean (lower is
	// better).
	Diff float64 `json:"diff"`
	// Seats is every seat's expected share of the win after the action
	// (reports made before it was added have none).
	Seats []float64 `json:"seats,omitempty"`
}

// Decision is one judged decision.
type Decision struct {
	// Move numbers the decision among all of the game's decisions, from
	// 0; the replay shows it as step Move+1.
	Move   int               `json:"move"`
	Round  int               `json:"round"`
	Seat   int               `json:"seat"`
	Card   int               `json:"card"`
	Pot    int               `json:"pot"`
	Tokens int               `json:"tokens"` // the seat's own tokens then
	Chosen engine.ActionKind `json:"chosen"`
	Best   engine.ActionKind `json:"best"`
	Take   Option            `json:"take"`
	Pass   Option            `json:"pass"`
	// Loss is the share of a win the chosen action gave up (0 when it was
	// the better one or within noise).
	Loss     float64 `json:"loss"`
	Mark     string  `json:"mark,omitempty"`
	Playouts int     `json:"playouts"`
}

// Player sums up one seat.
type Player struct {
	Seat       int     `json:"seat"`
	Judged     int     `json:"judged"`
	Accuracy   float64 `json:"accuracy"`
	Inaccuracy int     `json:"inaccuracies"`
	Mistakes   int     `json:"mistakes"`
	Blunders   int     `json:"blunders"`
}

// Point is one seat's standing after one decision of the game: its running
// score (earlier rounds' totals plus the round's card points less tokens)
// and, after its own decisions, its estimated win share.
type Point struct {
	Move  int       `json:"move"`
	Score []int     `json:"score"`
	Win   []float64 `json:"win,omitempty"` // NaN-free: -1 where not estimated
}

// Report is a game's analysis.
type Report struct {
	Playouts  int        `json:"playouts"`
	Decisions []Decision `json:"decisions"`
	Players   []Player   `json:"players"`
	// Curve holds every seat's running score after each decision, and
	// the deciding seat's estimated win share.
	Curve []Point `json:"curve"`
}

// Game is what the analysis needs of a finished game.
type Game struct {
	ID      int64
	Options engine.Options
	Setup   engine.Setup
	Actions []engine.Action
	// Judge says which seats' decisions to judge (the people's).
	Judge []bool
}

// Analyse judges every decision of the judged seats with playouts each.
func Analyse(g Game, playouts int) (Report, error) {
	eg, err := engine.NewFromSetup(g.Options, g.Setup)
	if err != nil {
		return Report{}, err
	}
	n := g.Options.Players
	r := Report{Playouts: playouts, Players: make([]Player, n)}
	accSum := make([]float64, n)
	for i := range r.Players {
		r.Players[i].Seat = i
	}
	for move, a := range g.Actions {
		var est []float64
		if a.Seat >= 0 && a.Seat < len(g.Judge) && g.Judge[a.Seat] && !a.Timeout && (a.Kind == engine.Take || a.Kind == engine.Pass) {
			v := eg.View(a.Seat)
			if slices.Contains(v.Legal, engine.Take) && slices.Contains(v.Legal, engine.Pass) {
				d := judge(g.ID, move, v, a.Kind, playouts)
				r.Decisions = append(r.Decisions, d)
				p := &r.Players[a.Seat]
				p.Judged++
				accSum[a.Seat] += DecisionAccuracy(d.Loss)
				switch d.Mark {
				case MarkInaccuracy:
					p.Inaccuracy++
				case MarkMistake:
					p.Mistakes++
				case MarkBlunder:
					p.Blunders++
				}
				est = make([]float64, n)
				for i := range est {
					est[i] = -1
				}
				est[a.Seat] = d.chosen().Win
			}
		}
		if err := eg.Apply(a); err != nil {
			return Report{}, err
		}
		r.Curve = append(r.Curve, Point{Move: move, Score: runningScores(eg), Win: est})
	}
	for i := range r.Players {
		if r.Players[i].Judged > 0 {
			r.Players[i].Accuracy = round1(accSum[i] / float64(r.Players[i].Judged))
		}
	}
	return r, nil
}

// JudgeOne looks at one decision of a game again with more playouts.
func JudgeOne(g Game, move, playouts int) (Decision, error) {
	if move < 0 || move >= len(g.Actions) {
		return Decision{}, engine.ErrGameOver
	}
	eg, err := engine.Replay(g.Options, g.Setup, g.Actions[:move])
	if err != nil {
		return Decision{}, err
	}
	a := g.Actions[move]
	v := eg.View(a.Seat)
	return judge(g.ID, move, v, a.Kind, playouts), nil
}

// judge estimates both actions of one decision and marks the chosen one.
func judge(gameID int64, move int, v engine.View, chosen engine.ActionKind, playouts int) Decision {
	rng := rand.New(rand.NewPCG(uint64(gameID), uint64(move)))
	take, pass := bot.Evaluate(v, bot.Budget{Iterations: playouts}, rng)
	d := Decision{
		Move: move, Round: v.Round, Seat: v.Viewer, Card: v.ActiveCard, Pot: v.Pot, Chosen: chosen,
		Take:     Option{Win: round4(take.Win), WinSE: round4(take.WinSE), Diff: round2(take.Diff), Seats: seatWins(take, len(v.Seats))},
		Pass:     Option{Win: round4(pass.Win), WinSE: round4(pass.WinSE), Diff: round2(pass.Diff), Seats: seatWins(pass, len(v.Seats))},
		Playouts: take.Playouts + pass.Playouts,
	}
	if s := v.Seats[v.Viewer].Tokens; s != nil {
		d.Tokens = *s
	}
	d.Best, d.Loss, d.Mark = markOf(take, pass, chosen)
	return d
}

// seatWins is an estimate's win share of each of n seats, rounded.
func seatWins(e bot.Estimate, n int) []float64 {
	if !e.Legal || e.Playouts == 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = round4(e.Seats[i])
	}
	return out
}

// Gift is how much of a win the decision's chosen action handed seat
// against the better action: the seat's expected share after the chosen
// action less after the other, for a decision that lost beyond noise (0
// for a sound one, for the deciding seat itself, or a report without
// the seats' shares).
func (d Decision) Gift(seat int) float64 {
	if d.Loss <= 0 || seat == d.Seat {
		return 0
	}
	chosen, other := d.Take.Seats, d.Pass.Seats
	if d.Chosen == engine.Pass {
		chosen, other = other, chosen
	}
	if seat < 0 || seat >= len(chosen) || seat >= len(other) {
		return 0
	}
	return chosen[seat] - other[seat]
}

// markOf finds the better action, the loss of the chosen one and its mark:
// no loss (and no mark) when the difference is within NoiseSE combined
// standard errors.
func markOf(take, pass bot.Estimate, chosen engine.ActionKind) (best engine.ActionKind, loss float64, mark string) {
	best = engine.Take
	if pass.Win > take.Win {
		best = engine.Pass
	}
	chosenWin, otherWin := take.Win, pass.Win
	if chosen == engine.Pass {
		chosenWin, otherWin = pass.Win, take.Win
	}
	l := otherWin - chosenWin
	noise := NoiseSE * math.Sqrt(take.WinSE*take.WinSE+pass.WinSE*pass.WinSE)
	if l <= noise {
		return best, 0, MarkNone
	}
	return best, round4(l), MarkFor(l)
}

// MarkFor names a loss that is beyond noise.
func MarkFor(loss float64) string {
	switch {
	case loss >= Blunder:
		return MarkBlunder
	case loss >= Mistake:
		return MarkMistake
	case loss >= Inaccuracy:
		return MarkInaccuracy
	}
	return MarkNone
}

// DecisionAccuracy scores one decision from 0 to 100.
func DecisionAccuracy(loss float64) float64 {
	return 100 * math.Max(0, 1-loss/ZeroAccuracyLoss)
}

func (d Decision) chosen() Option {
	if d.Chosen == engine.Pass {
		return d.Pass
	}
	return d.Take
}

// runningScores is every seat's score so far: earlier rounds' totals plus
// the round in play's card points less tokens.
func runningScores(eg *engine.Game) []int {
	v := eg.OpenView()
	out := make([]int, len(v.Seats))
	for i, s := range v.Seats {
		out[i] = v.Totals[i]
		if !v.Finished && (len(v.Results) < v.Round) {
			out[i] += s.CardPoints
			if s.Tokens != nil {
				out[i] -= *s.Tokens
			}
		}
	}
	return out
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
func round2(x float64) float64 { return math.Round(x*100) / 100 }
func round4(x float64) float64 { return math.Round(x*10000) / 10000 }
