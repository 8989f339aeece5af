// Package rematch is "Play again" at a finished table: any person who
// played offers the same table again (the same options and pace, the seats
// rotated by one so another player starts, the bots kept); it starts when
// every person has accepted, or when the one who offered starts it with
// those who accepted, if that makes at least 3 players. A rematch of a
// ranked game is casual: ranked tables come from the queue, so that friends
// cannot trade rating among themselves. An offer lasts a day.
package rematch

import (
	"context"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
)

// OfferFor is how long a rematch offer stands.
const OfferFor = 24 * time.Hour

// RematchPushWait is how long an offer waits before it is pushed to the
// others' devices: one who answers at the table first is not notified.
const RematchPushWait = 30 * time.Second

// Store is what the service needs of the database.
type Store interface {
	Tx(ctx context.Context, fn func(tx *db.Tx) error) error
	RematchOf(ctx context.Context, gameID int64) (*db.Rematch, error)
}

// Service offers and starts rematches.
type Service struct {
	store Store
	games *games.Service
	clock clock.Clock
}

// New makes the service.
func New(store Store, g *games.Service, clk clock.Clock) *Service {
	return &Service{store: store, games: g, clock: clk}
}

// Answer is a person's part in an offer.
type Answer struct {
	UserID int64
	Name   string
	// State is "accepted", "declined" or "waiting".
	State string
}

// State is a finished game's rematch as a viewer sees it.
type State struct {
	// Open: an offer stands (not expired, not yet a game).
	Open      bool
	OfferedBy int64
	Offerer   string
	Answers   []Answer
	// NewGameID is the game the rematch became (0: none yet).
	NewGameID int64
	// Players counts who would play if the offerer started now (those
	// who accepted and the bots).
	Players int
}

// StateOf reads a finished game's rematch (nil when none was offered or
// the offer expired).
func (s *Service) StateOf(ctx context.Context, st *games.State) (*State, error) {
	r, err := s.store.RematchOf(ctx, st.Game.ID)
	if err != nil || r == nil {
		return nil, err
	}
	return s.stateOf(r, st), nil
}

func (s *Service) stateOf(r *db.Rematch, st *games.State) *State {
	out := &State{OfferedBy: r.OfferedBy}
	if r.NewGameID != nil {
		out.NewGameID = *r.NewGameID
	} else if s.clock.Now().Before(r.ExpiresAt) {
		out.Open = true
	} else {
		return nil
	}
	for _, seat := range ordered(st.Seats) {
		if seat.UserID == nil {
			out.Players++ // a bot keeps its seat
			continue
		}
		a := Answer{UserID: *seat.UserID, Name: games.Name(seat), State: "waiting"}
		if acc, ok := r.Answers[*seat.UserID]; ok {
			a.State = map[bool]string{true: "accepted", false: "declined"}[acc]
		}
		if a.State == "accepted" {
			out.Players++
		}
		if *seat.UserID == r.OfferedBy {
			out.Offerer = a.Name
		}
		out.Answers = append(out.Answers, a)
	}
	return out
}

// Offer offers the table again, or accepts the offer that stands. When
// every person has accepted, the new game starts at once; its id is
// returned (0 while some have not answered).
func (s *Service) Offer(ctx context.Context, userID, gameID int64) (int64, error) {
	return s.answer(ctx, userID, gameID, true, false)
}

// Decline turns a standing offer down.
func (s *Service) Decline(ctx context.Context, userID, gameID int64) error {
	_, err := s.answer(ctx, userID, gameID, false, false)
	return err
}

// StartNow lets the one who offered start with those who accepted (and
// the bots), at least 3 players.
func (s *Service) StartNow(ctx context.Context, userID, gameID int64) (int64, error) {
	return s.answer(ctx, userID, gameID, true, true)
}

