package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Kinds of push that have no mail (the others are pushed with their mail).
const (
	PushRematch = "rematch" // a finished table's player offers to play again
	PushChat    = "chat"    // a message at your table while you are away
	PushTest    = "test"    // "Send a test notification" in Settings
)

// Pushed reports whether a kind of mail is also pushed to the person's
// devices (the account mails are not).
func Pushed(kind string) bool {
	switch kind {
	case MailYourTurn, MailReminder, MailGameOver, MailTimedOut, MailRankedMatch, MailInvite, MailTournamentStart, MailTournamentTable, MailFairPlay, MailReportHandled:
		return true
	}
	return false
}

// PushDevice is a row of push_subscriptions: a browser that asked to be
// notified, with its push service's endpoint and keys.
type PushDevice struct {
	ID             int64      `db:"id"`
	UserID         int64      `db:"user_id"`
	Endpoint       string     `db:"endpoint"`
	P256dh         string     `db:"p256dh"`
	Auth           string     `db:"auth"`
	Name           string     `db:"name"`
	CreatedAt      time.Time  `db:"created_at"`
	LastDeliveryAt *time.Time `db:"last_delivery_at"`
	LastError      *string    `db:"last_error"`
}

const pushDeviceColumns = `id, user_id, endpoint, p256dh, auth, name, created_at, last_delivery_at, last_error`

// MaxPushDevices is how many devices one person may have notified.
const MaxPushDevices = 10

