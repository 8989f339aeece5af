package db

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// User is a row of users.
type User struct {
	ID              int64      `db:"id"`
	Username        string     `db:"username"`
	Email           string     `db:"email"`
	PasswordHash    string     `db:"password_hash"`
	EmailVerifiedAt *time.Time `db:"email_verified_at"`
	CreatedAt       time.Time  `db:"created_at"`
	// PendingEmail is a new address waiting for its owner to confirm it;
	// Email stays in use until then. PendingEmailSentAt is when its
	// confirmation link was last queued.
	PendingEmail       *string    `db:"pending_email"`
	PendingEmailSentAt *time.Time `db:"pending_email_sent_at"`
	// TurnSound: the site plays a short sound when a game comes to them.
	TurnSound bool `db:"turn_sound"`
	// Guest: made for "Play a bot game now"; no address, no password.
	Guest bool `db:"guest"`
	// Lang is the language they chose ("en", "es", "it"), "" for none yet.
	Lang string `db:"lang"`
	// Admin: a moderator (granted from the command line).
	Admin bool `db:"admin"`
	// SilencedUntil: a moderator barred them from chat until then.
	SilencedUntil *time.Time `db:"silenced_until"`
	// DisabledAt: a moderator disabled the account; it cannot log in.
	DisabledAt *time.Time `db:"disabled_at"`
	// MarkedAt: a moderator marked the account for unfair play (off the
	// ladder, no rated play; docs/fair-play.md).
	MarkedAt *time.Time `db:"marked_at"`
	// Rating is the ranked rating now (rating changes and refunds).
	Rating float64 `db:"rating"`
	// DeletedAt: they deleted the account; the row keeps their seats.
	DeletedAt *time.Time `db:"deleted_at"`
	// Bot: a bot account (docs/bots.md), for good: it plays through the
	// API only, and ranked games among bots only.
	Bot bool `db:"bot"`
}

// Active reports whether the account may be used: not disabled by a
// moderator, not deleted by its owner.
func (u User) Active() bool { return u.DisabledAt == nil && u.DeletedAt == nil }

// Silenced reports whether the account may not chat at now.
func (u User) Silenced(now time.Time) bool {
	return u.SilencedUntil != nil && now.Before(*u.SilencedUntil)
}

// Errors of CreateUser and UpdateEmail when a unique value is taken.
var (
	ErrUsernameTaken = errors.New("db: username taken")
	ErrEmailTaken    = errors.New("db: email taken")
)

const userColumns = `id, username, email, password_hash, email_verified_at, created_at, pending_email, pending_email_sent_at, turn_sound, guest, lang, admin, silenced_until, disabled_at, deleted_at, bot, marked_at, rating`

// CreateUser inserts a user; a name or email taken (ignoring case) gives
// ErrUsernameTaken or ErrEmailTaken.
func (s *Store) CreateUser(ctx context.Context, username, email, passwordHash string, now time.Time) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		INSERT INTO users (username, email, password_hash, created_at)
		VALUES ($1, $2, $3, $4)
		RETURNING `+userColumns, username, email, passwordHash, now)
	if err != nil {
		return User{}, fmt.Errorf("db: create user %q: %w", username, takenError(err))
	}
	return u, nil
}

func takenError(err error) error {
	switch uniqueViolation(err) {
	case "users_username_key":
		return ErrUsernameTaken
	case "users_email_key":
		return ErrEmailTaken
	}
	return err
}

// UserByID loads a user.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
	if err != nil {
		return User{}, fmt.Errorf("db: user %d: %w", id, notFound(err))
	}
	return u, nil
}

// UserByName loads a user by username, ignoring case.
func (s *Store) UserByName(ctx context.Context, name string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+` FROM users WHERE lower(username) = lower($1)`, name)
	if err != nil {
		return User{}, fmt.Errorf("db: user %q: %w", name, notFound(err))
	}
	return u, nil
}

// UserByLogin loads a user by username or email, ignoring case.
func (s *Store) UserByLogin(ctx context.Context, login string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		SELECT `+userColumns+` FROM users
		WHERE lower(username) = lower($1) OR lower(email) = lower($1)
		LIMIT 1`, login)
	if err != nil {
		return User{}, fmt.Errorf("db: user by login: %w", notFound(err))
	}
	return u, nil
}

// UpdatePassword replaces a user's password hash.
func (s *Store) UpdatePassword(ctx context.Context, id int64, hash string) error {
	if _, err := s.DB.ExecContext(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, id, hash); err != nil {
		return fmt.Errorf("db: update password of user %d: %w", id, err)
	}
	return nil
}

