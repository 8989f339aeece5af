// Package games is the use cases of play: create, join, leave, fill seats
// with bots, start, act, view a table, and let the server move for bots and
// for players whose time ran out. Every change to a game runs in one
// transaction with the game row locked, appends to the move log, and
// notifies the other server instances through Postgres.
//
// It stands between the handlers (HTML and JSON alike) and the db and
// engine packages; it knows nothing of HTTP.
package games

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/i18n"
	"nothanks/internal/reliability"
)

// Service is the play use cases.
type Service struct {
	store *db.Store
	clock clock.Clock
	log   *slog.Logger
	// Seeds draws a new game's engine seed (nil: crypto/rand). Tests set
	// it to play a deal they worked out by hand.
	Seeds func() (int64, error)
	// BotDelay is how long a bot waits before it moves in a live game, so
	// that people can follow; correspondence bots wait the same.
	BotDelay   time.Duration
	cache      *gameCache
	onFinish   FinishHook
	onAbandon  AbandonHook
	ratedGates []RatedGate
	// lastMove is when this instance last recorded a move (Unix
	// nanoseconds, wall clock): background work yields to play
	// (PlayedWithin).
	lastMove atomic.Int64
	// kept counts the moves made on a kept State, without reading the
	// game (KeptMoves).
	kept atomic.Int64
}

// KeptMoves is how many moves this instance made on the State it kept of
// the game, without reading it (docs/operations.md).
func (s *Service) KeptMoves() int64 { return s.kept.Load() }

// PlayedWithin reports whether this instance recorded a move within d of
// now (wall clock: it paces background work, it decides nothing).
func (s *Service) PlayedWithin(d time.Duration) bool {
	return time.Now().UnixNano()-s.lastMove.Load() < int64(d)
}

// New returns the service.
func New(store *db.Store, clk clock.Clock, log *slog.Logger) *Service {
	return &Service{store: store, clock: clk, log: log, BotDelay: 1200 * time.Millisecond, cache: newGameCache(5000)}
}

// Pace of a game.
const (
	Live           = "live"
	Correspondence = "correspondence"
)

// Timer choices per pace: seconds for one decision.
var (
	LiveTimers           = []int{15, 30, 60, 120, 300}
	CorrespondenceTimers = []int{12 * 3600, 24 * 3600, 2 * 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600}
)

// CreateInput is the new-game form.
type CreateInput struct {
	Seats       int    `form:"seats" json:"seats"`
	Rounds      int    `form:"rounds" json:"rounds"`
	Variant     string `form:"variant" json:"variant"`
	OpenTokens  bool   `form:"open_tokens" json:"open_tokens"`
	HiddenTiger bool   `form:"hidden_tiger" json:"hidden_tiger"`
	Private     bool   `form:"private" json:"private"`
	Ranked      bool   `form:"ranked" json:"ranked"`
	Pace        string `form:"pace" json:"pace"`
	// TurnSeconds is the time for one decision, from the pace's choices.
	TurnSeconds int `form:"turn_seconds" json:"turn_seconds"`
	// MinReliability is the share of their latest games a player must
	// have finished, in percent, to join (0: anyone may).
	MinReliability int `form:"min_reliability" json:"min_reliability"`
}

// DefaultCreateInput is what the form offers first: a live game of the
// four rounds the rules recommend.
func DefaultCreateInput() CreateInput {
	return CreateInput{Seats: 4, Rounds: engine.RecommendedRounds, Variant: string(engine.Standard), Pace: Live, TurnSeconds: 60}
}

// Options returns the engine options the input asks for.
func (in CreateInput) Options() engine.Options {
	return engine.Options{Players: in.Seats, Rounds: in.Rounds, Variant: engine.Variant(in.Variant), OpenTokens: in.OpenTokens, HiddenTiger: in.HiddenTiger}
}

