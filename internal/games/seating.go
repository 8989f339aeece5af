package games

import (
	"context"
	"encoding/json"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// SeatFor is a seat of a game made with its table already chosen: a person
// or a bot level.
type SeatFor struct {
	UserID   *int64
	BotLevel *string
	// BotNumber keeps a bot's name from an earlier table (nil: the next).
	BotNumber *int
}

// CreateSeated makes a game with its table already chosen, in order (the
// first seat is seat 0), and starts it, inside the caller's transaction: a
// rematch. The creator must be one of the people seated.
func (s *Service) CreateSeated(ctx context.Context, tx *db.Tx, creatorID int64, in CreateInput, seats []SeatFor) (int64, error) {
	in.Seats = len(seats)
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
	seed, err := randomSeed()
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not draw a seed")
	}
	now := s.clock.Now()
	id, err := tx.CreateGame(ctx, db.Game{
		CreatorID: creatorID, Options: opts, Seats: in.Seats, Public: !in.Private, InviteCode: code,
		Ranked: in.Ranked, Pace: in.Pace, TurnSeconds: in.TurnSeconds, Seed: seed, CreatedAt: now,
	})
	if err != nil {
		return 0, err
	}
	for i, st := range seats {
		// Seats are numbered in the order they were taken.
		if err := tx.AddSeat(ctx, id, st.UserID, st.BotLevel, st.BotNumber, now.Add(time.Duration(i)*time.Microsecond)); err != nil {
			return 0, err
		}
	}
	g, _, err := lockOpen(ctx, tx, id)
	if err != nil {
		return 0, err
	}
	return id, s.start(ctx, tx, g, now)
}

// InputOf is the create input a game was made with, for playing it again.
func InputOf(st *State) CreateInput {
	o := st.Options
	return CreateInput{
		Seats: o.Players, Rounds: o.Rounds, Variant: string(o.Variant), OpenTokens: o.OpenTokens, HiddenTiger: o.HiddenTiger,
		Private: !st.Game.Public, Ranked: st.Game.Ranked, Pace: st.Game.Pace, TurnSeconds: st.Game.TurnSeconds,
	}
}
