package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq"
)

// Kinds of mail.
const (
	MailYourTurn      = "your_turn"
	MailReminder      = "reminder"
	MailGameOver      = "game_over"
	MailTimedOut      = "timed_out"
	MailVerifyEmail   = "verify_email"
	MailConfirmEmail  = "confirm_email" // a new address, before it replaces the old
	MailPasswordReset = "password_reset"
	MailRankedMatch   = "ranked_match"
	MailInvite        = "invite" // someone invites them to their table
	// A tournament they play starts; their table in one is ready.
	MailTournamentStart = "tournament_start"
	MailTournamentTable = "tournament_table"
	// A fair-play decision about them (or its undoing, or the answer to
	// their appeal); a report of theirs was handled.
	MailFairPlay      = "fairplay_decision"
	MailReportHandled = "report_handled"
)

// Mail is a row of mail_outbox.
type Mail struct {
	ID           int64      `db:"id"`
	UserID       int64      `db:"user_id"`
	Kind         string     `db:"kind"`
	GameID       *int64     `db:"game_id"`
	GameVersion  *int       `db:"game_version"`
	TournamentID *int64     `db:"tournament_id"`
	ResetID      *int64     `db:"reset_id"`
	SendAfter    time.Time  `db:"send_after"`
	Status       string     `db:"status"`
	Attempts     int        `db:"attempts"`
	ClaimedUntil *time.Time `db:"claimed_until"`
	LastError    *string    `db:"last_error"`
	Note         *string    `db:"note"`
	CreatedAt    time.Time  `db:"created_at"`
	SentAt       *time.Time `db:"sent_at"`
	// Channel is "mail" or "push"; a push row names the device it goes to.
	Channel        string `db:"channel"`
	SubscriptionID *int64 `db:"subscription_id"`
	// FairplayID is the fair-play decision or report the mail is about.
	FairplayID *int64 `db:"fairplay_id"`
}

// Outbox channels.
const (
	ChannelMail = "mail"
	ChannelPush = "push"
)

const mailColumns = `id, user_id, kind, game_id, game_version, tournament_id, reset_id, send_after, status, attempts, claimed_until, last_error, note, created_at, sent_at, channel, subscription_id, fairplay_id`

