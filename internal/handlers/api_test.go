package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/handlers"
)

func errCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func TestAPIErrorsHaveStableCodes(t *testing.T) {
	s := apptest.New(t)
	a := s.APIFor("Coder")
	anon := apptest.NewAPI(s, "")
	forged := apptest.NewAPI(s, "nt_not-a-real-token")
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	tests := []struct {
		name   string
		api    *apptest.API
		method string
		path   string
		body   any
		status int
		code   string
	}{
		{"ErrNoToken", anon, http.MethodGet, "/api/v1/games", nil, http.StatusUnauthorized, "unauthorized"},
		{"ErrForgedToken", forged, http.MethodGet, "/api/v1/games", nil, http.StatusUnauthorized, "unauthorized"},
		{"ErrBadOptions", a, http.MethodPost, "/api/v1/games", map[string]any{"seats": 9, "pace": "live", "turn_seconds": 60}, http.StatusUnprocessableEntity, "invalid"},
		{"ErrNoSuchGame", a, http.MethodGet, "/api/v1/games/999999", nil, http.StatusNotFound, "not_found"},
		{"ErrNotStarted", a, http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": 0}, http.StatusConflict, "conflict"},
		{"ErrNoVersion", a, http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{}, http.StatusUnprocessableEntity, "invalid"},
		{"ErrUnknownBot", a, http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "wizard"}, http.StatusUnprocessableEntity, "invalid"},
		{"ErrUnknownRoute", a, http.MethodGet, "/api/v1/nothing", nil, http.StatusNotFound, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := tt.api.Do(tt.method, tt.path, tt.body)
			if status != tt.status || errCode(body) != tt.code {
				t.Errorf("%s %s: %d %v, want %d %q", tt.method, tt.path, status, body, tt.status, tt.code)
			}
			if msg, _ := body["error"].(map[string]any)["message"].(string); msg == "" {
				t.Error("no message for people")
			}
		})
	}
	// Bad JSON.
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/games", strings.NewReader("{not json"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: %d", res.StatusCode)
	}
}

// The Authorization header as RFC 9110 and RFC 6750 read it: the scheme
// in any case, the token after it; a bare token or another scheme is no
// credential, answered with the challenge alone; a wrong token gets the
// challenge with error="invalid_token".
func TestAPIAuthorizationHeader(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	a := s.APIFor("Header")
	challenge := `Bearer realm="nothanks"`
	invalid := `Bearer realm="nothanks", error="invalid_token"`
	for _, tc := range []struct {
		header    string
		status    int
		challenge string
	}{
		{"Bearer " + a.Token, http.StatusOK, ""},
		{"bearer " + a.Token, http.StatusOK, ""},
		{"BEARER   " + a.Token + " ", http.StatusOK, ""},
		{"", http.StatusUnauthorized, challenge},
		{a.Token, http.StatusUnauthorized, challenge},
		{"Basic " + a.Token, http.StatusUnauthorized, challenge},
		{"Bearer", http.StatusUnauthorized, challenge},
		{"Bearer nt_not-a-real-token", http.StatusUnauthorized, invalid},
	} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1/me", nil)
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		status, h, body := send(t, req)
		if status != tc.status || h.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("Authorization %q: %d with WWW-Authenticate %q, want %d with %q", tc.header, status, h.Get("WWW-Authenticate"), tc.status, tc.challenge)
		}
		// Each says what was wrong: no token at all, or a token that is
		// not valid.
		_, msg := errorOf(body)
		switch tc.challenge {
		case challenge:
			if !strings.HasPrefix(msg, "Send a valid personal API token as 'Authorization: Bearer <token>'") {
				t.Errorf("Authorization %q: %q", tc.header, msg)
			}
		case invalid:
			if !strings.HasPrefix(msg, "This token is not valid: it was revoked or mistyped") {
				t.Errorf("Authorization %q: %q", tc.header, msg)
			}
		}
	}
}

