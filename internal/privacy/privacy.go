// Package privacy is a person's own data: its export as JSON (account,
// games, ratings, chat, follows) and the deletion of the account. Deletion
// takes the player away from open tables, hands their seats in games in
// play to the server (as for a player who abandoned), and empties the
// account row but keeps it, so that finished games still show the seat (as
// "deleted player") and everyone's ratings history stays consistent. Their
// sessions end, API tokens stop working, and mail stops.
package privacy

import (
	"context"
	"strconv"
	"time"

	"nothanks/internal/accounts"
	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
)

// Store is what the service needs of the database.
type Store interface {
	DeleteAccount(ctx context.Context, userID int64, at time.Time) ([]string, error)
	UserGames(ctx context.Context, userID int64, limit int) ([]db.GameSummary, error)
	RatingHistory(ctx context.Context, userID int64) ([]db.RatingChange, error)
	ChatBy(ctx context.Context, userID int64) ([]db.ChatMessage, error)
	FollowedNames(ctx context.Context, userID int64, limit int) ([]string, error)
	Blocked(ctx context.Context, userID int64) ([]db.Followed, error)
	ReliabilityOf(ctx context.Context, userID int64) (db.Reliability, error)
	Abandonments(ctx context.Context, userID int64, limit int) ([]db.Abandonment, error)
	ReportsBy(ctx context.Context, reporterID int64, limit int) ([]db.PlayerReport, error)
	DecisionsAbout(ctx context.Context, userID int64) ([]db.FairDecision, error)
	RefundsOf(ctx context.Context, userID int64) ([]db.Refund, error)
	LinkCount(ctx context.Context, userID int64) (devices, networks int, err error)
	SolverRatingOf(ctx context.Context, userID int64) (db.SolverRating, bool, error)
	Attempts(ctx context.Context, userID int64, limit int) ([]db.PuzzleAttempt, error)
}

// Service exports and deletes accounts.
type Service struct {
	store    Store
	accounts *accounts.Service
	games    *games.Service
	clock    clock.Clock
}

// New makes the service.
func New(store Store, acc *accounts.Service, g *games.Service, clk clock.Clock) *Service {
	return &Service{store: store, accounts: acc, games: g, clock: clk}
}

// Delete deletes u's account for good once their password is confirmed.
func (s *Service) Delete(ctx context.Context, u db.User, password string) error {
	if u.Guest {
		return apperr.E(apperr.Invalid, "A guest account is removed by itself a week after it was made; there is nothing to delete.")
	}
	if err := s.accounts.VerifyPassword(ctx, u, password); err != nil {
		return err
	}
	if err := s.games.Depart(ctx, u.ID); err != nil {
		return err
	}
	revoked, err := s.store.DeleteAccount(ctx, u.ID, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not delete the account")
	}
	for _, h := range revoked {
		s.accounts.ForgetToken(h) // here at once; the other instances when they hear
	}
	return nil
}

// Export is everything the site keeps about a person that is theirs to
// take away.
type Export struct {
	ExportedAt time.Time      `json:"exported_at"`
	Account    ExportAccount  `json:"account"`
	Games      []ExportGame   `json:"games"`
	Ratings    []ExportRating `json:"rating_history"`
	Chat       []ExportChat   `json:"chat_messages"`
	Following  []string       `json:"following"`
	Blocked    []string       `json:"blocked"`
	// Reliability is the figure shown beside the name; Abandonments the
	// rated games abandoned, with their pauses and appeals.
	Reliability  ExportReliability   `json:"reliability"`
	Abandonments []ExportAbandonment `json:"abandonments"`
	// FairPlay is the account's reports, the decisions about it with its
	// appeals, the points given back to it, and how many devices and
	// networks are kept for it (as keyed hashes, which say nothing).
	FairPlay ExportFairPlay `json:"fair_play"`
	// Puzzles is the puzzle rating (null before the first) and every
	// attempt.
	Puzzles ExportPuzzles `json:"puzzles"`
}

// ExportPuzzles is the account's puzzles.
type ExportPuzzles struct {
	Rating     *float64        `json:"rating"`
	RD         *float64        `json:"rd,omitempty"`
	Streak     int             `json:"streak"`
	BestStreak int             `json:"best_streak"`
	Attempts   []ExportAttempt `json:"attempts"`
}

// ExportAttempt is one puzzle tried.
type ExportAttempt struct {
	PuzzleID     int64      `json:"puzzle_id"`
	Status       string     `json:"status"`
	Answers      []string   `json:"answers"`
	RatingBefore *float64   `json:"rating_before,omitempty"`
	RatingAfter  *float64   `json:"rating_after,omitempty"`
	StartedAt    time.Time  `json:"started_at"`
	FinishedAt   *time.Time `json:"finished_at,omitempty"`
}

