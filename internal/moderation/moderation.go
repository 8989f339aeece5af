// Package moderation is what the site's admins do about abuse: read the
// reported chat messages, hide a message (or show it again), dismiss a
// report, silence an account from chat for a while, and disable an account
// (which ends its sessions and revokes its API tokens). The admin role is
// granted from the command line (web admin grant NAME). Every action is
// written to the moderation log, in the transaction that takes it.
package moderation

import (
	"context"
	"errors"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
)

// Store is what the service needs of the database.
type Store interface {
	UserByName(ctx context.Context, name string) (db.User, error)
	SetAdmin(ctx context.Context, name string, admin bool, at time.Time) (bool, error)
	HideChat(ctx context.Context, admin, messageID int64, hide bool, at time.Time) error
	DismissReports(ctx context.Context, admin, messageID int64, at time.Time) error
	Silence(ctx context.Context, admin, userID int64, until *time.Time, note string, at time.Time) error
	Disable(ctx context.Context, admin, userID int64, disable bool, note string, at time.Time) ([]string, error)
	OpenReports(ctx context.Context, limit int) ([]db.Report, error)
	ChatAround(ctx context.Context, messageIDs []int64, n int) (map[int64][]db.ChatMessage, error)
	ModerationLog(ctx context.Context, limit int) ([]db.ModEntry, error)
}

// Service is moderation.
type Service struct {
	store  Store
	clock  clock.Clock
	forget func(tokenHash string)
}

// New makes the service; forget, when set, drops a revoked API token from
// this instance's cache at once (the others hear of it through Postgres).
func New(store Store, clk clock.Clock, forget func(tokenHash string)) *Service {
	return &Service{store: store, clock: clk, forget: forget}
}

// ErrNotAdmin answers anyone but an admin.
var ErrNotAdmin = apperr.E(apperr.Forbidden, "Only moderators may do that.")

// Silences a moderator can choose, in hours.
var Silences = []int{1, 24, 24 * 7, 24 * 30}

// Grant gives (or with admin false takes back) the admin role; it is for
// the command line.
func (s *Service) Grant(ctx context.Context, name string, admin bool) error {
	ok, err := s.store.SetAdmin(ctx, name, admin, s.clock.Now())
	if err != nil {
		return err
	}
	if !ok {
		return apperr.E(apperr.NotFound, "There is no player called %s.", name)
	}
	return nil
}

func check(admin db.User) error {
	if !admin.Admin || !admin.Active() {
		return ErrNotAdmin
	}
	return nil
}

// Reports lists the open reports, oldest first.
func (s *Service) Reports(ctx context.Context, admin db.User) ([]db.Report, error) {
	if err := check(admin); err != nil {
		return nil, err
	}
	return s.store.OpenReports(ctx, 200)
}

// Around is how many messages before and after a reported one the
// moderators read with it.
const Around = 3

// Conversations returns, for each reported message, the conversation
// around it (Around messages either side in its channel), so that a
// moderator judges it in its context.
func (s *Service) Conversations(ctx context.Context, admin db.User, messageIDs []int64) (map[int64][]db.ChatMessage, error) {
	if err := check(admin); err != nil {
		return nil, err
	}
	if len(messageIDs) == 0 {
		return map[int64][]db.ChatMessage{}, nil
	}
	return s.store.ChatAround(ctx, messageIDs, Around)
}

// Log lists the latest moderation actions.
func (s *Service) Log(ctx context.Context, admin db.User) ([]db.ModEntry, error) {
	if err := check(admin); err != nil {
		return nil, err
	}
	return s.store.ModerationLog(ctx, 200)
}

// Hide hides a message (or shows it again) at its table and in its replay.
func (s *Service) Hide(ctx context.Context, admin db.User, messageID int64, hide bool) error {
	if err := check(admin); err != nil {
		return err
	}
	err := s.store.HideChat(ctx, admin.ID, messageID, hide, s.clock.Now())
	if errors.Is(err, db.ErrNotFound) {
		return apperr.E(apperr.NotFound, "There is no such message.")
	}
	return err
}

// Dismiss closes a message's reports, leaving it as it is.
func (s *Service) Dismiss(ctx context.Context, admin db.User, messageID int64) error {
	if err := check(admin); err != nil {
		return err
	}
	err := s.store.DismissReports(ctx, admin.ID, messageID, s.clock.Now())
	if errors.Is(err, db.ErrNotFound) {
		return apperr.E(apperr.NotFound, "There is no such message.")
	}
	return err
}

// target finds the account an action is about.
func (s *Service) target(ctx context.Context, admin db.User, name string) (db.User, error) {
	if err := check(admin); err != nil {
		return db.User{}, err
	}
	u, err := s.store.UserByName(ctx, name)
	if errors.Is(err, db.ErrNotFound) || (err == nil && u.DeletedAt != nil) {
		return db.User{}, apperr.E(apperr.NotFound, "There is no player called %s.", name)
	}
	if err != nil {
		return db.User{}, err
	}
	if u.ID == admin.ID {
		return db.User{}, apperr.E(apperr.Invalid, "Moderators cannot act on their own account.")
	}
	return u, nil
}

// Silence bars an account from chat for hours (0 lifts a silence).
func (s *Service) Silence(ctx context.Context, admin db.User, name string, hours int, note string) error {
	u, err := s.target(ctx, admin, name)
	if err != nil {
		return err
	}
	if hours < 0 || hours > 24*365 {
		return apperr.E(apperr.Invalid, "A silence lasts from 1 hour to a year.")
	}
	var until *time.Time
	if hours > 0 {
		t := s.clock.Now().Add(time.Duration(hours) * time.Hour)
		until = &t
	}
	return s.store.Silence(ctx, admin.ID, u.ID, until, note, s.clock.Now())
}

// Disable closes an account (its sessions end, its API tokens stop
// working) or, with disable false, opens it again.
func (s *Service) Disable(ctx context.Context, admin db.User, name string, disable bool, note string) error {
	u, err := s.target(ctx, admin, name)
	if err != nil {
		return err
	}
	revoked, err := s.store.Disable(ctx, admin.ID, u.ID, disable, note, s.clock.Now())
	if err != nil {
		return err
	}
	for _, h := range revoked {
		if s.forget != nil {
			s.forget(h)
		}
	}
	return nil
}
