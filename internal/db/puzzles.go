package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// EnqueuePuzzleMining queues a finished public game to be mined for
// puzzles (once).
func (t *Tx) EnqueuePuzzleMining(ctx context.Context, gameID int64, now time.Time) error {
	return exec(ctx, t.tx, "enqueue puzzle mining", `
		INSERT INTO puzzle_mining (game_id, created_at) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING`, gameID, now)
}

// ClaimPuzzleMining takes the oldest game waiting to be mined (or one whose
// worker's lease ran out) for lease; false when none waits.
func (s *Store) ClaimPuzzleMining(ctx context.Context, now time.Time, lease time.Duration, maxAttempts int) (int64, bool, error) {
	var ids []int64
	err := sel(ctx, s.DB, &ids, `
		UPDATE puzzle_mining SET lease_until = $2, attempts = attempts + 1
		WHERE game_id = (
			SELECT game_id FROM puzzle_mining
			WHERE status = 'queued' AND (lease_until IS NULL OR lease_until < $1) AND attempts < $3
			ORDER BY created_at, game_id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING game_id`, now, now.Add(lease), maxAttempts)
	if err != nil {
		return 0, false, fmt.Errorf("db: claim puzzle mining: %w", err)
	}
	if len(ids) == 0 {
		return 0, false, nil
	}
	return ids[0], true, nil
}

// NewPuzzle is a puzzle found in a game.
type NewPuzzle struct {
	Move, Seat, Steps int
	Best              string
	Themes            []string
	Margin            float64
	Obvious           bool
	Data              []byte
	// Start is the puzzle's first rating.
	Start Rating3
}

// SavePuzzles stores the puzzles mined from a game and marks it done, in
// one transaction; a puzzle already stored (a second worker) is kept.
func (s *Store) SavePuzzles(ctx context.Context, gameID int64, ps []NewPuzzle, now time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		for _, p := range ps {
			if err := exec(ctx, tx.tx, "save puzzle", `
				INSERT INTO puzzles (game_id, move, seat, best, steps, themes, margin, obvious, data, rating, rd, volatility, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10, $11, $12, $13)
				ON CONFLICT (game_id, move) DO NOTHING`,
				gameID, p.Move, p.Seat, p.Best, p.Steps, pq.Array(p.Themes), p.Margin, p.Obvious, string(p.Data), p.Start.R, p.Start.RD, p.Start.Sigma, now); err != nil {
				return err
			}
		}
		return exec(ctx, tx.tx, "puzzle mining done", `
			UPDATE puzzle_mining SET status = 'done', lease_until = NULL, found = $2, last_error = '' WHERE game_id = $1`, gameID, len(ps))
	})
}

// FailPuzzleMining gives a claimed game back with the reason; after the
// last attempt it stays failed.
func (s *Store) FailPuzzleMining(ctx context.Context, gameID int64, why string, maxAttempts int) error {
	return exec(ctx, s.DB, "fail puzzle mining", `
		UPDATE puzzle_mining SET lease_until = NULL, last_error = $2,
			status = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'queued' END
		WHERE game_id = $1`, gameID, why, maxAttempts)
}

// Rating3 is a Glicko-2 rating as stored: rating, deviation, volatility.
type Rating3 struct {
	R     float64 `db:"rating"`
	RD    float64 `db:"rd"`
	Sigma float64 `db:"volatility"`
}

// Puzzle is a row of puzzles.
type Puzzle struct {
	ID       int64          `db:"id"`
	GameID   int64          `db:"game_id"`
	Move     int            `db:"move"`
	Seat     int            `db:"seat"`
	Best     string         `db:"best"`
	Steps    int            `db:"steps"`
	Themes   pq.StringArray `db:"themes"`
	Margin   float64        `db:"margin"`
	Obvious  bool           `db:"obvious"`
	Data     []byte         `db:"data"`
	Attempts int            `db:"attempts"`
	Solved   int            `db:"solved"`
	Rating3
	CreatedAt time.Time `db:"created_at"`
}

const puzzleColumns = `p.id, p.game_id, p.move, p.seat, p.best, p.steps, p.themes, p.margin, p.obvious, p.data, p.attempts, p.solved,
	p.rating, p.rd, p.volatility, p.created_at`