func TestAPITokensFromSettings(t *testing.T) {
	s := apptest.New(t)
	c := s.Client().Register("Keys")
	if res := c.PostForm("/settings/tokens", url.Values{"name": {""}}); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a token without a name: %d", res.Status)
	}
	res := c.PostForm("/settings/tokens", url.Values{"name": {"my bot"}})
	token := res.TestID("new-token")
	if res.Status != http.StatusOK || !strings.HasPrefix(token, "nt_") {
		t.Fatalf("create token: %d %q", res.Status, token)
	}
	if strings.Contains(c.Get("/settings").Body, token) {
		t.Error("the token is shown again after creation")
	}
	api := apptest.NewAPI(s, token)
	if status, me := api.Do(http.MethodGet, "/api/v1/me", nil); status != http.StatusOK || me["username"] != "Keys" {
		t.Fatalf("me: %d %v", status, me)
	}
	u, _ := s.Store.UserByName(context.Background(), "Keys")
	tokens, _ := s.Store.APITokens(context.Background(), u.ID)
	if len(tokens) != 1 || tokens[0].LastUsedAt == nil {
		t.Fatalf("tokens: %+v", tokens)
	}
	if res := c.PostForm(fmt.Sprintf("/settings/tokens/%d/revoke", tokens[0].ID), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.Status)
	}
	if status, _ := api.Do(http.MethodGet, "/api/v1/me", nil); status != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", status)
	}
	other := s.Client().Register("Thief")
	if res := other.PostForm(fmt.Sprintf("/settings/tokens/%d/revoke", tokens[0].ID), nil); res.Status != http.StatusNotFound {
		t.Errorf("revoking someone else's token: %d, want 404", res.Status)
	}
}

