package games

import (
	"context"
	"errors"
	"fmt"
	"nothanks/internal/engine/bot"
	"strings"
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
	View *engine.View
	eg   *engine.Game
}

// Log is the whole public event log (nil before the start); the View holds
// only the round in play.
func (t *Table) Log() []engine.Event {
	if t.eg == nil {
		return nil
	}
	return t.eg.Events()
}

// WatchWindow is how recently a stream must have been seen to count.
const WatchWindow = time.Minute

// Table loads a game for a viewer (nil: a visitor) in one read. A private
// game is seen only by its players and by those who hold its invite code;
// to anyone else it does not exist.
func (s *Service) Table(ctx context.Context, viewerID *int64, gameID int64, code string) (*Table, error) {
	st, err := s.load(ctx, gameID)
	if err != nil {
		return nil, err
	}
	return st.Table(viewerID, code)
}

// State loads a game as of its current version in one read, for whoever
// projects it for several viewers (the event streams).
func (s *Service) State(ctx context.Context, gameID int64) (*State, error) {
	return s.load(ctx, gameID)
}

// Name is the name shown for a seat: the player's, or the bot's level.
func Name(st db.Seat) string {
	if st.Username != nil {
		if strings.HasPrefix(*st.Username, db.DeletedPrefix) {
			return db.DeletedName
		}
		return *st.Username
	}
	if st.ImportName != nil {
		return *st.ImportName
	}
	if st.BotLevel != nil {
		n := 0
		if st.BotNumber != nil {
			n = *st.BotNumber
		}
		return BotName(bot.Level(*st.BotLevel), n)
	}
	return "?"
}

// BotName is a bot's name at a table: its level's name and its number
// there ("Club bot 2"), which it keeps from the lobby into a rematch, so
// that two bots of one level are told apart and none changes its name.
func BotName(l bot.Level, number int) string {
	if number <= 0 {
		return l.Name()
	}
	return fmt.Sprintf("%s %d", l.Name(), number)
}

// SummaryNames are the names of a listed game's seats.
func SummaryNames(g db.GameSummary) []string {
	out := make([]string, len(g.Players))
	for i, name := range g.Players {
		out[i] = name
		if i < len(g.BotLevels) && g.BotLevels[i] != "" {
			out[i] = BotName(bot.Level(g.BotLevels[i]), int(g.BotNumbers[i]))
		}
	}
	return out
}

// SummaryBotAccounts are the names of a listed game's seats that are bot
// accounts' (docs/bots.md), never nil.
func SummaryBotAccounts(g db.GameSummary) []string {
	out := []string{}
	for i, name := range SummaryNames(g) {
		if i < len(g.BotAccounts) && g.BotAccounts[i] {
			out = append(out, name)
		}
	}
	return out
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

// Waiting counts the games waiting for a user's decision and the
// invitations waiting for their answer.
func (s *Service) Waiting(ctx context.Context, userID int64) (db.Waiting, error) {
	w, err := s.store.WaitingFor(ctx, userID, s.clock.Now())
	if err != nil {
		return db.Waiting{}, apperr.Wrap(err, apperr.Internal, "could not count your games")
	}
	return w, nil
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
