package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
)

// Bot accounts (docs/bots.md), through the user's path: the API with a
// token, the pages with a session.

const (
	msgPlaysByAPI = "Bot accounts play through the API (see /docs/bots)."
	msgBotRanked  = "Bot accounts cannot play ranked games with people; join the bot queue."
)

// newBot registers name, gives it a token and makes it a bot account
// through the API.
func newBot(t *testing.T, s *apptest.Server, name string) *apptest.API {
	t.Helper()
	b := s.APIFor(name)
	if st, body := b.Do(http.MethodPost, "/api/v1/bot/account/upgrade", nil); st != http.StatusOK || body["bot"] != true {
		t.Fatalf("upgrade %s: %d %v", name, st, body)
	}
	return b
}

// apiHeaders sends an API request with a's token and returns the status,
// the headers (Retry-After) and the JSON answer.
func apiHeaders(t *testing.T, s *apptest.Server, a *apptest.API, method, path string, body any) (int, http.Header, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.URL+path, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.Token)
	return send(t, req)
}

// send sends a request made by hand (its headers, its raw body) and
// returns the status, the headers and the JSON answer.
func send(t *testing.T, req *http.Request) (int, http.Header, map[string]any) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, res.Header, out
}

// errorOf is an API error's code and message.
func errorOf(body map[string]any) (string, string) {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	msg, _ := e["message"].(string)
	return code, msg
}

func gameIDOf(t *testing.T, g map[string]any) int64 {
	t.Helper()
	id, ok := g["id"].(float64)
	if !ok {
		t.Fatalf("no game id in %v", g)
	}
	return int64(id)
}

// playerOf finds a player of an API table by name.
func playerOf(view map[string]any, name string) map[string]any {
	ps, _ := view["players"].([]any)
	for _, p := range ps {
		if pm := p.(map[string]any); pm["name"] == name {
			return pm
		}
	}
	return nil
}

