// Package leavers is what the site does about players who leave their
// games (docs/fair-play.md): leaving a game in play honestly, with what
// it costs said first; the reliability figure shown beside every name;
// rated abandonments and the growing pauses from rated play they bring;
// and the player's appeal of one, which a moderator answers. The rules
// themselves are in package reliability; the games service tells this one
// of every abandoned seat, inside the transaction that abandons it.
package leavers

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/reliability"
)

// Service is the leavers' use cases.
type Service struct {
	store *db.Store
	games *games.Service
	clock clock.Clock
	mu    sync.Mutex
	cache map[int64]cachedFigure
}

// New returns the service and makes the games service tell it of every
// abandoned seat.
func New(store *db.Store, g *games.Service, clk clock.Clock) *Service {
	s := &Service{store: store, games: g, clock: clk, cache: map[int64]cachedFigure{}}
	g.OnAbandon(s.abandoned)
	g.OnRatedSeat(s.gate)
	return s
}

// gate refuses a rated seat to a player paused now (the games service
// asks it inside the transaction that would seat them).
func (s *Service) gate(ctx context.Context, tx *db.Tx, userID int64) error {
	a, err := tx.PauseOf(ctx, userID, s.clock.Now())
	if err != nil {
		return err
	}
	if a != nil {
		return ErrPaused(*a)
	}
	return nil
}

// FigureOf turns a stored record into the rules' figure.
func FigureOf(r db.Reliability) reliability.Figure {
	return reliability.Figure{Games: r.Games, Kept: r.Kept, Timeouts: r.Timeouts, Decisions: r.Decisions}
}

// Figure is an account's reliability.
func (s *Service) Figure(ctx context.Context, userID int64) (reliability.Figure, error) {
	r, err := s.store.ReliabilityOf(ctx, userID)
	if err != nil {
		return reliability.Figure{}, apperr.Wrap(err, apperr.Internal, "could not read the reliability")
	}
	return FigureOf(r), nil
}

// Figures are the reliability of many accounts (every one asked for is
// in the answer; those without a finished game are new).
func (s *Service) Figures(ctx context.Context, userIDs []int64) (map[int64]reliability.Figure, error) {
	rs, err := s.store.ReliabilityOfUsers(ctx, userIDs)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the reliability")
	}
	out := make(map[int64]reliability.Figure, len(userIDs))
	for _, id := range userIDs {
		out[id] = FigureOf(rs[id])
	}
	return out, nil
}

// abandoned records a rated game's abandoned seat and the pause it
// brings: its step in the player's run and, from the second on, a pause
// from rated play that starts now. Casual games, the server's bots and
// bot accounts bring none.
func (s *Service) abandoned(ctx context.Context, tx *db.Tx, g db.Game, seat db.Seat, how string, now time.Time) error {
	if !g.Ranked || seat.UserID == nil || seat.BotAccount {
		return nil
	}
	prev, err := tx.LastCountingAbandonment(ctx, *seat.UserID)
	if err != nil {
		return err
	}
	a := db.Abandonment{UserID: *seat.UserID, GameID: g.ID, How: how, At: now}
	a.Step, a.PauseUntil = nextStep(prev, now)
	return tx.AddAbandonment(ctx, a)
}

// nextStep is the step a rated abandonment at now takes after the
// player's last one that counts (nil: none), and the end of the pause it
// brings (nil: none).
func nextStep(prev *db.Abandonment, now time.Time) (int, *time.Time) {
	var prevAt *time.Time
	prevStep := 0
	if prev != nil {
		prevAt, prevStep = &prev.At, prev.Step
	}
	step := reliability.Step(prevAt, prevStep, now)
	if d := reliability.PauseFor(step); d > 0 {
		until := now.Add(d)
		return step, &until
	}
	return step, nil
}

