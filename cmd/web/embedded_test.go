package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"nothanks/internal/db"
)

// With DATABASE_URL unset and nothing at the default address, run starts
// a Postgres of its own before the migrations, says which and where its
// data lives, serves, and stops it on the way out; the data stays for the
// next start.
func TestRunStartsItsOwnPostgres(t *testing.T) {
	dir := t.TempDir()
	// As root the server runs as the postgres user, who must reach it.
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	own := filepath.Join(dir, "pg")
	vars := env(map[string]string{"DEFAULT_PG_ADDR": "127.0.0.1:1", "EMBEDDED_PG_DIR": own, "ADDR": "127.0.0.1:0"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, vars, pw)
		pw.Close()
	}()
	said := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "is running: open") {
				said <- lines
			}
		}
	}()
	var lines []string
	select {
	case lines = <-said:
	case err := <-done:
		t.Fatalf("run ended early: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not say where it listens")
	}
	out := strings.Join(lines, "\n")
	for _, want := range []string{"nothing answers at 127.0.0.1:1", "Postgres: embedded Postgres", filepath.Join(own, "data"), "Mail: SMTP_URL is unset"} {
		if !strings.Contains(out, want) {
			t.Errorf("the start message does not say %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "Postgres: embedded") > strings.Index(out, "applied migration") {
		t.Errorf("migrations before the embedded Postgres started:\n%s", out)
	}
	base := regexp.MustCompile(`open (http://\S+)`).FindStringSubmatch(out)[1]
	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", res.StatusCode)
	}
	// An account, made straight in the database the app uses.
	port := regexp.MustCompile(`on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(out)[1]
	password, err := os.ReadFile(filepath.Join(own, "password"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := db.Open(ctx, "postgres://postgres:"+strings.TrimSpace(string(password))+"@127.0.0.1:"+port+"/nothanks?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.CreateUser(ctx, "Keeper", "keeper@example.com", "x", time.Now())
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the scanner above still drains what the app prints
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return within 30 s of the shutdown")
	}
	if _, err := os.Stat(filepath.Join(own, "data", "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid after the shutdown (%v): the server did not stop cleanly", err)
	}

	// The next start has the account.
	var again strings.Builder
	if err := run(context.Background(), []string{"admin", "grant", "Keeper"}, vars, &again); err != nil {
		t.Fatalf("after a restart: %v\n%s", err, again.String())
	}
}