// Validate checks the form; impossible option combinations name the field.
func (in CreateInput) Validate() apperr.FieldErrors {
	f := apperr.FieldErrors{}
	// Each option on its own first, so that every wrong one is named at
	// once; the engine's check then finds what is wrong in combination.
	o := in.Options()
	if o.Players < engine.MinPlayers || o.Players > engine.MaxPlayers {
		f.Add("seats", i18n.M("A game has 3 to 7 players."))
	}
	if o.Rounds < engine.MinRounds || o.Rounds > engine.MaxRounds {
		f.Add("rounds", i18n.M("A game has 1 to 10 rounds."))
	}
	if !slices.Contains(engine.Variants, o.Variant) {
		f.Add("variant", i18n.M("Choose one of the variants in the list."))
	}
	if err := o.Validate(); err != nil && len(f) == 0 {
		var oe *engine.OptionsError
		if errors.As(err, &oe) {
			field := map[string]string{"players": "seats"}[oe.Field]
			if field == "" {
				field = oe.Field
			}
			f.Add(field, optionsProblem(in.Options(), oe))
		}
	}
	switch in.Pace {
	case Live:
		if !slices.Contains(LiveTimers, in.TurnSeconds) {
			f.Add("turn_seconds", "A live game gives 15 seconds to 5 minutes a decision: pick one of the choices.")
		}
	case Correspondence:
		if !slices.Contains(CorrespondenceTimers, in.TurnSeconds) {
			f.Add("turn_seconds", "A correspondence game gives 12 hours to 7 days a decision: pick one of the choices.")
		}
	default:
		f.Add("pace", "Choose live or correspondence.")
	}
	if in.Ranked && in.Private {
		f.Add("private", "Ranked games are public.")
	}
	if m := in.MinReliability; m != 0 && (m < reliability.MinShareLowest || m > reliability.MinShareHighest) {
		f.Add("min_reliability", i18n.M("A minimum share of games finished is 50 to 100 percent, or none."))
	}
	return f
}

// optionsProblem says what is wrong with the options in a sentence of the
// catalogue (the engine's own words are for logs and tests).
func optionsProblem(o engine.Options, oe *engine.OptionsError) string {
	switch {
	case oe.Field == "players":
		return i18n.M("A game has 3 to 7 players.")
	case oe.Field == "rounds":
		return i18n.M("A game has 1 to 10 rounds.")
	case !slices.Contains(engine.Variants, o.Variant):
		return i18n.M("Choose one of the variants in the list.")
	case o.Variant != engine.Standard && o.Players > 5:
		return i18n.M("This variant is for 3 to 5 players.")
	case oe.Field == "variant":
		return i18n.M("That many players need more tokens than the box holds.")
	}
	return upperFirst(oe.Msg) + "."
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Create makes a game with the creator in the first seat.
func (s *Service) Create(ctx context.Context, userID int64, in CreateInput) (int64, error) {
	if err := in.Validate().Err(); err != nil {
		return 0, err
	}
	opts, err := json.Marshal(in.Options())
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not encode the options")
	}
	code, err := randomCode()
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not make an invite code")
	}
	draw := randomSeed
	if s.Seeds != nil {
		draw = s.Seeds
	}
	seed, err := draw()
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not draw a seed")
	}
	now := s.clock.Now()
	var id int64
	var minShare *int
	if in.MinReliability > 0 {
		minShare = &in.MinReliability
	}
	err = s.store.Tx(ctx, func(tx *db.Tx) error {
		if in.Ranked {
			if err := s.rankedSeat(ctx, tx, userID); err != nil {
				return err
			}
		}
		var err error
		id, err = tx.CreateGame(ctx, db.Game{
			CreatorID: userID, Options: opts, Seats: in.Seats, Public: !in.Private, InviteCode: code,
			Ranked: in.Ranked, Pace: in.Pace, TurnSeconds: in.TurnSeconds, Seed: seed, CreatedAt: now, MinReliability: minShare,
		})
		if err != nil {
			return err
		}
		return tx.AddSeat(ctx, id, &userID, nil, nil, now)
	})
	if errors.Is(err, ErrBotRanked) || apperr.CodeOf(err) == apperr.Paused {
		return 0, err
	}
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not create the game")
	}
	return id, nil
}

// RandomCode draws a game's invite code.
func RandomCode() (string, error) { return randomCode() }

func randomCode() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// randomSeed draws the engine seed from crypto/rand; it is stored as the
// bits of an int64.
func randomSeed() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b[:])), nil
}

