package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// verified makes API users whose addresses are confirmed.
func verified(t *testing.T, s *apptest.Server, names ...string) []*apptest.API {
	t.Helper()
	var out []*apptest.API
	for _, n := range names {
		p := s.APIFor(n)
		if _, err := s.Store.VerifyEmail(context.Background(), p.ID, strings.ToLower(n)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// createEvent creates an event through the API and returns its id.
func createEvent(t *testing.T, s *apptest.Server, by *apptest.API, body map[string]any) int64 {
	t.Helper()
	in := map[string]any{"game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": 100,
		"starts_at": s.Clock.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)}
	for k, v := range body {
		in[k] = v
	}
	st, res := by.Do(http.MethodPost, "/api/v1/tournaments", in)
	if st != http.StatusCreated {
		t.Fatalf("create tournament: %d %v", st, res)
	}
	return int64(res["tournament"].(map[string]any)["id"].(float64))
}

// runEvents makes the tournament worker do what is due now.
func runEvents(t *testing.T, s *apptest.Server) {
	t.Helper()
	if _, err := s.App.Tournaments.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// eventOf reads an event through the API as p.
func eventOf(t *testing.T, p *apptest.API, id int64) map[string]any {
	t.Helper()
	st, res := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", id), nil)
	if st != http.StatusOK {
		t.Fatalf("tournament %d: %d %v", id, st, res)
	}
	return res
}

// currentGame is the table p sits at in an event (0: none).
func currentGame(t *testing.T, p *apptest.API, id int64) int64 {
	t.Helper()
	you, ok := eventOf(t, p, id)["you"].(map[string]any)
	if !ok || you["game_id"] == nil {
		return 0
	}
	return int64(you["game_id"].(float64))
}

// playTables plays games to their end through the API: each player takes
// when the pot holds two tokens or they must, else says No thanks!.
func playTables(t *testing.T, players []*apptest.API, gameIDs ...int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	left := slices.Clone(gameIDs)
	for len(left) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("games %v did not end", left)
		}
		var still []int64
		for _, g := range left {
			done := false
			for _, p := range players {
				_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", g), nil)
				if v["status"] == "finished" {
					done = true
					break
				}
				if v["your_turn"] != true {
					continue
				}
				vv := v["view"].(map[string]any)
				action := "pass"
				if vv["pot"].(float64) >= 2 || !strings.Contains(fmt.Sprint(vv["legal"]), "pass") {
					action = "take"
				}
				p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", g, action), map[string]any{"version": v["version"]})
			}
			if !done {
				still = append(still, g)
			}
		}
		left = still
	}
}

// finished is a finished game as the test reads it: its players by name,
// their placings.
type finishedGame struct {
	id       int64
	names    []string
	placings []int
}

func readGame(t *testing.T, p *apptest.API, id int64) finishedGame {
	t.Helper()
	_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
	if v["status"] != "finished" {
		t.Fatalf("game %d is %v", id, v["status"])
	}
	g := finishedGame{id: id}
	for _, pl := range v["players"].([]any) {
		g.names = append(g.names, pl.(map[string]any)["name"].(string))
	}
	for _, x := range v["view"].(map[string]any)["placings"].([]any) {
		g.placings = append(g.placings, int(x.(float64)))
	}
	return g
}

// placePoints works a table's points out by hand: seats in finishing
// order take n-1, n-2, … 0 points, and seats with the same placing share
// the points of the positions they take equally.
func placePoints(placings []int) []float64 {
	n := len(placings)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return placings[order[a]] < placings[order[b]] })
	out := make([]float64, n)
	for pos := 0; pos < n; {
		end := pos
		for end < n && placings[order[end]] == placings[order[pos]] {
			end++
		}
		sum := 0.0
		for k := pos; k < end; k++ {
			sum += float64(n - 1 - k)
		}
		for k := pos; k < end; k++ {
			out[order[k]] = sum / float64(end-pos)
		}
		pos = end
	}
	return out
}