// enqueue writes a mail to the outbox and, for the kinds that are also
// pushed, one push row for each device of the person, in one statement.
func enqueue(ctx context.Context, q queryer, m Mail) error {
	if !Pushed(m.Kind) {
		return exec(ctx, q, "enqueue mail", `
			INSERT INTO mail_outbox (user_id, kind, game_id, game_version, tournament_id, reset_id, send_after, created_at, fairplay_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, m.UserID, m.Kind, m.GameID, m.GameVersion, m.TournamentID, m.ResetID, m.SendAfter, m.CreatedAt, m.FairplayID)
	}
	return exec(ctx, q, "enqueue mail and pushes", `
		WITH mail AS (
			INSERT INTO mail_outbox (user_id, kind, game_id, game_version, tournament_id, reset_id, send_after, created_at, fairplay_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		)
		INSERT INTO mail_outbox (user_id, kind, game_id, game_version, tournament_id, send_after, created_at, channel, subscription_id, fairplay_id)
		SELECT $1, $2, $3, $4, $5, $7, $8, 'push', p.id, $9 FROM push_subscriptions p WHERE p.user_id = $1`,
		m.UserID, m.Kind, m.GameID, m.GameVersion, m.TournamentID, m.ResetID, m.SendAfter, m.CreatedAt, m.FairplayID)
}

// EnqueueTournamentMails writes one mail of a kind about an event to each
// of some people, in one statement, inside the transaction.
func (t *Tx) EnqueueTournamentMails(ctx context.Context, kind string, tournamentID int64, userIDs []int64, sendAfter, at time.Time) error {
	if len(userIDs) == 0 {
		return nil
	}
	if err := exec(ctx, t.tx, "enqueue tournament mails", `
		INSERT INTO mail_outbox (user_id, kind, tournament_id, send_after, created_at)
		SELECT u, $2, $3, $4, $5 FROM unnest($1::bigint[]) AS u`, pq.Array(userIDs), kind, tournamentID, sendAfter, at); err != nil {
		return err
	}
	return exec(ctx, t.tx, "enqueue tournament pushes", `
		INSERT INTO mail_outbox (user_id, kind, tournament_id, send_after, created_at, channel, subscription_id)
		SELECT p.user_id, $2, $3, $4, $5, 'push', p.id FROM push_subscriptions p WHERE p.user_id = ANY($1)`, pq.Array(userIDs), kind, tournamentID, sendAfter, at)
}

// EnqueueMail writes a mail to the outbox inside the transaction.
func (t *Tx) EnqueueMail(ctx context.Context, m Mail) error { return enqueue(ctx, t.tx, m) }

// EnqueueMail writes a mail to the outbox.
func (s *Store) EnqueueMail(ctx context.Context, m Mail) error { return enqueue(ctx, s.DB, m) }

// ClaimMails takes up to limit due mails (and mails whose claim ran out)
// for this worker until leaseUntil; rows other workers hold are skipped.
func (s *Store) ClaimMails(ctx context.Context, now, leaseUntil time.Time, limit int) ([]Mail, error) {
	return s.claimOutbox(ctx, "mail", now, leaseUntil, limit)
}

// claimOutbox claims up to limit due rows of one channel of the outbox
// ("mail" or "push"), and rows whose claim ran out, until leaseUntil.
// claimedColumns are the outbox's columns as a claim returns them (of
// the row m).
var claimedColumns = "m." + strings.ReplaceAll(mailColumns, ", ", ", m.")

func (s *Store) claimOutbox(ctx context.Context, channel string, now, leaseUntil time.Time, limit int) ([]Mail, error) {
	var out []Mail
	err := sel(ctx, s.DB, &out, `
		WITH due AS (
			SELECT id FROM mail_outbox
			WHERE channel = $4 AND ((status = 'pending' AND send_after <= $1) OR (status = 'sending' AND claimed_until < $1))
			ORDER BY send_after LIMIT $3
			FOR UPDATE SKIP LOCKED
		)
		UPDATE mail_outbox m SET status = 'sending', claimed_until = $2, attempts = m.attempts + 1
		FROM due WHERE m.id = due.id
		RETURNING `+claimedColumns, now, leaseUntil, limit, channel)
	if err != nil {
		return nil, fmt.Errorf("db: claim %s: %w", channel, err)
	}
	return out, nil
}

// ClaimPendingOfKind also claims a user's other pending mails of a kind,
// due or not, so one mail (a digest) can carry them.
func (s *Store) ClaimPendingOfKind(ctx context.Context, userID int64, kind string, leaseUntil time.Time) ([]Mail, error) {
	var out []Mail
	err := sel(ctx, s.DB, &out, `
		UPDATE mail_outbox SET status = 'sending', claimed_until = $3, attempts = attempts + 1
		WHERE user_id = $1 AND kind = $2 AND status = 'pending' AND channel = 'mail'
		RETURNING `+mailColumns, userID, kind, leaseUntil)
	if err != nil {
		return nil, fmt.Errorf("db: claim pending mails: %w", err)
	}
	return out, nil
}

// MarkMails sets the outcome of claimed mails: sent, skipped (with why) or
// failed.
func (s *Store) MarkMails(ctx context.Context, ids []int64, status, note string, at time.Time) error {
	return exec(ctx, s.DB, "mark mails", `
		UPDATE mail_outbox SET status = $2, note = NULLIF($3, ''), sent_at = CASE WHEN $2 = 'sent' THEN $4 ELSE sent_at END,
			claimed_until = NULL
		WHERE id = ANY($1)`, pq.Array(ids), status, note, at)
}

// RetryMails puts claimed mails back for a later try after a failure.
func (s *Store) RetryMails(ctx context.Context, ids []int64, after time.Time, errText string) error {
	return exec(ctx, s.DB, "retry mails", `
		UPDATE mail_outbox SET status = 'pending', send_after = $2, last_error = $3, claimed_until = NULL
		WHERE id = ANY($1)`, pq.Array(ids), after, errText)
}

// PostponeMails puts claimed mails back until a later time (a digest hour).
func (s *Store) PostponeMails(ctx context.Context, ids []int64, until time.Time) error {
	return exec(ctx, s.DB, "postpone mails", `
		UPDATE mail_outbox SET status = 'pending', send_after = $2, claimed_until = NULL, attempts = greatest(attempts - 1, 0)
		WHERE id = ANY($1)`, pq.Array(ids), until)
}

// ReleaseMails puts claimed mails back as they were, due when they were
// due (claimed with others but not theirs to send yet).
func (s *Store) ReleaseMails(ctx context.Context, ids []int64) error {
	return exec(ctx, s.DB, "release mails", `
		UPDATE mail_outbox SET status = 'pending', claimed_until = NULL, attempts = greatest(attempts - 1, 0)
		WHERE id = ANY($1)`, pq.Array(ids))
}

// RescheduleReminder moves the pending reminder about a game's decision at
// version to at (its deadline moved).
func (t *Tx) RescheduleReminder(ctx context.Context, gameID int64, version int, at time.Time) error {
	return exec(ctx, t.tx, "reschedule reminder", `
		UPDATE mail_outbox SET send_after = $3
		WHERE game_id = $1 AND game_version = $2 AND kind = 'reminder' AND status = 'pending'`, gameID, version, at)
}

// SentTurnMailSince reports whether a "your turn" mail about a game went to
// a user since since.
func (s *Store) SentTurnMailSince(ctx context.Context, userID, gameID int64, since time.Time) (bool, error) {
	var ok bool
	err := get(ctx, s.DB, &ok, `
		SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE user_id = $1 AND game_id = $2 AND kind = 'your_turn'
			AND channel = 'mail' AND status = 'sent' AND sent_at > $3)`, userID, gameID, since)
	if err != nil {
		return false, fmt.Errorf("db: sent turn mail: %w", err)
	}
	return ok, nil
}

// MailsTo lists the mails of a user in the outbox, newest first (tests,
// support).
func (s *Store) MailsTo(ctx context.Context, userID int64) ([]Mail, error) {
	var out []Mail
	if err := sel(ctx, s.DB, &out, `SELECT `+mailColumns+` FROM mail_outbox WHERE user_id = $1 AND channel = 'mail' ORDER BY id DESC`, userID); err != nil {
		return nil, fmt.Errorf("db: mails to %d: %w", userID, err)
	}
	return out, nil
}

// SeenSince reports whether a person has been on the site since a time:
// a page or an event stream of theirs, or their API token, in use since.
func (s *Store) SeenSince(ctx context.Context, userID int64, since time.Time) (bool, error) {
	var ok bool
	err := get(ctx, s.DB, &ok, `SELECT
		EXISTS (SELECT 1 FROM sessions WHERE user_id = $1 AND last_seen_at > $2)
		OR EXISTS (SELECT 1 FROM stream_presence WHERE user_id = $1 AND seen_at > $2)
		OR EXISTS (SELECT 1 FROM api_tokens WHERE user_id = $1 AND last_used_at > $2)`, userID, since)
	if err != nil {
		return false, fmt.Errorf("db: seen since: %w", err)
	}
	return ok, nil
}

// HasOpenStream reports whether a user has an event stream open on a game,
// seen since since (they are at the table, so no mail is needed).
func (s *Store) HasOpenStream(ctx context.Context, userID, gameID int64, since time.Time) (bool, error) {
	var ok bool
	err := get(ctx, s.DB, &ok, `SELECT EXISTS (SELECT 1 FROM stream_presence WHERE user_id = $1 AND game_id = $2 AND seen_at > $3)`, userID, gameID, since)
	if err != nil {
		return false, fmt.Errorf("db: open stream: %w", err)
	}
	return ok, nil
}

// MailSettings are a user's choices about mail.
type MailSettings struct {
	TimeZone   string `db:"time_zone"`
	YourTurn   bool   `db:"mail_your_turn"`
	Reminder   bool   `db:"mail_reminder"`
	GameOver   bool   `db:"mail_game_over"`
	TimedOut   bool   `db:"mail_timed_out"`
	Invite     bool   `db:"mail_invite"`
	Tournament bool   `db:"mail_tournament"`
	TurnDigest bool   `db:"turn_digest"`
	DigestHour int    `db:"digest_hour"`
}

// Recipient is a user as the mailer needs them.
type Recipient struct {
	ID              int64      `db:"id"`
	Username        string     `db:"username"`
	Email           string     `db:"email"`
	EmailVerifiedAt *time.Time `db:"email_verified_at"`
	PendingEmail    *string    `db:"pending_email"`
	PasswordHash    string     `db:"password_hash"`
	VacationUntil   *time.Time `db:"vacation_until"`
	// Lang is the language their mail is written in ("" for English).
	Lang string `db:"lang"`
	// Disabled: a moderator closed the account (only ClosedRecipient
	// finds one).
	Disabled bool `db:"disabled"`
	MailSettings
}

const recipientColumns = `id, username, email, email_verified_at, pending_email, password_hash, vacation_until, lang, time_zone, mail_your_turn,
	mail_reminder, mail_game_over, mail_timed_out, mail_invite, mail_tournament, turn_digest, digest_hour, disabled_at IS NOT NULL AS disabled`

// Recipient loads a user with their mail settings; a deleted or disabled
// account is not found (its mail is skipped).
func (s *Store) Recipient(ctx context.Context, userID int64) (Recipient, error) {
	var r Recipient
	err := get(ctx, s.DB, &r, `SELECT `+recipientColumns+` FROM users WHERE id = $1 AND deleted_at IS NULL AND disabled_at IS NULL`, userID)
	if err != nil {
		return Recipient{}, fmt.Errorf("db: recipient %d: %w", userID, notFound(err))
	}
	return r, nil
}

// ClosedRecipient loads an account a moderator closed (not deleted), for
// the one mail it still gets: the fair-play decision about it.
func (s *Store) ClosedRecipient(ctx context.Context, userID int64) (Recipient, error) {
	var r Recipient
	err := get(ctx, s.DB, &r, `SELECT `+recipientColumns+` FROM users WHERE id = $1 AND deleted_at IS NULL AND disabled_at IS NOT NULL`, userID)
	if err != nil {
		return Recipient{}, fmt.Errorf("db: closed recipient %d: %w", userID, notFound(err))
	}
	return r, nil
}

// SetMailSettings stores a user's mail choices.
func (s *Store) SetMailSettings(ctx context.Context, userID int64, m MailSettings) error {
	return exec(ctx, s.DB, "set mail settings", `
		UPDATE users SET time_zone = $2, mail_your_turn = $3, mail_reminder = $4, mail_game_over = $5,
			mail_timed_out = $6, turn_digest = $7, digest_hour = $8, mail_invite = $9, mail_tournament = $10 WHERE id = $1`,
		userID, m.TimeZone, m.YourTurn, m.Reminder, m.GameOver, m.TimedOut, m.TurnDigest, m.DigestHour, m.Invite, m.Tournament)
}

// SetMailKind turns one kind of mail off (the unsubscribe link).
func (s *Store) SetMailKind(ctx context.Context, userID int64, kind string, on bool) error {
	col := map[string]string{MailYourTurn: "mail_your_turn", MailReminder: "mail_reminder", MailGameOver: "mail_game_over", MailTimedOut: "mail_timed_out", MailInvite: "mail_invite",
		MailTournamentStart: "mail_tournament", MailTournamentTable: "mail_tournament"}[kind]
	if col == "" {
		return fmt.Errorf("db: no setting for mail kind %q", kind)
	}
	return exec(ctx, s.DB, "set mail kind", `UPDATE users SET `+col+` = $2 WHERE id = $1`, userID, on)
}

// VerifyEmail marks a user's email verified, if it is still the one given.
func (s *Store) VerifyEmail(ctx context.Context, userID int64, email string, at time.Time) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE users SET email_verified_at = COALESCE(email_verified_at, $3) WHERE id = $1 AND lower(email) = lower($2)`, userID, email, at)
	if err != nil {
		return false, fmt.Errorf("db: verify email: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// PasswordReset is a row of password_resets.
type PasswordReset struct {
	ID        int64      `db:"id"`
	UserID    int64      `db:"user_id"`
	ExpiresAt time.Time  `db:"expires_at"`
	UsedAt    *time.Time `db:"used_at"`
	CreatedAt time.Time  `db:"created_at"`
}

// CreatePasswordReset starts a reset and queues its mail, together.
func (s *Store) CreatePasswordReset(ctx context.Context, userID int64, expires, now time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		var id int64
		if err := get(ctx, tx.tx, &id, `INSERT INTO password_resets (user_id, expires_at, created_at) VALUES ($1, $2, $3) RETURNING id`, userID, expires, now); err != nil {
			return fmt.Errorf("db: create password reset: %w", err)
		}
		return tx.EnqueueMail(ctx, Mail{UserID: userID, Kind: MailPasswordReset, ResetID: &id, SendAfter: now, CreatedAt: now})
	})
}

// PasswordReset loads a reset.
func (s *Store) PasswordReset(ctx context.Context, id int64) (PasswordReset, error) {
	var r PasswordReset
	if err := get(ctx, s.DB, &r, `SELECT id, user_id, expires_at, used_at, created_at FROM password_resets WHERE id = $1`, id); err != nil {
		return PasswordReset{}, fmt.Errorf("db: password reset: %w", notFound(err))
	}
	return r, nil
}

// UseReset sets the new password and uses up the reset, once: it reports
// false when the reset was used or expired meanwhile. Every session of the
// user ends.
func (s *Store) UseReset(ctx context.Context, id int64, hash string, now time.Time) (bool, error) {
	ok := false
	err := s.Tx(ctx, func(tx *Tx) error {
		var userID int64
		err := get(ctx, tx.tx, &userID, `UPDATE password_resets SET used_at = $2 WHERE id = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id`, id, now)
		if err != nil {
			if notFound(err) == ErrNotFound {
				return nil
			}
			return fmt.Errorf("db: use reset: %w", err)
		}
		if err := exec(ctx, tx.tx, "reset password", `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, hash); err != nil {
			return err
		}
		if err := exec(ctx, tx.tx, "end sessions", `DELETE FROM sessions WHERE user_id = $1`, userID); err != nil {
			return err
		}
		ok = true
		return nil
	})
	return ok, err
}

// LastResetAt returns when a user last asked for a password reset.
func (s *Store) LastResetAt(ctx context.Context, userID int64) (*time.Time, error) {
	var t *time.Time
	if err := get(ctx, s.DB, &t, `SELECT max(created_at) FROM password_resets WHERE user_id = $1`, userID); err != nil {
		return nil, fmt.Errorf("db: last reset: %w", err)
	}
	return t, nil
}

// DeleteOldMail removes outbox rows that were settled (sent, skipped or
// failed) before before, and password resets that expired before it.
func (s *Store) DeleteOldMail(ctx context.Context, before time.Time) error {
	if err := exec(ctx, s.DB, "delete old mail", `DELETE FROM mail_outbox WHERE status IN ('sent', 'skipped', 'failed') AND created_at < $1`, before); err != nil {
		return err
	}
	return exec(ctx, s.DB, "delete old resets", `DELETE FROM password_resets WHERE expires_at < $1`, before)
}
