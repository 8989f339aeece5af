package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"nothanks/internal/apptest"
	"nothanks/internal/engine"
)

// createWithBots makes a live game of seats in the browser (the create
// form, then "Add bot" for every other seat); it starts when full.
func createWithBots(t *testing.T, ctx context.Context, base string, seats int, level string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(base+"/games/new"),
		chromedp.SetValue(byTestID("input-seats"), strconv.Itoa(seats)),
		chromedp.SetValue(byTestID("input-rounds"), "1"),
		chromedp.Click(byTestID("create-submit")),
		chromedp.WaitVisible(byTestID("lobby")),
	)
	for i := 1; i < seats; i++ {
		// Set in the page in one step: the stream may swap the lobby in
		// between a node's lookup and its use (chromedp's SetValue).
		get(t, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const s = document.querySelector('[data-testid="bot-level"]'); if (s) s.value = %q; return !!s; })()`, level)))
		click(t, ctx, byTestID("add-bot"))
		want := i + 1
		// A busy machine (CI runs the suites side by side) may take a few
		// seconds to seat a bot and bring the lobby over the stream.
		get(t, ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('[data-testid="lobby-seat"]').length >= %d || !!document.querySelector('[data-testid="active-card"]')`, want),
			chromedp.WithPollingTimeout(15*time.Second)))
	}
	do(t, ctx, chromedp.WaitVisible(byTestID("active-card")))
}

func potWords(n int) string {
	switch n {
	case 0:
		return "no tokens"
	case 1:
		return "1 token"
	}
	return fmt.Sprintf("%d tokens", n)
}

// A whole round played with the keyboard only: T and N on the player's
// turns, the focus kept at the table after every move (never dropped to
// the page), and the live region telling the bots' moves and what is now
// to do.
func TestBrowserKeyboardPlayAndLiveRegion(t *testing.T) {
	s := apptest.New(t)
	ctx := newUser(t, newBrowser(t))
	register(t, ctx, s.URL, "Kim")
	createWithBots(t, ctx, s.URL, 3, "heuristic")
	get(t, ctx, chromedp.Evaluate[bool](`window.samePage = true`))

	announced := 0
	var heard []string
	for moves := 0; ; moves++ {
		if moves > 200 {
			t.Fatal("the round did not end in 200 of Kim's moves")
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		state, err := chromedp.Run(pctx, chromedp.Poll[string](`(() => {
			const b = document.getElementById("board");
			if (b.dataset.status === "finished") return "finished";
			const btn = document.querySelector('[data-testid="action-take"]');
			return btn && !btn.disabled ? "turn" : "";
		})()`, chromedp.WithPollingTimeout(10*time.Second)))
		cancel()
		if err != nil {
			var version int
			_ = s.Store.DB.Get(&version, `SELECT version FROM games ORDER BY id DESC LIMIT 1`)
			t.Fatalf("move %d: neither the player's turn nor the end came (%v): the page shows version %d, status %q; the game is at version %d",
				moves, err, boardVersion(t, ctx), textOf(t, ctx, byTestID("status")), version)
		}
		if state == "finished" {
			break
		}
		// The player's turn: where is the focus, what did the live region say?
		if moves > 0 {
			active := get(t, ctx, chromedp.Evaluate[string](`(() => { const a = document.activeElement; return !a || a === document.body ? "body" : (a.dataset.testid || a.tagName); })()`))
			if active == "body" {
				t.Fatalf("move %d: the focus was lost to the page", moves)
			}
		}
		card := get(t, ctx, chromedp.Evaluate[int](`Number(document.querySelector('[data-testid="active-card"]').textContent)`))
		pot := get(t, ctx, chromedp.Evaluate[int](`Number(document.querySelector('[data-testid="pot"]').textContent)`))
		said := get(t, ctx, chromedp.Evaluate[string](`document.getElementById("announcer").textContent`))
		heard = append(heard, said)
		if moves > 0 && said != "" {
			want := fmt.Sprintf("Your turn: %d, %s on it.", card, potWords(pot))
			if !strings.HasSuffix(said, want) {
				t.Errorf("move %d: the live region says %q, want it to end with %q", moves, said, want)
			}
			if strings.Contains(said, " bot ") {
				announced++
			}
		}
		if label := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="active-card"]').getAttribute("aria-label")`)); label != fmt.Sprintf("Active card %d, %s on it", card, potWords(pot)) {
			t.Errorf("the active card's name is %q", label)
		}
		key := "t"
		if get(t, ctx, chromedp.Evaluate[bool](`!document.querySelector('[data-testid="action-pass"]').disabled`)) && pot < 3 {
			key = "n"
		}
		before := boardVersion(t, ctx)
		t.Logf("move %d: %s at version %d", moves, key, before)
		do(t, ctx, chromedp.KeyEvent(key))
		waitVersion(t, ctx, before+1)
		if moves == 3 {
			screenshot(t, ctx, "table-keyboard")
		}
	}
	if announced == 0 {
		t.Errorf("the live region never told a bot's move: %q", heard)
	}
	if !get(t, ctx, chromedp.Evaluate[bool](`window.samePage === true`)) {
		t.Error("a move loaded a new page instead of updating the table in place")
	}
}

