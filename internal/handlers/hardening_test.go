package handlers_test

import (
	"compress/gzip"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"nothanks/internal/accounts"
	"nothanks/internal/apptest"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
)

// parallel runs f n times at once, after every goroutine is ready.
func parallel(n int, f func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			f(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

func TestParallelWrongPasswordsCountedUpToLimit(t *testing.T) {
	for _, name := range []string{"Target", "nobody-at-all"} {
		t.Run(name, func(t *testing.T) {
			s := apptest.New(t)
			s.Client().Register("Target")
			const n = 12
			clients := make([]*apptest.Client, n)
			for i := range clients {
				clients[i] = s.Client()
				clients[i].CSRFToken()
			}
			statuses := make([]int, n)
			parallel(n, func(i int) { statuses[i] = clients[i].Login(name, "wrong password").Status })
			counted := map[int]int{}
			for _, st := range statuses {
				counted[st]++
			}
			if got := counted[http.StatusUnauthorized]; got > accounts.MaxAccountFailures || got == 0 {
				t.Errorf("%d parallel wrong passwords: %d checked (401), want 1 to %d; statuses %v", n, got, accounts.MaxAccountFailures, counted)
			}
			if counted[http.StatusUnauthorized]+counted[http.StatusTooManyRequests] != n {
				t.Errorf("statuses %v, want only 401 and 429", counted)
			}
			if got := s.Client().Login(name, apptest.Password).Status; got != http.StatusTooManyRequests {
				t.Errorf("the right password after the burst: %d, want 429", got)
			}
		})
	}
}

func TestRightPasswordWithinLimitLogsIn(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Careful")
	clients := make([]*apptest.Client, accounts.MaxAccountFailures-1)
	for i := range clients {
		clients[i] = s.Client()
		clients[i].CSRFToken()
	}
	parallel(len(clients), func(i int) { clients[i].Login("Careful", "wrong password") })
	if got := s.Client().Login("careful", apptest.Password).Status; got != http.StatusSeeOther {
		t.Fatalf("the right password after %d failures: %d, want 303", len(clients), got)
	}
	// The good log-in cleared the account's count.
	for i := range accounts.MaxAccountFailures - 1 {
		if got := s.Client().Login("Careful", "wrong password").Status; got != http.StatusUnauthorized {
			t.Fatalf("failure %d after a good log-in: %d, want 401", i+1, got)
		}
	}
}

func TestGoodLoginsDoNotUseUpTheIPAllowance(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Regular")
	c := s.Client()
	for i := range accounts.MaxIPFailures - 2 {
		if got := c.Login(fmt.Sprintf("ghost%d", i), "nope").Status; got != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i+1, got)
		}
	}
	for i := range 5 {
		if got := s.Client().Login("Regular", apptest.Password).Status; got != http.StatusSeeOther {
			t.Fatalf("good log-in %d: %d", i+1, got)
		}
	}
	if got := c.Login("ghost-last", "nope").Status; got != http.StatusUnauthorized {
		t.Errorf("a failure after good log-ins from the same address: %d, want 401 (good log-ins must not count)", got)
	}
}

func TestOverlongLoginIsBadCredentials(t *testing.T) {
	s := apptest.New(t)
	b := make([]byte, 10000)
	rand.Read(b)
	// Random, so that Postgres cannot compress it under its index limit.
	res := s.Client().Login(hex.EncodeToString(b), "whatever")
	if res.Status != http.StatusUnauthorized || res.TestID("form-error") != accounts.ErrBadCredentials.Message {
		t.Errorf("a 20,000-character login: %d %q, want 401 with the usual answer", res.Status, res.TestID("form-error"))
	}
}

