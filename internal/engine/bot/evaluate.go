package bot

import (
	"math"
	"math/rand/v2"
	"slices"

	"nothanks/internal/engine"
)

// Estimate is what the search expects of one action of the seat to play.
type Estimate struct {
	// Legal reports whether the action may be played now; an illegal
	// action's estimate is otherwise zero.
	Legal bool
	// Win is the seat's expected share of the game's win: exact after the
	// last round (a shared win split), before it the chance that the lead
	// holds over the rounds to come. WinSE is its standard error.
	Win, WinSE float64
	// Diff is the seat's expected score for the round less the mean of
	// the other seats' (negative is better than the table). DiffSE is its
	// standard error.
	Diff, DiffSE float64
	// CardPoints is the seat's expected card points at the end of the
	// round, and Score its expected round score (card points less
	// tokens), on the same line of play as Win; their standard errors
	// come from the spread of the playouts that began with the action,
	// like WinSE. They are reported only: the search chooses by Win and
	// the margin (see outcome), never by these.
	CardPoints, CardPointsSE float64
	Score, ScoreSE           float64
	// Playouts is how many playouts began with the action.
	Playouts int
	// Seats is every seat's mean share of the win over those playouts
	// (the deciding seat's raw mean, not Win's best line after it): what
	// the action hands the others, for judging who a mistake helped.
	Seats [engine.MaxPlayers]float64
}

// Evaluate estimates both actions of the seat whose view v is, for judging
// a decision after the game: the search of SearchBot with its playouts
// split evenly between taking and passing, each followed by the best play
// the search finds. With a budget of Iterations only (no Time) the result
// depends only on v and the state of rng, so the same seed gives the same
// estimates. It reads nothing but the view, like every bot.
//
// The standard errors treat the playouts as independent draws; they are a
// guide to how far two estimates may be told apart, not exact. The Hidden
// Tiger is not weighed: with it in hand both estimates assume it is kept.
func Evaluate(v engine.View, budget Budget, rng *rand.Rand) (take, pass Estimate) {
	canTake := slices.Contains(v.Legal, engine.Take)
	canPass := slices.Contains(v.Legal, engine.Pass)
	if !canTake {
		return Estimate{}, Estimate{}
	}
	s := newSearch(v, budget, canPass)
	s.run(orSeeded(rng, v))
	tv, pv := s.rootValues()
	l := &s.chain[0]
	take = estimate(tv, &l.take)
	take.Seats = s.seatMeans(actTake)
	if canPass {
		pass = estimate(pv, &l.pass)
		pass.Seats = s.seatMeans(actPass)
	}
	return take, pass
}

// seatMeans is every seat's mean win over the playouts that began with
// act at the root.
func (s *search) seatMeans(act int) (out [engine.MaxPlayers]float64) {
	if n := s.seatN[act]; n > 0 {
		for j := range s.root.n {
			out[j] = s.seatWin[act][j] / n
		}
	}
	return out
}

// estimate reports a value with standard errors from the spread of the
// root playouts that began with the action.
func estimate(v value, s *sums) Estimate {
	e := Estimate{Legal: true, Win: v.win, Diff: v.diff, CardPoints: v.points, Score: v.score, Playouts: int(s.n)}
	if s.n > 1 {
		e.WinSE = math.Sqrt(spread(s.win, s.win2, s.n) / s.n)
		e.DiffSE = math.Sqrt(spread(s.diff, s.diff2, s.n) / s.n)
		e.CardPointsSE = math.Sqrt(spread(s.points, s.points2, s.n) / s.n)
		e.ScoreSE = math.Sqrt(spread(s.score, s.score2, s.n) / s.n)
	}
	return e
}

// spread is the sample variance of n values with the given sum and sum of
// squares.
func spread(sum, sum2, n float64) float64 {
	m := sum / n
	return max(sum2/n-m*m, 0) * n / (n - 1)
}