// SetPendingEmail records a new address for a user to confirm, and queues
// its confirmation mail, together. The current address stays in use. An
// address another account uses gives ErrEmailTaken.
func (s *Store) SetPendingEmail(ctx context.Context, id int64, email string, now time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `
			UPDATE users SET pending_email = $2, pending_email_sent_at = $3
			WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM users o WHERE lower(o.email) = lower($2) AND o.id <> $1)`, id, email, now)
		if err != nil {
			return fmt.Errorf("db: set pending email of user %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrEmailTaken
		}
		return tx.EnqueueMail(ctx, Mail{UserID: id, Kind: MailConfirmEmail, SendAfter: now, CreatedAt: now})
	})
}

// ResendPendingEmail queues the confirmation mail of a user's pending
// address again, if there is one and the last was queued before since.
func (s *Store) ResendPendingEmail(ctx context.Context, id int64, since, now time.Time) (bool, error) {
	sent := false
	err := s.Tx(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `
			UPDATE users SET pending_email_sent_at = $3
			WHERE id = $1 AND pending_email IS NOT NULL AND pending_email_sent_at < $2`, id, since, now)
		if err != nil {
			return fmt.Errorf("db: resend pending email of user %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		sent = true
		return tx.EnqueueMail(ctx, Mail{UserID: id, Kind: MailConfirmEmail, SendAfter: now, CreatedAt: now})
	})
	return sent, err
}

// CancelPendingEmail forgets a user's pending address; links already mailed
// to it stop working.
func (s *Store) CancelPendingEmail(ctx context.Context, id int64) error {
	return exec(ctx, s.DB, "cancel pending email", `UPDATE users SET pending_email = NULL, pending_email_sent_at = NULL WHERE id = $1`, id)
}

// ConfirmPendingEmail makes a user's pending address their address,
// verified, if it is still the one given. An address another account has
// taken since gives ErrEmailTaken.
func (s *Store) ConfirmPendingEmail(ctx context.Context, id int64, email string, at time.Time) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `
		UPDATE users SET email = pending_email, email_verified_at = $3, pending_email = NULL, pending_email_sent_at = NULL
		WHERE id = $1 AND lower(pending_email) = lower($2)`, id, email, at)
	if err != nil {
		return false, fmt.Errorf("db: confirm pending email of user %d: %w", id, takenError(err))
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UpdateEmail replaces a user's email, which is then unverified.
func (s *Store) UpdateEmail(ctx context.Context, id int64, email string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE users SET email = $2, email_verified_at = NULL WHERE id = $1`, id, email)
	if err != nil {
		return fmt.Errorf("db: update email of user %d: %w", id, takenError(err))
	}
	return nil
}

// SetTurnSound turns the sound of a turn coming on or off.
func (s *Store) SetTurnSound(ctx context.Context, id int64, on bool) error {
	return exec(ctx, s.DB, "set turn sound", `UPDATE users SET turn_sound = $2 WHERE id = $1`, id, on)
}

// SetLanguage saves the language a user reads the site and mail in.
func (s *Store) SetLanguage(ctx context.Context, id int64, lang string) error {
	return exec(ctx, s.DB, "set language", `UPDATE users SET lang = $2 WHERE id = $1`, id, lang)
}

// CreateGuest makes a guest account: a made-up name and a placeholder
// address that is never mailed, and no password (no hash matches "!").
func (s *Store) CreateGuest(ctx context.Context, username, placeholder string, now time.Time) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		INSERT INTO users (username, email, password_hash, guest, created_at) VALUES ($1, $2, '!', true, $3)
		RETURNING `+userColumns, username, placeholder, now)
	if err != nil {
		return User{}, fmt.Errorf("db: create guest: %w", takenError(err))
	}
	return u, nil
}