// PuzzleByID reads a puzzle.
func (s *Store) PuzzleByID(ctx context.Context, id int64) (Puzzle, error) {
	var p Puzzle
	stmt, err := s.hot.prepare(ctx, s.DB, `SELECT `+puzzleColumns+` FROM puzzles p WHERE p.id = $1`)
	if err != nil {
		return p, err
	}
	if err := stmt.GetContext(ctx, &p, id); err != nil {
		return p, fmt.Errorf("db: puzzle %d: %w", id, notFound(err))
	}
	return p, nil
}

// NextPuzzle picks a puzzle near a rating that the solver (0: a visitor)
// has not tried and did not play in, of a theme if one is given, skipping
// the ids given (a visitor's recent ones). It walks the rating index up and
// down from the rating and takes the nearer of the first fit on each side;
// the index holds the game and the themes, and the solver's attempts and
// games are read once into hashes, so the walk reads no puzzle's row
// (docs/puzzles.md, "How fast").
func (s *Store) NextPuzzle(ctx context.Context, userID int64, rating float64, theme string, skip []int64) (Puzzle, error) {
	var p Puzzle
	stmt, err := s.hot.prepare(ctx, s.DB, nextPuzzleQuery)
	if err != nil {
		return p, err
	}
	if skip == nil {
		skip = []int64{}
	}
	if err := stmt.GetContext(ctx, &p, userID, rating, theme, pq.Array(skip)); err != nil {
		return p, fmt.Errorf("db: next puzzle: %w", notFound(err))
	}
	return p, nil
}

const nextPuzzleQuery = `
	WITH fit AS NOT MATERIALIZED (
		SELECT p.id, p.rating FROM puzzles p
		WHERE ($3 = '' OR $3 = ANY (p.themes)) AND p.id <> ALL ($4::bigint[])
			AND p.id NOT IN (SELECT a.puzzle_id FROM puzzle_attempts a WHERE a.user_id = $1)
			AND p.game_id NOT IN (SELECT s.game_id FROM game_seats s WHERE s.user_id = $1)
	), near AS (
		(SELECT * FROM fit WHERE rating >= $2 ORDER BY rating, id LIMIT 1)
		UNION ALL
		(SELECT * FROM fit WHERE rating < $2 ORDER BY rating DESC, id DESC LIMIT 1)
	)
	SELECT ` + puzzleColumns + ` FROM puzzles p
	WHERE p.id = (SELECT n.id FROM near n ORDER BY abs(n.rating - $2), n.id LIMIT 1)`

// PuzzleThemes counts the puzzles of each theme.
func (s *Store) PuzzleThemes(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Theme string `db:"theme"`
		N     int    `db:"n"`
	}
	if err := sel(ctx, s.DB, &rows, `SELECT t AS theme, count(*) AS n FROM puzzles, unnest(themes) AS t GROUP BY t`); err != nil {
		return nil, fmt.Errorf("db: puzzle themes: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Theme] = r.N
	}
	return out, nil
}

// CountPuzzles counts the puzzles.
func (s *Store) CountPuzzles(ctx context.Context) (int, error) {
	var n int
	if err := get(ctx, s.DB, &n, `SELECT count(*) FROM puzzles`); err != nil {
		return 0, fmt.Errorf("db: count puzzles: %w", err)
	}
	return n, nil
}

// DailyPuzzle is the day's puzzle, chosen at the day's first request
// among puzzles never chosen: the one nearest the middle of the ratings
// that is not obvious, with a clear margin, the same for every instance
// (the first to insert wins).
func (s *Store) DailyPuzzle(ctx context.Context, day time.Time) (Puzzle, error) {
	d := day.UTC().Format("2006-01-02")
	var p Puzzle
	const read = `SELECT ` + puzzleColumns + ` FROM puzzle_days d JOIN puzzles p ON p.id = d.puzzle_id WHERE d.day = $1::date`
	// Every home page asks: the day's row is read first, and only the
	// day's first request looks through the puzzles.
	err := get(ctx, s.DB, &p, read, d)
	if !errors.Is(err, sql.ErrNoRows) {
		if err != nil {
			return p, fmt.Errorf("db: daily puzzle: %w", err)
		}
		return p, nil
	}
	if err := exec(ctx, s.DB, "choose daily puzzle", `
		INSERT INTO puzzle_days (day, puzzle_id)
		SELECT $1::date, p.id FROM puzzles p
		WHERE NOT EXISTS (SELECT 1 FROM puzzle_days d WHERE d.puzzle_id = p.id)
		ORDER BY p.obvious, p.margin >= 0.15 DESC, abs(p.rating - 1500), p.id LIMIT 1
		ON CONFLICT DO NOTHING`, d); err != nil {
		return Puzzle{}, err
	}
	if err := get(ctx, s.DB, &p, read, d); err != nil {
		return p, fmt.Errorf("db: daily puzzle: %w", notFound(err))
	}
	return p, nil
}

