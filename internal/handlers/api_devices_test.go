package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"nothanks/internal/apptest"
	"nothanks/internal/push/pushtest"
)

// addDevice posts a push subscription through the API with a user agent.
func addDevice(t *testing.T, s *apptest.Server, a *apptest.API, body map[string]any, ua string) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/push/devices", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.Token)
	req.Header.Set("User-Agent", ua)
	status, _, out := send(t, req)
	return status, out
}

func subscriptionOf(d *pushtest.Device) map[string]any {
	return map[string]any{"endpoint": d.Endpoint, "keys": map[string]string{"p256dh": d.P256dh, "auth": d.Auth}}
}

// An app notifies its device through the API as Settings does in a
// browser: it subscribes with the server's key, names the device, sends
// it a test that the push service accepts (signed for that key), chooses
// the kinds (Settings shows the same), and removes it; another account
// can do nothing to it, and bad bodies are refused with what to send.
func TestDevicesThroughTheAPI(t *testing.T) {
	ps := pushtest.New()
	defer ps.Close()
	s := apptest.New(t, apptest.WithoutWorkers(), allowLocalPush())
	ava, eve := s.APIFor("Ava"), s.APIFor("Eve")

	st, list := ava.Do(http.MethodGet, "/api/v1/push/devices", nil)
	key, _ := list["public_key"].(string)
	if st != http.StatusOK || len(key) != 87 || len(list["devices"].([]any)) != 0 || list["max_devices"] != 10.0 {
		t.Fatalf("a new account's devices: %d %v", st, list)
	}
	kinds := list["kinds"].(map[string]any)
	for _, k := range []string{"your_turn", "reminder", "timed_out", "game_over", "invitation", "rematch", "chat", "tournament"} {
		if kinds[k] != true {
			t.Errorf("kind %s is %v for a new account, want on", k, kinds[k])
		}
	}
	if len(kinds) != 8 {
		t.Errorf("%d kinds: %v", len(kinds), kinds)
	}

	// The push service accepts only pushes signed for the key it was given.
	d := ps.NewDeviceWithKey("Ava's app", key)
	for name, c := range map[string]struct {
		body   map[string]any
		status int
		says   string
	}{
		"no keys":        {map[string]any{"endpoint": d.Endpoint}, 422, "P-256"},
		"keys a string":  {map[string]any{"endpoint": d.Endpoint, "keys": "x"}, 422, "keys:This field takes an object, in braces."},
		"a key a number": {map[string]any{"endpoint": d.Endpoint, "keys": map[string]any{"p256dh": 5, "auth": "x"}}, 422, "keys.p256dh:This field takes text, in quotes."},
		"not https":      {map[string]any{"endpoint": "http://push.example.com/x", "keys": subscriptionOf(d)["keys"]}, 422, "https"},
		"blank name":     {map[string]any{"endpoint": d.Endpoint, "keys": subscriptionOf(d)["keys"], "name": "  "}, 422, "1 to 40"},
		"long name":      {map[string]any{"endpoint": d.Endpoint, "keys": subscriptionOf(d)["keys"], "name": strings.Repeat("n", 41)}, 422, "1 to 40"},
		"two lines":      {map[string]any{"endpoint": d.Endpoint, "keys": subscriptionOf(d)["keys"], "name": "my\nphone"}, 422, "one line"},
		"unknown field":  {map[string]any{"endpoint": d.Endpoint, "keys": subscriptionOf(d)["keys"], "owner": "someone"}, 422, "owner:There is no such field here"},
		"unknown key":    {map[string]any{"endpoint": d.Endpoint, "keys": map[string]any{"p256dh": d.P256dh, "auth": d.Auth, "extra": "x"}}, 422, "keys.extra:There is no such field here"},
		"expiry a word":  {map[string]any{"endpoint": d.Endpoint, "keys": subscriptionOf(d)["keys"], "expirationTime": "soon"}, 422, "expirationTime:This field takes a number."},
	} {
		st, body := addDevice(t, s, ava, c.body, "NoThanksApp/1.0")
		if _, msg := errorOf(body); st != c.status || !strings.Contains(msg+fmt.Sprint(body), c.says) {
			t.Errorf("%s: %d %v, want %d saying %q", name, st, body, c.status, c.says)
		}
	}
	if st, raw := ava.Raw(http.MethodPost, "/api/v1/push/devices", json.RawMessage(`{"endpoint":`)); st != 422 || !strings.Contains(string(raw), `\"endpoint\": \"https://…\"`) {
		t.Errorf("broken JSON: %d %s", st, raw)
	}
	// (json.Marshal sends no body for that broken message: broken JSON
	// sent as it is says what to send too.)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/push/devices", strings.NewReader(`{"endpoint":`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+ava.Token)
	if st, _, body := send(t, req); st != 422 || !strings.Contains(fmt.Sprint(body), `"endpoint": "https://…"`) {
		t.Errorf("broken JSON sent as it is: %d %v", st, body)
	}

	if _, list = ava.Do(http.MethodGet, "/api/v1/push/devices", nil); len(list["devices"].([]any)) != 0 {
		t.Fatalf("a refused subscription was stored: %v", list["devices"])
	}

	// Named by the user agent, or by the app. The body is what a
	// browser's PushSubscription.toJSON() gives, expirationTime with it.
	browser := subscriptionOf(d)
	browser["expirationTime"] = nil
	st, dev := addDevice(t, s, ava, browser, androidChrome)
	if st != http.StatusCreated || dev["name"] != "Chrome · Android" || dev["endpoint"] != d.Endpoint {
		t.Fatalf("add: %d %v", st, dev)
	}
	named := subscriptionOf(d)
	named["name"] = "  Ava's tablet "
	if st, again := addDevice(t, s, ava, named, androidChrome); st != http.StatusCreated || again["id"] != dev["id"] || again["name"] != "Ava's tablet" {
		t.Fatalf("the same endpoint again, named: %d %v (first %v)", st, again, dev["id"])
	}
	id := int64(dev["id"].(float64))
	path := fmt.Sprintf("/api/v1/push/devices/%d", id)

	// Another account can neither test nor remove it.
	if st, body := eve.Do(http.MethodPost, path+"/test", nil); st != http.StatusNotFound {
		t.Errorf("Eve tests Ava's device: %d %v", st, body)
	}
	if st, body := eve.Do(http.MethodDelete, path, nil); st != http.StatusNotFound {
		t.Errorf("Eve removes Ava's device: %d %v", st, body)
	}

	// Renamed: Eve cannot; a bad name is refused and changes nothing; the
	// browser subscribing again keeps the name given.
	if st, body := eve.Do(http.MethodPatch, path, map[string]any{"name": "Eve's now"}); st != http.StatusNotFound {
		t.Errorf("Eve renames Ava's device: %d %v", st, body)
	}
	for name, c := range map[string]struct {
		body any
		says string
	}{
		"blank":         {map[string]any{"name": " "}, "1 to 40"},
		"too long":      {map[string]any{"name": strings.Repeat("é", 41)}, "1 to 40"},
		"no name":       {map[string]any{}, "1 to 40"},
		"unknown field": {map[string]any{"name": "x", "colour": "red"}, "colour:There is no such field here"},
		"a number":      {map[string]any{"name": 7}, "name:This field takes text, in quotes."},
	} {
		if st, body := ava.Do(http.MethodPatch, path, c.body); st != 422 || !strings.Contains(fmt.Sprint(body), c.says) {
			t.Errorf("rename, %s: %d %v, want 422 saying %q", name, st, body, c.says)
		}
	}
	if st, body := ava.Do(http.MethodPatch, path, map[string]any{"name": " Kitchen tablet "}); st != http.StatusOK || body["name"] != "Kitchen tablet" || body["id"] != dev["id"] {
		t.Fatalf("rename: %d %v", st, body)
	}
	if st, again := addDevice(t, s, ava, browser, androidChrome); st != http.StatusCreated || again["name"] != "Kitchen tablet" {
		t.Errorf("subscribing again renamed the device: %d %v", st, again)
	}
	named["name"] = "Ava's tablet"
	if st, again := addDevice(t, s, ava, named, androidChrome); st != http.StatusCreated || again["name"] != "Ava's tablet" {
		t.Errorf("subscribing again with a name: %d %v", st, again)
	}

	// The test reaches the device.
	if st, body := ava.Do(http.MethodPost, path+"/test", nil); st != http.StatusAccepted || body["status"] != "queued" {
		t.Fatalf("test: %d %v", st, body)
	}
	if _, err := s.App.Push.RunOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := ps.Rejections(); len(r) > 0 {
		t.Fatalf("the push service refused: %v", r)
	}
	got := ps.PushesTo(d)
	if len(got) != 1 || decode(t, got[0]).Kind != "test" {
		t.Fatalf("the device got %d pushes", len(got))
	}
	_, list = ava.Do(http.MethodGet, "/api/v1/push/devices", nil)
	if ds := list["devices"].([]any); len(ds) != 1 || ds[0].(map[string]any)["last_delivery_at"] == nil || ds[0].(map[string]any)["name"] != "Ava's tablet" {
		t.Errorf("after the test: %v", ds)
	}

	// Kinds: those named change, the others stay; Settings shows the same.
	st, k := ava.Do(http.MethodPut, "/api/v1/push/kinds", map[string]any{"chat": false, "reminder": false})
	if st != http.StatusOK || k["chat"] != false || k["reminder"] != false || k["your_turn"] != true || k["tournament"] != true {
		t.Fatalf("kinds: %d %v", st, k)
	}
	if st, k = ava.Do(http.MethodPut, "/api/v1/push/kinds", map[string]any{"reminder": true}); k["chat"] != false || k["reminder"] != true {
		t.Errorf("a second change: %d %v", st, k)
	}
	page := loggedIn(t, s, ava).Get("/settings").Doc()
	if page.Find(`input[name="push_chat"]`).Is(":checked") || !page.Find(`input[name="push_reminder"]`).Is(":checked") || !page.Find(`input[name="push_your_turn"]`).Is(":checked") {
		t.Error("Settings does not show the kinds chosen through the API")
	}
	for name, c := range map[string]struct {
		body any
		says string
	}{
		"a word":       {map[string]any{"chat": "no"}, "chat:This field takes true or false."},
		"unknown kind": {map[string]any{"colour": true}, "colour:There is no such field here"},
		"a list":       {[]bool{true}, "The body is an object of kinds"},
	} {
		if st, body := ava.Do(http.MethodPut, "/api/v1/push/kinds", c.body); st != 422 || !strings.Contains(fmt.Sprint(body), c.says) {
			t.Errorf("%s: %d %v, want 422 saying %q", name, st, body, c.says)
		}
	}
	if _, k = ava.Do(http.MethodPut, "/api/v1/push/kinds", map[string]any{}); k["chat"] != false || k["reminder"] != true {
		t.Errorf("refused changes changed the kinds: %v", k)
	}

	// Removed: gone, and a second removal says so.
	if st, _ := ava.Do(http.MethodDelete, path, nil); st != http.StatusNoContent {
		t.Fatalf("remove: %d", st)
	}
	if st, body := ava.Do(http.MethodDelete, path, nil); st != http.StatusNotFound {
		t.Errorf("removed twice: %d %v", st, body)
	} else if _, msg := errorOf(body); !strings.Contains(msg, "removed already") {
		t.Errorf("removed twice says %q", msg)
	}
	if st, _ := ava.Do(http.MethodDelete, "/api/v1/push/devices/phone", nil); st != http.StatusNotFound {
		t.Errorf("a device id that is not a number: %d", st)
	}
	if _, list = ava.Do(http.MethodGet, "/api/v1/push/devices", nil); len(list["devices"].([]any)) != 0 {
		t.Errorf("devices after removing: %v", list["devices"])
	}
}

