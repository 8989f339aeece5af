package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Reliability is a row of reliability: an account's record over its latest
// finished games (reliability.Window of them at most).
type Reliability struct {
	UserID    int64 `db:"user_id"`
	Games     int   `db:"games"`
	Kept      int   `db:"kept"`
	Timeouts  int   `db:"timeouts"`
	Decisions int   `db:"decisions"`
}

// RefreshReliability counts again, for each of the users, their latest
// window finished games, in the transaction that finished one of them.
func (t *Tx) RefreshReliability(ctx context.Context, userIDs []int64, window int, now time.Time) error {
	if len(userIDs) == 0 {
		return nil
	}
	return exec(ctx, t.tx, "refresh reliability", `
		INSERT INTO reliability (user_id, games, kept, timeouts, decisions, updated_at)
		SELECT u.id, count(l.*), count(l.*) FILTER (WHERE NOT l.abandoned), coalesce(sum(l.timeouts), 0), coalesce(sum(l.decisions), 0), $3
		FROM unnest($1::bigint[]) AS u(id)
		LEFT JOIN LATERAL (
			SELECT s.abandoned, s.timeouts, s.decisions FROM game_seats s JOIN games g ON g.id = s.game_id
			WHERE s.user_id = u.id AND g.status = 'finished'
			ORDER BY g.finished_at DESC, g.id DESC LIMIT $2
		) l ON true
		GROUP BY u.id
		ON CONFLICT (user_id) DO UPDATE SET games = EXCLUDED.games, kept = EXCLUDED.kept, timeouts = EXCLUDED.timeouts,
			decisions = EXCLUDED.decisions, updated_at = EXCLUDED.updated_at`, pq.Array(userIDs), window, now)
}

// ReliabilityOf is an account's record (zero for one that finished no
// game).
func (s *Store) ReliabilityOf(ctx context.Context, userID int64) (Reliability, error) {
	return reliabilityOf(ctx, s.DB, userID)
}

// ReliabilityOf is ReliabilityOf inside a transaction.
func (t *Tx) ReliabilityOf(ctx context.Context, userID int64) (Reliability, error) {
	return reliabilityOf(ctx, t.tx, userID)
}

func reliabilityOf(ctx context.Context, q queryer, userID int64) (Reliability, error) {
	r := Reliability{UserID: userID}
	err := get(ctx, q, &r, `SELECT user_id, games, kept, timeouts, decisions FROM reliability WHERE user_id = $1`, userID)
	if err != nil && !errors.Is(notFound(err), ErrNotFound) {
		return r, fmt.Errorf("db: reliability of %d: %w", userID, err)
	}
	return r, nil
}

// ReliabilityOfUsers gives the records of many accounts at once (those
// without a finished game are left out).
func (s *Store) ReliabilityOfUsers(ctx context.Context, userIDs []int64) (map[int64]Reliability, error) {
	out := make(map[int64]Reliability, len(userIDs))
	if len(userIDs) == 0 {
		return out, nil
	}
	var rows []Reliability
	if err := sel(ctx, s.DB, &rows, `SELECT user_id, games, kept, timeouts, decisions FROM reliability WHERE user_id = ANY($1)`, pq.Array(userIDs)); err != nil {
		return nil, fmt.Errorf("db: reliability of users: %w", err)
	}
	for _, r := range rows {
		out[r.UserID] = r
	}
	return out, nil
}

// Abandonment is a row of abandonments: a rated game a player abandoned,
// its step in their run and the pause it brought, and its appeal.
type Abandonment struct {
	ID         int64      `db:"id"`
	UserID     int64      `db:"user_id"`
	GameID     int64      `db:"game_id"`
	How        string     `db:"how"`
	At         time.Time  `db:"at"`
	Step       int        `db:"step"`
	PauseUntil *time.Time `db:"pause_until"`
	Appeal     *string    `db:"appeal"`
	AppealedAt *time.Time `db:"appealed_at"`
	Answer     *string    `db:"answer"`
	AnswerNote string     `db:"answer_note"`
	AnsweredAt *time.Time `db:"answered_at"`
	AnsweredBy *int64     `db:"answered_by"`
}

// How an abandonment came about.
const (
	AbandonedByTimeouts = "timeouts"
	AbandonedByLeaving  = "left"
)

// Answers to an appeal.
const (
	AppealForgiven = "forgiven"
	AppealUpheld   = "upheld"
)

const abandonmentColumns = `id, user_id, game_id, how, at, step, pause_until, appeal, appealed_at, answer, answer_note, answered_at, answered_by`

// LastCountingAbandonment is a player's latest abandonment that still
// counts (not forgiven), nil for none, read under a lock on the player so
// that two at once take their steps one after the other.
func (t *Tx) LastCountingAbandonment(ctx context.Context, userID int64) (*Abandonment, error) {
	if err := exec(ctx, t.tx, "lock user", `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
		return nil, err
	}
	return lastCountingAbandonment(ctx, t.tx, userID)
}

// LastCountingAbandonment is the same read without the lock, for saying
// what a leave would cost before it is made.
func (s *Store) LastCountingAbandonment(ctx context.Context, userID int64) (*Abandonment, error) {
	return lastCountingAbandonment(ctx, s.DB, userID)
}

func lastCountingAbandonment(ctx context.Context, q queryer, userID int64) (*Abandonment, error) {
	var a Abandonment
	err := get(ctx, q, &a, `SELECT `+abandonmentColumns+` FROM abandonments
		WHERE user_id = $1 AND answer IS DISTINCT FROM 'forgiven' ORDER BY at DESC, id DESC LIMIT 1`, userID)
	if errors.Is(notFound(err), ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("db: last abandonment of %d: %w", userID, err)
	}
	return &a, nil
}

// AddAbandonment records an abandonment (once per player and game).
func (t *Tx) AddAbandonment(ctx context.Context, a Abandonment) error {
	return exec(ctx, t.tx, "add abandonment", `INSERT INTO abandonments (user_id, game_id, how, at, step, pause_until)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (user_id, game_id) DO NOTHING`, a.UserID, a.GameID, a.How, a.At, a.Step, a.PauseUntil)
}

// Abandonments lists a player's abandonments, the latest first.
func (s *Store) Abandonments(ctx context.Context, userID int64, limit int) ([]Abandonment, error) {
	var out []Abandonment
	if err := sel(ctx, s.DB, &out, `SELECT `+abandonmentColumns+` FROM abandonments WHERE user_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, userID, limit); err != nil {
		return nil, fmt.Errorf("db: abandonments of %d: %w", userID, err)
	}
	return out, nil
}