// SolverRating is a row of puzzle_ratings.
type SolverRating struct {
	UserID int64 `db:"user_id"`
	Rating3
	Attempts   int       `db:"attempts"`
	Solved     int       `db:"solved"`
	Streak     int       `db:"streak"`
	BestStreak int       `db:"best_streak"`
	UpdatedAt  time.Time `db:"updated_at"`
}

// SolverRatingOf reads a solver's puzzle rating; ok is false for a solver
// who has not finished a puzzle yet.
func (s *Store) SolverRatingOf(ctx context.Context, userID int64) (SolverRating, bool, error) {
	var r SolverRating
	err := get(ctx, s.DB, &r, `SELECT user_id, rating, rd, volatility, attempts, solved, streak, best_streak, updated_at FROM puzzle_ratings WHERE user_id = $1`, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("db: puzzle rating of %d: %w", userID, err)
	}
	return r, true, nil
}

// PuzzleAttempt is a row of puzzle_attempts.
type PuzzleAttempt struct {
	ID           int64          `db:"id"`
	UserID       int64          `db:"user_id"`
	PuzzleID     int64          `db:"puzzle_id"`
	Status       string         `db:"status"`
	Progress     int            `db:"progress"`
	Answers      pq.StringArray `db:"answers"`
	RatingBefore *float64       `db:"rating_before"`
	RatingAfter  *float64       `db:"rating_after"`
	PuzzleBefore *float64       `db:"puzzle_before"`
	PuzzleAfter  *float64       `db:"puzzle_after"`
	CreatedAt    time.Time      `db:"created_at"`
	FinishedAt   *time.Time     `db:"finished_at"`
	// Themes of the puzzle, for the history.
	Themes pq.StringArray `db:"themes"`
}

const attemptColumns = `a.id, a.user_id, a.puzzle_id, a.status, a.progress, a.answers, a.rating_before, a.rating_after,
	a.puzzle_before, a.puzzle_after, a.created_at, a.finished_at, p.themes`

// AttemptOf reads a solver's attempt at a puzzle; ok false when none.
func (s *Store) AttemptOf(ctx context.Context, userID, puzzleID int64) (PuzzleAttempt, bool, error) {
	var a PuzzleAttempt
	err := get(ctx, s.DB, &a, `SELECT `+attemptColumns+` FROM puzzle_attempts a JOIN puzzles p ON p.id = a.puzzle_id
		WHERE a.user_id = $1 AND a.puzzle_id = $2`, userID, puzzleID)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("db: attempt: %w", err)
	}
	return a, true, nil
}

