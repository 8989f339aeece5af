package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"nothanks/internal/apptest"
	"nothanks/internal/engine"
)

// A finished game is analysed in the background and the analysis reaches
// its readers: the API, the replay (marks, the decision's estimates, key
// moments, the chart, a deeper look on request), the finished table and
// the profile. The first decision of the game is a blunder on purpose:
// taking the 34 or 35 with nothing on it in a one-round game.
func TestAnalysisAfterTheGame(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Una"), s.APIFor("Vic"), s.APIFor("Wes")}
	_, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300})
	id := int64(g["id"].(float64))
	o := engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}
	var seed uint64
	for seed = 1; ; seed++ {
		eg, _ := engine.NewFromSetup(o, engine.SetupFromSeed(o, seed))
		if eg.View(eg.Turn()).ActiveCard >= 34 {
			break
		}
	}
	if _, err := s.Store.DB.Exec(`UPDATE games SET seed = $1 WHERE id = $2`, int64(seed), id); err != nil {
		t.Fatal(err)
	}
	for _, p := range players[1:] {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil)
	}
	var blunderer *apptest.API
	for moves := 0; moves < 500; moves++ {
		var mover *apptest.API
		var view map[string]any
		for _, p := range players {
			_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
			if v["status"] == "finished" {
				goto over
			}
			if v["your_turn"] == true {
				mover, view = p, v
			}
		}
		if mover == nil {
			t.Fatal("nobody to move")
		}
		vv := view["view"].(map[string]any)
		action := "pass"
		if moves == 0 {
			action, blunderer = "take", mover
		} else if vv["pot"].(float64) >= 3 || !strings.Contains(fmt.Sprint(vv["legal"]), "pass") {
			action = "take"
		}
		if st, body := mover.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, action), map[string]any{"version": view["version"]}); st != http.StatusOK {
			t.Fatalf("%s: %d %v", action, st, body)
		}
	}
	t.Fatal("the game did not end")
over:
	_, a := players[1].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/analysis", id), nil)
	if a["status"] != "queued" {
		t.Fatalf("before the worker ran: status %v", a["status"])
	}
	ctx := context.Background()
	if n, err := s.App.Reviews.RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("the worker analysed %d games (%v), want 1", n, err)
	}
	st, a := players[1].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/analysis", id), nil)
	if st != http.StatusOK || a["status"] != "done" {
		t.Fatalf("analysis: %d %v", st, a["status"])
	}
	rep := a["analysis"].(map[string]any)
	decisions := rep["decisions"].([]any)
	first := decisions[0].(map[string]any)
	if first["move"].(float64) != 0 || first["chosen"] != "take" || first["mark"] != "blunder" || first["best"] != "pass" {
		t.Errorf("the first decision: %v", first)
	}
	if len(rep["players"].([]any)) != 3 {
		t.Errorf("players: %v", rep["players"])
	}

	// The same game analysed again gives the same report.
	before := fmt.Sprint(rep)
	if _, err := s.Store.DB.Exec(`UPDATE analyses SET status = 'queued' WHERE game_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.App.Reviews.RunOnce(ctx); n != 1 {
		t.Fatal("the second analysis did not run")
	}
	_, again := players[1].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/analysis", id), nil)
	if fmt.Sprint(again["analysis"]) != before {
		t.Error("the game analysed twice gives two reports")
	}

	// The replay at that decision marks it and shows both estimates.
	visitor := s.Client()
	page := visitor.Get(fmt.Sprintf("/games/%d/replay?step=1", id))
	if got := page.TestID("decision-mark"); got != "blunder" {
		t.Errorf("replay step 1 marks the decision %q", got)
	}
	// The move list marks each decision beside the move itself: at the
	// step just after a marked decision, the newest mark is its own.
	checked := 0
	for _, d := range decisions {
		dm := d.(map[string]any)
		if dm["mark"] == nil || checked == 4 {
			continue
		}
		checked++
		step := int(dm["move"].(float64)) + 1
		if got := visitor.Get(fmt.Sprintf("/games/%d/replay?step=%d", id, step)).TestID("log-mark"); got != dm["mark"] {
			t.Errorf("replay step %d: the newest mark in the move list is %q, want %v", step, got, dm["mark"])
		}
	}
	if !page.Has("score-chart") || !page.Has("accuracy") || page.Doc().Find(`[data-testid="moment"]`).Length() == 0 {
		t.Errorf("replay: chart %v, accuracy %v, %d key moments", page.Has("score-chart"), page.Has("accuracy"), page.Doc().Find(`[data-testid="moment"]`).Length())
	}
	// The finished table shows each player's accuracy; the profile the average.
	table := visitor.Get(fmt.Sprintf("/games/%d", id))
	if n := table.Doc().Find(`[data-testid="standing-accuracy"]`).Length(); n != 3 {
		t.Errorf("%d accuracies on the finished table, want 3", n)
	}
	if !visitor.Get("/u/" + blunderer.Name).Has("profile-accuracy") {
		t.Error("the profile shows no accuracy")
	}

	// A deeper look at the decision, asked for from the replay, is kept.
	c := s.Client()
	c.Login(players[2].Name, apptest.Password)
	res := c.PostForm(fmt.Sprintf("/games/%d/analysis/0/deep", id), url.Values{})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("deeper look: %d", res.Status)
	}
	if deep := c.Follow(res); !deep.Has("deep") {
		t.Error("the replay does not show the deeper look")
	}
	if res := c.PostForm(fmt.Sprintf("/games/%d/analysis/9999/deep", id), url.Values{}); res.Status != http.StatusNotFound {
		t.Errorf("a deeper look at no decision: %d", res.Status)
	}
}
