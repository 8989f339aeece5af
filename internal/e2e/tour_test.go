package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"nothanks/internal/apptest"
)

// consoleErrors collects a tab's console errors, uncaught exceptions and
// Content-Security-Policy violations.
type consoleErrors struct {
	mu   sync.Mutex
	errs []string
}

func watchConsole(t *testing.T, ctx context.Context) *consoleErrors {
	t.Helper()
	ce := &consoleErrors{}
	if err := chromedp.Listen(ctx, func(ev any) {
		ce.mu.Lock()
		defer ce.mu.Unlock()
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError {
				ce.errs = append(ce.errs, fmt.Sprintf("%s: %s (%s)", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		case *runtime.EventExceptionThrown:
			desc := ""
			if e.ExceptionDetails.Exception != nil {
				desc = e.ExceptionDetails.Exception.Description
			}
			ce.errs = append(ce.errs, "exception: "+e.ExceptionDetails.Text+" "+desc)
		}
	}); err != nil {
		t.Fatal(err)
	}
	enable := chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return chromedp.Void{}, err
	})
	do(t, ctx, enable)
	return ce
}

func (ce *consoleErrors) take() []string {
	ce.mu.Lock()
	defer ce.mu.Unlock()
	out := ce.errs
	ce.errs = nil
	return out
}

// tourPage is a page of the tour: its name (screenshots are named after
// it) and its path.
type tourPage struct{ name, path string }

// tour is a site with something on every kind of page, and the pages to
// visit as a visitor and as the member "Tourist" (a moderator, with open,
// running and finished tables, a followed player, chat, a report and an
// invitation).
type tour struct {
	s                *apptest.Server
	visitor, member  []tourPage
	open, played     int64
	finished, report int64
}