// An arena from start to end, played through the API by six players at
// tables of three: every wave seats everyone free, games running when
// the time is up still count, and each player's points are those worked
// out by hand from their finished games (placing points, doubled after
// two first places in a row).
func TestArenaFromStartToEnd(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ava", "Ben", "Cid", "Dee", "Eli", "Fay")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Friday arena", "table_size": 3, "minutes": 20})
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	runEvents(t, s)
	if ev := eventOf(t, ps[0], id); ev["tournament"].(map[string]any)["status"] != "upcoming" {
		t.Fatalf("before its start the arena is %v", ev["tournament"].(map[string]any)["status"])
	}
	s.Clock.Advance(2 * time.Minute)
	var played []int64
	for wave := 1; wave <= 3; wave++ {
		runEvents(t, s)
		var games []int64
		for _, p := range ps {
			g := currentGame(t, p, id)
			if g == 0 {
				t.Fatalf("wave %d: %s is not seated", wave, p.Name)
			}
			if !slices.Contains(games, g) {
				games = append(games, g)
			}
		}
		if len(games) != 2 {
			t.Fatalf("wave %d: %d tables for six players at tables of three", wave, len(games))
		}
		if wave == 3 {
			// The time runs out while the last wave plays: it counts.
			s.Clock.Advance(20 * time.Minute)
		}
		playTables(t, ps, games...)
		played = append(played, games...)
		s.Clock.Advance(3 * time.Second) // past the wave's wait
	}
	runEvents(t, s)
	ev := eventOf(t, ps[0], id)
	if st := ev["tournament"].(map[string]any)["status"]; st != "finished" {
		t.Fatalf("after its time and its last games the arena is %v", st)
	}

	// By hand: each player's games in the order they played them (a
	// player's next table always has a higher number), placing points
	// doubled when the two before were first places.
	byName := map[string][]finishedGame{}
	for _, g := range played {
		fg := readGame(t, ps[0], g)
		for _, n := range fg.names {
			byName[n] = append(byName[n], fg)
		}
	}
	want := map[string]float64{}
	wins := map[string]int{}
	for name, gs := range byName {
		sort.Slice(gs, func(i, j int) bool { return gs[i].id < gs[j].id })
		var won []bool
		for _, g := range gs {
			seat := slices.Index(g.names, name)
			pts := placePoints(g.placings)[seat]
			first := g.placings[seat] == slices.Min(g.placings)
			if len(won) >= 2 && won[len(won)-1] && won[len(won)-2] {
				pts *= 2
			}
			want[name] += pts
			won = append(won, first)
			if first {
				wins[name]++
			}
		}
		if len(gs) != 3 {
			t.Errorf("%s played %d games, want 3", name, len(gs))
		}
	}
	standings := ev["standings"].([]any)
	if len(standings) != 6 {
		t.Fatalf("%d lines of standings", len(standings))
	}
	prev := math.Inf(1)
	for _, x := range standings {
		st := x.(map[string]any)
		name := st["username"].(string)
		if got := st["points"].(float64); got != want[name] {
			t.Errorf("%s has %v points, want %v worked out from their games", name, got, want[name])
		}
		if got := int(st["wins"].(float64)); got != wins[name] {
			t.Errorf("%s has %d first places, want %d", name, got, wins[name])
		}
		if p := st["points"].(float64); p > prev {
			t.Errorf("the standings are not in order of points: %v after %v", p, prev)
		}
		prev = st["points"].(float64)
	}
	winner := standings[0].(map[string]any)["username"].(string)
	page := s.Client().Get(fmt.Sprintf("/tournaments/%d", id))
	if page.Status != http.StatusOK || !strings.Contains(page.TestID("tournament-status"), winner+" won") {
		t.Errorf("the finished arena's page: %d %q", page.Status, page.TestID("tournament-status"))
	}
	if prof := s.Client().Get("/u/" + winner); !strings.Contains(prof.TestID("profile-tournaments"), "Friday arena") {
		t.Errorf("the winner's profile does not list the arena: %q", prof.TestID("profile-tournaments"))
	}
}
