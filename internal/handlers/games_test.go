package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
	"nothanks/internal/engine"
)

// createGame posts the new-game form and returns the game's id.
func createGame(t *testing.T, c *apptest.Client, form url.Values) int64 {
	t.Helper()
	base := url.Values{"seats": {"3"}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}}
	for k, v := range form {
		base[k] = v
	}
	res := c.PostForm("/games", base)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("create game: %d %s", res.Status, res.TestID("form-error"))
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(res.Header.Get("Location"), "/games/"), 10, 64)
	if err != nil {
		t.Fatalf("create game: redirected to %q", res.Header.Get("Location"))
	}
	return id
}

// threePlayers creates a 3-seat game and fills it, so it starts.
func threePlayers(t *testing.T, s *apptest.Server, form url.Values) (int64, []*apptest.Client) {
	t.Helper()
	cs := []*apptest.Client{s.Client().Register("Ann"), s.Client().Register("Ben"), s.Client().Register("Cat")}
	id := createGame(t, cs[0], form)
	for _, c := range cs[1:] {
		if res := c.PostForm(fmt.Sprintf("/games/%d/join", id), nil); res.Status != http.StatusSeeOther {
			t.Fatalf("join: %d", res.Status)
		}
	}
	return id, cs
}

var versionRe = regexp.MustCompile(`data-version="(\d+)"`)

// boardOf returns a client's board page and the version on it.
func boardOf(t *testing.T, c *apptest.Client, id int64) (*apptest.Response, int) {
	t.Helper()
	res := c.Get(fmt.Sprintf("/games/%d", id))
	if res.Status != http.StatusOK {
		t.Fatalf("game page: %d", res.Status)
	}
	m := versionRe.FindStringSubmatch(res.Body)
	if m == nil {
		t.Fatal("no version on the board")
	}
	v, _ := strconv.Atoi(m[1])
	return res, v
}

// whoseTurn returns the index of the client whose page offers the buttons.
func whoseTurn(t *testing.T, cs []*apptest.Client, id int64) (int, int) {
	t.Helper()
	for i, c := range cs {
		res, v := boardOf(t, c, id)
		if res.Has("action-take") {
			return i, v
		}
	}
	return -1, -1
}

func act(c *apptest.Client, id int64, kind string, version int) *apptest.Response {
	return c.PostForm(fmt.Sprintf("/games/%d/%s", id, kind), url.Values{"version": {strconv.Itoa(version)}})
}

func TestPlayAWholeGameByForms(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	for moves := 0; ; moves++ {
		if moves > 2000 {
			t.Fatal("the game did not end")
		}
		i, v := whoseTurn(t, cs, id)
		if i < 0 {
			break
		}
		kind := "pass"
		res, _ := boardOf(t, cs[i], id)
		if !res.Doc().Find(`[data-testid="action-pass"]`).Is(":not([disabled])") || moves%3 == 0 {
			kind = "take"
		}
		if got := act(cs[i], id, kind, v).Status; got != http.StatusSeeOther {
			t.Fatalf("move %d (%s): %d", moves, kind, got)
		}
	}
	res, _ := boardOf(t, cs[0], id)
	if res.Doc().Find(`[data-testid="board"]`).AttrOr("data-status", "") != "finished" {
		t.Fatal("no player can move but the game is not finished")
	}
	places := res.Doc().Find(`[data-testid="standing-place"]`)
	if places.Length() != 3 || strings.TrimSpace(places.First().Text()) != "1st" {
		t.Errorf("standings: %d rows, first %q", places.Length(), places.First().Text())
	}
	// Everyone may now see every final token count in the scored round.
	status, rec := s.APIFor("Reader").Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/record", id), nil)
	if status != http.StatusOK {
		t.Fatalf("record: %d", status)
	}
	rounds := rec["rounds"].([]any)
	if len(rounds) != 1 || len(rounds[0].(map[string]any)["removed"].([]any)) != engine.RemovedCards {
		t.Errorf("record rounds: %v", rounds)
	}
}

