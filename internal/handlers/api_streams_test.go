package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"nothanks/internal/apistream"
	"nothanks/internal/apptest"
)

// newAPITable makes a live 3-player table of API players and starts it.
func newAPITable(t *testing.T, players []*apptest.API, opts map[string]any) int64 {
	t.Helper()
	body := map[string]any{"seats": len(players), "rounds": 1, "pace": "live", "turn_seconds": 300}
	for k, v := range opts {
		body[k] = v
	}
	status, g := players[0].Do(http.MethodPost, "/api/v1/games", body)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	for _, p := range players[1:] {
		if status, v := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); status != http.StatusOK {
			t.Fatalf("join: %d %v", status, v)
		}
	}
	return id
}

// actions counts the decisions (take, pass, tiger) among some events:
// each makes one version of the game.
func actions(events []any) int {
	n := 0
	for _, e := range events {
		switch e.(map[string]any)["kind"] {
		case "take", "pass", "tiger":
			n++
		}
	}
	return n
}

// checkHidden fails when a streamed line shows what its reader may not
// see: another seat's tokens while the game is played, or the deck.
func checkHidden(t *testing.T, who string, raw []byte, line map[string]any) {
	t.Helper()
	if strings.Contains(string(raw), `"deck"`) {
		t.Errorf("%s: a line names the deck: %s", who, raw)
	}
	g, _ := line["game"].(map[string]any)
	if g == nil || g["view"] == nil {
		return
	}
	open := g["options"].(map[string]any)["open_tokens"] == true
	mine := -1
	if s, ok := g["your_seat"].(float64); ok {
		mine = int(s)
	}
	for i, seat := range g["view"].(map[string]any)["seats"].([]any) {
		tokens := seat.(map[string]any)["tokens"]
		switch {
		case i == mine:
			if _, ok := tokens.(float64); !ok {
				t.Errorf("%s: its own tokens are %v", who, tokens)
			}
		case !open && g["status"] != "finished" && tokens != nil:
			t.Errorf("%s: seat %d's tokens (%v) are in a line while the game is played", who, i, tokens)
		}
	}
}