func TestSettingsPasswordIsThrottledAndEndsTheSession(t *testing.T) {
	forms := []struct {
		name, path, field string
		values            url.Values
	}{
		{"password", "/settings/password", "current", url.Values{"new": {"another password"}, "confirm": {"another password"}}},
		{"email", "/settings/email", "password", url.Values{"email": {"elsewhere@example.com"}}},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			s := apptest.New(t)
			c := s.Client().Register("Forgetful")
			other := s.Client()
			if other.Login("Forgetful", apptest.Password).Status != http.StatusSeeOther {
				t.Fatal("second session: log-in failed")
			}
			wrong := func(cl *apptest.Client) *apptest.Response {
				v := url.Values{form.field: {"not my password"}}
				for k, vs := range form.values {
					v[k] = vs
				}
				return cl.PostForm(form.path, v)
			}
			for i := range accounts.MaxReauthFailures - 1 {
				res := wrong(c)
				if res.Status != http.StatusUnprocessableEntity || res.TestID("error-"+form.field) == "" {
					t.Fatalf("wrong password %d: %d %q", i+1, res.Status, res.TestID("error-"+form.field))
				}
			}
			res := wrong(c)
			if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
				t.Fatalf("wrong password %d: %d to %q, want 303 to the log-in page", accounts.MaxReauthFailures, res.Status, res.Header.Get("Location"))
			}
			login := c.Follow(res)
			if !login.Has("login-form") || !strings.Contains(login.TestID("flash"), "logged out after too many wrong passwords") {
				t.Errorf("log-in page after the session ended: form %v, flash %q", login.Has("login-form"), login.TestID("flash"))
			}
			if c.Get("/").Has("nav-user") {
				t.Error("the session that guessed is still logged in")
			}
			// The other session stays, but the settings take no password
			// from it either until the window ends: nothing is checked.
			if !other.Get("/").Has("nav-user") {
				t.Fatal("another session of the account was logged out")
			}
			v := url.Values{form.field: {apptest.Password}}
			for k, vs := range form.values {
				v[k] = vs
			}
			res = other.PostForm(form.path, v)
			if res.Status != http.StatusTooManyRequests || !strings.Contains(res.TestID("form-error"), "Try again in 15 minutes") {
				t.Errorf("the right password while locked: %d %q, want 429", res.Status, res.TestID("form-error"))
			}
			if !other.Get("/").Has("nav-user") {
				t.Error("a refused attempt with the right password ended the session")
			}
			s.Clock.Advance(accounts.FailureWindow + time.Second)
			if res := other.PostForm(form.path, v); res.Status != http.StatusSeeOther {
				t.Errorf("the right password after the window: %d %s", res.Status, res.TestID("form-error"))
			}
		})
	}
}

func TestParallelSettingsPasswordsCountedUpToLimit(t *testing.T) {
	s := apptest.New(t)
	c := s.Client().Register("Burst")
	c.CSRFToken()
	const n = 12
	statuses := make([]int, n)
	parallel(n, func(i int) {
		statuses[i] = c.PostForm("/settings/email", url.Values{"email": {"x@example.com"}, "password": {"guess"}}).Status
	})
	counted := map[int]int{}
	for _, st := range statuses {
		counted[st]++
	}
	// 422: checked and wrong; 303: checked, wrong and the session ended;
	// 429: refused unchecked; a request arriving after the session ended
	// is sent to log in (303) unchecked too.
	if got := counted[http.StatusUnprocessableEntity]; got > accounts.MaxReauthFailures-1 {
		t.Errorf("%d parallel wrong passwords: %d answered 422, want at most %d; %v", n, got, accounts.MaxReauthFailures-1, counted)
	}
	if c.Get("/").Has("nav-user") {
		t.Error("the session survived a burst of wrong passwords")
	}
}

