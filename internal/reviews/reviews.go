// Package reviews runs the post-game analysis as background work and
// serves it: a finished game with a person at the table is queued in the
// transaction that finishes it; any instance's worker claims the job from
// Postgres (a lease, so a worker that dies loses nothing), analyses it with
// a fixed search per decision, and stores the report and each person's
// accuracy. The judging itself is package analysis.
package reviews

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"nothanks/internal/analysis"
	"nothanks/internal/apperr"
	"nothanks/internal/background"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
)

// Store is what the service needs of the database.
type Store interface {
	ClaimAnalysis(ctx context.Context, now time.Time, lease time.Duration, maxAttempts int) (int64, bool, error)
	SaveAnalysis(ctx context.Context, gameID int64, report []byte, acc []db.AccuracyRow, now time.Time) (bool, error)
	FailAnalysis(ctx context.Context, gameID int64, why string, maxAttempts int) error
	AnalysisOf(ctx context.Context, gameID int64) (db.Analysis, error)
	DeepAnalysis(ctx context.Context, gameID int64, move int) ([]byte, error)
	SaveDeepAnalysis(ctx context.Context, gameID int64, move int, report []byte, now time.Time) error
	RecentAccuracy(ctx context.Context, userID int64, n int) (db.AccuracySummary, error)
}

// Lease is how long a worker holds a job before another may take it over;
// MaxAttempts is how often a job is tried before it stays failed.
const (
	Lease       = 5 * time.Minute
	MaxAttempts = 3
)

// Service analyses finished games and serves the results.
type Service struct {
	store Store
	games *games.Service
	clock clock.Clock
	log   *slog.Logger
	// Playouts is each decision's search in the background analysis.
	Playouts int
	// Share is the part of one core the analysis may take while the
	// site is being played on (Busy): after a game that took d, the worker
	// waits d × (1/Share − 1) before the next. 1 or more: no wait.
	Share float64
	// Busy reports whether people are playing on this instance now (nil:
	// never).
	Busy func() bool
	deep chan struct{} // one deeper look at a time per instance
}

// New makes the service.
func New(store Store, g *games.Service, clk clock.Clock, log *slog.Logger) *Service {
	return &Service{store: store, games: g, clock: clk, log: log, Playouts: analysis.Playouts, deep: make(chan struct{}, 1)}
}

// Result is a game's analysis as its readers see it.
type Result struct {
	// Status is queued, running, done or failed; "none" for a game that
	// is not analysed (no person played, or it is not over).
	Status string
	Report *analysis.Report
	// Names are the seats' names, for showing the report.
	Names []string
}

// RunOnce analyses the games waiting, one at a time, until none waits or
// ctx ends, and returns how many it analysed.
func (s *Service) RunOnce(ctx context.Context) (int, error) {
	return background.Queue{
		Name: "analysis",
		Claim: func(ctx context.Context) (int64, bool, error) {
			return s.store.ClaimAnalysis(ctx, s.clock.Now(), Lease, MaxAttempts)
		},
		Work: func(ctx context.Context, id int64) (int, error) { return 1, s.analyse(ctx, id) },
		Fail: func(ctx context.Context, id int64, why string) error {
			return s.store.FailAnalysis(ctx, id, why, MaxAttempts)
		},
		Share: s.Share, Busy: s.Busy, Log: s.log,
	}.RunOnce(ctx)
}

// Run analyses waiting games every period until ctx ends.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	background.Every(ctx, every, s.log, "analysis worker", s.RunOnce)
}

// analyse analyses a game and stores its report.
func (s *Service) analyse(ctx context.Context, gameID int64) error {
	g, st, err := s.load(ctx, gameID)
	if err != nil {
		return err
	}
	start := time.Now()
	rep, err := analysis.Analyse(g, s.Playouts)
	if err != nil {
		return err
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	var acc []db.AccuracyRow
	for _, p := range rep.Players {
		if seat := seatAt(st.Seats, p.Seat); seat != nil && seat.UserID != nil && p.Judged > 0 {
			acc = append(acc, db.AccuracyRow{UserID: *seat.UserID, Accuracy: p.Accuracy, Decisions: p.Judged})
		}
	}
	saved, err := s.store.SaveAnalysis(ctx, gameID, b, acc, s.clock.Now())
	if err != nil {
		return err
	}
	s.log.Info("game analysed", "game", gameID, "decisions", len(rep.Decisions), "took", time.Since(start).Round(time.Millisecond), "saved", saved)
	return nil
}

// load reads a finished game as the analysis needs it.
func (s *Service) load(ctx context.Context, gameID int64) (analysis.Game, *games.State, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return analysis.Game{}, nil, err
	}
	g, err := GameOf(st)
	return g, st, err
}

