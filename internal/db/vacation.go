package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Vacation is a user's vacation state.
type Vacation struct {
	Until    *time.Time `db:"vacation_until"`
	Year     int        `db:"vacation_year"`
	DaysUsed int        `db:"vacation_days_used"`
}

// VacationOf loads a user's vacation state.
func (s *Store) VacationOf(ctx context.Context, userID int64) (Vacation, error) {
	var v Vacation
	if err := get(ctx, s.DB, &v, `SELECT vacation_until, vacation_year, vacation_days_used FROM users WHERE id = $1`, userID); err != nil {
		return Vacation{}, fmt.Errorf("db: vacation of %d: %w", userID, notFound(err))
	}
	return v, nil
}

// VacationForUpdate locks and loads a user's vacation state.
func (t *Tx) VacationForUpdate(ctx context.Context, userID int64) (Vacation, error) {
	var v Vacation
	if err := get(ctx, t.tx, &v, `SELECT vacation_until, vacation_year, vacation_days_used FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
		return Vacation{}, fmt.Errorf("db: lock vacation of %d: %w", userID, notFound(err))
	}
	return v, nil
}

// VacationsUntil gives, of the users named, those on vacation at now and
// when each comes back.
func (t *Tx) VacationsUntil(ctx context.Context, userIDs []int64, now time.Time) (map[int64]time.Time, error) {
	var rows []struct {
		ID    int64     `db:"id"`
		Until time.Time `db:"vacation_until"`
	}
	if err := sel(ctx, t.tx, &rows, `SELECT id, vacation_until FROM users WHERE id = ANY($1) AND vacation_until > $2`, pq.Array(userIDs), now); err != nil {
		return nil, fmt.Errorf("db: vacations: %w", err)
	}
	out := make(map[int64]time.Time, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Until
	}
	return out, nil
}

// SetVacation stores a user's vacation state.
func (t *Tx) SetVacation(ctx context.Context, userID int64, v Vacation) error {
	return exec(ctx, t.tx, "set vacation", `UPDATE users SET vacation_until = $2, vacation_year = $3, vacation_days_used = $4 WHERE id = $1`,
		userID, v.Until, v.Year, v.DaysUsed)
}

// Deadline is a game's deadline after it moved.
type Deadline struct {
	GameID      int64     `db:"id"`
	Version     int       `db:"version"`
	TurnSeconds int       `db:"turn_seconds"`
	DueAt       time.Time `db:"due_at"`
}

// ShiftDeadlines moves the deadlines of the correspondence games waiting
// for a user by d (forward when a vacation starts, back when it ends early),
// never before now, and returns them as they are now.
func (t *Tx) ShiftDeadlines(ctx context.Context, userID int64, d time.Duration, now time.Time) ([]Deadline, error) {
	var out []Deadline
	err := sel(ctx, t.tx, &out, `
		UPDATE games SET due_at = greatest(due_at + make_interval(secs => $2), $3)
		WHERE status = 'playing' AND pace = 'correspondence' AND turn_user_id = $1 AND due_at IS NOT NULL
		RETURNING id, version, turn_seconds, due_at`, userID, d.Seconds(), now)
	if err != nil {
		return nil, fmt.Errorf("db: shift deadlines: %w", err)
	}
	return out, nil
}

// MoveDeadline sets the deadline of a game's decision in play (of the
// version given) and returns it.
func (t *Tx) MoveDeadline(ctx context.Context, gameID int64, version int, due time.Time) (Deadline, error) {
	var d Deadline
	err := get(ctx, t.tx, &d, `UPDATE games SET due_at = $3 WHERE id = $1 AND version = $2 AND status = 'playing'
		RETURNING id, version, turn_seconds, due_at`, gameID, version, due)
	if err != nil {
		return d, fmt.Errorf("db: move deadline of %d: %w", gameID, notFound(err))
	}
	return d, nil
}