// ErrPaused is a refusal of rated play to a paused player, with when the
// pause ends (the API gives it as until, with Retry-After).
func ErrPaused(a db.Abandonment) error {
	e := apperr.E(apperr.Paused, "You abandoned rated games %d times in a row, so you are paused from rated play (the ranked queue, ranked tables and rated tournaments) until %s. See your record on your reliability page.",
		a.Step, a.PauseUntil.UTC().Format("2006-01-02 15:04 MST"))
	e.Until = *a.PauseUntil
	return e
}

// CheckRated refuses rated play to a player whose pause holds now (bot
// accounts are never paused). The queue, ranked tables and rated events
// call it where a player asks to play; the matcher leaves a paused
// player waiting in the queue aside too.
func (s *Service) CheckRated(ctx context.Context, u db.User) error {
	a, err := s.PauseOf(ctx, u)
	if err != nil {
		return err
	}
	if a != nil {
		return ErrPaused(*a)
	}
	return nil
}

// CheckRatedID is CheckRated for a user known by id.
func (s *Service) CheckRatedID(ctx context.Context, userID int64) error {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not load the player")
	}
	return s.CheckRated(ctx, u)
}

// PauseOf is the pause from rated play that holds a player now (nil:
// none; bot accounts never have one).
func (s *Service) PauseOf(ctx context.Context, u db.User) (*db.Abandonment, error) {
	if u.Bot {
		return nil, nil
	}
	a, err := s.store.PauseOf(ctx, u.ID, s.clock.Now())
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the pauses")
	}
	return a, nil
}

// Record is a player's own reliability page: the figure, the pause that
// holds them (nil: none), and their rated abandonments with any appeal.
type Record struct {
	Figure       reliability.Figure
	Pause        *db.Abandonment
	Abandonments []db.Abandonment
}

// RecordOf reads a player's record.
func (s *Service) RecordOf(ctx context.Context, userID int64) (Record, error) {
	var r Record
	var err error
	if r.Figure, err = s.Figure(ctx, userID); err != nil {
		return r, err
	}
	if r.Pause, err = s.store.PauseOf(ctx, userID, s.clock.Now()); err != nil {
		return r, apperr.Wrap(err, apperr.Internal, "could not read the pauses")
	}
	if r.Abandonments, err = s.store.Abandonments(ctx, userID, 50); err != nil {
		return r, apperr.Wrap(err, apperr.Internal, "could not read the abandonments")
	}
	return r, nil
}

// Cost is what leaving a game in play would cost a player, for the
// confirmation they read first.
type Cost struct {
	GameID int64
	Ranked bool
	// Tournament: the event the game belongs to (0: none).
	Tournament int64
	// Step and Pause: the place the leave would take in the player's run
	// of rated abandonments, and the pause from rated play it would bring
	// (a ranked game only).
	Step  int
	Pause time.Duration
}

// LeaveCost says what leaving a game would cost the player, refusing as
// Leave would refuse.
func (s *Service) LeaveCost(ctx context.Context, u db.User, gameID int64) (Cost, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return Cost{}, err
	}
	if err := games.CanAbandon(st, u.ID); err != nil {
		return Cost{}, err
	}
	c := Cost{GameID: gameID, Ranked: st.Game.Ranked}
	if st.Game.TournamentID != nil {
		c.Tournament = *st.Game.TournamentID
	}
	if c.Ranked && !u.Bot {
		prev, err := s.store.LastCountingAbandonment(ctx, u.ID)
		if err != nil {
			return Cost{}, apperr.Wrap(err, apperr.Internal, "could not read the abandonments")
		}
		now := s.clock.Now()
		var until *time.Time
		if c.Step, until = nextStep(prev, now); until != nil {
			c.Pause = until.Sub(now)
		}
	}
	return c, nil
}

// Leave lets a player leave a game in play (games.Abandon): the seat is
// abandoned at once, the server plays it, the player places last.
func (s *Service) Leave(ctx context.Context, userID, gameID int64) (*games.State, error) {
	return s.games.Abandon(ctx, userID, gameID)
}

// Appeal length, in characters.
const (
	MinAppeal = 10
	MaxAppeal = 1000
)

