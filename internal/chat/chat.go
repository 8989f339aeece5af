// Package chat is the table chat: at each game the players talk in one
// channel and the spectators in another. Messages are plain text that
// people type (the server adds nothing it knows, so chat carries no hidden
// information), at most MaxLength characters, at most RateLimit per
// RateWindow from one account across every server instance. They are
// stored with the game, reach the table's streams through Postgres
// NOTIFY, and are shown in the replay.
//
// Who may write: players at the table in the players' chat, other
// registered people in the spectators' chat; never guests, accounts a
// moderator silenced, or someone a player at the table blocks. Anyone may
// mute a game's chat for themselves, and report a message to the
// moderators.
package chat

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
)

// Limits.
const (
	MaxLength  = 300
	MaxReason  = 200
	RateLimit  = 5
	RateWindow = 10 * time.Second
	// Shown is how many of the latest messages of a channel the table
	// shows.
	Shown = 100
)

// Store is what the service needs of the database.
type Store interface {
	AddChat(ctx context.Context, m db.ChatMessage, pushTo []int64, pushAfter time.Time) (int64, error)
	Chat(ctx context.Context, gameID int64, limit int) ([]db.ChatMessage, db.ChatMark, error)
	ChatMessageByID(ctx context.Context, id int64) (db.ChatMessage, error)
	MuteChat(ctx context.Context, userID, gameID int64, now time.Time) error
	UnmuteChat(ctx context.Context, userID, gameID int64) error
	ChatMuted(ctx context.Context, userID, gameID int64) (bool, error)
	MarkChatRead(ctx context.Context, userID, gameID, last int64) error
	ReportChat(ctx context.Context, messageID, reporter int64, reason string, now time.Time) (bool, error)
	BlockedByAny(ctx context.Context, user int64, by []int64) (bool, error)
	CountAttempt(ctx context.Context, key string, limit int, now, expired time.Time) (db.Attempt, error)
	UserByID(ctx context.Context, id int64) (db.User, error)
}

// Service is the table chat.
type Service struct {
	store Store
	games *games.Service
	clock clock.Clock
}

// New makes the service.
func New(store Store, g *games.Service, clk clock.Clock) *Service {
	return &Service{store: store, games: g, clock: clk}
}

// ChannelOf is the chat a viewer of a game reads and writes: the players'
// for someone seated, else the spectators'.
func ChannelOf(st *games.State, userID *int64) string {
	if _, seated := st.SeatOf(userID); seated {
		return db.ChatPlayers
	}
	return db.ChatSpectators
}

// Clean makes what someone typed into one line of plain text: control
// characters (line breaks too) become spaces, runs of spaces one, invalid
// UTF-8 is dropped, and the ends are trimmed.
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u200b' || r == '\u2028' || r == '\u2029' {
			space = true
			continue
		}
		if unicode.Is(unicode.Cf, r) && r != '\u200d' { // format characters (bidi overrides …), but keep emoji joiners
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// Check says what is wrong with a cleaned message (nil when nothing).
func Check(body string) error {
	n := utf8.RuneCountInString(body)
	if n == 0 {
		return apperr.E(apperr.Invalid, "Write a message first.")
	}
	if n > MaxLength {
		return apperr.E(apperr.Invalid, "A message has at most %d characters; this one has %d.", MaxLength, n)
	}
	return nil
}

// mayChat says why a person may not write at all (nil when they may).
func (s *Service) mayChat(u db.User) error {
	switch {
	case u.Guest:
		return apperr.E(apperr.Forbidden, "Guests cannot chat: register (it keeps your games) to talk at tables.")
	case !u.Active():
		return apperr.E(apperr.Forbidden, "This account is closed.")
	case u.Silenced(s.clock.Now()):
		return apperr.E(apperr.Forbidden, "A moderator has silenced you in chat until %s (UTC).", u.SilencedUntil.UTC().Format("2006-01-02 15:04"))
	}
	return nil
}

// PushWait is how long a message waits before it is pushed to a player's
// devices: one who is at the table by then is not notified.
const PushWait = 30 * time.Second

// Post writes a message at a game as u; code is the invite code a
// spectator of a private game came with. It returns the message's id.
func (s *Service) Post(ctx context.Context, u db.User, gameID int64, code, text string) (int64, error) {
	// Read again: a moderator's silence must hold at once, whatever a
	// cache of the caller's account says.
	u, err := s.store.UserByID(ctx, u.ID)
	if err != nil {
		return 0, err
	}
	if err := s.mayChat(u); err != nil {
		return 0, err
	}
	body := Clean(text)
	if err := Check(body); err != nil {
		return 0, err
	}
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return 0, err
	}
	if !st.CanSee(&u.ID, code) {
		return 0, games.ErrNoGame
	}
	if st.Game.Status == db.StatusCancelled {
		return 0, apperr.E(apperr.Conflict, "This game was cancelled: its chat is closed.")
	}
	var others []int64
	for _, seat := range st.Seats {
		if seat.UserID != nil && *seat.UserID != u.ID {
			others = append(others, *seat.UserID)
		}
	}
	blocked, err := s.store.BlockedByAny(ctx, u.ID, others)
	if err != nil {
		return 0, err
	}
	if blocked {
		return 0, apperr.E(apperr.Forbidden, "You cannot chat at this table: a player here has blocked you.")
	}
	now := s.clock.Now()
	a, err := s.store.CountAttempt(ctx, "chat:"+strconv.FormatInt(u.ID, 10), RateLimit, now, now.Add(-RateWindow))
	if err != nil {
		return 0, err
	}
	if a.Count > RateLimit {
		wait := max(a.WindowFrom.Add(RateWindow).Sub(now).Round(time.Second), time.Second)
		e := apperr.E(apperr.TooMany, "You are writing too fast: at most %d messages in %d seconds. Wait %d s.", RateLimit, int(RateWindow/time.Second), int(wait/time.Second))
		e.RetryAfter = wait
		return 0, e
	}
	// A message in the players' chat of a game in play is pushed to the
	// other players' devices, unless they are at the table by then.
	channel := ChannelOf(st, &u.ID)
	var pushTo []int64
	if channel == db.ChatPlayers && st.Game.Status == db.StatusPlaying {
		pushTo = others
	}
	return s.store.AddChat(ctx, db.ChatMessage{GameID: gameID, UserID: u.ID, Channel: channel, Body: body, CreatedAt: now}, pushTo, now.Add(PushWait))
}

