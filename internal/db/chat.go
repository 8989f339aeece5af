package db

import (
	"context"
	"fmt"
	"time"
)

// Chat channels of a game.
const (
	ChatPlayers    = "players"
	ChatSpectators = "spectators"
)

// ChatMessage is a row of chat_messages with its author's name.
type ChatMessage struct {
	ID     int64 `db:"id" json:"id"`
	GameID int64 `db:"game_id" json:"game_id"`
	UserID int64 `db:"user_id" json:"-"`
	// Author is the writer's name, DeletedName for a deleted account.
	Author string `db:"author" json:"author"`
	// AuthorBot: the writer is a bot account (docs/bots.md).
	AuthorBot bool       `db:"author_bot" json:"-"`
	Channel   string     `db:"channel" json:"channel"`
	Body      string     `db:"body" json:"body"`
	CreatedAt time.Time  `db:"created_at" json:"created_at"`
	HiddenAt  *time.Time `db:"hidden_at" json:"-"`
}

const chatColumns = `m.id, m.game_id, m.user_id, CASE WHEN u.deleted_at IS NOT NULL THEN '` + DeletedName + `' ELSE u.username END AS author,
	u.bot AND u.deleted_at IS NULL AS author_bot, m.channel, m.body, m.created_at, m.hidden_at`

// ChatChannel is the LISTEN/NOTIFY channel of chat changes (a message
// said or hidden), payload the game's id.
const ChatChannel = "chat_changed"

// AddChat stores a message and tells every instance once it commits.
// The players named in pushTo are pushed the news (to their devices, once
// the push's wait is over) in the same transaction.
func (s *Store) AddChat(ctx context.Context, m ChatMessage, pushTo []int64, pushAfter time.Time) (int64, error) {
	var id int64
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := get(ctx, tx.tx, &id, `
			INSERT INTO chat_messages (game_id, user_id, channel, body, created_at) VALUES ($1, $2, $3, $4, $5)
			RETURNING id`, m.GameID, m.UserID, m.Channel, m.Body, m.CreatedAt); err != nil {
			return fmt.Errorf("db: add chat: %w", err)
		}
		if err := tx.EnqueuePush(ctx, Push{UserIDs: pushTo, Kind: PushChat, GameID: &m.GameID, SendAfter: pushAfter, CreatedAt: m.CreatedAt}); err != nil {
			return err
		}
		tx.notes = append(tx.notes, note{ChatChannel, fmt.Sprint(m.GameID)})
		return nil
	})
	return id, err
}

// ChatMark tells how far a game's chat has got: its newest message and how
// many of its messages are hidden. Two reads with the same mark show the
// same chat, so a stream that holds an older mark missed a change.
type ChatMark struct {
	Last   int64 `db:"chat_last"`
	Hidden int   `db:"chat_hidden"`
}

// Chat reads the last limit messages of each of a game's channels, oldest
// first, and the chat's mark as of the same read.
func (s *Store) Chat(ctx context.Context, gameID int64, limit int) ([]ChatMessage, ChatMark, error) {
	var rows []struct {
		ChatMessage
		ChatMark
	}
	err := sel(ctx, s.DB, &rows, `
		SELECT id, game_id, user_id, author, author_bot, channel, body, created_at, hidden_at, chat_last, chat_hidden FROM (
			SELECT `+chatColumns+`, row_number() OVER (PARTITION BY m.channel ORDER BY m.id DESC) AS n,
				max(m.id) OVER () AS chat_last, count(m.hidden_at) OVER ()::int AS chat_hidden
			FROM chat_messages m JOIN users u ON u.id = m.user_id
			WHERE m.game_id = $1) x
		WHERE x.n <= $2 ORDER BY x.id`, gameID, limit)
	if err != nil {
		return nil, ChatMark{}, fmt.Errorf("db: chat of game %d: %w", gameID, err)
	}
	out := make([]ChatMessage, len(rows))
	var mark ChatMark
	for i, r := range rows {
		out[i], mark = r.ChatMessage, r.ChatMark
	}
	return out, mark, nil
}

