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

// pageLang reads the <html lang> of a tab.
func pageLang(t *testing.T, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
}

// switchLanguage presses the footer's button for lang and waits for the
// page it leads to. The button submits a form, so the press is scheduled
// from the page itself: a click driven from outside would be cut off by the
// navigation it starts.
func switchLanguage(t *testing.T, ctx context.Context, lang string) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(byTestID("lang-"+lang)))
	get(t, ctx, chromedp.Evaluate[bool](`setTimeout(() => document.querySelector('[data-testid="lang-`+lang+`"]').click(), 0), true`))
	// While the page changes, a look at it may fail ("context not found"):
	// look again until the new page is there.
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		got, err := chromedp.Run(c, chromedp.Evaluate[string](`document.readyState + " " + document.documentElement.lang`))
		cancel()
		if err == nil && got == "complete "+lang {
			return
		}
		last = fmt.Sprint(got, err)
	}
	t.Fatalf("the page did not turn to %s: %s", lang, last)
}

// tableWithBot creates a live three-seat table of one round from the
// new-game form, seats a bot in it, and returns the table's address.
func tableWithBot(t *testing.T, ctx context.Context, base string) string {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(base+"/games/new"),
		chromedp.WaitVisible(byTestID("create-submit")),
		chromedp.SetValue(byTestID("input-seats"), "3"),
		chromedp.SetValue(byTestID("input-rounds"), "1"),
		chromedp.Click(byTestID("create-submit")),
		chromedp.WaitVisible(byTestID("lobby")),
	)
	gameURL := get(t, ctx, chromedp.Location())
	click(t, ctx, byTestID("add-bot"))
	waitFor(t, ctx, `document.querySelectorAll('[data-testid="lobby-seat"]').length >= 2`)
	return gameURL
}

// waitFor waits until a script's condition holds on a tab.
func waitFor(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	get(t, ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(10*time.Second)))
}

// waitText waits until the element with a test id contains want (the
// stream may still be bringing it), failing with what it shows.
func waitText(t *testing.T, ctx context.Context, id, want string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := chromedp.Run(c, chromedp.Poll[bool](fmt.Sprintf(`(document.querySelector('[data-testid=%q]')?.textContent || "").includes(%q)`, id, want)))
	if err != nil {
		t.Errorf("%s reads %q, want it to contain %q", id, textOf(t, ctx, byTestID(id)), want)
	}
}

