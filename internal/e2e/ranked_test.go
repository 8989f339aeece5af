package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// TestBrowserProfileChartAndLadder finishes ranked games through the API and
// looks at a profile and the ladder in the browser.
func TestBrowserProfileChartAndLadder(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Kestrel"), s.APIFor("Heron"), s.APIFor("Osprey")}
	for range 3 {
		_, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "ranked": true, "pace": "live", "turn_seconds": 60})
		id := int64(g["id"].(float64))
		for _, p := range players[1:] {
			p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
		}
		for done := false; !done; {
			for _, p := range players {
				_, view := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
				if view["status"] == "finished" {
					done = true
					break
				}
				if view["your_turn"] == true {
					v := view["view"].(map[string]any)
					kind := "take"
					if v["pot"].(float64) < 2 && len(v["legal"].([]any)) > 1 {
						kind = "pass"
					}
					p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, kind), map[string]any{"version": v["version"]})
				}
			}
		}
	}
	ctx := newUser(t, newBrowser(t))
	do(t, ctx, chromedp.Navigate(s.URL+"/u/Kestrel"), chromedp.WaitVisible(byTestID("rating-chart")))
	dots := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="rating-chart"] circle').length`))
	if dots != 3 {
		t.Errorf("the chart shows %d games, want 3", dots)
	}
	screenshot(t, ctx, "profile")
	do(t, ctx, chromedp.Navigate(s.URL+"/ladder"), chromedp.WaitVisible(byTestID("provisional")))
	screenshot(t, ctx, "ladder")
}