// ExportFairPlay is what fair play keeps about an account.
type ExportFairPlay struct {
	Reports   []ExportReport   `json:"reports"`
	Decisions []ExportDecision `json:"decisions"`
	Refunds   []ExportRefund   `json:"refunds"`
	Devices   int              `json:"devices"`
	Networks  int              `json:"networks"`
}

// ExportReport is a report the account filed.
type ExportReport struct {
	Player    string     `json:"player"`
	GameID    *int64     `json:"game_id,omitempty"`
	Reason    string     `json:"reason"`
	Note      string     `json:"note"`
	CreatedAt time.Time  `json:"created_at"`
	HandledAt *time.Time `json:"handled_at,omitempty"`
	Outcome   *string    `json:"outcome,omitempty"`
}

// ExportDecision is a moderator's decision about the account.
type ExportDecision struct {
	Action     string     `json:"action"`
	Reason     string     `json:"reason"`
	DecidedAt  time.Time  `json:"decided_at"`
	UndoneAt   *time.Time `json:"undone_at,omitempty"`
	Appeal     *string    `json:"appeal,omitempty"`
	AppealedAt *time.Time `json:"appealed_at,omitempty"`
	Answer     *string    `json:"answer,omitempty"`
	AnswerNote *string    `json:"answer_note,omitempty"`
}

// ExportRefund is points given back to the account.
type ExportRefund struct {
	GameID    int64      `json:"game_id"`
	Points    float64    `json:"points"`
	CreatedAt time.Time  `json:"created_at"`
	UndoneAt  *time.Time `json:"undone_at,omitempty"`
}

