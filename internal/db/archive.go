package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// ArchivedGame is a finished game read whole for writing it out in the
// notation: its row, seats and every move, and the ratings its seats'
// accounts had before it (ranked games), by seat.
type ArchivedGame struct {
	Snapshot
	Ratings map[int]float64
}

// ArchiveQuery picks finished games in the order they finished, a batch
// at a time from After (keyset: finished_at, id).
type ArchiveQuery struct {
	// From and To bound finished_at (To excluded) for a month's file of
	// public games of the site (not imported ones).
	From, To time.Time
	// UserID, when set, picks instead the finished games the account sat
	// at: public ones, and private ones too when Private is set.
	UserID  int64
	Private bool
	// AfterFinished and AfterID are the last game of the previous batch.
	AfterFinished time.Time
	AfterID       int64
	Limit         int
}

type archivedRow struct {
	snapshotRow
	MovesPacked pq.Int64Array `db:"moves_packed"`
	RatingsJSON []byte        `db:"ratings_json"`
}

// archiveColumns reads a game whole, as snapshotQuery does with $2 = 0,
// and its seats' ratings before it. The moves come packed, one bigint
// each (packedMove), from the moves' key alone (migration 0029): building
// a JSON object for each of a month's 30 million moves was most of the
// month's file.
const archiveColumns = gameColumns + `,
	(SELECT COALESCE(json_agg(json_build_object(
			'id', s.id, 'game_id', s.game_id, 'seat', s.seat, 'user_id', s.user_id, 'username', u.username,
			'bot_level', s.bot_level, 'bot_number', s.bot_number, 'joined_at', s.joined_at, 'timeouts', s.timeouts, 'abandoned', s.abandoned,
			'total', s.total, 'place', s.place, 'bot_account', COALESCE(u.bot, false),
			'import_name', s.import_name, 'import_bot', s.import_bot)
		ORDER BY s.seat NULLS LAST, s.joined_at, s.id), '[]')
	 FROM game_seats s
	 LEFT JOIN LATERAL (SELECT username, bot FROM users WHERE id = s.user_id OFFSET 0) u ON true
	 WHERE s.game_id = g.id) AS seats_json,
	-- (Postgres gives | and << the same precedence, left to right.)
	(SELECT COALESCE(array_agg(m.card | (m.pot << 6) | (m.seat << 14) | (m.round << 17)
			| ((CASE m.kind WHEN 'take' THEN 0 WHEN 'pass' THEN 1 WHEN 'tiger' THEN 2 ELSE 3 END) << 21)
			| (m.timeout::int << 23) | (m.seq::bigint << 24) ORDER BY m.seq), '{}')
	 FROM moves m WHERE m.game_id = g.id AND m.seq <= g.version) AS moves_packed,
	(SELECT COALESCE(json_object_agg(s.seat, rc.before), '{}')
	 FROM rating_changes rc JOIN game_seats s ON s.game_id = rc.game_id AND s.user_id = rc.user_id
	 WHERE rc.game_id = g.id AND g.ranked) AS ratings_json`

// ArchiveGames reads the next batch of finished games a query picks.
func (s *Store) ArchiveGames(ctx context.Context, q ArchiveQuery) ([]ArchivedGame, error) {
	var rows []archivedRow
	var err error
	if q.UserID != 0 {
		err = sel(ctx, s.DB, &rows, `SELECT `+archiveColumns+`
			FROM games g JOIN game_seats me ON me.game_id = g.id AND me.user_id = $1
			WHERE g.status = 'finished' AND (g.public OR $2) AND (g.finished_at, g.id) > ($3, $4)
			ORDER BY g.finished_at, g.id LIMIT $5`, q.UserID, q.Private, q.AfterFinished, q.AfterID, q.Limit)
	} else {
		err = sel(ctx, s.DB, &rows, `SELECT `+archiveColumns+`
			FROM games g
			WHERE g.status = 'finished' AND g.public AND NOT g.imported
				AND g.finished_at >= $1 AND g.finished_at < $2 AND (g.finished_at, g.id) > ($3, $4)
			ORDER BY g.finished_at, g.id LIMIT $5`, q.From, q.To, q.AfterFinished, q.AfterID, q.Limit)
	}
	if err != nil {
		return nil, fmt.Errorf("db: archive games: %w", err)
	}
	out := make([]ArchivedGame, len(rows))
	for i, r := range rows {
		r.MovesJSON = []byte("[]")
		snap, err := r.decode(0)
		if err != nil {
			return nil, err
		}
		if snap.Moves, err = unpackMoves(r.ID, r.MovesPacked); err != nil {
			return nil, err
		}
		out[i].Snapshot = snap
		if err := json.Unmarshal(r.RatingsJSON, &out[i].Ratings); err != nil {
			return nil, fmt.Errorf("db: decode ratings of game %d: %w", r.ID, err)
		}
	}
	return out, nil
}