// Three players play a whole game through their game streams alone: each
// reads its lines and moves when a line says it is its turn, with no read
// of the game in between. Every line hides the others' tokens, versions
// only go forward, and the lines' events, put one after the other, are
// the game's whole log from the first line on, as a read of the finished
// game gives it.
func TestAPIGameStreamPlaysAWholeGame(t *testing.T) {
	s := apptest.New(t)
	players := []*apptest.API{s.APIFor("Streamer"), s.APIFor("Flow"), s.APIFor("Line")}
	id := newAPITable(t, players, nil)
	path := fmt.Sprintf("/api/v1/games/%d", id)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	type result struct {
		first  float64
		events []any
		moves  int
		lines  int
	}
	results := make([]result, len(players))
	var wg sync.WaitGroup
	for i, p := range players {
		lines := p.Stream(ctx, path+"/stream")
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer lines.Close()
			r := &results[i]
			last := -1.0
			for {
				m, raw, err := lines.Read()
				if err != nil {
					t.Errorf("%s: the stream ended: %v", p.Name, err)
					return
				}
				if m["type"] == "ping" {
					continue
				}
				if m["type"] != "game" {
					t.Errorf("%s: a %v line", p.Name, m["type"])
					return
				}
				r.lines++
				checkHidden(t, p.Name, raw, m)
				g := m["game"].(map[string]any)
				v := g["version"].(float64)
				if last < 0 {
					r.first = v
				} else {
					if v < last {
						t.Errorf("%s: version %v after %v", p.Name, v, last)
					}
					evs, _ := g["view"].(map[string]any)["events"].([]any)
					if got := actions(evs); got != int(v-last) {
						t.Errorf("%s: the line of version %v carries %d decisions after version %v", p.Name, v, got, last)
					}
					r.events = append(r.events, evs...)
				}
				last = v
				if g["status"] == "finished" {
					return
				}
				if g["your_turn"] != true {
					continue
				}
				view := g["view"].(map[string]any)
				kind := "pass"
				if view["pot"].(float64) >= 2 || !strings.Contains(fmt.Sprint(view["legal"]), "pass") {
					kind = "take"
				}
				if status, body := p.Do(http.MethodPost, path+"/"+kind, map[string]any{"version": v}); status != http.StatusOK {
					t.Errorf("%s: %s at version %v: %d %v", p.Name, kind, v, status, body)
					return
				}
				r.moves++
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	_, full := players[0].Do(http.MethodGet, path+"?log=full", nil)
	log := full["view"].(map[string]any)["events"].([]any)
	version := full["version"].(float64)
	moves := 0
	for i, p := range players {
		r := results[i]
		moves += r.moves
		// The log after the first line's version, counted by hand: from
		// the decision that made the version after it.
		n, from := 0, len(log)
		for j, e := range log {
			if k := e.(map[string]any)["kind"]; k == "take" || k == "pass" {
				if n == int(r.first) {
					from = j
					break
				}
				n++
			}
		}
		want, _ := json.Marshal(log[from:])
		got, _ := json.Marshal(r.events)
		if string(got) != string(want) {
			t.Errorf("%s: the lines' events after version %v:\n%s\nthe game's log after it:\n%s", p.Name, r.first, got, want)
		}
	}
	if moves != int(version) {
		t.Errorf("the players made %d moves through their streams; the game is at version %v", moves, version)
	}
}

// A stream resumed after a drop misses no version: the first line of the
// new stream carries every decision made since the version the reader
// last saw.
func TestAPIGameStreamResumesAfterADrop(t *testing.T) {
	s := apptest.New(t)
	other := apptest.NewOn(t, s.Store, s.DBURL)
	players := []*apptest.API{s.APIFor("Drop"), s.APIFor("Stay"), s.APIFor("Third")}
	id := newAPITable(t, players, nil)
	path := fmt.Sprintf("/api/v1/games/%d", id)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The reader follows the game on the other instance.
	reader := apptest.NewAPI(other, players[0].Token)
	lines := reader.Stream(ctx, path+"/stream")
	seen := lines.Next("game")["game"].(map[string]any)["version"].(float64)
	lines.Close()
	// Six decisions are made while it is away.
	moveOnce := func() string {
		for _, p := range players {
			_, g := p.Do(http.MethodGet, path, nil)
			if g["your_turn"] == true {
				kind := "pass"
				if !strings.Contains(fmt.Sprint(g["view"].(map[string]any)["legal"]), "pass") {
					kind = "take"
				}
				if status, body := p.Do(http.MethodPost, path+"/"+kind, map[string]any{"version": g["version"]}); status != http.StatusOK {
					t.Fatalf("%s: %d %v", kind, status, body)
				}
				return kind
			}
		}
		t.Fatal("nobody's turn")
		return ""
	}
	var made []string
	for range 6 {
		made = append(made, moveOnce())
	}
	lines = reader.Stream(ctx, fmt.Sprintf("%s/stream?version=%d", path, int(seen)))
	g := lines.Next("game")["game"].(map[string]any)
	if g["version"].(float64) != seen+6 {
		t.Fatalf("resumed at version %v, want %v", g["version"], seen+6)
	}
	var kinds []string
	for _, e := range g["view"].(map[string]any)["events"].([]any) {
		switch k := e.(map[string]any)["kind"].(string); k {
		case "take", "pass":
			kinds = append(kinds, k)
		}
	}
	if fmt.Sprint(kinds) != fmt.Sprint(made) {
		t.Errorf("the resumed line's decisions %v, made while away %v", kinds, made)
	}
	// The game read again with nothing new (a late or doubled notice, a
	// presence check finding the instance behind) sends no line.
	for range 2 {
		other.App.Watch.Changed(id)
		time.Sleep(200 * time.Millisecond)
	}
	// A move made on the first instance reaches the stream on the other.
	kind := moveOnce()
	g = lines.Next("game")["game"].(map[string]any)
	evs := g["view"].(map[string]any)["events"].([]any)
	if g["version"].(float64) != seen+7 || actions(evs) != 1 || evs[0].(map[string]any)["kind"] != kind {
		t.Errorf("after one more move: version %v with events %v", g["version"], g["view"].(map[string]any)["events"])
	}
	// A version from the future (another instance's, or a client's
	// mistake) gets the whole view; a bad one is refused.
	far := reader.Stream(ctx, path+"/stream?version=9999")
	if g := far.Next("game")["game"].(map[string]any); g["version"].(float64) != seen+7 {
		t.Errorf("resuming after a later version: %v", g["version"])
	}
	for _, q := range []string{"-1", "x", "1.5"} {
		_, status, body := reader.OpenStream(ctx, path+"/stream?version="+q)
		if status != http.StatusUnprocessableEntity || !strings.Contains(string(body), "version") {
			t.Errorf("?version=%s: %d %s", q, status, body)
		}
	}
}

// A stream opened at an open table misses nothing of the start: the
// table before the start and the first position are both version 0, and
// the line of the start carries the first round's start (the one event
// the start makes, with no decision), so that the lines' events are still
// the game's log. A client resuming from version 0 gets it too.
func TestAPIGameStreamOpenedBeforeTheStart(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Early"), s.APIFor("Second"), s.APIFor("Last")}
	status, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	path := fmt.Sprintf("/api/v1/games/%v", g["id"])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines := players[0].Stream(ctx, path+"/stream")
	if first := lines.Next("game")["game"].(map[string]any); first["status"] != "open" || first["version"] != 0.0 {
		t.Fatalf("the first line: %v at version %v", first["status"], first["version"])
	}
	for _, p := range players[1:] {
		if status, v := p.Do(http.MethodPost, path+"/join", nil); status != http.StatusOK {
			t.Fatalf("join: %d %v", status, v)
		}
	}
	kinds := func(g map[string]any) []string {
		out := []string{}
		if v, ok := g["view"].(map[string]any); ok {
			for _, e := range v["events"].([]any) {
				out = append(out, e.(map[string]any)["kind"].(string))
			}
		}
		return out
	}
	var start map[string]any
	for start == nil {
		g := lines.Next("game")["game"].(map[string]any)
		switch g["status"] {
		case "open":
			if k := kinds(g); len(k) != 0 {
				t.Errorf("a line of the open table carries events %v", k)
			}
		case "playing":
			start = g
		default:
			t.Fatalf("a line with status %v", g["status"])
		}
	}
	if start["version"] != 0.0 || fmt.Sprint(kinds(start)) != "[round_start]" {
		t.Errorf("the line of the start: version %v with events %v, want version 0 with [round_start]", start["version"], kinds(start))
	}
	lines.Close()
	// Resumed from version 0, after the start: the start's event again
	// (the server cannot tell which version 0 the client read).
	again := players[0].Stream(ctx, path+"/stream?version=0")
	if g := again.Next("game")["game"].(map[string]any); fmt.Sprint(kinds(g)) != "[round_start]" {
		t.Errorf("resumed from version 0: events %v, want [round_start]", kinds(g))
	}
	// The first decision's line carries that decision alone.
	took := false
	for _, p := range players {
		if _, read := p.Do(http.MethodGet, path, nil); read["your_turn"] == true {
			if status, v := p.Do(http.MethodPost, path+"/take", map[string]any{"version": 0}); status != http.StatusOK {
				t.Fatalf("take: %d %v", status, v)
			}
			took = true
			break
		}
	}
	if !took {
		t.Fatal("nobody's turn at the start")
	}
	g = again.Next("game")["game"].(map[string]any)
	if k := kinds(g); g["version"] != 1.0 || len(k) == 0 || k[0] != "take" || slices.Contains(k, "round_start") {
		t.Errorf("the first decision's line: version %v with events %v, want version 1 from the take on", g["version"], k)
	}
}

// The stream's errors: no token, a bad one, a game that is not there or
// is private, too many streams for one token; a revoked token's streams
// end at once, on every instance, with a last line saying why.
func TestAPIStreamRefusalsAndRevokedTokens(t *testing.T) {
	s := apptest.New(t)
	other := apptest.NewOn(t, s.Store, s.DBURL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := s.Client().Register("Holder")
	token := c.PostForm("/settings/tokens", url.Values{"name": {"stream bot"}}).TestID("new-token")
	me := apptest.NewAPI(s, token)
	owner := s.APIFor("Owner")
	status, g := owner.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "private": true})
	if status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	private := int64(g["id"].(float64))
	for _, c := range []struct {
		name, token, path string
		want              int
	}{
		{"no token", "", "/api/v1/stream/events", http.StatusUnauthorized},
		{"a bad token", "nt_nothing", "/api/v1/games/1/stream", http.StatusUnauthorized},
		{"no such game", token, "/api/v1/games/999999/stream", http.StatusNotFound},
		{"a private game", token, fmt.Sprintf("/api/v1/games/%d/stream", private), http.StatusNotFound},
	} {
		_, status, body := apptest.NewAPI(s, c.token).OpenStream(ctx, c.path)
		if status != c.want || !strings.Contains(string(body), `"code"`) {
			t.Errorf("%s: %d %s, want %d with an error code", c.name, status, body, c.want)
		}
	}
	// MaxPerToken streams at once on the two instances together, then
	// 429 on either until one closes.
	var open []*apptest.Lines
	there := apptest.NewAPI(other, token)
	for i := range apistream.MaxPerToken {
		if i == apistream.MaxPerToken/2 {
			// The first half is known to the other instance once written.
			time.Sleep(apistream.CountsEvery + time.Second)
		}
		api := me
		if i >= apistream.MaxPerToken/2 {
			api = there
		}
		open = append(open, api.Stream(ctx, "/api/v1/stream/events"))
	}
	time.Sleep(apistream.CountsEvery + time.Second)
	for _, api := range []*apptest.API{me, there} {
		_, status, body := api.OpenStream(ctx, "/api/v1/stream/events")
		if status != http.StatusTooManyRequests || !strings.Contains(string(body), "too_many") || !strings.Contains(string(body), "close one") {
			t.Fatalf("one stream too many: %d %s", status, body)
		}
	}
	// The answer says when to try again: after the open streams are
	// counted again.
	if st, h, _ := apiHeaders(t, s, me, http.MethodGet, "/api/v1/stream/events", nil); st != http.StatusTooManyRequests || h.Get("Retry-After") != "3" {
		t.Errorf("one stream too many: %d with Retry-After %q, want 429 with 3", st, h.Get("Retry-After"))
	}
	open[0].Close()
	var again *apptest.Lines
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		l, status, _ := there.OpenStream(ctx, "/api/v1/stream/events")
		if l != nil {
			again = l
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing one, another is refused: %d", status)
		}
	}
	open[0] = again
	// The revocation ends the streams on both instances.
	u, _ := s.Store.UserByName(ctx, "Holder")
	tokens, _ := s.Store.APITokens(ctx, u.ID)
	if res := c.PostForm(fmt.Sprintf("/settings/tokens/%d/revoke", tokens[0].ID), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.Status)
	}
	for i, l := range open {
		end := l.Next("end")
		if end["reason"] != "revoked" {
			t.Errorf("stream %d ended with %v", i, end)
		}
		if _, _, err := l.Read(); err == nil {
			t.Errorf("stream %d goes on after its end line", i)
		}
	}
}

