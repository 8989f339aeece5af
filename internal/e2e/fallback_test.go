package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// TestBrowserCatchesUpWhenTheStreamDrops cuts every event stream of the
// server and keeps them cut, then moves: the spectator's page must still
// show the move, by reconnecting or by polling, without a reload.
func TestBrowserCatchesUpWhenTheStreamDrops(t *testing.T) {
	s := apptest.New(t)
	api := s.APIFor("Dropper")
	_, g := api.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
	id := int64(g["id"].(float64))
	// Two bots that never get to move: the human starts or the bots play
	// until the human's turn; either way the table waits for the human.
	api.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "heuristic"})
	api.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "heuristic"})
	// The bots move in the background; on a busy machine that takes a
	// while, so the wait is by the clock, not by a number of reads.
	var view map[string]any
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, view = api.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		if view["your_turn"] == true {
			break
		}
	}
	if view["your_turn"] != true {
		t.Fatal("the human never got the turn")
	}
	ctx := newUser(t, newBrowser(t))
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/games/%d", s.URL, id)), chromedp.WaitVisible(byTestID("active-card")))
	before := boardVersion(t, ctx)

	s.App.Watch.Close() // every stream ends now, and new ones end at once
	version := view["view"].(map[string]any)["version"]
	if st, body := api.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": version}); st != http.StatusOK {
		t.Fatalf("take: %d %v", st, body)
	}
	waitVersion(t, ctx, before+1)
}
