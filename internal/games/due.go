package games

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// MaxTimeouts is how many decisions a player may let run out in one game;
// at that many they have abandoned it and a bot plays their seat. The
// engine counts them from the log too, and places such a player last.
const MaxTimeouts = engine.MaxTimeouts

// RunDue makes every move that is due: bots whose pause is over and players
// whose time ran out (decided for them by the heuristic bot, marked as a
// timeout). Each game is claimed with FOR UPDATE SKIP LOCKED in its own
// transaction, so several instances share the work and none is done twice.
// It returns how many moves it made.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		moved := false
		err := s.store.Tx(ctx, func(tx *db.Tx) error {
			ids, err := tx.DueGames(ctx, s.clock.Now(), 1)
			if err != nil || len(ids) == 0 {
				return err
			}
			moved = true
			return s.moveFor(ctx, tx, ids[0])
		})
		if err != nil {
			return n, err
		}
		if !moved {
			return n, nil
		}
		n++
	}
	return n, ctx.Err()
}

// moveFor makes the due move of a game claimed for it.
func (s *Service) moveFor(ctx context.Context, tx *db.Tx, gameID int64) error {
	st, err := s.lock(ctx, tx, gameID)
	if err != nil {
		return err
	}
	if st.eg == nil || st.eg.Finished() {
		return nil
	}
	turn := st.eg.Turn()
	seat := bySeat(st.Seats, turn)
	if seat == nil {
		return fmt.Errorf("games: game %d has no seat %d", gameID, turn)
	}
	level := bot.Heuristic
	timeout := false
	switch {
	case seat.BotLevel != nil:
		level = bot.Level(*seat.BotLevel)
	case seat.Abandoned:
	default:
		timeout = true
		count, err := tx.AddTimeout(ctx, gameID, turn)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		version := st.Game.Version + 1
		if err := tx.EnqueueMail(ctx, db.Mail{UserID: *seat.UserID, Kind: db.MailTimedOut, GameID: &gameID, GameVersion: &version, SendAfter: now, CreatedAt: now}); err != nil {
			return err
		}
		if count >= MaxTimeouts {
			if err := tx.MarkAbandoned(ctx, gameID, turn); err != nil {
				return err
			}
			seats := slices.Clone(st.Seats)
			bySeat(seats, turn).Abandoned = true
			st = &State{Game: st.Game, Seats: seats, Options: st.Options, eg: st.eg}
		}
	}
	b, err := bot.New(level)
	if err != nil {
		return err
	}
	kind := b.Decide(st.eg.View(turn), mrand.New(mrand.NewPCG(uint64(st.Game.Seed), uint64(st.Game.Version))))
	_, err = s.apply(ctx, tx, st, engine.Action{Seat: turn, Kind: kind, Timeout: timeout})
	if errors.Is(err, ErrStale) {
		return nil
	}
	return err
}
