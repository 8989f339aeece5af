package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// A player who leaves the table for another site is not at the table any
// more, even though the browser keeps the page to come back to (the
// back/forward cache, which kept the page's stream open and the player
// counted at the table, so that no "your turn" push or mail went out).
// Coming back, the page loads afresh with its stream.
func TestBrowserLeavingTheTableClosesItsStream(t *testing.T) {
	s := apptest.New(t)
	ann := newUser(t, newBrowser(t))
	register(t, ann, s.URL, "Ann")
	id, _ := joinCorrespondenceTable(t, s, ann)
	waitAtTable(t, s, "Ann", id, true)

	do(t, ann, chromedp.Navigate("about:blank"))
	waitAtTable(t, s, "Ann", id, false)

	do(t, ann, chromedp.NavigateBack(), chromedp.WaitVisible(byTestID("active-card")))
	waitFor(t, ann, `performance.getEntriesByType("navigation")[0].type === "reload"`)
	do(t, ann, chromedp.WaitVisible(byTestID("active-card")))
	waitAtTable(t, s, "Ann", id, true)
}

// joinCorrespondenceTable has the tab's player join, from the table's page,
// a correspondence table of three that Bea opened and Cid joined; the game
// starts. It returns the game and Bea's and Cid's API clients.
func joinCorrespondenceTable(t *testing.T, s *apptest.Server, tab context.Context) (int64, []*apptest.API) {
	t.Helper()
	bea, cid := s.APIFor("Bea"), s.APIFor("Cid")
	_, g := bea.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400})
	id := int64(g["id"].(float64))
	if st, _ := cid.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
		t.Fatal("Cid joins")
	}
	do(t, tab, chromedp.Navigate(fmt.Sprintf("%s/games/%d", s.URL, id)), chromedp.WaitVisible(byTestID("join")))
	click(t, tab, byTestID("join"))
	do(t, tab, chromedp.WaitVisible(byTestID("active-card")))
	return id, []*apptest.API{bea, cid}
}

// waitAtTable waits until the server counts a player at a game's table (a
// page of it with its stream open to some instance), or no longer does.
func waitAtTable(t *testing.T, s *apptest.Server, name string, gameID int64, want bool) {
	t.Helper()
	ctx := context.Background()
	u, err := s.Store.UserByName(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := s.App.Watch.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		open, err := s.Store.HasOpenStream(ctx, u.ID, gameID, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if open == want {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the server counts %s at the table of game %d: %v, want %v", name, gameID, open, want)
		}
	}
}
