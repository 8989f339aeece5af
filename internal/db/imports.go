package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// ImportedGame is a game brought in as text, checked against the rules:
// the row, its seats (names from the text) and its whole move log and
// scored rounds, stored finished.
type ImportedGame struct {
	CreatorID  int64
	Options    []byte // engine.Options as JSON
	Seats      int
	Setup      []byte // engine.Setup as JSON
	Tags       []byte // the text's tags as JSON
	Pace       string
	InviteCode string
	StartedAt  time.Time
	FinishedAt time.Time
	CreatedAt  time.Time
	// Names, Bots, Totals, Places and Abandoned are by seat.
	Names     []string
	Bots      []*string
	Totals    []int
	Places    []int
	Decisions []int
	Abandoned []bool
	Moves     []Move
	Rounds    []Round
}

// ImportGame stores an imported game in one transaction and returns its id.
func (s *Store) ImportGame(ctx context.Context, g ImportedGame) (int64, error) {
	var id int64
	err := s.Tx(ctx, func(tx *Tx) error {
		err := get(ctx, tx.tx, &id, `
			INSERT INTO games (creator_id, status, options, seats, public, invite_code, ranked, pace, turn_seconds, seed, version,
				created_at, started_at, finished_at, updated_at, imported, setup, import_tags)
			VALUES ($1, 'finished', $2::text::jsonb, $3, true, $4, false, $5, 86400, 0, $6, $7, $8, $9, $7, true, $10::text::jsonb, $11::text::jsonb)
			RETURNING id`,
			g.CreatorID, string(g.Options), g.Seats, g.InviteCode, g.Pace, len(g.Moves), g.CreatedAt, g.StartedAt, g.FinishedAt, string(g.Setup), string(g.Tags))
		if err != nil {
			return fmt.Errorf("db: import game: %w", err)
		}
		seats := make([]int, g.Seats)
		joined := make([]time.Time, g.Seats)
		bots := make([]any, g.Seats)
		for i := range seats {
			seats[i], joined[i] = i, g.StartedAt.Add(time.Duration(i)*time.Microsecond)
			if g.Bots[i] != nil {
				bots[i] = *g.Bots[i]
			}
		}
		if err := exec(ctx, tx.tx, "import seats", `
			INSERT INTO game_seats (game_id, seat, import_name, import_bot, joined_at, total, place, decisions, abandoned)
			SELECT $1, v.seat, v.name, v.bot, v.joined, v.total, v.place, v.decisions, v.abandoned
			FROM unnest($2::int[], $3::text[], $4::text[], $5::timestamptz[], $6::int[], $7::int[], $8::int[], $9::bool[])
				AS v(seat, name, bot, joined, total, place, decisions, abandoned)`,
			id, pq.Array(seats), pq.Array(g.Names), pq.Array(bots), pq.Array(joined), pq.Array(g.Totals), pq.Array(g.Places),
			pq.Array(g.Decisions), pq.Array(g.Abandoned)); err != nil {
			return err
		}
		n := len(g.Moves)
		seq, round, seat, card, pot := make([]int, n), make([]int, n), make([]int, n), make([]int, n), make([]int, n)
		kind, timeout := make([]string, n), make([]bool, n)
		for i, m := range g.Moves {
			seq[i], round[i], seat[i], kind[i], card[i], pot[i], timeout[i] = m.Seq, m.Round, m.Seat, m.Kind, m.Card, m.Pot, m.Timeout
		}
		if err := exec(ctx, tx.tx, "import moves", `
			INSERT INTO moves (game_id, seq, round, seat, kind, card, pot, timeout, created_at)
			SELECT $1, v.seq, v.round, v.seat, v.kind, v.card, v.pot, v.timeout, $9
			FROM unnest($2::int[], $3::int[], $4::int[], $5::text[], $6::int[], $7::int[], $8::bool[]) AS v(seq, round, seat, kind, card, pot, timeout)`,
			id, pq.Array(seq), pq.Array(round), pq.Array(seat), pq.Array(kind), pq.Array(card), pq.Array(pot), pq.Array(timeout), g.FinishedAt); err != nil {
			return err
		}
		nums, results := make([]int, len(g.Rounds)), make([]string, len(g.Rounds))
		for i, r := range g.Rounds {
			nums[i], results[i] = r.Round, string(r.Result)
		}
		if err := exec(ctx, tx.tx, "import rounds", `
			INSERT INTO rounds (game_id, round, result, finished_at)
			SELECT $1, v.round, v.result::jsonb, $4 FROM unnest($2::int[], $3::text[]) AS v(round, result)`,
			id, pq.Array(nums), pq.Array(results), g.FinishedAt); err != nil {
			return err
		}
		return tx.EnqueueAnalysis(ctx, id, g.CreatedAt)
	})
	return id, err
}

// ImportedSummary is a line of a member's imported games.
type ImportedSummary struct {
	ID        int64     `db:"id"`
	Names     string    `db:"names"`
	Players   int       `db:"seats"`
	CreatedAt time.Time `db:"created_at"`
}

// ImportedGames lists the games a member imported, newest first.
func (s *Store) ImportedGames(ctx context.Context, userID int64, limit int) ([]ImportedSummary, error) {
	var out []ImportedSummary
	err := sel(ctx, s.DB, &out, `
		SELECT g.id, g.seats, g.created_at,
			(SELECT string_agg(s.import_name, ', ' ORDER BY s.seat) FROM game_seats s WHERE s.game_id = g.id) AS names
		FROM games g WHERE g.imported AND g.creator_id = $1
		ORDER BY g.created_at DESC, g.id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: imported games of %d: %w", userID, err)
	}
	return out, nil
}

// CountImportsSince counts the games a member imported since a time, for
// the limit against floods.
func (s *Store) CountImportsSince(ctx context.Context, userID int64, since time.Time) (int, error) {
	var n int
	err := get(ctx, s.DB, &n, `SELECT count(*) FROM games WHERE imported AND creator_id = $1 AND created_at >= $2`, userID, since)
	if err != nil {
		return 0, fmt.Errorf("db: count imports: %w", err)
	}
	return n, nil
}