func TestBotAccountUpgrade(t *testing.T) {
	s := apptest.New(t)
	ida := s.APIFor("Ida")
	if _, me := ida.Do(http.MethodGet, "/api/v1/me", nil); me["bot"] != false {
		t.Fatalf("a new account's /me: %v", me)
	}
	st, body := ida.Do(http.MethodPost, "/api/v1/bot/account/upgrade", nil)
	if st != http.StatusOK || body["ok"] != true || body["bot"] != true {
		t.Fatalf("upgrade: %d %v", st, body)
	}
	// The same token answers for the bot account at once.
	if _, me := ida.Do(http.MethodGet, "/api/v1/me", nil); me["bot"] != true || me["username"] != "Ida" {
		t.Errorf("/me after the upgrade: %v", me)
	}

	refused := func(t *testing.T, a *apptest.API, want string) {
		t.Helper()
		st, body := a.Do(http.MethodPost, "/api/v1/bot/account/upgrade", nil)
		code, msg := errorOf(body)
		if st != http.StatusConflict || code != "conflict" || !strings.Contains(msg, want) {
			t.Errorf("upgrade: %d %s %q, want 409 conflict saying %q", st, code, msg, want)
		}
		if _, me := a.Do(http.MethodGet, "/api/v1/me", nil); a != ida && me["bot"] != false {
			t.Errorf("a refused account became a bot: %v", me)
		}
	}
	t.Run("ErrAlreadyABot", func(t *testing.T) {
		refused(t, ida, "a bot account already")
	})
	t.Run("ErrHasPlayed", func(t *testing.T) {
		ann := s.APIFor("Ann")
		if st, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3}); st != http.StatusCreated {
			t.Fatalf("create: %d %v", st, g)
		}
		refused(t, ann, "has played games")
	})
	t.Run("ErrInTheRankedQueue", func(t *testing.T) {
		bea := s.APIFor("Bea")
		if st, q := bea.Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"}); st != http.StatusOK {
			t.Fatalf("queue: %d %v", st, q)
		}
		refused(t, bea, "ranked queue")
	})
	t.Run("ErrGuest", func(t *testing.T) {
		c := s.Client()
		if res := c.PostForm("/play", nil); res.Status != http.StatusSeeOther {
			t.Fatalf("play now: %d", res.Status)
		}
		name := strings.Fields(c.Get("/").TestID("nav-user"))[0]
		u, err := s.Store.UserByName(context.Background(), name)
		if err != nil || !u.Guest {
			t.Fatalf("guest %q: %v %+v", name, err, u)
		}
		token, err := s.App.Accounts.CreateAPIToken(context.Background(), u.ID, "tests")
		if err != nil {
			t.Fatal(err)
		}
		refused(t, apptest.NewAPI(s, token), "guest")
	})
	t.Run("SettingsPage", func(t *testing.T) {
		c := s.Client().Register("Max")
		if res := c.Get("/settings"); !res.Has("bot-form") {
			t.Fatal("no bot account form in Settings")
		}
		res := c.PostForm("/settings/bot", nil)
		if res.Status != http.StatusUnprocessableEntity || res.TestID("error-understand") == "" {
			t.Errorf("upgrade without the box ticked: %d %q", res.Status, res.TestID("error-understand"))
		}
		res = c.PostForm("/settings/bot", url.Values{"understand": {"true"}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/settings#bot" {
			t.Fatalf("upgrade: %d %q", res.Status, res.Header.Get("Location"))
		}
		res = c.Get("/settings")
		if !res.Has("bot-account-state") || res.Has("bot-form") || !strings.Contains(res.Body, "This account is a bot account now.") {
			t.Errorf("Settings after the upgrade: state %v, form %v", res.Has("bot-account-state"), res.Has("bot-form"))
		}
		// An account that has played is told why not, on the page.
		pia := s.Client().Register("Pia")
		createGame(t, pia, nil)
		res = pia.PostForm("/settings/bot", url.Values{"understand": {"true"}})
		if res.Status != http.StatusConflict || !strings.Contains(res.TestID("form-error"), "has played games") {
			t.Errorf("upgrade after playing: %d %q", res.Status, res.TestID("form-error"))
		}
	})
}