// ConvertGuest makes a guest an ordinary account with their chosen name,
// address and password; their games stay theirs. A name or address taken
// gives ErrUsernameTaken or ErrEmailTaken.
func (s *Store) ConvertGuest(ctx context.Context, id int64, username, email, hash string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		UPDATE users SET username = $2, email = $3, password_hash = $4, guest = false
		WHERE id = $1 AND guest
		RETURNING `+userColumns, id, username, email, hash)
	if err != nil {
		return User{}, fmt.Errorf("db: convert guest %d: %w", id, takenError(notFound(err)))
	}
	return u, nil
}

// DeleteGuestsBefore deletes the guests made before a time, with their
// games (which no registered person played: guests play bots only).
func (s *Store) DeleteGuestsBefore(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `
			DELETE FROM games g WHERE EXISTS (
				SELECT 1 FROM game_seats s JOIN users u ON u.id = s.user_id
				WHERE s.game_id = g.id AND u.guest AND u.created_at < $1)
			AND NOT EXISTS (
				SELECT 1 FROM game_seats s JOIN users u ON u.id = s.user_id
				WHERE s.game_id = g.id AND NOT (u.guest AND u.created_at < $1))`, before); err != nil {
			return fmt.Errorf("db: delete guests' games: %w", err)
		}
		res, err := tx.tx.ExecContext(ctx, `DELETE FROM users WHERE guest AND created_at < $1`, before)
		if err != nil {
			return fmt.Errorf("db: delete guests: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// DeletedName is how lists name the seat of a deleted account (the views
// translate it).
const DeletedName = "deleted player"

// DeletedPrefix starts the name a deleted account is given ("deleted-7"),
// which no registration may take.
const DeletedPrefix = "deleted-"

// DeleteAccount empties a user's row for good: the name becomes
// "deleted-ID", the address, password and mail settings go, every session
// ends and every API token is revoked (every instance hears of each),
// follows, blocks, mutes, the ranked queue and open invitations go, and
// mail not yet sent is skipped. The row stays, so that finished games keep
// the seat and ratings history stays whole. It returns the revoked tokens'
// hashes (hex), for this instance to forget at once.
func (s *Store) DeleteAccount(ctx context.Context, userID int64, at time.Time) ([]string, error) {
	var revoked []string
	err := s.Tx(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `
			UPDATE users SET username = '`+DeletedPrefix+`' || id, email = '`+DeletedPrefix+`' || id || '@deleted.invalid',
				password_hash = '!', email_verified_at = NULL, pending_email = NULL, pending_email_sent_at = NULL,
				admin = false, deleted_at = $2, vacation_until = NULL,
				mail_your_turn = false, mail_reminder = false, mail_game_over = false, mail_timed_out = false, mail_invite = false, mail_tournament = false, turn_digest = false
			WHERE id = $1 AND deleted_at IS NULL`, userID, at)
		if err != nil {
			return fmt.Errorf("db: delete account %d: %w", userID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if revoked, err = endAccess(ctx, tx, userID, at); err != nil {
			return err
		}
		// The open database's files show the name: they are made again.
		if err := tx.markArchiveStale(ctx, userID); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM follows WHERE follower_id = $1 OR followee_id = $1`,
			`DELETE FROM blocks WHERE blocker_id = $1 OR blocked_id = $1`,
			`DELETE FROM chat_mutes WHERE user_id = $1`,
			`DELETE FROM chat_reads WHERE user_id = $1`,
			`DELETE FROM ranked_queue WHERE user_id = $1`,
			// An appeal's text is the player's words; the abandonments
			// themselves stay with the anonymous account, as its games do.
			`UPDATE abandonments SET appeal = '', answer_note = '' WHERE user_id = $1 AND appeal IS NOT NULL`,
			// Fair play: the devices and networks go; the words of the
			// account's reports and appeals are erased; the decisions
			// about it stay with the anonymous account.
			`DELETE FROM account_links WHERE user_id = $1`,
			`UPDATE player_reports SET note = '' WHERE reporter_id = $1`,
			`UPDATE fairplay_decisions SET appeal = '' WHERE user_id = $1 AND appeal IS NOT NULL`,
			`DELETE FROM password_resets WHERE user_id = $1`,
			`DELETE FROM puzzle_attempts WHERE user_id = $1`,
			`DELETE FROM puzzle_ratings WHERE user_id = $1`,
			`DELETE FROM invites WHERE (from_user = $1 OR to_user = $1) AND status = 'open'`,
			`UPDATE mail_outbox SET status = 'skipped', note = 'account deleted' WHERE user_id = $1 AND status IN ('pending', 'sending')`,
		} {
			if err := exec(ctx, tx.tx, "delete account", q, userID); err != nil {
				return err
			}
		}
		return nil
	})
	return revoked, err
}

// ChatBy lists the chat messages a user wrote, oldest first (for the export
// of their data).
func (s *Store) ChatBy(ctx context.Context, userID int64) ([]ChatMessage, error) {
	var out []ChatMessage
	err := sel(ctx, s.DB, &out, `SELECT `+chatColumns+` FROM chat_messages m JOIN users u ON u.id = m.user_id
		WHERE m.user_id = $1 ORDER BY m.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: chat by %d: %w", userID, err)
	}
	return out, nil
}