// Log is a game's chat as its table and replay show it.
type Log struct {
	Players, Spectators []db.ChatMessage
	// Mark is how far the chat had got when it was read.
	Mark db.ChatMark
}

// Channel returns one channel's messages.
func (l Log) Channel(ch string) []db.ChatMessage {
	if ch == db.ChatPlayers {
		return l.Players
	}
	return l.Spectators
}

// Read loads a game's chat (the latest Shown messages of each channel).
func (s *Service) Read(ctx context.Context, gameID int64) (Log, error) {
	ms, mark, err := s.store.Chat(ctx, gameID, Shown)
	if err != nil {
		return Log{}, err
	}
	l := Log{Mark: mark}
	for _, m := range ms {
		if m.Channel == db.ChatPlayers {
			l.Players = append(l.Players, m)
		} else {
			l.Spectators = append(l.Spectators, m)
		}
	}
	return l, nil
}

// Muted reports whether a person muted a game's chat.
func (s *Service) Muted(ctx context.Context, userID, gameID int64) (bool, error) {
	return s.store.ChatMuted(ctx, userID, gameID)
}

// SetMuted mutes or unmutes a game's chat for one person.
func (s *Service) SetMuted(ctx context.Context, userID, gameID int64, muted bool) error {
	if _, err := s.games.State(ctx, gameID); err != nil {
		return err
	}
	if muted {
		return s.store.MuteChat(ctx, userID, gameID, s.clock.Now())
	}
	return s.store.UnmuteChat(ctx, userID, gameID)
}

// MarkRead records that a player has seen their table's chat up to message
// last, so their list of games stops counting those messages as new. Only
// the players' reading is kept (spectators have no list of the game).
func (s *Service) MarkRead(ctx context.Context, userID, gameID, last int64) error {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return err
	}
	if !st.CanSee(&userID, "") {
		return games.ErrNoGame // a private table is not there for others
	}
	if ChannelOf(st, &userID) != db.ChatPlayers {
		return nil
	}
	return s.Seen(ctx, userID, gameID, last)
}

// Seen is MarkRead for a caller that has just read the game and knows the
// person sits at it (the table's page, the API's chat): no second read.
func (s *Service) Seen(ctx context.Context, userID, gameID, last int64) error {
	if last <= 0 {
		return nil
	}
	return s.store.MarkChatRead(ctx, userID, gameID, last)
}

// LastOf is the newest message of a channel, 0 for none.
func LastOf(ms []db.ChatMessage) int64 {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].ID
}

// ErrNoMessage answers a message that does not exist or that the person
// may not read.
var ErrNoMessage = apperr.E(apperr.NotFound, "There is no such message.")

// Report sends a message to the moderators; reporting it twice is
// answered, not counted twice. It returns the message's game.
func (s *Service) Report(ctx context.Context, u db.User, messageID int64, code, reason string) (int64, error) {
	if u.Guest || !u.Active() {
		return 0, apperr.E(apperr.Forbidden, "Log in with an account to report a message.")
	}
	m, err := s.Message(ctx, u, messageID, code)
	if err != nil {
		return 0, err
	}
	if m.UserID == u.ID {
		return m.GameID, apperr.E(apperr.Forbidden, "That is your own message.")
	}
	if m.HiddenAt != nil {
		return m.GameID, apperr.E(apperr.Conflict, "A moderator has hidden this message already.")
	}
	reason = Clean(reason)
	if n := utf8.RuneCountInString(reason); n > MaxReason {
		return 0, apperr.E(apperr.Invalid, "A reason has at most %d characters; this one has %d.", MaxReason, n)
	}
	fresh, err := s.store.ReportChat(ctx, messageID, u.ID, reason, s.clock.Now())
	if err != nil {
		return 0, err
	}
	if !fresh {
		return m.GameID, apperr.E(apperr.Conflict, "You have reported this message already; the moderators will look at it.")
	}
	return m.GameID, nil
}

// Message loads a message that u may read (for the report page).
func (s *Service) Message(ctx context.Context, u db.User, messageID int64, code string) (db.ChatMessage, error) {
	m, err := s.store.ChatMessageByID(ctx, messageID)
	if errors.Is(err, db.ErrNotFound) {
		return db.ChatMessage{}, ErrNoMessage
	}
	if err != nil {
		return db.ChatMessage{}, err
	}
	st, err := s.games.State(ctx, m.GameID)
	if err != nil {
		return db.ChatMessage{}, err
	}
	if u.Admin && u.Active() {
		// A moderator reads any message, hidden ones too, to judge it
		// and to undo a hide.
		return m, nil
	}
	if !st.CanSee(&u.ID, code) || (m.Channel != ChannelOf(st, &u.ID) && st.Game.Status != db.StatusFinished) || m.HiddenAt != nil {
		return db.ChatMessage{}, ErrNoMessage
	}
	return m, nil
}