// hiddenInfo is the game's secret state, read straight from the database
// and rebuilt with the engine, as no handler would hand it out.
type hiddenInfo struct {
	tokens  []int
	removed []int
	deck    []int
}

func secretsOf(t *testing.T, s *apptest.Server, id int64) hiddenInfo {
	t.Helper()
	ctx := context.Background()
	g, err := s.Store.Game(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	moves, err := s.Store.Moves(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var o engine.Options
	json.Unmarshal(g.Options, &o)
	o.Players = g.Seats
	setup := engine.SetupFromSeed(o, uint64(g.Seed))
	var actions []engine.Action
	for _, m := range moves {
		actions = append(actions, engine.Action{Seat: m.Seat, Kind: engine.ActionKind(m.Kind)})
	}
	eg, err := engine.Replay(o, setup, actions)
	if err != nil {
		t.Fatal(err)
	}
	h := hiddenInfo{removed: setup.Deals[eg.Round()-1].Removed}
	deal := setup.Deals[eg.Round()-1].Deck
	h.deck = deal[len(deal)-eg.DeckLeft():]
	for i := range o.Players {
		h.tokens = append(h.tokens, eg.Tokens(i))
	}
	return h
}

// leaksIn reports hidden information found in a JSON document: an int list
// equal to the removed cards or to the rest of the deck, or a "tokens"
// field of a seat other than allowed.
func leaksIn(doc any, h hiddenInfo, allowedSeat int) []string {
	var leaks []string
	removed := slices.Clone(h.removed)
	sort.Ints(removed)
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			if tok, ok := x["tokens"]; ok && tok != nil {
				if seat, ok := x["seat"].(float64); ok && strings.Contains(path, "seats") && int(seat) != allowedSeat {
					leaks = append(leaks, fmt.Sprintf("%s: seat %d tokens %v", path, int(seat), tok))
				}
			}
			for k, vv := range x {
				walk(vv, path+"."+k)
			}
		case []any:
			var ints []int
			for _, e := range x {
				if f, ok := e.(float64); ok {
					ints = append(ints, int(f))
				}
				walk(e, path+"[]")
			}
			if len(ints) > 0 && len(ints) == len(x) {
				sorted := slices.Clone(ints)
				sort.Ints(sorted)
				if slices.Equal(sorted, removed) {
					leaks = append(leaks, path+": the removed cards")
				}
				if len(ints) > 2 && slices.Equal(ints, h.deck) {
					leaks = append(leaks, path+": the deck order")
				}
			}
		}
	}
	walk(doc, "")
	return leaks
}

// seatTokens reads the token counts shown on an HTML board, by seat.
func seatTokens(res *apptest.Response) []string {
	var out []string
	res.Doc().Find(`[data-testid="seat"] [data-testid="seat-tokens"]`).Each(func(_ int, sel *goquery.Selection) {
		out = append(out, strings.TrimSpace(sel.Text()))
	})
	return out
}