func TestBotAccountMarkedEverywhere(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ida := newBot(t, s, "Ida")
	ann := s.Client().Register("Ann")
	id := createGame(t, ann, url.Values{"seats": {"4"}})
	st, view := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
	if st != http.StatusOK {
		t.Fatalf("the bot joins a casual table: %d %v", st, view)
	}
	for name, want := range map[string]bool{"Ida": true, "Ann": false} {
		if p := playerOf(view, name); p == nil || p["bot_account"] != want {
			t.Errorf("API player %s: %v, want bot_account %v", name, p, want)
		}
	}
	_, open := ida.Do(http.MethodGet, "/api/v1/games", nil)
	for _, g := range open["games"].([]any) {
		gm := g.(map[string]any)
		if int64(gm["id"].(float64)) == id {
			if got := fmt.Sprint(gm["bot_accounts"]); got != "[Ida]" {
				t.Errorf("open games' bot_accounts: %s, want [Ida]", got)
			}
		}
	}

	// marked checks that the names shown in sel's elements (their testid
	// name element) carry the badge exactly when they are Ida's.
	marked := func(t *testing.T, path, sel, nameSel string) {
		t.Helper()
		doc := ann.Get(path).Doc()
		found := false
		doc.Find(sel).Each(func(_ int, el *goquery.Selection) {
			name := strings.TrimSpace(el.Find(nameSel).First().Text())
			badge := el.Find(`[data-testid="bot-badge"]`)
			if got, want := badge.Length() > 0, name == "Ida"; got != want {
				t.Errorf("%s: %q marked %v, want %v", path, name, got, want)
			}
			if name == "Ida" {
				found = true
				if title, _ := badge.Attr("title"); title != "Bot account" || strings.TrimSpace(badge.Text()) != "BOT" {
					t.Errorf("%s: the badge says %q (title %q)", path, badge.Text(), title)
				}
			}
		})
		if !found {
			t.Errorf("%s: Ida is not shown", path)
		}
	}
	game := fmt.Sprintf("/games/%d", id)
	marked(t, game, `[data-testid="lobby-seat"]`, `[data-testid="lobby-seat-name"]`)
	// The open games list marks her among the players.
	if doc := s.Client().Get("/games").Doc(); doc.Find(`[data-testid="bot-badge"]`).Length() != 1 {
		t.Errorf("open games: %d badges, want 1", doc.Find(`[data-testid="bot-badge"]`).Length())
	}

	// A Club bot fills a seat and Ann starts: the table marks Ida's seat
	// (the server's bot is a "bot", not a bot account).
	if res := ann.PostForm(game+"/bots", url.Values{"level": {"heuristic"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("add a bot: %d", res.Status)
	}
	if res := ann.PostForm(game+"/start", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("start: %d", res.Status)
	}
	marked(t, game, `[data-testid="seat"]`, `[data-testid="seat-name"]`)
	for _, path := range []string{"/my/games", "/watch"} {
		if n := ann.Get(path).Doc().Find(`[data-testid="bot-badge"]`).Length(); n != 1 {
			t.Errorf("%s: %d badges, want 1", path, n)
		}
	}
	// Her profile says what she is; Ann's does not.
	res := ann.Get("/u/Ida")
	if !res.Has("profile-bot") || !res.Has("bot-badge") {
		t.Errorf("Ida's profile: bot line %v, badge %v", res.Has("profile-bot"), res.Has("bot-badge"))
	}
	if res := ann.Get("/u/Ann"); res.Has("profile-bot") || res.Has("bot-badge") {
		t.Error("Ann's profile is marked as a bot's")
	}
}

func TestBotAccountsPlayThroughTheAPIOnly(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	bot := s.Client().Register("Ida")
	if res := bot.PostForm("/settings/bot", url.Values{"understand": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("upgrade: %d", res.Status)
	}
	ann := s.Client().Register("Ann")
	id := createGame(t, ann, nil)
	game := fmt.Sprintf("/games/%d", id)
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/games", url.Values{"seats": {"3"}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}}},
		{game + "/join", nil},
		{game + "/leave", nil},
		{game + "/take", url.Values{"version": {"0"}}},
		{game + "/pass", url.Values{"version": {"0"}}},
		{game + "/rematch", nil},
		{"/play", nil},
		{"/ranked", url.Values{"sizes": {"3"}, "pace": {"live"}}},
		{"/invites/1/accept", nil},
		{"/tournaments/1/join", nil},
	} {
		res := bot.PostForm(tc.path, tc.form)
		if res.Status != http.StatusForbidden || !strings.Contains(res.Body, msgPlaysByAPI) {
			t.Errorf("POST %s: %d, want 403 saying %q", tc.path, res.Status, msgPlaysByAPI)
		}
	}
	// It reads pages and manages its settings and tokens.
	for _, path := range []string{game, "/settings", "/ladder", "/games"} {
		if res := bot.Get(path); res.Status != http.StatusOK {
			t.Errorf("GET %s: %d", path, res.Status)
		}
	}
	res := bot.PostForm("/settings/tokens", url.Values{"name": {"my program"}})
	token := res.TestID("new-token")
	if token == "" {
		t.Fatalf("create a token: %d", res.Status)
	}
	// The API plays.
	if st, body := apptest.NewAPI(s, token).Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
		t.Errorf("join through the API: %d %v", st, body)
	}
}

func TestBotAccountsPlayRankedAmongBotsOnly(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ida := newBot(t, s, "Ida")
	ann, ben := s.APIFor("Ann"), s.APIFor("Ben")
	forbidden := func(t *testing.T, st int, body map[string]any, want string) {
		t.Helper()
		code, msg := errorOf(body)
		if st != http.StatusForbidden || code != "forbidden" || msg != want {
			t.Errorf("%d %s %q, want 403 forbidden %q", st, code, msg, want)
		}
	}
	t.Run("ErrBotCreatesRanked", func(t *testing.T) {
		st, body := ida.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "ranked": true})
		forbidden(t, st, body, msgBotRanked)
	})
	t.Run("ErrBotJoinsRanked", func(t *testing.T) {
		_, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "ranked": true})
		st, body := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", gameIDOf(t, g)), nil)
		forbidden(t, st, body, msgBotRanked)
	})
	t.Run("ErrBotInPeoplesQueue", func(t *testing.T) {
		st, body := ida.Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"})
		forbidden(t, st, body, msgBotRanked)
	})
	t.Run("ErrPersonInBotQueue", func(t *testing.T) {
		st, body := ann.Do(http.MethodPost, "/api/v1/bot/queue", map[string]any{"sizes": []int{3}, "pace": "live"})
		forbidden(t, st, body, "The bot queue is for bot accounts; people play ranked in the ranked queue.")
	})
	// A ranked table made by hand is people's: a bot account is not
	// invited to it, when the table is made or later, with a message
	// saying why and what to do; the table is not made with the refusal.
	t.Run("ErrBotInvitedToRanked", func(t *testing.T) {
		want := "Ida is a bot account, and bots cannot play ranked games with people: make the table casual to invite it."
		_, before := ben.Do(http.MethodGet, "/api/v1/games/mine", nil)
		st, body := ben.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "ranked": true, "invite": []string{"ida"}})
		if code, msg := errorOf(body); st != http.StatusUnprocessableEntity || msg != want {
			t.Errorf("create a ranked table inviting a bot: %d %s %q, want 422 %q", st, code, msg, want)
		}
		if _, after := ben.Do(http.MethodGet, "/api/v1/games/mine", nil); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("a table was made with the refused invitation: %v", after)
		}
		_, g := ben.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "ranked": true})
		st, body = ben.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", gameIDOf(t, g)), map[string]any{"username": "Ida"})
		if code, msg := errorOf(body); st != http.StatusUnprocessableEntity || msg != want {
			t.Errorf("invite a bot to a ranked table: %d %s %q, want 422 %q", st, code, msg, want)
		}
		if _, invs := ida.Do(http.MethodGet, "/api/v1/invites", nil); len(invs["invitations"].([]any)) != 0 {
			t.Errorf("the bot was invited: %v", invs)
		}
	})
	// Tournaments are people's: a bot account (even with a confirmed
	// address) neither creates nor joins one, and is told so.
	t.Run("ErrBotInTournaments", func(t *testing.T) {
		if _, err := s.Store.VerifyEmail(context.Background(), ida.ID, "ida@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		rules := map[string]any{"kind": "arena", "name": "Bots welcome?", "table_size": 3, "minutes": 20, "game_rounds": 1, "variant": "standard",
			"pace": "live", "turn_seconds": 60, "max_players": 10, "starts_at": s.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
		st, body := ida.Do(http.MethodPost, "/api/v1/tournaments", rules)
		forbidden(t, st, body, "Bot accounts do not create tournaments: tournaments are played by people.")
		hostie := verified(t, s, "Hostie")[0]
		id := createEvent(t, s, hostie, rules)
		st, body = ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
		forbidden(t, st, body, "Bot accounts do not play in tournaments: they play casual games, and ranked games in the bot queue.")
	})
	t.Run("InvitedToACasualTable", func(t *testing.T) {
		st, g := ben.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "invite": []string{"Ida"}})
		if st != http.StatusCreated {
			t.Fatalf("create with an invitation: %d %v", st, g)
		}
		_, invs := ida.Do(http.MethodGet, "/api/v1/invites", nil)
		list, _ := invs["invitations"].([]any)
		if len(list) != 1 {
			t.Fatalf("the bot's invitations: %v", invs)
		}
		inv := list[0].(map[string]any)
		st, view := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%v/accept", inv["id"]), nil)
		if st != http.StatusOK || playerOf(view, "Ida")["bot_account"] != true {
			t.Errorf("accept: %d %v", st, view)
		}
	})
}