func TestOverloadAnswers503WithRetryAfter(t *testing.T) {
	// Requests wait for a pool connection until their deadline: a short
	// one keeps the test short, but long enough for the two registrations
	// below on a busy machine (at 1 s one was cut short by CI's load).
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithConfig(func(c *configAlias) { c.RequestTimeout = 3 * time.Second }))
	api := s.APIFor("Patient")
	c := s.Client().Register("Busy")
	ctx := context.Background()
	var held []*sql.Conn
	for range s.Store.DB.Stats().MaxOpenConnections {
		conn, err := s.Store.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, conn)
	}
	t.Run("Page", func(t *testing.T) {
		res := c.Get("/")
		if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !res.Has("error-page") {
			t.Errorf("page: %d, Retry-After %q, error page %v", res.Status, res.Header.Get("Retry-After"), res.Has("error-page"))
		}
	})
	t.Run("Fragment", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/games", nil)
		req.Header.Set("HX-Request", "true")
		res := c.Do(req)
		if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !res.Has("flash") {
			t.Errorf("fragment: %d, Retry-After %q, flash %v", res.Status, res.Header.Get("Retry-After"), res.Has("flash"))
		}
	})
	t.Run("API", func(t *testing.T) {
		status, raw := api.Raw(http.MethodGet, "/api/v1/me", nil)
		if status != http.StatusServiceUnavailable || !strings.Contains(string(raw), `"code":"unavailable"`) {
			t.Errorf("API: %d %s", status, raw)
		}
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+api.Token)
		if res := c.Do(req); res.Header.Get("Retry-After") == "" {
			t.Errorf("API: no Retry-After")
		}
	})
	for _, conn := range held {
		conn.Close()
	}
	if res := c.Get("/"); res.Status != http.StatusOK {
		t.Errorf("after the pool frees: %d", res.Status)
	}
}

func TestPostgresRefusingConnectionsAnswers503(t *testing.T) {
	// A role allowed three connections (the notifier keeps one of its own,
	// the pool may open two): Postgres refuses another with "too many
	// connections" (53300), as a full server does.
	admin, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	role := fmt.Sprintf("nt_limited_%d", time.Now().UnixNano())
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN PASSWORD 'limited' CONNECTION LIMIT 3",
		"GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role,
		"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO " + role,
	} {
		if _, err := admin.DB.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := url.Parse(dbURL)
	u.User = url.UserPassword(role, "limited")
	limited, err := db.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		limited.Close()
		admin.DB.Exec("DROP OWNED BY " + role)
		admin.DB.Exec("DROP ROLE " + role)
	})
	// The listener connects as the administrator (dbURL); the pool as the
	// limited role.
	s := apptest.NewOn(t, limited, dbURL, apptest.WithoutWorkers())
	c := s.Client()
	if res := c.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("home before the limit is reached: %d", res.Status)
	}
	// Take connections until Postgres refuses one (background loops may
	// hold some of the role's three meanwhile).
	var held []*sql.Conn
	for {
		conn, err := limited.DB.Conn(ctx)
		if err != nil {
			if !db.Unavailable(err) {
				t.Fatal(err)
			}
			break
		}
		held = append(held, conn)
		if len(held) > 10 {
			t.Fatal("Postgres never refused a connection")
		}
	}
	res := c.Get("/")
	if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("home with Postgres refusing connections: %d, Retry-After %q, want 503 with Retry-After", res.Status, res.Header.Get("Retry-After"))
	}
	for _, conn := range held {
		conn.Close()
	}
	if res := c.Get("/"); res.Status != http.StatusOK {
		t.Errorf("home once connections free: %d", res.Status)
	}
}

