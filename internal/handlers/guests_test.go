package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// "Play a bot game now" without an account: a guest plays bots at once,
// cannot join people's tables, create games or play ranked, can register
// afterwards and keep the game; guests who never register are deleted with
// their games after a week.
func TestGuestPlayAndRegisterAfterwards(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	res := c.PostForm("/play", url.Values{})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/games/") {
		t.Fatalf("play now: %d to %q", res.Status, res.Header.Get("Location"))
	}
	gamePath := res.Header.Get("Location")
	table := c.Follow(res)
	if !table.Has("active-card") || table.Doc().Find(`[data-testid="seat"]`).Length() != 3 {
		t.Fatalf("the guest's table: active card %v, %d seats", table.Has("active-card"), table.Doc().Find(`[data-testid="seat"]`).Length())
	}
	guestName := strings.TrimSpace(strings.TrimSuffix(table.TestID("nav-user"), "guest"))
	if !strings.HasPrefix(guestName, "Guest-") {
		t.Fatalf("the guest is called %q", guestName)
	}
	// A guest's name logs nobody in, whatever the password.
	if res := s.Client().PostForm("/login", url.Values{"login": {guestName}, "password": {"!"}}); res.Status != http.StatusUnauthorized {
		t.Errorf("logging in as a guest: %d", res.Status)
	}

	// People's tables, new games and the ranked queue are for members.
	host := s.APIFor("Hostess")
	_, g := host.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60})
	other := int64(g["id"].(float64))
	for _, p := range []struct{ method, path string }{
		{http.MethodPost, fmt.Sprintf("/games/%d/join", other)}, {http.MethodGet, "/games/new"},
		{http.MethodPost, "/games"}, {http.MethodGet, "/ranked"}, {http.MethodGet, "/settings"},
	} {
		var r *apptest.Response
		if p.method == http.MethodGet {
			r = c.Get(p.path)
		} else {
			r = c.PostForm(p.path, url.Values{})
		}
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/register" {
			t.Errorf("a guest at %s %s: %d to %q", p.method, p.path, r.Status, r.Header.Get("Location"))
		}
	}
	_, lobby := host.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", other), nil)
	if n := len(lobby["players"].([]any)); n != 1 {
		t.Errorf("the people's table has %d players after the guest tried to join", n)
	}

	// Registering keeps the account and its game.
	form := c.Get("/register")
	if !form.Has("guest-register") {
		t.Error("the register page does not speak to the guest")
	}
	res = c.PostForm("/register", url.Values{"username": {"Guest-Fake"}, "email": {"kept@example.com"}, "password": {apptest.Password}, "confirm": {apptest.Password}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Errorf("registering a Guest- name: %d", res.Status)
	}
	res = c.PostForm("/register", url.Values{"username": {"Kept"}, "email": {"kept@example.com"}, "password": {apptest.Password}, "confirm": {apptest.Password}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("register as the guest: %d", res.Status)
	}
	mine := c.Get("/my/games")
	if !strings.Contains(mine.Body, gamePath+`"`) {
		t.Errorf("the guest's game is not among Kept's games")
	}
	if c.Get(gamePath).TestID("nav-user") != "Kept" {
		t.Error("the table does not show the registered name")
	}
	if res := s.Client().Login("Kept", apptest.Password); res.Status != http.StatusSeeOther {
		t.Errorf("the registered guest cannot log in: %d", res.Status)
	}

	// A guest who never registers is gone after a week, with their game.
	c2 := s.Client()
	res = c2.PostForm("/play", url.Values{})
	stale := res.Header.Get("Location")
	s.Clock.Advance(8 * 24 * time.Hour)
	if n, err := s.App.Accounts.DeleteStaleGuests(context.Background()); err != nil || n != 1 {
		t.Fatalf("deleted %d stale guests (%v), want 1", n, err)
	}
	if st := s.Client().Get(stale).Status; st != http.StatusNotFound {
		t.Errorf("the stale guest's game: %d, want 404", st)
	}
	if st := s.Client().Get(gamePath).Status; st != http.StatusOK {
		t.Errorf("the registered guest's game after the clean-up: %d", st)
	}
}