func TestHiddenInformation(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	// Play some moves so that counts differ: take with pot, pass, etc.
	for range 7 {
		i, v := whoseTurn(t, cs, id)
		act(cs[i], id, "pass", v)
	}
	h := secretsOf(t, s, id)
	stranger := s.Client().Register("Stranger")
	visitor := s.Client()

	// HTML: each player sees their own count and "?" for the others.
	seatOfClient := map[int]int{}
	for i, c := range cs {
		res, _ := boardOf(t, c, id)
		shown := seatTokens(res)
		if len(shown) != 3 {
			t.Fatalf("player %d sees %d seats", i, len(shown))
		}
		me := -1
		for seat, txt := range shown {
			if txt != "?" {
				if me >= 0 {
					t.Errorf("player %d sees two token counts: %v", i, shown)
				}
				me = seat
			}
		}
		if me < 0 || shown[me] != strconv.Itoa(h.tokens[me]) {
			t.Errorf("player %d sees %v; true counts %v", i, shown, h.tokens)
		}
		seatOfClient[i] = me
		if got := res.TestID("my-tokens"); got != strconv.Itoa(h.tokens[me]) {
			t.Errorf("player %d: my-tokens %q, holds %d", i, got, h.tokens[me])
		}
	}
	for name, c := range map[string]*apptest.Client{"stranger": stranger, "visitor": visitor} {
		res, _ := boardOf(t, c, id)
		for _, txt := range seatTokens(res) {
			if txt != "?" {
				t.Errorf("%s sees a token count: %v", name, seatTokens(res))
			}
		}
		if res.Has("my-tokens") || res.Has("action-take") {
			t.Errorf("%s is offered a player's controls", name)
		}
		frag := c.Get(fmt.Sprintf("/games/%d/board", id))
		if strings.Contains(frag.Body, `data-testid="my-tokens"`) {
			t.Errorf("%s's board fragment has tokens", name)
		}
	}

	// JSON API: a player's view holds only their own tokens, never the
	// deck order or the removed cards.
	api := s.APIFor("Watcher")
	for _, who := range []struct {
		name string
		api  *apptest.API
		seat int
	}{{"spectator", api, -1}} {
		_, raw := who.api.Raw(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		var doc any
		json.Unmarshal(raw, &doc)
		if leaks := leaksIn(doc, h, who.seat); len(leaks) > 0 {
			t.Errorf("%s's API view leaks: %v", who.name, leaks)
		}
	}
	for i, name := range []string{"Ann", "Ben", "Cat"} {
		u, _ := s.Store.UserByName(context.Background(), name)
		token, _ := s.App.Accounts.CreateAPIToken(context.Background(), u.ID, "t")
		a := apptest.NewAPI(s, token)
		_, raw := a.Raw(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		var doc map[string]any
		json.Unmarshal(raw, &doc)
		if leaks := leaksIn(doc, h, seatOfClient[i]); len(leaks) > 0 {
			t.Errorf("%s's API view leaks: %v", name, leaks)
		}
		view := doc["view"].(map[string]any)
		mine := view["seats"].([]any)[seatOfClient[i]].(map[string]any)["tokens"]
		if mine == nil || int(mine.(float64)) != h.tokens[seatOfClient[i]] {
			t.Errorf("%s's own tokens in the API: %v, holds %d", name, mine, h.tokens[seatOfClient[i]])
		}
	}

	// The event stream: the first board pushed to a visitor has no counts.
	board := firstStreamedBoard(t, s.URL, visitor, id)
	if strings.Contains(board, `data-testid="my-tokens"`) || !strings.Contains(board, `data-testid="seat-tokens">?<`) {
		t.Error("the visitor's stream shows token counts")
	}

	// The record is not available while the game runs.
	if status, _ := api.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/record", id), nil); status != http.StatusConflict {
		t.Errorf("record of a running game: %d, want 409", status)
	}
	if res := visitor.Get(fmt.Sprintf("/games/%d/record", id)); res.Status != http.StatusConflict {
		t.Errorf("HTML-side record of a running game: %d, want 409", res.Status)
	}
}

// firstStreamedBoard opens the game's event stream and returns the first
// board it sends.
func firstStreamedBoard(t *testing.T, base string, c *apptest.Client, id int64) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/games/%d/events", base, id), nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	return readEvent(t, bufio.NewReader(res.Body))
}

// readEvent reads one "board" event's data from a stream.
func readEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var data []string
	inBoard := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "event: board":
			inBoard = true
		case strings.HasPrefix(line, "data: ") && inBoard:
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "" && inBoard:
			return strings.Join(data, "\n")
		}
	}
}

