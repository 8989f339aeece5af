// Package db is the only place with SQL. One Store wraps the Postgres pool;
// each file holds the queries of one table or aggregate, as plain $1 SQL
// through sqlx, with errors wrapped as "db: what: cause".
//
// It must not import the web layers (echo, templ, handlers, views).
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"nothanks/migrations"
)

// ErrNotFound is returned when a row asked for does not exist.
var ErrNotFound = errors.New("db: not found")

// Store holds the pool. Its methods are the application's queries.
type Store struct {
	DB    *sqlx.DB
	notes *notifier // nil: notifications go through DB, one by one
	hot   hot
}

// New wraps an open pool.
func New(pool *sqlx.DB) *Store { return &Store{DB: pool} }

// notify sends committed transactions' notifications.
func (s *Store) notify(ns []note) {
	if s.notes != nil {
		s.notes.send(ns)
		return
	}
	for _, n := range ns {
		if _, err := s.DB.Exec(`SELECT pg_notify($1, $2)`, n.channel, n.payload); err != nil {
			slog.Warn("db: notify", "channel", n.channel, "err", err)
		}
	}
}

// Open connects to the database at url, creating the database first when the
// server answers but the database does not exist yet. An unreachable server
// gives an *UnreachableError that says what was tried.
func Open(ctx context.Context, url string) (*Store, error) {
	pool, err := connect(ctx, url)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "3D000" { // invalid_catalog_name
		if cerr := createDatabase(ctx, url); cerr != nil {
			return nil, cerr
		}
		pool, err = connect(ctx, url)
	}
	if err != nil {
		if errors.As(err, &pqErr) {
			return nil, fmt.Errorf("db: connect to %s: %w", Redact(url), err)
		}
		return nil, &UnreachableError{URL: Redact(url), Err: err}
	}
	st := &Store{DB: pool}
	st.SetMaxConns(DefaultMaxConns)
	notePool, err := connectWith(ctx, url, map[string]string{"synchronous_commit": "off"})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("db: connect for notifications: %w", err)
	}
	notePool.SetMaxOpenConns(2)
	st.notes = newNotifier(notePool)
	return st, nil
}

// DefaultMaxConns is the pool size until SetMaxConns says otherwise.
const DefaultMaxConns = 20

// SetMaxConns sizes the pool: at most n connections, all of which may stay
// open while idle (opening one costs Postgres a process), until unused for
// five minutes.
func (s *Store) SetMaxConns(n int) {
	s.DB.SetMaxOpenConns(n)
	s.DB.SetMaxIdleConns(n)
	s.DB.SetConnMaxIdleTime(5 * time.Minute)
}

// connect opens a pool. Parameters travel in lib/pq's binary mode, which
// sends a statement with its arguments in one round trip instead of two
// (a move is a handful of statements, so this halves its waiting); JSON
// arguments are therefore passed as strings, never as []byte.
func connect(ctx context.Context, url string) (*sqlx.DB, error) {
	return connectWith(ctx, url, nil)
}

// connectWith opens a pool whose sessions start with the given settings.
func connectWith(ctx context.Context, url string, settings map[string]string) (*sqlx.DB, error) {
	cfg, err := pq.NewConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.BinaryParameters = true
	for k, v := range settings {
		if cfg.Runtime == nil {
			cfg.Runtime = map[string]string{}
		}
		cfg.Runtime[k] = v
	}
	connector, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return nil, err
	}
	pool := sqlx.NewDb(sql.OpenDB(connector), "postgres")
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.PingContext(pingCtx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// createDatabase creates the database named in url from the server's
// "postgres" database. Another instance creating it at the same moment is
// not an error.
func createDatabase(ctx context.Context, rawURL string) error {
	name, adminURL, err := splitDatabase(rawURL)
	if err != nil {
		return err
	}
	admin, err := connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("db: connect to create database %q: %w", name, err)
	}
	defer admin.Close()
	_, err = admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name))
	var pqErr *pq.Error
	if err != nil && !(errors.As(err, &pqErr) && pqErr.Code == "42P04") { // duplicate_database
		return fmt.Errorf("db: create database %q: %w", name, err)
	}
	slog.Info("created database", "name", name)
	return nil
}

// splitDatabase returns the database named in a postgres:// URL or key=value
// DSN, and the same connection string pointing at the "postgres" database.
func splitDatabase(raw string) (name, admin string, err error) {
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		u, err := url.Parse(raw)
		if err != nil {
			return "", "", fmt.Errorf("db: parse DATABASE_URL: %w", err)
		}
		name = strings.TrimPrefix(u.Path, "/")
		u.Path = "/postgres"
		return name, u.String(), nil
	}
	var parts []string
	for _, kv := range strings.Fields(raw) {
		if v, ok := strings.CutPrefix(kv, "dbname="); ok {
			name = v
			continue
		}
		parts = append(parts, kv)
	}
	return name, strings.Join(append(parts, "dbname=postgres"), " "), nil
}

// Redact hides the password of a connection URL for messages and logs.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// UnreachableError says that no Postgres server answered.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach Postgres at %s (%v): start Postgres there, set DATABASE_URL to a server that runs, or run `docker compose up -d db`", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Migrate applies every migration not yet applied, each in a transaction,
// holding a Postgres advisory lock so that instances starting together
// take turns.
func (s *Store) Migrate(ctx context.Context) error {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("db: migration lock: %w", err)
	}
	provider, err := goose.NewProvider(goose.DialectPostgres, s.DB.DB, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("db: migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return fmt.Errorf("db: migrate: %w", err)
	}
	for _, r := range results {
		slog.Info("applied migration", "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.DB.PingContext(ctx); err != nil {
		return fmt.Errorf("db: ping: %w", err)
	}
	return nil
}

// Close sends the notifications still queued and closes the pools.
func (s *Store) Close() error {
	if s.notes != nil {
		s.notes.close()
	}
	return s.DB.Close()
}

// InTx runs fn in one transaction, committed when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("db: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after commit
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("db: commit: %w", err)
	}
	return nil
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// uniqueViolation returns the name of the unique constraint err broke, or "".
func uniqueViolation(err error) string {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return pqErr.Constraint
	}
	return ""
}
