package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Moderation log actions of fair play.
const (
	ModFairDismiss    = "fair_dismiss"
	ModFairWarn       = "fair_warn"
	ModFairMark       = "fair_mark"
	ModFairClose      = "fair_close"
	ModFairUndo       = "fair_undo"
	ModFairRefund     = "fair_refund"
	ModFairUpheld     = "fair_appeal_upheld"
	ModFairOverturned = "fair_appeal_overturned"
)

// ErrDuplicate is a row that may exist once and already does.
var ErrDuplicate = errors.New("db: already exists")

// RecordSeatingPool stores who was waiting when rated tables were formed
// and the average chance that two of them share a table, and adds each
// pair's own chance (keys: lower id first) to its expected meetings.
func (t *Tx) RecordSeatingPool(ctx context.Context, members []int64, chance float64, pairs map[[2]int64]float64, at time.Time) error {
	if err := exec(ctx, t.tx, "record seating pool", `INSERT INTO seating_pools (members, chance, at) VALUES ($1, $2, $3)`,
		pq.Array(members), chance, at); err != nil {
		return err
	}
	if len(pairs) == 0 {
		return nil
	}
	as, bs, cs := make([]int64, 0, len(pairs)), make([]int64, 0, len(pairs)), make([]float64, 0, len(pairs))
	for k, c := range pairs {
		as, bs, cs = append(as, k[0]), append(bs, k[1]), append(cs, c)
	}
	return exec(ctx, t.tx, "add expected meetings", `
		INSERT INTO pair_expected (user_a, user_b, expected)
		SELECT a, b, c FROM unnest($1::bigint[], $2::bigint[], $3::float8[]) AS x (a, b, c) ORDER BY a, b
		ON CONFLICT (user_a, user_b) DO UPDATE SET expected = pair_expected.expected + EXCLUDED.expected`,
		pq.Array(as), pq.Array(bs), pq.Array(cs))
}

// EnqueueFairplay queues a finished rated game's signals.
func (t *Tx) EnqueueFairplay(ctx context.Context, gameID int64, now time.Time) error {
	return exec(ctx, t.tx, "enqueue fair play", `
		INSERT INTO fairplay_jobs (game_id, created_at) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING`, gameID, now)
}

// ClaimFairplayJob takes the oldest game whose signals wait and whose
// analysis is over (done or failed, or older than wait), leasing it; it
// reports false when none is ready.
func (s *Store) ClaimFairplayJob(ctx context.Context, now time.Time, lease, wait time.Duration, maxAttempts int) (int64, bool, error) {
	var id int64
	err := s.DB.GetContext(ctx, &id, `
		UPDATE fairplay_jobs SET leased_until = $2, attempts = attempts + 1
		WHERE game_id = (
			SELECT j.game_id FROM fairplay_jobs j
			WHERE j.done_at IS NULL AND (j.leased_until IS NULL OR j.leased_until < $1) AND j.attempts < $4
				AND (j.created_at < $3 OR NOT EXISTS (
					SELECT 1 FROM analyses a WHERE a.game_id = j.game_id AND a.status IN ('queued', 'running')))
			ORDER BY j.created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING game_id`, now, now.Add(lease), now.Add(-wait), maxAttempts)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("db: claim fair play job: %w", err)
	}
	return id, true, nil
}

// FailFairplayJob gives a job back with why it failed.
func (s *Store) FailFairplayJob(ctx context.Context, gameID int64, why string) error {
	return exec(ctx, s.DB, "fail fair play job", `UPDATE fairplay_jobs SET leased_until = NULL, error = $2 WHERE game_id = $1`, gameID, why)
}