func TestStaleAndRepeatedActions(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	i, v := whoseTurn(t, cs, id)
	if res := act(cs[i], id, "pass", v); res.Status != http.StatusSeeOther {
		t.Fatalf("first pass: %d", res.Status)
	}
	// The same request again (double click, replay): refused, not applied.
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/games/%d/pass", s.URL, id), strings.NewReader(url.Values{"version": {strconv.Itoa(v)}, "_csrf": {cs[i].CSRFToken()}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	res := cs[i].Do(req)
	if res.Status != http.StatusConflict || !strings.Contains(res.TestID("notice"), "moved on") {
		t.Fatalf("repeated pass: %d %q", res.Status, res.TestID("notice"))
	}
	if !res.Has("board") {
		t.Error("the refusal does not show the fresh table")
	}
	moves, _ := s.Store.Moves(context.Background(), id)
	if len(moves) != 1 {
		t.Errorf("%d moves stored, want 1", len(moves))
	}
	// Acting out of turn, with the current version.
	j, v2 := whoseTurn(t, cs, id)
	other := cs[(j+1)%3]
	res = other.Do(htmxPost(t, other, s.URL, fmt.Sprintf("/games/%d/take", id), v2))
	if res.Status != http.StatusConflict || !strings.Contains(res.TestID("notice"), "not your turn") {
		t.Errorf("out of turn: %d %q", res.Status, res.TestID("notice"))
	}
	// Someone not in the game.
	stranger := s.Client().Register("Nosy")
	res = stranger.Do(htmxPost(t, stranger, s.URL, fmt.Sprintf("/games/%d/take", id), v2))
	if res.Status != http.StatusForbidden {
		t.Errorf("stranger's move: %d, want 403", res.Status)
	}
	// A visitor: sent to log in.
	if res := s.Client().PostForm(fmt.Sprintf("/games/%d/take", id), url.Values{"version": {"1"}}); res.Status != http.StatusUnauthorized {
		t.Errorf("visitor's move: %d, want 401", res.Status)
	}
	moves, _ = s.Store.Moves(context.Background(), id)
	if len(moves) != 1 {
		t.Errorf("%d moves stored after refused actions, want 1", len(moves))
	}
}

