// Package puzzleplay is the site's puzzles: the background work that
// mines finished public games for them (claimed from Postgres, a lease,
// held to a share of a core while people play), serving a puzzle near a
// solver's rating, of a theme if asked, the puzzle of the day, answers
// step by step, and the Glicko-2 ratings of solvers and puzzles. Finding
// a puzzle is package puzzles (the analysis search from the deciding
// seat's own view); the ratings are package glicko2. A solver sees
// exactly what the deciding player saw: the view of that seat, never the
// game it came from until the attempt is over. It knows nothing of HTTP.
package puzzleplay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"nothanks/internal/analysis"
	"nothanks/internal/apperr"
	"nothanks/internal/background"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/glicko2"
	"nothanks/internal/puzzles"
	"nothanks/internal/reviews"
)

// Lease and MaxAttempts of the mining work.
const (
	Lease       = 10 * time.Minute
	MaxAttempts = 3
)

// Service mines, serves and rates puzzles.
type Service struct {
	store *db.Store
	games *games.Service
	clock clock.Clock
	log   *slog.Logger
	// Config is the mining search (puzzles.DefaultConfig).
	Config puzzles.Config
	// Share and Busy hold the mining to a share of a core while people
	// play on the instance, as the analysis is held (reviews.Service).
	Share float64
	Busy  func() bool
	// Batch is how many games one RunOnce mines at most (0: all waiting),
	// so that the analysis of newly finished games goes first.
	Batch int
}

// New makes the service.
func New(store *db.Store, g *games.Service, clk clock.Clock, log *slog.Logger) *Service {
	return &Service{store: store, games: g, clock: clk, log: log, Config: puzzles.DefaultConfig()}
}

// ErrNoPuzzle is a puzzle id that is not one.
var ErrNoPuzzle = apperr.E(apperr.NotFound, "No such puzzle.")

// RunOnce mines the games waiting, one at a time, until none waits, Batch
// are mined or ctx ends, and returns how many puzzles it found.
func (s *Service) RunOnce(ctx context.Context) (int, error) {
	return background.Queue{
		Name: "puzzle mining",
		Claim: func(ctx context.Context) (int64, bool, error) {
			return s.store.ClaimPuzzleMining(ctx, s.clock.Now(), Lease, MaxAttempts)
		},
		Work: s.mine,
		Fail: func(ctx context.Context, id int64, why string) error {
			return s.store.FailPuzzleMining(ctx, id, why, MaxAttempts)
		},
		Share: s.Share, Busy: s.Busy, Log: s.log, Max: s.Batch,
	}.RunOnce(ctx)
}

// Run mines waiting games every period until ctx ends.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	background.Every(ctx, every, s.log, "puzzle mining", s.RunOnce)
}

// ObviousBelow is how far below glicko2.Start an obvious puzzle (one the
// one-line heuristic answers right) starts: 9 in 10 mined puzzles are
// obvious, and a new solver at 1500 should meet the others first. The
// attempts then move every puzzle to where it belongs.
const ObviousBelow = 300

// StartOf is a new puzzle's first rating.
func StartOf(p puzzles.Puzzle) glicko2.Rating {
	r := glicko2.Start
	if p.Obvious {
		r.R -= ObviousBelow
	}
	return r
}

// mine finds a game's puzzles and stores them.
func (s *Service) mine(ctx context.Context, gameID int64) (int, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return 0, err
	}
	if !st.Game.Public || st.Game.Imported {
		return 0, s.store.SavePuzzles(ctx, gameID, nil, s.clock.Now())
	}
	g, err := reviews.GameOf(st)
	if err != nil {
		return 0, err
	}
	ps, err := puzzles.Mine(g, s.Config)
	if err != nil {
		return 0, err
	}
	rows := make([]db.NewPuzzle, 0, len(ps))
	for _, p := range ps {
		data, err := json.Marshal(p)
		if err != nil {
			return 0, err
		}
		start := StartOf(p)
		rows = append(rows, db.NewPuzzle{Move: p.Move, Seat: p.Seat, Steps: len(p.Line), Best: string(p.Best), Themes: p.Themes, Margin: p.Margin,
			Obvious: p.Obvious, Data: data, Start: db.Rating3{R: start.R, RD: start.RD, Sigma: start.Sigma}})
	}
	if err := s.store.SavePuzzles(ctx, gameID, rows, s.clock.Now()); err != nil {
		return 0, err
	}
	return len(rows), nil
}

