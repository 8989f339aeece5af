package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Moderation actions, as the log names them.
const (
	ModGrant     = "grant"
	ModRevoke    = "revoke"
	ModHide      = "hide"
	ModUnhide    = "unhide"
	ModDismiss   = "dismiss"
	ModSilence   = "silence"
	ModUnsilence = "unsilence"
	ModDisable   = "disable"
	ModEnable    = "enable"
	// A tournament's description hidden or shown again.
	ModHideEvent   = "hide_event"
	ModUnhideEvent = "unhide_event"
	// A player's appeal of an abandonment, answered.
	ModAppealForgiven = "appeal_forgiven"
	ModAppealUpheld   = "appeal_upheld"
)

// ModEntry is a row of moderation_log with the names it concerns.
type ModEntry struct {
	ID         int64   `db:"id"`
	AdminName  *string `db:"admin_name"`
	Action     string  `db:"action"`
	TargetName *string `db:"target_name"`
	MessageID  *int64  `db:"message_id"`
	// MessageBody is the text of the message the action was about, and
	// MessageHidden whether it is hidden now.
	MessageBody   *string   `db:"message_body"`
	MessageHidden bool      `db:"message_hidden"`
	Note          string    `db:"note"`
	CreatedAt     time.Time `db:"created_at"`
}

