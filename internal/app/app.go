// Package app assembles the application from its parts: services over the
// store, the session store, the HTTP handlers and the background jobs. Both
// cmd/web and the tests build it here, so they run the same thing.
package app

import (
	"context"
	"crypto/rand"
	"crypto/sha512"
	"log/slog"
	"net/http"
	"time"

	"nothanks/internal/accounts"
	"nothanks/internal/clock"
	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/handlers"
	"nothanks/internal/session"
)

// Session lifetimes: a session unused for a week ends, and none lasts more
// than 30 days.
const (
	SessionIdle     = 7 * 24 * time.Hour
	SessionLifetime = 30 * 24 * time.Hour
)

// App is the assembled application.
type App struct {
	Handler  http.Handler
	Accounts *accounts.Service
	Store    *db.Store
	log      *slog.Logger
}

// New builds the application on an open, migrated store.
func New(ctx context.Context, cfg config.Config, store *db.Store, clk clock.Clock, log *slog.Logger) (*App, error) {
	acc, err := accounts.New(store, store, clk)
	if err != nil {
		return nil, err
	}
	key, err := sessionKey(ctx, cfg, store)
	if err != nil {
		return nil, err
	}
	sessions, err := session.New(store, session.Config{HashKey: key, Secure: cfg.Secure(), Idle: SessionIdle, Lifetime: SessionLifetime}, clk)
	if err != nil {
		return nil, err
	}
	e := handlers.New(handlers.Deps{Config: cfg, Accounts: acc, Sessions: sessions, DB: store, Clock: clk, Log: log})
	return &App{Handler: e, Accounts: acc, Store: store, log: log}, nil
}

// Run runs the background jobs until ctx is done.
func (a *App) Run(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := a.Accounts.Cleanup(ctx, SessionIdle); err != nil && ctx.Err() == nil {
			a.log.Warn("housekeeping", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Shutdown tells long-lived streams to close, so that the HTTP server's
// graceful shutdown does not wait on them.
func (a *App) Shutdown() {}

// sessionKey derives the cookie signing key from SESSION_SECRET, or, when it
// is unset, uses a key generated once and kept in the database so that every
// instance and every restart signs alike.
func sessionKey(ctx context.Context, cfg config.Config, store *db.Store) ([]byte, error) {
	if cfg.SessionSecret != "" {
		sum := sha512.Sum512([]byte("nothanks session key\x00" + cfg.SessionSecret))
		return sum[:], nil
	}
	return store.Secret(ctx, "session_hash_key", func() ([]byte, error) {
		b := make([]byte, 64)
		_, err := rand.Read(b)
		return b, err
	})
}
