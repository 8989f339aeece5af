// Package tournaments runs the site's events: arenas (games for a fixed
// time, players seated again as soon as they are free, points by placing
// with a streak) and Swiss events (a fixed number of rounds, each seated by
// score), live or by correspondence, casual or rated.
//
// The rules themselves (points, the streak, who sits with whom, standings)
// are internal/pairing's; the games are internal/games'. This package keeps
// an event's players and results in Postgres and moves events on: a
// worker in every instance claims due events with FOR UPDATE SKIP LOCKED
// and seats their players in one transaction per wave or round, so that
// with several instances, and after a crash, every player is seated once;
// a game's result is counted in the transaction that ends the game, so it
// counts exactly once.
//
// It imports games, pairing and db; it knows nothing of HTTP or HTML.
package tournaments

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
)

// Limits of an event's rules.
const (
	MinArenaMinutes, MaxArenaMinutes = 20, 180
	MinSwissRounds, MaxSwissRounds   = 3, 11
	MaxName                          = 60
	MaxDescription                   = 1000
	// MaxPlayers is how many may join a casual event; a moderator's event
	// may take ModeratorMaxPlayers.
	MaxPlayers          = 1000
	ModeratorMaxPlayers = 5000
	// FarthestStart is how far ahead an event may be set.
	FarthestStart = 90 * 24 * time.Hour
)

// ArenaSizes and SwissSizes are the table sizes an event may fix.
var (
	ArenaSizes = []int{3, 4, 5}
	SwissSizes = []int{3, 4, 5, 6, 7}
	// ArenaMinutes are the arena lengths offered.
	ArenaMinutes = []int{20, 30, 45, 60, 90, 120, 180}
)

// Service runs tournaments.
type Service struct {
	store *db.Store
	games *games.Service
	clock clock.Clock
	log   *slog.Logger
	// WaveWait is how long the first free player of an arena waits for
	// others before a wave is seated (unless many are free at once), so
	// that a table just finished is mixed with others.
	WaveWait time.Duration
}

// New makes the service and has the games service tell it of every game
// that ends.
func New(store *db.Store, g *games.Service, clk clock.Clock, log *slog.Logger) *Service {
	s := &Service{store: store, games: g, clock: clk, log: log, WaveWait: 2 * time.Second}
	g.OnFinish(s.gameFinished)
	return s
}

// Input is an event's rules as its creator gives them.
type Input struct {
	Kind        string    `form:"kind" json:"kind"`
	Name        string    `form:"name" json:"name"`
	Description string    `form:"description" json:"description"`
	TableSize   int       `form:"table_size" json:"table_size"`
	Minutes     int       `form:"minutes" json:"minutes,omitempty"`
	Rounds      int       `form:"rounds" json:"rounds,omitempty"`
	GameRounds  int       `form:"game_rounds" json:"game_rounds"`
	Variant     string    `form:"variant" json:"variant"`
	OpenTokens  bool      `form:"open_tokens" json:"open_tokens"`
	HiddenTiger bool      `form:"hidden_tiger" json:"hidden_tiger"`
	Pace        string    `form:"pace" json:"pace"`
	TurnSeconds int       `form:"turn_seconds" json:"turn_seconds"`
	StartsAt    time.Time `form:"-" json:"starts_at"`
	MaxPlayers  int       `form:"max_players" json:"max_players"`
	Private     bool      `form:"private" json:"private"`
	Rated       bool      `form:"rated" json:"rated"`
}

// DefaultInput is what the form offers first: an hour's arena at tables of
// four, starting in a quarter of an hour.
func DefaultInput(now time.Time) Input {
	return Input{Kind: db.KindArena, TableSize: 4, Minutes: 60, Rounds: 5, GameRounds: 1, Variant: string(engine.Standard),
		Pace: games.Live, TurnSeconds: 30, StartsAt: now.Add(15 * time.Minute).Truncate(5 * time.Minute), MaxPlayers: 200}
}

// GameInput is the games' options of an event's rules.
func (in Input) GameInput() games.CreateInput {
	return games.CreateInput{Seats: in.TableSize, Rounds: in.GameRounds, Variant: in.Variant, OpenTokens: in.OpenTokens,
		HiddenTiger: in.HiddenTiger, Private: in.Private, Ranked: in.Rated, Pace: in.Pace, TurnSeconds: in.TurnSeconds}
}

