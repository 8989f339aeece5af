package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// passUntil makes the API players to move pass until neither is to move
// (the card has come round to the browser's player), and returns when.
func passUntil(t *testing.T, game int64, players ...*apptest.API) time.Time {
	t.Helper()
	for range 20 {
		moved := false
		for _, p := range players {
			_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil)
			if v["your_turn"] != true {
				continue
			}
			st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/pass", game), map[string]any{"version": v["version"]})
			if st != http.StatusOK {
				t.Fatalf("%s passes: %d %v", p.Name, st, body)
			}
			moved = true
		}
		if !moved {
			return time.Now()
		}
	}
	t.Fatal("the card never came round")
	return time.Time{}
}

// A game comes to a player who is on another page of the site: within 2
// seconds, without a reload, the title says "(Your turn)", the "My games"
// badge counts it and the icon gets its mark; when she has moved, they go.
func TestBrowserTurnComesWhileOnAnotherPage(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)
	ada := newUser(t, browser)
	register(t, ada, s.URL, "Ada")
	bea, cyd := s.APIFor("Bea"), s.APIFor("Cyd")
	st, g := bea.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, g)
	}
	id := int64(g["id"].(float64))
	if st, _ := cyd.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
		t.Fatalf("join: %d", st)
	}
	gameURL := fmt.Sprintf("%s/games/%d", s.URL, id)
	do(t, ada, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("join")))
	click(t, ada, byTestID("join"))
	do(t, ada, chromedp.WaitVisible(byTestID("active-card")))
	if get(t, ada, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="action-pass"]')`)) {
		click(t, ada, byTestID("action-pass"))
		get(t, ada, chromedp.Poll[bool](`!document.querySelector('[data-testid="action-pass"]')`, chromedp.WithPollingTimeout(5*time.Second)))
	}

	do(t, ada, chromedp.Navigate(s.URL+"/settings"), chromedp.WaitVisible(byTestID("alerts-form")))
	if title := get(t, ada, chromedp.Title()); strings.HasPrefix(title, "(Your turn)") {
		t.Fatalf("title before the turn came: %q", title)
	}
	if get(t, ada, chromedp.Evaluate[bool](`!document.getElementById("nav-my-turn").hidden`)) {
		t.Fatal("the badge shows before the turn came")
	}
	// Let the page's turn stream open before the turn comes.
	time.Sleep(300 * time.Millisecond)

	came := passUntil(t, id, bea, cyd)
	get(t, ada, chromedp.Poll[bool](`document.title.startsWith("(Your turn) Settings") &&
		!document.getElementById("nav-my-turn").hidden &&
		document.getElementById("nav-my-turn").textContent.trim() === "1" &&
		document.querySelector("link[rel=icon]").href.includes("favicon-turn")`,
		chromedp.WithPollingTimeout(2*time.Second)))
	t.Logf("the turn reached the other page %v after the move", time.Since(came).Round(time.Millisecond))
	screenshot(t, ada, "turn-on-another-page")

	// The start page lists the game as waiting, against the two others only.
	do(t, ada, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(byTestID("home-waiting")))
	if got := textOf(t, ada, byTestID("home-waiting")); !strings.Contains(got, "against") || !strings.Contains(got, "Bea") || !strings.Contains(got, "Cyd") || strings.Contains(got, "Ada") {
		t.Errorf("waiting list = %q", got)
	}

	// She moves at the table; the title and badge clear.
	do(t, ada, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("action-pass")))
	if title := get(t, ada, chromedp.Title()); !strings.HasPrefix(title, "(Your turn) Game #") {
		t.Errorf("title at the table on her turn: %q", title)
	}
	before := boardVersion(t, ada)
	click(t, ada, byTestID("action-pass"))
	waitVersion(t, ada, before+1)
	cleared := `!document.title.startsWith("(Your turn)") && document.getElementById("nav-my-turn").hidden`
	deadline := time.Now().Add(2 * time.Second)
	for !get(t, ada, chromedp.Evaluate[bool](cleared)) {
		if time.Now().After(deadline) {
			t.Fatalf("2 s after her move: title %q, badge %q hidden %v, board status %q",
				get(t, ada, chromedp.Title()), textOf(t, ada, byTestID("nav-my-turn")),
				get(t, ada, chromedp.Evaluate[bool](`document.getElementById("nav-my-turn").hidden`)),
				textOf(t, ada, byTestID("status")))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An invitation comes while the invitee reads her start page: the badge
// counts it (the title and icon stay, they are for turns), the start page
// lists it without a reload, and declining it clears the badge.
func TestBrowserInvitationComesLive(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)
	ida := newUser(t, browser)
	register(t, ida, s.URL, "Ida")
	hal := s.APIFor("Hal")
	_, g := hal.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	do(t, ida, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(byTestID("welcome")))
	if get(t, ida, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="invitation"]')`)) {
		t.Fatal("an invitation shows before it was sent")
	}
	time.Sleep(300 * time.Millisecond) // the page's stream opens

	if st, body := hal.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", id), map[string]any{"username": "Ida"}); st != http.StatusOK {
		t.Fatalf("invite: %d %v", st, body)
	}
	get(t, ida, chromedp.Poll[bool](`!document.getElementById("nav-my-turn").hidden &&
		document.getElementById("nav-my-turn").textContent.trim() === "1" &&
		document.getElementById("nav-my-turn-words").textContent.includes("1 invitation") &&
		(document.querySelector('[data-testid="invitation"]')?.textContent || "").includes("Hal invites you")`,
		chromedp.WithPollingTimeout(5*time.Second)))
	if title := get(t, ida, chromedp.Title()); strings.HasPrefix(title, "(Your turn)") {
		t.Errorf("an invitation is not a turn, but the title says %q", title)
	}
	screenshot(t, ida, "invitation-live")
	// My games lists it too; on a phone nothing runs off the screen.
	do(t, ida, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.URL+"/my/games"), chromedp.WaitVisible(byTestID("invitation")))
	if wide := get(t, ida, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > 391`)); wide {
		t.Error("My games with an invitation is wider than a phone's screen")
	}
	screenshot(t, ida, "invitation-my-games-phone")
	do(t, ida, chromedp.EmulateReset())
	click(t, ida, byTestID("invitation-decline"))
	do(t, ida, chromedp.WaitNotPresent(byTestID("invitation")), chromedp.WaitVisible(byTestID("welcome")))
	if !get(t, ida, chromedp.Evaluate[bool](`document.getElementById("nav-my-turn").hidden`)) {
		t.Errorf("the badge still shows after declining: %q", textOf(t, ida, byTestID("nav-my-turn")))
	}
}
