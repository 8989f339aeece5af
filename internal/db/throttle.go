package db

import (
	"context"
	"fmt"
	"time"
)

// Attempt is one counted try against a throttle key: the key's count with
// it included (at most limit+1) and the start of the key's window.
type Attempt struct {
	Key        string    `db:"key"`
	Count      int       `db:"attempts"`
	WindowFrom time.Time `db:"window_from"`
}

// CountAttempt counts one more attempt for key, atomically: a window that
// began at or before expired starts afresh at now. The count stops at
// limit+1, so that a flood of refused attempts neither overflows it nor
// keeps the key locked past its window.
func (s *Store) CountAttempt(ctx context.Context, key string, limit int, now, expired time.Time) (Attempt, error) {
	a := Attempt{Key: key}
	err := get(ctx, s.DB, &a, `
		INSERT INTO throttle AS t (key, attempts, window_from) VALUES ($1, 1, $2)
		ON CONFLICT (key) DO UPDATE SET
			attempts = CASE WHEN t.window_from <= $4 THEN 1 ELSE LEAST(t.attempts + 1, $3 + 1) END,
			window_from = CASE WHEN t.window_from <= $4 THEN EXCLUDED.window_from ELSE t.window_from END
		RETURNING key, attempts, window_from`, key, now, limit, expired)
	if err != nil {
		return Attempt{}, fmt.Errorf("db: count attempt: %w", err)
	}
	return a, nil
}

// UncountAttempt gives back an attempt counted in the window that a
// started, if that window is still the key's.
func (s *Store) UncountAttempt(ctx context.Context, a Attempt) error {
	return exec(ctx, s.DB, "uncount attempt", `
		UPDATE throttle SET attempts = attempts - 1 WHERE key = $1 AND window_from = $2 AND attempts > 0`, a.Key, a.WindowFrom)
}

// ClearAttempts forgets a key's attempts (after a right password).
func (s *Store) ClearAttempts(ctx context.Context, key string) error {
	return exec(ctx, s.DB, "clear attempts", `DELETE FROM throttle WHERE key = $1`, key)
}

// DeleteOldAttempts removes counters whose window began before before.
func (s *Store) DeleteOldAttempts(ctx context.Context, before time.Time) error {
	return exec(ctx, s.DB, "delete old attempts", `DELETE FROM throttle WHERE window_from < $1`, before)
}