func (s *Service) answer(ctx context.Context, userID, gameID int64, accept, startNow bool) (int64, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return 0, err
	}
	if st.Game.Status != db.StatusFinished {
		return 0, apperr.E(apperr.Conflict, "A game can be played again once it is over.")
	}
	if st.Game.TournamentID != nil {
		return 0, apperr.E(apperr.Conflict, "A tournament's game is not played again: the tournament seats you at your next table.")
	}
	if !isPerson(st.Seats, userID) {
		return 0, apperr.E(apperr.Forbidden, "Only the people who played this game can play it again.")
	}
	now := s.clock.Now()
	var newID int64
	err = s.store.Tx(ctx, func(tx *db.Tx) error {
		r, err := tx.RematchForUpdate(ctx, gameID)
		if err != nil {
			return err
		}
		if r != nil && r.NewGameID != nil {
			newID = *r.NewGameID
			return apperr.E(apperr.Conflict, "This table is already playing again: game #%d.", newID)
		}
		if r == nil || !now.Before(r.ExpiresAt) {
			if !accept {
				return apperr.E(apperr.Conflict, "Nobody has offered to play again.")
			}
			if err := tx.OfferRematch(ctx, gameID, userID, now, now.Add(OfferFor)); err != nil {
				return err
			}
			r = &db.Rematch{GameID: gameID, OfferedBy: userID, ExpiresAt: now.Add(OfferFor), Answers: map[int64]bool{}}
			// The others hear of the offer on their devices too.
			var others []int64
			for _, seat := range st.Seats {
				if seat.UserID != nil && *seat.UserID != userID {
					others = append(others, *seat.UserID)
				}
			}
			for _, o := range others {
				tx.Notice(o, db.NoticeRematchOffer, 0, gameID)
			}
			if err := tx.EnqueuePush(ctx, db.Push{UserIDs: others, Kind: db.PushRematch, GameID: &gameID, SendAfter: now.Add(RematchPushWait), CreatedAt: now}); err != nil {
				return err
			}
		}
		if startNow && r.OfferedBy != userID {
			return apperr.E(apperr.Forbidden, "Only the player who offered can start without the others.")
		}
		if err := tx.AnswerRematch(ctx, gameID, userID, accept, now); err != nil {
			return err
		}
		r.Answers[userID] = accept
		state := s.stateOf(r, st)
		all := true
		for _, a := range state.Answers {
			all = all && a.State == "accepted"
		}
		if !all && !startNow {
			return tx.NotifyGame(ctx, gameID, st.Game.Version)
		}
		if state.Players < engine.MinPlayers {
			return apperr.E(apperr.Conflict, "A game needs at least %d players: %d have accepted (bots included).", engine.MinPlayers, state.Players)
		}
		newID, err = s.create(ctx, tx, st, r)
		if err != nil {
			return err
		}
		if err := tx.SetRematchGame(ctx, gameID, newID); err != nil {
			return err
		}
		return tx.NotifyGame(ctx, gameID, st.Game.Version)
	})
	if err != nil {
		return newID, err
	}
	return newID, nil
}

// create starts the new game: the same options and pace, the players who
// accepted and the bots, every seat moved one place on so that the second
// seat of the last game is the first of this one.
func (s *Service) create(ctx context.Context, tx *db.Tx, st *games.State, r *db.Rematch) (int64, error) {
	var seats []games.SeatFor
	for _, seat := range ordered(st.Seats) {
		if seat.UserID != nil && !r.Answers[*seat.UserID] {
			continue
		}
		seats = append(seats, games.SeatFor{UserID: seat.UserID, BotLevel: seat.BotLevel, BotNumber: seat.BotNumber})
	}
	if len(seats) > 1 {
		seats = append(seats[1:], seats[0])
	}
	in := games.InputOf(st)
	in.Ranked = false
	return s.games.CreateSeated(ctx, tx, r.OfferedBy, in, seats)
}

// ordered lists the seats by seat number.
func ordered(seats []db.Seat) []db.Seat {
	out := make([]db.Seat, 0, len(seats))
	for n := 0; n < len(seats); n++ {
		for _, st := range seats {
			if st.Seat != nil && *st.Seat == n {
				out = append(out, st)
			}
		}
	}
	return out
}

func isPerson(seats []db.Seat, userID int64) bool {
	for _, st := range seats {
		if st.UserID != nil && *st.UserID == userID {
			return true
		}
	}
	return false
}