func htmxPost(t *testing.T, c *apptest.Client, base, path string, version int) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(url.Values{"version": {strconv.Itoa(version)}, "_csrf": {c.CSRFToken()}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	return req
}

func TestConcurrentDoubleSubmitAppliesOnce(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	i, v := whoseTurn(t, cs, id)
	results := make(chan int, 8)
	for range 8 {
		go func() { results <- act(cs[i], id, "take", v).Status }()
	}
	for range 8 {
		<-results
	}
	moves, _ := s.Store.Moves(context.Background(), id)
	if len(moves) != 1 {
		t.Errorf("8 simultaneous takes of version %d stored %d moves, want 1", v, len(moves))
	}
}

func TestLobbyRules(t *testing.T) {
	s := apptest.New(t)
	ann, ben := s.Client().Register("Ann"), s.Client().Register("Ben")
	id := createGame(t, ann, url.Values{"seats": {"4"}})
	path := func(p string) string { return fmt.Sprintf("/games/%d/%s", id, p) }
	if res := ann.PostForm(path("start"), nil); res.Status != http.StatusSeeOther || !strings.Contains(ann.Follow(res).TestID("flash"), "at least 3") {
		t.Errorf("start with one player: %d", res.Status)
	}
	ben.PostForm(path("join"), nil)
	if res := ben.Do(htmxPost(t, ben, s.URL, path("start"), 0)); res.Status != http.StatusForbidden {
		t.Errorf("start by a non-creator: %d, want 403", res.Status)
	}
	if res := ben.Do(htmxPost(t, ben, s.URL, path("join"), 0)); res.Status != http.StatusConflict {
		t.Errorf("joining twice: %d, want 409", res.Status)
	}
	ben.PostForm(path("leave"), nil)
	res, _ := boardOf(t, ann, id)
	if n := res.Doc().Find(`[data-testid="lobby-seat"]`).Length(); n != 1 {
		t.Errorf("%d seats after Ben left, want 1", n)
	}
	ann.PostForm(path("bots"), url.Values{"level": {"heuristic"}})
	ann.PostForm(path("bots"), url.Values{"level": {"random"}})
	res, _ = boardOf(t, ann, id)
	if !res.Has("start") {
		t.Fatal("no start button with 3 seats taken")
	}
	if r := ann.PostForm(path("bots"), url.Values{"level": {"grandmaster"}}); r.Status != http.StatusSeeOther {
		t.Errorf("unknown bot level: %d", r.Status)
	}
	// The fourth seat fills: the game starts by itself.
	ben.PostForm(path("join"), nil)
	res, _ = boardOf(t, ben, id)
	if status := res.Doc().Find(`[data-testid="board"]`).AttrOr("data-status", ""); status != "playing" {
		t.Fatalf("a full table did not start: %q", status)
	}
	if r := s.Client().Register("Late").Do(htmxPost(t, ann, s.URL, path("join"), 0)); r.Status == http.StatusOK {
		t.Error("joined a started game")
	}
}

func TestRankedGamesRefuseBots(t *testing.T) {
	s := apptest.New(t)
	ann := s.Client().Register("Ann")
	id := createGame(t, ann, url.Values{"ranked": {"true"}})
	res := ann.Do(htmxPostForm(t, ann, s.URL, fmt.Sprintf("/games/%d/bots", id), url.Values{"level": {"random"}}))
	if res.Status != http.StatusForbidden {
		t.Errorf("bot in a ranked game: %d, want 403", res.Status)
	}
	if r := ann.PostForm("/games", url.Values{"seats": {"3"}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "ranked": {"true"}, "private": {"true"}}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("private ranked game: %d, want 422", r.Status)
	}
}

func htmxPostForm(t *testing.T, c *apptest.Client, base, path string, form url.Values) *http.Request {
	form.Set("_csrf", c.CSRFToken())
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	return req
}

func TestCreateGameValidation(t *testing.T) {
	s := apptest.New(t)
	c := s.Client().Register("Maker")
	tests := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"ErrTwoSeats", url.Values{"seats": {"2"}}, "seats"},
		{"ErrElevenRounds", url.Values{"rounds": {"11"}}, "rounds"},
		{"ErrAmigoForSix", url.Values{"seats": {"6"}, "variant": {"amigo"}}, "variant"},
		{"ErrUnknownVariant", url.Values{"variant": {"mystery"}}, "variant"},
		{"ErrLiveTimerTooLong", url.Values{"turn_seconds": {"3600"}}, "turn_seconds"},
		{"ErrCorrespondenceTimerTooShort", url.Values{"pace": {"correspondence"}, "turn_seconds": {"60"}}, "turn_seconds"},
		{"ErrNoPace", url.Values{"pace": {"sometimes"}}, "pace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"seats": {"3"}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}}
			for k, v := range tt.form {
				form[k] = v
			}
			res := c.PostForm("/games", form)
			if res.Status != http.StatusUnprocessableEntity || res.TestID("error-"+tt.field) == "" {
				t.Errorf("status %d, error on %s: %q", res.Status, tt.field, res.TestID("error-"+tt.field))
			}
		})
	}
	// Not a number at all.
	res := c.PostForm("/games", url.Values{"seats": {"lots"}})
	if res.Status != http.StatusUnprocessableEntity && res.Status != http.StatusBadRequest {
		t.Errorf("seats=lots: %d", res.Status)
	}
}

func TestPrivateGames(t *testing.T) {
	s := apptest.New(t)
	ann := s.Client().Register("Ann")
	id := createGame(t, ann, url.Values{"private": {"true"}})
	res, _ := boardOf(t, ann, id)
	invite := res.TestID("invite-url")
	if !strings.Contains(invite, "/join/") {
		t.Fatalf("no invite link: %q", invite)
	}
	code := invite[strings.LastIndex(invite, "/")+1:]
	ben := s.Client().Register("Ben")
	if r := ben.Get(fmt.Sprintf("/games/%d", id)); r.Status != http.StatusNotFound {
		t.Errorf("private game without the link: %d, want 404", r.Status)
	}
	if r := s.Client().Get("/games"); strings.Contains(r.Body, fmt.Sprintf("Game #%d", id)) {
		t.Error("a private game is listed among open games")
	}
	if r := ben.Do(htmxPost(t, ben, s.URL, fmt.Sprintf("/games/%d/join", id), 0)); r.Status != http.StatusNotFound {
		t.Errorf("joining a private game without the code: %d, want 404", r.Status)
	}
	page := ben.Get("/join/" + code)
	if page.Status != http.StatusOK || !page.Has("join") {
		t.Fatalf("invite page: %d, join button %v", page.Status, page.Has("join"))
	}
	if r := ben.PostForm(fmt.Sprintf("/games/%d/join", id), url.Values{"code": {code}}); r.Status != http.StatusSeeOther {
		t.Fatalf("join with the code: %d", r.Status)
	}
	if r := ben.Get(fmt.Sprintf("/games/%d", id)); r.Status != http.StatusOK {
		t.Errorf("a seated player cannot see the private game: %d", r.Status)
	}
	if r := s.Client().Get("/join/not-a-code"); r.Status != http.StatusNotFound {
		t.Errorf("bad invite code: %d", r.Status)
	}
}