// moveKinds are the kinds of move by their code in a packed move.
var moveKinds = [4]string{"take", "pass", "tiger", "leave"}

// unpackMoves reads moves packed by archiveColumns: from the lowest bit,
// the card (6 bits), the pot (8), the seat (3), the round (4), the kind (2,
// moveKinds), timeout (1) and the seq above them. Cards go to 35, a pot to
// the box's 55 tokens, seats to 7, rounds to 10; the seqs must run 1, 2, 3….
func unpackMoves(gameID int64, packed []int64) ([]Move, error) {
	out := make([]Move, len(packed))
	for i, p := range packed {
		m := Move{GameID: gameID, Seq: int(p >> 24), Round: int(p>>17) & 15, Seat: int(p>>14) & 7, Kind: moveKinds[(p>>21)&3],
			Card: int(p) & 63, Pot: int(p>>6) & 255, Timeout: (p>>23)&1 == 1}
		if m.Seq != i+1 {
			return nil, fmt.Errorf("db: game %d's move %d has seq %d", gameID, i+1, m.Seq)
		}
		out[i] = m
	}
	return out, nil
}

// ArchiveMonth is a month of the open database.
type ArchiveMonth struct {
	Month     time.Time  `db:"month"`
	Status    string     `db:"status"`
	Games     int        `db:"games"`
	Rated     int        `db:"rated"`
	Bytes     int64      `db:"bytes"`
	SHA256    string     `db:"sha256"`
	MadeAt    *time.Time `db:"made_at"`
	Attempts  int        `db:"attempts"`
	LastError string     `db:"last_error"`
}

// monthDay is a month as the date column holds it.
func monthDay(m time.Time) string { return m.UTC().Format("2006-01-02") }

// DiscoverArchiveMonths adds, as pending, every month before the one that
// holds now with finished public games of the site and no file yet. It
// looks only past the newest month known, so it stays cheap.
func (s *Store) DiscoverArchiveMonths(ctx context.Context, now time.Time) (int, error) {
	var n int
	err := get(ctx, s.DB, &n, `
		WITH newest AS (
			SELECT COALESCE((max(month) + interval '1 month')::timestamp AT TIME ZONE 'UTC', '-infinity'::timestamptz) AS after FROM archive_months
		), ins AS (
			INSERT INTO archive_months (month)
			SELECT DISTINCT date_trunc('month', g.finished_at AT TIME ZONE 'UTC')::date
			FROM games g, newest
			WHERE g.status = 'finished' AND g.public AND NOT g.imported
				AND g.finished_at >= newest.after AND g.finished_at < date_trunc('month', $1::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
			ON CONFLICT (month) DO NOTHING
			RETURNING 1
		)
		SELECT count(*) FROM ins`, now)
	if err != nil {
		return 0, fmt.Errorf("db: discover archive months: %w", err)
	}
	return n, nil
}

// ArchiveClaim is a month taken to be made: Claim must still be the
// month's when the file is saved.
type ArchiveClaim struct {
	Month time.Time `db:"month"`
	Claim int64     `db:"claim"`
}

// ClaimArchiveMonth takes the oldest pending month (or one whose worker's
// lease ran out) for lease; false when none waits.
func (s *Store) ClaimArchiveMonth(ctx context.Context, now time.Time, lease time.Duration, maxAttempts int) (ArchiveClaim, bool, error) {
	var out []ArchiveClaim
	err := sel(ctx, s.DB, &out, `
		UPDATE archive_months SET lease_until = $2, attempts = attempts + 1, claim = claim + 1
		WHERE month = (
			SELECT month FROM archive_months
			WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < $1) AND attempts < $3
			ORDER BY month LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING month, claim`, now, now.Add(lease), maxAttempts)
	if err != nil {
		return ArchiveClaim{}, false, fmt.Errorf("db: claim archive month: %w", err)
	}
	if len(out) == 0 {
		return ArchiveClaim{}, false, nil
	}
	return out[0], true, nil
}

// MadeMonth is a month's file as made.
type MadeMonth struct {
	Chunks       [][]byte
	Games, Rated int
	Bytes        int64
	SHA256       string
}