// The account's event stream, followed by a player who acts on nothing
// else: an invitation (with its id, which she accepts), the game's start,
// each decision that is hers (after taking a card, the next one too), the
// game's end and an offer to play again. Opened again mid-game, it starts
// with the games she plays, the invitations waiting and the decision
// waiting.
func TestAPIEventStreamTellsAnAccountWhatHappens(t *testing.T) {
	s := apptest.New(t)
	ida, owner, third := s.APIFor("Ida"), s.APIFor("Host"), s.APIFor("Tre")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	events := ida.Stream(ctx, "/api/v1/stream/events")
	// Nothing to say: a keep-alive line within a few seconds.
	if m, raw, err := events.Read(); err != nil || m["type"] != "ping" {
		t.Fatalf("the first line of an account with nothing going on: %s %v", raw, err)
	}
	status, g := owner.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300, "invite": []string{"Ida"}})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := g["id"].(float64)
	inv := events.Next("invitation")
	_, pending := ida.Do(http.MethodGet, "/api/v1/invites", nil)
	want := pending["invitations"].([]any)[0].(map[string]any)
	if inv["game_id"] != id || inv["invitation_id"] != want["id"] {
		t.Fatalf("the invitation line %v; the invitation waiting %v", inv, want)
	}
	if status, body := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%v/accept", inv["invitation_id"]), nil); status != http.StatusOK {
		t.Fatalf("accept: %d %v", status, body)
	}
	third.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%v/join", id), nil)
	if start := events.Next("game_start"); start["game_id"] != id {
		t.Fatalf("game_start %v, want game %v", start, id)
	}
	// The others pass when they can; Ida takes every card when her turn
	// comes, told by her stream: each take is followed by her turn at the
	// next version (she decides again on the card turned up).
	path := fmt.Sprintf("/api/v1/games/%v", id)
	others := func() {
		for moved := true; moved; {
			moved = false
			for _, p := range []*apptest.API{owner, third} {
				_, v := p.Do(http.MethodGet, path, nil)
				if v["your_turn"] == true {
					kind := "pass"
					if !strings.Contains(fmt.Sprint(v["view"].(map[string]any)["legal"]), "pass") {
						kind = "take"
					}
					p.Do(http.MethodPost, path+"/"+kind, map[string]any{"version": v["version"]})
					moved = true
				}
			}
		}
	}
	turns := 0
	var lastVersion float64 = -1
	for {
		others()
		m, raw, err := events.Read()
		if err != nil {
			t.Fatalf("the stream ended: %v", err)
		}
		if m["type"] == "game_end" {
			if m["game_id"] != id {
				t.Errorf("game_end %v", m)
			}
			break
		}
		if m["type"] != "your_turn" {
			if m["type"] != "ping" {
				t.Errorf("a line in play: %s", raw)
			}
			continue
		}
		v := m["version"].(float64)
		if m["game_id"] != id || v <= lastVersion {
			t.Fatalf("your_turn %s after version %v", raw, lastVersion)
		}
		if turns == 3 {
			// Mid-game, a second stream starts with what is going on.
			again := ida.Stream(ctx, "/api/v1/stream/events")
			start, turn := again.Next("game_start"), again.Next("your_turn")
			if start["game_id"] != id || turn["game_id"] != id || turn["version"] != v {
				t.Errorf("a stream opened mid-game starts with %v and %v, want game %v at version %v", start, turn, id, v)
			}
			again.Close()
		}
		lastVersion = v
		turns++
		if status, body := ida.Do(http.MethodPost, path+"/take", map[string]any{"version": v}); status != http.StatusOK {
			t.Fatalf("take at %v: %d %v", v, status, body)
		}
	}
	// By hand: Ida took every card she was offered, and the game ends with
	// the deck's last card; she decided once per card she took.
	_, final := ida.Do(http.MethodGet, path, nil)
	mine := final["view"].(map[string]any)["seats"].([]any)[int(final["your_seat"].(float64))].(map[string]any)
	if got := len(mine["cards"].([]any)); got != turns {
		t.Errorf("Ida was told of %d decisions and holds %d cards", turns, got)
	}
	if status, body := owner.Do(http.MethodPost, path+"/rematch", nil); status != http.StatusOK {
		t.Fatalf("rematch: %d %v", status, body)
	}
	if offer := events.Next("rematch_offer"); offer["game_id"] != id {
		t.Errorf("rematch_offer %v", offer)
	}
}