// GameOf is a finished game as the analysis (and the puzzles' search)
// needs it: its deals, every action, and which seats are people's.
func GameOf(st *games.State) (analysis.Game, error) {
	if st.Game.Status != db.StatusFinished || !st.Started() {
		return analysis.Game{}, errors.New("reviews: the game is not over")
	}
	setup, err := games.SetupOf(st.Game, st.Options)
	if err != nil {
		return analysis.Game{}, err
	}
	g := analysis.Game{ID: st.Game.ID, Options: st.Options, Setup: setup}
	for _, e := range st.Engine().Events() {
		if a, ok := e.Action(); ok {
			g.Actions = append(g.Actions, a)
		}
	}
	g.Judge = make([]bool, st.Options.Players)
	for i := range g.Judge {
		// People's seats: accounts, and the names of an imported game
		// that its text does not give to a bot.
		if seat := seatAt(st.Seats, i); seat != nil && (seat.UserID != nil || seat.ImportName != nil && seat.ImportBot == nil) {
			g.Judge[i] = true
		}
	}
	return g, nil
}

func seatAt(seats []db.Seat, n int) *db.Seat {
	for i := range seats {
		if seats[i].Seat != nil && *seats[i].Seat == n {
			return &seats[i]
		}
	}
	return nil
}

// Of returns a game's analysis for a viewer who may see the game.
func (s *Service) Of(ctx context.Context, viewerID *int64, gameID int64) (Result, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return Result{}, err
	}
	if !st.CanSee(viewerID, "") {
		return Result{}, games.ErrNoGame
	}
	r := Result{Status: "none"}
	for i := 0; i < st.Options.Players; i++ {
		if seat := seatAt(st.Seats, i); seat != nil {
			r.Names = append(r.Names, games.Name(*seat))
		}
	}
	a, err := s.store.AnalysisOf(ctx, gameID)
	if errors.Is(err, db.ErrNotFound) {
		return r, nil
	}
	if err != nil {
		return Result{}, err
	}
	r.Status = a.Status
	if a.Status == db.AnalysisDone && len(a.Report) > 0 {
		var rep analysis.Report
		if err := json.Unmarshal(a.Report, &rep); err != nil {
			return Result{}, fmt.Errorf("reviews: report of game %d: %w", gameID, err)
		}
		r.Report = &rep
	}
	return r, nil
}

// ReportOf returns a game's finished analysis report, nil when there is
// none yet; access to the game is the caller's to check.
func (s *Service) ReportOf(ctx context.Context, gameID int64) (*analysis.Report, error) {
	a, err := s.store.AnalysisOf(ctx, gameID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil || a.Status != db.AnalysisDone || len(a.Report) == 0 {
		return nil, err
	}
	var rep analysis.Report
	if err := json.Unmarshal(a.Report, &rep); err != nil {
		return nil, fmt.Errorf("reviews: report of game %d: %w", gameID, err)
	}
	return &rep, nil
}

// ErrBusy is the answer to a deeper look while this instance makes another.
var ErrBusy = apperr.E(apperr.TooMany, "Another deeper analysis is running; try again in a moment.")

// Deep looks at one decision again with a much longer search, once: the
// result is kept. move numbers the decision among the game's decisions.
func (s *Service) Deep(ctx context.Context, viewerID *int64, gameID int64, move int) (analysis.Decision, error) {
	res, err := s.Of(ctx, viewerID, gameID)
	if err != nil {
		return analysis.Decision{}, err
	}
	if res.Report == nil {
		return analysis.Decision{}, apperr.E(apperr.Conflict, "The game's analysis is not ready yet.")
	}
	judged := false
	for _, d := range res.Report.Decisions {
		judged = judged || d.Move == move
	}
	if !judged {
		return analysis.Decision{}, apperr.E(apperr.NotFound, "That move was not a decision of a person between two choices.")
	}
	if b, err := s.store.DeepAnalysis(ctx, gameID, move); err == nil {
		var d analysis.Decision
		if err := json.Unmarshal(b, &d); err == nil {
			return d, nil
		}
	} else if !errors.Is(err, db.ErrNotFound) {
		return analysis.Decision{}, err
	}
	select {
	case s.deep <- struct{}{}:
		defer func() { <-s.deep }()
	default:
		return analysis.Decision{}, ErrBusy
	}
	g, _, err := s.load(ctx, gameID)
	if err != nil {
		return analysis.Decision{}, err
	}
	d, err := analysis.JudgeOne(g, move, analysis.Deep)
	if err != nil {
		return analysis.Decision{}, err
	}
	b, _ := json.Marshal(d)
	if err := s.store.SaveDeepAnalysis(ctx, gameID, move, b, s.clock.Now()); err != nil {
		return analysis.Decision{}, err
	}
	return d, nil
}

// DeepOf returns the deeper look at a decision if one was made (nil if not).
func (s *Service) DeepOf(ctx context.Context, gameID int64, move int) (*analysis.Decision, error) {
	b, err := s.store.DeepAnalysis(ctx, gameID, move)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var d analysis.Decision
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// RecentGames is how many analysed games a profile's accuracy averages.
const RecentGames = 20

// RecentAccuracy is a person's average accuracy over their recent
// analysed games.
func (s *Service) RecentAccuracy(ctx context.Context, userID int64) (db.AccuracySummary, error) {
	return s.store.RecentAccuracy(ctx, userID, RecentGames)
}
