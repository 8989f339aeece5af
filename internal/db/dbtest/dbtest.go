// Package dbtest gives each test its own freshly migrated Postgres database,
// copied from a template database that is migrated once per set of
// migrations, so tests never see each other's rows and may run in parallel.
//
// TEST_DATABASE_URL names the server (default: postgres on 127.0.0.1:5432
// as user postgres, sslmode=disable). Only tests import this package.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the postgres driver

	"nothanks/internal/db"
	"nothanks/migrations"
)

// ServerURL is the connection URL of the test server's admin database.
func ServerURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// New returns a store on a new, migrated, empty database, dropped when the
// test ends.
func New(t testing.TB) *db.Store {
	t.Helper()
	store, _ := NewWithURL(t)
	return store
}

// NewWithURL is New, also returning the database's URL so that a test can
// open more connections to it (a second server instance, a listener).
func NewWithURL(t testing.TB) (*db.Store, string) {
	t.Helper()
	ctx := context.Background()
	admin, err := sqlx.Connect("postgres", ServerURL())
	if err != nil {
		t.Fatalf("dbtest: connect to Postgres at %s: %v (start Postgres or set TEST_DATABASE_URL)", db.Redact(ServerURL()), err)
	}
	defer admin.Close()
	template, err := ensureTemplate(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	name := "nt_test_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("dbtest: create database: %v", err)
	}
	dbURL := withDatabase(ServerURL(), name)
	store, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		store.Close()
		admin, err := sqlx.Connect("postgres", ServerURL())
		if err != nil {
			t.Errorf("dbtest: drop %s: %v", name, err)
			return
		}
		defer admin.Close()
		if _, err := admin.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Errorf("dbtest: drop %s: %v", name, err)
		}
	})
	return store, dbURL
}

// ensureTemplate makes the template database for the current migrations if
// no test process has made it yet.
func ensureTemplate(ctx context.Context, admin *sqlx.DB) (string, error) {
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "nt_template_" + sum
	conn, err := admin.Connx(ctx)
	if err != nil {
		return "", fmt.Errorf("dbtest: %w", err)
	}
	defer conn.Close()
	// One process builds the template while the others wait on the lock.
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext('nothanks dbtest template'))`); err != nil {
		return "", fmt.Errorf("dbtest: lock: %w", err)
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtext('nothanks dbtest template'))`) //nolint:errcheck
	var exists bool
	if err := conn.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name); err != nil {
		return "", fmt.Errorf("dbtest: %w", err)
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("dbtest: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return "", fmt.Errorf("dbtest: create template: %w", err)
	}
	store, err := db.Open(ctx, withDatabase(ServerURL(), building))
	if err != nil {
		return "", err
	}
	err = store.Migrate(ctx)
	store.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name)); err != nil {
		return "", fmt.Errorf("dbtest: rename template: %w", err)
	}
	return name, nil
}

func migrationsHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", path, b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("dbtest: hash migrations: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		return raw + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