// Validate checks the rules; moderator says whether the creator is one
// (rated events and larger fields are theirs).
func (in *Input) Validate(now time.Time, moderator bool) apperr.FieldErrors {
	f := apperr.FieldErrors{}
	in.Name = CleanLine(in.Name)
	in.Description = CleanText(in.Description)
	switch n := utf8.RuneCountInString(in.Name); {
	case n < 3:
		f.Add("name", i18n.M("A tournament's name has 3 to 60 characters."))
	case n > MaxName:
		f.Add("name", i18n.M("A tournament's name has 3 to 60 characters."))
	}
	if utf8.RuneCountInString(in.Description) > MaxDescription {
		f.Add("description", i18n.M("A description has at most 1000 characters."))
	}
	switch in.Kind {
	case db.KindArena:
		if !contains(ArenaSizes, in.TableSize) {
			f.Add("table_size", i18n.M("An arena's tables seat 3, 4 or 5 players."))
		}
		if in.Minutes < MinArenaMinutes || in.Minutes > MaxArenaMinutes {
			f.Add("minutes", i18n.M("An arena lasts 20 minutes to 3 hours."))
		}
		if in.Pace != games.Live {
			f.Add("pace", i18n.M("An arena is played live."))
		}
		in.Rounds = 0
	case db.KindSwiss:
		if !contains(SwissSizes, in.TableSize) {
			f.Add("table_size", i18n.M("A Swiss tournament's tables seat 3 to 7 players."))
		}
		if in.Rounds < MinSwissRounds || in.Rounds > MaxSwissRounds {
			f.Add("rounds", i18n.M("A Swiss tournament has 3 to 11 rounds."))
		}
		in.Minutes = 0
	default:
		f.Add("kind", i18n.M("Choose an arena or a Swiss tournament."))
	}
	gf := in.GameInput().Validate()
	for field, msg := range gf {
		switch field {
		case "seats":
			f.Add("table_size", msg)
		case "rounds":
			f.Add("game_rounds", msg)
		case "private":
			f.Add("private", i18n.M("Rated tournaments are public."))
		default:
			f.Add(field, msg)
		}
	}
	if in.Rated && !moderator {
		f.Add("rated", i18n.M("Only moderators create rated tournaments."))
	}
	most := MaxPlayers
	if moderator {
		most = ModeratorMaxPlayers
	}
	if in.MaxPlayers < in.TableSize || in.MaxPlayers > most || in.MaxPlayers < 3 {
		f.Add("max_players", i18n.M("Players at most: from a table's worth to 1000 (5000 for moderators)."))
	}
	if in.StartsAt.IsZero() {
		f.Add("starts_at", i18n.M("Choose when the tournament starts."))
	} else if in.StartsAt.Before(now.Add(time.Minute)) {
		f.Add("starts_at", i18n.M("A tournament starts at least a minute from now."))
	} else if in.StartsAt.After(now.Add(FarthestStart)) {
		f.Add("starts_at", i18n.M("A tournament starts within 90 days."))
	}
	return f
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// CleanLine makes a name one line of plain text: control characters and
// runs of spaces become one space, the ends are trimmed.
func CleanLine(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToValidUTF8(s, ""), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}), " ")
}