// lockOpen locks a game that must still be open.
func lockOpen(ctx context.Context, tx *db.Tx, gameID int64) (db.Game, []db.Seat, error) {
	g, err := tx.GameForUpdate(ctx, gameID)
	if errors.Is(err, db.ErrNotFound) {
		return db.Game{}, nil, ErrNoGame
	}
	if err != nil {
		return db.Game{}, nil, err
	}
	if g.Status != db.StatusOpen {
		return db.Game{}, nil, apperr.E(apperr.Conflict, "This game has already started or is over.")
	}
	seats, err := tx.Seats(ctx, gameID)
	return g, seats, err
}

// ErrNoGame answers a game that does not exist, or that the viewer may not
// see (a private game is not shown to exist).
var ErrNoGame = apperr.E(apperr.NotFound, "There is no such game.")

// Join seats a user in an open game. A private game needs its invite code;
// a table that asks for a minimum share of games finished takes only
// those who have it (or are new). A game that becomes full starts.
func (s *Service) Join(ctx context.Context, userID, gameID int64, code string) error {
	return s.join(ctx, userID, gameID, code, false)
}

// JoinInvited is Join for a player the table's creator invited: the
// table's minimum share does not hold them back, the creator chose them.
func (s *Service) JoinInvited(ctx context.Context, userID, gameID int64, code string) error {
	return s.join(ctx, userID, gameID, code, true)
}

func (s *Service) join(ctx context.Context, userID, gameID int64, code string, invited bool) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		g, seats, err := lockOpen(ctx, tx, gameID)
		if err != nil {
			return err
		}
		if !g.Public && code != g.InviteCode {
			return ErrNoGame
		}
		if !g.Public {
			// A private table is its creator's: one they block cannot join.
			blocked, err := tx.BlocksEither(ctx, g.CreatorID, userID)
			if err != nil {
				return err
			}
			if blocked {
				return apperr.E(apperr.Forbidden, "You cannot join this table.")
			}
		}
		if seatOf(seats, userID) != nil {
			return apperr.E(apperr.Conflict, "You are already at this table.")
		}
		if len(seats) >= g.Seats {
			return apperr.E(apperr.Conflict, "This table is full.")
		}
		if g.Ranked {
			if err := s.rankedSeat(ctx, tx, userID); err != nil {
				return err
			}
		}
		if g.MinReliability != nil && !invited {
			r, err := tx.ReliabilityOf(ctx, userID)
			if err != nil {
				return err
			}
			f := reliability.Figure{Games: r.Games, Kept: r.Kept, Timeouts: r.Timeouts, Decisions: r.Decisions}
			if !reliability.Meets(f, *g.MinReliability) {
				return apperr.E(apperr.Forbidden, "This table takes players who finished at least %d%% of their latest games; you finished %d%% of your last %d. Tables without a minimum take everyone.",
					*g.MinReliability, f.Percent(), f.Games)
			}
		}
		now := s.clock.Now()
		if err := tx.AddSeat(ctx, gameID, &userID, nil, nil, now); err != nil {
			if errors.Is(err, db.ErrAlreadySeated) {
				return apperr.E(apperr.Conflict, "You are already at this table.")
			}
			return err
		}
		if len(seats)+1 == g.Seats {
			return s.start(ctx, tx, g, now)
		}
		return tx.NotifyGame(ctx, gameID, g.Version)
	})
}

// ErrBotRanked refuses a bot account a seat at a ranked table of people:
// bots play ranked among bots, from the bot queue (docs/bots.md).
var ErrBotRanked = apperr.E(apperr.Forbidden, "Bot accounts cannot play ranked games with people; join the bot queue.")

// RatedGate says, inside the transaction, whether a person may take a
// seat in rated play now (nil: they may); the leavers' service refuses
// one paused for abandoning rated games.
type RatedGate func(ctx context.Context, tx *db.Tx, userID int64) error

// OnRatedSeat adds a gate of rated seats (each must let a person pass).
func (s *Service) OnRatedSeat(g RatedGate) { s.ratedGates = append(s.ratedGates, g) }

// CheckRatedSeat asks the rated gate, inside the transaction, whether a
// person may take a seat in rated play now (a rated tournament's).
func (s *Service) CheckRatedSeat(ctx context.Context, tx *db.Tx, userID int64) error {
	for _, g := range s.ratedGates {
		if err := g(ctx, tx, userID); err != nil {
			return err
		}
	}
	return nil
}