// The expectations below are the seeds' words and the catalogues' sentences,
// written out by hand: "Tomar" / "¡No, gracias!", "Prendi" / "No grazie".
func TestBrowserSpanishPlayerAndItalianSpectator(t *testing.T) {
	s := apptest.New(t)
	browser := newBrowser(t)

	// Logged out: the footer's switch turns the site Spanish, and the choice
	// stays (a cookie) from page to page.
	sofia := newUser(t, browser)
	do(t, sofia, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(byTestID("language-switch")))
	if got := pageLang(t, sofia); got != "en" {
		t.Fatalf("a new visitor's page is in %q, want en", got)
	}
	switchLanguage(t, sofia, "es")
	do(t, sofia, chromedp.Navigate(s.URL+"/register"), chromedp.WaitVisible(byTestID("register-submit")))
	if got := pageLang(t, sofia); got != "es" {
		t.Fatalf("after the switch, /register is in %q", got)
	}
	if got := textOf(t, sofia, byTestID("register-submit")); got != "Crear la cuenta" {
		t.Errorf("the Spanish register button reads %q", got)
	}
	// Bad input gets its message in Spanish, and keeps what was typed.
	do(t, sofia,
		chromedp.SendKeys(byTestID("input-username"), "Sofia"),
		chromedp.SendKeys(byTestID("input-email"), "sofia@example.com"),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.SendKeys(byTestID("input-confirm"), apptest.Password+"x"),
		chromedp.Click(byTestID("register-submit")),
		chromedp.WaitVisible(`[aria-invalid="true"]`),
	)
	if body := textOf(t, sofia, chromedp.CSS("main")); strings.Contains(body, "passwords differ") || !strings.Contains(body, "coinciden") {
		t.Errorf("the mismatched passwords are not explained in Spanish: %q", body)
	}
	if v := get(t, sofia, chromedp.Evaluate[string](`document.querySelector('[data-testid="input-username"]').value`)); v != "Sofia" {
		t.Errorf("the form lost the username: %q", v)
	}
	do(t, sofia,
		chromedp.SetValue(byTestID("input-password"), apptest.Password),
		chromedp.SetValue(byTestID("input-confirm"), apptest.Password),
		chromedp.Click(byTestID("register-submit")),
		chromedp.WaitVisible(byTestID("nav-user")),
	)
	if got := pageLang(t, sofia); got != "es" {
		t.Fatalf("after registering in Spanish the site is in %q", got)
	}

	// Logged in: the switch changes the account's language, which the
	// settings page shows, and back.
	switchLanguage(t, sofia, "it")
	do(t, sofia, chromedp.Navigate(s.URL+"/settings"), chromedp.WaitVisible(byTestID("input-lang")))
	if got := get(t, sofia, chromedp.Evaluate[string](`document.querySelector('[data-testid="input-lang"]').value`)); got != "it" {
		t.Errorf("the settings page's language is %q after switching to Italian", got)
	}
	if got := pageLang(t, sofia); got != "it" {
		t.Errorf("settings are in %q", got)
	}
	switchLanguage(t, sofia, "es")
	screenshot(t, sofia, "settings-es")

	// Sofia opens a three-seat table in Spanish and seats a bot; Bob
	// (English) takes the last seat.
	gameURL := tableWithBot(t, sofia, s.URL)

	// Ivo watches without an account, in Italian.
	ivo := newUser(t, browser)
	do(t, ivo, chromedp.Navigate(s.URL+"/"), chromedp.WaitVisible(byTestID("language-switch")))
	switchLanguage(t, ivo, "it")
	do(t, ivo, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("lobby")))

	bob := newUser(t, browser)
	register(t, bob, s.URL, "Bob")
	do(t, bob, chromedp.Navigate(gameURL), chromedp.WaitVisible(byTestID("join")))
	click(t, bob, byTestID("join"))

	// The game starts on every page by itself (the stream brings it).
	for _, ctx := range []context.Context{sofia, bob, ivo} {
		do(t, ctx, chromedp.WaitVisible(byTestID("active-card")))
	}

	// Play until each side has seen a move come over its stream, checking
	// each page in its own language after every move.
	players := map[string]context.Context{"Sofia": sofia, "Bob": bob}
	buttons := map[string][2]string{"Sofia": {"Tomar", "¡No, gracias!"}, "Bob": {"Take", "No thanks!"}}
	seen := map[string]bool{}
	for moves := 0; moves < 40 && !(seen["Sofia"] && seen["Bob"] && moves >= 4); moves++ {
		var name string
		for n, ctx := range players {
			if get(t, ctx, chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="action-take"]')`)) {
				name = n
			}
		}
		if name == "" {
			time.Sleep(100 * time.Millisecond)
			moves--
			continue
		}
		p := players[name]
		label := func(id string) string {
			// The button's own words, without its keyboard hint.
			return get(t, p, chromedp.Evaluate[string](`document.querySelector('[data-testid="`+id+`"]').firstChild.textContent.trim()`))
		}
		if got := label("action-take"); got != buttons[name][0] {
			t.Errorf("%s's Take button reads %q, want %q", name, got, buttons[name][0])
		}
		if got := label("action-pass"); got != buttons[name][1] {
			t.Errorf("%s's pass button reads %q, want %q", name, got, buttons[name][1])
		}
		waitText(t, ivo, "status", "In attesa di "+name+".")
		if name == "Sofia" {
			waitText(t, bob, "status", "Waiting for Sofia.")
		} else {
			waitText(t, sofia, "status", "Esperando a Bob.")
		}

		// Pass while a token is left (so the turn goes round), else take.
		before := boardVersion(t, ivo)
		card := textOf(t, p, byTestID("active-card"))
		action := "action-take"
		log := map[string]string{
			"Bob":   name + " took " + card + " with ",
			"Sofia": name + " tomó el " + card + " con ",
			"Ivo":   name + " ha preso il " + card + " con ",
		}
		if get(t, p, chromedp.Evaluate[bool](`!document.querySelector('[data-testid="action-pass"]').disabled`)) {
			action = "action-pass"
			log = map[string]string{
				"Bob":   name + ": No thanks! to " + card + " (",
				"Sofia": name + ": ¡No, gracias! al " + card + " (con ",
				"Ivo":   name + ": No grazie sul " + card + " (con ",
			}
		}
		clickCtx, cancel := context.WithTimeout(p, 5*time.Second)
		err := chromedp.Do(clickCtx, chromedp.Click(byTestID(action)))
		cancel()
		if err != nil {
			t.Logf("click missed (%v); looking again", err)
			moves--
			continue
		}
		// Everyone's board moves on over its stream, each in its language.
		for who, ctx := range map[string]context.Context{"Bob": bob, "Sofia": sofia, "Ivo": ivo} {
			waitVersion(t, ctx, before+1)
			waitText(t, ctx, "log", log[who])
		}
		seen[name] = true
		if moves == 1 {
			screenshot(t, ivo, "table-spectator-it")
			screenshot(t, sofia, "table-player-es")
			do(t, sofia, chromedp.EmulateViewport(390, 844))
			if wide := get(t, sofia, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); wide {
				t.Error("the Spanish table is wider than a phone's screen")
			}
			screenshot(t, sofia, "table-player-es-phone")
			do(t, sofia, chromedp.EmulateReset())
		}
	}
	if !seen["Sofia"] || !seen["Bob"] {
		t.Errorf("in 40 moves, not both players moved: %v", seen)
	}
	// The spectator still sees no player's tokens, in any language.
	html := get(t, ivo, chromedp.OuterHTML(chromedp.CSS("html")))
	if strings.Contains(html, `data-testid="my-tokens"`) || strings.Contains(html, `data-testid="action-take"`) {
		t.Error("the spectator's page shows a player's tokens or controls")
	}
	if got := pageLang(t, ivo); got != "it" {
		t.Errorf("the spectator's page is in %q", got)
	}
}