// CleanText keeps a description's lines (at most two blank lines in a
// row), each cleaned like a name.
func CleanText(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var out []string
	blank := 0
	for _, l := range lines {
		l = CleanLine(l)
		if l == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func newCode() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// row is the database row of an input.
func (in Input) row() (db.Tournament, error) {
	o := in.GameInput().Options()
	o.Players = 0
	opts, err := json.Marshal(o)
	if err != nil {
		return db.Tournament{}, err
	}
	x := db.Tournament{Kind: in.Kind, Name: in.Name, Description: in.Description, Public: !in.Private, Rated: in.Rated,
		TableSize: in.TableSize, Options: opts, Pace: in.Pace, TurnSeconds: in.TurnSeconds, StartsAt: in.StartsAt, MaxPlayers: in.MaxPlayers}
	if in.Kind == db.KindArena {
		m := in.Minutes
		x.Minutes = &m
	} else {
		r := in.Rounds
		x.Rounds = &r
	}
	return x, nil
}

// InputOf is the rules of an event, for its edit form.
func InputOf(t db.Tournament) Input {
	var o engine.Options
	_ = json.Unmarshal(t.Options, &o)
	in := Input{Kind: t.Kind, Name: t.Name, Description: t.Description, TableSize: t.TableSize, GameRounds: o.Rounds,
		Variant: string(o.Variant), OpenTokens: o.OpenTokens, HiddenTiger: o.HiddenTiger, Pace: t.Pace, TurnSeconds: t.TurnSeconds,
		StartsAt: t.StartsAt, MaxPlayers: t.MaxPlayers, Private: !t.Public, Rated: t.Rated}
	if t.Minutes != nil {
		in.Minutes = *t.Minutes
	}
	if t.Rounds != nil {
		in.Rounds = *t.Rounds
	}
	return in
}

// ErrNoTournament answers an event that does not exist or that the person
// may not see (a private one without its code).
var ErrNoTournament = apperr.E(apperr.NotFound, "There is no such tournament.")

// fresh reads an account again: a moderator's role, a confirmed address
// or a closed account count at once, whatever a cache of the caller's said.
func (s *Service) fresh(ctx context.Context, u db.User) (db.User, error) {
	return s.store.UserByID(ctx, u.ID)
}

// Create makes an event; its creator does not join it by making it.
func (s *Service) Create(ctx context.Context, u db.User, in Input) (int64, error) {
	u, err := s.fresh(ctx, u)
	if err != nil {
		return 0, err
	}
	if err := mayCreate(u); err != nil {
		return 0, err
	}
	now := s.clock.Now()
	if err := in.Validate(now, u.Admin).Err(); err != nil {
		return 0, err
	}
	x, err := in.row()
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not encode the options")
	}
	if x.Code, err = newCode(); err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not make a code")
	}
	x.CreatorID, x.CreatedAt = &u.ID, now
	var id int64
	err = s.store.Tx(ctx, func(tx *db.Tx) error {
		id, err = tx.CreateTournament(ctx, x)
		if err != nil {
			return err
		}
		tx.NoteTournamentList()
		return nil
	})
	return id, err
}

func mayCreate(u db.User) error {
	switch {
	case u.Guest:
		return apperr.E(apperr.Forbidden, "Guests cannot create tournaments: register (free) first.")
	case u.Bot:
		return apperr.E(apperr.Forbidden, "Bot accounts do not create tournaments: tournaments are played by people.")
	case !u.Active():
		return apperr.E(apperr.Forbidden, "This account is closed.")
	case u.EmailVerifiedAt == nil && !u.Admin:
		return apperr.E(apperr.Forbidden, "Confirm your email address first (the link we mailed you): then you can create tournaments.")
	}
	return nil
}

// Edit changes an upcoming event's rules (its creator or a moderator).
func (s *Service) Edit(ctx context.Context, u db.User, id int64, in Input) error {
	u, err := s.fresh(ctx, u)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		t, err := lockManaged(ctx, tx, u, id)
		if err != nil {
			return err
		}
		if t.Status != db.TournamentUpcoming {
			return apperr.E(apperr.Conflict, "The tournament has started: its rules can no longer change.")
		}
		if in.Rated != t.Rated && !u.Admin {
			in.Rated = t.Rated
		}
		if err := in.Validate(now, u.Admin).Err(); err != nil {
			return err
		}
		if in.Kind != t.Kind {
			return apperr.FieldErrors{"kind": i18n.M("A tournament's kind cannot change: cancel it and create another.")}.Err()
		}
		if t.Players > in.MaxPlayers {
			return apperr.FieldErrors{"max_players": i18n.M("More players have joined already.")}.Err()
		}
		x, err := in.row()
		if err != nil {
			return err
		}
		x.ID = id
		return tx.UpdateTournament(ctx, x)
	})
}

// lockManaged locks an event its creator or a moderator changes.
func lockManaged(ctx context.Context, tx *db.Tx, u db.User, id int64) (db.Tournament, error) {
	t, err := tx.TournamentForUpdate(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return t, ErrNoTournament
	}
	if err != nil {
		return t, err
	}
	if !mayManage(u, t) {
		if !t.Public {
			return t, ErrNoTournament
		}
		return t, apperr.E(apperr.Forbidden, "Only the tournament's creator or a moderator can change it.")
	}
	return t, nil
}