// rankedSeat refuses a ranked table made by hand to a bot account (the
// matcher seats bot accounts among bots only) and to a person the rated
// gate holds back.
func (s *Service) rankedSeat(ctx context.Context, tx *db.Tx, userID int64) error {
	bot, err := tx.IsBot(ctx, userID)
	if err != nil {
		return err
	}
	if bot {
		return ErrBotRanked
	}
	return s.CheckRatedSeat(ctx, tx, userID)
}

// Leave takes a user's seat back before the game starts. When the creator
// leaves, the game is cancelled.
func (s *Service) Leave(ctx context.Context, userID, gameID int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		g, seats, err := lockOpen(ctx, tx, gameID)
		if err != nil {
			return err
		}
		if seatOf(seats, userID) == nil {
			return apperr.E(apperr.Conflict, "You are not at this table.")
		}
		now := s.clock.Now()
		if g.CreatorID == userID {
			if err := tx.CancelGame(ctx, gameID, now); err != nil {
				return err
			}
		} else if _, err := tx.RemoveSeat(ctx, gameID, userID); err != nil {
			return err
		}
		return tx.NotifyGame(ctx, gameID, g.Version)
	})
}

// AddBot lets the creator of a casual game fill a seat with a bot.
func (s *Service) AddBot(ctx context.Context, userID, gameID int64, level string) error {
	if _, err := bot.New(bot.Level(level)); err != nil {
		return (apperr.FieldErrors{"level": "Choose a bot level."}).Err()
	}
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		g, seats, err := lockOpen(ctx, tx, gameID)
		if err != nil {
			return err
		}
		if g.CreatorID != userID {
			return apperr.E(apperr.Forbidden, "Only the game's creator can add bots.")
		}
		if g.Ranked {
			return apperr.E(apperr.Forbidden, "Ranked games are for people only: no bots.")
		}
		if len(seats) >= g.Seats {
			return apperr.E(apperr.Conflict, "This table is full.")
		}
		now := s.clock.Now()
		if err := tx.AddSeat(ctx, gameID, nil, &level, nil, now); err != nil {
			return err
		}
		if len(seats)+1 == g.Seats {
			return s.start(ctx, tx, g, now)
		}
		return tx.NotifyGame(ctx, gameID, g.Version)
	})
}

// RemoveBot lets the creator take a bot off an open table.
func (s *Service) RemoveBot(ctx context.Context, userID, gameID, seatID int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		g, _, err := lockOpen(ctx, tx, gameID)
		if err != nil {
			return err
		}
		if g.CreatorID != userID {
			return apperr.E(apperr.Forbidden, "Only the game's creator can remove bots.")
		}
		ok, err := tx.RemoveBotSeat(ctx, gameID, seatID)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.E(apperr.NotFound, "That bot is not at this table.")
		}
		return tx.NotifyGame(ctx, gameID, g.Version)
	})
}

// Start lets the creator start an open game with at least 3 seats taken.
func (s *Service) Start(ctx context.Context, userID, gameID int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		g, seats, err := lockOpen(ctx, tx, gameID)
		if err != nil {
			return err
		}
		if g.CreatorID != userID {
			return apperr.E(apperr.Forbidden, "Only the game's creator can start it.")
		}
		if len(seats) < engine.MinPlayers {
			return apperr.E(apperr.Conflict, "A game needs at least %d players: invite people or add bots.", engine.MinPlayers)
		}
		return s.start(ctx, tx, g, s.clock.Now())
	})
}

// start numbers the seats, marks the game playing with as many players as
// are seated, and sets whose turn it is.
func (s *Service) start(ctx context.Context, tx *db.Tx, g db.Game, now time.Time) error {
	if err := tx.NumberSeats(ctx, g.ID); err != nil {
		return err
	}
	seats, err := tx.Seats(ctx, g.ID)
	if err != nil {
		return err
	}
	if err := tx.StartGame(ctx, g.ID, len(seats), now); err != nil {
		return err
	}
	g.Status = db.StatusPlaying
	g.Seats = len(seats)
	eg, err := rebuild(g, nil)
	if err != nil {
		return err
	}
	st := s.nextState(g, seats, eg, now)
	ok, err := tx.SetGameState(ctx, g.ID, g.Version, st)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.E(apperr.Conflict, "The game changed while starting.")
	}
	for _, seat := range seats {
		if seat.UserID != nil {
			tx.Notice(*seat.UserID, db.NoticeGameStart, tournamentOf(g), g.ID)
		}
	}
	// The first player to decide hears of it like any other.
	if err := s.enqueueMails(ctx, tx, g, seats, st, -1, now); err != nil {
		return err
	}
	if st.TurnUserID == nil && st.DueAt != nil {
		if err := tx.NotifyDue(ctx, *st.DueAt); err != nil {
			return err
		}
	}
	return tx.NotifyGameTurn(ctx, g.ID, st.Version, st.TurnUserID)
}

