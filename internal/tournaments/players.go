package tournaments

import (
	"context"
	"errors"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// Join enters a person in an event (code: a private event's). A player who
// paused comes back by joining again.
func (s *Service) Join(ctx context.Context, u db.User, id int64, code string) error {
	switch {
	case u.Guest:
		return apperr.E(apperr.Forbidden, "Guests cannot play in tournaments: register (free) to join.")
	case u.Bot:
		return apperr.E(apperr.Forbidden, "Bot accounts do not play in tournaments: they play casual games, and ranked games in the bot queue.")
	case !u.Active():
		return apperr.E(apperr.Forbidden, "This account is closed.")
	}
	now := s.clock.Now()
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		t, err := tx.TournamentForUpdate(ctx, id)
		if errors.Is(err, db.ErrNotFound) {
			return ErrNoTournament
		}
		if err != nil {
			return err
		}
		p, err := tx.TournamentPlayer(ctx, id, u.ID)
		in := err == nil
		if err != nil && !errors.Is(err, db.ErrNotFound) {
			return err
		}
		if !t.Public && code != t.Code && !in {
			return ErrNoTournament
		}
		// A rated event seats only a player not paused from rated play.
		ratedSeat := func() error {
			if !t.Rated {
				return nil
			}
			return s.games.CheckRatedSeat(ctx, tx, u.ID)
		}
		switch t.Status {
		case db.TournamentFinished:
			return apperr.E(apperr.Conflict, "This tournament is over.")
		case db.TournamentCancelled:
			return apperr.E(apperr.Conflict, "This tournament was cancelled.")
		}
		if in {
			switch p.Status {
			case db.PlayerWithdrawn:
				return apperr.E(apperr.Conflict, "You withdrew from this tournament: you cannot join it again.")
			case db.PlayerPaused:
				if err := ratedSeat(); err != nil {
					return err
				}
				return s.comeBack(ctx, tx, t, u.ID)
			}
			return apperr.E(apperr.Conflict, "You are in this tournament already.")
		}
		if t.Kind == db.KindSwiss && t.Status == db.TournamentRunning {
			return apperr.E(apperr.Conflict, "This Swiss tournament has begun: players join before its first round.")
		}
		if t.Kind == db.KindArena && t.Status == db.TournamentRunning && !now.Before(t.EndsAt()) {
			return apperr.E(apperr.Conflict, "This arena's time is over: its last games are being played.")
		}
		if t.Players >= t.MaxPlayers {
			return apperr.E(apperr.Conflict, "This tournament is full: %d players.", t.MaxPlayers)
		}
		if err := ratedSeat(); err != nil {
			return err
		}
		rating, err := tx.Rating(ctx, u.ID)
		if err != nil {
			return err
		}
		if err := tx.JoinTournament(ctx, id, u.ID, rating, &now, now); err != nil {
			if errors.Is(err, db.ErrJoined) {
				return apperr.E(apperr.Conflict, "You are in this tournament already.")
			}
			return err
		}
		if t.Status == db.TournamentRunning {
			if err := tx.SetTournamentDue(ctx, id, now.Add(s.WaveWait)); err != nil {
				return err
			}
		}
		tx.NoteTournamentList()
		return tx.TouchTournament(ctx, id)
	})
}

// comeBack makes a paused arena player active again: seated when free.
func (s *Service) comeBack(ctx context.Context, tx *db.Tx, t db.Tournament, userID int64) error {
	now := s.clock.Now()
	if err := tx.SetPlayerStatus(ctx, t.ID, userID, db.PlayerActive, now); err != nil {
		return err
	}
	if t.Status == db.TournamentRunning {
		if err := tx.SetTournamentDue(ctx, t.ID, now.Add(s.WaveWait)); err != nil {
			return err
		}
	}
	return tx.TouchTournament(ctx, t.ID)
}

// player locks an event and one of its players for a change of theirs.
func (s *Service) player(ctx context.Context, tx *db.Tx, userID, id int64) (db.Tournament, db.TournamentPlayer, error) {
	t, err := tx.TournamentForUpdate(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return t, db.TournamentPlayer{}, ErrNoTournament
	}
	if err != nil {
		return t, db.TournamentPlayer{}, err
	}
	p, err := tx.TournamentPlayer(ctx, id, userID)
	if errors.Is(err, db.ErrNotFound) {
		if !t.Public {
			return t, p, ErrNoTournament
		}
		return t, p, apperr.E(apperr.Conflict, "You are not in this tournament.")
	}
	if err != nil {
		return t, p, err
	}
	switch t.Status {
	case db.TournamentFinished:
		return t, p, apperr.E(apperr.Conflict, "This tournament is over.")
	case db.TournamentCancelled:
		return t, p, apperr.E(apperr.Conflict, "This tournament was cancelled.")
	}
	if p.Status == db.PlayerWithdrawn {
		return t, p, apperr.E(apperr.Conflict, "You have withdrawn from this tournament already.")
	}
	return t, p, nil
}

// Pause keeps an arena player from being seated until they come back (the
// game they sit at, if any, is played to its end).
func (s *Service) Pause(ctx context.Context, userID, id int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		t, p, err := s.player(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if t.Kind != db.KindArena {
			return apperr.E(apperr.Conflict, "A Swiss tournament has no pause: you play every round, or withdraw.")
		}
		if p.Status == db.PlayerPaused {
			return apperr.E(apperr.Conflict, "You have paused already.")
		}
		if err := tx.SetPlayerStatus(ctx, id, userID, db.PlayerPaused, s.clock.Now()); err != nil {
			return err
		}
		return tx.TouchTournament(ctx, id)
	})
}

// Resume brings a paused arena player back.
func (s *Service) Resume(ctx context.Context, userID, id int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		t, p, err := s.player(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if p.Status != db.PlayerPaused {
			return apperr.E(apperr.Conflict, "You are not paused.")
		}
		return s.comeBack(ctx, tx, t, userID)
	})
}

// Withdraw takes a player out of an event for good; the results they have
// stand, and a game they sit at is played to its end.
func (s *Service) Withdraw(ctx context.Context, userID, id int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		t, _, err := s.player(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if t.Status == db.TournamentUpcoming {
			// Before the start, withdrawing is leaving: one may join again.
			if err := tx.LeaveTournament(ctx, id, userID); err != nil {
				return err
			}
			tx.NoteTournamentList()
			return tx.TouchTournament(ctx, id)
		}
		if err := tx.SetPlayerStatus(ctx, id, userID, db.PlayerWithdrawn, s.clock.Now()); err != nil {
			return err
		}
		return tx.TouchTournament(ctx, id)
	})
}
