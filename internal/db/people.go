package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Follow records that follower follows followee (again: nothing changes).
func (s *Store) Follow(ctx context.Context, follower, followee int64, now time.Time) error {
	return exec(ctx, s.DB, "follow", `
		INSERT INTO follows (follower_id, followee_id, created_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, follower, followee, now)
}

// Unfollow ends a follow.
func (s *Store) Unfollow(ctx context.Context, follower, followee int64) error {
	return exec(ctx, s.DB, "unfollow", `DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2`, follower, followee)
}

// Block records that blocker blocks blocked, and ends any follow between
// them either way, in one statement.
func (s *Store) Block(ctx context.Context, blocker, blocked int64, now time.Time) error {
	return exec(ctx, s.DB, "block", `
		WITH b AS (INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING)
		DELETE FROM follows WHERE (follower_id = $1 AND followee_id = $2) OR (follower_id = $2 AND followee_id = $1)`,
		blocker, blocked, now)
}

// Unblock ends a block.
func (s *Store) Unblock(ctx context.Context, blocker, blocked int64) error {
	return exec(ctx, s.DB, "unblock", `DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2`, blocker, blocked)
}

// Relation is how one person stands to another.
type Relation struct {
	Follows bool `db:"follows"`
	Blocks  bool `db:"blocks"`
	// BlockedBy: the other person blocks this one.
	BlockedBy bool `db:"blocked_by"`
}

// RelationOf says whether me follows or blocks other, and whether other
// blocks me.
func (s *Store) RelationOf(ctx context.Context, me, other int64) (Relation, error) {
	var r Relation
	err := get(ctx, s.DB, &r, `SELECT
		EXISTS (SELECT 1 FROM follows WHERE follower_id = $1 AND followee_id = $2) AS follows,
		EXISTS (SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2) AS blocks,
		EXISTS (SELECT 1 FROM blocks WHERE blocker_id = $2 AND blocked_id = $1) AS blocked_by`, me, other)
	if err != nil {
		return Relation{}, fmt.Errorf("db: relation of %d to %d: %w", me, other, err)
	}
	return r, nil
}

// BlockedByAny reports whether any of the users blocks user.
func (s *Store) BlockedByAny(ctx context.Context, user int64, by []int64) (bool, error) {
	var yes bool
	err := get(ctx, s.DB, &yes, `SELECT EXISTS (SELECT 1 FROM blocks WHERE blocked_id = $1 AND blocker_id = ANY($2))`, user, pq.Array(by))
	if err != nil {
		return false, fmt.Errorf("db: blocked by any: %w", err)
	}
	return yes, nil
}

// BlocksEither reports whether a blocks b or b blocks a.
func (t *Tx) BlocksEither(ctx context.Context, a, b int64) (bool, error) {
	var yes bool
	err := get(ctx, t.tx, &yes, `SELECT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = $1))`, a, b)
	if err != nil {
		return false, fmt.Errorf("db: blocks either: %w", err)
	}
	return yes, nil
}

// Followed is a person someone follows, with whether they are online and
// the games they play now.
type Followed struct {
	ID       int64  `db:"id"`
	Username string `db:"username"`
	// Online: a session of theirs was used, or a game's stream of theirs
	// was open, in the last few minutes.
	Online bool `db:"online"`
	// Games are their games in play (public ones) and open tables.
	Games pq.Int64Array `db:"games"`
}

// Following lists whom a user follows, online ones first, with their public
// games in play; onlineSince is when a session counts as online.
func (s *Store) Following(ctx context.Context, userID int64, onlineSince time.Time) ([]Followed, error) {
	var out []Followed
	err := sel(ctx, s.DB, &out, `
		SELECT u.id, u.username,
			(EXISTS (SELECT 1 FROM sessions x WHERE x.user_id = u.id AND x.last_seen_at > $2)
			 OR EXISTS (SELECT 1 FROM stream_presence p WHERE p.user_id = u.id AND p.seen_at > $2)) AS online,
			ARRAY(SELECT g.id FROM games g JOIN game_seats gs ON gs.game_id = g.id AND gs.user_id = u.id
			      WHERE g.public AND g.status IN ('playing', 'open') ORDER BY g.status = 'playing' DESC, g.updated_at DESC LIMIT 5) AS games
		FROM follows f JOIN users u ON u.id = f.followee_id
		WHERE f.follower_id = $1 AND u.deleted_at IS NULL AND u.disabled_at IS NULL
		ORDER BY 3 DESC, lower(u.username)`, userID, onlineSince)
	if err != nil {
		return nil, fmt.Errorf("db: following of %d: %w", userID, err)
	}
	return out, nil
}

// Blocked lists the people a user blocks.
func (s *Store) Blocked(ctx context.Context, userID int64) ([]Followed, error) {
	var out []Followed
	err := sel(ctx, s.DB, &out, `
		SELECT u.id, u.username, false AS online, '{}'::bigint[] AS games
		FROM blocks b JOIN users u ON u.id = b.blocked_id
		WHERE b.blocker_id = $1 AND u.deleted_at IS NULL ORDER BY lower(u.username)`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: blocked by %d: %w", userID, err)
	}
	return out, nil
}

// FollowedNames lists the names of people a user follows, for suggestions.
func (s *Store) FollowedNames(ctx context.Context, userID int64, limit int) ([]string, error) {
	var out []string
	err := sel(ctx, s.DB, &out, `
		SELECT u.username FROM follows f JOIN users u ON u.id = f.followee_id
		WHERE f.follower_id = $1 AND u.deleted_at IS NULL AND u.disabled_at IS NULL
		ORDER BY lower(u.username) LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: followed names: %w", err)
	}
	return out, nil
}