// options decodes a game's engine options; the player count is the seats
// taken once the game has started.
func options(g db.Game) (engine.Options, error) {
	var o engine.Options
	if err := json.Unmarshal(g.Options, &o); err != nil {
		return o, fmt.Errorf("games: options of game %d: %w", g.ID, err)
	}
	o.Players = g.Seats
	return o, nil
}

func seatOf(seats []db.Seat, userID int64) *db.Seat {
	for i := range seats {
		if seats[i].UserID != nil && *seats[i].UserID == userID {
			return &seats[i]
		}
	}
	return nil
}

// bySeat returns the seat row with a seat number.
func bySeat(seats []db.Seat, n int) *db.Seat {
	for i := range seats {
		if seats[i].Seat != nil && *seats[i].Seat == n {
			return &seats[i]
		}
	}
	return nil
}

// machineMoves reports whether the server moves for a seat: a bot, or a
// player who abandoned the game.
func machineMoves(st *db.Seat) bool {
	return st != nil && (st.BotLevel != nil || st.Abandoned)
}

// nextState is the game row after the engine game eg: whose turn, and when
// the server must act if nobody does.
func (s *Service) nextState(g db.Game, seats []db.Seat, eg *engine.Game, now time.Time) db.GameState {
	st := db.GameState{Version: eg.Version(), Status: db.StatusPlaying, UpdatedAt: now}
	if eg.Finished() {
		st.Status = db.StatusFinished
		st.FinishedAt = &now
		return st
	}
	turn := eg.Turn()
	st.TurnSeat = &turn
	seat := bySeat(seats, turn)
	var due time.Time
	if machineMoves(seat) {
		// A human-like pause, a little different each time.
		due = now.Add(s.BotDelay/2 + time.Duration(mrand.Int64N(int64(s.BotDelay)+1)))
	} else {
		st.TurnUserID = seat.UserID
		// A correspondence player on vacation: the clock starts when they
		// are back.
		start := now
		if g.Pace == Correspondence && seat.VacationUntil != nil && seat.VacationUntil.After(now) {
			start = *seat.VacationUntil
		}
		due = start.Add(time.Duration(g.TurnSeconds) * time.Second)
	}
	st.DueAt = &due
	return st
}

// ActionError maps an engine rule error to an application error.
func actionError(err error) error {
	var re *engine.RuleError
	if !errors.As(err, &re) {
		return err
	}
	switch re {
	case engine.ErrNotYourTurn:
		return apperr.E(apperr.Conflict, "It is not your turn.")
	case engine.ErrGameOver:
		return apperr.E(apperr.Conflict, "The game is over.")
	case engine.ErrNoTokens:
		return apperr.E(apperr.Invalid, "You have no Pass tokens left, so you must take the card.")
	case engine.ErrUnknownSeat:
		return apperr.E(apperr.Invalid, "There is no such seat at this table.")
	case engine.ErrUnknownAction:
		return apperr.E(apperr.Invalid, "That is not a move in this game.")
	case engine.ErrNoTiger:
		return apperr.E(apperr.Invalid, "This game is played without the Hidden Tiger.")
	case engine.ErrTigerPlayed:
		return apperr.E(apperr.Invalid, "You have already laid your Tiger this round.")
	}
	return apperr.E(apperr.Invalid, "That move is not allowed.")
}

// ErrStale is the answer to an action on a version of the table that is no
// longer current: a double click, a second tab, a replayed request.
var ErrStale = apperr.E(apperr.Conflict, "The table moved on since you looked at it, so your move was not made. Here is the table as it is now.")