func TestBotsPlayToTheEnd(t *testing.T) {
	s := apptest.New(t)
	ann := s.APIFor("Ann")
	status, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 2, "variant": "amigo", "pace": "live", "turn_seconds": 15, "hidden_tiger": true})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	path := fmt.Sprintf("/api/v1/games/%d", id)
	for _, level := range []string{"heuristic", "strong"} {
		if st, body := ann.Do(http.MethodPost, path+"/bots", map[string]any{"level": level}); st != http.StatusOK {
			t.Fatalf("add %s bot: %d %v", level, st, body)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the game did not finish in 60 s")
		}
		_, view := ann.Do(http.MethodGet, path, nil)
		if view["status"] == "finished" {
			break
		}
		if view["your_turn"] == true {
			v := view["view"].(map[string]any)
			kind := "take"
			legal := v["legal"].([]any)
			if slices.Contains(legal, any("tiger")) {
				kind = "tiger"
			} else if slices.Contains(legal, any("pass")) && int(v["pot"].(float64)) < 3 {
				kind = "pass"
			}
			if st, body := ann.Do(http.MethodPost, path+"/"+kind, map[string]any{"version": v["version"]}); st != http.StatusOK && st != http.StatusConflict {
				t.Fatalf("%s: %d %v", kind, st, body)
			}
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	status, rec := ann.Do(http.MethodGet, path+"/record", nil)
	if status != http.StatusOK {
		t.Fatalf("record: %d", status)
	}
	if n := len(rec["rounds"].([]any)); n != 2 {
		t.Errorf("record has %d rounds, want 2", n)
	}
	for _, r := range rec["rounds"].([]any) {
		rr := r.(map[string]any)
		removed := rr["removed"].([]any)
		if !slices.Contains(removed, any(float64(10))) || !slices.Contains(removed, any(float64(20))) {
			t.Errorf("Amigo round removed %v, want 10 and 20 among them", removed)
		}
		if len(rr["results"].([]any)) != 3 {
			t.Errorf("round results: %v", rr["results"])
		}
	}
	players := rec["players"].([]any)
	bots := 0
	for _, p := range players {
		if p.(map[string]any)["bot"] != nil {
			bots++
		}
	}
	if bots != 2 {
		t.Errorf("record names %d bots, want 2", bots)
	}
}

func TestRestartLosesNothing(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	for range 5 {
		i, v := whoseTurn(t, cs, id)
		act(cs[i], id, "pass", v)
	}
	before, vBefore := boardOf(t, cs[0], id)
	// A second server on the same database, as after a restart (the first
	// one's cookies stay valid: the signing key is kept in the database).
	s2 := apptest.NewOn(t, s.Store, s.DBURL)
	u, _ := url.Parse(s.URL)
	u2, _ := url.Parse(s2.URL)
	moved := make([]*apptest.Client, 3)
	for i, c := range cs {
		moved[i] = s2.Client()
		moved[i].HTTP.Jar.SetCookies(u2, c.HTTP.Jar.Cookies(u))
	}
	after, vAfter := boardOf(t, moved[0], id)
	if vAfter != vBefore || strings.Join(seatTokens(after), ",") != strings.Join(seatTokens(before), ",") {
		t.Fatalf("after restart: version %d (was %d), tokens %v (were %v)", vAfter, vBefore, seatTokens(after), seatTokens(before))
	}
	i, v := whoseTurn(t, moved, id)
	if i < 0 || act(moved[i], id, "take", v).Status != http.StatusSeeOther {
		t.Fatal("play does not go on after the restart")
	}
}

func TestTimeoutsAndAbandonment(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	id, cs := threePlayers(t, s, url.Values{"turn_seconds": {"15"}})
	ctx := context.Background()
	// Nobody moves: each expired timer makes one move for the player to
	// move, until someone has let three run out.
	abandoned := -1
	for n := 1; n <= 3*apptestMaxTimeouts && abandoned < 0; n++ {
		if _, err := s.App.Games.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		moves, _ := s.Store.Moves(ctx, id)
		if len(moves) != n-1 {
			t.Fatalf("%d moves before timer %d expired, want %d", len(moves), n, n-1)
		}
		s.Clock.Advance(16 * time.Second)
		if made, err := s.App.Games.RunDue(ctx); err != nil || made != 1 {
			t.Fatalf("timer %d: %d moves made (%v), want 1", n, made, err)
		}
		seats, _ := s.Store.Seats(ctx, id)
		for _, st := range seats {
			if st.Abandoned {
				abandoned = *st.Seat
				if st.Timeouts != apptestMaxTimeouts {
					t.Errorf("seat %d abandoned after %d timeouts", abandoned, st.Timeouts)
				}
			}
		}
	}
	if abandoned < 0 {
		t.Fatal("nobody abandoned the game")
	}
	moves, _ := s.Store.Moves(ctx, id)
	for _, m := range moves {
		if !m.Timeout {
			t.Errorf("move %d not marked as a timeout", m.Seq)
		}
	}
	res, _ := boardOf(t, cs[0], id)
	if !strings.Contains(res.Body, "time ran out") || !strings.Contains(res.Body, "abandoned: a bot plays") {
		t.Error("the table does not show the timeouts and the abandonment")
	}
	// From now on the abandoned seat is played by a bot: when it is that
	// seat's turn, no person is awaited and the move is due within a bot's
	// pause, not a player's timer.
	for range 20 {
		g, _ := s.Store.Game(ctx, id)
		if g.Status != "playing" {
			break
		}
		if g.TurnSeat != nil && *g.TurnSeat == abandoned {
			if g.TurnUserID != nil || g.DueAt.Sub(s.Clock.Now()) > time.Second {
				t.Fatalf("the abandoned seat waits for its player: user %v, due in %s", g.TurnUserID, g.DueAt.Sub(s.Clock.Now()))
			}
			return
		}
		s.Clock.Advance(16 * time.Second)
		if _, err := s.App.Games.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

const apptestMaxTimeouts = 3

func TestTwoInstancesDeliverEveryMove(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	other := apptest.NewOn(t, s.Store, s.DBURL)
	viewer := other.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/games/%d/events", other.URL, id), nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := viewer.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	first := readEvent(t, r)
	v0 := versionRe.FindStringSubmatch(first)[1]
	i, v := whoseTurn(t, cs, id)
	start := time.Now()
	if act(cs[i], id, "pass", v).Status != http.StatusSeeOther {
		t.Fatal("move failed")
	}
	next := readEvent(t, r)
	v1 := versionRe.FindStringSubmatch(next)[1]
	if v1 == v0 {
		t.Fatalf("the second instance pushed version %s again", v1)
	}
	t.Logf("a move on one instance reached a viewer of the other in %s", time.Since(start))
}

func TestWatchListAndMyGames(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	watch := s.Client().Get("/watch")
	if !strings.Contains(watch.Body, fmt.Sprintf("Game #%d", id)) {
		t.Error("a live public game is not on the watch list")
	}
	i, _ := whoseTurn(t, cs, id)
	mine := cs[i].Get("/my/games")
	if !mine.Has("my-turn") {
		t.Error("my games does not say it is my turn")
	}
	home := cs[i].Get("/")
	if got := home.TestID("nav-my-turn"); got != "1" {
		t.Errorf("nav count of games waiting = %q, want 1", got)
	}
	if !strings.Contains(home.TestID("home-waiting"), fmt.Sprintf("Game #%d", id)) {
		t.Error("the start page does not list the game waiting for the player")
	}
	if other := cs[(i+1)%3].Get("/"); other.Has("home-waiting") {
		t.Error("the start page lists a game as waiting for a player whose turn it is not")
	}
	if !strings.Contains(s.Client().Get("/").TestID("live-games"), fmt.Sprintf("Game #%d", id)) {
		t.Error("the start page does not show the live game")
	}
}

func TestTwoInstancesSweepEachDueGameOnce(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	other := apptest.NewOn(t, s.Store, s.DBURL, apptest.WithoutWorkers())
	var ids []int64
	for i := range 8 {
		cs := []*apptest.Client{s.Client().Register(fmt.Sprintf("Sa%d", i)), s.Client().Register(fmt.Sprintf("Sb%d", i)), s.Client().Register(fmt.Sprintf("Sc%d", i))}
		id := createGame(t, cs[0], url.Values{"turn_seconds": {"15"}})
		for _, c := range cs[1:] {
			c.PostForm(fmt.Sprintf("/games/%d/join", id), nil)
		}
		ids = append(ids, id)
	}
	// Every game's timer runs out; both instances sweep at once.
	s.Clock.Advance(16 * time.Second)
	other.Clock.Advance(16 * time.Second)
	ctx := context.Background()
	done := make(chan int, 2)
	for _, inst := range []*apptest.Server{s, other} {
		go func() {
			n, err := inst.App.Games.RunDue(ctx)
			if err != nil {
				t.Error(err)
			}
			done <- n
		}()
	}
	total := <-done + <-done
	if total != len(ids) {
		t.Errorf("the two instances made %d moves for %d due games", total, len(ids))
	}
	for _, id := range ids {
		moves, _ := s.Store.Moves(ctx, id)
		if len(moves) != 1 {
			t.Errorf("game %d: %d moves, want exactly 1", id, len(moves))
		}
	}
}

func TestStreamsRecoverWhenTheListenerIsCut(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/games/%d/events", s.URL, id), nil)
	res, err := s.Client().HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	v0 := versionRe.FindStringSubmatch(readEvent(t, r))[1]
	// Cut this instance's LISTEN connection, as a network fault would.
	if _, err := s.Store.DB.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'listen%'`); err != nil {
		t.Fatal(err)
	}
	i, v := whoseTurn(t, cs, id)
	if act(cs[i], id, "pass", v).Status != http.StatusSeeOther {
		t.Fatal("move failed")
	}
	// The notification of that move may be lost with the connection; after
	// reconnecting, the listener wakes every stream, which re-reads its game.
	// (Boards that differ only in the watcher count may come first.)
	for {
		if v1 := versionRe.FindStringSubmatch(readEvent(t, r))[1]; v1 != v0 {
			return
		}
	}
}

func TestStreamSkipsTheBoardThePageAlreadyShows(t *testing.T) {
	s := apptest.New(t)
	id, cs := threePlayers(t, s, nil)
	// A seated player: the watcher count leaves players out, so the board
	// the stream would send first is byte for byte the page's own.
	viewer := cs[0]
	page := viewer.Get(fmt.Sprintf("/games/%d", id))
	streamPath, ok := page.Doc().Find(`[data-testid="live"]`).Attr("sse-connect")
	if !ok || !strings.Contains(streamPath, "h=") {
		t.Fatalf("stream URL %q carries no digest", streamPath)
	}
	v0 := versionRe.FindStringSubmatch(page.Body)[1]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+streamPath, nil)
	res, err := viewer.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	i, v := whoseTurn(t, cs, id)
	act(cs[i], id, "pass", v)
	// The first board the stream sends is the one after the move, never
	// the page's own again.
	first := readEvent(t, bufio.NewReader(res.Body))
	if versionRe.FindStringSubmatch(first)[1] == v0 {
		t.Error("the stream sent the board the page already showed")
	}
}