// Shown is one step of a puzzle as its solver sees it: the deciding
// seat's view there and nothing more. Answer is set once the step (or the
// whole attempt) is answered.
type Shown struct {
	ID     int64
	Step   int
	Steps  int
	Themes []string
	// View is the deciding seat's view at the step.
	View engine.View
	// Replies are the table's actions since the previous step (after a
	// right answer), from the game's public log.
	Replies []engine.Event
	// Rated: the solver is a member whose attempt changes ratings; their
	// rating now (nil before their first puzzle).
	Rated  bool
	Rating *db.SolverRating
	// Over is the attempt's end (a member's finished attempt, shown again).
	Over *Outcome
}

// Outcome is how an attempt ended, with everything it may now tell: the
// answer and the expected card points and score of each choice at every
// step, the game it came from, the ratings' changes.
type Outcome struct {
	Solved bool
	Line   []puzzles.Step
	GameID int64
	// The puzzle's rating after, and the solver's change (members).
	PuzzleRating  float64
	SolverBefore  float64
	SolverAfter   float64
	Rated         bool
	PuzzleAttempt int
	PuzzleSolved  int
}

// decode reads a stored puzzle's line.
func decode(p db.Puzzle) (puzzles.Puzzle, error) {
	var pz puzzles.Puzzle
	if err := json.Unmarshal(p.Data, &pz); err != nil {
		return pz, fmt.Errorf("puzzleplay: puzzle %d: %w", p.ID, err)
	}
	if len(pz.Line) == 0 {
		return pz, fmt.Errorf("puzzleplay: puzzle %d has no line", p.ID)
	}
	return pz, nil
}

// gameOf reads the finished game a puzzle came from.
func (s *Service) gameOf(ctx context.Context, p db.Puzzle) (analysis.Game, error) {
	st, err := s.games.State(ctx, p.GameID)
	if err != nil {
		return analysis.Game{}, err
	}
	return reviews.GameOf(st)
}

// rated reports whether a solver's attempts are rated: members' are;
// visitors (nil) and guest accounts solve without a rating.
func rated(u *db.User) bool { return u != nil && !u.Guest }

// show builds what the solver sees at a step of a puzzle.
func (s *Service) show(ctx context.Context, u *db.User, p db.Puzzle, step int) (Shown, error) {
	pz, err := decode(p)
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle")
	}
	g, err := s.gameOf(ctx, p)
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle's game")
	}
	step = min(max(step, 0), len(pz.Line)-1)
	v, err := puzzles.View(g, pz.Line[step].Move)
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not rebuild the puzzle")
	}
	sh := Shown{ID: p.ID, Step: step, Steps: len(pz.Line), Themes: p.Themes, View: v, Rated: rated(u)}
	if step > 0 {
		sh.Replies = pz.Line[step-1].Replies
	}
	if sh.Rated {
		r, ok, err := s.store.SolverRatingOf(ctx, u.ID)
		if err != nil {
			return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read your puzzle rating")
		}
		if ok {
			sh.Rating = &r
		}
	}
	return sh, nil
}

// Next is a puzzle for the solver near their rating (visitors and guests:
// near 1500), of theme if one is given, none they tried or played in;
// skip holds ids a visitor saw lately.
func (s *Service) Next(ctx context.Context, u *db.User, theme string, skip []int64) (Shown, error) {
	if theme != "" && !slices.Contains(puzzles.ThemeNames(), theme) {
		return Shown{}, apperr.E(apperr.Invalid, "There is no theme %q.", theme)
	}
	var userID int64
	rating := glicko2.Start.R
	if u != nil {
		userID = u.ID
	}
	if rated(u) {
		if r, ok, err := s.store.SolverRatingOf(ctx, u.ID); err != nil {
			return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read your puzzle rating")
		} else if ok {
			rating = r.R
		}
	}
	p, err := s.store.NextPuzzle(ctx, userID, rating, theme, skip)
	if errors.Is(err, db.ErrNotFound) {
		if theme != "" {
			return Shown{}, apperr.E(apperr.NotFound, "No puzzle of this theme is left for you: try another theme.")
		}
		return Shown{}, apperr.E(apperr.NotFound, "No puzzle is left for you yet: new ones come from the games people finish.")
	}
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not find a puzzle")
	}
	return s.show(ctx, u, p, 0)
}