func TestMetrics(t *testing.T) {
	const token = "a-metrics-token-of-some-length"
	t.Run("OffWithoutToken", func(t *testing.T) {
		s := apptest.New(t)
		if res := bearer(t, s, "/metrics", token); res.Status != http.StatusNotFound {
			t.Errorf("/metrics without METRICS_TOKEN: %d, want 404", res.Status)
		}
	})
	s := apptest.New(t, apptest.WithConfig(func(c *configAlias) { c.MetricsToken = token }))
	for _, tok := range []string{"", "wrong-token-wrong-token"} {
		if res := bearer(t, s, "/metrics", tok); res.Status != http.StatusUnauthorized || strings.Contains(res.Body, "nothanks_") {
			t.Errorf("/metrics with token %q: %d", tok, res.Status)
		}
	}
	a := s.APIFor("Counter")
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	a.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": 0})
	c := s.Client()
	c.Get(fmt.Sprintf("/games/%d", id))
	c.Get("/no/such/page")
	// An open stream.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/games/%d/events", s.URL, id), nil)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()

	res := bearer(t, s, "/metrics", token)
	if res.Status != http.StatusOK {
		t.Fatalf("/metrics: %d", res.Status)
	}
	for _, want := range []string{
		`nothanks_http_requests_total{method="GET",route="/games/:id",status="200"} 1`,
		`nothanks_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`nothanks_http_request_duration_seconds_bucket{route="/games/:id"`,
		`nothanks_move_duration_seconds_count{via="api"} 1`,
		`nothanks_open_streams 1`,
		`nothanks_outbox_depth `,
		`nothanks_outbox_oldest_due_seconds `,
		`nothanks_due_move_lag_seconds `,
		`go_sql_max_open_connections{db_name="nothanks"} 20`,
		`go_sql_in_use_connections{db_name="nothanks"}`,
		`nothanks_requests_shed_total 0`,
	} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(res.Body, "/no/such/page") {
		t.Error("a raw path became a label")
	}
}

func bearer(t *testing.T, s *apptest.Server, path, token string) *apptest.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return s.Client().Do(req)
}

func TestGzipForTextNotForStreams(t *testing.T) {
	s := apptest.New(t)
	a := s.APIFor("Zipper")
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	get := func(path string, accept string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("Accept-Encoding", accept)
		req.Header.Set("Authorization", "Bearer "+a.Token)
		// A transport of its own: the default one would unzip by itself.
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	src, _ := s.Client().Get("/").Doc().Find(`script[src*="htmx.min"]`).Attr("src")
	vary := func(res *http.Response) string { return strings.Join(res.Header.Values("Vary"), ", ") }
	// Pages from 1,400 bytes on; JSON from 8 KiB on (the OpenAPI document).
	for _, path := range []string{"/", src, "/docs/api", "/no/such/page", "/api/v1/openapi.json"} {
		res := get(path, "gzip, deflate")
		if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(vary(res), "Accept-Encoding") {
			t.Errorf("%s: Content-Encoding %q, Vary %q", path, res.Header.Get("Content-Encoding"), vary(res))
			res.Body.Close()
			continue
		}
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body, err := io.ReadAll(zr)
		res.Body.Close()
		if err != nil || len(body) < 100 {
			t.Errorf("%s: unzipped %d bytes, %v", path, len(body), err)
		}
		plain := get(path, "")
		plain.Body.Close()
		if plain.Header.Get("Content-Encoding") != "" || !strings.Contains(vary(plain), "Accept-Encoding") {
			t.Errorf("%s without Accept-Encoding: Content-Encoding %q, Vary %q", path, plain.Header.Get("Content-Encoding"), vary(plain))
		}
	}
	// A short answer is not worth compressing, but still varies.
	short := get(fmt.Sprintf("/api/v1/games/%d", id), "gzip")
	short.Body.Close()
	if short.Header.Get("Content-Encoding") != "" || !strings.Contains(vary(short), "Accept-Encoding") {
		t.Errorf("a short JSON answer: Content-Encoding %q, Vary %q", short.Header.Get("Content-Encoding"), vary(short))
	}
	stream := get(fmt.Sprintf("/games/%d/events", id), "gzip")
	defer stream.Body.Close()
	if ct := stream.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || stream.Header.Get("Content-Encoding") != "" {
		t.Errorf("event stream: Content-Type %q, Content-Encoding %q", ct, stream.Header.Get("Content-Encoding"))
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(stream.Body, buf); err != nil || string(buf) != "event" {
		t.Errorf("event stream starts %q, %v", buf, err)
	}
}