// A checked token is trusted from memory, but revoking it on one instance
// ends it on every instance.
func TestRevokedTokenEndsOnEveryInstance(t *testing.T) {
	s := apptest.New(t)
	other := apptest.NewOn(t, s.Store, s.DBURL)
	c := s.Client().Register("Keys")
	token := c.PostForm("/settings/tokens", url.Values{"name": {"my bot"}}).TestID("new-token")
	there := apptest.NewAPI(other, token)
	for range 3 { // checked once, then from memory
		if status, _ := there.Do(http.MethodGet, "/api/v1/me", nil); status != http.StatusOK {
			t.Fatalf("me on the other instance: %d", status)
		}
	}
	u, _ := s.Store.UserByName(context.Background(), "Keys")
	tokens, _ := s.Store.APITokens(context.Background(), u.ID)
	if res := c.PostForm(fmt.Sprintf("/settings/tokens/%d/revoke", tokens[0].ID), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.Status)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _ := there.Do(http.MethodGet, "/api/v1/me", nil)
		if status == http.StatusUnauthorized {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other instance still accepts the revoked token: %d", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Answers do not grow with the game: a move's answer carries what the move
// caused, a read carries the last RecentEvents of the round, and the whole
// log is there when asked for.
func TestAPIAnswersStayBoundedAsTheGameGrows(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Long"), s.APIFor("Round"), s.APIFor("Here")}
	status, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	for _, p := range players[1:] {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
	}
	path := fmt.Sprintf("/api/v1/games/%d", id)
	var firstRead int
	// Everyone says No thanks! while they can: the round grows long.
	for n := 0; n < 150; n++ {
		var mover *apptest.API
		var view map[string]any
		for _, p := range players {
			if _, v := p.Do(http.MethodGet, path, nil); v["your_turn"] == true {
				mover, view = p, v
			}
		}
		_, raw := mover.Raw(http.MethodGet, path, nil)
		if n == 0 {
			firstRead = len(raw)
		} else if len(raw) > firstRead+4000 {
			t.Fatalf("a read at move %d is %d bytes, at the start %d: it grows with the game", n, len(raw), firstRead)
		}
		v := view["view"].(map[string]any)
		kind := "take"
		for _, l := range v["legal"].([]any) {
			if l == "pass" {
				kind = "pass"
			}
		}
		_, after := mover.Do(http.MethodPost, path+"/"+kind, map[string]any{"version": v["version"]})
		events := after["view"].(map[string]any)["events"].([]any)
		first := events[0].(map[string]any)
		// By hand: a No thanks! is one event; a take is the take and the
		// next card turned up.
		want := map[string]int{"pass": 1, "take": 2}[kind]
		if first["kind"] != kind || len(events) != want {
			t.Fatalf("move %d (%s): the answer's events %v, want the move and what it caused (%d)", n, kind, events, want)
		}
		if n == 149 {
			round := v["events"].([]any)
			if len(round) != handlers.RecentEvents || view["events_omitted"].(float64) < 1 {
				t.Errorf("a read carries %d events with %v omitted, want the last %d", len(round), view["events_omitted"], handlers.RecentEvents)
			}
			_, full := mover.Do(http.MethodGet, path+"?log=full", nil)
			if got := len(full["view"].(map[string]any)["events"].([]any)); got < n+2 {
				t.Errorf("?log=full carries %d events after %d moves", got, n+1)
			}
		}
	}
}

// A move the API refuses with 409 comes with the caller's view of the
// game as it is now (the message says "here is the table as it is now"):
// the same move sent twice gets the version after the first, and the
// view hides the other seats' tokens as every answer does; out of turn,
// the same.
func TestAPIRefusedMoveComesWithTheTable(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Twice"), s.APIFor("Other"), s.APIFor("Third")}
	id := newAPITable(t, players, nil)
	path := fmt.Sprintf("/api/v1/games/%d", id)
	var mover *apptest.API
	var seat float64
	for _, p := range players {
		if _, g := p.Do(http.MethodGet, path, nil); g["your_turn"] == true {
			mover, seat = p, g["your_seat"].(float64)
		}
	}
	if status, g := mover.Do(http.MethodPost, path+"/pass", map[string]any{"version": 0}); status != http.StatusOK || g["version"] != 1.0 {
		t.Fatalf("the first pass: %d %v", status, g["version"])
	}
	status, body := mover.Do(http.MethodPost, path+"/pass", map[string]any{"version": 0})
	g, _ := body["game"].(map[string]any)
	if status != http.StatusConflict || errCode(body) != "conflict" || g == nil || g["version"] != 1.0 || g["your_seat"] != seat || g["your_turn"] != false {
		t.Fatalf("the pass again: %d %v", status, body)
	}
	seats := g["view"].(map[string]any)["seats"].([]any)
	for i, st := range seats {
		tokens := st.(map[string]any)["tokens"]
		if mine := float64(i) == seat; mine != (tokens != nil) {
			t.Errorf("seat %d's tokens in the refusal: %v (the caller sits at %v)", i, tokens, seat)
		}
	}
	if mine := seats[int(seat)].(map[string]any)["tokens"]; mine != 10.0 {
		t.Errorf("the caller's tokens after one pass: %v, want 11 - 1 = 10", mine)
	}
	// Out of turn, at the current version.
	for _, p := range players {
		if _, g := p.Do(http.MethodGet, path, nil); g["your_turn"] != true && p != mover {
			status, body := p.Do(http.MethodPost, path+"/take", map[string]any{"version": 1})
			if g, _ := body["game"].(map[string]any); status != http.StatusConflict || g == nil || g["version"] != 1.0 {
				t.Errorf("out of turn: %d %v", status, body)
			}
			break
		}
	}
}

// A body with a value of the wrong type, or a field the request does not
// have (a typo), is answered 422 with the field at fault and what it
// takes, in the fields of the error; a version below 0 is bad input
// (422), not a stale one (409); nothing is made or moved.
func TestAPIBadBodiesNameTheirField(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Typo"), s.APIFor("Other"), s.APIFor("Third")}
	id := newAPITable(t, players, nil)
	game := fmt.Sprintf("/api/v1/games/%d", id)
	for _, tc := range []struct {
		path  string
		body  any
		field string
		says  string
	}{
		{"/api/v1/games", map[string]any{"seats": "four"}, "seats", "This field takes a whole number."},
		{"/api/v1/games", map[string]any{"seats": 3, "private": "yes"}, "private", "This field takes true or false."},
		{"/api/v1/games", map[string]any{"seats": 3, "invite": "Other"}, "invite", "This field takes a list, in brackets."},
		{"/api/v1/games", map[string]any{"seats": 3, "variant": 2}, "variant", "This field takes text, in quotes."},
		{game + "/take", map[string]any{"version": "0"}, "version", "This field takes a whole number."},
		{game + "/take", map[string]any{"version": -1}, "version", "Send the version of the game you saw, as {\"version\": N}."},
		{game + "/take", map[string]any{"version": 0.5}, "version", "This field takes a whole number."},
		{game + "/invites", map[string]any{"username": 7}, "username", "This field takes text, in quotes."},
		{"/api/v1/queue", map[string]any{"sizes": 3, "pace": "live"}, "sizes", "This field takes a list, in brackets."},
		{"/api/v1/games", map[string]any{"seat": 3}, "seat", "There is no such field here: see the API reference (/docs/api-reference)."},
		{game + "/take", map[string]any{"version": 0, "card": 12}, "card", "There is no such field here: see the API reference (/docs/api-reference)."},
		{"/api/v1/games", map[string]any{"Seats": 5}, "Seats", "There is no such field here: see the API reference (/docs/api-reference)."},
	} {
		status, body := players[0].Do(http.MethodPost, tc.path, tc.body)
		e, _ := body["error"].(map[string]any)
		fields, _ := e["fields"].(map[string]any)
		if status != http.StatusUnprocessableEntity || errCode(body) != "invalid" || fields[tc.field] != tc.says {
			t.Errorf("POST %s %v: %d %v, want 422 with %s: %q", tc.path, tc.body, status, body, tc.field, tc.says)
		}
	}
	// Bodies that are not one JSON object.
	// A name given twice is named.
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/games", strings.NewReader(`{"seats": 3, "seats": 5}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+players[0].Token)
	if status, _, body := send(t, req); status != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "seats:This field is given twice: send it once.") {
		t.Errorf("seats given twice: %d %v", status, body)
	}
	for _, raw := range []string{`null`, `[{"seats": 3}]`, `{"seats": 3} and more`, `{"seats": 3}{"seats": 4}`, `{"seats": 3`} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/games", strings.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+players[0].Token)
		status, _, body := send(t, req)
		if _, msg := errorOf(body); status != http.StatusUnprocessableEntity || msg != "The body is not a JSON object of game options." {
			t.Errorf("the body %s: %d %v", raw, status, body)
		}
	}
	if _, mine := players[0].Do(http.MethodGet, "/api/v1/games/mine", nil); len(mine["games"].([]any)) != 1 {
		t.Errorf("games made by bad bodies: %v", mine)
	}
	if _, g := players[0].Do(http.MethodGet, game, nil); g["version"] != 0.0 {
		t.Errorf("the game moved: version %v", g["version"])
	}
}

