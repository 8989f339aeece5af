package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// say types a message into a page's chat box and sends it with Enter.
func say(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	do(t, ctx,
		chromedp.WaitVisible(byTestID("chat-input")),
		chromedp.SendKeys(byTestID("chat-input"), text+"\r"),
	)
}

// chatLog is the text of a page's chat messages.
func chatLog(t *testing.T, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="chat-log"]').textContent`))
}

// Two players talk at their table, live, while a spectator's chat stays
// apart; markup typed into the chat shows as text.
func TestBrowserTableChat(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)
	ann, bob, kim := newUser(t, browser), newUser(t, browser), newUser(t, browser)
	register(t, ann, s.URL, "Ann")
	register(t, bob, s.URL, "Bob")
	register(t, kim, s.URL, "Kim")

	gameURL := tableWithBot(t, ann, s.URL)
	do(t, bob, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("join")))
	click(t, bob, byTestID("join"))
	do(t, kim, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("active-card")))
	for _, ctx := range []context.Context{ann, bob} {
		do(t, ctx, chromedp.WaitVisible(byTestID("active-card")), chromedp.WaitVisible(byTestID("chat-players")))
	}
	do(t, kim, chromedp.WaitVisible(byTestID("chat-spectators")))
	// The pages' streams are open (the board came live), so what follows
	// can only arrive over them.

	say(t, ann, "Hello <b>Bob</b>, good luck")
	waitText(t, bob, "chat-log", "Hello <b>Bob</b>, good luck")
	if bold := get(t, bob, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="chat-log"] b')`)); bold {
		t.Error("the markup in Ann's message became an element on Bob's page")
	}
	// Ann's box is empty again, ready for the next message.
	waitFor(t, ann, `document.querySelector('[data-testid="chat-input"]').value === ""`)
	say(t, bob, "thanks Ann!")
	waitText(t, ann, "chat-log", "thanks Ann!")
	// A screen reader on Ann's page hears Bob's message once it comes.
	waitText(t, ann, "announcer", "Bob: thanks Ann!")

	say(t, kim, "go Bob go")
	waitText(t, kim, "chat-log", "go Bob go")
	// Another message from the players arrives after Kim's; by then Kim's
	// would have arrived too had it been sent to them.
	say(t, ann, "after the spectator")
	waitText(t, bob, "chat-log", "after the spectator")
	waitText(t, ann, "chat-log", "after the spectator")
	time.Sleep(300 * time.Millisecond)
	for name, ctx := range map[string]context.Context{"Ann": ann, "Bob": bob} {
		if log := chatLog(t, ctx); strings.Contains(log, "go Bob go") {
			t.Errorf("%s sees the spectators' chat: %q", name, log)
		}
	}
	if log := chatLog(t, kim); strings.Contains(log, "Hello") || strings.Contains(log, "thanks Ann") || strings.Contains(log, "after the spectator") {
		t.Errorf("Kim sees the players' chat: %q", log)
	}

	// A message too long is refused with its reason, and kept in the box.
	long := strings.Repeat("0123456789", 31)
	do(t, bob, chromedp.SetValue(byTestID("chat-input"), long), chromedp.Click(byTestID("chat-send")), chromedp.WaitVisible(byTestID("chat-error")))
	if msg := textOf(t, bob, byTestID("chat-error")); !strings.Contains(msg, "at most 300 characters; this one has 310") {
		t.Errorf("the long message's answer: %q", msg)
	}
	if v := get(t, bob, chromedp.Evaluate[int](`document.querySelector('[data-testid="chat-input"]').value.length`)); v != 310 {
		t.Errorf("the box holds %d characters after the refusal, want 310", v)
	}

	screenshot(t, bob, "chat-player")
	screenshot(t, kim, "chat-spectator")
	do(t, ann, chromedp.EmulateViewport(390, 844))
	if wide := get(t, ann, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); wide {
		t.Error("the table with its chat is wider than a phone's screen")
	}
	screenshot(t, ann, "chat-phone")
	do(t, ann, chromedp.EmulateReset())

	// Bob's page has the table in view as a message comes: his list of
	// games counts it as read (his page told the server). One said while he
	// is away does count, with a link back to the chat.
	say(t, ann, "one more thing")
	waitText(t, bob, "chat-log", "one more thing")
	myGames := s.URL + "/my/games"
	deadline := time.Now().Add(3 * time.Second)
	for {
		do(t, bob, chromedp.Navigate(myGames), chromedp.WaitVisible(byTestID("my-games")))
		if !get(t, bob, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="unread-chat"]')`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("messages Bob saw live count as new in his games: %q", textOf(t, bob, byTestID("unread-chat")))
		}
		time.Sleep(100 * time.Millisecond)
	}
	say(t, ann, "where did you go?")
	waitText(t, ann, "chat-log", "where did you go?")
	do(t, bob, chromedp.Navigate(myGames), chromedp.WaitVisible(byTestID("unread-chat")))
	if badge := textOf(t, bob, byTestID("unread-chat")); badge != "1 new message" {
		t.Errorf("Bob's games: %q", badge)
	}
	screenshot(t, bob, "my-games-unread-chat")
	click(t, bob, byTestID("unread-chat"))
	do(t, bob, chromedp.WaitVisible(byTestID("chat-players")))
	waitText(t, bob, "chat-log", "where did you go?")
}