func mayManage(u db.User, t db.Tournament) bool {
	return u.Active() && (u.Admin || (t.CreatorID != nil && *t.CreatorID == u.ID))
}

// Cancel calls an upcoming event off (its creator or a moderator).
func (s *Service) Cancel(ctx context.Context, u db.User, id int64) error {
	u, err := s.fresh(ctx, u)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		t, err := lockManaged(ctx, tx, u, id)
		if err != nil {
			return err
		}
		if t.Status != db.TournamentUpcoming {
			return apperr.E(apperr.Conflict, "The tournament has started: it can no longer be cancelled.")
		}
		tx.NoteTournamentList()
		return tx.SetTournamentStatus(ctx, id, db.TournamentCancelled, 0, nil, now)
	})
}

// Get loads an event a viewer may see: a public one, or a private one to
// its players and to whoever holds its code.
func (s *Service) Get(ctx context.Context, viewer *int64, id int64, code string) (db.Tournament, error) {
	t, err := s.store.Tournament(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return db.Tournament{}, ErrNoTournament
	}
	if err != nil {
		return db.Tournament{}, err
	}
	if t.Public || (code != "" && code == t.Code) {
		return t, nil
	}
	if viewer != nil {
		ps, err := s.store.TournamentPlayers(ctx, id)
		if err != nil {
			return db.Tournament{}, err
		}
		for _, p := range ps {
			if p.UserID == *viewer {
				return t, nil
			}
		}
		if t.CreatorID != nil && *t.CreatorID == *viewer {
			return t, nil
		}
	}
	return db.Tournament{}, ErrNoTournament
}

// Me is a player's part in an event, read alone (cheap: for clients that
// ask often whether their table is ready).
func (s *Service) Me(ctx context.Context, userID, id int64) (db.TournamentPlayer, error) {
	p, err := s.store.TournamentPlayerOf(ctx, id, userID)
	if errors.Is(err, db.ErrNotFound) {
		return p, apperr.E(apperr.NotFound, "You are not in this tournament.")
	}
	return p, err
}

// Lists are the events of the Tournaments page.
type Lists struct {
	Upcoming, Running, Finished []db.Tournament
}

// List reads the events to show a viewer (0: a visitor): public ones, and
// private ones they play in.
func (s *Service) List(ctx context.Context, viewer int64) (Lists, error) {
	var l Lists
	var err error
	if l.Upcoming, err = s.store.Tournaments(ctx, db.TournamentUpcoming, viewer, 50); err != nil {
		return l, err
	}
	if l.Running, err = s.store.Tournaments(ctx, db.TournamentRunning, viewer, 50); err != nil {
		return l, err
	}
	l.Finished, err = s.store.Tournaments(ctx, db.TournamentFinished, viewer, 30)
	return l, err
}

// PlayedBy lists the events a person played, for their profile.
func (s *Service) PlayedBy(ctx context.Context, userID int64) ([]db.PlayedTournament, error) {
	return s.store.UserTournaments(ctx, userID, 20)
}

// TVGame is the site's featured game: the public game in play whose people
// are rated highest (not except, the one a page shows already), 0 for
// none.
func (s *Service) TVGame(ctx context.Context, except int64) (int64, error) {
	return s.store.TVGame(ctx, except)
}

// HideDescription hides an event's description (or shows it again): a
// moderator's action, logged.
func (s *Service) HideDescription(ctx context.Context, admin db.User, id int64, hide bool) error {
	if !admin.Admin || !admin.Active() {
		return apperr.E(apperr.Forbidden, "Only moderators may do that.")
	}
	err := s.store.HideTournamentDescription(ctx, admin.ID, id, hide, s.clock.Now())
	if errors.Is(err, db.ErrNotFound) {
		return ErrNoTournament
	}
	return err
}

var (
	errNotModerator = apperr.E(apperr.Forbidden, "Only moderators may do that.")
	errNoSchedule   = apperr.E(apperr.NotFound, "There is no such recurring tournament.")
)
