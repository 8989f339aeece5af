package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Rated is a player's rating as the ranked code needs it.
type Rated struct {
	UserID int64   `db:"id"`
	Rating float64 `db:"rating"`
	Games  int     `db:"ranked_games"`
}

// RatingsForUpdate locks the rating rows of users, in id order so that two
// games finishing together cannot deadlock.
func (t *Tx) RatingsForUpdate(ctx context.Context, userIDs []int64) ([]Rated, error) {
	var out []Rated
	err := sel(ctx, t.tx, &out, `SELECT id, rating, ranked_games FROM users WHERE id = ANY($1) ORDER BY id FOR UPDATE`, pq.Array(userIDs))
	if err != nil {
		return nil, fmt.Errorf("db: lock ratings: %w", err)
	}
	return out, nil
}

// RatingChange is a row of rating_changes.
type RatingChange struct {
	UserID    int64     `db:"user_id"`
	GameID    int64     `db:"game_id"`
	Before    float64   `db:"before"`
	After     float64   `db:"after"`
	Place     int       `db:"place"`
	Players   int       `db:"players"`
	CreatedAt time.Time `db:"created_at"`
}

// ApplyRatingChange stores a player's new rating and the change.
func (t *Tx) ApplyRatingChange(ctx context.Context, c RatingChange) error {
	win := 0
	if c.Place == 1 {
		win = 1
	}
	if err := exec(ctx, t.tx, "update rating", `
		UPDATE users SET rating = $2, ranked_games = ranked_games + 1, ranked_wins = ranked_wins + $3 WHERE id = $1`,
		c.UserID, c.After, win); err != nil {
		return err
	}
	_, err := t.tx.NamedExecContext(ctx, `
		INSERT INTO rating_changes (user_id, game_id, before, after, place, players, created_at)
		VALUES (:user_id, :game_id, :before, :after, :place, :players, :created_at)`, c)
	if err != nil {
		return fmt.Errorf("db: record rating change: %w", err)
	}
	return nil
}

// LadderRow is a line of the ladder.
type LadderRow struct {
	Rank     int     `db:"rank"`
	UserID   int64   `db:"id"`
	Username string  `db:"username"`
	Rating   float64 `db:"rating"`
	Games    int     `db:"ranked_games"`
	Wins     int     `db:"ranked_wins"`
}

// Ladder lists established players (at least minGames ranked games) by
// rating, a page at a time, with their rank: people, or bot accounts when
// bots is set (the bot ladder).
func (s *Store) Ladder(ctx context.Context, bots bool, minGames, limit, offset int) ([]LadderRow, error) {
	var out []LadderRow
	err := sel(ctx, s.DB, &out, `
		SELECT rank, id, username, rating, ranked_games, ranked_wins FROM (
			SELECT rank() OVER (ORDER BY rating DESC) AS rank, id, username, rating, ranked_games, ranked_wins
			FROM users WHERE ranked_games >= $1 AND deleted_at IS NULL AND marked_at IS NULL AND bot = $4
		) l ORDER BY rank, id LIMIT $2 OFFSET $3`, minGames, limit, offset, bots)
	if err != nil {
		return nil, fmt.Errorf("db: ladder: %w", err)
	}
	return out, nil
}

// CountLadder counts established players (bot accounts when bots is set).
func (s *Store) CountLadder(ctx context.Context, bots bool, minGames int) (int, error) {
	var n int
	if err := get(ctx, s.DB, &n, `SELECT count(*) FROM users WHERE ranked_games >= $1 AND deleted_at IS NULL AND marked_at IS NULL AND bot = $2`, minGames, bots); err != nil {
		return 0, fmt.Errorf("db: count ladder: %w", err)
	}
	return n, nil
}

// Provisional lists players with ranked games but fewer than minGames
// (bot accounts when bots is set).
func (s *Store) Provisional(ctx context.Context, bots bool, minGames, limit int) ([]LadderRow, error) {
	var out []LadderRow
	err := sel(ctx, s.DB, &out, `
		SELECT 0 AS rank, id, username, rating, ranked_games, ranked_wins FROM users
		WHERE ranked_games > 0 AND ranked_games < $1 AND deleted_at IS NULL AND marked_at IS NULL AND bot = $3 ORDER BY rating DESC, id LIMIT $2`, minGames, limit, bots)
	if err != nil {
		return nil, fmt.Errorf("db: provisional players: %w", err)
	}
	return out, nil
}