// playBots plays a game of bot accounts to its end through the API; a move
// refused by the bots' limit waits (on the test clock) as Retry-After says.
func playBots(t *testing.T, s *apptest.Server, id int64, bots []*apptest.API) {
	t.Helper()
	path := fmt.Sprintf("/api/v1/games/%d", id)
	for n := 0; n < 5000; n++ {
		acted := false
		for _, b := range bots {
			_, view := b.Do(http.MethodGet, path, nil)
			if view["status"] == "finished" {
				return
			}
			if view["your_turn"] != true {
				continue
			}
			v := view["view"].(map[string]any)
			kind := "take"
			if slices.Contains(v["legal"].([]any), any("pass")) && v["pot"].(float64) < 2 {
				kind = "pass"
			}
			st, h, body := apiHeaders(t, s, b, http.MethodPost, path+"/"+kind, map[string]any{"version": v["version"]})
			switch st {
			case http.StatusOK:
				acted = true
			case http.StatusTooManyRequests:
				wait, _ := strconv.Atoi(h.Get("Retry-After"))
				s.Clock.Advance(time.Duration(wait) * time.Second)
				acted = true
			default:
				t.Fatalf("%s: %d %v", kind, st, body)
			}
		}
		if !acted {
			t.Fatal("nobody's turn in a game in play")
		}
	}
	t.Fatal("the game did not end")
}