// Appeal is a player's appeal of one of their rated abandonments (once
// each): the text a moderator reads before forgiving or upholding it.
func (s *Service) Appeal(ctx context.Context, userID, id int64, text string) error {
	text = strings.TrimSpace(text)
	if n := utf8.RuneCountInString(text); n < MinAppeal || n > MaxAppeal || !utf8.ValidString(text) {
		return apperr.FieldErrors{"appeal": i18n.M("Say in 10 to 1,000 characters why this abandonment should not count.")}.Err()
	}
	a, err := s.store.AbandonmentByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) || err == nil && a.UserID != userID {
		return apperr.E(apperr.NotFound, "You have no such abandonment to appeal.")
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not read the abandonment")
	}
	ok, err := s.store.AppealAbandonment(ctx, userID, id, text, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not store the appeal")
	}
	if !ok {
		return apperr.E(apperr.Conflict, "You appealed this abandonment already: a moderator answers each appeal once.")
	}
	return nil
}

// OpenAppeals lists the appeals waiting for a moderator.
func (s *Service) OpenAppeals(ctx context.Context, admin db.User) ([]db.OpenAppeal, error) {
	if !admin.Admin || !admin.Active() {
		return nil, apperr.E(apperr.Forbidden, "Only moderators may do that.")
	}
	out, err := s.store.OpenAppeals(ctx, 100)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the appeals")
	}
	return out, nil
}

// Answer is a moderator's answer to an appeal: forgive (the abandonment
// counts no more and its pause ends now) or uphold, with a note the
// player reads; it is in the moderation log. A moderator does not answer
// their own appeal.
func (s *Service) Answer(ctx context.Context, admin db.User, id int64, forgive bool, note string) error {
	if !admin.Admin || !admin.Active() {
		return apperr.E(apperr.Forbidden, "Only moderators may do that.")
	}
	a, err := s.store.AbandonmentByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return apperr.E(apperr.NotFound, "There is no such appeal.")
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not read the appeal")
	}
	if a.UserID == admin.ID {
		return apperr.E(apperr.Forbidden, "Another moderator answers an appeal of yours.")
	}
	note = strings.TrimSpace(note)
	if utf8.RuneCountInString(note) > MaxAppeal {
		return apperr.FieldErrors{"note": i18n.M("A note has at most 1,000 characters.")}.Err()
	}
	answer := db.AppealUpheld
	if forgive {
		answer = db.AppealForgiven
	}
	ok, err := s.store.AnswerAppeal(ctx, id, admin.ID, answer, note, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not store the answer")
	}
	if !ok {
		return apperr.E(apperr.Conflict, "This appeal was answered already.")
	}
	return nil
}

// Shown figures are read through a cache of the process: a board is
// drawn once per version and view, and a list once per request, each
// with its names' figures, which change only when a game of theirs ends.
// A figure is at most FigureFresh old; the cache holds at most
// figureCacheMax accounts and starts afresh when it is full.
const (
	FigureFresh    = 30 * time.Second
	figureCacheMax = 20000
)

type cachedFigure struct {
	f  reliability.Figure
	at time.Time
}

// Shown gives the figures of the accounts named, for pages and boards:
// from the cache where fresh, the rest in one read.
func (s *Service) Shown(ctx context.Context, userIDs []int64) (map[int64]reliability.Figure, error) {
	now := s.clock.Now()
	out := make(map[int64]reliability.Figure, len(userIDs))
	var missing []int64
	s.mu.Lock()
	for _, id := range userIDs {
		if c, ok := s.cache[id]; ok && now.Sub(c.at) < FigureFresh && !now.Before(c.at) {
			out[id] = c.f
		} else if id != 0 {
			missing = append(missing, id)
		}
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := s.Figures(ctx, missing)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.cache)+len(got) > figureCacheMax {
		s.cache = map[int64]cachedFigure{}
	}
	for id, f := range got {
		out[id] = f
		s.cache[id] = cachedFigure{f: f, at: now}
	}
	s.mu.Unlock()
	return out, nil
}