// RankOf returns a player's rank among established players of their own
// ladder, people or bots (0: unranked).
func (s *Store) RankOf(ctx context.Context, userID int64, minGames int) (int, error) {
	var rank int
	err := get(ctx, s.DB, &rank, `
		SELECT CASE WHEN u.ranked_games >= $2 AND u.marked_at IS NULL
			THEN (SELECT count(*) + 1 FROM users o WHERE o.ranked_games >= $2 AND o.deleted_at IS NULL AND o.marked_at IS NULL AND o.bot = u.bot AND o.rating > u.rating) ELSE 0 END
		FROM users u WHERE u.id = $1`, userID, minGames)
	if err != nil {
		return 0, fmt.Errorf("db: rank of %d: %w", userID, notFound(err))
	}
	return rank, nil
}

// RatingHistory lists a player's rating changes, oldest first.
func (s *Store) RatingHistory(ctx context.Context, userID int64) ([]RatingChange, error) {
	var out []RatingChange
	err := sel(ctx, s.DB, &out, `
		SELECT user_id, game_id, before, after, place, players, created_at
		FROM rating_changes WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: rating history: %w", err)
	}
	return out, nil
}

// PlayedGame is a finished game on a player's profile.
type PlayedGame struct {
	GameID     int64      `db:"game_id"`
	Seats      int        `db:"seats"`
	Ranked     bool       `db:"ranked"`
	Place      *int       `db:"place"`
	Total      *int       `db:"total"`
	FinishedAt *time.Time `db:"finished_at"`
	Before     *float64   `db:"before"`
	After      *float64   `db:"after"`
}

// RecentGames lists a player's latest finished games.
func (s *Store) RecentGames(ctx context.Context, userID int64, limit int) ([]PlayedGame, error) {
	var out []PlayedGame
	err := sel(ctx, s.DB, &out, `
		SELECT g.id AS game_id, g.seats, g.ranked, s.place, s.total, g.finished_at, rc.before, rc.after
		FROM game_seats s JOIN games g ON g.id = s.game_id
		LEFT JOIN rating_changes rc ON rc.game_id = g.id AND rc.user_id = s.user_id
		WHERE s.user_id = $1 AND g.status = 'finished' AND g.public
		ORDER BY g.finished_at DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: recent games: %w", err)
	}
	return out, nil
}

// SizeRecord is a player's results at one table size.
type SizeRecord struct {
	Seats int `db:"seats"`
	Games int `db:"games"`
	Wins  int `db:"wins"`
}

// RecordBySize counts a player's finished games and wins by table size.
func (s *Store) RecordBySize(ctx context.Context, userID int64) ([]SizeRecord, error) {
	var out []SizeRecord
	err := sel(ctx, s.DB, &out, `
		SELECT g.seats, count(*) AS games, count(*) FILTER (WHERE s.place = 1) AS wins
		FROM game_seats s JOIN games g ON g.id = s.game_id
		WHERE s.user_id = $1 AND g.status = 'finished'
		GROUP BY g.seats ORDER BY g.seats`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: record by size: %w", err)
	}
	return out, nil
}

// QueueEntry is a row of ranked_queue with the player's rating.
type QueueEntry struct {
	UserID    int64         `db:"user_id"`
	Sizes     pq.Int64Array `db:"sizes"`
	Pace      string        `db:"pace"`
	JoinedAt  time.Time     `db:"joined_at"`
	GameID    *int64        `db:"game_id"`
	MatchedAt *time.Time    `db:"matched_at"`
	Rating    float64       `db:"rating"`
	// Pool is whom the player waits for: PoolPeople or PoolBots.
	Pool string `db:"pool"`
	// RelGames and RelKept: the player's reliability (games counted,
	// those finished without abandoning), which the matcher weighs.
	RelGames int `db:"rel_games"`
	RelKept  int `db:"rel_kept"`
}

const queueColumns = `q.user_id, q.sizes, q.pace, q.joined_at, q.game_id, q.matched_at, u.rating, q.pool,
	COALESCE(r.games, 0) AS rel_games, COALESCE(r.kept, 0) AS rel_kept`

