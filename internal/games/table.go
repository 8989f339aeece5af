package games

import (
	"context"
	"errors"
	"fmt"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
)

// Table is a game as one viewer may see it.
type Table struct {
	Game    db.Game
	Options engine.Options
	Seats   []db.Seat
	// ViewerSeat is the viewer's seat, or engine.Spectator.
	ViewerSeat int
	// Seated reports whether the viewer holds a seat (before the start too).
	Seated bool
	// View is the projection for the viewer; nil before the start.
	View     *engine.View
	Watchers int
}

// WatchWindow is how recently a stream must have been seen to count.
const WatchWindow = time.Minute

// Table loads a game for a viewer (nil: a visitor). A private game is seen
// only by its players and by those who hold its invite code; to anyone else
// it does not exist.
func (s *Service) Table(ctx context.Context, viewerID *int64, gameID int64, code string) (*Table, error) {
	g, err := s.store.Game(ctx, gameID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, errNoGame
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not load the game")
	}
	seats, err := s.store.Seats(ctx, gameID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not load the seats")
	}
	t := &Table{Game: g, Seats: seats, ViewerSeat: engine.Spectator}
	if viewerID != nil {
		if me := seatOf(seats, *viewerID); me != nil {
			t.Seated = true
			if me.Seat != nil {
				t.ViewerSeat = *me.Seat
			}
		}
	}
	if !g.Public && !t.Seated && code != g.InviteCode {
		return nil, errNoGame
	}
	if t.Options, err = options(g); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the options")
	}
	if g.Status == db.StatusPlaying || g.Status == db.StatusFinished {
		eg, err := s.engineGame(ctx, g)
		if err != nil {
			return nil, err
		}
		v := eg.View(t.ViewerSeat)
		t.View = &v
	}
	if g.Status == db.StatusPlaying {
		t.Watchers, err = s.store.Watchers(ctx, gameID, s.clock.Now().Add(-WatchWindow))
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "could not count watchers")
		}
	}
	return t, nil
}

// engineGame returns a started game's engine state (read only): cached at
// the row's version, or rebuilt from the move log and cached.
func (s *Service) engineGame(ctx context.Context, g db.Game) (*engine.Game, error) {
	if eg := s.cache.get(g.ID, g.Version); eg != nil {
		return eg, nil
	}
	moves, err := s.store.Moves(ctx, g.ID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not load the moves")
	}
	eg, err := rebuild(g, moves)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not rebuild the game")
	}
	// Only a log as long as the row says is the state at that version (a
	// move may commit between reading the row and reading the log).
	if eg.Version() == g.Version {
		s.cache.put(g.ID, eg)
	}
	return eg, nil
}

// Name is the name shown for a seat: the player's, or the bot's level.
func Name(st db.Seat) string {
	if st.Username != nil {
		return *st.Username
	}
	if st.BotLevel != nil {
		// Two bots of one level need telling apart: name them by seat.
		if st.Seat != nil {
			return fmt.Sprintf("%s bot %d", *st.BotLevel, *st.Seat+1)
		}
		return *st.BotLevel + " bot"
	}
	return "?"
}

// SeatNames lists the names of a started game's seats in seat order.
func (t *Table) SeatNames() []string {
	names := make([]string, 0, len(t.Seats))
	for _, st := range t.Seats {
		names = append(names, Name(st))
	}
	return names
}

// IsCreator reports whether a user created the game.
func (t *Table) IsCreator(userID *int64) bool {
	return userID != nil && *userID == t.Game.CreatorID
}

// Lists of games.

// OpenGames lists public games waiting for players.
func (s *Service) OpenGames(ctx context.Context) ([]db.GameSummary, error) {
	gs, err := s.store.OpenGames(ctx, 100)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not list open games")
	}
	return gs, nil
}

// LiveGames lists public games in play, with their watchers.
func (s *Service) LiveGames(ctx context.Context) ([]db.GameSummary, error) {
	gs, err := s.store.LiveGames(ctx, s.clock.Now().Add(-WatchWindow), 100)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not list live games")
	}
	return gs, nil
}

// MyGames lists a user's games: their turn first, then the rest, then
// finished ones.
func (s *Service) MyGames(ctx context.Context, userID int64) ([]db.GameSummary, error) {
	gs, err := s.store.UserGames(ctx, userID, 200)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not list your games")
	}
	return gs, nil
}

// CountMyTurn counts the games waiting for a user.
func (s *Service) CountMyTurn(ctx context.Context, userID int64) (int, error) {
	n, err := s.store.CountMyTurn(ctx, userID)
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not count your games")
	}
	return n, nil
}

// GameByInvite finds the game an invite code opens.
func (s *Service) GameByInvite(ctx context.Context, code string) (int64, error) {
	g, err := s.store.GameByInvite(ctx, code)
	if errors.Is(err, db.ErrNotFound) {
		return 0, apperr.E(apperr.NotFound, "This invite link is not valid (the game may be gone).")
	}
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not load the game")
	}
	return g.ID, nil
}
