package games

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

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
func (s *Service) RunDue(ctx context.Context) (int, error) { return s.runDue(ctx, false) }

// OutageGrace is how late a player's deadline may be met by the worker
// before the decision is taken to have come due while the server was
// down or overloaded: every instance's worker looks at least every 5
// seconds and is woken at each deadline, so a worker that meets one half
// a minute late was not running, or not keeping up.
const OutageGrace = 30 * time.Second

// Sweep is RunDue as the worker of a running instance makes it: a
// player's decision it meets more than OutageGrace after its deadline
// came due while the server was away, and is not the player's timeout.
// The player is given back the time the server was away, up to a whole
// decision's time, from now; nothing is counted against them.
func (s *Service) Sweep(ctx context.Context) (int, error) { return s.runDue(ctx, true) }

func (s *Service) runDue(ctx context.Context, excuse bool) (int, error) {
	n := 0
	for ctx.Err() == nil {
		moved := false
		err := s.store.Tx(ctx, func(tx *db.Tx) error {
			ids, err := tx.DueGames(ctx, s.clock.Now(), 1)
			if err != nil || len(ids) == 0 {
				return err
			}
			moved = true
			return s.moveFor(ctx, tx, ids[0], excuse)
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

// moveFor makes the due move of a game claimed for it; with excuse, a
// player's deadline met late is moved on rather than timed out.
func (s *Service) moveFor(ctx context.Context, tx *db.Tx, gameID int64, excuse bool) error {
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
		now := s.clock.Now()
		if due := st.Game.DueAt; excuse && due != nil && now.Sub(*due) > OutageGrace {
			return s.giveTimeBack(ctx, tx, st.Game, now.Sub(*due), now)
		}
		timeout = true
		count, err := tx.AddTimeout(ctx, gameID, turn)
		if err != nil {
			return err
		}
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
			if err := s.abandoned(ctx, tx, st.Game, *bySeat(seats, turn), db.AbandonedByTimeouts, now); err != nil {
				return err
			}
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

// giveTimeBack moves on the deadline of a decision that came due while the
// server was away: the player has the time it was away again, up to one
// whole decision's time, and is told so by the table (its clock) and by
// the reminder, which follows the deadline.
func (s *Service) giveTimeBack(ctx context.Context, tx *db.Tx, g db.Game, away time.Duration, now time.Time) error {
	back := min(away, time.Duration(g.TurnSeconds)*time.Second)
	s.log.Warn("a deadline came due while the server was away; the player's time is given back",
		"game", g.ID, "late", away.Round(time.Second), "given", back.Round(time.Second))
	d, err := tx.MoveDeadline(ctx, g.ID, g.Version, now.Add(back))
	if err != nil {
		return err
	}
	return deadlinesMoved(ctx, tx, []db.Deadline{d}, now)
}