// The queue's pools: people are matched with people, bot accounts with
// bot accounts, never across.
const (
	PoolPeople = "people"
	PoolBots   = "bots"
)

// JoinQueue puts a player in a pool of the queue, or changes their choice.
func (s *Store) JoinQueue(ctx context.Context, userID int64, pool string, sizes []int64, pace string, at time.Time) error {
	return exec(ctx, s.DB, "join queue", `
		INSERT INTO ranked_queue (user_id, sizes, pace, joined_at, pool) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (user_id) DO UPDATE SET sizes = EXCLUDED.sizes, pace = EXCLUDED.pace, pool = EXCLUDED.pool,
			joined_at = CASE WHEN ranked_queue.game_id IS NULL THEN ranked_queue.joined_at ELSE EXCLUDED.joined_at END,
			game_id = NULL, matched_at = NULL`, userID, pq.Array(sizes), pace, at, pool)
}

// LeaveQueue removes a player from the queue.
func (s *Store) LeaveQueue(ctx context.Context, userID int64) error {
	return exec(ctx, s.DB, "leave queue", `DELETE FROM ranked_queue WHERE user_id = $1`, userID)
}

// QueueEntryOf returns a player's queue row.
func (s *Store) QueueEntryOf(ctx context.Context, userID int64) (QueueEntry, error) {
	var e QueueEntry
	err := get(ctx, s.DB, &e, `
		SELECT `+queueColumns+`
		FROM ranked_queue q JOIN users u ON u.id = q.user_id LEFT JOIN reliability r ON r.user_id = q.user_id WHERE q.user_id = $1`, userID)
	if err != nil {
		return QueueEntry{}, fmt.Errorf("db: queue entry: %w", notFound(err))
	}
	return e, nil
}

// CountWaiting counts the players waiting in a pool, by pace.
func (s *Store) CountWaiting(ctx context.Context, pool string) (map[string]int, error) {
	var rows []struct {
		Pace string `db:"pace"`
		N    int    `db:"n"`
	}
	if err := sel(ctx, s.DB, &rows, `SELECT pace, count(*) AS n FROM ranked_queue WHERE game_id IS NULL AND pool = $1 GROUP BY pace`, pool); err != nil {
		return nil, fmt.Errorf("db: count waiting: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Pace] = r.N
	}
	return out, nil
}

// LockMatcher takes the transaction-scoped lock that lets one instance at a
// time match players; it reports false when another instance holds it.
func (t *Tx) LockMatcher(ctx context.Context) (bool, error) {
	var ok bool
	if err := get(ctx, t.tx, &ok, `SELECT pg_try_advisory_xact_lock(hashtext('nothanks ranked matcher'))`); err != nil {
		return false, fmt.Errorf("db: matcher lock: %w", err)
	}
	return ok, nil
}

// WaitingForUpdate locks the waiting queue rows with their ratings and
// reliability. A player paused from rated play at now is left aside: they
// stay queued, unmatched, until their pause ends.
func (t *Tx) WaitingForUpdate(ctx context.Context, now time.Time) ([]QueueEntry, error) {
	var out []QueueEntry
	err := sel(ctx, t.tx, &out, `
		SELECT `+queueColumns+`
		FROM ranked_queue q JOIN users u ON u.id = q.user_id LEFT JOIN reliability r ON r.user_id = q.user_id
		WHERE q.game_id IS NULL
			AND NOT `+pausedUser("q.user_id", "$1")+`
		FOR UPDATE OF q`, now)
	if err != nil {
		return nil, fmt.Errorf("db: waiting players: %w", err)
	}
	return out, nil
}

// MarkMatched records the game a queued player was matched into.
func (t *Tx) MarkMatched(ctx context.Context, userID, gameID int64, at time.Time) error {
	return exec(ctx, t.tx, "mark matched", `UPDATE ranked_queue SET game_id = $2, matched_at = $3 WHERE user_id = $1`, userID, gameID, at)
}

// GameRatingChanges lists the rating changes a ranked game made.
func (s *Store) GameRatingChanges(ctx context.Context, gameID int64) ([]RatingChange, error) {
	var out []RatingChange
	err := sel(ctx, s.DB, &out, `
		SELECT user_id, game_id, before, after, place, players, created_at
		FROM rating_changes WHERE game_id = $1`, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: rating changes of game %d: %w", gameID, err)
	}
	return out, nil
}
