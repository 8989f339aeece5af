package db

import (
	"context"
	"time"
)

// SeePresence records that an event stream on a game is open.
func (s *Store) SeePresence(ctx context.Context, streamID string, gameID int64, userID *int64, at time.Time) error {
	return exec(ctx, s.DB, "see presence", `
		INSERT INTO presence (stream_id, game_id, user_id, seen_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (stream_id) DO UPDATE SET seen_at = EXCLUDED.seen_at`, streamID, gameID, userID, at)
}

// EndPresence removes a closed stream.
func (s *Store) EndPresence(ctx context.Context, streamID string) error {
	return exec(ctx, s.DB, "end presence", `DELETE FROM presence WHERE stream_id = $1`, streamID)
}

// Watchers counts the people (streams of users not seated, and visitors)
// watching a game, seen since since.
func (s *Store) Watchers(ctx context.Context, gameID int64, since time.Time) (int, error) {
	var n int
	err := get(ctx, s.DB, &n, `
		SELECT count(*) FROM presence p
		WHERE p.game_id = $1 AND p.seen_at > $2
		  AND (p.user_id IS NULL OR NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = p.game_id AND s.user_id = p.user_id))`,
		gameID, since)
	return n, err
}

// DeleteStalePresence removes streams not seen since before.
func (s *Store) DeleteStalePresence(ctx context.Context, before time.Time) error {
	return exec(ctx, s.DB, "delete stale presence", `DELETE FROM presence WHERE seen_at < $1`, before)
}
