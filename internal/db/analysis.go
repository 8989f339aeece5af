package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Analysis is a row of analyses: the post-game analysis job of a game and,
// once done, its report (JSON, written and read by the analysis package).
type Analysis struct {
	GameID      int64      `db:"game_id"`
	Status      string     `db:"status"`
	Attempts    int        `db:"attempts"`
	Report      []byte     `db:"report"`
	Error       *string    `db:"error"`
	CreatedAt   time.Time  `db:"created_at"`
	FinishedAt  *time.Time `db:"finished_at"`
	LeasedUntil *time.Time `db:"leased_until"`
}

// Statuses of an analysis.
const (
	AnalysisQueued  = "queued"
	AnalysisRunning = "running"
	AnalysisDone    = "done"
	AnalysisFailed  = "failed"
)

// EnqueueAnalysis queues a finished game's analysis with the move that
// finished it (once: a game is analysed once).
func (t *Tx) EnqueueAnalysis(ctx context.Context, gameID int64, now time.Time) error {
	return exec(ctx, t.tx, "enqueue analysis", `
		INSERT INTO analyses (game_id, created_at) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING`, gameID, now)
}

// ClaimAnalysis takes the oldest analysis waiting (or one whose worker's
// lease ran out) for lease, and reports false when none waits.
func (s *Store) ClaimAnalysis(ctx context.Context, now time.Time, lease time.Duration, maxAttempts int) (int64, bool, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `
		UPDATE analyses SET status = 'running', leased_until = $2, attempts = attempts + 1
		WHERE game_id = (
			SELECT game_id FROM analyses
			WHERE (status = 'queued' OR (status = 'running' AND leased_until < $1)) AND attempts < $3
			ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING game_id`, now, now.Add(lease), maxAttempts)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("db: claim analysis: %w", err)
	}
	return id, true, nil
}

// AccuracyRow is one person's accuracy in an analysed game.
type AccuracyRow struct {
	UserID    int64
	Accuracy  float64
	Decisions int
}

// SaveAnalysis stores a finished analysis and each person's accuracy,
// provided the job is still this worker's (running). It reports false when
// another worker finished it first.
func (s *Store) SaveAnalysis(ctx context.Context, gameID int64, report []byte, acc []AccuracyRow, now time.Time) (bool, error) {
	saved := false
	err := s.Tx(ctx, func(tx *Tx) error {
		res, err := tx.tx.ExecContext(ctx, `
			UPDATE analyses SET status = 'done', report = $2::text::jsonb, finished_at = $3, leased_until = NULL, error = NULL
			WHERE game_id = $1 AND status = 'running'`, gameID, string(report), now)
		if err != nil {
			return fmt.Errorf("db: save analysis of game %d: %w", gameID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		saved = true
		for _, a := range acc {
			if err := exec(ctx, tx.tx, "save accuracy", `
				INSERT INTO analysis_accuracy (game_id, user_id, accuracy, decisions, created_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (game_id, user_id) DO UPDATE SET accuracy = EXCLUDED.accuracy, decisions = EXCLUDED.decisions`,
				gameID, a.UserID, a.Accuracy, a.Decisions, now); err != nil {
				return err
			}
		}
		return nil
	})
	return saved, err
}

// FailAnalysis records why an analysis could not be made; it is tried
// again until its attempts run out, then stays failed.
func (s *Store) FailAnalysis(ctx context.Context, gameID int64, why string, maxAttempts int) error {
	return exec(ctx, s.DB, "fail analysis", `
		UPDATE analyses SET status = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'queued' END, error = $2, leased_until = NULL
		WHERE game_id = $1`, gameID, why, maxAttempts)
}

// AnalysisOf loads a game's analysis job (ErrNotFound when there is none).
func (s *Store) AnalysisOf(ctx context.Context, gameID int64) (Analysis, error) {
	var a Analysis
	err := get(ctx, s.DB, &a, `
		SELECT game_id, status, attempts, report::text::bytea AS report, error, created_at, finished_at, leased_until
		FROM analyses WHERE game_id = $1`, gameID)
	if err != nil {
		return Analysis{}, fmt.Errorf("db: analysis of game %d: %w", gameID, notFound(err))
	}
	return a, nil
}

// DeepAnalysis loads the cached deeper analysis of one decision.
func (s *Store) DeepAnalysis(ctx context.Context, gameID int64, move int) ([]byte, error) {
	var b []byte
	err := get(ctx, s.DB, &b, `SELECT report::text::bytea FROM analysis_deep WHERE game_id = $1 AND move = $2`, gameID, move)
	if err != nil {
		return nil, fmt.Errorf("db: deep analysis: %w", notFound(err))
	}
	return b, nil
}

// SaveDeepAnalysis caches the deeper analysis of one decision.
func (s *Store) SaveDeepAnalysis(ctx context.Context, gameID int64, move int, report []byte, now time.Time) error {
	return exec(ctx, s.DB, "save deep analysis", `
		INSERT INTO analysis_deep (game_id, move, report, created_at) VALUES ($1, $2, $3::text::jsonb, $4)
		ON CONFLICT (game_id, move) DO NOTHING`, gameID, move, string(report), now)
}

// AccuracySummary is a person's average accuracy over their recent
// analysed games.
type AccuracySummary struct {
	Games    int      `db:"games"`
	Accuracy *float64 `db:"accuracy"`
}

// RecentAccuracy averages a person's accuracy over their last n analysed
// games.
func (s *Store) RecentAccuracy(ctx context.Context, userID int64, n int) (AccuracySummary, error) {
	var a AccuracySummary
	err := get(ctx, s.DB, &a, `
		SELECT count(*) AS games, avg(accuracy)::float8 AS accuracy FROM (
			SELECT accuracy FROM analysis_accuracy WHERE user_id = $1 ORDER BY created_at DESC LIMIT $2) r`, userID, n)
	if err != nil {
		return AccuracySummary{}, fmt.Errorf("db: recent accuracy: %w", err)
	}
	return a, nil
}