// ChatMessageByID loads one message.
func (s *Store) ChatMessageByID(ctx context.Context, id int64) (ChatMessage, error) {
	var m ChatMessage
	err := get(ctx, s.DB, &m, `SELECT `+chatColumns+` FROM chat_messages m JOIN users u ON u.id = m.user_id WHERE m.id = $1`, id)
	if err != nil {
		return ChatMessage{}, fmt.Errorf("db: chat message %d: %w", id, notFound(err))
	}
	return m, nil
}

// unreadChat is the condition of a message m of the players' chat that the
// person user has not read at game: another player's, not hidden, newer
// than what they read, in a chat they did not mute.
func unreadChat(m, user, game string) string {
	return m + `.game_id = ` + game + ` AND ` + m + `.channel = 'players' AND ` + m + `.user_id <> ` + user + ` AND ` + m + `.hidden_at IS NULL
		AND ` + m + `.id > COALESCE((SELECT r.last_id FROM chat_reads r WHERE r.user_id = ` + user + ` AND r.game_id = ` + game + `), 0)
		AND NOT EXISTS (SELECT 1 FROM chat_mutes x WHERE x.user_id = ` + user + ` AND x.game_id = ` + game + `)`
}

// UnreadChat reads the last limit messages of a game's players' chat that
// a person has not read, oldest first, and how many there are in all.
func (s *Store) UnreadChat(ctx context.Context, userID, gameID int64, limit int) ([]ChatMessage, int, error) {
	var rows []struct {
		ChatMessage
		Total int `db:"total"`
	}
	err := sel(ctx, s.DB, &rows, `SELECT * FROM (
			SELECT `+chatColumns+`, count(*) OVER ()::int AS total
			FROM chat_messages m JOIN users u ON u.id = m.user_id
			WHERE `+unreadChat("m", "$1", "$2")+`
			ORDER BY m.id DESC LIMIT $3) x ORDER BY x.id`, userID, gameID, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("db: unread chat of %d at game %d: %w", userID, gameID, err)
	}
	out := make([]ChatMessage, len(rows))
	total := 0
	for i, r := range rows {
		out[i], total = r.ChatMessage, r.Total
	}
	return out, total, nil
}

// MarkChatRead records that a person has seen a game's chat up to message
// last (never further than the chat goes, never back; a read that tells
// nothing new writes nothing).
func (s *Store) MarkChatRead(ctx context.Context, userID, gameID, last int64) error {
	return exec(ctx, s.DB, "mark chat read", `
		INSERT INTO chat_reads (user_id, game_id, last_id)
		SELECT $1, $2, LEAST($3, max(id)) FROM chat_messages WHERE game_id = $2 HAVING max(id) IS NOT NULL
		ON CONFLICT (user_id, game_id) DO UPDATE SET last_id = EXCLUDED.last_id
		WHERE chat_reads.last_id < EXCLUDED.last_id`, userID, gameID, last)
}

// MuteChat and UnmuteChat set whether a person hears a game's chat.
func (s *Store) MuteChat(ctx context.Context, userID, gameID int64, now time.Time) error {
	return exec(ctx, s.DB, "mute chat", `INSERT INTO chat_mutes (user_id, game_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, userID, gameID, now)
}

// UnmuteChat: see MuteChat.
func (s *Store) UnmuteChat(ctx context.Context, userID, gameID int64) error {
	return exec(ctx, s.DB, "unmute chat", `DELETE FROM chat_mutes WHERE user_id = $1 AND game_id = $2`, userID, gameID)
}

// ChatMuted reports whether a person muted a game's chat.
func (s *Store) ChatMuted(ctx context.Context, userID, gameID int64) (bool, error) {
	var yes bool
	if err := get(ctx, s.DB, &yes, `SELECT EXISTS (SELECT 1 FROM chat_mutes WHERE user_id = $1 AND game_id = $2)`, userID, gameID); err != nil {
		return false, fmt.Errorf("db: chat muted: %w", err)
	}
	return yes, nil
}

// ReportChat records a report of a message; a second report of the same
// message by the same person changes nothing (false).
func (s *Store) ReportChat(ctx context.Context, messageID, reporter int64, reason string, now time.Time) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `
		INSERT INTO chat_reports (message_id, reporter_id, reason, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, messageID, reporter, reason, now)
	if err != nil {
		return false, fmt.Errorf("db: report chat: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
