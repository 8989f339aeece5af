package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// A player who lets three decisions run out has abandoned the game and
// places last (docs/correspondence.md), even with the lowest total. Every
// answer about the result says the same: the API's view, the record, the
// finished table and the player's list of games.
func TestAbandonerPlacesLastInEveryAnswer(t *testing.T) {
	const abandonerSeed = 1
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx := context.Background()
	names := []string{"Stays", "Also", "Leaves"}
	pages := map[string]*apptest.Client{}
	apis := map[string]*apptest.API{}
	for _, n := range names {
		pages[n] = s.Client().Register(n)
		u, err := s.Store.UserByName(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		token, err := s.App.Accounts.CreateAPIToken(ctx, u.ID, "tests")
		if err != nil {
			t.Fatal(err)
		}
		apis[n] = apptest.NewAPI(s, token)
	}
	status, g := apis["Stays"].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 15})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	// A fixed deal makes the game the same on every run (the seats, the
	// server's moves for the leaver and the clock are already fixed): with
	// this one the leaver's rich pots give the lowest total, which the test
	// needs. A random deal let the leaver end above a player now and then.
	if _, err := s.Store.DB.Exec(`UPDATE games SET seed = $1 WHERE id = $2`, abandonerSeed, id); err != nil {
		t.Fatal(err)
	}
	for _, n := range names[1:] {
		if st, body := apis[n].Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d %v", st, body)
		}
	}
	// The two who stay say No thanks! while they have tokens and then must
	// take, so they feed the pots and pile up points; the one who leaves
	// never moves: their time runs out three times and then the server
	// plays their seat, taking the rich pots.
	path := fmt.Sprintf("/api/v1/games/%d", id)
	var final map[string]any
	for n := 0; final == nil; n++ {
		if n > 3000 {
			t.Fatal("the game did not end")
		}
		acted := false
		for _, name := range names[:2] {
			_, view := apis[name].Do(http.MethodGet, path, nil)
			if view["status"] == "finished" {
				final = view
				break
			}
			if view["your_turn"] != true {
				continue
			}
			v := view["view"].(map[string]any)
			kind := "take"
			for _, l := range v["legal"].([]any) {
				if l == "pass" {
					kind = "pass"
				}
			}
			if st, body := apis[name].Do(http.MethodPost, path+"/"+kind, map[string]any{"version": v["version"]}); st != http.StatusOK {
				t.Fatalf("%s: %d %v", kind, st, body)
			}
			acted = true
		}
		if !acted && final == nil {
			s.Clock.Advance(16 * time.Second)
			if _, err := s.App.Games.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, final = apis["Leaves"].Do(http.MethodGet, path, nil)
	v := final["view"].(map[string]any)
	seatOf := map[string]int{}
	for _, p := range final["players"].([]any) {
		pm := p.(map[string]any)
		seatOf[pm["name"].(string)] = int(pm["seat"].(float64))
	}
	totals := v["totals"].([]any)
	leaver := seatOf["Leaves"]
	for name, seat := range seatOf {
		if name != "Leaves" && totals[seat].(float64) <= totals[leaver].(float64) {
			t.Fatalf("the test needs the leaver to have the lowest total: totals %v, leaver's seat %d", totals, leaver)
		}
	}
	if seats := v["seats"].([]any); seats[leaver].(map[string]any)["abandoned"] != true {
		t.Errorf("the API's view does not mark seat %d abandoned: %v", leaver, seats[leaver])
	}
	// By hand: the leaver is last (3rd); the two who stayed are 1st and 2nd
	// by their totals.
	want := map[string]int{"Leaves": 3}
	if totals[seatOf["Stays"]].(float64) < totals[seatOf["Also"]].(float64) {
		want["Stays"], want["Also"] = 1, 2
	} else if totals[seatOf["Stays"]].(float64) > totals[seatOf["Also"]].(float64) {
		want["Stays"], want["Also"] = 2, 1
	} else {
		want["Stays"], want["Also"] = 1, 1
	}

	placings := v["placings"].([]any)
	for name, seat := range seatOf {
		if got := int(placings[seat].(float64)); got != want[name] {
			t.Errorf("API view.placings: %s placed %d, want %d (totals %v)", name, got, want[name], totals)
		}
	}
	_, rec := apis["Stays"].Do(http.MethodGet, path+"/record", nil)
	for _, p := range rec["players"].([]any) {
		pm := p.(map[string]any)
		if got := int(pm["placing"].(float64)); got != want[pm["name"].(string)] {
			t.Errorf("record: %s placed %d, want %d", pm["name"], got, want[pm["name"].(string)])
		}
	}
	page := pages["Stays"].Get(fmt.Sprintf("/games/%d", id))
	ordinal := map[int]string{1: "1st", 2: "2nd", 3: "3rd"}
	rows := page.Doc().Find(`[data-testid="standing"]`)
	if rows.Length() != 3 {
		t.Fatalf("finished table: %d standings rows", rows.Length())
	}
	for i := range rows.Length() {
		row := rows.Eq(i)
		place := strings.TrimSpace(row.Find(`[data-testid="standing-place"]`).Text())
		for name := range seatOf {
			if strings.Contains(row.Text(), name) && place != ordinal[want[name]] {
				t.Errorf("finished table: %s is %s, want %s", name, place, ordinal[want[name]])
			}
		}
	}
	if list := pages["Leaves"].Get("/my/games"); !strings.Contains(list.Body, "you placed 3rd") {
		t.Errorf("the leaver's list of games does not say they placed 3rd")
	}
}