// ExportAccount is the account's own fields.
type ExportAccount struct {
	Username      string     `json:"username"`
	Email         string     `json:"email"`
	EmailVerified bool       `json:"email_verified"`
	Language      string     `json:"language,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	SilencedUntil *time.Time `json:"chat_silenced_until,omitempty"`
}

// ExportGame is one game the person sat in.
type ExportGame struct {
	ID         int64      `json:"id"`
	URL        string     `json:"url"`
	Status     string     `json:"status"`
	Pace       string     `json:"pace"`
	Ranked     bool       `json:"ranked"`
	Players    []string   `json:"players"`
	Seat       *int       `json:"seat,omitempty"`
	Place      *int       `json:"place,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// ExportRating is one rating change.
type ExportRating struct {
	GameID  int64     `json:"game_id"`
	Before  float64   `json:"before"`
	After   float64   `json:"after"`
	Place   int       `json:"place"`
	Players int       `json:"players"`
	At      time.Time `json:"at"`
}

// ExportChat is one chat message they wrote.
type ExportChat struct {
	GameID  int64     `json:"game_id"`
	Channel string    `json:"channel"`
	Body    string    `json:"body"`
	At      time.Time `json:"at"`
	Hidden  bool      `json:"hidden_by_moderator,omitempty"`
}

// ExportReliability is the reliability figure as kept.
type ExportReliability struct {
	Games     int `json:"games"`
	Finished  int `json:"finished_without_abandoning"`
	Timeouts  int `json:"timeouts"`
	Decisions int `json:"decisions"`
}

// ExportAbandonment is a rated game abandoned.
type ExportAbandonment struct {
	GameID     int64      `json:"game_id"`
	How        string     `json:"how"`
	At         time.Time  `json:"at"`
	Step       int        `json:"step"`
	PauseUntil *time.Time `json:"pause_until,omitempty"`
	Appeal     *string    `json:"appeal,omitempty"`
	AppealedAt *time.Time `json:"appealed_at,omitempty"`
	Answer     *string    `json:"answer,omitempty"`
	AnswerNote string     `json:"answer_note,omitempty"`
}

// MaxGames bounds the games an export lists.
const MaxGames = 100000

// Export gathers u's data.
func (s *Service) Export(ctx context.Context, u db.User) (Export, error) {
	out := Export{ExportedAt: s.clock.Now().UTC(), Account: ExportAccount{
		Username: u.Username, Email: u.Email, EmailVerified: u.EmailVerifiedAt != nil, Language: u.Lang,
		CreatedAt: u.CreatedAt.UTC(), SilencedUntil: u.SilencedUntil,
	}, Games: []ExportGame{}, Ratings: []ExportRating{}, Chat: []ExportChat{}, Following: []string{}, Blocked: []string{}, Abandonments: []ExportAbandonment{}}
	gs, err := s.store.UserGames(ctx, u.ID, MaxGames)
	if err != nil {
		return Export{}, err
	}
	for _, g := range gs {
		out.Games = append(out.Games, ExportGame{ID: g.ID, URL: "/games/" + strconv.FormatInt(g.ID, 10), Status: g.Status, Pace: g.Pace, Ranked: g.Ranked,
			Players: []string(g.Players), Seat: g.MySeat, Place: g.MyPlacing, CreatedAt: g.CreatedAt.UTC(), FinishedAt: g.FinishedAt})
	}
	rs, err := s.store.RatingHistory(ctx, u.ID)
	if err != nil {
		return Export{}, err
	}
	for _, r := range rs {
		out.Ratings = append(out.Ratings, ExportRating{GameID: r.GameID, Before: r.Before, After: r.After, Place: r.Place, Players: r.Players, At: r.CreatedAt.UTC()})
	}
	cs, err := s.store.ChatBy(ctx, u.ID)
	if err != nil {
		return Export{}, err
	}
	for _, c := range cs {
		out.Chat = append(out.Chat, ExportChat{GameID: c.GameID, Channel: c.Channel, Body: c.Body, At: c.CreatedAt.UTC(), Hidden: c.HiddenAt != nil})
	}
	if out.Following, err = s.store.FollowedNames(ctx, u.ID, 100000); err != nil {
		return Export{}, err
	}
	if out.Following == nil {
		out.Following = []string{}
	}
	bs, err := s.store.Blocked(ctx, u.ID)
	if err != nil {
		return Export{}, err
	}
	for _, b := range bs {
		out.Blocked = append(out.Blocked, b.Username)
	}
	r, err := s.store.ReliabilityOf(ctx, u.ID)
	if err != nil {
		return Export{}, err
	}
	out.Reliability = ExportReliability{Games: r.Games, Finished: r.Kept, Timeouts: r.Timeouts, Decisions: r.Decisions}
	as, err := s.store.Abandonments(ctx, u.ID, 100000)
	if err != nil {
		return Export{}, err
	}
	for _, a := range as {
		out.Abandonments = append(out.Abandonments, ExportAbandonment{GameID: a.GameID, How: a.How, At: a.At.UTC(), Step: a.Step, PauseUntil: a.PauseUntil,
			Appeal: a.Appeal, AppealedAt: a.AppealedAt, Answer: a.Answer, AnswerNote: a.AnswerNote})
	}
	if err := s.exportFairPlay(ctx, u.ID, &out.FairPlay); err != nil {
		return Export{}, err
	}
	if err := s.exportPuzzles(ctx, u.ID, &out.Puzzles); err != nil {
		return Export{}, err
	}
	return out, nil
}

func (s *Service) exportPuzzles(ctx context.Context, userID int64, out *ExportPuzzles) error {
	r, ok, err := s.store.SolverRatingOf(ctx, userID)
	if err != nil {
		return err
	}
	if ok {
		out.Rating, out.RD, out.Streak, out.BestStreak = &r.R, &r.RD, r.Streak, r.BestStreak
	}
	as, err := s.store.Attempts(ctx, userID, 1000000)
	if err != nil {
		return err
	}
	out.Attempts = make([]ExportAttempt, 0, len(as))
	for _, a := range as {
		answers := []string(a.Answers)
		if answers == nil {
			answers = []string{}
		}
		out.Attempts = append(out.Attempts, ExportAttempt{PuzzleID: a.PuzzleID, Status: a.Status, Answers: answers, RatingBefore: a.RatingBefore,
			RatingAfter: a.RatingAfter, StartedAt: a.CreatedAt.UTC(), FinishedAt: a.FinishedAt})
	}
	return nil
}

func (s *Service) exportFairPlay(ctx context.Context, userID int64, out *ExportFairPlay) error {
	out.Reports, out.Decisions, out.Refunds = []ExportReport{}, []ExportDecision{}, []ExportRefund{}
	rs, err := s.store.ReportsBy(ctx, userID, 100000)
	if err != nil {
		return err
	}
	for _, r := range rs {
		out.Reports = append(out.Reports, ExportReport{Player: r.TargetName, GameID: r.GameID, Reason: r.Reason, Note: r.Note, CreatedAt: r.CreatedAt.UTC(), HandledAt: r.HandledAt, Outcome: r.Outcome})
	}
	ds, err := s.store.DecisionsAbout(ctx, userID)
	if err != nil {
		return err
	}
	for _, d := range ds {
		out.Decisions = append(out.Decisions, ExportDecision{Action: d.Action, Reason: d.Reason, DecidedAt: d.DecidedAt.UTC(), UndoneAt: d.UndoneAt,
			Appeal: d.Appeal, AppealedAt: d.AppealedAt, Answer: d.Answer, AnswerNote: d.AnswerNote})
	}
	fs, err := s.store.RefundsOf(ctx, userID)
	if err != nil {
		return err
	}
	for _, f := range fs {
		out.Refunds = append(out.Refunds, ExportRefund{GameID: f.GameID, Points: f.Points, CreatedAt: f.CreatedAt.UTC(), UndoneAt: f.UndoneAt})
	}
	out.Devices, out.Networks, err = s.store.LinkCount(ctx, userID)
	return err
}
