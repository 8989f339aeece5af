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
)

// login logs a browser in as an account made through the API helpers.
func login(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(byTestID("input-login"), name),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.Click(byTestID("login-submit")),
		chromedp.WaitVisible(byTestID("nav-user")),
	)
}

// waitPath waits until a tab's address satisfies ok (the page may be
// navigating meanwhile), returning it.
func waitPath(ctx context.Context, within time.Duration, ok func(path string) bool) (string, bool) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		loc, err := chromedp.Run(c, chromedp.Location())
		cancel()
		if err == nil {
			if i := strings.Index(loc, "//"); i >= 0 {
				if j := strings.Index(loc[i+2:], "/"); j >= 0 && ok(loc[i+2+j:]) {
					return loc[i+2+j:], true
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", false
}

// An arena in the browser: three players join from its page (the form,
// the countdown), and when it starts each is taken to their table by
// itself; a visitor on the page watches the standings and the featured
// table change live, without reloading; pages checked at a phone's width
// as players and as a spectator, and saved for review.
func TestBrowserArena(t *testing.T) {
	s := apptest.New(t)
	host := s.APIFor("Hostie")
	if err := s.App.Moderation.Grant(context.Background(), "Hostie", true); err != nil {
		t.Fatal(err)
	}
	st, res := host.Do(http.MethodPost, "/api/v1/tournaments", map[string]any{"kind": "arena", "name": "Browser arena", "description": "A quick one.\nBring friends.",
		"table_size": 3, "minutes": 20, "game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": 50,
		"starts_at": time.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, res)
	}
	id := int64(res["tournament"].(map[string]any)["id"].(float64))
	page := fmt.Sprintf("%s/tournaments/%d", s.URL, id)
	names := []string{"Anya", "Boris", "Cyrus"}
	var apis []*apptest.API
	for _, n := range names {
		apis = append(apis, s.APIFor(n))
	}
	browser := newBrowser(t)
	var players []context.Context
	for i, n := range names {
		ctx := newUser(t, browser)
		login(t, ctx, s.URL, n)
		do(t, ctx, chromedp.Navigate(page), chromedp.WaitVisible(byTestID("tournament-join")))
		if i == 0 {
			// The page's script fills the countdown in once it has run.
			waitFor(t, ctx, `(document.querySelector('[data-testid="tournament-countdown"]')?.textContent || "").trim() !== ""`)
			if cd := textOf(t, ctx, byTestID("tournament-countdown")); !strings.Contains(cd, ":") {
				t.Errorf("the countdown to the start reads %q, want minutes:seconds", cd)
			}
			screenshot(t, ctx, "tournament-upcoming")
		}
		click(t, ctx, byTestID("tournament-join"))
		do(t, ctx, chromedp.WaitVisible(byTestID("me-status")))
		players = append(players, ctx)
	}
	watcher := newUser(t, browser)
	do(t, watcher, chromedp.Navigate(page), chromedp.WaitVisible(byTestID("standings")))
	waitFor(t, watcher, `document.querySelectorAll('[data-testid="standing-row"]').length === 3`)
	// Start it now: the worker finds it within seconds.
	if _, err := s.Store.DB.Exec(`UPDATE tournaments SET starts_at = now(), due_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for i, ctx := range players {
		if _, ok := waitPath(ctx, 20*time.Second, func(p string) bool { return strings.HasPrefix(p, "/games/") }); !ok {
			t.Fatalf("%s was not taken to their table: still at %s", names[i], get(t, ctx, chromedp.Location()))
		}
		do(t, ctx, chromedp.WaitVisible(byTestID("tournament-badge")))
	}
	// The visitor's page shows the featured table live, and its status.
	do(t, watcher, chromedp.WaitVisible(`#featured #board`))
	waitText(t, watcher, "tournament-status", "Running")
	screenshot(t, watcher, "tournament-running-spectator")
	do(t, watcher, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	screenshot(t, watcher, "tournament-running-spectator-phone")
	if wide := get(t, watcher, chromedp.Evaluate[string](overflowing)); wide != "" {
		t.Errorf("the running tournament scrolls sideways at 390 px: %s", wide)
	}
	do(t, watcher, chromedp.EmulateViewport(1280, 900))
	gameURL := get(t, players[0], chromedp.Location())
	var game int64
	fmt.Sscanf(gameURL[strings.LastIndex(gameURL, "/")+1:], "%d", &game)
	apptest.PlayOut(t, apis, game)
	// Without a reload, the standings show the game's points: a table of
	// three shares 2 + 1 + 0 = 3 points whatever the ties (two tied first
	// share 1½ each), so the sum is checked, not a winner's 2.
	c, cancel := context.WithTimeout(watcher, 20*time.Second)
	_, err := chromedp.Run(c, chromedp.Poll[bool](`[...document.querySelectorAll('[data-testid="standing-points"]')].
		map(e => e.textContent.trim()).map(s => parseInt(s.replace("½", "") || "0", 10) + (s.includes("½") ? 0.5 : 0)).
		reduce((a, b) => a + b, 0) === 3`))
	cancel()
	if err != nil {
		t.Fatalf("the standings did not show the game's 3 points without a reload: %q", textOf(t, watcher, byTestID("standings")))
	}
	if rows := get(t, watcher, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="standing-row"] .result').length`)); rows != 3 {
		t.Errorf("%d results in the standings after one game of three, want 3", rows)
	}
	// The players' finished tables take them on to their next table.
	for i, ctx := range players {
		if _, ok := waitPath(ctx, 20*time.Second, func(p string) bool { return strings.HasPrefix(p, "/games/") && p != fmt.Sprintf("/games/%d", game) }); !ok {
			t.Errorf("%s was not taken to their next table", names[i])
		}
	}
	do(t, players[0], chromedp.Navigate(page), chromedp.WaitVisible(byTestID("standings")))
	screenshot(t, players[0], "tournament-running-player")
	// At a phone's width (touch emulation and a reload hang chromedp on
	// this page while its streams are open; the tour reloads the tournament
	// pages at 390 px with touch).
	do(t, players[0], chromedp.EmulateViewport(390, 844))
	alive := get(t, players[0], chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="standings"]')`))
	if !alive {
		t.Error("the tournament page lost its standings")
	}
	screenshot(t, players[0], "tournament-running-player-phone")
	if wide := get(t, players[0], chromedp.Evaluate[string](overflowing)); wide != "" {
		t.Errorf("the player's tournament page scrolls sideways at 390 px: %s", wide)
	}
}

// /tv shows the public game in play whose players are rated highest, and
// moves on by itself to the next when it ends, the watcher staying on /tv.
func TestBrowserTVMovesOn(t *testing.T) {
	s := apptest.New(t)
	top := []*apptest.API{s.APIFor("Tops1"), s.APIFor("Tops2"), s.APIFor("Tops3")}
	low := []*apptest.API{s.APIFor("Lows1"), s.APIFor("Lows2"), s.APIFor("Lows3")}
	if _, err := s.Store.DB.Exec(`UPDATE users SET rating = 1900 WHERE username LIKE 'Tops%'`); err != nil {
		t.Fatal(err)
	}
	start := func(ps []*apptest.API) int64 {
		_, g := ps[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
		id := int64(g["id"].(float64))
		for _, p := range ps[1:] {
			p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
		}
		return id
	}
	a, b := start(top), start(low)
	ctx := newUser(t, newBrowser(t))
	do(t, ctx, chromedp.Navigate(s.URL+"/tv"), chromedp.WaitVisible(byTestID("tv-game")))
	if got := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="tv-game"]').dataset.game`)); got != fmt.Sprint(a) {
		t.Fatalf("/tv shows game %s, want the top players' game %d", got, a)
	}
	screenshot(t, ctx, "tv")
	apptest.PlayOut(t, top, a)
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('[data-testid="tv-game"]')?.dataset.game === "%d"`, b))); err != nil {
		t.Fatalf("/tv did not move on to game %d after game %d ended", b, a)
	}
	if loc := get(t, ctx, chromedp.Location()); !strings.HasSuffix(loc, "/tv") {
		t.Errorf("the watcher left /tv for %s", loc)
	}
	do(t, ctx, chromedp.WaitVisible(`#tv #board`))
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	screenshot(t, ctx, "tv-phone")
	if wide := get(t, ctx, chromedp.Evaluate[string](overflowing)); wide != "" {
		t.Errorf("/tv scrolls sideways at 390 px: %s", wide)
	}
}

// A player away from the event's pages (in Settings here) learns that
// their table is ready from a banner with a link and from the page's
// title, marked as a turn marks it, so that a tab in the background says
// so too.
func TestBrowserTableReadyMarksTheTitle(t *testing.T) {
	s := apptest.New(t)
	var ps []*apptest.API
	for _, n := range []string{"Host", "Dora", "Emil"} {
		p := s.APIFor(n)
		if _, err := s.Store.VerifyEmail(context.Background(), p.ID, strings.ToLower(n)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	st, res := ps[0].Do(http.MethodPost, "/api/v1/tournaments", map[string]any{"kind": "swiss", "name": "Evening Swiss", "table_size": 3, "rounds": 3,
		"game_rounds": 1, "variant": "standard", "pace": "correspondence", "turn_seconds": 24 * 3600, "max_players": 10,
		"starts_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, res)
	}
	id := int64(res["tournament"].(map[string]any)["id"].(float64))
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	ctx := newUser(t, newBrowser(t))
	login(t, ctx, s.URL, "Dora")
	do(t, ctx, chromedp.Navigate(s.URL+"/settings"), chromedp.WaitVisible(byTestID("push-subscribe")))
	if title := get(t, ctx, chromedp.Title()); strings.Contains(title, "(Your table is ready)") {
		t.Fatalf("the title is marked before the start: %q", title)
	}
	if _, err := s.Store.DB.Exec(`UPDATE tournaments SET starts_at = now(), due_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.WaitVisible(byTestID("notice")))
	var game int64
	if err := s.Store.DB.Get(&game, `SELECT g.id FROM games g JOIN game_seats st ON st.game_id = g.id WHERE g.tournament_id = $1 AND st.user_id = $2`, id, ps[1].ID); err != nil {
		t.Fatal(err)
	}
	if text := textOf(t, ctx, byTestID("notice")); !strings.Contains(text, fmt.Sprintf("Your table is ready: game #%d.", game)) {
		t.Errorf("the banner reads %q", text)
	}
	if href := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="notice"] a').getAttribute("href")`)); href != fmt.Sprintf("/games/%d", game) {
		t.Errorf("the banner links to %q", href)
	}
	waitFor(t, ctx, `document.title.includes("(Your table is ready) Settings")`)
	// Her turn (if the seating put her first) marks it as well, once.
	title := get(t, ctx, chromedp.Title())
	if strings.Count(title, "(Your table is ready)") != 1 || strings.Count(title, "(Your turn)") > 1 {
		t.Errorf("the title reads %q", title)
	}
	screenshot(t, ctx, "tournament-table-ready-banner")
}
