package handlers_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// A correspondence Swiss round that starts while a player is on vacation
// gives that player's decisions their time from their return, as every
// other correspondence game does: Kai (3 days away), Lea (5) and Max (7)
// are on vacation when round 1 seats them, so each one's first decision
// is due 12 hours (the time a decision) after their own return, whoever
// of them the seating puts first.
func TestVacationStretchesASwissRoundThatStartsDuringIt(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Kai", "Lea", "Max")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "swiss", "name": "Slow Swiss", "table_size": 3, "rounds": 3,
		"pace": "correspondence", "turn_seconds": 12 * 3600})
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	back := map[string]time.Time{}
	for i, days := range []int{3, 5, 7} {
		p, name := ps[i], ps[i].Name
		if res := loggedIn(t, s, p).PostForm("/settings/vacation", map[string][]string{"days": {strconv.Itoa(days)}}); res.Status != http.StatusSeeOther {
			t.Fatalf("%s's vacation: %d", name, res.Status)
		}
		back[name] = s.Clock.Now().Add(time.Duration(days) * 24 * time.Hour)
	}
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	game := currentGame(t, ps[2], id)
	if game == 0 {
		t.Fatal("round 1 seated nobody")
	}
	byName := map[string]*apptest.API{"Kai": ps[0], "Lea": ps[1], "Max": ps[2]}
	decided := map[string]bool{}
	for step := 0; len(decided) < 3 && step < 40; step++ {
		var turn string
		var v map[string]any
		for n, p := range byName {
			if _, x := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil); x["your_turn"] == true {
				turn, v = n, x
			}
		}
		if turn == "" {
			t.Fatalf("nobody's turn at step %d", step)
		}
		if !decided[turn] {
			decided[turn] = true
			// The first decision of each: the time is counted from
			// their return (every decision here is made at the start).
			want := back[turn].Add(12 * time.Hour)
			got, err := time.Parse(time.RFC3339Nano, fmt.Sprint(v["deadline"]))
			// The test clock runs on with real time between the
			// steps: a few seconds either way are that, not a rule.
			if d := got.Sub(want); err != nil || d < -5*time.Second || d > 5*time.Second {
				t.Errorf("%s's deadline %v, want %s", turn, v["deadline"], want.UTC().Format(time.RFC3339))
			}
		}
		if st, res := byName[turn].Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/pass", game), map[string]any{"version": v["version"]}); st != http.StatusOK {
			t.Fatalf("%s passes: %d %v", turn, st, res)
		}
	}
	if len(decided) != 3 {
		t.Errorf("only %v decided", decided)
	}
}
