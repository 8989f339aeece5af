// Package dbtest gives each test its own freshly migrated Postgres database,
// copied from a template database that is migrated once per set of
// migrations, so tests never see each other's rows and may run in parallel.
//
// The server is TEST_DATABASE_URL's, else the one at the default address
// (DEFAULT_PG_ADDR, 127.0.0.1:5432, as user postgres, sslmode=disable),
// else, when nothing answers there, an embedded one (internal/pgembed)
// that every test binary of a `go test` run shares and that stops when
// the run ends. Only tests import this package.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the postgres driver

	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/pgembed"
	"nothanks/migrations"
)

// init lets the shared embedded server's supervisor be this test binary
// run again (pgembed.Shared): the one program sure to be at hand, and
// this the one package every database test binary imports. Otherwise it
// does nothing.
func init() { pgembed.SuperviseIfAsked() }

// server is this test binary's Postgres, found once.
var server struct {
	once     sync.Once
	url      string
	err      error
	embedded *pgembed.Server // held until the process ends
}

// testSettings make the embedded test server quick: its databases are
// thrown away, so a crash may lose what it likes.
var testSettings = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}

// ServerURL is the connection URL of the test server's admin database.
func ServerURL(t testing.TB) string {
	t.Helper()
	server.once.Do(findServer)
	if server.err != nil {
		t.Fatal(server.err)
	}
	return server.url
}

func findServer() {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		server.url = u
		return
	}
	addr, err := config.PGAddr(os.Getenv)
	if err != nil {
		server.err = fmt.Errorf("dbtest: %w", err)
		return
	}
	if c, err := net.DialTimeout("tcp", addr, 2*time.Second); err == nil {
		c.Close()
		server.url = config.DatabaseURLAt(addr, "postgres")
		return
	}
	dir, err := pgembed.SharedDir()
	if err == nil {
		server.embedded, err = pgembed.Shared(context.Background(), pgembed.Options{Dir: dir, Settings: testSettings, OnStart: sweep})
	}
	if err != nil {
		server.err = fmt.Errorf("dbtest: nothing answers at %s and TEST_DATABASE_URL is unset, and the embedded test server did not start: %w", addr, err)
		return
	}
	server.url = server.embedded.URL("postgres")
}

// sweep drops what test processes killed on an earlier run left behind
// (their databases; templates of other migrations) when the embedded
// server starts, called by pgembed.Shared before any other test process
// may join it.
func sweep(adminURL string) error {
	admin, err := sqlx.Connect("postgres", adminURL)
	if err != nil {
		return fmt.Errorf("dbtest: %w", err)
	}
	defer admin.Close()
	sum, err := migrationsHash()
	if err != nil {
		return err
	}
	var stale []string
	if err := admin.Select(&stale, `SELECT datname FROM pg_database
		WHERE datname LIKE 'nt\_test\_%' OR (datname LIKE 'nt\_template\_%' AND datname <> $1)`, "nt_template_"+sum); err != nil {
		return fmt.Errorf("dbtest: list stale databases: %w", err)
	}
	for _, name := range stale {
		if _, err := admin.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			return fmt.Errorf("dbtest: drop %s: %w", name, err)
		}
	}
	return nil
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
	serverURL := ServerURL(t)
	admin, err := sqlx.Connect("postgres", serverURL)
	if err != nil {
		t.Fatalf("dbtest: connect to Postgres at %s: %v (start Postgres there, or set TEST_DATABASE_URL)", db.Redact(serverURL), err)
	}
	defer admin.Close()
	template, err := ensureTemplate(ctx, admin, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	name := "nt_test_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("dbtest: create database: %v", err)
	}
	dbURL := withDatabase(serverURL, name)
	store, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		store.Close()
		admin, err := sqlx.Connect("postgres", serverURL)
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
func ensureTemplate(ctx context.Context, admin *sqlx.DB, serverURL string) (string, error) {
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
	store, err := db.Open(ctx, withDatabase(serverURL, building))
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