// A tournament's events reach its players' event streams: the start,
// the table each is seated at (and that game's start), the game's end.
func TestAPIEventStreamCarriesTournamentEvents(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ava", "Ben", "Cid")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Streamed arena", "table_size": 3, "minutes": 20})
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	events := ps[1].Stream(ctx, "/api/v1/stream/events")
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	game := float64(currentGame(t, ps[1], id))
	var got []string
	for len(got) < 3 {
		l, raw, err := events.Read()
		if err != nil {
			t.Fatalf("the stream ended: %v (after %v)", err, got)
		}
		switch l["type"] {
		case "ping", "your_turn":
			continue
		case "tournament_start":
			if l["tournament_id"] != float64(id) {
				t.Errorf("%s", raw)
			}
		case "tournament_table", "game_start":
			if l["game_id"] != game || (l["type"] == "tournament_table" && l["tournament_id"] != float64(id)) {
				t.Errorf("%s, want game %v of tournament %d", raw, game, id)
			}
		default:
			t.Errorf("an unexpected line: %s", raw)
		}
		got = append(got, l["type"].(string))
	}
	slices.Sort(got)
	if want := []string{"game_start", "tournament_start", "tournament_table"}; !slices.Equal(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	apptest.PlayOut(t, ps, int64(game))
	if end := events.Next("game_end"); end["game_id"] != game || end["tournament_id"] != float64(id) {
		t.Errorf("game_end %v", end)
	}
}