// Show is a puzzle where the solver is in it: a member's open attempt at
// its next step, a finished one with its outcome; a visitor at step.
func (s *Service) Show(ctx context.Context, u *db.User, id int64, step int) (Shown, error) {
	p, err := s.store.PuzzleByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return Shown{}, ErrNoPuzzle
	}
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle")
	}
	if !rated(u) {
		return s.show(ctx, u, p, step)
	}
	a, ok, err := s.store.AttemptOf(ctx, u.ID, id)
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read your attempt")
	}
	if !ok {
		return s.show(ctx, u, p, 0)
	}
	if a.Status == "open" {
		return s.show(ctx, u, p, a.Progress)
	}
	sh, err := s.show(ctx, u, p, 0)
	if err != nil {
		return Shown{}, err
	}
	o, err := s.outcome(p, a.Status == "solved", true, deref(a.RatingBefore), deref(a.RatingAfter))
	if err != nil {
		return Shown{}, err
	}
	sh.Over = &o
	return sh, nil
}

func deref(x *float64) float64 {
	if x == nil {
		return 0
	}
	return *x
}

// Daily is the puzzle of the day (UTC).
func (s *Service) Daily(ctx context.Context, u *db.User) (Shown, error) {
	p, err := s.store.DailyPuzzle(ctx, s.clock.Now())
	if errors.Is(err, db.ErrNotFound) {
		return Shown{}, apperr.E(apperr.NotFound, "There is no puzzle yet: they come from the games people finish.")
	}
	if err != nil {
		return Shown{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle of the day")
	}
	return s.Show(ctx, u, p.ID, 0)
}

func (s *Service) outcome(p db.Puzzle, solved, isRated bool, before, after float64) (Outcome, error) {
	pz, err := decode(p)
	if err != nil {
		return Outcome{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle")
	}
	return Outcome{Solved: solved, Line: pz.Line, GameID: p.GameID, PuzzleRating: p.R, SolverBefore: before, SolverAfter: after,
		Rated: isRated, PuzzleAttempt: p.Attempts, PuzzleSolved: p.Solved}, nil
}

// Answered is what an answer did: right or not, the next step to answer
// (a right answer with more to come), or the outcome.
type Answered struct {
	Right bool
	Next  *Shown
	Over  *Outcome
}

// Answer takes the solver's choice at a step of a puzzle. A member's
// attempt is kept: the first wrong answer ends it failed, the last right
// one solved, and either changes both ratings (glicko2.Game); answering a
// step again, or a puzzle whose attempt is over, is refused with nothing
// changed. A visitor's or guest's answer is only checked.
func (s *Service) Answer(ctx context.Context, u *db.User, id int64, step int, choice engine.ActionKind) (Answered, error) {
	if choice != engine.Take && choice != engine.Pass {
		return Answered{}, apperr.E(apperr.Invalid, "Answer take or pass.")
	}
	p, err := s.store.PuzzleByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return Answered{}, ErrNoPuzzle
	}
	if err != nil {
		return Answered{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle")
	}
	pz, err := decode(p)
	if err != nil {
		return Answered{}, apperr.Wrap(err, apperr.Internal, "could not read the puzzle")
	}
	if step < 0 || step >= len(pz.Line) {
		return Answered{}, apperr.E(apperr.Invalid, "The puzzle has %d steps: answer step 1 to %d.", len(pz.Line), len(pz.Line))
	}
	right := pz.Line[step].Best == choice
	last := step == len(pz.Line)-1
	if !rated(u) {
		return s.answered(ctx, u, p, step, right, last, false, 0, 0)
	}
	var before, after float64
	_, err = s.store.AnswerPuzzle(ctx, u.ID, id, step, s.clock.Now(), func(a *db.PuzzleAttempt, lp db.Puzzle, r *db.SolverRating) (db.AnswerStep, error) {
		st := db.AnswerStep{Answer: string(choice), Progress: step}
		if right {
			st.Progress = step + 1
		}
		if right && !last {
			return st, nil
		}
		st.Finish, st.Solved = true, right
		solver := glicko2.Start
		if r != nil {
			solver = glicko2.Rating{R: r.R, RD: r.RD, Sigma: r.Sigma}
		}
		puzzle := glicko2.Rating{R: lp.R, RD: lp.RD, Sigma: lp.Sigma}
		score := 0.0
		if right {
			score = 1
		}
		ns, np := glicko2.Game(solver, puzzle, score, glicko2.Tau)
		st.SolverBefore, st.SolverAfter = db.Rating3{R: solver.R, RD: solver.RD, Sigma: solver.Sigma}, db.Rating3{R: ns.R, RD: ns.RD, Sigma: ns.Sigma}
		st.PuzzleBefore, st.PuzzleAfter = db.Rating3{R: puzzle.R, RD: puzzle.RD, Sigma: puzzle.Sigma}, db.Rating3{R: np.R, RD: np.RD, Sigma: np.Sigma}
		before, after = solver.R, ns.R
		return st, nil
	})
	if errors.Is(err, db.ErrAnswered) {
		return Answered{}, apperr.E(apperr.Conflict, "This step of the puzzle is answered already: each puzzle is answered once.")
	}
	if errors.Is(err, db.ErrNotFound) {
		return Answered{}, ErrNoPuzzle
	}
	if err != nil {
		return Answered{}, apperr.Wrap(err, apperr.Internal, "could not keep your answer")
	}
	return s.answered(ctx, u, p, step, right, last, true, before, after)
}

func (s *Service) answered(ctx context.Context, u *db.User, p db.Puzzle, step int, right, last, isRated bool, before, after float64) (Answered, error) {
	out := Answered{Right: right}
	if right && !last {
		next, err := s.show(ctx, u, p, step+1)
		if err != nil {
			return Answered{}, err
		}
		out.Next = &next
		return out, nil
	}
	// Read again: the attempt changed the puzzle's rating and counts.
	if isRated {
		if q, err := s.store.PuzzleByID(ctx, p.ID); err == nil {
			p = q
		}
	}
	o, err := s.outcome(p, right, isRated, before, after)
	if err != nil {
		return Answered{}, err
	}
	out.Over = &o
	return out, nil
}

// Record is a solver's puzzles for their profile: the rating (nil before
// the first), the streak and the latest attempts.
type Record struct {
	Rating  *db.SolverRating
	History []db.PuzzleAttempt
}

// RecordOf reads a solver's puzzle record.
func (s *Service) RecordOf(ctx context.Context, userID int64) (Record, error) {
	var rec Record
	r, ok, err := s.store.SolverRatingOf(ctx, userID)
	if err != nil {
		return rec, apperr.Wrap(err, apperr.Internal, "could not read the puzzle rating")
	}
	if ok {
		rec.Rating = &r
	}
	if rec.History, err = s.store.Attempts(ctx, userID, 20); err != nil {
		return rec, apperr.Wrap(err, apperr.Internal, "could not read the puzzles tried")
	}
	return rec, nil
}

// Themes counts the puzzles of each theme, in the themes' order.
func (s *Service) Themes(ctx context.Context) ([]ThemeCount, int, error) {
	m, err := s.store.PuzzleThemes(ctx)
	if err != nil {
		return nil, 0, apperr.Wrap(err, apperr.Internal, "could not count the puzzles")
	}
	n, err := s.store.CountPuzzles(ctx)
	if err != nil {
		return nil, 0, apperr.Wrap(err, apperr.Internal, "could not count the puzzles")
	}
	var out []ThemeCount
	for _, t := range puzzles.ThemeNames() {
		out = append(out, ThemeCount{Theme: t, Count: m[t]})
	}
	return out, n, nil
}

// ThemeCount is a theme and how many puzzles have it.
type ThemeCount struct {
	Theme string
	Count int
}