// FinishFairplayJob marks a job done inside the transaction that wrote
// its signals; it reports false when it was no longer this worker's (done
// by another).
func (t *Tx) FinishFairplayJob(ctx context.Context, gameID int64, now time.Time) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `UPDATE fairplay_jobs SET done_at = $2, leased_until = NULL, error = NULL WHERE game_id = $1 AND done_at IS NULL`, gameID, now)
	if err != nil {
		return false, fmt.Errorf("db: finish fair play job: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// FairSeat is a person's seat of a finished rated game with the rating
// and rated games they brought to it. Games is counted up to 20
// (rating.Provisional): that is all the K factor needs of it.
type FairSeat struct {
	UserID int64   `db:"user_id"`
	Seat   int     `db:"seat"`
	Place  int     `db:"place"`
	Before float64 `db:"before"`
	Games  int     `db:"games"`
}

// FairGame is what the signals read of a finished rated game.
type FairGame struct {
	ID      int64
	Players int
	Seats   []FairSeat
	// Decisions is the analysis report's judged decisions, as JSON (nil:
	// no analysis).
	Decisions []byte
}

// FairGameOf loads a finished rated game for the signals.
func (s *Store) FairGameOf(ctx context.Context, gameID int64) (FairGame, error) {
	g := FairGame{ID: gameID}
	if err := get(ctx, s.DB, &g.Players, `SELECT seats FROM games WHERE id = $1 AND ranked AND status = 'finished'`, gameID); err != nil {
		return g, fmt.Errorf("db: fair game %d: %w", gameID, notFound(err))
	}
	if err := sel(ctx, s.DB, &g.Seats, `
		SELECT s.user_id, s.seat, rc.place, rc.before,
			(SELECT count(*) FROM (SELECT 1 FROM rating_changes o WHERE o.user_id = rc.user_id AND (o.created_at, o.id) < (rc.created_at, rc.id) LIMIT 20) x) AS games
		FROM game_seats s JOIN rating_changes rc ON rc.game_id = s.game_id AND rc.user_id = s.user_id
		JOIN users u ON u.id = s.user_id
		WHERE s.game_id = $1 AND NOT u.bot ORDER BY s.seat`, gameID); err != nil {
		return g, fmt.Errorf("db: fair seats %d: %w", gameID, err)
	}
	var rep []byte
	err := get(ctx, s.DB, &rep, `SELECT (report->'decisions')::text::bytea FROM analyses WHERE game_id = $1 AND status = 'done'`, gameID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("db: fair report %d: %w", gameID, err)
	}
	g.Decisions = rep
	return g, nil
}

// PairGameRow is one pair's figures from one game.
type PairGameRow struct {
	UserA       int64   `db:"user_a"`
	UserB       int64   `db:"user_b"`
	GameID      int64   `db:"game_id"`
	FromRest    float64 `db:"from_rest"`
	FromRestVar float64 `db:"from_rest_var"`
	BFromA      float64 `db:"b_from_a"`
	AFromB      float64 `db:"a_from_b"`
	FeedAB      float64 `db:"feed_ab"`
	FeedABSq    float64 `db:"feed_ab_sq"`
	FeedsAB     int     `db:"feeds_ab"`
	JudgedA     int     `db:"judged_a"`
	FeedBA      float64 `db:"feed_ba"`
	FeedBASq    float64 `db:"feed_ba_sq"`
	FeedsBA     int     `db:"feeds_ba"`
	JudgedB     int     `db:"judged_b"`
}

// AddPairGames writes a game's pair figures (a pair's game once).
func (t *Tx) AddPairGames(ctx context.Context, rows []PairGameRow, now time.Time) error {
	for _, r := range rows {
		if err := exec(ctx, t.tx, "add pair game", `
			INSERT INTO pair_games (user_a, user_b, game_id, from_rest, from_rest_var, b_from_a, a_from_b,
				feed_ab, feed_ab_sq, feeds_ab, judged_a, feed_ba, feed_ba_sq, feeds_ba, judged_b, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING`,
			r.UserA, r.UserB, r.GameID, r.FromRest, r.FromRestVar, r.BFromA, r.AFromB,
			r.FeedAB, r.FeedABSq, r.FeedsAB, r.JudgedA, r.FeedBA, r.FeedBASq, r.FeedsBA, r.JudgedB, now); err != nil {
			return err
		}
	}
	return nil
}

// PairSignal is a row of pair_signals: a pair's figures over their rated
// games together, with the chance meetings and links, and its score.
type PairSignal struct {
	UserA       int64     `db:"user_a"`
	UserB       int64     `db:"user_b"`
	NameA       string    `db:"name_a"`
	NameB       string    `db:"name_b"`
	Games       int       `db:"games"`
	Expected    float64   `db:"expected"`
	FromRest    float64   `db:"from_rest"`
	FromRestVar float64   `db:"from_rest_var"`
	BFromA      float64   `db:"b_from_a"`
	AFromB      float64   `db:"a_from_b"`
	FeedAB      float64   `db:"feed_ab"`
	FeedABSq    float64   `db:"feed_ab_sq"`
	FeedsAB     int       `db:"feeds_ab"`
	JudgedA     int       `db:"judged_a"`
	FeedBA      float64   `db:"feed_ba"`
	FeedBASq    float64   `db:"feed_ba_sq"`
	FeedsBA     int       `db:"feeds_ba"`
	JudgedB     int       `db:"judged_b"`
	Device      bool      `db:"device"`
	Network     bool      `db:"network"`
	Score       float64   `db:"score"`
	UpdatedAt   time.Time `db:"updated_at"`
}

// SumPair adds up a pair's figures from its games, the chance of their
// meetings from the seating pools and whether they share a device or a
// network (the score is left to the caller). The feeding's square is
// summed by game (each game's feeding squared), so that its z counts the
// decisions of one game, which are not independent, as one draw
// (docs/fair-play.md); a game's own sum of squares by decision stays in
// pair_games for reading.
func (t *Tx) SumPair(ctx context.Context, a, b int64) (PairSignal, error) {
	p := PairSignal{UserA: a, UserB: b}
	err := get(ctx, t.tx, &p, `
		SELECT $1::bigint AS user_a, $2::bigint AS user_b, count(*) AS games,
			coalesce(sum(from_rest), 0) AS from_rest, coalesce(sum(from_rest_var), 0) AS from_rest_var,
			coalesce(sum(b_from_a), 0) AS b_from_a, coalesce(sum(a_from_b), 0) AS a_from_b,
			coalesce(sum(feed_ab), 0) AS feed_ab, coalesce(sum(feed_ab * feed_ab), 0) AS feed_ab_sq,
			coalesce(sum(feeds_ab), 0) AS feeds_ab, coalesce(sum(judged_a), 0) AS judged_a,
			coalesce(sum(feed_ba), 0) AS feed_ba, coalesce(sum(feed_ba * feed_ba), 0) AS feed_ba_sq,
			coalesce(sum(feeds_ba), 0) AS feeds_ba, coalesce(sum(judged_b), 0) AS judged_b,
			(SELECT coalesce(max(expected), 0) FROM pair_expected WHERE user_a = $1 AND user_b = $2) AS expected,
			EXISTS (SELECT 1 FROM account_links x JOIN account_links y ON y.kind = x.kind AND y.hash = x.hash
				WHERE x.user_id = $1 AND y.user_id = $2 AND x.kind = 'device') AS device,
			EXISTS (SELECT 1 FROM account_links x JOIN account_links y ON y.kind = x.kind AND y.hash = x.hash
				WHERE x.user_id = $1 AND y.user_id = $2 AND x.kind = 'network') AS network,
			now() AS updated_at, 0::float8 AS score, '' AS name_a, '' AS name_b
		FROM pair_games WHERE user_a = $1 AND user_b = $2`, a, b)
	if err != nil {
		return p, fmt.Errorf("db: sum pair %d-%d: %w", a, b, err)
	}
	return p, nil
}

// SavePairSignal writes a pair's figures and score.
func (t *Tx) SavePairSignal(ctx context.Context, p PairSignal, now time.Time) error {
	p.UpdatedAt = now
	_, err := t.tx.NamedExecContext(ctx, `
		INSERT INTO pair_signals (user_a, user_b, games, expected, from_rest, from_rest_var, b_from_a, a_from_b,
			feed_ab, feed_ab_sq, feeds_ab, judged_a, feed_ba, feed_ba_sq, feeds_ba, judged_b, device, network, score, updated_at)
		VALUES (:user_a, :user_b, :games, :expected, :from_rest, :from_rest_var, :b_from_a, :a_from_b,
			:feed_ab, :feed_ab_sq, :feeds_ab, :judged_a, :feed_ba, :feed_ba_sq, :feeds_ba, :judged_b, :device, :network, :score, :updated_at)
		ON CONFLICT (user_a, user_b) DO UPDATE SET games = EXCLUDED.games, expected = EXCLUDED.expected,
			from_rest = EXCLUDED.from_rest, from_rest_var = EXCLUDED.from_rest_var, b_from_a = EXCLUDED.b_from_a, a_from_b = EXCLUDED.a_from_b,
			feed_ab = EXCLUDED.feed_ab, feed_ab_sq = EXCLUDED.feed_ab_sq, feeds_ab = EXCLUDED.feeds_ab, judged_a = EXCLUDED.judged_a,
			feed_ba = EXCLUDED.feed_ba, feed_ba_sq = EXCLUDED.feed_ba_sq, feeds_ba = EXCLUDED.feeds_ba, judged_b = EXCLUDED.judged_b,
			device = EXCLUDED.device, network = EXCLUDED.network, score = EXCLUDED.score, updated_at = EXCLUDED.updated_at`, p)
	if err != nil {
		return fmt.Errorf("db: save pair signal: %w", err)
	}
	return nil
}

// PairSignalOf reads a pair's stored figures (ErrNotFound: they never
// met in a rated game).
func (s *Store) PairSignalOf(ctx context.Context, a, b int64) (PairSignal, error) {
	if a > b {
		a, b = b, a
	}
	var p PairSignal
	err := get(ctx, s.DB, &p, `
		SELECT p.*, ua.username AS name_a, ub.username AS name_b FROM pair_signals p
		JOIN users ua ON ua.id = p.user_a JOIN users ub ON ub.id = p.user_b
		WHERE p.user_a = $1 AND p.user_b = $2`, a, b)
	if err != nil {
		return p, fmt.Errorf("db: pair signal: %w", notFound(err))
	}
	return p, nil
}

// OpenSignalCase opens a case for a pair whose score crossed the
// threshold, or raises the open one's score; it reports whether a new
// case was opened.
func (t *Tx) OpenSignalCase(ctx context.Context, a, b int64, score float64, now time.Time) (bool, error) {
	var n int
	if err := get(ctx, t.tx, &n, `
		UPDATE fairplay_cases SET score = greatest(score, $3), updated_at = $4
		WHERE status = 'open' AND user_id = $1 AND partner_id = $2 RETURNING 1`, a, b, score, now); err == nil {
		return false, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("db: raise case: %w", err)
	}
	err := exec(ctx, t.tx, "open signal case", `
		INSERT INTO fairplay_cases (user_id, partner_id, source, score, opened_at, updated_at)
		VALUES ($1, $2, 'signal', $3, $4, $4)`, a, b, score, now)
	return err == nil, err
}

// SeeAccount records that an account was seen on a device or network.
func (s *Store) SeeAccount(ctx context.Context, userID int64, kind string, hash []byte, now time.Time) error {
	return exec(ctx, s.DB, "see account", `
		INSERT INTO account_links (user_id, kind, hash, first_seen, last_seen) VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (user_id, kind, hash) DO UPDATE SET last_seen = EXCLUDED.last_seen`, userID, kind, hash, now)
}

// ForgetLinks deletes the devices and networks unseen since before.
func (s *Store) ForgetLinks(ctx context.Context, before time.Time) error {
	return exec(ctx, s.DB, "forget links", `DELETE FROM account_links WHERE last_seen < $1`, before)
}

// LinkedAccount is another account seen on one of an account's devices
// or networks.
type LinkedAccount struct {
	UserID   int64     `db:"user_id"`
	Username string    `db:"username"`
	Kind     string    `db:"kind"`
	LastSeen time.Time `db:"last_seen"`
}

// LinkedAccounts lists the accounts that share a device or network with
// userID.
func (s *Store) LinkedAccounts(ctx context.Context, userID int64) ([]LinkedAccount, error) {
	var out []LinkedAccount
	err := sel(ctx, s.DB, &out, `
		SELECT y.user_id, u.username, x.kind, max(least(x.last_seen, y.last_seen)) AS last_seen
		FROM account_links x JOIN account_links y ON y.kind = x.kind AND y.hash = x.hash AND y.user_id <> x.user_id
		JOIN users u ON u.id = y.user_id
		WHERE x.user_id = $1 GROUP BY y.user_id, u.username, x.kind ORDER BY x.kind, u.username`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: linked accounts: %w", err)
	}
	return out, nil
}

// LinkCount counts the devices and networks kept for an account.
func (s *Store) LinkCount(ctx context.Context, userID int64) (devices, networks int, err error) {
	var row struct {
		Devices  int `db:"devices"`
		Networks int `db:"networks"`
	}
	if err := get(ctx, s.DB, &row, `SELECT count(*) FILTER (WHERE kind = 'device') AS devices, count(*) FILTER (WHERE kind = 'network') AS networks
		FROM account_links WHERE user_id = $1`, userID); err != nil {
		return 0, 0, fmt.Errorf("db: link count: %w", err)
	}
	return row.Devices, row.Networks, nil
}

// ClearSignals empties the pairs' figures and scores before a rebuild
// (cases, reports and decisions stay).
func (s *Store) ClearSignals(ctx context.Context) error {
	return exec(ctx, s.DB, "clear signals", `TRUNCATE pair_games, pair_signals`)
}

// RatedGameIDs lists finished rated games after an id, in id order, a
// page at a time.
func (s *Store) RatedGameIDs(ctx context.Context, after int64, limit int) ([]int64, error) {
	var ids []int64
	if err := sel(ctx, s.DB, &ids, `SELECT id FROM games WHERE ranked AND status = 'finished' AND id > $1 ORDER BY id LIMIT $2`, after, limit); err != nil {
		return nil, fmt.Errorf("db: rated games: %w", err)
	}
	return ids, nil
}

// FairGamesOf loads many finished rated games for the signals at once
// (FairGameOf for each), keyed by id.
func (s *Store) FairGamesOf(ctx context.Context, ids []int64) (map[int64]*FairGame, error) {
	out := map[int64]*FairGame{}
	var games []struct {
		ID     int64  `db:"id"`
		Seats  int    `db:"seats"`
		Report []byte `db:"report"`
	}
	if err := sel(ctx, s.DB, &games, `
		SELECT g.id, g.seats, (a.report->'decisions')::text::bytea AS report FROM games g
		LEFT JOIN analyses a ON a.game_id = g.id AND a.status = 'done'
		WHERE g.id = ANY($1)`, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("db: fair games: %w", err)
	}
	for _, g := range games {
		out[g.ID] = &FairGame{ID: g.ID, Players: g.Seats, Decisions: g.Report}
	}
	var seats []struct {
		GameID int64 `db:"game_id"`
		FairSeat
	}
	if err := sel(ctx, s.DB, &seats, `
		SELECT s.game_id, s.user_id, s.seat, rc.place, rc.before,
			(SELECT count(*) FROM (SELECT 1 FROM rating_changes o WHERE o.user_id = rc.user_id AND (o.created_at, o.id) < (rc.created_at, rc.id) LIMIT 20) x) AS games
		FROM game_seats s JOIN rating_changes rc ON rc.game_id = s.game_id AND rc.user_id = s.user_id
		JOIN users u ON u.id = s.user_id
		WHERE s.game_id = ANY($1) AND NOT u.bot ORDER BY s.game_id, s.seat`, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("db: fair seats: %w", err)
	}
	for _, st := range seats {
		if g := out[st.GameID]; g != nil {
			g.Seats = append(g.Seats, st.FairSeat)
		}
	}
	return out, nil
}

// AddPairGamesBulk writes many pairs' figures in one statement.
func (s *Store) AddPairGamesBulk(ctx context.Context, rows []PairGameRow, now time.Time) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows)
	a, b, g := make([]int64, n), make([]int64, n), make([]int64, n)
	fr, fv, ba, ab := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	f1, f1s, f2, f2s := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	c1, j1, c2, j2 := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, r := range rows {
		a[i], b[i], g[i] = r.UserA, r.UserB, r.GameID
		fr[i], fv[i], ba[i], ab[i] = r.FromRest, r.FromRestVar, r.BFromA, r.AFromB
		f1[i], f1s[i], f2[i], f2s[i] = r.FeedAB, r.FeedABSq, r.FeedBA, r.FeedBASq
		c1[i], j1[i], c2[i], j2[i] = int64(r.FeedsAB), int64(r.JudgedA), int64(r.FeedsBA), int64(r.JudgedB)
	}
	return exec(ctx, s.DB, "add pair games", `
		INSERT INTO pair_games (user_a, user_b, game_id, from_rest, from_rest_var, b_from_a, a_from_b,
			feed_ab, feed_ab_sq, feeds_ab, judged_a, feed_ba, feed_ba_sq, feeds_ba, judged_b, created_at)
		SELECT *, $16::timestamptz FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[],
			$8::float8[], $9::float8[], $10::bigint[], $11::bigint[], $12::float8[], $13::float8[], $14::bigint[], $15::bigint[])
		ON CONFLICT DO NOTHING`,
		pq.Array(a), pq.Array(b), pq.Array(g), pq.Array(fr), pq.Array(fv), pq.Array(ba), pq.Array(ab),
		pq.Array(f1), pq.Array(f1s), pq.Array(c1), pq.Array(j1), pq.Array(f2), pq.Array(f2s), pq.Array(c2), pq.Array(j2), now)
}

