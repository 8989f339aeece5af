package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Session is a row of sessions. IDHash is the SHA-256 of the id in the cookie.
type Session struct {
	IDHash     []byte          `db:"id_hash"`
	UserID     *int64          `db:"user_id"`
	Data       json.RawMessage `db:"data"`
	UserAgent  string          `db:"user_agent"`
	CreatedAt  time.Time       `db:"created_at"`
	LastSeenAt time.Time       `db:"last_seen_at"`
	ExpiresAt  time.Time       `db:"expires_at"`
}

// CreateSession inserts a session.
func (s *Store) CreateSession(ctx context.Context, sess Session) error {
	_, err := s.DB.NamedExecContext(ctx, `
		INSERT INTO sessions (id_hash, user_id, data, user_agent, created_at, last_seen_at, expires_at)
		VALUES (:id_hash, :user_id, CAST(CAST(:data AS text) AS jsonb), :user_agent, :created_at, :last_seen_at, :expires_at)`, sess)
	if err != nil {
		return fmt.Errorf("db: create session: %w", err)
	}
	return nil
}

// SessionByHash loads a session that has not expired by now.
func (s *Store) SessionByHash(ctx context.Context, idHash []byte, now time.Time) (Session, error) {
	var sess Session
	err := s.DB.GetContext(ctx, &sess, `
		SELECT id_hash, user_id, data, user_agent, created_at, last_seen_at, expires_at
		FROM sessions WHERE id_hash = $1 AND expires_at > $2`, idHash, now)
	if err != nil {
		return Session{}, fmt.Errorf("db: session: %w", notFound(err))
	}
	return sess, nil
}

// UpdateSession stores a session's user, data and last-seen time.
func (s *Store) UpdateSession(ctx context.Context, idHash []byte, userID *int64, data json.RawMessage, seen time.Time) error {
	_, err := s.DB.ExecContext(ctx, `
		UPDATE sessions SET user_id = $2, data = $3::text::jsonb, last_seen_at = $4 WHERE id_hash = $1`,
		idHash, userID, data, seen)
	if err != nil {
		return fmt.Errorf("db: update session: %w", err)
	}
	return nil
}

// TouchSession records that a session was used.
func (s *Store) TouchSession(ctx context.Context, idHash []byte, seen time.Time) error {
	if _, err := s.DB.ExecContext(ctx, `UPDATE sessions SET last_seen_at = $2 WHERE id_hash = $1`, idHash, seen); err != nil {
		return fmt.Errorf("db: touch session: %w", err)
	}
	return nil
}

// DeleteSession removes a session, so its cookie no longer opens it.
func (s *Store) DeleteSession(ctx context.Context, idHash []byte) error {
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM sessions WHERE id_hash = $1`, idHash); err != nil {
		return fmt.Errorf("db: delete session: %w", err)
	}
	return nil
}

// DeleteOtherSessions ends every session of a user but one, returning how
// many it ended.
func (s *Store) DeleteOtherSessions(ctx context.Context, userID int64, keep []byte) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2`, userID, keep)
	if err != nil {
		return 0, fmt.Errorf("db: delete sessions of user %d: %w", userID, err)
	}
	return res.RowsAffected()
}

// CountSessions counts a user's live sessions.
func (s *Store) CountSessions(ctx context.Context, userID int64, now time.Time) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT count(*) FROM sessions WHERE user_id = $1 AND expires_at > $2`, userID, now)
	if err != nil {
		return 0, fmt.Errorf("db: count sessions of user %d: %w", userID, err)
	}
	return n, nil
}

// DeleteExpiredSessions removes sessions past their lifetime or idle limit.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time, idle time.Duration) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2`, now, now.Add(-idle))
	if err != nil {
		return 0, fmt.Errorf("db: delete expired sessions: %w", err)
	}
	return res.RowsAffected()
}
