package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/puzzles"
)

// TestAPuzzleOfTwoDecisions solves a puzzle two decisions long through the
// API and the pages: the first right answer shows the table's replies and
// the second decision, and only the attempt's end changes ratings.
//
// The game, worked out by hand from the rules: three players, one round,
// the first card 35. Everyone says No thanks! once, so the first player
// decides again with 35 and 3 tokens on it, holding 10 tokens, 23 cards
// still in the deck. Passing 35 is the answer both times (35 card points
// for at most 3 tokens). The puzzle is stored as the miner stores one
// (its line: the two decisions and the two passes between), with the
// first rating of a puzzle that is not obvious, 1500/350/0.06.
//
// The ratings, from Glickman's Glicko-2 steps (τ 0.75) computed apart
// from the site's code:
//   - Dee (new) passes, then takes: failed; Dee 1337.69 RD 290.32, the
//     puzzle 1662.31 RD 290.32.
//   - Eve (new) passes twice on the page: solved; Eve 1731.88, the puzzle
//     1497.45.
func TestAPuzzleOfTwoDecisions(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx := context.Background()
	ps := verified(t, s, "Ada", "Bea", "Cyd", "Dee", "Eve")
	id := tableTurningUp(t, s, ps[:3], 35)

	// Three passes, then the first player decides again and takes.
	var order []int // the seats in the order they decided
	for n := range 4 {
		moved := false
		for _, p := range ps[:3] {
			_, g := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
			if g["your_turn"] != true {
				continue
			}
			v := g["view"].(map[string]any)
			if v["active_card"] != 35.0 || v["pot"] != float64(n) || v["deck_left"] != 23.0 {
				t.Fatalf("decision %d: %v with %v, %v left", n+1, v["active_card"], v["pot"], v["deck_left"])
			}
			kind := "pass"
			if n == 3 {
				kind = "take"
			}
			if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, kind), map[string]any{"version": v["version"]}); st != http.StatusOK {
				t.Fatalf("%s: %d %v", kind, st, body)
			}
			order = append(order, int(v["viewer"].(float64)))
			moved = true
			break
		}
		if !moved {
			t.Fatalf("decision %d: nobody's turn", n+1)
		}
	}
	decider := order[0]
	if order[3] != decider {
		t.Fatalf("the seats decided in the order %v", order)
	}
	playOut(t, s, id, ps[:3], nil)

	// The puzzle as the miner would store it: the passes of the two other
	// seats between its two decisions come from the game's own log.
	st, err := s.App.Games.State(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var passes []engine.Event
	for _, e := range st.Engine().Events() {
		if e.Kind == engine.EventPass && len(passes) < 3 {
			passes = append(passes, e)
		}
	}
	opt := func(cp float64) puzzles.Option { return puzzles.Option{Win: 0.3, CardPoints: cp, Score: cp - 10} }
	pz := puzzles.Puzzle{GameID: id, Move: 0, Round: 1, Seat: decider, Card: 35, Pot: 0, Best: engine.Pass, Take: opt(30), Pass: opt(12), Margin: 0.2,
		Themes: []string{}, Searches: 3, Playouts: 400, Line: []puzzles.Step{
			{Move: 0, Card: 35, Pot: 0, Tokens: 11, DeckLeft: 23, Best: engine.Pass, Played: engine.Pass, Take: opt(30), Pass: opt(12), Margin: 0.2, Replies: passes[1:3]},
			{Move: 3, Card: 35, Pot: 3, Tokens: 10, DeckLeft: 23, Best: engine.Pass, Played: engine.Take, Take: opt(28), Pass: opt(12), Margin: 0.15},
		}}
	data, err := json.Marshal(pz)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SavePuzzles(ctx, id, []db.NewPuzzle{{Move: 0, Seat: decider, Steps: 2, Best: "pass", Themes: []string{}, Margin: 0.15,
		Data: data, Start: db.Rating3{R: 1500, RD: 350, Sigma: 0.06}}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var pid int64
	if err := s.Store.DB.GetContext(ctx, &pid, `SELECT id FROM puzzles WHERE game_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/api/v1/puzzles/%d", pid)
	dee, eve := ps[3], ps[4]

	t.Run("RightThenWrongThroughTheAPI", func(t *testing.T) {
		_, p := dee.Do(http.MethodGet, path, nil)
		if p["step"] != 1.0 || p["steps"] != 2.0 || len(p["replies"].([]any)) != 0 {
			t.Fatalf("the puzzle: step %v of %v, replies %v", p["step"], p["steps"], p["replies"])
		}
		st, a := dee.Do(http.MethodPost, path+"/answer", map[string]any{"step": 1, "choice": "pass"})
		if st != http.StatusOK || a["right"] != true || a["outcome"] != nil || a["next"] == nil {
			t.Fatalf("the first answer: %d %v", st, a)
		}
		next := a["next"].(map[string]any)
		v := next["view"].(map[string]any)
		if next["step"] != 2.0 || v["active_card"] != 35.0 || v["pot"] != 3.0 || v["deck_left"] != 23.0 || v["viewer"] != float64(decider) {
			t.Errorf("the second decision: step %v, %v with %v, %v left, seen from %v", next["step"], v["active_card"], v["pot"], v["deck_left"], v["viewer"])
		}
		for i, seat := range v["seats"].([]any) {
			tokens, shown := seat.(map[string]any)["tokens"]
			if i == decider && tokens != 10.0 {
				t.Errorf("the decider's tokens at the second decision: %v", tokens)
			}
			if i != decider && shown && tokens != nil {
				t.Errorf("seat %d's tokens are shown: %v", i, tokens)
			}
		}
		replies := next["replies"].([]any)
		if len(replies) != 2 {
			t.Fatalf("replies %v", replies)
		}
		for i, r := range replies {
			if e := r.(map[string]any); e["kind"] != "pass" || e["seat"] != float64(order[i+1]) {
				t.Errorf("reply %d: %v, want seat %d's pass", i+1, e, order[i+1])
			}
		}
		// Half way: nothing rated yet, the page opens at the second
		// decision, and the first cannot be answered again.
		if _, me := dee.Do(http.MethodGet, "/api/v1/me/puzzles", nil); me["rating"] != nil {
			t.Errorf("rated half way: %v", me["rating"])
		}
		if res := loggedIn(t, s, dee).Get(fmt.Sprintf("/puzzles/%d", pid)); !strings.Contains(res.TestID("puzzle-where"), "decision 2 of 2") || res.TestID("pot") != "3" || res.TestID("my-tokens") != "10" {
			t.Errorf("the page half way: %q, pot %q, tokens %q", res.TestID("puzzle-where"), res.TestID("pot"), res.TestID("my-tokens"))
		}
		if st, body := dee.Do(http.MethodPost, path+"/answer", map[string]any{"step": 1, "choice": "pass"}); st != http.StatusConflict {
			t.Errorf("the first step again: %d %v", st, body)
		}
		st, a = dee.Do(http.MethodPost, path+"/answer", map[string]any{"step": 2, "choice": "take"})
		if st != http.StatusOK || a["right"] != false || a["next"] != nil {
			t.Fatalf("the second answer: %d %v", st, a)
		}
		o := a["outcome"].(map[string]any)
		if o["solved"] != false || !near(o["rating_before"], 1500) || !near(o["rating_after"], 1337.69) || !near(o["puzzle_rating"], 1662.31) || len(o["line"].([]any)) != 2 {
			t.Errorf("outcome %v", o)
		}
		_, me := dee.Do(http.MethodGet, "/api/v1/me/puzzles", nil)
		if r := me["rating"].(map[string]any); !near(r["rating"], 1337.69) || !near(r["rd"], 290.32) || r["attempts"] != 1.0 || r["solved"] != 0.0 {
			t.Errorf("Dee's record: %v", me)
		}
	})

	t.Run("SolvedOnThePage", func(t *testing.T) {
		c := loggedIn(t, s, eve)
		res := c.PostForm(fmt.Sprintf("/puzzles/%d/answer", pid), url.Values{"step": {"1"}, "choice": {"pass"}})
		if res.Status != http.StatusOK || !res.Has("puzzle-right") || res.Has("puzzle-outcome") {
			t.Fatalf("the first answer's page %d", res.Status)
		}
		if !strings.Contains(res.TestID("puzzle-where"), "decision 2 of 2") || res.TestID("pot") != "3" || res.TestID("my-tokens") != "10" {
			t.Errorf("the second decision's page: %q, pot %q, tokens %q", res.TestID("puzzle-where"), res.TestID("pot"), res.TestID("my-tokens"))
		}
		replies := res.Doc().Find(`[data-testid="puzzle-replies"] li`)
		if replies.Length() != 2 {
			t.Fatalf("%d replies shown", replies.Length())
		}
		for i := range replies.Length() {
			text := replies.Eq(i).Text()
			if !strings.Contains(text, fmt.Sprintf("Player %d", order[i+1]+1)) {
				t.Errorf("reply %d: %q, want player %d", i+1, text, order[i+1]+1)
			}
			for _, name := range []string{"Ada", "Bea", "Cyd"} {
				if strings.Contains(text, name) {
					t.Errorf("reply %d names %s: %q", i+1, name, text)
				}
			}
		}
		res = c.PostForm(fmt.Sprintf("/puzzles/%d/answer", pid), url.Values{"step": {"2"}, "choice": {"pass"}})
		if res.Status != http.StatusOK || !res.Has("puzzle-solved") {
			t.Fatalf("the second answer's page %d", res.Status)
		}
		if got := res.TestID("puzzle-change"); !strings.Contains(got, "1500 → 1732") || !strings.Contains(got, "+232") {
			t.Errorf("the change shown: %q", got)
		}
		_, p := dee.Do(http.MethodGet, path, nil)
		if o := p["outcome"].(map[string]any); !near(o["puzzle_rating"], 1497.45) || o["puzzle_attempts"] != 2.0 || o["puzzle_solved"] != 1.0 {
			t.Errorf("the puzzle after two attempts: %v", o)
		}
	})

	t.Run("AVisitorAnswersEachStep", func(t *testing.T) {
		c := s.Client()
		res := c.PostForm(fmt.Sprintf("/puzzles/%d/answer", pid), url.Values{"step": {"1"}, "choice": {"pass"}})
		if res.Status != http.StatusOK || !res.Has("puzzle-right") || res.TestID("pot") != "3" {
			t.Fatalf("the visitor's first answer %d", res.Status)
		}
		res = c.PostForm(fmt.Sprintf("/puzzles/%d/answer", pid), url.Values{"step": {"2"}, "choice": {"take"}})
		if res.Status != http.StatusOK || !res.Has("puzzle-failed") || res.Has("puzzle-change") {
			t.Fatalf("the visitor's second answer %d", res.Status)
		}
		if st, body := dee.Do(http.MethodPost, path+"/answer", map[string]any{"step": 3, "choice": "pass"}); st != http.StatusUnprocessableEntity {
			t.Errorf("a third step: %d %v", st, body)
		}
		_, p := dee.Do(http.MethodGet, path, nil)
		if o := p["outcome"].(map[string]any); o["puzzle_attempts"] != 2.0 {
			t.Errorf("the visitor's answers counted: %v", o["puzzle_attempts"])
		}
	})
}
