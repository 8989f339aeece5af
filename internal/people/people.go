// Package people is how players stand to each other: following someone
// (a "Following" list shows who is online and the games they play, and
// their names come first when inviting), and blocking someone (a blocked
// player cannot invite you, chat where you play, or join your private
// tables; blocking also ends any follow between the two).
package people

import (
	"context"
	"errors"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
)

// OnlineWindow is how recently a session must have been used for its
// owner to show as online.
const OnlineWindow = 5 * time.Minute

// Store is what the service needs of the database.
type Store interface {
	UserByName(ctx context.Context, name string) (db.User, error)
	Follow(ctx context.Context, follower, followee int64, now time.Time) error
	Unfollow(ctx context.Context, follower, followee int64) error
	Block(ctx context.Context, blocker, blocked int64, now time.Time) error
	Unblock(ctx context.Context, blocker, blocked int64) error
	RelationOf(ctx context.Context, me, other int64) (db.Relation, error)
	Following(ctx context.Context, userID int64, onlineSince time.Time) ([]db.Followed, error)
	Blocked(ctx context.Context, userID int64) ([]db.Followed, error)
}

// Service follows and blocks.
type Service struct {
	store Store
	clock clock.Clock
}

// New makes the service.
func New(store Store, clk clock.Clock) *Service { return &Service{store: store, clock: clk} }

// ErrNoPlayer answers a name that names no active, registered player.
var ErrNoPlayer = apperr.E(apperr.NotFound, "No such player.")

// other finds the person a name names, who must not be me.
func (s *Service) other(ctx context.Context, me int64, name string) (db.User, error) {
	u, err := s.store.UserByName(ctx, name)
	if errors.Is(err, db.ErrNotFound) || (err == nil && (u.Guest || !u.Active())) {
		return db.User{}, ErrNoPlayer
	}
	if err != nil {
		return db.User{}, err
	}
	if u.ID == me {
		return db.User{}, apperr.E(apperr.Invalid, "That is you.")
	}
	return u, nil
}

// Follow follows a player by name. Following someone who blocks you, or
// whom you block, is refused.
func (s *Service) Follow(ctx context.Context, me int64, name string) (db.User, error) {
	u, err := s.other(ctx, me, name)
	if err != nil {
		return u, err
	}
	rel, err := s.store.RelationOf(ctx, me, u.ID)
	if err != nil {
		return u, err
	}
	if rel.Blocks {
		return u, apperr.E(apperr.Conflict, "You block %s: unblock them first.", u.Username)
	}
	if rel.BlockedBy {
		return u, apperr.E(apperr.Forbidden, "You cannot follow %s.", u.Username)
	}
	return u, s.store.Follow(ctx, me, u.ID, s.clock.Now())
}

// Unfollow stops following a player.
func (s *Service) Unfollow(ctx context.Context, me int64, name string) (db.User, error) {
	u, err := s.other(ctx, me, name)
	if err != nil {
		return u, err
	}
	return u, s.store.Unfollow(ctx, me, u.ID)
}

// Block blocks a player by name.
func (s *Service) Block(ctx context.Context, me int64, name string) (db.User, error) {
	u, err := s.other(ctx, me, name)
	if err != nil {
		return u, err
	}
	return u, s.store.Block(ctx, me, u.ID, s.clock.Now())
}

// Unblock lifts a block.
func (s *Service) Unblock(ctx context.Context, me int64, name string) (db.User, error) {
	u, err := s.other(ctx, me, name)
	if err != nil {
		return u, err
	}
	return u, s.store.Unblock(ctx, me, u.ID)
}

// Relation says how me stands to another player.
func (s *Service) Relation(ctx context.Context, me, other int64) (db.Relation, error) {
	return s.store.RelationOf(ctx, me, other)
}

// Following lists whom a player follows, online ones first, with their
// public games.
func (s *Service) Following(ctx context.Context, me int64) ([]db.Followed, error) {
	return s.store.Following(ctx, me, s.clock.Now().Add(-OnlineWindow))
}

// Blocked lists whom a player blocks.
func (s *Service) Blocked(ctx context.Context, me int64) ([]db.Followed, error) {
	return s.store.Blocked(ctx, me)
}