// Act applies a player's action to the version of the game they saw, and
// returns the game as it is after the move.
//
// Most moves in a live game are written as one statement that commits by
// itself: the game is read (not locked), the engine decides, and the write
// moves the row on only if its version is still the one read, so a move is
// never applied twice and never on a table that moved meanwhile (two round
// trips in all). A move that ends the game (placings, ratings) or that
// mails someone (correspondence) runs in a transaction with the row locked.
func (s *Service) Act(ctx context.Context, userID, gameID int64, version int, kind engine.ActionKind) (*State, error) {
	if kind != engine.Take && kind != engine.Pass && kind != engine.LayTiger {
		return nil, apperr.E(apperr.Invalid, "Unknown move %q: take, pass or tiger.", kind)
	}
	// A live game this process wrote last, on the version the player saw:
	// one round trip, the write. Anything else, or a write refused
	// because the game moved on meanwhile, takes the path below.
	if st := s.cache.current(gameID, version); st != nil {
		if after, err := s.actOnKept(ctx, st, userID, version, kind); after != nil || err != nil {
			return after, err
		}
	}
	st, err := s.load(ctx, gameID)
	if err != nil {
		return nil, err
	}
	a, err := actionOf(st, userID, version, kind)
	if err != nil {
		return nil, err
	}
	m, err := s.decide(st, a)
	if err != nil {
		return nil, err
	}
	if m.standsAlone() {
		ok, err := s.store.RecordMove(ctx, m.write)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "could not record the move")
		}
		if !ok {
			return nil, ErrStale
		}
		s.recorded(m)
		return m.after, nil
	}
	var after *State
	err = s.store.Tx(ctx, func(tx *db.Tx) error {
		st, err := s.lock(ctx, tx, gameID)
		if err != nil {
			return err
		}
		a, err := actionOf(st, userID, version, kind)
		if err != nil {
			return err
		}
		after, err = s.apply(ctx, tx, st, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.lastMove.Store(time.Now().UnixNano())
	return after, nil
}

// actOnKept makes a move on the State this process kept of the game. It
// returns nil and no error when it cannot, and the caller reads the game:
// the move is refused (the answer then comes from the game as read), it
// ends the game or mails someone (those go through the transaction), or
// the game moved on since the State was kept (the write, which applies
// only on the version decided on, was refused; the State is forgotten).
func (s *Service) actOnKept(ctx context.Context, st *State, userID int64, version int, kind engine.ActionKind) (*State, error) {
	a, err := actionOf(st, userID, version, kind)
	if err != nil {
		return nil, nil
	}
	m, err := s.decide(st, a)
	if err != nil || !m.standsAlone() {
		return nil, nil
	}
	ok, err := s.store.RecordMove(ctx, m.write)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not record the move")
	}
	if !ok {
		s.cache.unkeep(st.Game.ID)
		return nil, nil
	}
	s.recorded(m)
	s.kept.Add(1)
	return m.after, nil
}

// recorded keeps what a stand-alone move wrote: its engine state and its
// whole State, for the next move.
func (s *Service) recorded(m *decision) {
	s.cache.put(m.after.Game.ID, m.eg)
	s.cache.keep(m.after)
	s.lastMove.Store(time.Now().UnixNano())
}

// Noted hears an announcement of the game channel (db.GameChannel's
// payload, "id:version" or "id:version:user"): a State kept of that game
// for its next move is forgotten unless the announcement is of its own
// move.
func (s *Service) Noted(payload string) {
	parts := strings.Split(payload, ":")
	id, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || len(parts) < 2 {
		return
	}
	v, err := strconv.Atoi(parts[1])
	if err != nil {
		v = -1
	}
	s.cache.noted(id, v, len(parts) == 3)
}

// ForgetKept forgets every State kept for a next move (the listener
// reconnected and may have missed an announcement).
func (s *Service) ForgetKept() { s.cache.forgetStates() }

// actionOf checks that a user may make a move on a state, on the version
// they saw, and returns it as an action of their seat.
func actionOf(st *State, userID int64, version int, kind engine.ActionKind) (engine.Action, error) {
	me := seatOf(st.Seats, userID)
	if me == nil {
		if !st.Game.Public {
			return engine.Action{}, ErrNoGame
		}
		return engine.Action{}, apperr.E(apperr.Forbidden, "You are not playing in this game.")
	}
	switch st.Game.Status {
	case db.StatusOpen:
		return engine.Action{}, apperr.E(apperr.Conflict, "The game has not started yet.")
	case db.StatusFinished:
		return engine.Action{}, apperr.E(apperr.Conflict, "The game is over.")
	case db.StatusCancelled:
		return engine.Action{}, apperr.E(apperr.Conflict, "This game was cancelled: there are no moves to make in it.")
	}
	if me.Abandoned && me.Seat != nil && st.eg != nil && st.eg.Left(*me.Seat) {
		return engine.Action{}, apperr.E(apperr.Forbidden, "You left this game: a bot plays your seat to the end.")
	}
	if me.Abandoned {
		return engine.Action{}, apperr.E(apperr.Forbidden, "You let your time run out %d times, so a bot plays your seat to the end of this game.", MaxTimeouts)
	}
	if version != st.Game.Version {
		return engine.Action{}, ErrStale
	}
	return engine.Action{Seat: *me.Seat, Kind: kind}, nil
}

// decision is one action decided on a state: what to write, and the game
// after it.
type decision struct {
	write    db.MoveWrite
	eg       *engine.Game
	after    *State
	prevTurn int
	now      time.Time
}

// standsAlone reports whether the move is written by itself: it ends no
// game and mails nobody.
func (d *decision) standsAlone() bool {
	return !d.eg.Finished() && d.after.Game.Pace != Correspondence
}

// decide lets the engine apply an action to a state (a clone of it) and
// works out the rows the move writes.
func (s *Service) decide(st *State, a engine.Action) (*decision, error) {
	g, seats := st.Game, slices.Clone(st.Seats)
	eg := st.eg.Clone()
	before := len(eg.Events())
	prevTurn := eg.Turn()
	if err := eg.Apply(a); err != nil {
		return nil, actionError(err)
	}
	now := s.clock.Now()
	w := db.MoveWrite{Prev: g.Version}
	for _, e := range eg.Events()[before:] {
		switch e.Kind {
		case engine.EventPass, engine.EventTake, engine.EventTiger, engine.EventLeave:
			w.Move = db.Move{GameID: g.ID, Seq: eg.Version(), Round: e.Round, Seat: e.Seat, Kind: string(a.Kind), Card: e.Card, Pot: e.Tokens, Timeout: a.Timeout, CreatedAt: now}
		case engine.EventRoundEnd:
			raw, err := json.Marshal(eg.Results()[e.Round-1])
			if err != nil {
				return nil, fmt.Errorf("games: encode round: %w", err)
			}
			w.Round = &db.Round{GameID: g.ID, Round: e.Round, Result: raw, FinishedAt: now}
		}
	}
	w.State = s.nextState(g, seats, eg, now)
	if w.State.TurnUserID == nil && w.State.DueAt != nil {
		w.WakeDue = w.State.DueAt
	}
	if eg.Finished() {
		placings := eg.Placings()
		for i := range seats {
			if n := seats[i].Seat; n != nil {
				t, p := eg.Totals()[*n], placings[*n]
				seats[i].Total, seats[i].Place = &t, &p
			}
		}
	}
	g.Version, g.Status, g.TurnSeat, g.TurnUserID, g.DueAt, g.UpdatedAt = w.State.Version, w.State.Status, w.State.TurnSeat, w.State.TurnUserID, w.State.DueAt, now
	if w.State.FinishedAt != nil {
		g.FinishedAt = w.State.FinishedAt
	}
	return &decision{write: w, eg: eg, after: &State{Game: g, Seats: seats, Options: st.Options, eg: eg}, prevTurn: prevTurn, now: now}, nil
}

// apply applies one action to a locked game inside the transaction: the
// engine decides; the game row's new state, the move and the round it may
// end are written in one statement; a finished game's placings and ratings
// and the mails the move causes follow, and every instance is told once it
// commits. It returns the state after the move, which enters the cache once
// committed.
func (s *Service) apply(ctx context.Context, tx *db.Tx, st *State, a engine.Action) (*State, error) {
	d, err := s.decide(st, a)
	if err != nil {
		return nil, err
	}
	g, seats, eg := st.Game, d.after.Seats, d.eg
	ok, err := tx.RecordMove(ctx, d.write)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrStale
	}
	if eg.Finished() {
		placings := eg.Placings()
		decisions := make([]int, len(placings))
		for i := range decisions {
			decisions[i] = eg.Decisions(i)
		}
		if err := tx.SetSeatResults(ctx, g.ID, eg.Totals(), placings, decisions); err != nil {
			return nil, err
		}
		if err := tx.RefreshReliability(ctx, people(seats), reliability.Window, d.now); err != nil {
			return nil, err
		}
		if hasPerson(seats) {
			if err := tx.EnqueueAnalysis(ctx, g.ID, d.now); err != nil {
				return nil, err
			}
			// Puzzles come from public games only (docs/puzzles.md).
			if g.Public {
				if err := tx.EnqueuePuzzleMining(ctx, g.ID, d.now); err != nil {
					return nil, err
				}
			}
		}
		if g.Ranked {
			if err := s.rate(ctx, tx, g, seats, placings, d.now); err != nil {
				return nil, err
			}
			if err := tx.EnqueueFairplay(ctx, g.ID, d.now); err != nil {
				return nil, err
			}
		}
		for _, seat := range seats {
			if seat.UserID != nil {
				tx.Notice(*seat.UserID, db.NoticeGameEnd, tournamentOf(g), g.ID)
			}
		}
		if s.onFinish != nil && g.TournamentID != nil {
			if err := s.onFinish(ctx, tx, d.after, placings, d.now); err != nil {
				return nil, err
			}
		}
	}
	if err := s.enqueueMails(ctx, tx, g, seats, d.write.State, d.prevTurn, d.now); err != nil {
		return nil, err
	}
	// Kept only once committed, so a rolled-back move is never cached.
	tx.AfterCommit(func() { s.cache.put(g.ID, eg) })
	return d.after, nil
}

