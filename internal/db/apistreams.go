package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// SaveStreamCounts replaces an instance's counts of open API streams per
// token (its hash in hex) with counts, in one statement.
func (s *Store) SaveStreamCounts(ctx context.Context, instance string, counts map[string]int, at time.Time) error {
	tokens := make([]string, 0, len(counts))
	ns := make([]int64, 0, len(counts))
	for t, n := range counts {
		tokens, ns = append(tokens, t), append(ns, int64(n))
	}
	return s.Tx(ctx, func(tx *Tx) error {
		if err := exec(ctx, tx.tx, "clear stream counts", `DELETE FROM api_stream_counts WHERE instance = $1`, instance); err != nil {
			return err
		}
		if len(tokens) == 0 {
			return nil
		}
		return exec(ctx, tx.tx, "save stream counts", `
			INSERT INTO api_stream_counts (instance, token_hash, streams, seen_at)
			SELECT $1, v.t, v.n, $4 FROM unnest($2::text[], $3::int[]) AS v(t, n)`,
			instance, pq.Array(tokens), pq.Array(ns), at)
	})
}

// StreamsElsewhere counts the API streams a token holds open on the other
// instances, as they last wrote them since since.
func (s *Store) StreamsElsewhere(ctx context.Context, instance, token string, since time.Time) (int, error) {
	var n int
	err := get(ctx, s.DB, &n, `SELECT coalesce(sum(streams), 0)::int FROM api_stream_counts
		WHERE token_hash = $1 AND instance <> $2 AND seen_at > $3`, token, instance, since)
	if err != nil {
		return 0, fmt.Errorf("db: streams elsewhere: %w", err)
	}
	return n, nil
}