func TestBotQueueFormsRatedGamesAmongBots(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	var bots, people []*apptest.API
	for i := range 3 {
		b := newBot(t, s, fmt.Sprintf("Robo%d", i))
		if st, q := b.Do(http.MethodPost, "/api/v1/bot/queue", map[string]any{"sizes": []int{3}, "pace": "live"}); st != http.StatusOK || q["queued"] != true {
			t.Fatalf("bot queue: %d %v", st, q)
		}
		bots = append(bots, b)
		p := s.APIFor(fmt.Sprintf("Human%d", i))
		if st, q := p.Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"}); st != http.StatusOK {
			t.Fatalf("queue: %d %v", st, q)
		}
		people = append(people, p)
	}
	if _, q := bots[0].Do(http.MethodGet, "/api/v1/bot/queue", nil); fmt.Sprint(q["waiting"]) != "map[live:3]" {
		t.Errorf("the bot queue counts %v waiting, want 3 live", q["waiting"])
	}
	ids, err := s.App.Ranked.RunMatcher(context.Background())
	if err != nil || len(ids) != 2 {
		t.Fatalf("matcher: %v %v, want two tables: the bots', the people's", ids, err)
	}
	// Each pool plays among itself.
	gameOf := func(a *apptest.API, queue string, wantBots bool) int64 {
		t.Helper()
		_, q := a.Do(http.MethodGet, queue, nil)
		id, ok := q["game_id"].(float64)
		if !ok {
			t.Fatalf("%s not matched: %v", a.Name, q)
		}
		_, g := a.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", int64(id)), nil)
		if g["ranked"] != true || g["status"] != "playing" {
			t.Errorf("matched game: %v", g)
		}
		for _, p := range g["players"].([]any) {
			if pm := p.(map[string]any); pm["bot_account"] != wantBots {
				t.Errorf("%s's ranked game seats %v", a.Name, pm)
			}
		}
		return int64(id)
	}
	botGame := gameOf(bots[0], "/api/v1/bot/queue", true)
	for _, b := range bots[1:] {
		if gameOf(b, "/api/v1/bot/queue", true) != botGame {
			t.Error("the bots were not matched together")
		}
	}
	if gameOf(people[0], "/api/v1/queue", false) == botGame {
		t.Fatal("people were matched with bots")
	}

	playBots(t, s, botGame, bots)

	// The bots' ratings moved, among themselves: K 40 while provisional,
	// so the three changes sum to 0 and someone gained.
	_, ladder := bots[0].Do(http.MethodGet, "/api/v1/ladder?pool=bots", nil)
	rows, _ := ladder["provisional"].([]any)
	if ladder["pool"] != "bots" || len(rows) != 3 {
		t.Fatalf("bot ladder: %v", ladder)
	}
	sum, moved := 0.0, false
	for _, r := range rows {
		rm := r.(map[string]any)
		if rm["bot_account"] != true || rm["ranked_games"] != 1.0 || !strings.HasPrefix(rm["name"].(string), "Robo") {
			t.Errorf("bot ladder row %v", rm)
		}
		sum += rm["rating"].(float64)
		moved = moved || rm["rating"].(float64) != 1500
	}
	if math.Abs(sum-4500) > 0.5 || !moved {
		t.Errorf("bot ratings sum to %.1f (moved %v), want 4500 and changes", sum, moved)
	}
	// The people's ladder never lists bots, on the API or the page.
	_, peoples := people[0].Do(http.MethodGet, "/api/v1/ladder", nil)
	if strings.Contains(fmt.Sprint(peoples), "Robo") || peoples["pool"] != "people" {
		t.Errorf("people's ladder: %v", peoples)
	}
	c := s.Client()
	if strings.Contains(c.Get("/ladder").Body, "Robo") {
		t.Error("the ladder page lists bots")
	}
	res := c.Get("/ladder?pool=bots")
	if !res.Has("bot-ladder-about") || strings.Contains(res.Body, `href="/ranked"`) {
		t.Error("the bot ladder page does not say what it ranks, or offers people the ranked queue")
	}
	page := res.Doc()
	page.Find(`[data-testid="provisional"] [data-testid="ladder-row"]`).Each(func(_ int, row *goquery.Selection) {
		if row.Find(`[data-testid="bot-badge"]`).Length() != 1 {
			t.Errorf("bot ladder row %q has no badge", row.Find(`[data-testid="ladder-name"]`).Text())
		}
	})
	if n := page.Find(`[data-testid="provisional"] [data-testid="ladder-row"]`).Length(); n != 3 {
		t.Errorf("the bot ladder page lists %d bots, want 3", n)
	}
	if res := c.Get("/u/Robo0"); !res.Has("profile-bot") || !res.Has("profile-rating") {
		t.Error("a bot's profile shows no bot line or no rating")
	}
}