// PauseOf is the abandonment whose pause from rated play holds a player
// at now (the one that ends last), nil for none.
func (s *Store) PauseOf(ctx context.Context, userID int64, now time.Time) (*Abandonment, error) {
	return pauseOf(ctx, s.DB, userID, now)
}

// PauseOf is PauseOf inside a transaction.
func (t *Tx) PauseOf(ctx context.Context, userID int64, now time.Time) (*Abandonment, error) {
	return pauseOf(ctx, t.tx, userID, now)
}

// pauseHolds is the SQL condition that abandonment a's pause from rated
// play holds at the time now (a parameter): not yet ended, and not
// forgiven on appeal.
func pauseHolds(a, now string) string {
	return a + ".pause_until > " + now + " AND " + a + ".answer IS DISTINCT FROM 'forgiven'"
}

// pausedUser is the SQL condition that the user userID (a column) is
// kept from rated play at the time now (a parameter): paused for
// abandoning, or marked for unfair play (docs/fair-play.md).
func pausedUser(userID, now string) string {
	return "(EXISTS (SELECT 1 FROM abandonments a WHERE a.user_id = " + userID + " AND " + pauseHolds("a", now) + ")" +
		" OR EXISTS (SELECT 1 FROM users mu WHERE mu.id = " + userID + " AND mu.marked_at IS NOT NULL))"
}

func pauseOf(ctx context.Context, q queryer, userID int64, now time.Time) (*Abandonment, error) {
	var a Abandonment
	err := get(ctx, q, &a, `SELECT `+abandonmentColumns+` FROM abandonments a
		WHERE a.user_id = $1 AND `+pauseHolds("a", "$2")+` ORDER BY a.pause_until DESC LIMIT 1`, userID, now)
	if errors.Is(notFound(err), ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("db: pause of %d: %w", userID, err)
	}
	return &a, nil
}

// AppealAbandonment stores a player's appeal of one of their abandonments;
// it reports false when they have no such abandonment or appealed it
// already.
func (s *Store) AppealAbandonment(ctx context.Context, userID, id int64, text string, now time.Time) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE abandonments SET appeal = $3, appealed_at = $4
		WHERE id = $1 AND user_id = $2 AND appealed_at IS NULL`, id, userID, text, now)
	if err != nil {
		return false, fmt.Errorf("db: appeal abandonment: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// AbandonmentByID loads one abandonment.
func (s *Store) AbandonmentByID(ctx context.Context, id int64) (Abandonment, error) {
	var a Abandonment
	if err := get(ctx, s.DB, &a, `SELECT `+abandonmentColumns+` FROM abandonments WHERE id = $1`, id); err != nil {
		return a, fmt.Errorf("db: abandonment %d: %w", id, notFound(err))
	}
	return a, nil
}

// OpenAppeal is an appeal waiting for a moderator, with the player's name.
type OpenAppeal struct {
	Abandonment
	Username string `db:"username"`
}

// OpenAppeals lists the appeals of abandonments no moderator answered
// yet, the oldest first.
func (s *Store) OpenAppeals(ctx context.Context, limit int) ([]OpenAppeal, error) {
	var out []OpenAppeal
	if err := sel(ctx, s.DB, &out, `SELECT a.id, a.user_id, a.game_id, a.how, a.at, a.step, a.pause_until, a.appeal, a.appealed_at, a.answer,
			a.answer_note, a.answered_at, a.answered_by, u.username
		FROM abandonments a JOIN users u ON u.id = a.user_id
		WHERE a.appealed_at IS NOT NULL AND a.answered_at IS NULL ORDER BY a.appealed_at LIMIT $1`, limit); err != nil {
		return nil, fmt.Errorf("db: open appeals: %w", err)
	}
	return out, nil
}

// AnswerAppeal records a moderator's answer to an open appeal and the
// log entry in one transaction; it reports false when the appeal was
// answered already (or never made).
func (s *Store) AnswerAppeal(ctx context.Context, id, adminID int64, answer, note string, now time.Time) (bool, error) {
	ok := false
	err := s.Tx(ctx, func(tx *Tx) error {
		var userID int64
		err := get(ctx, tx.tx, &userID, `UPDATE abandonments SET answer = $2, answer_note = $3, answered_at = $4, answered_by = $5
			WHERE id = $1 AND appealed_at IS NOT NULL AND answered_at IS NULL RETURNING user_id`, id, answer, note, now, adminID)
		if errors.Is(notFound(err), ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		action := ModAppealUpheld
		if answer == AppealForgiven {
			action = ModAppealForgiven
		}
		return logModeration(ctx, tx, &adminID, action, &userID, nil, fmt.Sprintf("game abandoned (%d): %s", id, note), now)
	})
	if err != nil {
		return false, fmt.Errorf("db: answer appeal %d: %w", id, err)
	}
	return ok, nil
}