// scoreOf is a seat's score by the rules, worked out here from its cards
// and tokens: each run of consecutive cards counts its lowest card, and
// each token takes a point off.
func scoreOf(cards []any, tokens float64) int {
	var cs []int
	for _, c := range cards {
		cs = append(cs, int(c.(float64)))
	}
	slices.Sort(cs)
	total := 0
	for i, c := range cs {
		if i == 0 || cs[i-1] != c-1 {
			total += c
		}
	}
	return total - int(tokens)
}

// A player's public record through the API, after a game played out: the
// game with its place and score (worked out from the final cards and
// tokens), the record by table size, the pool, and how the reader stands
// with the player; a bot account is on the bots' pool; an unknown name is
// not found.
func TestPlayerRecordThroughTheAPI(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Rhea"), s.APIFor("Sol"), s.APIFor("Tam")}
	id := newAPITable(t, players, nil)
	apptest.PlayOut(t, players, id)
	_, g := players[1].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
	seats := g["view"].(map[string]any)["seats"].([]any)
	scores := map[string]int{}
	for _, p := range g["players"].([]any) {
		p := p.(map[string]any)
		seat := seats[int(p["seat"].(float64))].(map[string]any)
		scores[p["name"].(string)] = scoreOf(seat["cards"].([]any), seat["tokens"].(float64))
	}
	lower, ties := 0, 0
	for name, sc := range scores {
		switch {
		case name == "Rhea":
		case sc < scores["Rhea"]:
			lower++
		case sc == scores["Rhea"]:
			ties++
		}
	}

	st, p := players[1].Do(http.MethodGet, "/api/v1/users/rhea", nil)
	if st != http.StatusOK || p["name"] != "Rhea" || p["bot_account"] != false || p["pool"] != "people" || p["ranked_games"] != 0.0 || p["provisional"] != true {
		t.Fatalf("Rhea's record: %d %v", st, p)
	}
	recent := p["recent_games"].([]any)
	if len(recent) != 1 {
		t.Fatalf("recent games: %v", recent)
	}
	r := recent[0].(map[string]any)
	place := int(r["place"].(float64))
	if r["game_id"] != float64(id) || r["seats"] != 3.0 || r["ranked"] != false || r["finished_at"] == nil || r["rating_change"] != nil ||
		int(r["score"].(float64)) != scores["Rhea"] || place < lower+1 || place > lower+1+ties {
		t.Errorf("the game in Rhea's record: %v; by hand: score %d, place %d (ties %d)", r, scores["Rhea"], lower+1, ties)
	}
	wins := 0.0
	if place == 1 {
		wins = 1
	}
	if fmt.Sprint(p["by_size"]) != fmt.Sprint([]any{map[string]any{"seats": 3.0, "games": 1.0, "wins": wins}}) {
		t.Errorf("by size: %v", p["by_size"])
	}
	if p["you_follow"] != false || p["you_block"] != false || p["blocks_you"] != false {
		t.Errorf("Sol's standing with Rhea: %v %v %v", p["you_follow"], p["you_block"], p["blocks_you"])
	}
	players[1].Do(http.MethodPut, "/api/v1/following/Rhea", nil)
	if _, p = players[1].Do(http.MethodGet, "/api/v1/users/Rhea", nil); p["you_follow"] != true || p["blocks_you"] != false {
		t.Errorf("after following: %v %v", p["you_follow"], p["blocks_you"])
	}
	// Her block ends his following (docs/people.md).
	players[0].Do(http.MethodPut, "/api/v1/blocks/Sol", nil)
	if _, p = players[1].Do(http.MethodGet, "/api/v1/users/Rhea", nil); p["you_follow"] != false || p["blocks_you"] != true {
		t.Errorf("after being blocked: %v %v", p["you_follow"], p["blocks_you"])
	}
	if _, p = players[0].Do(http.MethodGet, "/api/v1/users/Sol", nil); p["you_block"] != true {
		t.Errorf("the blocker's view: %v", p["you_block"])
	}
	if _, p = players[0].Do(http.MethodGet, "/api/v1/users/Rhea", nil); p["you_follow"] != nil {
		t.Errorf("one's own record says how one stands with oneself: %v", p)
	}
	newBot(t, s, "Robo")
	if _, p = players[0].Do(http.MethodGet, "/api/v1/users/Robo", nil); p["bot_account"] != true || p["pool"] != "bots" || len(p["recent_games"].([]any)) != 0 {
		t.Errorf("a bot account's record: %v", p)
	}
	if st, body := players[0].Do(http.MethodGet, "/api/v1/users/nobody-here", nil); st != http.StatusNotFound {
		t.Errorf("an unknown name: %d %v", st, body)
	}
}