func TestBotAccountLimits(t *testing.T) {
	t.Run("GamesAtOnce", func(t *testing.T) {
		s := apptest.New(t, apptest.WithoutWorkers())
		ida := newBot(t, s, "Ida")
		table := map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60}
		var mine []int64
		for range 10 {
			st, g := ida.Do(http.MethodPost, "/api/v1/games", table)
			if st != http.StatusCreated {
				t.Fatalf("create: %d %v", st, g)
			}
			mine = append(mine, gameIDOf(t, g))
		}
		tooMany := func(t *testing.T, method, path string, body any) {
			t.Helper()
			st, h, out := apiHeaders(t, s, ida, method, path, body)
			code, msg := errorOf(out)
			if st != http.StatusTooManyRequests || code != "too_many" || h.Get("Retry-After") != "60" || !strings.Contains(msg, "at most 10 games at once") {
				t.Errorf("%s %s: %d %s %q, Retry-After %q", method, path, st, code, msg, h.Get("Retry-After"))
			}
		}
		tooMany(t, http.MethodPost, "/api/v1/games", table)
		ann := s.APIFor("Ann")
		_, g := ann.Do(http.MethodPost, "/api/v1/games", table)
		anns := fmt.Sprintf("/api/v1/games/%d/join", gameIDOf(t, g))
		tooMany(t, http.MethodPost, anns, nil)
		tooMany(t, http.MethodPost, "/api/v1/bot/queue", map[string]any{"sizes": []int{3}, "pace": "live"})
		// Leaving one of its tables (which cancels it) frees a place.
		if st, body := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/leave", mine[0]), nil); st != http.StatusOK {
			t.Fatalf("leave: %d %v", st, body)
		}
		if st, body := ida.Do(http.MethodPost, anns, nil); st != http.StatusOK {
			t.Errorf("join after leaving one: %d %v", st, body)
		}
	})
	t.Run("MovesAMinute", func(t *testing.T) {
		s := apptest.New(t, apptest.WithoutWorkers())
		bots := []*apptest.API{newBot(t, s, "Ada"), newBot(t, s, "Bob"), newBot(t, s, "Cyd")}
		st, g := bots[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 10, "pace": "live", "turn_seconds": 300})
		if st != http.StatusCreated {
			t.Fatalf("create: %d %v", st, g)
		}
		id := gameIDOf(t, g)
		for _, b := range bots[1:] {
			if st, body := b.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
				t.Fatalf("join: %d %v", st, body)
			}
		}
		// Everyone says No thanks! while they may: the moves come fast,
		// all within a minute of the test clock.
		path := fmt.Sprintf("/api/v1/games/%d", id)
		made := map[string]int{}
		for n := 0; n < 1000; n++ {
			for _, b := range bots {
				_, view := b.Do(http.MethodGet, path, nil)
				if view["your_turn"] != true {
					continue
				}
				v := view["view"].(map[string]any)
				kind := "take"
				if slices.Contains(v["legal"].([]any), any("pass")) {
					kind = "pass"
				}
				move := map[string]any{"version": v["version"]}
				st, h, body := apiHeaders(t, s, b, http.MethodPost, path+"/"+kind, move)
				if st == http.StatusOK {
					made[b.Name]++
					continue
				}
				code, msg := errorOf(body)
				wait, _ := strconv.Atoi(h.Get("Retry-After"))
				if st != http.StatusTooManyRequests || code != "too_many" || !strings.Contains(msg, "at most 60 moves a minute") {
					t.Fatalf("%s's move %d: %d %s %q", b.Name, made[b.Name]+1, st, code, msg)
				}
				if made[b.Name] != 60 || wait < 1 || wait > 60 {
					t.Errorf("refused after %d moves with Retry-After %q, want after 60, within a minute", made[b.Name], h.Get("Retry-After"))
				}
				// Once the minute is over, the same move is made.
				s.Clock.Advance(time.Duration(wait) * time.Second)
				if st, h, body := apiHeaders(t, s, b, http.MethodPost, path+"/"+kind, move); st != http.StatusOK {
					t.Errorf("after Retry-After: %d %v %v", st, h, body)
				}
				return
			}
		}
		t.Fatalf("no move refused: %v", made)
	})
}

// A bot account that stops answering is treated as a person would be: its
// time runs out three times, it has abandoned, a bot of the server's plays
// its seat and it places last.
func TestBotAccountTimesOutAndAbandons(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ann, bea := s.APIFor("Ann"), s.APIFor("Bea")
	ida := newBot(t, s, "Ida")
	st, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 15})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, g)
	}
	id := gameIDOf(t, g)
	for _, p := range []*apptest.API{bea, ida} {
		if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d %v", st, body)
		}
	}
	playOut(t, s, id, []*apptest.API{ann, bea, ida}, ida)
	seats, err := s.Store.Seats(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, seat := range seats {
		if seat.Username != nil && *seat.Username == "Ida" && (!seat.Abandoned || seat.Timeouts != 3) {
			t.Errorf("the bot's seat: abandoned %v after %d timeouts, want after 3", seat.Abandoned, seat.Timeouts)
		}
	}
	_, rec := ann.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/record", id), nil)
	for _, p := range rec["players"].([]any) {
		if pm := p.(map[string]any); pm["name"] == "Ida" && (pm["abandoned"] != true || pm["placing"] != 3.0) {
			t.Errorf("the bot in the record: %v, want abandoned and placed 3rd", pm)
		}
	}
}
