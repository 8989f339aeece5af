package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// register signs a new user up in a browser context.
func register(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(base+"/register"),
		chromedp.SendKeys(byTestID("input-username"), name),
		chromedp.SendKeys(byTestID("input-email"), strings.ToLower(name)+"@example.com"),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.SendKeys(byTestID("input-confirm"), apptest.Password),
		chromedp.Click(byTestID("register-submit")),
		chromedp.WaitVisible(byTestID("nav-user")),
	)
}

// boardVersion reads the version of the board a tab shows.
func boardVersion(t *testing.T, ctx context.Context) int {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[int](`Number(document.getElementById("board").dataset.version)`))
}

// waitVersion waits until a tab's board shows at least version v, without
// any reload: only the event stream can bring it.
func waitVersion(t *testing.T, ctx context.Context, v int) {
	t.Helper()
	get(t, ctx, chromedp.Poll[bool](fmt.Sprintf(`Number(document.getElementById("board").dataset.version) >= %d`, v),
		chromedp.WithPollingTimeout(10*time.Second)))
}

func TestBrowserThreePlayersAndASpectator(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)
	names := []string{"Ada", "Bea", "Cyd"}
	players := make([]context.Context, 3)
	for i, name := range names {
		players[i] = newUser(t, browser)
		register(t, players[i], s.URL, name)
	}

	// Ada creates a 3-seat game; Bea and Cyd join from the open games list.
	do(t, players[0],
		chromedp.Navigate(s.URL+"/games/new"),
		chromedp.SetValue(byTestID("input-seats"), "3"),
		chromedp.SetValue(byTestID("input-rounds"), "1"),
		chromedp.Click(byTestID("create-submit")),
		chromedp.WaitVisible(byTestID("lobby")),
	)
	loc := get(t, players[0], chromedp.Location())
	gameURL := loc[:strings.Index(loc, "/games/")] + loc[strings.Index(loc, "/games/"):]

	spectator := newUser(t, browser)
	do(t, spectator, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("lobby")))

	for _, p := range players[1:] {
		do(t, p,
			chromedp.Navigate(s.URL+"/games"),
			chromedp.Click(chromedp.CSS(`[data-testid="game-row"] a`)),
			chromedp.WaitVisible(byTestID("join")),
		)
		click(t, p, byTestID("join"))
	}
	// The table is full, so the game starts; every page (the spectator's
	// too) turns from lobby to table by itself.
	for _, ctx := range append(players, spectator) {
		do(t, ctx, chromedp.WaitVisible(byTestID("active-card")))
	}

	shot, misses := false, 0
	for moves := 0; ; moves++ {
		if moves > 400 {
			t.Fatal("the game did not end in 400 moves")
		}
		if get(t, spectator, chromedp.Evaluate[string](`document.getElementById("board").dataset.status`)) == "finished" {
			break
		}
		turn := -1
		for i, p := range players {
			if get(t, p, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="action-take"]')`)) {
				turn = i
				break
			}
		}
		if turn < 0 {
			time.Sleep(50 * time.Millisecond) // a board is on its way
			continue
		}
		p := players[turn]
		before := boardVersion(t, spectator)
		pot := get(t, p, chromedp.Evaluate[int](`Number(document.querySelector('[data-testid="pot"]').textContent)`))
		canPass := get(t, p, chromedp.Evaluate[bool](`!document.querySelector('[data-testid="action-pass"]').disabled`))
		button := "action-take"
		if canPass && pot < 2 {
			button = "action-pass"
		}
		// A stream may swap in a fresh board (same version, say a new
		// watcher count) between finding the button and clicking it; then
		// the click misses, and the loop looks again.
		clickCtx, cancel := context.WithTimeout(p, 5*time.Second)
		err := chromedp.Do(clickCtx, chromedp.Click(byTestID(button)))
		cancel()
		if err != nil {
			t.Logf("move %d: click missed (%v); looking again", moves, err)
			continue
		}
		// A click on a board swapped out under it lands on nothing and
		// raises no error; then the version stays, and the loop looks again
		// (a few times in a row means the stream itself is stuck).
		waitCtx, cancel := context.WithTimeout(spectator, 10*time.Second)
		_, err = chromedp.Run(waitCtx, chromedp.Poll[bool](fmt.Sprintf(`Number(document.getElementById("board").dataset.version) >= %d`, before+1)))
		cancel()
		if err != nil {
			if misses++; misses > 3 {
				t.Fatalf("move %d: the spectator's board stayed at version %d after %d clicks", moves, before, misses)
			}
			t.Logf("move %d: no new board after the click (%v); looking again", moves, err)
			continue
		}
		misses = 0
		if moves == 20 && !shot {
			screenshot(t, p, "table-mid-game")
			screenshot(t, spectator, "table-spectator")
			// The same table on a phone: nothing may overflow sideways.
			do(t, p, chromedp.EmulateViewport(390, 844))
			if wide := get(t, p, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); wide {
				t.Error("the table is wider than a phone's screen")
			}
			screenshot(t, p, "table-phone")
			do(t, p, chromedp.EmulateReset())
			shot = true
		}
	}
	for _, p := range append(players, spectator) {
		do(t, p, chromedp.WaitVisible(byTestID("standings")))
	}
	screenshot(t, players[0], "table-finished")
	first := textOf(t, spectator, chromedp.CSS(`[data-testid="standing-place"]`))
	if first != "1st" {
		t.Errorf("the standings start with %q", first)
	}
	// The spectator never saw a token count or a player's controls.
	html := get(t, spectator, chromedp.OuterHTML(chromedp.CSS("html")))
	if strings.Contains(html, `data-testid="my-tokens"`) || strings.Contains(html, `data-testid="action-take"`) {
		t.Error("the spectator's page shows a player's tokens or controls")
	}
}