// SaveArchiveMonth replaces a month's file with the one made under c,
// unless the month was claimed or marked to be made again since (a player
// of one of its games deleted their account while it was written): then
// nothing changes and false says so.
func (s *Store) SaveArchiveMonth(ctx context.Context, c ArchiveClaim, m MadeMonth, now time.Time) (bool, error) {
	saved := false
	err := s.Tx(ctx, func(tx *Tx) error {
		var claims []int64
		if err := sel(ctx, tx.tx, &claims, `SELECT claim FROM archive_months WHERE month = $1::date AND status = 'pending' FOR UPDATE`, monthDay(c.Month)); err != nil {
			return fmt.Errorf("db: lock archive month: %w", err)
		}
		if len(claims) == 0 || claims[0] != c.Claim {
			return nil
		}
		if err := exec(ctx, tx.tx, "clear archive chunks", `DELETE FROM archive_chunks WHERE month = $1::date`, monthDay(c.Month)); err != nil {
			return err
		}
		seqs := make([]int, len(m.Chunks))
		for i := range seqs {
			seqs[i] = i
		}
		if err := exec(ctx, tx.tx, "save archive chunks", `
			INSERT INTO archive_chunks (month, seq, data) SELECT $1::date, v.seq, v.data FROM unnest($2::int[], $3::bytea[]) AS v(seq, data)`,
			monthDay(c.Month), pq.Array(seqs), pq.ByteaArray(m.Chunks)); err != nil {
			return err
		}
		saved = true
		return exec(ctx, tx.tx, "save archive month", `
			UPDATE archive_months SET status = 'ready', games = $2, rated = $3, bytes = $4, sha256 = $5, made_at = $6,
				lease_until = NULL, attempts = 0, last_error = ''
			WHERE month = $1::date`, monthDay(c.Month), m.Games, m.Rated, m.Bytes, m.SHA256, now)
	})
	return saved, err
}

// FailArchiveMonth gives a claimed month back with the reason.
func (s *Store) FailArchiveMonth(ctx context.Context, month time.Time, why string) error {
	return exec(ctx, s.DB, "fail archive month", `UPDATE archive_months SET lease_until = NULL, last_error = $2 WHERE month = $1::date`, monthDay(month), why)
}

// ArchiveMonths lists the months of the open database, newest first.
func (s *Store) ArchiveMonths(ctx context.Context) ([]ArchiveMonth, error) {
	var out []ArchiveMonth
	err := sel(ctx, s.DB, &out, `
		SELECT month, status, games, rated, bytes, sha256, made_at, attempts, last_error
		FROM archive_months ORDER BY month DESC`)
	if err != nil {
		return nil, fmt.Errorf("db: archive months: %w", err)
	}
	return out, nil
}

// ArchiveMonthOf reads one month.
func (s *Store) ArchiveMonthOf(ctx context.Context, month time.Time) (ArchiveMonth, error) {
	var m ArchiveMonth
	err := get(ctx, s.DB, &m, `
		SELECT month, status, games, rated, bytes, sha256, made_at, attempts, last_error
		FROM archive_months WHERE month = $1::date`, monthDay(month))
	if err != nil {
		return ArchiveMonth{}, fmt.Errorf("db: archive month: %w", notFound(err))
	}
	return m, nil
}

// ArchiveChunk reads one chunk of a month's file; false past the last.
func (s *Store) ArchiveChunk(ctx context.Context, month time.Time, seq int) ([]byte, bool, error) {
	var data [][]byte
	if err := sel(ctx, s.DB, &data, `SELECT data FROM archive_chunks WHERE month = $1::date AND seq = $2`, monthDay(month), seq); err != nil {
		return nil, false, fmt.Errorf("db: archive chunk: %w", err)
	}
	if len(data) == 0 {
		return nil, false, nil
	}
	return data[0], true, nil
}

// markArchiveStale sends back to be made again every month file that holds
// a game the account sat at (its name in them changes: deleted, say).
func (t *Tx) markArchiveStale(ctx context.Context, userID int64) error {
	return exec(ctx, t.tx, "mark archive stale", `
		UPDATE archive_months a SET status = 'pending', lease_until = NULL, attempts = 0, claim = claim + 1
		WHERE a.month IN (
			SELECT DISTINCT date_trunc('month', g.finished_at AT TIME ZONE 'UTC')::date
			FROM game_seats s JOIN games g ON g.id = s.game_id
			WHERE s.user_id = $1 AND g.status = 'finished' AND g.public AND NOT g.imported)`, userID)
}

// RatingsBefore is the rating each seat's account had before a ranked
// game, by seat (none for an unranked game).
func (s *Store) RatingsBefore(ctx context.Context, gameID int64) (map[int]float64, error) {
	var rows []struct {
		Seat   int     `db:"seat"`
		Before float64 `db:"before"`
	}
	err := sel(ctx, s.DB, &rows, `
		SELECT s.seat, rc.before FROM rating_changes rc JOIN game_seats s ON s.game_id = rc.game_id AND s.user_id = rc.user_id
		WHERE rc.game_id = $1 AND s.seat IS NOT NULL`, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: ratings before game %d: %w", gameID, err)
	}
	out := make(map[int]float64, len(rows))
	for _, r := range rows {
		out[r.Seat] = r.Before
	}
	return out, nil
}