// tournamentOf is the id of a game's tournament, 0 for none.
func tournamentOf(g db.Game) int64 {
	if g.TournamentID == nil {
		return 0
	}
	return *g.TournamentID
}

// people are the accounts seated (people and bot accounts, not the
// server's bots).
func people(seats []db.Seat) []int64 {
	var out []int64
	for _, st := range seats {
		if st.UserID != nil {
			out = append(out, *st.UserID)
		}
	}
	return out
}

// hasPerson reports whether a person holds a seat (a game of bots only,
// server bots or bot accounts, is not analysed).
func hasPerson(seats []db.Seat) bool {
	for _, st := range seats {
		if st.UserID != nil && !st.BotAccount {
			return true
		}
	}
	return false
}

// YourTurnDelay is how long a "your turn" mail waits before it is sent, so
// that a player who is at the table anyway is not mailed.
const YourTurnDelay = 2 * time.Minute

// enqueueMails writes the mails a move causes into the outbox, in the
// move's transaction: in a correspondence game, "your turn" when the turn
// passes to another player and a reminder when a fifth of their time is
// left; "game over" to every player when it ends.
func (s *Service) enqueueMails(ctx context.Context, tx *db.Tx, g db.Game, seats []db.Seat, st db.GameState, prevTurn int, now time.Time) error {
	if g.Pace != Correspondence {
		return nil
	}
	mail := func(userID int64, kind string, at time.Time) error {
		version := st.Version
		return tx.EnqueueMail(ctx, db.Mail{UserID: userID, Kind: kind, GameID: &g.ID, GameVersion: &version, SendAfter: at, CreatedAt: now})
	}
	if st.Status == db.StatusFinished {
		for _, seat := range seats {
			if seat.UserID != nil {
				if err := mail(*seat.UserID, db.MailGameOver, now); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if st.TurnUserID == nil || st.DueAt == nil {
		return nil
	}
	if st.TurnSeat != nil && *st.TurnSeat != prevTurn {
		if err := mail(*st.TurnUserID, db.MailYourTurn, now.Add(YourTurnDelay)); err != nil {
			return err
		}
	}
	return mail(*st.TurnUserID, db.MailReminder, ReminderAt(*st.DueAt, g.TurnSeconds))
}

// ReminderAt is when a correspondence player is reminded of a decision due
// at due: when a fifth of the time for it is left.
func ReminderAt(due time.Time, turnSeconds int) time.Time {
	return due.Add(-time.Duration(turnSeconds) * time.Second / 5)
}

func itoa(n int) string { return fmt.Sprint(n) }
