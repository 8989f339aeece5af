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
	bea, cid := s.APIFor("Bea"), s.APIFor("Cid")
	_, g := bea.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400})
	id := int64(g["id"].(float64))
	if st, _ := cid.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
		t.Fatal("Cid joins")
	}
	do(t, ann, chromedp.Navigate(fmt.Sprintf("%s/games/%d", s.URL, id)), chromedp.WaitVisible(byTestID("join")))
	click(t, ann, byTestID("join"))
	do(t, ann, chromedp.WaitVisible(byTestID("active-card")))
	annUser, err := s.Store.UserByName(context.Background(), "Ann")
	if err != nil {
		t.Fatal(err)
	}
	atTable := func(want bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if err := s.App.Watch.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			open, err := s.Store.HasOpenStream(context.Background(), annUser.ID, id, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if open == want {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("the server counts Ann at her table: %v, want %v", open, want)
			}
		}
	}
	atTable(true)

	do(t, ann, chromedp.Navigate("about:blank"))
	atTable(false)

	do(t, ann, chromedp.NavigateBack(), chromedp.WaitVisible(byTestID("active-card")))
	waitFor(t, ann, `performance.getEntriesByType("navigation")[0].type === "reload"`)
	do(t, ann, chromedp.WaitVisible(byTestID("active-card")))
	atTable(true)
}