// SumAllPairs writes every pair's sums (score 0, for the caller to score)
// from pair_games, with their chance meetings and links, in one
// statement, and returns them.
func (s *Store) SumAllPairs(ctx context.Context, now time.Time) ([]PairSignal, error) {
	var out []PairSignal
	err := sel(ctx, s.DB, &out, `
		WITH sums AS (
			SELECT user_a, user_b, count(*) AS games, sum(from_rest) AS from_rest, sum(from_rest_var) AS from_rest_var,
				sum(b_from_a) AS b_from_a, sum(a_from_b) AS a_from_b, sum(feed_ab) AS feed_ab, sum(feed_ab * feed_ab) AS feed_ab_sq,
				sum(feeds_ab) AS feeds_ab, sum(judged_a) AS judged_a, sum(feed_ba) AS feed_ba, sum(feed_ba * feed_ba) AS feed_ba_sq,
				sum(feeds_ba) AS feeds_ba, sum(judged_b) AS judged_b
			FROM pair_games GROUP BY user_a, user_b
		), ins AS (
			INSERT INTO pair_signals (user_a, user_b, games, expected, from_rest, from_rest_var, b_from_a, a_from_b,
				feed_ab, feed_ab_sq, feeds_ab, judged_a, feed_ba, feed_ba_sq, feeds_ba, judged_b, device, network, score, updated_at)
			SELECT p.user_a, p.user_b, p.games,
				(SELECT coalesce(max(expected), 0) FROM pair_expected e WHERE e.user_a = p.user_a AND e.user_b = p.user_b),
				p.from_rest, p.from_rest_var, p.b_from_a, p.a_from_b, p.feed_ab, p.feed_ab_sq, p.feeds_ab, p.judged_a,
				p.feed_ba, p.feed_ba_sq, p.feeds_ba, p.judged_b,
				EXISTS (SELECT 1 FROM account_links x JOIN account_links y ON y.kind = x.kind AND y.hash = x.hash
					WHERE x.user_id = p.user_a AND y.user_id = p.user_b AND x.kind = 'device'),
				EXISTS (SELECT 1 FROM account_links x JOIN account_links y ON y.kind = x.kind AND y.hash = x.hash
					WHERE x.user_id = p.user_a AND y.user_id = p.user_b AND x.kind = 'network'),
				0, $1
			FROM sums p
			ON CONFLICT (user_a, user_b) DO UPDATE SET games = EXCLUDED.games, expected = EXCLUDED.expected,
				from_rest = EXCLUDED.from_rest, from_rest_var = EXCLUDED.from_rest_var, b_from_a = EXCLUDED.b_from_a, a_from_b = EXCLUDED.a_from_b,
				feed_ab = EXCLUDED.feed_ab, feed_ab_sq = EXCLUDED.feed_ab_sq, feeds_ab = EXCLUDED.feeds_ab, judged_a = EXCLUDED.judged_a,
				feed_ba = EXCLUDED.feed_ba, feed_ba_sq = EXCLUDED.feed_ba_sq, feeds_ba = EXCLUDED.feeds_ba, judged_b = EXCLUDED.judged_b,
				device = EXCLUDED.device, network = EXCLUDED.network, updated_at = EXCLUDED.updated_at
			RETURNING *
		)
		SELECT ins.*, '' AS name_a, '' AS name_b FROM ins`, now)
	if err != nil {
		return nil, fmt.Errorf("db: sum all pairs: %w", err)
	}
	return out, nil
}

// SetScores writes pairs' scores.
func (s *Store) SetScores(ctx context.Context, a, b []int64, scores []float64) error {
	return exec(ctx, s.DB, "set scores", `
		UPDATE pair_signals p SET score = x.score FROM unnest($1::bigint[], $2::bigint[], $3::float8[]) AS x (a, b, score)
		WHERE p.user_a = x.a AND p.user_b = x.b`, pq.Array(a), pq.Array(b), pq.Array(scores))
}

// OpenSignalCaseNow is OpenSignalCase outside a transaction.
func (s *Store) OpenSignalCaseNow(ctx context.Context, a, b int64, score float64, now time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		_, err := tx.OpenSignalCase(ctx, a, b, score, now)
		return err
	})
}