// Attempts lists a solver's latest attempts, newest first.
func (s *Store) Attempts(ctx context.Context, userID int64, limit int) ([]PuzzleAttempt, error) {
	var out []PuzzleAttempt
	err := sel(ctx, s.DB, &out, `SELECT `+attemptColumns+` FROM puzzle_attempts a JOIN puzzles p ON p.id = a.puzzle_id
		WHERE a.user_id = $1 ORDER BY a.created_at DESC, a.id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: attempts of %d: %w", userID, err)
	}
	return out, nil
}

// AnswerStep is one answer of a solver, decided by the caller on the
// locked rows: Finish says the attempt ends (Solved or not) with the new
// ratings.
type AnswerStep struct {
	Answer   string
	Progress int
	Finish   bool
	Solved   bool
	// Before and after, for a finished attempt.
	SolverBefore, SolverAfter Rating3
	PuzzleBefore, PuzzleAfter Rating3
}

// ErrAnswered is an answer to a step already answered, or to a puzzle whose
// attempt is over.
var ErrAnswered = errors.New("db: the puzzle is answered")

// AnswerPuzzle records one answer of a member in one transaction with the
// puzzle's and the solver's rows locked: decide sees the attempt so far
// (nil for the first answer), the puzzle and the solver's rating (nil for
// a first puzzle) and says what the answer does. A step answered twice
// (two tabs, a retry) is ErrAnswered and changes nothing.
func (s *Store) AnswerPuzzle(ctx context.Context, userID, puzzleID int64, step int, now time.Time,
	decide func(a *PuzzleAttempt, p Puzzle, r *SolverRating) (AnswerStep, error)) (AnswerStep, error) {
	var out AnswerStep
	err := s.Tx(ctx, func(tx *Tx) error {
		var p Puzzle
		if err := get(ctx, tx.tx, &p, `SELECT `+puzzleColumns+` FROM puzzles p WHERE p.id = $1 FOR UPDATE`, puzzleID); err != nil {
			return fmt.Errorf("db: lock puzzle: %w", notFound(err))
		}
		if err := exec(ctx, tx.tx, "lock solver", `SELECT pg_advisory_xact_lock(hashtextextended('puzzle-solver', $1))`, userID); err != nil {
			return err
		}
		var r *SolverRating
		var sr SolverRating
		err := get(ctx, tx.tx, &sr, `SELECT user_id, rating, rd, volatility, attempts, solved, streak, best_streak, updated_at FROM puzzle_ratings WHERE user_id = $1`, userID)
		switch {
		case err == nil:
			r = &sr
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("db: solver rating: %w", err)
		}
		var a *PuzzleAttempt
		var pa PuzzleAttempt
		err = get(ctx, tx.tx, &pa, `SELECT `+attemptColumns+` FROM puzzle_attempts a JOIN puzzles p ON p.id = a.puzzle_id
			WHERE a.user_id = $1 AND a.puzzle_id = $2 FOR UPDATE OF a`, userID, puzzleID)
		switch {
		case err == nil:
			a = &pa
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("db: attempt: %w", err)
		}
		if a != nil && (a.Status != "open" || a.Progress != step) || a == nil && step != 0 {
			return ErrAnswered
		}
		st, err := decide(a, p, r)
		if err != nil {
			return err
		}
		out = st
		status := "open"
		if st.Finish {
			status = "failed"
			if st.Solved {
				status = "solved"
			}
		}
		var finished *time.Time
		var rb, ra, pb, pA *float64
		if st.Finish {
			finished = &now
			rb, ra, pb, pA = &st.SolverBefore.R, &st.SolverAfter.R, &st.PuzzleBefore.R, &st.PuzzleAfter.R
		}
		if a == nil {
			err = exec(ctx, tx.tx, "new attempt", `
				INSERT INTO puzzle_attempts (user_id, puzzle_id, status, progress, answers, rating_before, rating_after, puzzle_before, puzzle_after, created_at, finished_at)
				VALUES ($1, $2, $3, $4, ARRAY[$5::text], $6, $7, $8, $9, $10, $11)`,
				userID, puzzleID, status, st.Progress, st.Answer, rb, ra, pb, pA, now, finished)
		} else {
			err = exec(ctx, tx.tx, "answer attempt", `
				UPDATE puzzle_attempts SET status = $2, progress = $3, answers = answers || $4::text,
					rating_before = $5, rating_after = $6, puzzle_before = $7, puzzle_after = $8, finished_at = $9
				WHERE id = $1`, a.ID, status, st.Progress, st.Answer, rb, ra, pb, pA, finished)
		}
		if err != nil || !st.Finish {
			return err
		}
		solved := 0
		if st.Solved {
			solved = 1
		}
		if err := exec(ctx, tx.tx, "rate puzzle", `
			UPDATE puzzles SET rating = $2, rd = $3, volatility = $4, attempts = attempts + 1, solved = solved + $5 WHERE id = $1`,
			puzzleID, st.PuzzleAfter.R, st.PuzzleAfter.RD, st.PuzzleAfter.Sigma, solved); err != nil {
			return err
		}
		return exec(ctx, tx.tx, "rate solver", `
			INSERT INTO puzzle_ratings AS r (user_id, rating, rd, volatility, attempts, solved, streak, best_streak, updated_at)
			VALUES ($1, $2, $3, $4, 1, $5, $5, $5, $6)
			ON CONFLICT (user_id) DO UPDATE SET rating = $2, rd = $3, volatility = $4, attempts = r.attempts + 1, solved = r.solved + $5,
				streak = CASE WHEN $5 = 1 THEN r.streak + 1 ELSE 0 END,
				best_streak = GREATEST(r.best_streak, CASE WHEN $5 = 1 THEN r.streak + 1 ELSE 0 END), updated_at = $6`,
			userID, st.SolverAfter.R, st.SolverAfter.RD, st.SolverAfter.Sigma, solved, now)
	})
	return out, err
}
