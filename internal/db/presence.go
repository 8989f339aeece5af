package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Presence is how many event streams a user (0: visitors) has open on a
// game in one instance.
type Presence struct {
	GameID  int64
	UserID  int64
	Streams int
}

// SavePresence replaces an instance's presence rows with rows, seen at at,
// in one transaction (an instance that watches nothing passes none).
func (s *Store) SavePresence(ctx context.Context, instance string, rows []Presence, at time.Time) error {
	gamesIDs := make([]int64, len(rows))
	users := make([]int64, len(rows))
	streams := make([]int64, len(rows))
	for i, r := range rows {
		gamesIDs[i], users[i], streams[i] = r.GameID, r.UserID, int64(r.Streams)
	}
	return s.Tx(ctx, func(tx *Tx) error {
		if err := exec(ctx, tx.tx, "clear presence", `DELETE FROM stream_presence WHERE instance = $1`, instance); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		// Games deleted meanwhile are left out rather than failing the rest.
		return exec(ctx, tx.tx, "save presence", `
			INSERT INTO stream_presence (instance, game_id, user_id, streams, seen_at)
			SELECT $1, v.game_id, v.user_id, v.streams, $5
			FROM unnest($2::bigint[], $3::bigint[], $4::int[]) AS v(game_id, user_id, streams)
			WHERE EXISTS (SELECT 1 FROM games g WHERE g.id = v.game_id)`,
			instance, pq.Array(gamesIDs), pq.Array(users), pq.Array(streams), at)
	})
}

// Watched is a watched game as the event streams check it: how far it has
// got (to catch a change whose notification was lost) and how many watch.
type Watched struct {
	GameID   int64  `db:"id"`
	Version  int    `db:"version"`
	Status   string `db:"status"`
	Taken    int    `db:"taken"`
	Watchers int    `db:"watchers"`
	// ChatMark is how far the game's chat has got.
	ChatMark
}

// WatchedGames reads, for each of the games, its version, status, seats
// taken and chat mark, and the streams of people watching it (visitors and users not
// seated at it) in every instance seen since since.
func (s *Store) WatchedGames(ctx context.Context, gameIDs []int64, since time.Time) (map[int64]Watched, error) {
	var rows []Watched
	err := sel(ctx, s.DB, &rows, `
		SELECT g.id, g.version, g.status,
			(SELECT count(*) FROM game_seats s WHERE s.game_id = g.id)::int AS taken,
			COALESCE((SELECT max(c.id) FROM chat_messages c WHERE c.game_id = g.id), 0) AS chat_last,
			(SELECT count(c.hidden_at) FROM chat_messages c WHERE c.game_id = g.id)::int AS chat_hidden,
			COALESCE((SELECT sum(p.streams) FROM stream_presence p
				WHERE p.game_id = g.id AND p.seen_at > $2
				  AND (p.user_id = 0 OR NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.user_id = p.user_id))), 0)::int AS watchers
		FROM games g WHERE g.id = ANY($1)`, pq.Array(gameIDs), since)
	if err != nil {
		return nil, fmt.Errorf("db: watched games: %w", err)
	}
	out := make(map[int64]Watched, len(rows))
	for _, r := range rows {
		out[r.GameID] = r
	}
	return out, nil
}

// DeleteStalePresence removes the rows of instances not seen since before.
func (s *Store) DeleteStalePresence(ctx context.Context, before time.Time) error {
	return exec(ctx, s.DB, "delete stale presence", `DELETE FROM stream_presence WHERE seen_at < $1`, before)
}