// Every wrong option of a new game is named at once, each with its own
// message, not only the first the server checks.
func TestAPICreateNamesEveryWrongOption(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	a := s.APIFor("Careless")
	status, body := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 9, "rounds": 0, "variant": "giant", "pace": "slow", "ranked": true, "private": true})
	e, _ := body["error"].(map[string]any)
	fields, _ := e["fields"].(map[string]any)
	want := map[string]any{
		"seats":   "A game has 3 to 7 players.",
		"rounds":  "A game has 1 to 10 rounds.",
		"variant": "Choose one of the variants in the list.",
		"pace":    "Choose live or correspondence.",
		"private": "Ranked games are public.",
	}
	if status != http.StatusUnprocessableEntity || fmt.Sprint(fields) != fmt.Sprint(want) {
		t.Errorf("%d %v, want 422 with %v", status, fields, want)
	}
	// A combination wrong on its own: 6 players in a variant for 3 to 5.
	status, body = a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 6, "variant": "amigo"})
	e, _ = body["error"].(map[string]any)
	fields, _ = e["fields"].(map[string]any)
	if status != http.StatusUnprocessableEntity || fields["variant"] != "This variant is for 3 to 5 players." {
		t.Errorf("6 players of amigo: %d %v", status, fields)
	}
	// A name that cannot be invited is a field too ("invite"), beside the
	// options' mistakes; alone, it is the answer's message as well.
	fieldsOf := func(body map[string]any) map[string]any {
		e, _ := body["error"].(map[string]any)
		f, _ := e["fields"].(map[string]any)
		return f
	}
	nobody := "There is no player called Nobody."
	status, body = a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 9, "invite": []string{"Nobody"}})
	if f := fieldsOf(body); status != http.StatusUnprocessableEntity || f["seats"] != "A game has 3 to 7 players." || f["invite"] != nobody {
		t.Errorf("9 seats inviting Nobody: %d %v", status, body)
	}
	status, body = a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "invite": []string{"Nobody"}})
	if _, msg := errorOf(body); status != http.StatusUnprocessableEntity || msg != nobody || fmt.Sprint(fieldsOf(body)) != fmt.Sprint(map[string]any{"invite": nobody}) {
		t.Errorf("inviting Nobody: %d %v", status, body)
	}
	if _, mine := a.Do(http.MethodGet, "/api/v1/games/mine", nil); len(mine["games"].([]any)) != 0 {
		t.Errorf("a refused invitation made a table: %v", mine)
	}
	status, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	status, body = a.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%v/invites", g["id"]), map[string]any{"username": "Nobody"})
	if _, msg := errorOf(body); status != http.StatusUnprocessableEntity || msg != nobody || fieldsOf(body)["username"] != nobody {
		t.Errorf("inviting Nobody to a table: %d %v", status, body)
	}
}

