package games

import (
	"context"
	"slices"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
)

// AbandonHook is told, inside the transaction, of every seat a person
// abandons in a game in play: by letting MaxTimeouts decisions run out
// (db.AbandonedByTimeouts) or by leaving (db.AbandonedByLeaving). The
// leavers' service records rated abandonments and their pauses there.
type AbandonHook func(ctx context.Context, tx *db.Tx, g db.Game, seat db.Seat, how string, now time.Time) error

// OnAbandon sets the hook told of abandoned seats.
func (s *Service) OnAbandon(h AbandonHook) { s.onAbandon = h }

// abandoned tells the hook of an abandoned seat, if there is a hook.
func (s *Service) abandoned(ctx context.Context, tx *db.Tx, g db.Game, seat db.Seat, how string, now time.Time) error {
	if s.onAbandon == nil || seat.UserID == nil {
		return nil
	}
	return s.onAbandon(ctx, tx, g, seat, how, now)
}

// Refusals of a leave.
var (
	ErrLeaveFinished = apperr.E(apperr.Conflict, "The game is over: there is no seat to leave. Its result stands.")
	ErrLeftAlready   = apperr.E(apperr.Conflict, "You have left this game already: the server plays your seat to the end.")
	ErrLeaveOpen     = apperr.E(apperr.Conflict, "The game has not started: leave the table instead, which costs nothing.")
)

// Abandon lets a player leave a game in play for good: their seat is
// abandoned at once, exactly as after MaxTimeouts timeouts. The leave is a
// move of the log (every player and spectator reads it); the server plays
// the seat from then on, at once if it is the seat's turn; the player
// places last; a ranked game rates them last when it ends. It returns the
// game after the leave.
func (s *Service) Abandon(ctx context.Context, userID, gameID int64) (*State, error) {
	var after *State
	err := s.store.Tx(ctx, func(tx *db.Tx) error {
		st, err := s.lock(ctx, tx, gameID)
		if err != nil {
			return err
		}
		if err := CanAbandon(st, userID); err != nil {
			return err
		}
		me := seatOf(st.Seats, userID)
		now := s.clock.Now()
		seats := slices.Clone(st.Seats)
		mine := bySeat(seats, *me.Seat)
		mine.Abandoned = true
		marked := &State{Game: st.Game, Seats: seats, Options: st.Options, eg: st.eg}
		if after, err = s.apply(ctx, tx, marked, engine.Action{Seat: *me.Seat, Kind: engine.Leave}); err != nil {
			return err
		}
		if err := tx.MarkLeft(ctx, gameID, *me.Seat, now); err != nil {
			return err
		}
		return s.abandoned(ctx, tx, st.Game, *mine, db.AbandonedByLeaving, now)
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// CanAbandon says why a player may not leave a game as it is (nil: they
// may): they are not at it, it has not started or is over, or they left
// it already (or let their time run out too often).
func CanAbandon(st *State, userID int64) error {
	me := seatOf(st.Seats, userID)
	if me == nil {
		if !st.Game.Public {
			return ErrNoGame
		}
		return apperr.E(apperr.Forbidden, "You are not playing in this game.")
	}
	switch st.Game.Status {
	case db.StatusOpen:
		return ErrLeaveOpen
	case db.StatusFinished:
		return ErrLeaveFinished
	case db.StatusCancelled:
		return apperr.E(apperr.Conflict, "This game was cancelled: there are no moves to make in it.")
	}
	if me.Abandoned || me.Seat == nil || st.eg == nil || st.eg.Abandoned(*me.Seat) {
		return ErrLeftAlready
	}
	return nil
}
