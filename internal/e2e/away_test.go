package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// awayStubs makes every page of a tab believe it is hidden (a tab in the
// background), with notifications allowed, and records the notifications
// it shows and the sounds it starts.
const awayStubs = `
Object.defineProperty(document, "hidden", { get: () => true, configurable: true });
Object.defineProperty(document, "visibilityState", { get: () => "hidden", configurable: true });
window.__notes = []; window.__beeps = 0;
window.Notification = function (title, opts) { window.__notes.push({ title: title, body: (opts || {}).body, tag: (opts || {}).tag }); };
window.Notification.permission = "granted";
window.Notification.requestPermission = function () { return Promise.resolve("granted"); };
window.AudioContext = function () { window.__beeps++; throw new Error("no sound in the test"); };
`

func addScript(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	do(t, ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return chromedp.Void{}, err
	}))
}

type shownNote struct {
	Title, Body, Tag string
}

// TestBrowserChatAlertsWhileAway: another player's message at Ann's table,
// while her tab is in the background, plays the turn's sound (she chose
// it) and shows a browser notification with who said what; her own
// message and a message while she looks at the tab do neither.
func TestBrowserChatAlertsWhileAway(t *testing.T) {
	s := apptest.New(t)
	ann := newUser(t, newBrowser(t))
	register(t, ann, s.URL, "Ann")
	bob := s.APIFor("Bob")
	gameURL := tableWithBot(t, ann, s.URL)
	var id int64
	fmt.Sscanf(gameURL[len(s.URL):], "/games/%d", &id)
	if st, body := bob.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
		t.Fatalf("Bob joins: %d %v", st, body)
	}
	waitPastBotTurn(t, bob, id)
	do(t, ann, chromedp.Navigate(s.URL+"/settings"), chromedp.WaitVisible(byTestID("turn-sound")))
	if !get(t, ann, chromedp.Evaluate[bool](`document.querySelector('[data-testid="turn-sound"]').checked`)) {
		click(t, ann, byTestID("turn-sound"))
		click(t, ann, chromedp.CSS(`[data-testid="alerts-form"] button[type="submit"]`))
		do(t, ann, chromedp.WaitVisible(byTestID("flash")))
	}
	addScript(t, ann, awayStubs)
	do(t, ann, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("chat-players")), chromedp.WaitVisible(byTestID("active-card")))
	// The board came live: the stream is open. Whose turn it is was
	// settling as the page opened (the bot may just have played): once
	// the title agrees with the game, what came before is forgotten, so
	// only the messages below count.
	mine := myTurn(t, bob, id, "Ann")
	waitFor(t, ann, fmt.Sprintf(`document.title.indexOf(window.ntMsgs.yourTurn) === 0 === %v`, mine))
	time.Sleep(300 * time.Millisecond)
	do(t, ann, chromedp.Evaluate[chromedp.Void](`window.__notes = []; window.__beeps = 0; undefined`))
	bob.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", id), map[string]any{"text": "your move, Ann"})
	waitText(t, ann, "chat-log", "your move, Ann")
	notes := get(t, ann, chromedp.Evaluate[[]shownNote](`window.__notes`))
	want := shownNote{Title: fmt.Sprintf("New message at game #%d · No Thanks!", id), Body: "Bob: your move, Ann", Tag: fmt.Sprintf("nt-chat-%d", id)}
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notifications %+v, want one %+v", notes, want)
	}
	if beeps := get(t, ann, chromedp.Evaluate[int](`window.__beeps`)); beeps != 1 {
		t.Errorf("%d sounds for Bob's message, want 1", beeps)
	}
	// Her own message: nothing.
	say(t, ann, "coming")
	waitText(t, ann, "chat-log", "coming")
	time.Sleep(300 * time.Millisecond)
	if n := get(t, ann, chromedp.Evaluate[int](`window.__notes.length + window.__beeps`)); n != 2 {
		t.Errorf("her own message alerted her (%d alerts in all, want 2)", n)
	}
	// Looking at the tab: nothing.
	do(t, ann, chromedp.Evaluate[chromedp.Void](`Object.defineProperty(document, "hidden", { get: () => false, configurable: true }); undefined`))
	bob.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", id), map[string]any{"text": "ok"})
	waitText(t, ann, "chat-log", "ok")
	time.Sleep(300 * time.Millisecond)
	if n := get(t, ann, chromedp.Evaluate[int](`window.__notes.length + window.__beeps`)); n != 2 {
		t.Errorf("a message while she looks at the table alerted her (%d alerts in all, want 2)", n)
	}
}

// TestBrowserListsComeLive: a visitor's Open games and a member's Watch
// page show a table that opens and a game that starts without reloading,
// told by their stream well before the 15 seconds a page without a stream
// waits (they no longer ask every 15 seconds).
func TestBrowserListsComeLive(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)
	visitor, member := newUser(t, browser), newUser(t, browser)
	register(t, member, s.URL, "Mel")
	do(t, visitor, chromedp.Navigate(s.URL+"/games"), chromedp.WaitVisible(byTestID("no-games")))
	do(t, member, chromedp.Navigate(s.URL+"/watch"), chromedp.WaitVisible(byTestID("no-games")))
	for _, ctx := range []context.Context{visitor, member} {
		if trig := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[hx-get][hx-select]').getAttribute("hx-trigger")`)); trig != "nt:lists from:body, nt:mine from:body" {
			t.Errorf("the list asks for itself on %q", trig)
		}
	}
	time.Sleep(500 * time.Millisecond) // the streams open
	ann := s.APIFor("Ann")
	start := time.Now()
	_, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	waitFor(t, visitor, fmt.Sprintf(`!!document.querySelector('#open-list a[href="/games/%d"]')`, id))
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the open table took %s to reach the visitor's list", took)
	}
	for range 2 {
		ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "random"})
	}
	waitFor(t, member, fmt.Sprintf(`!!document.querySelector('#watch-list a[href="/games/%d"]')`, id))
	waitFor(t, visitor, `!document.querySelector('#open-list [data-testid="game-row"]')`)
	screenshot(t, member, "watch-live")
}

// waitPastBotTurn waits until the game's turn is a person's: a bot that
// has the first turn plays it after a moment, and a turn coming to the
// tab's player then alerts her too.
// myTurn tells whether it is the named player's turn in a game.
func myTurn(t *testing.T, api *apptest.API, id int64, name string) bool {
	t.Helper()
	_, g := api.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
	view, _ := g["view"].(map[string]any)
	for _, p := range g["players"].([]any) {
		p := p.(map[string]any)
		if p["seat"] == view["turn"] {
			return p["name"] == name
		}
	}
	return false
}

func waitPastBotTurn(t *testing.T, api *apptest.API, id int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, g := api.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		view, _ := g["view"].(map[string]any)
		if view == nil {
			t.Fatalf("game %d has not started: %v", id, g)
		}
		botTurn := false
		for _, p := range g["players"].([]any) {
			p := p.(map[string]any)
			if p["seat"] == view["turn"] && p["bot"] != nil && p["bot"] != "" {
				botTurn = true
			}
		}
		if !botTurn {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bot has not played its turn in game %d", id)
		}
	}
}