// AddPushDevice stores a device of a person. An endpoint already known
// (the same browser subscribing again, or after another person used it)
// is given to this person with its new keys; the same person's device
// keeps the name they gave it unless named says d.Name was given now. It
// reports false when the person has MaxPushDevices devices already.
func (s *Store) AddPushDevice(ctx context.Context, d PushDevice, named bool) (PushDevice, bool, error) {
	var out PushDevice
	ok := true
	err := s.Tx(ctx, func(tx *Tx) error {
		// One person's devices are counted under a lock on the person.
		if err := exec(ctx, tx.tx, "lock user", `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, d.UserID); err != nil {
			return err
		}
		var n int
		if err := get(ctx, tx.tx, &n, `SELECT count(*) FROM push_subscriptions WHERE user_id = $1 AND endpoint <> $2`, d.UserID, d.Endpoint); err != nil {
			return fmt.Errorf("db: count push devices: %w", err)
		}
		if n >= MaxPushDevices {
			ok = false
			return nil
		}
		return get(ctx, tx.tx, &out, `
			INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, name, created_at) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (endpoint) DO UPDATE SET user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth,
				name = CASE WHEN push_subscriptions.user_id = EXCLUDED.user_id AND NOT $7 THEN push_subscriptions.name ELSE EXCLUDED.name END,
				last_error = NULL,
				created_at = CASE WHEN push_subscriptions.user_id = EXCLUDED.user_id THEN push_subscriptions.created_at ELSE EXCLUDED.created_at END
			RETURNING `+pushDeviceColumns, d.UserID, d.Endpoint, d.P256dh, d.Auth, d.Name, d.CreatedAt, named)
	})
	if err != nil {
		return PushDevice{}, false, fmt.Errorf("db: add push device: %w", err)
	}
	return out, ok, nil
}

// PushDevices lists a person's devices, the newest first.
func (s *Store) PushDevices(ctx context.Context, userID int64) ([]PushDevice, error) {
	var out []PushDevice
	if err := sel(ctx, s.DB, &out, `SELECT `+pushDeviceColumns+` FROM push_subscriptions WHERE user_id = $1 ORDER BY id DESC`, userID); err != nil {
		return nil, fmt.Errorf("db: push devices: %w", err)
	}
	return out, nil
}

// PushDevice loads one device.
func (s *Store) PushDevice(ctx context.Context, id int64) (PushDevice, error) {
	var d PushDevice
	if err := get(ctx, s.DB, &d, `SELECT `+pushDeviceColumns+` FROM push_subscriptions WHERE id = $1`, id); err != nil {
		return PushDevice{}, fmt.Errorf("db: push device %d: %w", id, notFound(err))
	}
	return d, nil
}

// PushDevicesByID loads the devices of some ids, by id; an id with no
// device (removed since) is left out.
func (s *Store) PushDevicesByID(ctx context.Context, ids []int64) (map[int64]PushDevice, error) {
	var rows []PushDevice
	if err := sel(ctx, s.DB, &rows, `SELECT `+pushDeviceColumns+` FROM push_subscriptions WHERE id = ANY($1)`, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("db: push devices by id: %w", err)
	}
	out := make(map[int64]PushDevice, len(rows))
	for _, d := range rows {
		out[d.ID] = d
	}
	return out, nil
}

// RenamePushDevice names a device of a person (ErrNotFound when they
// have no such device).
func (s *Store) RenamePushDevice(ctx context.Context, userID, id int64, name string) (PushDevice, error) {
	var d PushDevice
	if err := get(ctx, s.DB, &d, `UPDATE push_subscriptions SET name = $3 WHERE id = $1 AND user_id = $2 RETURNING `+pushDeviceColumns, id, userID, name); err != nil {
		return PushDevice{}, fmt.Errorf("db: rename push device %d: %w", id, notFound(err))
	}
	return d, nil
}

// RemovePushDevice forgets a device of a person (and the pushes waiting
// for it); it reports false when they have no such device.
func (s *Store) RemovePushDevice(ctx context.Context, userID, id int64) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return false, fmt.Errorf("db: remove push device: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ForgetPushEndpoint removes a device whose push service said it is gone
// (404 or 410).
func (s *Store) ForgetPushEndpoint(ctx context.Context, id int64) error {
	return exec(ctx, s.DB, "forget push device", `DELETE FROM push_subscriptions WHERE id = $1`, id)
}

// PushDelivered notes a delivery to a device.
func (s *Store) PushDelivered(ctx context.Context, id int64, at time.Time) error {
	return exec(ctx, s.DB, "push delivered", `UPDATE push_subscriptions SET last_delivery_at = $2, last_error = NULL WHERE id = $1`, id, at)
}

// PushFailed notes why the last push to a device failed.
func (s *Store) PushFailed(ctx context.Context, id int64, why string) error {
	return exec(ctx, s.DB, "push failed", `UPDATE push_subscriptions SET last_error = $2 WHERE id = $1`, id, why)
}

// Push is what to push to every device of some people.
type Push struct {
	UserIDs     []int64
	Kind        string
	GameID      *int64
	GameVersion *int
	SendAfter   time.Time
	CreatedAt   time.Time
}

func enqueuePush(ctx context.Context, q queryer, p Push) error {
	if len(p.UserIDs) == 0 {
		return nil
	}
	return exec(ctx, q, "enqueue pushes", `
		INSERT INTO mail_outbox (user_id, kind, game_id, game_version, send_after, created_at, channel, subscription_id)
		SELECT p.user_id, $2, $3, $4, $5, $6, 'push', p.id FROM push_subscriptions p WHERE p.user_id = ANY($1)`,
		pq.Array(p.UserIDs), p.Kind, p.GameID, p.GameVersion, p.SendAfter, p.CreatedAt)
}

// EnqueuePush writes a push to every device of some people, in the
// transaction of the event.
func (t *Tx) EnqueuePush(ctx context.Context, p Push) error { return enqueuePush(ctx, t.tx, p) }

// EnqueueDevicePush writes a push of a kind to one device (a test).
func (s *Store) EnqueueDevicePush(ctx context.Context, userID, deviceID int64, kind string, at time.Time) error {
	return exec(ctx, s.DB, "enqueue device push", `
		INSERT INTO mail_outbox (user_id, kind, send_after, created_at, channel, subscription_id)
		SELECT user_id, $3, $4, $4, 'push', id FROM push_subscriptions WHERE id = $2 AND user_id = $1`, userID, deviceID, kind, at)
}

// ClaimPushes takes up to limit due pushes (and pushes whose claim ran
// out) for this worker until leaseUntil, leaving those to the push
// services (origins: scheme://host, lower case) named in busy; rows other
// workers hold are skipped, so each push goes out from one instance.
func (s *Store) ClaimPushes(ctx context.Context, now, leaseUntil time.Time, limit int, busy []string) ([]Mail, error) {
	var out []Mail
	err := sel(ctx, s.DB, &out, `
		WITH due AS (
			SELECT m.id FROM mail_outbox m LEFT JOIN push_subscriptions d ON d.id = m.subscription_id
			WHERE m.channel = 'push' AND ((m.status = 'pending' AND m.send_after <= $1) OR (m.status = 'sending' AND m.claimed_until < $1))
				AND NOT COALESCE(lower(substring(d.endpoint from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+')) = ANY($4), false)
			ORDER BY m.send_after LIMIT $3
			FOR UPDATE OF m SKIP LOCKED
		)
		UPDATE mail_outbox m SET status = 'sending', claimed_until = $2, attempts = m.attempts + 1
		FROM due WHERE m.id = due.id
		RETURNING `+claimedColumns, now, leaseUntil, limit, pq.Array(busy))
	if err != nil {
		return nil, fmt.Errorf("db: claim pushes: %w", err)
	}
	return out, nil
}

// NextPushAt is when the earliest pending push is due (nil: none).
func (s *Store) NextPushAt(ctx context.Context) (*time.Time, error) {
	var t *time.Time
	if err := get(ctx, s.DB, &t, `SELECT min(send_after) FROM mail_outbox WHERE channel = 'push' AND status = 'pending'`); err != nil {
		return nil, fmt.Errorf("db: next push: %w", err)
	}
	return t, nil
}

// PushesTo lists the push rows of a person, newest first (tests, support).
func (s *Store) PushesTo(ctx context.Context, userID int64) ([]Mail, error) {
	var out []Mail
	if err := sel(ctx, s.DB, &out, `SELECT `+mailColumns+` FROM mail_outbox WHERE user_id = $1 AND channel = 'push' ORDER BY id DESC`, userID); err != nil {
		return nil, fmt.Errorf("db: pushes to %d: %w", userID, err)
	}
	return out, nil
}

// LaterChatPush reports whether a device has a newer chat push about the
// same game than row id (it will carry the news).
func (s *Store) LaterChatPush(ctx context.Context, id, deviceID, gameID int64) (bool, error) {
	var ok bool
	err := get(ctx, s.DB, &ok, `SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE subscription_id = $2 AND game_id = $3
		AND kind = 'chat' AND id > $1 AND status IN ('pending', 'sending'))`, id, deviceID, gameID)
	if err != nil {
		return false, fmt.Errorf("db: later chat push: %w", err)
	}
	return ok, nil
}

// LastPushSent is when a push of a kind about a game last went to a
// device (nil: never).
func (s *Store) LastPushSent(ctx context.Context, deviceID, gameID int64, kind string) (*time.Time, error) {
	var t *time.Time
	err := get(ctx, s.DB, &t, `SELECT max(sent_at) FROM mail_outbox WHERE subscription_id = $1 AND game_id = $2 AND kind = $3 AND status = 'sent'`, deviceID, gameID, kind)
	if err != nil {
		return nil, fmt.Errorf("db: last push: %w", err)
	}
	return t, nil
}

// TurnPushes tells the mailer about the pushes of a "your turn" event (a
// game at a version) to a person: when the first was delivered, and
// whether some are on their way (not yet tried, or being sent: one that
// failed once does not hold the mail back).
func (s *Store) TurnPushes(ctx context.Context, userID, gameID int64, version int) (delivered *time.Time, waiting bool, err error) {
	var row struct {
		Delivered *time.Time `db:"delivered"`
		Waiting   bool       `db:"waiting"`
	}
	err = get(ctx, s.DB, &row, `
		SELECT min(sent_at) FILTER (WHERE status = 'sent') AS delivered, coalesce(bool_or(status = 'sending' OR status = 'pending' AND attempts = 0), false) AS waiting
		FROM mail_outbox WHERE user_id = $1 AND game_id = $2 AND game_version = $3 AND kind = 'your_turn' AND channel = 'push'`, userID, gameID, version)
	if err != nil {
		return nil, false, fmt.Errorf("db: turn pushes: %w", err)
	}
	return row.Delivered, row.Waiting, nil
}

// PushSettings are the kinds of push a person wants.
type PushSettings struct {
	YourTurn   bool `db:"push_your_turn"`
	Reminder   bool `db:"push_reminder"`
	TimedOut   bool `db:"push_timed_out"`
	GameOver   bool `db:"push_game_over"`
	Invite     bool `db:"push_invite"`
	Rematch    bool `db:"push_rematch"`
	Chat       bool `db:"push_chat"`
	Tournament bool `db:"push_tournament"`
}

// Wants reports whether the settings let a kind of push through (a
// ranked table found counts as "your turn"; a test always goes).
func (p PushSettings) Wants(kind string) bool {
	switch kind {
	case MailYourTurn, MailRankedMatch:
		return p.YourTurn
	case MailReminder:
		return p.Reminder
	case MailTimedOut:
		return p.TimedOut
	case MailGameOver:
		return p.GameOver
	case MailInvite:
		return p.Invite
	case PushRematch:
		return p.Rematch
	case PushChat:
		return p.Chat
	case MailTournamentStart, MailTournamentTable:
		return p.Tournament
	case PushTest:
		return true
	}
	return false
}

// PushSettingsOf loads a person's push choices.
func (s *Store) PushSettingsOf(ctx context.Context, userID int64) (PushSettings, error) {
	var p PushSettings
	err := get(ctx, s.DB, &p, `SELECT push_your_turn, push_reminder, push_timed_out, push_game_over, push_invite, push_rematch, push_chat, push_tournament
		FROM users WHERE id = $1`, userID)
	if err != nil {
		return PushSettings{}, fmt.Errorf("db: push settings: %w", notFound(err))
	}
	return p, nil
}

// SetPushSettings stores a person's push choices.
func (s *Store) SetPushSettings(ctx context.Context, userID int64, p PushSettings) error {
	return exec(ctx, s.DB, "set push settings", `
		UPDATE users SET push_your_turn = $2, push_reminder = $3, push_timed_out = $4, push_game_over = $5, push_invite = $6,
			push_rematch = $7, push_chat = $8, push_tournament = $9 WHERE id = $1`,
		userID, p.YourTurn, p.Reminder, p.TimedOut, p.GameOver, p.Invite, p.Rematch, p.Chat, p.Tournament)
}