func logModeration(ctx context.Context, tx *Tx, admin *int64, action string, target, message *int64, note string, at time.Time) error {
	return exec(ctx, tx.tx, "log moderation", `
		INSERT INTO moderation_log (admin_id, action, target_user, message_id, note, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, admin, action, target, message, note, at)
}

// SetAdmin grants or revokes the admin role (from the command line: no
// admin is named in the log); it reports false when no such user exists.
func (s *Store) SetAdmin(ctx context.Context, name string, admin bool, at time.Time) (bool, error) {
	found := false
	err := s.Tx(ctx, func(tx *Tx) error {
		var ids []int64
		if err := sel(ctx, tx.tx, &ids, `UPDATE users SET admin = $2 WHERE lower(username) = lower($1) AND NOT guest AND deleted_at IS NULL RETURNING id`, name, admin); err != nil {
			return fmt.Errorf("db: set admin: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		found = true
		action := ModGrant
		if !admin {
			action = ModRevoke
		}
		return logModeration(ctx, tx, nil, action, &ids[0], nil, "", at)
	})
	return found, err
}

// HideChat hides (or shows again) a message, resolves its reports, logs it
// and tells the streams.
func (s *Store) HideChat(ctx context.Context, admin, messageID int64, hide bool, at time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		var m struct {
			GameID int64 `db:"game_id"`
			UserID int64 `db:"user_id"`
		}
		var hiddenAt *time.Time
		var hiddenBy *int64
		action := ModUnhide
		if hide {
			hiddenAt, hiddenBy, action = &at, &admin, ModHide
		}
		err := get(ctx, tx.tx, &m, `
			UPDATE chat_messages SET hidden_at = $2, hidden_by = $3
			WHERE id = $1 AND (hidden_at IS NOT NULL) <> $4 RETURNING game_id, user_id`, messageID, hiddenAt, hiddenBy, hide)
		if hide && (err == nil || errors.Is(err, sql.ErrNoRows)) {
			if err := resolveReports(ctx, tx, admin, messageID, at); err != nil {
				return err
			}
		}
		if errors.Is(err, sql.ErrNoRows) {
			// Already as asked (another moderator was first), or no such
			// message: nothing changes and nothing is logged.
			var exists bool
			if err := get(ctx, tx.tx, &exists, `SELECT EXISTS (SELECT 1 FROM chat_messages WHERE id = $1)`, messageID); err != nil {
				return fmt.Errorf("db: hide chat %d: %w", messageID, err)
			}
			if !exists {
				return fmt.Errorf("db: hide chat %d: %w", messageID, ErrNotFound)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("db: hide chat %d: %w", messageID, err)
		}
		tx.notes = append(tx.notes, note{ChatChannel, fmt.Sprint(m.GameID)})
		return logModeration(ctx, tx, &admin, action, &m.UserID, &messageID, "", at)
	})
}

func resolveReports(ctx context.Context, tx *Tx, admin, messageID int64, at time.Time) error {
	return exec(ctx, tx.tx, "resolve reports", `
		UPDATE chat_reports SET resolved_at = $3, resolved_by = $2 WHERE message_id = $1 AND resolved_at IS NULL`, messageID, admin, at)
}

// DismissReports closes a message's reports without acting on it.
func (s *Store) DismissReports(ctx context.Context, admin, messageID int64, at time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		var author int64
		if err := get(ctx, tx.tx, &author, `SELECT user_id FROM chat_messages WHERE id = $1`, messageID); err != nil {
			return fmt.Errorf("db: dismiss reports %d: %w", messageID, notFound(err))
		}
		if err := resolveReports(ctx, tx, admin, messageID, at); err != nil {
			return err
		}
		return logModeration(ctx, tx, &admin, ModDismiss, &author, &messageID, "", at)
	})
}

// Silence bars a user from chat until until (nil: lifts it), logged.
func (s *Store) Silence(ctx context.Context, admin, userID int64, until *time.Time, note string, at time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		if err := exec(ctx, tx.tx, "silence", `UPDATE users SET silenced_until = $2 WHERE id = $1`, userID, until); err != nil {
			return err
		}
		action := ModSilence
		if until == nil {
			action = ModUnsilence
		}
		return logModeration(ctx, tx, &admin, action, &userID, nil, note, at)
	})
}

// Disable closes an account (or opens it again): a disabled account's
// sessions end and its API tokens are revoked, every instance hearing of
// each token (TokenChannel), in the same transaction as the log entry. It
// returns the revoked tokens' hashes (hex), for this instance to forget at
// once.
func (s *Store) Disable(ctx context.Context, admin, userID int64, disable bool, note string, at time.Time) ([]string, error) {
	var revoked []string
	err := s.Tx(ctx, func(tx *Tx) error {
		var when *time.Time
		action := ModEnable
		if disable {
			when, action = &at, ModDisable
		}
		if err := exec(ctx, tx.tx, "disable", `UPDATE users SET disabled_at = $2 WHERE id = $1`, userID, when); err != nil {
			return err
		}
		if disable {
			var err error
			if revoked, err = endAccess(ctx, tx, userID, at); err != nil {
				return err
			}
		}
		return logModeration(ctx, tx, &admin, action, &userID, nil, note, at)
	})
	return revoked, err
}

// endAccess ends every session of a user and revokes their API tokens,
// returning the tokens' hashes (hex).
func endAccess(ctx context.Context, tx *Tx, userID int64, at time.Time) ([]string, error) {
	if err := exec(ctx, tx.tx, "end sessions", `DELETE FROM sessions WHERE user_id = $1`, userID); err != nil {
		return nil, err
	}
	var hashes []string
	if err := sel(ctx, tx.tx, &hashes, `UPDATE api_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL
		RETURNING encode(token_hash, 'hex')`, userID, at); err != nil {
		return nil, fmt.Errorf("db: revoke tokens: %w", err)
	}
	for _, h := range hashes {
		tx.notes = append(tx.notes, note{TokenChannel, h})
	}
	return hashes, nil
}

// Report is an open report as the moderators' page shows it: the message,
// its author, and how many reported it.
type Report struct {
	MessageID  int64      `db:"message_id"`
	GameID     int64      `db:"game_id"`
	Channel    string     `db:"channel"`
	Body       string     `db:"body"`
	AuthorID   int64      `db:"author_id"`
	Author     string     `db:"author"`
	SaidAt     time.Time  `db:"said_at"`
	HiddenAt   *time.Time `db:"hidden_at"`
	Reports    int        `db:"reports"`
	Reasons    string     `db:"reasons"`
	Reporters  string     `db:"reporters"`
	Silenced   *time.Time `db:"silenced_until"`
	DisabledAt *time.Time `db:"disabled_at"`
}

// ChatAround reads, for each of some messages, the conversation around it:
// up to n messages before it and n after it in its game's channel, and the
// message itself, oldest first.
func (s *Store) ChatAround(ctx context.Context, messageIDs []int64, n int) (map[int64][]ChatMessage, error) {
	var rows []struct {
		Around int64 `db:"around"`
		ChatMessage
	}
	err := sel(ctx, s.DB, &rows, `
		SELECT r.id AS around, `+chatColumns+`
		FROM unnest($1::bigint[]) AS r (id)
		JOIN chat_messages t ON t.id = r.id
		JOIN LATERAL (
			(SELECT * FROM chat_messages b WHERE b.game_id = t.game_id AND b.channel = t.channel AND b.id < t.id ORDER BY b.id DESC LIMIT $2)
			UNION ALL SELECT t.*
			UNION ALL (SELECT * FROM chat_messages a WHERE a.game_id = t.game_id AND a.channel = t.channel AND a.id > t.id ORDER BY a.id LIMIT $2)
		) m ON true
		JOIN users u ON u.id = m.user_id
		ORDER BY r.id, m.id`, pq.Array(messageIDs), n)
	if err != nil {
		return nil, fmt.Errorf("db: chat around: %w", err)
	}
	out := map[int64][]ChatMessage{}
	for _, r := range rows {
		out[r.Around] = append(out[r.Around], r.ChatMessage)
	}
	return out, nil
}

// OpenReports lists reported messages whose reports are not resolved,
// oldest first.
func (s *Store) OpenReports(ctx context.Context, limit int) ([]Report, error) {
	var out []Report
	err := sel(ctx, s.DB, &out, `
		SELECT m.id AS message_id, m.game_id, m.channel, m.body, m.user_id AS author_id, a.username AS author,
			m.created_at AS said_at, m.hidden_at, count(*) AS reports,
			COALESCE(string_agg(NULLIF(r.reason, ''), ' / ' ORDER BY r.id), '') AS reasons,
			string_agg(u.username, ', ' ORDER BY r.id) AS reporters,
			a.silenced_until, a.disabled_at
		FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id
		JOIN users a ON a.id = m.user_id JOIN users u ON u.id = r.reporter_id
		WHERE r.resolved_at IS NULL
		GROUP BY m.id, a.id ORDER BY min(r.created_at) LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("db: open reports: %w", err)
	}
	return out, nil
}

// ModerationLog lists the latest moderation actions, newest first.
func (s *Store) ModerationLog(ctx context.Context, limit int) ([]ModEntry, error) {
	var out []ModEntry
	err := sel(ctx, s.DB, &out, `
		SELECT l.id, a.username AS admin_name, l.action, t.username AS target_name, l.message_id,
			m.body AS message_body, COALESCE(m.hidden_at IS NOT NULL, false) AS message_hidden, l.note, l.created_at
		FROM moderation_log l LEFT JOIN users a ON a.id = l.admin_id LEFT JOIN users t ON t.id = l.target_user
		LEFT JOIN chat_messages m ON m.id = l.message_id
		ORDER BY l.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("db: moderation log: %w", err)
	}
	return out, nil
}