// Seven players fit one desktop screen: every seat's top is within the
// first 800 pixels of a 1280 x 800 window.
func TestBrowserSevenPlayersFitTheScreen(t *testing.T) {
	s := apptest.New(t)
	ctx := newUser(t, newBrowser(t))
	do(t, ctx, chromedp.EmulateViewport(1280, 800))
	register(t, ctx, s.URL, "Sev")
	createWithBots(t, ctx, s.URL, 7, "heuristic")
	tops := get(t, ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll('[data-testid="seat"]')].map(e => e.getBoundingClientRect().top + window.scrollY)`))
	if len(tops) != 7 {
		t.Fatalf("%d seats shown", len(tops))
	}
	for i, top := range tops {
		if top >= 800 {
			t.Errorf("seat %d starts at %.0f px, below the first screen", i+1, top)
		}
	}
	screenshot(t, ctx, "table-7-players")
}

// longRunSeed finds a seed whose deals, for the options, each hold a run of
// at least n consecutive cards in the deck.
func longRunSeed(t *testing.T, o engine.Options, n int) uint64 {
	t.Helper()
	for seed := uint64(1); seed < 2_000_000; seed++ {
		ok := true
		for _, d := range engine.SetupFromSeed(o, seed).Deals {
			if longestRun(d.Deck) < n {
				ok = false
				break
			}
		}
		if ok {
			return seed
		}
	}
	t.Fatal("no seed with long runs")
	return 0
}

func longestRun(cards []int) int {
	c := slices.Sorted(slices.Values(cards))
	best, run := 0, 0
	for i := range c {
		if i > 0 && c[i] == c[i-1]+1 {
			run++
		} else {
			run = 1
		}
		best = max(best, run)
	}
	return best
}

var cardRe = regexp.MustCompile(`\d+`)

// A round where one player takes every card: the round-end summary shows
// every player's cards and the 9 removed cards (the 33 less the 24 taken),
// and a 12-card run wraps on a phone without widening the page.
func TestBrowserRoundSummaryAndLongRunsOnAPhone(t *testing.T) {
	s := apptest.New(t)
	players := []*apptest.API{s.APIFor("Ann"), s.APIFor("Ben"), s.APIFor("Cal")}
	st, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 2, "pace": "live", "turn_seconds": 300})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, g)
	}
	id := int64(g["id"].(float64))
	seed := longRunSeed(t, engine.Options{Players: 3, Rounds: 2, Variant: engine.Standard}, 12)
	if _, err := s.Store.DB.Exec(`UPDATE games SET seed = $1 WHERE id = $2`, int64(seed), id); err != nil {
		t.Fatal(err)
	}
	for _, p := range players[1:] {
		if st, _ := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d", st)
		}
	}
	// Whoever is to move takes, until the round is over: the starting
	// player takes all 24 cards.
	takeRound := func(round int) {
		for range 100 {
			for _, p := range players {
				_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
				view := v["view"].(map[string]any)
				if v["status"] == "finished" || int(view["round"].(float64)) > round {
					return
				}
				if v["your_turn"] == true {
					if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": v["version"]}); st != http.StatusOK {
						t.Fatalf("take: %d %v", st, body)
					}
				}
			}
		}
		t.Fatal("the round did not end")
	}
	takeRound(1)

	phone := newUser(t, newBrowser(t))
	do(t, phone, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	do(t, phone, chromedp.Navigate(fmt.Sprintf("%s/games/%d", s.URL, id)), chromedp.WaitVisible(byTestID("round-end")))
	rows := get(t, phone, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="round-end-cards"]')].map(e => e.textContent.replace(/^.*: /, ""))`))
	if len(rows) != 3 {
		t.Fatalf("%d rows in the round summary", len(rows))
	}
	taken := map[int]bool{}
	for _, r := range rows {
		for _, part := range strings.Split(r, ", ") {
			if part == "no cards" {
				continue
			}
			lo, hi, found := strings.Cut(part, " to ")
			a, _ := strconv.Atoi(lo)
			b := a
			if found {
				b, _ = strconv.Atoi(hi)
			}
			for c := a; c <= b; c++ {
				taken[c] = true
			}
		}
	}
	if len(taken) != 24 {
		t.Fatalf("the summary shows %d cards taken, want 24: %v", len(taken), rows)
	}
	var want []string
	for c := 3; c <= 35; c++ {
		if !taken[c] {
			want = append(want, strconv.Itoa(c))
		}
	}
	shown := cardRe.FindAllString(strings.TrimPrefix(textOf(t, phone, byTestID("removed-cards")), "The 9 cards out of this round:"), -1)
	if !slices.Equal(shown, want) {
		t.Errorf("removed cards shown %v, want %v", shown, want)
	}
	noOverflow := `document.documentElement.scrollWidth <= 390`
	if !get(t, phone, chromedp.Evaluate[bool](noOverflow)) {
		t.Errorf("the round summary is wider than the phone: %d px", get(t, phone, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)))
	}
	screenshot(t, phone, "round-summary-phone")

	takeRound(2)
	do(t, phone, chromedp.Navigate(fmt.Sprintf("%s/games/%d", s.URL, id)), chromedp.WaitVisible(byTestID("standings")))
	longest := get(t, phone, chromedp.Evaluate[int](`Math.max(...[...document.querySelectorAll('[data-testid="seat-cards"] .run')].map(r => r.querySelectorAll(".card").length))`))
	if longest < 12 {
		t.Fatalf("the longest run at the table has %d cards, want 12 or more", longest)
	}
	if !get(t, phone, chromedp.Evaluate[bool](noOverflow)) {
		t.Errorf("a %d-card run makes the page wider than the phone", longest)
	}
	screenshot(t, phone, "finished-long-run-phone")

	// The analysis beside the replay, once the worker has made it.
	if _, err := s.App.Reviews.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	// (The instance's own worker may have taken the job first: the panel
	// then fills itself in when it is done.)
	do(t, phone, chromedp.Navigate(fmt.Sprintf("%s/games/%d/replay?step=1", s.URL, id)), chromedp.WaitVisible(byTestID("accuracy")))
	if vs := axeSerious(t, phone); len(vs) > 0 {
		t.Errorf("the replay with its analysis: axe-core finds %s", strings.Join(vs, "; "))
	}
	if !get(t, phone, chromedp.Evaluate[bool](noOverflow)) {
		t.Error("the replay with its analysis is wider than the phone")
	}
	screenshot(t, phone, "replay-analysis-phone")
	desk := newUser(t, newBrowser(t))
	do(t, desk, chromedp.Navigate(fmt.Sprintf("%s/games/%d/replay?step=1", s.URL, id)), chromedp.WaitVisible(byTestID("accuracy")))
	screenshot(t, desk, "replay-analysis-desktop")

	// The replay steps in place, by keys and buttons, and the URL keeps the step.
	do(t, phone, chromedp.Navigate(fmt.Sprintf("%s/games/%d/replay", s.URL, id)), chromedp.WaitVisible(byTestID("replay")))
	get(t, phone, chromedp.Evaluate[bool](`window.samePage = true`))
	steps := func() string { return textOf(t, phone, byTestID("replay-step")) }
	if got := steps(); !strings.HasPrefix(got, "Move 0 of ") {
		t.Fatalf("replay starts at %q", got)
	}
	total := strings.TrimPrefix(steps(), "Move 0 of ")
	do(t, phone, chromedp.KeyEvent(kb.ArrowRight))
	get(t, phone, chromedp.Poll[bool](`document.querySelector('[data-testid="replay-step"]').textContent.startsWith("Move 1 of")`, chromedp.WithPollingTimeout(3*time.Second)))
	if loc := get(t, phone, chromedp.Location()); !strings.HasSuffix(loc, "step=1") {
		t.Errorf("after one step the address is %s", loc)
	}
	click(t, phone, byTestID("replay-round-2"))
	get(t, phone, chromedp.Poll[bool](`!!document.querySelector('[data-testid="round-end"]')`, chromedp.WithPollingTimeout(3*time.Second)))
	do(t, phone, chromedp.KeyEvent(kb.End))
	get(t, phone, chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('[data-testid="replay-step"]').textContent.trim() === "Move %s of %s"`, total, total), chromedp.WithPollingTimeout(3*time.Second)))
	do(t, phone, chromedp.KeyEvent(kb.ArrowLeft))
	get(t, phone, chromedp.Poll[bool](`!document.querySelector('[data-testid="replay-step"]').textContent.startsWith("Move `+total+`")`, chromedp.WithPollingTimeout(3*time.Second)))
	if !get(t, phone, chromedp.Evaluate[bool](`window.samePage === true`)) {
		t.Error("a replay step loaded a new page")
	}
}