// A known address asked with a method it does not take is answered 405
// with the methods it takes in Allow; an unknown address is 404.
func TestAPIWrongMethodIs405(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	a := s.APIFor("Method")
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3})
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodDelete, fmt.Sprintf("/api/v1/games/%v", g["id"]), http.StatusMethodNotAllowed, "GET"},
		{http.MethodPut, "/api/v1/queue", http.StatusMethodNotAllowed, "GET, POST, DELETE"},
		{http.MethodGet, fmt.Sprintf("/api/v1/games/%v/take", g["id"]), http.StatusMethodNotAllowed, "POST"},
		{http.MethodGet, "/api/v1/nothing", http.StatusNotFound, ""},
		{http.MethodPost, "/api/v1/games/1/nothing", http.StatusNotFound, ""},
	} {
		status, h, body := apiHeaders(t, s, a, tc.method, tc.path, nil)
		if status != tc.status || h.Get("Allow") != tc.allow || errCode(body) == "" {
			t.Errorf("%s %s: %d (Allow %q) %v, want %d (Allow %q)", tc.method, tc.path, status, h.Get("Allow"), body, tc.status, tc.allow)
		}
	}
}

// A private table's code reaches its players through the API (the page
// shows it them): its creator passes it on, and a player who was not
// invited joins with it; without it the table does not exist for them.
// Once the game starts the code is no longer in the answers.
func TestAPIPrivateTableCode(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	host, friend, third := s.APIFor("Host"), s.APIFor("Friend"), s.APIFor("Third")
	status, g := host.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "private": true})
	code, _ := g["invite_code"].(string)
	if u, _ := g["invite_url"].(string); status != http.StatusCreated || code == "" || !strings.HasSuffix(u, "/join/"+code) {
		t.Fatalf("create a private table: %d %v", status, g)
	}
	path := fmt.Sprintf("/api/v1/games/%v", g["id"])
	if status, body := friend.Do(http.MethodGet, path, nil); status != http.StatusNotFound {
		t.Errorf("a private table read without being at it: %d %v", status, body)
	}
	if status, body := friend.Do(http.MethodPost, path+"/join", nil); status != http.StatusNotFound {
		t.Errorf("joined a private table without its code: %d %v", status, body)
	}
	status, g = friend.Do(http.MethodPost, path+"/join", map[string]any{"code": code})
	if status != http.StatusOK || g["invite_code"] != code {
		t.Fatalf("join with the code: %d %v", status, g)
	}
	status, g = third.Do(http.MethodPost, path+"/join", map[string]any{"code": code})
	if status != http.StatusOK || g["status"] != "playing" {
		t.Fatalf("the third joins: %d %v", status, g)
	}
	if _, has := g["invite_code"]; has {
		t.Errorf("the code is still given once the game started: %v", g)
	}
}

// A query parameter the API reads, given a value it cannot take, is
// refused naming it (it was read as if left out).
func TestAPIBadQueryValues(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	a := s.APIFor("Query")
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3})
	game := fmt.Sprintf("/api/v1/games/%v", g["id"])
	for _, tc := range []struct{ path, field string }{
		{game + "?log=foo", "log"},
		{game + "?log=FULL", "log"},
		{"/api/v1/ladder?page=abc", "page"},
		{"/api/v1/ladder?page=-1", "page"},
		{"/api/v1/ladder?page=0", "page"},
	} {
		status, body := a.Do(http.MethodGet, tc.path, nil)
		e, _ := body["error"].(map[string]any)
		fields, _ := e["fields"].(map[string]any)
		if status != http.StatusUnprocessableEntity || fields[tc.field] == nil {
			t.Errorf("GET %s: %d %v, want 422 naming %s", tc.path, status, body, tc.field)
		}
	}
	for _, path := range []string{game + "?log=full", "/api/v1/ladder?page=1", "/api/v1/ladder?page=99999", game + "?unknown=1"} {
		if status, body := a.Do(http.MethodGet, path, nil); status != http.StatusOK {
			t.Errorf("GET %s: %d %v", path, status, body)
		}
	}
}

// A move at a table its creator cancelled says so, not that the game is
// over.
func TestAPIMoveAtACancelledTable(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	a := s.APIFor("Leaver")
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3})
	path := fmt.Sprintf("/api/v1/games/%v", g["id"])
	if status, body := a.Do(http.MethodPost, path+"/leave", nil); status != http.StatusOK {
		t.Fatalf("leave: %d %v", status, body)
	}
	status, body := a.Do(http.MethodPost, path+"/take", map[string]any{"version": 0})
	if _, msg := errorOf(body); status != http.StatusConflict || msg != "This game was cancelled: there are no moves to make in it." {
		t.Errorf("a move at a cancelled table: %d %v", status, body)
	}
}
