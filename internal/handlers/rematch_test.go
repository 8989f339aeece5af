package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// finishWithBot plays a 3-seat game of two people and a bot to its end
// through the API (the people take whenever the pot has 2 tokens or they
// must) and returns it with its seats' names in seat order.
func finishWithBot(t *testing.T, s *apptest.Server, a, b *apptest.API) (int64, []string) {
	t.Helper()
	_, g := a.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
	id := int64(g["id"].(float64))
	a.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "heuristic"})
	b.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range []*apptest.API{a, b} {
			_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
			if v["status"] == "finished" {
				return id, seatNames(v)
			}
			if v["your_turn"] != true {
				continue
			}
			vv := v["view"].(map[string]any)
			action := "pass"
			if vv["pot"].(float64) >= 2 || !strings.Contains(fmt.Sprint(vv["legal"]), "pass") {
				action = "take"
			}
			p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, action), map[string]any{"version": v["version"]})
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the game did not end")
	return 0, nil
}

// "Play again": offered by one, declined and then accepted by the other;
// the offerer cannot start with too few; once everyone has accepted the new
// game starts with the same options, the bot kept and every seat moved one
// place on; the finished table links to it.
func TestRematch(t *testing.T) {
	s := apptest.New(t)
	ann, bob := s.APIFor("Ann"), s.APIFor("Bob")
	stranger := s.APIFor("Sid")
	id, names := finishWithBot(t, s, ann, bob)
	if len(names) != 3 {
		t.Fatalf("seats %v", names)
	}
	path := fmt.Sprintf("/api/v1/games/%d/rematch", id)

	if st, _ := stranger.Do(http.MethodPost, path, nil); st != http.StatusForbidden {
		t.Errorf("someone who did not play offers a rematch: %d", st)
	}
	st, r := ann.Do(http.MethodPost, path, nil)
	if st != http.StatusOK || r["rematch"] == nil {
		t.Fatalf("offer: %d %v", st, r)
	}
	offer := r["rematch"].(map[string]any)
	if offer["offered_by"] != "Ann" || offer["open"] != true {
		t.Errorf("offer: %v", offer)
	}
	// Bob sees it on the finished table, with the buttons to answer.
	c := s.Client()
	c.Login("Bob", apptest.Password)
	table := c.Get(fmt.Sprintf("/games/%d", id))
	if !table.Has("rematch-offer") || !table.Has("rematch-accept") || !table.Has("rematch-decline") {
		t.Errorf("Bob's finished table: offer %v, accept %v, decline %v", table.Has("rematch-offer"), table.Has("rematch-accept"), table.Has("rematch-decline"))
	}
	if st, _ := bob.Do(http.MethodPost, path+"/decline", nil); st != http.StatusOK {
		t.Fatalf("decline: %d", st)
	}
	// Ann alone with the bot is two players: too few.
	st, body := ann.Do(http.MethodPost, path+"/start", nil)
	if st != http.StatusConflict || !strings.Contains(fmt.Sprint(body), "at least 3 players") {
		t.Errorf("starting with two: %d %v", st, body)
	}
	if st, _ := bob.Do(http.MethodPost, path+"/start", nil); st != http.StatusForbidden {
		t.Errorf("Bob starts Ann's offer: %d", st)
	}
	// Bob changes his mind through the page: everyone has accepted.
	res := c.PostForm(fmt.Sprintf("/games/%d/rematch", id), nil)
	if res.Status != http.StatusSeeOther && res.Status != http.StatusOK {
		t.Fatalf("accept on the page: %d", res.Status)
	}
	_, r = ann.Do(http.MethodGet, path, nil)
	rm := r["rematch"].(map[string]any)
	newID, ok := rm["new_game_id"].(float64)
	if !ok {
		t.Fatalf("no new game after everyone accepted: %v", rm)
	}
	_, g := ann.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", int64(newID)), nil)
	if g["status"] != "playing" {
		t.Fatalf("the rematch is %v", g["status"])
	}
	// Ann sat first, the bot she added second, Bob third; moved one place
	// on, the old seat 1 is the new seat 0, and the bot keeps its name.
	if fmt.Sprint(names) != "[Ann Club bot 1 Bob]" {
		t.Errorf("the first game's seats %q", names)
	}
	if got := seatNames(g); fmt.Sprint(got) != "[Club bot 1 Bob Ann]" {
		t.Errorf("new seats %q, want [Club bot 1 Bob Ann]: moved one place on, the bot keeping its name", got)
	}
	opts := g["view"].(map[string]any)["options"].(map[string]any)
	if opts["rounds"].(float64) != 1 || opts["players"].(float64) != 3 {
		t.Errorf("options of the rematch: %v", opts)
	}
	if !c.Get(fmt.Sprintf("/games/%d", id)).Has("rematch-game") {
		t.Error("the finished table does not link to the new game")
	}
	if st, _ := ann.Do(http.MethodPost, path, nil); st != http.StatusConflict {
		t.Errorf("a second rematch of the same table: %d", st)
	}
}

// seatNames lists an API game's players' names in seat order.
func seatNames(g map[string]any) []string {
	players := g["players"].([]any)
	names := make([]string, len(players))
	for _, p := range players {
		pm := p.(map[string]any)
		names[int(pm["seat"].(float64))] = pm["name"].(string)
	}
	return names
}
