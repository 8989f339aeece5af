package db

import (
	"context"
	"fmt"
	"time"
)

// RecordLoginFailure notes a failed log-in under each key (an account key and
// an IP key, say).
func (s *Store) RecordLoginFailure(ctx context.Context, at time.Time, keys ...string) error {
	for _, k := range keys {
		if _, err := s.DB.ExecContext(ctx, `INSERT INTO login_failures (key, at) VALUES ($1, $2)`, k, at); err != nil {
			return fmt.Errorf("db: record login failure: %w", err)
		}
	}
	return nil
}

// LoginFailures returns how many failures key has since since, and the
// oldest of them.
func (s *Store) LoginFailures(ctx context.Context, key string, since time.Time) (int, time.Time, error) {
	var row struct {
		N      int        `db:"n"`
		Oldest *time.Time `db:"oldest"`
	}
	err := s.DB.GetContext(ctx, &row, `SELECT count(*) AS n, min(at) AS oldest FROM login_failures WHERE key = $1 AND at > $2`, key, since)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("db: count login failures: %w", err)
	}
	if row.Oldest == nil {
		return row.N, time.Time{}, nil
	}
	return row.N, *row.Oldest, nil
}

// ClearLoginFailures forgets the failures of a key after a good log-in.
func (s *Store) ClearLoginFailures(ctx context.Context, key string) error {
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM login_failures WHERE key = $1`, key); err != nil {
		return fmt.Errorf("db: clear login failures: %w", err)
	}
	return nil
}

// DeleteOldLoginFailures removes failures older than before.
func (s *Store) DeleteOldLoginFailures(ctx context.Context, before time.Time) error {
	if _, err := s.DB.ExecContext(ctx, `DELETE FROM login_failures WHERE at < $1`, before); err != nil {
		return fmt.Errorf("db: delete old login failures: %w", err)
	}
	return nil
}
