package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
	"nothanks/internal/engine"
)

// TestBrowserPuzzleByKeyboard solves puzzles as a visitor and as a
// member with the keys the table uses (T takes, N passes), from the
// puzzles' page to the outcome, at a desktop's width and a phone's.
func TestBrowserPuzzleByKeyboard(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	// A finished game of three people who take every card, the first
	// being 35 with nothing on it: passing it is a puzzle (worked out in
	// internal/handlers' TestPuzzleFromAHandBuiltPosition).
	ps := []*apptest.API{s.APIFor("Ann"), s.APIFor("Ben"), s.APIFor("Cas")}
	seed := apptest.SeedTurningUp(t, engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}, 35)
	s.App.Games.Seeds = func() (int64, error) { return seed, nil }
	_, g := ps[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	for _, p := range ps[1:] {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
	}
	s.App.Games.Seeds = nil
	for done := false; !done; {
		done = true
		for _, p := range ps {
			_, view := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
			if view["status"] == "finished" {
				break
			}
			done = false
			if view["your_turn"] == true {
				p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": view["view"].(map[string]any)["version"]})
			}
		}
	}
	if n, err := s.App.Puzzles.RunOnce(t.Context()); err != nil || n == 0 {
		t.Fatalf("mining found %d puzzles (%v)", n, err)
	}

	browser := newBrowser(t)
	solve := func(ctx context.Context, shot string) {
		t.Helper()
		do(t, ctx, chromedp.Navigate(s.URL+"/puzzles"), chromedp.WaitVisible(byTestID("puzzles-page")))
		screenshot(t, ctx, shot+"-start")
		do(t, ctx, chromedp.Click(byTestID("puzzle-start")), chromedp.WaitVisible(byTestID("puzzle")))
		screenshot(t, ctx, shot+"-open")
		for step := 1; ; step++ {
			if step > 4 {
				t.Fatal("the puzzle did not end in 3 steps")
			}
			if get(t, ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="puzzle-outcome"]')`)) {
				break
			}
			key := "n"
			if get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="answer-pass"]').disabled`)) {
				key = "t"
			}
			before := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="puzzle"]').dataset.step`))
			do(t, ctx, chromedp.KeyEvent(key))
			// The answer swaps the board in place: a new step or the outcome.
			get(t, ctx, chromedp.Poll[bool](fmt.Sprintf(`!!document.querySelector('[data-testid="puzzle-outcome"]') || document.querySelector('[data-testid="puzzle"]').dataset.step !== %q`, before), chromedp.WithPollingTimeout(10*time.Second)))
		}
		screenshot(t, ctx, shot+"-outcome")
		do(t, ctx, chromedp.EmulateViewport(390, 844))
		if wide := get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); wide {
			t.Errorf("%s: the outcome is wider than a phone's screen", shot)
		}
		screenshot(t, ctx, shot+"-outcome-phone")
		do(t, ctx, chromedp.EmulateReset())
		if strings.Contains(get(t, ctx, chromedp.Location()), "/games/") {
			t.Error("the puzzle left its page")
		}
	}

	visitor := newUser(t, browser)
	solve(visitor, "puzzle-visitor")
	if get(t, visitor, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="puzzle-change"]')`)) {
		t.Error("a visitor's outcome shows a rating change")
	}

	member := newUser(t, browser)
	register(t, member, s.URL, "Dot")
	solve(member, "puzzle-member")
	change := textOf(t, member, byTestID("puzzle-change"))
	if !strings.Contains(change, "1500 →") {
		t.Errorf("the member's change: %q", change)
	}
	// The profile now shows the rating and the puzzle tried.
	do(t, member, chromedp.Navigate(s.URL+"/u/Dot"), chromedp.WaitVisible(byTestID("profile-puzzles")))
	screenshot(t, member, "puzzle-profile")
	if n := get(t, member, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="puzzle-attempt"]').length`)); n != 1 {
		t.Errorf("the profile lists %d puzzles", n)
	}
}