// chatLine is a chat line's message, as a test reads it.
type chatLine struct {
	channel, author, body string
	bot, hidden, hasBody  bool
	id                    float64
}

// nextChatLine reads a game stream until its next chat line, passing over
// game and ping lines.
func nextChatLine(t *testing.T, lines *apptest.Lines) chatLine {
	t.Helper()
	m := lines.Next("chat")
	msg := m["message"].(map[string]any)
	c := chatLine{channel: m["channel"].(string), author: msg["author"].(string), bot: msg["bot_account"] == true, hidden: msg["hidden"] == true, id: msg["id"].(float64)}
	c.body, c.hasBody = msg["body"].(string)
	return c
}

// The game stream carries the chat its reader reads: a seated player the
// players' chat, anyone else the spectators'; the messages said before it
// opened come after its first line, each new one as it is said, a bot
// account's marked as such, and a message a moderator hides comes again
// hidden, its text for moderators only. (Expectations by hand: who said
// what, in which channel, in which order.)
func TestAPIGameStreamCarriesTheChat(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann, cat := s.APIFor("Ann"), s.APIFor("Cat")
	bot := newBot(t, s, "Chatter")
	id := newAPITable(t, []*apptest.API{ann, bot, cat}, nil)
	sam, moe := s.APIFor("Sam"), s.APIFor("Moe")
	if err := s.App.Moderation.Grant(ctx, "Moe", true); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/api/v1/games/%d", id)
	say := func(a *apptest.API, text string) float64 {
		t.Helper()
		st, m := a.Do(http.MethodPost, path+"/chat", map[string]any{"text": text})
		if st != http.StatusCreated && st != http.StatusOK {
			t.Fatalf("%s says %q: %d %v", a.Name, text, st, m)
		}
		return m["id"].(float64)
	}
	hello := say(ann, "hello all")
	early := say(sam, "good luck Ann")

	annLines := ann.Stream(ctx, path+"/stream")
	samLines := sam.Stream(ctx, path+"/stream")
	moeLines := moe.Stream(ctx, path+"/stream")
	for who, l := range map[string]*apptest.Lines{"Ann": annLines, "Sam": samLines, "Moe": moeLines} {
		if m, _, err := l.Read(); err != nil || m["type"] != "game" {
			t.Fatalf("%s's first line: %v %v", who, m, err)
		}
	}
	want := func(who string, got chatLine, w chatLine) {
		t.Helper()
		if got != w {
			t.Errorf("%s's chat line: %+v, want %+v", who, got, w)
		}
	}
	// What was said before: each reader's own channel only.
	want("Ann", nextChatLine(t, annLines), chatLine{channel: "players", author: "Ann", body: "hello all", hasBody: true, id: hello})
	want("Sam", nextChatLine(t, samLines), chatLine{channel: "spectators", author: "Sam", body: "good luck Ann", hasBody: true, id: early})
	want("Moe", nextChatLine(t, moeLines), chatLine{channel: "spectators", author: "Sam", body: "good luck Ann", hasBody: true, id: early})

	// Said now: the bot account's message is marked; the spectators'
	// streams never get the players' chat, nor the players' the
	// spectators'.
	gl := say(bot, "gl hf")
	want("Ann", nextChatLine(t, annLines), chatLine{channel: "players", author: "Chatter", bot: true, body: "gl hf", hasBody: true, id: gl})
	rude := say(sam, "Cat plays like a potato")
	want("Sam", nextChatLine(t, samLines), chatLine{channel: "spectators", author: "Sam", body: "Cat plays like a potato", hasBody: true, id: rude})
	want("Moe", nextChatLine(t, moeLines), chatLine{channel: "spectators", author: "Sam", body: "Cat plays like a potato", hasBody: true, id: rude})

	// Moe hides Sam's message: it comes again hidden, its text to the
	// moderator alone.
	mc := loggedIn(t, s, moe)
	if res := mc.PostForm(fmt.Sprintf("/admin/messages/%d/hide", int64(rude)), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("hide: %d", res.Status)
	}
	want("Sam", nextChatLine(t, samLines), chatLine{channel: "spectators", author: "Sam", hidden: true, id: rude})
	want("Moe", nextChatLine(t, moeLines), chatLine{channel: "spectators", author: "Sam", hidden: true, body: "Cat plays like a potato", hasBody: true, id: rude})

	// The next line of each is the next message of its own channel: the
	// other channel's messages came to none of them.
	last := say(cat, "thanks")
	want("Ann", nextChatLine(t, annLines), chatLine{channel: "players", author: "Cat", body: "thanks", hasBody: true, id: last})
	seen := say(moe, "keep it kind")
	want("Sam", nextChatLine(t, samLines), chatLine{channel: "spectators", author: "Moe", body: "keep it kind", hasBody: true, id: seen})

	// The chat's read answers the same mark.
	_, c := ann.Do(http.MethodGet, path+"/chat", nil)
	var authors []string
	for _, m := range c["messages"].([]any) {
		m := m.(map[string]any)
		authors = append(authors, fmt.Sprintf("%v:%v", m["author"], m["bot_account"]))
	}
	if fmt.Sprint(authors) != "[Ann:false Chatter:true Cat:false]" {
		t.Errorf("the players' chat read: %v", authors)
	}

	// A stream opened again (resumed after a version) gets the chat again
	// after its first line, in the order it was said.
	annLines.Close()
	again := ann.Stream(ctx, path+"/stream?version=0")
	again.Next("game")
	for _, w := range []float64{hello, gl, last} {
		if got := nextChatLine(t, again); got.id != w {
			t.Errorf("the resumed stream's chat: message %v, want %v", got.id, w)
		}
	}
}
