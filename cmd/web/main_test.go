package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"nothanks/internal/clock"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/games"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestRunServesAndShutsDown(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	// An open game to hold an event stream on during the shutdown.
	u, err := store.CreateUser(context.Background(), "Closer", "closer@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	gameID, err := games.New(store, clock.Real{}, slog.Default()).Create(context.Background(), u.ID, games.DefaultCreateInput())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, env(map[string]string{"DATABASE_URL": dbURL, "ADDR": "127.0.0.1:0"}), pw)
		pw.Close()
	}()
	url := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`open (http://\S+)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-url:
	case err := <-done:
		t.Fatalf("run ended early: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not say where it listens")
	}
	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", res.StatusCode)
	}
	stream, err := http.Get(fmt.Sprintf("%s/games/%d/events", base, gameID))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if first, _ := bufio.NewReader(stream.Body).ReadString('\n'); !strings.HasPrefix(first, "event: board") {
		t.Fatalf("stream began with %q", first)
	}
	streamDone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stream.Body)
		close(streamDone)
	}()
	cancel()
	// The open stream must not hold the shutdown up: it is told to close.
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return within 5 s of the shutdown with a stream open")
	}
	select {
	case <-streamDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the event stream stayed open after the shutdown")
	}
}

func TestRunCreatesMissingDatabaseAndMigrates(t *testing.T) {
	name := fmt.Sprintf("nt_test_create_%d", time.Now().UnixNano())
	dbURL := strings.Replace(dbtest.ServerURL(t), "/postgres?", "/"+name+"?", 1)
	if dbURL == dbtest.ServerURL(t) {
		t.Skip("TEST_DATABASE_URL is not of the form .../postgres?...")
	}
	t.Cleanup(func() {
		admin, err := sqlx.Connect("postgres", dbtest.ServerURL(t))
		if err == nil {
			admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			admin.Close()
		}
	})
	var out strings.Builder
	if err := run(context.Background(), []string{"migrate"}, env(map[string]string{"DATABASE_URL": dbURL}), &out); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !strings.Contains(out.String(), "migrations applied") {
		t.Errorf("output: %s", out.String())
	}
	conn, err := sqlx.Connect("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM users`); err != nil {
		t.Errorf("users table after migrate: %v", err)
	}
}

// A DATABASE_URL that is set is the only database tried: unreachable, it
// is an error, never a switch to the app's own Postgres.
func TestRunExplainsUnreachableDatabase(t *testing.T) {
	own := filepath.Join(t.TempDir(), "pg")
	err := run(context.Background(), nil, env(map[string]string{
		"DATABASE_URL":    "postgres://postgres:secret@127.0.0.1:1/nothanks?sslmode=disable",
		"DEFAULT_PG_ADDR": "127.0.0.1:1", "EMBEDDED_PG_DIR": own,
	}), io.Discard)
	if err == nil {
		t.Fatal("run with no Postgres returned nil")
	}
	if _, serr := os.Stat(own); !os.IsNotExist(serr) {
		t.Errorf("an unreachable DATABASE_URL started the embedded Postgres in %s (%v)", own, serr)
	}
	msg := err.Error()
	for _, want := range []string{"cannot reach Postgres", "127.0.0.1:1", "DATABASE_URL", "docker compose up -d db"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "secret") {
		t.Errorf("error shows the password: %q", msg)
	}
	if strings.Count(msg, "\n") > 0 {
		t.Errorf("error is more than one line: %q", msg)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	tests := map[string]map[string]string{
		"ErrBaseURL":       {"BASE_URL": "ftp://x"},
		"ErrShortSecret":   {"SESSION_SECRET": "short"},
		"ErrProxies":       {"TRUSTED_PROXIES": "not-an-ip"},
		"ErrUnknownComand": {},
	}
	for name, vars := range tests {
		t.Run(name, func(t *testing.T) {
			args := []string{}
			if name == "ErrUnknownComand" {
				args = []string{"frobnicate"}
			}
			if err := run(context.Background(), args, env(vars), io.Discard); err == nil {
				t.Error("run accepted it")
			}
		})
	}
}

// "web admin grant NAME" makes a moderator, and says so in the moderation
// log; a name nobody has, or a malformed command, is refused with a reason.
func TestAdminGrantFromTheCommandLine(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	if _, err := store.CreateUser(ctx, "Moira", "moira@example.com", "x", time.Now()); err != nil {
		t.Fatal(err)
	}
	vars := env(map[string]string{"DATABASE_URL": dbURL})
	var out strings.Builder
	if err := run(ctx, []string{"admin", "grant", "moira"}, vars, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "moira is a moderator now") {
		t.Errorf("output: %q", out.String())
	}
	u, err := store.UserByName(ctx, "Moira")
	if err != nil || !u.Admin {
		t.Fatalf("Moira after the grant: admin %v (%v)", u.Admin, err)
	}
	log, err := store.ModerationLog(ctx, 10)
	if err != nil || len(log) != 1 || log[0].Action != "grant" || log[0].TargetName == nil || *log[0].TargetName != "Moira" || log[0].AdminName != nil {
		t.Errorf("the moderation log: %+v (%v)", log, err)
	}
	if err := run(ctx, []string{"admin", "grant", "Nobody"}, vars, io.Discard); err == nil || !strings.Contains(err.Error(), "no player called Nobody") {
		t.Errorf("granting nobody: %v", err)
	}
	for _, args := range [][]string{{"admin"}, {"admin", "promote", "Moira"}, {"admin", "grant"}} {
		if err := run(ctx, args, vars, io.Discard); err == nil || !strings.Contains(err.Error(), "usage: web admin grant NAME") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if err := run(ctx, []string{"admin", "revoke", "Moira"}, vars, io.Discard); err != nil {
		t.Fatal(err)
	}
	if u, _ := store.UserByName(ctx, "Moira"); u.Admin {
		t.Error("revoke left Moira a moderator")
	}
}
