package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/pgembed"
)

// openDatabase opens the app's database and says on stdout which Postgres
// it is: DATABASE_URL's when set (unreachable, that is an error, never a
// switch to another server); else the server at the default address; else,
// when nothing answers there, a Postgres of the app's own, kept in the
// user's data directory, started here and stopped by closeDB. dbURL is the
// database's URL, for the app's other connections.
func openDatabase(ctx context.Context, cfg config.Config, getenv func(string) string, stdout io.Writer) (store *db.Store, dbURL string, closeDB func(), err error) {
	store, err = db.Open(ctx, cfg.DatabaseURL)
	var unreachable *db.UnreachableError
	if err == nil {
		which := fmt.Sprintf("the server at %s (DATABASE_URL is unset)", cfg.DefaultPGAddr)
		if cfg.DatabaseURLSet {
			which = db.Redact(cfg.DatabaseURL) + " (DATABASE_URL)"
		}
		fmt.Fprintf(stdout, "Postgres: %s\n", which)
		return store, cfg.DatabaseURL, func() { store.Close() }, nil
	}
	if cfg.DatabaseURLSet || !errors.As(err, &unreachable) {
		return nil, "", nil, err
	}
	dir := cfg.EmbeddedPGDir
	if dir == "" {
		if dir, err = pgembed.DefaultDir(getenv); err != nil {
			return nil, "", nil, err
		}
	}
	fmt.Fprintf(stdout, "Postgres: nothing answers at %s and DATABASE_URL is unset: starting the app's own Postgres (data in %s; EMBEDDED_PG_DIR moves it)\n", cfg.DefaultPGAddr, dir)
	began := time.Now()
	pg, err := pgembed.Start(ctx, pgembed.Options{Dir: dir, BinDir: cfg.EmbeddedPGBin})
	if err != nil {
		return nil, "", nil, fmt.Errorf("the app's own Postgres did not start (or set DATABASE_URL to a Postgres server): %w", err)
	}
	stop := func() {
		if err := pg.Stop(); err != nil {
			slog.Error("stop the embedded Postgres", "err", err)
			return
		}
		slog.Info("stopped the embedded Postgres", "data", dir)
	}
	dbURL = pg.URL("nothanks")
	if store, err = db.Open(ctx, dbURL); err != nil {
		stop()
		return nil, "", nil, err
	}
	fmt.Fprintf(stdout, "Postgres: %s, started in %v; it stops with the app\n", pg, time.Since(began).Round(time.Millisecond))
	return store, dbURL, func() { store.Close(); stop() }, nil
}
