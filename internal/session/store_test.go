package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gorilla/securecookie"

	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/session"
)

func newStore(t *testing.T) (*session.Store, *clock.Fake, *db.Store) {
	rows := dbtest.New(t)
	clk := clock.NewFake(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	s, err := session.New(rows, session.Config{HashKey: securecookie.GenerateRandomKey(64), Idle: time.Hour, Lifetime: 24 * time.Hour}, clk)
	if err != nil {
		t.Fatal(err)
	}
	return s, clk, rows
}

// login saves a session for user 1 and returns its cookie.
func login(t *testing.T, s *session.Store, rows *db.Store) *http.Cookie {
	u, err := rows.CreateUser(context.Background(), "u", "u@example.com", "h", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	rec := httptest.NewRecorder()
	sess, _ := s.Get(req, s.Name())
	sess.Values[session.UserKey] = u.ID
	sess.Values["note"] = "kept"
	if err := sess.Save(req, rec); err != nil {
		t.Fatal(err)
	}
	return rec.Result().Cookies()[0]
}

func load(t *testing.T, s *session.Store, c *http.Cookie) map[any]any {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(c)
	sess, err := s.Get(req, s.Name())
	if err != nil {
		t.Fatal(err)
	}
	if sess.IsNew {
		return nil
	}
	return sess.Values
}

func TestSessionRoundTrip(t *testing.T) {
	s, _, rows := newStore(t)
	c := login(t, s, rows)
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
		t.Errorf("cookie attributes: %+v", c)
	}
	v := load(t, s, c)
	if v == nil || v["note"] != "kept" {
		t.Fatalf("values after reload: %v", v)
	}
	if _, ok := v[session.UserKey].(int64); !ok {
		t.Errorf("user id is %T", v[session.UserKey])
	}
}

func TestSessionIdleAndLifetime(t *testing.T) {
	s, clk, rows := newStore(t)
	c := login(t, s, rows)
	clk.Advance(50 * time.Minute)
	if load(t, s, c) == nil {
		t.Fatal("ended before the idle limit")
	}
	clk.Advance(50 * time.Minute) // used 50 min ago: still fine
	if load(t, s, c) == nil {
		t.Fatal("a session in use ended at the idle limit")
	}
	clk.Advance(61 * time.Minute)
	if load(t, s, c) != nil {
		t.Fatal("a session idle for 61 minutes still works")
	}

	c = login2(t, s)
	for range 30 {
		clk.Advance(50 * time.Minute)
		load(t, s, c)
	}
	if load(t, s, c) != nil {
		t.Fatal("a session in constant use outlived its 24-hour lifetime")
	}
}

func login2(t *testing.T, s *session.Store) *http.Cookie {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	rec := httptest.NewRecorder()
	sess, _ := s.Get(req, s.Name())
	sess.Values["x"] = "y"
	if err := sess.Save(req, rec); err != nil {
		t.Fatal(err)
	}
	return rec.Result().Cookies()[0]
}

func TestForgedCookieStartsAfresh(t *testing.T) {
	s, _, rows := newStore(t)
	c := login(t, s, rows)
	forged := *c
	forged.Value = c.Value[:len(c.Value)-2] + "AA"
	if load(t, s, &forged) != nil {
		t.Error("a forged cookie opened a session")
	}
	other, _, _ := newStore(t)
	if load(t, other, c) != nil {
		t.Error("a cookie signed with another key opened a session")
	}
}