func newTour(t *testing.T) tour {
	t.Helper()
	s := apptest.New(t)
	api := s.APIFor("Tourist")
	_, g := api.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60})
	open := int64(g["id"].(float64))
	_, g = api.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60})
	played := int64(g["id"].(float64))
	api.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", played), map[string]any{"level": "random"})
	api.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", played), map[string]any{"level": "heuristic"})

	// Finished games of three and of seven: the people take everything,
	// bots do the rest. The seven hold two players with the longest names
	// a username may have (the widest round summary a phone shows).
	finish := func(seats int, people ...*apptest.API) int64 {
		_, g := people[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": seats, "rounds": 2, "pace": "live", "turn_seconds": 60})
		id := int64(g["id"].(float64))
		for _, p := range people[1:] {
			p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
		}
		for range seats - len(people) {
			people[0].Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "random"})
		}
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			for _, p := range people {
				_, view := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
				if view["status"] == "finished" {
					return id
				}
				if view["your_turn"] == true {
					p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": view["view"].(map[string]any)["version"]})
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("the %d-player game did not end", seats)
		return 0
	}
	finished := finish(3, api)
	finished7 := finish(7, api, s.APIFor("Bartholomew_Longname"), s.APIFor("Maximiliana-Rosales"))

	// A chat message on the finished table, reported, and the tourist a
	// moderator: the people pages have something to show.
	chatty := s.APIFor("Chatty")
	_, m := chatty.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", finished), map[string]any{"text": "a <i>fine</i> game"})
	msg := int64(m["id"].(float64))
	chatty.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", finished), map[string]any{"text": "and a second line"})
	critic := s.Client().Register("Critic")
	critic.PostForm(fmt.Sprintf("/chat/%d/report", msg), url.Values{"reason": {"test report"}})
	if _, err := s.App.People.Follow(context.Background(), api.ID, "Chatty"); err != nil {
		t.Fatal(err)
	}
	// Chatty sits at the tourist's open table and says something there (a
	// new message on the tourist's lists), and invites the tourist to a
	// table of his (an invitation on them and on the badge).
	chatty.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", open), nil)
	chatty.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", open), map[string]any{"text": "ready when you are"})
	if st, body := chatty.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60, "invite": []string{"Tourist"}}); st != http.StatusCreated {
		t.Fatalf("Chatty's table with an invitation: %d %v", st, body)
	}
	// A bot account, invited by the tourist to a table with a bot of the
	// server's: its seat, its profile and the bot ladder carry its mark.
	robo := s.APIFor("Robo_Bot")
	if st, body := robo.Do(http.MethodPost, "/api/v1/bot/account/upgrade", nil); st != http.StatusOK {
		t.Fatalf("upgrade: %d %v", st, body)
	}
	_, g = api.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300, "invite": []string{"Robo_Bot"}})
	withBot := int64(g["id"].(float64))
	_, invs := robo.Do(http.MethodGet, "/api/v1/invites", nil)
	inv := invs["invitations"].([]any)[0].(map[string]any)
	if st, body := robo.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%v/accept", inv["id"]), nil); st != http.StatusOK {
		t.Fatalf("the bot account accepts: %d %v", st, body)
	}
	api.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", withBot), map[string]any{"level": "heuristic"})
	// Tournaments: an upcoming arena with a description, and a running
	// one where the tourist, Chatty and Critic sit at a table.
	if err := s.App.Moderation.Grant(context.Background(), "Tourist", true); err != nil {
		t.Fatal(err)
	}
	event := func(name string) int64 {
		st, res := api.Do(http.MethodPost, "/api/v1/tournaments", map[string]any{"kind": "arena", "name": name, "description": "Tables of three.\nCome early!",
			"table_size": 3, "minutes": 60, "game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 300, "max_players": 50,
			"starts_at": time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)})
		if st != http.StatusCreated {
			t.Fatalf("create a tournament: %d %v", st, res)
		}
		return int64(res["tournament"].(map[string]any)["id"].(float64))
	}
	upcoming, running := event("Evening arena"), event("Running arena")
	criticAPI := apptest.NewAPI(s, mustToken(t, s, "Critic"))
	for _, p := range []*apptest.API{api, chatty, criticAPI} {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", running), nil); st != http.StatusOK {
			t.Fatalf("join the running arena: %d %v", st, res)
		}
	}
	chatty.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", upcoming), nil)
	if _, err := s.Store.DB.Exec(`UPDATE tournaments SET starts_at = now(), due_at = now() WHERE id = $1`, running); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, me := api.Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d/me", running), nil)
		if me["game_id"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the running arena did not seat its players")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Fair play: the tourist reports Chatty, which opens a case the
	// tourist (a moderator) reads.
	if st, res := api.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Chatty", "reason": "feeding",
		"note": "Passed every card I needed to Critic, three rounds running."}); st != http.StatusCreated {
		t.Fatalf("report Chatty: %d %v", st, res)
	}
	var fairCase int64
	if err := s.Store.DB.Get(&fairCase, `SELECT c.id FROM fairplay_cases c JOIN users u ON u.id = c.user_id WHERE u.username = 'Chatty'`); err != nil {
		t.Fatal(err)
	}
	// A rated arena still to come that Sly joined, then was marked: the
	// standings show Sly unranked and disqualified. Gone is closed as a
	// second account: its log-in opens the page of its decision.
	rated := func() int64 {
		st, res := api.Do(http.MethodPost, "/api/v1/tournaments", map[string]any{"kind": "arena", "name": "Rated evening", "rated": true,
			"table_size": 3, "minutes": 60, "game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 300, "max_players": 50,
			"starts_at": time.Now().Add(3 * time.Hour).UTC().Format(time.RFC3339)})
		if st != http.StatusCreated {
			t.Fatalf("create a rated tournament: %d %v", st, res)
		}
		return int64(res["tournament"].(map[string]any)["id"].(float64))
	}()
	decide := func(name, reason, action string) {
		if st, res := api.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": name, "reason": reason}); st != http.StatusCreated {
			t.Fatalf("report %s: %d %v", name, st, res)
		}
		st, q := api.Do(http.MethodGet, "/api/v1/mod/fairplay", nil)
		if st != http.StatusOK {
			t.Fatalf("the moderators' queue: %d %v", st, q)
		}
		for _, x := range q["cases"].([]any) {
			if c := x.(map[string]any); c["account"] == name {
				st, res := api.Do(http.MethodPost, fmt.Sprintf("/api/v1/mod/fairplay/cases/%v/decisions", c["id"]),
					map[string]any{"account": name, "action": action, "reason": "Two accounts of one player at the same tables.", "close": true})
				if st != http.StatusCreated {
					t.Fatalf("%s %s: %d %v", action, name, st, res)
				}
				return
			}
		}
		t.Fatalf("no case about %s", name)
	}
	for _, name := range []string{"Sly", "Chatty"} {
		p := chatty
		if name == "Sly" {
			p = s.APIFor("Sly")
		}
		u, _ := s.Store.UserByName(context.Background(), name)
		if _, err := s.Store.VerifyEmail(context.Background(), u.ID, strings.ToLower(name)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", rated), nil); st != http.StatusOK {
			t.Fatalf("%s joins the rated arena: %d %v", name, st, res)
		}
	}
	decide("Sly", "feeding", "mark")
	s.APIFor("Gone")
	decide("Gone", "second_account", "close")
	// Puzzles from the finished games (the worker may be mining one of
	// them already: wait for it), and the puzzle of the day on the home
	// page.
	var puzzle int64
	for deadline := time.Now().Add(4 * time.Minute); ; {
		// Each run mines a few queued games; those may hold no puzzle.
		if _, err := s.App.Puzzles.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := s.Store.DB.Get(&puzzle, `SELECT coalesce(min(id), 0) FROM puzzles`); err != nil {
			t.Fatal(err)
		}
		if puzzle > 0 {
			break
		}
		// The games played so far may hold no clear decision: play another.
		var queued int
		if err := s.Store.DB.Get(&queued, `SELECT count(*) FROM puzzle_mining WHERE status = 'queued'`); err != nil {
			t.Fatal(err)
		}
		if queued == 0 {
			finish(3, api)
		}
		if time.Now().After(deadline) {
			var why []string
			_ = s.Store.DB.Select(&why, `SELECT status || ' ' || attempts || ' ' || last_error FROM puzzle_mining`)
			t.Fatalf("no puzzle was mined from the finished games (mining: %q)", why)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return tour{
		s: s, open: open, played: played, finished: finished, report: msg,
		visitor: []tourPage{
			{"home", "/"}, {"rules", "/rules"}, {"register", "/register"}, {"login", "/login"},
			{"forgot", "/forgot"}, {"open-games", "/games"}, {"watch", "/watch"}, {"ladder", "/ladder"},
			{"profile", "/u/Tourist"}, {"lobby-visitor", fmt.Sprintf("/games/%d", open)},
			{"table-visitor", fmt.Sprintf("/games/%d", played)}, {"not-found", "/no/such/page"},
			{"finished", fmt.Sprintf("/games/%d", finished)}, {"replay", fmt.Sprintf("/games/%d/replay?step=7", finished)},
			{"finished-7", fmt.Sprintf("/games/%d", finished7)}, {"replay-7", fmt.Sprintf("/games/%d/replay", finished7)},
			{"docs", "/docs"}, {"docs-api", "/docs/api"}, {"docs-rules", "/docs/rules"},
			{"tournaments", "/tournaments"}, {"tournament-upcoming", fmt.Sprintf("/tournaments/%d", upcoming)},
			{"tournament-running", fmt.Sprintf("/tournaments/%d", running)}, {"tv", "/tv"},
			{"table-bot-account-visitor", fmt.Sprintf("/games/%d", withBot)}, {"profile-bot-account", "/u/Robo_Bot"},
			{"ladder-bots", "/ladder?pool=bots"}, {"api-reference", "/docs/api-reference"},
			{"tournament-disqualified", fmt.Sprintf("/tournaments/%d", rated)},
			{"puzzles", "/puzzles"}, {"puzzle-visitor", fmt.Sprintf("/puzzles/%d", puzzle)}, {"database", "/database"},
		},
		member: []tourPage{
			{"home-member", "/"}, {"my-games", "/my/games"}, {"new-game", "/games/new"}, {"settings", "/settings"},
			{"ranked", "/ranked"}, {"lobby-creator", fmt.Sprintf("/games/%d", open)},
			{"table-player", fmt.Sprintf("/games/%d", played)}, {"finished-player", fmt.Sprintf("/games/%d", finished)},
			{"finished-7-player", fmt.Sprintf("/games/%d", finished7)},
			{"following", "/following"}, {"profile-other", "/u/Chatty"}, {"admin", "/admin"}, {"admin-log", "/admin/log"},
			{"report", fmt.Sprintf("/chat/%d/report", msg)}, {"replay-chat", fmt.Sprintf("/games/%d/replay", finished)},
			{"tournaments-member", "/tournaments"}, {"tournament-new", "/tournaments/new"},
			{"tournament-creator", fmt.Sprintf("/tournaments/%d", upcoming)}, {"tournament-edit", fmt.Sprintf("/tournaments/%d/edit", upcoming)},
			{"tournament-player", fmt.Sprintf("/tournaments/%d", running)}, {"schedules", "/admin/schedules"},
			{"table-bot-account-player", fmt.Sprintf("/games/%d", withBot)},
			{"leave-game", fmt.Sprintf("/games/%d/leave", played)}, {"my-reliability", "/my/reliability"},
			{"report-player", "/report/Critic"}, {"my-fairplay", "/my/fairplay"},
			{"fairplay-queue", "/admin/fairplay"}, {"fairplay-case", fmt.Sprintf("/admin/fairplay/cases/%d", fairCase)},
			{"puzzles-member", "/puzzles"}, {"puzzle-member", fmt.Sprintf("/puzzles/%d", puzzle)}, {"import", "/import"},
		},
	}
}

// mustToken makes an API token for a registered user.
func mustToken(t *testing.T, s *apptest.Server, name string) string {
	t.Helper()
	u, err := s.Store.UserByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.App.Accounts.CreateAPIToken(context.Background(), u.ID, "tour")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestBrowserTourHasNoConsoleErrors visits every kind of page, logged out
// and in, saves a screenshot of each for review, and fails on any console
// error, uncaught exception or CSP violation. Each page is visited again at
// a phone's width (390 px), where it must not scroll sideways.
func TestBrowserTourHasNoConsoleErrors(t *testing.T) {
	tr := newTour(t)
	s := tr.s
	ctx := newUser(t, newBrowser(t))
	ce := watchConsole(t, ctx)
	visit := func(p tourPage) {
		t.Helper()
		do(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.URL+p.path), chromedp.WaitVisible(chromedp.CSS("footer.site")))
		screenshot(t, ctx, "tour-"+p.name)
		if vs := axeSerious(t, ctx); len(vs) > 0 {
			t.Errorf("%s (%s): axe-core finds %s", p.name, p.path, strings.Join(vs, "; "))
		}
		if h := headingsSkip(t, ctx); h != "" {
			t.Errorf("%s (%s): a heading level is skipped: %s", p.name, p.path, h)
		}
		noSideways(t, ctx, p)
		var errs []string
		for _, e := range ce.take() {
			// The not-found page is a 404 by design; the browser logs it.
			if p.name == "not-found" && strings.Contains(e, "status of 404") {
				continue
			}
			errs = append(errs, e)
		}
		if len(errs) > 0 {
			t.Errorf("%s (%s): %s", p.name, p.path, strings.Join(errs, "; "))
		}
	}
	for _, p := range tr.visitor {
		visit(p)
	}
	// A closed account's log-in opens its decision and appeal.
	do(t, ctx,
		chromedp.Navigate(s.URL+"/login"),
		chromedp.SendKeys(byTestID("input-login"), "Gone"),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.Click(byTestID("login-submit")),
		chromedp.WaitVisible(byTestID("closed-notice")),
	)
	visit(tourPage{"closed-account", "/closed-account"})
	do(t, ctx,
		chromedp.Navigate(s.URL+"/login"),
		chromedp.SendKeys(byTestID("input-login"), "Tourist"),
		chromedp.SendKeys(byTestID("input-password"), apptest.Password),
		chromedp.Click(byTestID("login-submit")),
		chromedp.WaitVisible(byTestID("welcome")),
	)
	for _, p := range tr.member {
		visit(p)
	}
}

// noSideways loads a page again at a phone's width (390 px) and fails when
// it is wider than the screen, naming the widest elements; it saves the
// phone's screenshot too.
func noSideways(t *testing.T, ctx context.Context, p tourPage) {
	t.Helper()
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("footer.site")))
	screenshot(t, ctx, "tour-"+p.name+"-phone")
	if wide := get(t, ctx, chromedp.Evaluate[string](overflowing)); wide != "" {
		t.Errorf("%s (%s) scrolls sideways at 390 px: %s", p.name, p.path, wide)
	}
}

// overflowing is "" when the page fits its viewport's width, else the page's
// width and the elements that reach furthest past the right edge.
const overflowing = `(() => {
	const d = document.documentElement, w = d.clientWidth;
	if (d.scrollWidth <= w) return "";
	const out = [];
	for (const el of document.querySelectorAll("body *")) {
		const r = el.getBoundingClientRect();
		if (r.right > w + 1 && r.width > 0) out.push([r.right, el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "") + (el.dataset.testid ? "[" + el.dataset.testid + "]" : "")]);
	}
	out.sort((a, b) => b[0] - a[0]);
	return d.scrollWidth + " px wide: " + out.slice(0, 5).map(x => x[1] + " to " + Math.round(x[0])).join(", ");
})()`
