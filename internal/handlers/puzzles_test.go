package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/engine"
)

func near(got any, want float64) bool {
	f, ok := got.(float64)
	return ok && math.Abs(f-want) < 0.01
}

// tableTurningUp starts a one-round standard game of the players (three)
// through the API whose first card turned up is card.
func tableTurningUp(t *testing.T, s *apptest.Server, players []*apptest.API, card int) int64 {
	t.Helper()
	seed := apptest.SeedTurningUp(t, engine.Options{Players: len(players), Rounds: 1, Variant: engine.Standard}, card)
	s.App.Games.Seeds = func() (int64, error) { return seed, nil }
	defer func() { s.App.Games.Seeds = nil }()
	return newAPITable(t, players, nil)
}

// TestPuzzleFromAHandBuiltPosition plays a three-player, one-round game
// whose first card is 35 and whose first player takes it with nothing on
// it, then solves the puzzle mined from that decision as two members (one
// right, one wrong) and a visitor.
//
// Worked out by hand, from the rules: at the first decision of a
// one-round game of three, the player holds 11 tokens and 23 cards are
// left in the deck; taking 35 for nothing gives 35 card points that only
// 34 (or 33 and 34) can lower, passing costs one token. So passing is the
// answer, the game's player took, and the line ends there (the game left
// the best line at once). The one-line rule (take when the pot pays for
// the card) passes too, so the puzzle is obvious and starts at 1200, RD
// 350 (docs/puzzles.md).
//
// The ratings, from Glickman's Glicko-2 steps (τ 0.75, one game a rating
// period), computed apart from the site's code:
//   - Dee (new: 1500/350/0.06) solves it: Dee 1584.95 RD 303.48; the
//     puzzle 1115.05 RD 303.48.
//   - Eve (new) fails it next: Eve 1173.70; the puzzle 1354.98.
func TestPuzzleFromAHandBuiltPosition(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx := context.Background()
	ps := verified(t, s, "Ada", "Bea", "Cyd", "Dee", "Eve")
	id := tableTurningUp(t, s, ps[:3], 35)

	// The first player takes 35; the rest of the game is played out.
	decider := -1
	for i, p := range ps[:3] {
		_, g := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		if g["your_turn"] != true {
			continue
		}
		v := g["view"].(map[string]any)
		if v["active_card"] != 35.0 || v["pot"] != 0.0 || v["deck_left"] != 23.0 {
			t.Fatalf("the first card: %v with %v, %v left", v["active_card"], v["pot"], v["deck_left"])
		}
		decider = i
		if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": v["version"]}); st != http.StatusOK {
			t.Fatalf("take: %d %v", st, body)
		}
	}
	if decider < 0 {
		t.Fatal("nobody's turn")
	}
	playOut(t, s, id, ps[:3], nil)
	if n, err := s.App.Puzzles.RunOnce(ctx); err != nil || n == 0 {
		t.Fatalf("mining found %d puzzles (%v)", n, err)
	}
	var pid int64
	if err := s.Store.DB.GetContext(ctx, &pid, `SELECT id FROM puzzles WHERE game_id = $1 AND move = 0`, id); err != nil {
		t.Fatalf("no puzzle at the first decision: %v", err)
	}
	path := fmt.Sprintf("/api/v1/puzzles/%d", pid)

	dee, eve := ps[3], ps[4]
	t.Run("TheSolverSeesWhatTheDeciderSaw", func(t *testing.T) {
		st, raw := dee.Raw(http.MethodGet, path, nil)
		if st != http.StatusOK {
			t.Fatalf("%d %s", st, raw)
		}
		var p struct {
			Step, Steps int
			Outcome     any
			View        struct {
				Viewer  int
				Active  int `json:"active_card"`
				PotN    int `json:"pot"`
				Left    int `json:"deck_left"`
				Seats   []struct{ Tokens *int }
				Results any
				Legal   []string
			}
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		v := p.View
		if v.Active != 35 || v.PotN != 0 || v.Left != 23 || p.Step != 1 || p.Steps != 1 || p.Outcome != nil {
			t.Fatalf("puzzle %s", raw)
		}
		if v.Viewer != decider {
			t.Errorf("the puzzle is seen from seat %d, the decider was %d", v.Viewer, decider)
		}
		for i, seat := range v.Seats {
			if i == v.Viewer && (seat.Tokens == nil || *seat.Tokens != 11) {
				t.Errorf("the decider's tokens: %v", seat.Tokens)
			}
			if i != v.Viewer && seat.Tokens != nil {
				t.Errorf("seat %d's tokens are shown: %d", i, *seat.Tokens)
			}
		}
		for _, never := range []string{`"game_id"`, `"removed"`, `"deck"`, `"seed"`, fmt.Sprintf("/games/%d", id)} {
			if strings.Contains(string(raw), never) {
				t.Errorf("the open puzzle shows %s", never)
			}
		}
		// The page shows the same and nothing more.
		c := loggedIn(t, s, dee)
		res := c.Get(fmt.Sprintf("/puzzles/%d", pid))
		if res.Status != http.StatusOK || res.TestID("active-card") != "35" || res.TestID("my-tokens") != "11" || res.TestID("deck-left") != "23" {
			t.Fatalf("page %d: card %q tokens %q deck %q", res.Status, res.TestID("active-card"), res.TestID("my-tokens"), res.TestID("deck-left"))
		}
		tokens := res.Doc().Find(`[data-testid="seat-tokens"]`)
		if tokens.Length() != 3 {
			t.Fatalf("%d seats", tokens.Length())
		}
		hidden := 0
		for i := range tokens.Length() {
			if strings.TrimSpace(tokens.Eq(i).Text()) == "?" {
				hidden++
			}
		}
		if hidden != 2 {
			t.Errorf("%d seats' tokens hidden, want 2", hidden)
		}
		for _, name := range []string{"Ada", "Bea", "Cyd"} {
			if strings.Contains(res.Body, name) {
				t.Errorf("the open puzzle's page names %s", name)
			}
		}
		if strings.Contains(res.Body, fmt.Sprintf("/games/%d", id)) {
			t.Error("the open puzzle's page links its game")
		}
	})

	t.Run("SolvedThenAnsweredAgain", func(t *testing.T) {
		st, a := dee.Do(http.MethodPost, path+"/answer", map[string]any{"step": 1, "choice": "pass"})
		if st != http.StatusOK || a["right"] != true || a["next"] != nil {
			t.Fatalf("answer: %d %v", st, a)
		}
		o := a["outcome"].(map[string]any)
		if o["solved"] != true || o["game_id"] != float64(id) || !near(o["rating_before"], 1500) || !near(o["rating_after"], 1584.95) || !near(o["puzzle_rating"], 1115.05) {
			t.Errorf("outcome %v", o)
		}
		line := o["line"].([]any)
		step := line[0].(map[string]any)
		take, pass := step["take"].(map[string]any), step["pass"].(map[string]any)
		if step["best"] != "pass" || step["played"] != "take" || step["card"] != 35.0 || !(take["card_points"].(float64) > pass["card_points"].(float64)) || !(take["score"].(float64) > pass["score"].(float64)) {
			t.Errorf("the line: %v", step)
		}
		// Again: refused, nothing changed.
		if st, body := dee.Do(http.MethodPost, path+"/answer", map[string]any{"step": 1, "choice": "pass"}); st != http.StatusConflict {
			t.Errorf("a second answer: %d %v", st, body)
		}
		_, me := dee.Do(http.MethodGet, "/api/v1/me/puzzles", nil)
		r := me["rating"].(map[string]any)
		if !near(r["rating"], 1584.95) || !near(r["rd"], 303.48) || r["attempts"] != 1.0 || r["streak"] != 1.0 || len(me["attempts"].([]any)) != 1 {
			t.Errorf("Dee's record: %v", me)
		}
	})

	t.Run("FailedOnThePage", func(t *testing.T) {
		c := loggedIn(t, s, eve)
		res := c.PostForm(fmt.Sprintf("/puzzles/%d/answer", pid), url.Values{"step": {"1"}, "choice": {"take"}})
		if res.Status != http.StatusOK || !res.Has("puzzle-failed") {
			t.Fatalf("answer page %d: %s", res.Status, res.TestID("puzzle-outcome"))
		}
		if got := res.TestID("puzzle-change"); !strings.Contains(got, "1500 → 1174") || !strings.Contains(got, "−326") {
			t.Errorf("the change shown: %q", got)
		}
		if res.TestID("puzzle-best") != "No thanks!" || !strings.Contains(res.Body, fmt.Sprintf("/games/%d/replay", id)) {
			t.Errorf("the outcome: best %q, links its game: %v", res.TestID("puzzle-best"), strings.Contains(res.Body, fmt.Sprintf("/games/%d/", id)))
		}
		_, me := eve.Do(http.MethodGet, "/api/v1/me/puzzles", nil)
		if r := me["rating"].(map[string]any); !near(r["rating"], 1173.70) || r["streak"] != 0.0 || r["solved"] != 0.0 {
			t.Errorf("Eve's record: %v", me)
		}
		_, p := dee.Do(http.MethodGet, path, nil)
		if o := p["outcome"].(map[string]any); !near(o["puzzle_rating"], 1354.98) || o["puzzle_attempts"] != 2.0 || o["puzzle_solved"] != 1.0 {
			t.Errorf("the puzzle after two attempts: %v", o)
		}
		// Her profile lists it; Dee's shows his rating but not his history.
		if res := c.Get("/u/Eve"); !res.Has("puzzle-history") || res.TestID("puzzle-rating-value") != "1174" {
			t.Errorf("Eve's profile: rating %q, history %v", res.TestID("puzzle-rating-value"), res.Has("puzzle-history"))
		}
		if res := c.Get("/u/Dee"); res.Has("puzzle-history") || res.TestID("puzzle-rating-value") != "1585" {
			t.Errorf("Dee's profile seen by Eve: rating %q, history %v", res.TestID("puzzle-rating-value"), res.Has("puzzle-history"))
		}
	})

	t.Run("VisitorsSolveUnrated", func(t *testing.T) {
		c := s.Client()
		res := c.Get(fmt.Sprintf("/puzzles/%d", pid))
		if res.Status != http.StatusOK || !res.Has("puzzle-unrated") || res.TestID("active-card") != "35" {
			t.Fatalf("visitor's page %d", res.Status)
		}
		res = c.PostForm(fmt.Sprintf("/puzzles/%d/answer", pid), url.Values{"step": {"1"}, "choice": {"pass"}})
		if res.Status != http.StatusOK || !res.Has("puzzle-solved") || res.Has("puzzle-change") {
			t.Fatalf("visitor's answer %d", res.Status)
		}
		_, p := dee.Do(http.MethodGet, path, nil)
		if o := p["outcome"].(map[string]any); o["puzzle_attempts"] != 2.0 {
			t.Errorf("a visitor's answer counted: %v", o["puzzle_attempts"])
		}
	})

	t.Run("TheDailyPuzzleIsOneForTheDay", func(t *testing.T) {
		st, a := dee.Do(http.MethodGet, "/api/v1/puzzles/daily", nil)
		_, b := ps[2].Do(http.MethodGet, "/api/v1/puzzles/daily", nil)
		if st != http.StatusOK || a["id"] == nil || a["id"] != b["id"] {
			t.Fatalf("daily: %d %v, then %v", st, a["id"], b["id"])
		}
		if res := loggedIn(t, s, dee).Get("/"); !res.Has("home-puzzle") {
			t.Error("the home page has no puzzle of the day")
		}
		s.Clock.Advance(24 * time.Hour)
		var n int
		if err := s.Store.DB.GetContext(ctx, &n, `SELECT count(*) FROM puzzles WHERE game_id = $1`, id); err != nil {
			t.Fatal(err)
		}
		_, c := dee.Do(http.MethodGet, "/api/v1/puzzles/daily", nil)
		if n > 1 && c["id"] == a["id"] {
			t.Errorf("the next day's puzzle is the same (%d puzzles)", n)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		for _, c := range []struct {
			method, path string
			body         any
			want         int
		}{
			{http.MethodGet, "/api/v1/puzzles/999999", nil, http.StatusNotFound},
			{http.MethodPost, "/api/v1/puzzles/999999/answer", map[string]any{"step": 1, "choice": "pass"}, http.StatusNotFound},
			{http.MethodPost, path + "/answer", map[string]any{"step": 1, "choice": "tiger"}, http.StatusUnprocessableEntity},
			{http.MethodPost, path + "/answer", map[string]any{"step": 2, "choice": "pass"}, http.StatusUnprocessableEntity},
			{http.MethodGet, "/api/v1/puzzles/next?theme=nonsense", nil, http.StatusUnprocessableEntity},
		} {
			if st, body := ps[2].Do(c.method, c.path, c.body); st != c.want {
				t.Errorf("%s %s: %d %v, want %d", c.method, c.path, st, body, c.want)
			}
		}
		if res := s.Client().Get("/puzzles/abc"); res.Status != http.StatusNotFound {
			t.Errorf("/puzzles/abc: %d", res.Status)
		}
		// Ada played in the only game there is: no puzzle for her.
		if st, body := ps[0].Do(http.MethodGet, "/api/v1/puzzles/next", nil); st != http.StatusNotFound {
			t.Errorf("Ada's next puzzle: %d %v", st, body)
		}
		// Nothing of Cyd's refused answers was kept.
		_, me := ps[2].Do(http.MethodGet, "/api/v1/me/puzzles", nil)
		if me["rating"] != nil || len(me["attempts"].([]any)) != 0 {
			t.Errorf("Cyd's record after refusals: %v", me)
		}
	})

	t.Run("ExportAndDeletion", func(t *testing.T) {
		_, ex := eve.Do(http.MethodGet, "/api/v1/me/export", nil)
		pz, _ := ex["puzzles"].(map[string]any)
		if pz == nil || !near(pz["rating"], 1173.70) || len(pz["attempts"].([]any)) != 1 {
			t.Errorf("Eve's export: %v", ex["puzzles"])
		}
		c := loggedIn(t, s, eve)
		if res := c.PostForm("/settings/delete", url.Values{"password": {apptest.Password}}); res.Status != http.StatusSeeOther {
			t.Fatalf("delete: %d", res.Status)
		}
		var left int
		if err := s.Store.DB.GetContext(ctx, &left, `SELECT (SELECT count(*) FROM puzzle_attempts WHERE user_id = $1) + (SELECT count(*) FROM puzzle_ratings WHERE user_id = $1)`, eve.ID); err != nil || left != 0 {
			t.Errorf("after deletion %d puzzle rows are kept (%v)", left, err)
		}
		// The puzzle keeps the rating her attempt gave it.
		if _, p := dee.Do(http.MethodGet, path, nil); !near(p["outcome"].(map[string]any)["puzzle_rating"], 1354.98) {
			t.Errorf("the puzzle after the deletion: %v", p["outcome"])
		}
	})
}
