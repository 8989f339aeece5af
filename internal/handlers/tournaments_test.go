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

// A Swiss event of ten players at tables of three over three rounds,
// through the API: each round seats three tables and gives one bye (worth
// a point, the mean of a table) to a player who had none; no two players
// meet twice (avoidable at ten players and three rounds); a round starts
// when the last table of the one before ends; the standings are ordered
// by points, then the sum of the opponents' scores (each bye counting the
// player's own score for the two opponents a table would have given), all
// worked out here from the finished games.
func TestSwissOfTenAtTablesOfThree(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	names := []string{"Ada", "Bob", "Cyd", "Dia", "Eddy", "Flo", "Gus", "Hal", "Ivy", "Jon"}
	ps := verified(t, s, names...)
	id := createEvent(t, s, ps[0], map[string]any{"kind": "swiss", "name": "Ten in three", "table_size": 3, "rounds": 3})
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	s.Clock.Advance(2 * time.Minute)
	late := verified(t, s, "Late")[0]
	met := map[[2]string]int{}
	byes := map[string]int{}
	score := map[string]float64{}
	opponents := map[string][]string{}
	for round := 1; round <= 3; round++ {
		runEvents(t, s)
		if round == 1 {
			if st, res := late.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusConflict || !strings.Contains(fmt.Sprint(res), "has begun") {
				t.Errorf("joining after round 1 started: %d %v", st, res)
			}
		}
		ev := eventOf(t, ps[0], id)
		if r := int(ev["tournament"].(map[string]any)["round"].(float64)); r != round {
			t.Fatalf("round %d: the event says round %d", round, r)
		}
		var games []int64
		seated := map[string]bool{}
		for _, x := range ev["tables"].([]any) {
			tb := x.(map[string]any)
			if int(tb["round"].(float64)) != round {
				continue
			}
			games = append(games, int64(tb["game_id"].(float64)))
			var at []string
			for _, n := range tb["players"].([]any) {
				at = append(at, n.(string))
				seated[n.(string)] = true
			}
			if len(at) != 3 {
				t.Errorf("round %d: a table of %d", round, len(at))
			}
			for i := range at {
				for j := i + 1; j < len(at); j++ {
					a, b := at[i], at[j]
					if a > b {
						a, b = b, a
					}
					met[[2]string{a, b}]++
					if met[[2]string{a, b}] > 1 {
						t.Errorf("round %d: %s and %s meet again", round, a, b)
					}
				}
			}
		}
		if len(games) != 3 {
			t.Fatalf("round %d: %d tables, want 3 (and a bye)", round, len(games))
		}
		for _, n := range names {
			if !seated[n] {
				byes[n]++
				if byes[n] > 1 {
					t.Errorf("%s has a second bye in round %d while others had none", n, round)
				}
				score[n]++ // a bye is worth a point at tables of three
			}
		}
		// The last table of the round holds up the next one.
		playTables(t, ps, games[:2]...)
		runEvents(t, s)
		if r := int(eventOf(t, ps[0], id)["tournament"].(map[string]any)["round"].(float64)); r != round {
			t.Fatalf("round %d: the next round started with a table still playing", round)
		}
		playTables(t, ps, games[2])
		for _, g := range games {
			fg := readGame(t, ps[0], g)
			pts := placePoints(fg.placings)
			for i, n := range fg.names {
				score[n] += pts[i]
				for _, o := range fg.names {
					if o != n {
						opponents[n] = append(opponents[n], o)
					}
				}
			}
		}
	}
	runEvents(t, s)
	ev := eventOf(t, ps[0], id)
	if st := ev["tournament"].(map[string]any)["status"]; st != "finished" {
		t.Fatalf("after three rounds the event is %v", st)
	}
	if len(byes) != 3 {
		t.Errorf("byes went to %v: want three players, one a round", byes)
	}
	buchholz := map[string]float64{}
	for _, n := range names {
		for _, o := range opponents[n] {
			buchholz[n] += score[o]
		}
		buchholz[n] += float64(byes[n]) * 2 * score[n]
	}
	want := slices.Clone(names)
	sort.SliceStable(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if score[a] != score[b] {
			return score[a] > score[b]
		}
		return buchholz[a] > buchholz[b]
	})
	standings := ev["standings"].([]any)
	for i, x := range standings {
		st := x.(map[string]any)
		n := st["username"].(string)
		if st["points"].(float64) != score[n] || st["buchholz"].(float64) != buchholz[n] {
			t.Errorf("%s: %v points and Buchholz %v, want %v and %v", n, st["points"], st["buchholz"], score[n], buchholz[n])
		}
		// Equal on points and Buchholz, later tie-breaks decide: only
		// the order of the first two keys is checked here.
		if w := want[i]; w != n && (score[w] != score[n] || buchholz[w] != buchholz[n]) {
			t.Errorf("place %d is %s, want %s (points, then the opponents' scores)", i+1, n, w)
		}
	}
	// The standings after round 1 hold round 1's results only.
	_, r1 := ps[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d?round=1", id), nil)
	for _, x := range r1["standings"].([]any) {
		if games := x.(map[string]any)["games"].(float64); games > 1 {
			t.Errorf("after round 1, %v shows %v games", x.(map[string]any)["username"], games)
		}
	}
}
