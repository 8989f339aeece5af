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
		apptest.PlayOut(t, ps, games...)
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
	full := s.Client().Get(fmt.Sprintf("/tournaments/%d/standings?page=1", id))
	if rows := full.Doc().Find(`[data-testid="standing-row"]`).Length(); full.Status != http.StatusOK || rows != 6 {
		t.Errorf("the full standings: %d with %d lines, want 6", full.Status, rows)
	}
	if res := full.Doc().Find(`[data-testid="standing-row"] .result`).Length(); res != 18 {
		t.Errorf("the full standings show %d games, want 18 (three each)", res)
	}
	if res := s.Client().Get(fmt.Sprintf("/tournaments/%d/standings?page=2", id)); res.Status != http.StatusNotFound {
		t.Errorf("a page past the standings: %d", res.Status)
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
		apptest.PlayOut(t, ps, games[:2]...)
		runEvents(t, s)
		if r := int(eventOf(t, ps[0], id)["tournament"].(map[string]any)["round"].(float64)); r != round {
			t.Fatalf("round %d: the next round started with a table still playing", round)
		}
		apptest.PlayOut(t, ps, games[2])
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

// A rated arena's game changes ratings as a ranked game does, and the
// change is in each player's rating history: three new players (1500,
// provisional, K = 40) at a table of three, worked out by hand from the
// placings (each pair scored 1, ½ or 0; change = K/2 × Σ (score − ½)).
// Only moderators create rated events, and bots never sit in them.
func TestRatedTournamentChangesRatings(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Rae", "Sol", "Tam")
	body := map[string]any{"kind": "arena", "name": "Rated hour", "table_size": 3, "minutes": 60, "rated": true}
	in := map[string]any{"game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": 100,
		"starts_at": s.Clock.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339)}
	for k, v := range body {
		in[k] = v
	}
	if st, res := ps[0].Do(http.MethodPost, "/api/v1/tournaments", in); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(res), "Only moderators") {
		t.Fatalf("a member creates a rated event: %d %v", st, res)
	}
	if err := s.App.Moderation.Grant(context.Background(), "Rae", true); err != nil {
		t.Fatal(err)
	}
	id := createEvent(t, s, ps[0], body)
	for _, p := range ps {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	g := currentGame(t, ps[0], id)
	_, gv := ps[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", g), nil)
	if gv["ranked"] != true {
		t.Fatalf("a rated event's game is not ranked: %v", gv["ranked"])
	}
	for _, pl := range gv["players"].([]any) {
		if pl.(map[string]any)["bot"] != nil {
			t.Fatal("a bot sits in a rated event")
		}
	}
	apptest.PlayOut(t, ps, g)
	fg := readGame(t, ps[0], g)
	for i, name := range fg.names {
		sum := 0.0
		for j := range fg.names {
			if j == i {
				continue
			}
			switch {
			case fg.placings[i] < fg.placings[j]:
				sum += 1 - 0.5
			case fg.placings[i] > fg.placings[j]:
				sum += 0 - 0.5
			}
		}
		want := 1500 + 40.0/2*sum
		u, _ := s.Store.UserByName(context.Background(), name)
		changes, err := s.Store.GameRatingChanges(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ch := range changes {
			if ch.UserID == u.ID {
				found = true
				if math.Abs(ch.Before-1500) > 1e-9 || math.Abs(ch.After-want) > 1e-9 {
					t.Errorf("%s: %v → %v, want 1500 → %v", name, ch.Before, ch.After, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: the tournament game is not in their rating history", name)
		}
		if chart := s.Client().Get("/u/" + name).Has("rating-chart"); !chart {
			t.Errorf("%s: the profile shows no rating history", name)
		}
	}
}

// Every wrong move is refused with a clear answer and changes nothing:
// joining twice, a full event, a private event without its code, changing
// the rules after the start, withdrawing twice, joining a finished event,
// a guest, a bad form.
func TestTournamentRefusals(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Una", "Vic", "Wes", "Xia")
	host := ps[0]
	id := createEvent(t, s, host, map[string]any{"kind": "arena", "name": "Small arena", "table_size": 3, "minutes": 20, "max_players": 3})
	join := func(p *apptest.API, id int64, code string) (int, map[string]any) {
		return p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), map[string]any{"code": code})
	}
	for _, p := range ps[:3] {
		if st, res := join(p, id, ""); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	check := func(what string, st int, res map[string]any, wantStatus int, wantText string) {
		t.Helper()
		if st != wantStatus || !strings.Contains(fmt.Sprint(res), wantText) {
			t.Errorf("%s: %d %v, want %d saying %q", what, st, res, wantStatus, wantText)
		}
	}
	st, res := join(ps[0], id, "")
	check("joining twice", st, res, http.StatusConflict, "in this tournament already")
	st, res = join(ps[3], id, "")
	check("joining a full event", st, res, http.StatusConflict, "full")
	st, res = host.Do(http.MethodPut, fmt.Sprintf("/api/v1/tournaments/%d", id), map[string]any{"kind": "arena", "name": "x", "table_size": 3, "minutes": 20,
		"game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": 2, "starts_at": s.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	check("a bad change", st, res, http.StatusUnprocessableEntity, "3 to 60 characters")
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	st, res = host.Do(http.MethodPut, fmt.Sprintf("/api/v1/tournaments/%d", id), map[string]any{"kind": "arena", "name": "Bigger arena", "table_size": 3, "minutes": 30,
		"game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": 10, "starts_at": s.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	check("changing the rules after the start", st, res, http.StatusConflict, "can no longer change")
	if ev := eventOf(t, host, id)["tournament"].(map[string]any); ev["name"] != "Small arena" || ev["minutes"].(float64) != 20 {
		t.Errorf("a refused change changed the event: %v", ev)
	}
	if st, _ := ps[1].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/withdraw", id), nil); st != http.StatusOK {
		t.Fatalf("withdraw: %d", st)
	}
	st, res = ps[1].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/withdraw", id), nil)
	check("withdrawing twice", st, res, http.StatusConflict, "withdrawn")
	st, res = join(ps[1], id, "")
	check("joining again after withdrawing", st, res, http.StatusConflict, "cannot join it again")
	st, res = ps[3].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/pause", id), nil)
	check("pausing an event one is not in", st, res, http.StatusConflict, "not in this tournament")

	// A private event: without its code it does not exist.
	priv := createEvent(t, s, host, map[string]any{"kind": "swiss", "name": "Club night", "table_size": 3, "rounds": 3, "private": true})
	st, res = ps[3].Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", priv), nil)
	check("a private event without its code", st, res, http.StatusNotFound, "no such tournament")
	st, res = join(ps[3], priv, "wrong")
	check("joining a private event with a wrong code", st, res, http.StatusNotFound, "no such tournament")
	_, full := host.Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", priv), nil)
	if full["tournament"] == nil {
		t.Fatal("the host cannot read their private event")
	}
	var code string
	if err := s.Store.DB.Get(&code, `SELECT code FROM tournaments WHERE id = $1`, priv); err != nil {
		t.Fatal(err)
	}
	if st, res := join(ps[3], priv, code); st != http.StatusOK {
		t.Errorf("joining a private event with its code: %d %v", st, res)
	}
	if page := s.Client().Get(fmt.Sprintf("/tournaments/%d?code=%s", priv, code)); page.Status != http.StatusOK {
		t.Errorf("the private event's page with its code: %d", page.Status)
	}
	if page := s.Client().Get(fmt.Sprintf("/tournaments/%d", priv)); page.Status != http.StatusNotFound {
		t.Errorf("the private event's page without its code: %d", page.Status)
	}

	// A finished event takes nobody.
	if _, err := s.Store.DB.Exec(`UPDATE tournaments SET status = 'finished' WHERE id = $1`, priv); err != nil {
		t.Fatal(err)
	}
	st, res = join(ps[2], priv, code)
	check("joining a finished event", st, res, http.StatusConflict, "is over")

	// A guest cannot join; a visitor's form is refused with the fields.
	guest := s.Client()
	guest.Follow(guest.PostForm("/play", nil))
	if res := guest.PostForm(fmt.Sprintf("/tournaments/%d/join", id), nil); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/register" {
		t.Errorf("a guest joins: %d %s", res.Status, res.Header.Get("Location"))
	}
	member := loggedIn(t, s, ps[3])
	bad := member.PostForm("/tournaments", map[string][]string{"kind": {"swiss"}, "name": {"ab"}, "rounds": {"12"}, "table_size": {"8"},
		"game_rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "max_players": {"10"}, "starts_local": {"2020-01-01T10:00"}})
	if bad.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad tournament form: %d", bad.Status)
	}
	for _, field := range []string{"name", "rounds", "table_size", "starts_at"} {
		if bad.TestID("error-"+field) == "" {
			t.Errorf("the bad form says nothing at %s", field)
		}
	}
	if bad.Doc().Find(`[data-testid="input-name"]`).AttrOr("value", "") != "ab" {
		t.Error("the bad form lost what was typed")
	}
}

// One arena seated by two instances at once, each running its own
// tournament worker on the same database: every wave seats each free
// player at exactly one table, and nobody ever sits at two tables of the
// event at once.
func TestArenaSeatedByTwoInstances(t *testing.T) {
	s := apptest.New(t)
	s2 := apptest.NewOn(t, s.Store, s.DBURL)
	var ps []*apptest.API
	for i := range 12 {
		srv := s
		if i%2 == 1 {
			srv = s2
		}
		ps = append(ps, srv.APIFor(fmt.Sprintf("Pair%02d", i)))
	}
	if _, err := s.Store.VerifyEmail(context.Background(), ps[0].ID, "pair00@example.com", time.Now()); err != nil {
		t.Fatal(err)
	}
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Twin arena", "table_size": 3, "minutes": 20})
	for _, p := range ps {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d %v", st, res)
		}
	}
	// Start it now, behind both workers' backs: they find it on their own.
	if _, err := s.Store.DB.Exec(`UPDATE tournaments SET starts_at = now(), due_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	atTwoTables := func() int {
		var n int
		if err := s.Store.DB.Get(&n, `SELECT count(*) FROM (
			SELECT s.user_id FROM game_seats s JOIN games g ON g.id = s.game_id
			WHERE g.tournament_id = $1 AND g.status = 'playing' GROUP BY s.user_id HAVING count(*) > 1) x`, id); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for wave := 1; wave <= 3; wave++ {
		var games []int64
		deadline := time.Now().Add(20 * time.Second)
		for {
			games = games[:0]
			seated := 0
			for _, p := range ps {
				if g := currentGame(t, p, id); g != 0 {
					seated++
					if !slices.Contains(games, g) {
						games = append(games, g)
					}
				}
			}
			if seated == len(ps) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("wave %d: %d of %d players seated after 20 s", wave, seated, len(ps))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(games) != 4 {
			t.Errorf("wave %d: %d tables for 12 players at tables of three", wave, len(games))
		}
		if n := atTwoTables(); n != 0 {
			t.Fatalf("wave %d: %d players sit at two tables of the event", wave, n)
		}
		apptest.PlayOut(t, ps, games...)
	}
	var tables, seats int
	if err := s.Store.DB.Get(&tables, `SELECT count(*) FROM tournament_games WHERE tournament_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.DB.Get(&seats, `SELECT count(*) FROM game_seats s JOIN tournament_games tg ON tg.game_id = s.game_id WHERE tg.tournament_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if seats != 3*tables || tables < 12 {
		t.Errorf("%d tables with %d seats", tables, seats)
	}
	var results int
	if err := s.Store.DB.Get(&results, `SELECT count(*) FROM tournament_results WHERE tournament_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if results != 36 {
		t.Errorf("%d results counted for 12 finished games of three, want 36 (each once)", results)
	}
}

// A correspondence Swiss round with a timeout and an abandonment: the
// games have the usual deadlines; a player whose decision runs out once
// plays on; a player who lets three run out has abandoned their game and
// is withdrawn from the event, so the next round seats the five left (one
// table of three, two byes); each seated player is mailed their table.
func TestCorrespondenceSwissRoundWithTimeoutAndAbandonment(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	ps := verified(t, s, "Kai", "Lea", "Max", "Nia", "Oli", "Pia")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "swiss", "name": "Slow Swiss", "table_size": 3, "rounds": 3,
		"pace": "correspondence", "turn_seconds": 12 * 3600})
	for _, p := range ps {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	ctx := context.Background()
	byName := map[string]*apptest.API{}
	for _, p := range ps {
		byName[p.Name] = p
	}
	ev := eventOf(t, ps[0], id)
	var tables [][]string
	var games []int64
	for _, x := range ev["tables"].([]any) {
		tb := x.(map[string]any)
		var names []string
		for _, n := range tb["players"].([]any) {
			names = append(names, n.(string))
		}
		tables = append(tables, names)
		games = append(games, int64(tb["game_id"].(float64)))
	}
	if len(games) != 2 {
		t.Fatalf("round 1: %d tables of six players at tables of three", len(games))
	}
	_, gv := ps[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", games[0]), nil)
	if gv["pace"] != "correspondence" || gv["turn_seconds"].(float64) != 12*3600 {
		t.Fatalf("a correspondence round's game: %v, %v s", gv["pace"], gv["turn_seconds"])
	}
	quitter, slow := tables[0][0], tables[1][0]
	// lapse lets the decision due in one game run out (its deadline is
	// put in the past) and has the server move for the player.
	lapse := func(game int64) {
		t.Helper()
		if _, err := s.Store.DB.Exec(`UPDATE games SET due_at = $2 WHERE id = $1`, game, s.Clock.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.App.Games.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	slowLapsed := false
	play := func(game int64, names []string) {
		t.Helper()
		for range 500 {
			var turn string
			for _, n := range names {
				_, v := byName[n].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil)
				if v["status"] == "finished" {
					return
				}
				if v["your_turn"] == true {
					turn = n
					vv := v["view"].(map[string]any)
					switch {
					case n == quitter:
						lapse(game)
					case n == slow && !slowLapsed:
						slowLapsed = true
						lapse(game)
					default:
						action := "pass"
						if vv["pot"].(float64) >= 2 || !strings.Contains(fmt.Sprint(vv["legal"]), "pass") {
							action = "take"
						}
						byName[n].Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", game, action), map[string]any{"version": v["version"]})
					}
				}
			}
			if turn == "" {
				// A bot plays the abandoned seat: its move is due shortly.
				s.Clock.Advance(time.Second)
				if _, err := s.App.Games.RunDue(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Fatalf("game %d did not end", game)
	}
	play(games[0], tables[0])
	play(games[1], tables[1])
	runEvents(t, s)

	ev = eventOf(t, ps[0], id)
	status := map[string]string{}
	for _, x := range ev["standings"].([]any) {
		st := x.(map[string]any)
		status[st["username"].(string)] = st["status"].(string)
	}
	if status[quitter] != "withdrawn" {
		t.Errorf("%s abandoned their game and is %q, want withdrawn", quitter, status[quitter])
	}
	if status[slow] != "active" {
		t.Errorf("%s let one decision run out and is %q, want active", slow, status[slow])
	}
	if r := int(ev["tournament"].(map[string]any)["round"].(float64)); r != 2 {
		t.Fatalf("round 2 did not start: round %d", r)
	}
	var round2 []string
	for _, x := range ev["tables"].([]any) {
		tb := x.(map[string]any)
		if int(tb["round"].(float64)) == 2 {
			for _, n := range tb["players"].([]any) {
				round2 = append(round2, n.(string))
			}
		}
	}
	if len(round2) != 3 || slices.Contains(round2, quitter) {
		t.Errorf("round 2 seats %v: want three of the five left, never %s", round2, quitter)
	}
	byes := 0
	for _, x := range ev["standings"].([]any) {
		if b, ok := x.(map[string]any)["byes"].(float64); ok {
			byes += int(b)
		}
	}
	if byes != 2 {
		t.Errorf("%d byes in round 2, want 2", byes)
	}
	if _, err := s.App.Notify.RunOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range round2 {
		found := false
		for _, m := range smtp.To(strings.ToLower(n) + "@example.com") {
			if strings.Contains(m.Header("Subject"), "Your table in Slow Swiss is ready") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s was not mailed their round 2 table", n)
		}
	}
}

// A hundred watchers of an event's page, in two languages, get each
// change of the standings over the page's stream, and each version is
// drawn once per language for all of them (and read once).
func TestTournamentWatchersShareOneDrawing(t *testing.T) {
	const watchers = 100
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Sam", "Tia", "Udo", "Val")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Watched arena", "table_size": 3, "minutes": 30})
	for _, p := range ps[:3] {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	streams := make([]*apptest.Stream, watchers)
	for i := range streams {
		c := s.Client()
		c.HTTP.Timeout = 0
		if i%2 == 1 {
			c.PostForm("/lang", map[string][]string{"lang": {"es"}, "next": {"/"}})
		}
		streams[i] = c.Stream(ctx, fmt.Sprintf("/tournaments/%d/events", id))
		if first := streams[i].Next(t, "standings"); !strings.Contains(first, "Sam") {
			t.Fatalf("the first standings lack the players: %s", first)
		}
	}
	loads, renders := s.App.Feed.FeedStats()
	// A fourth player joins: one change of the standings.
	ps[3].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	for i, st := range streams {
		for {
			data := st.Next(t, "standings")
			if strings.Contains(data, "Val") {
				if i%2 == 1 && !strings.Contains(data, "Clasificación") {
					t.Errorf("a Spanish watcher's standings are not in Spanish")
				}
				break
			}
		}
	}
	l2, r2 := s.App.Feed.FeedStats()
	if r2-renders != 2 {
		t.Errorf("%d drawings of one change for %d watchers in two languages, want 2", r2-renders, watchers)
	}
	if l2-loads > 2 {
		t.Errorf("%d reads of one change, want 1 (2 at most with a late notification)", l2-loads)
	}
}

// A player who lets their first decisions run out at an arena table has
// missed it: they are paused after that game and not seated again until
// they come back; a player who pauses is not seated either; one who joins
// a running arena is seated in the next wave. Each is told over their turn
// stream when the arena starts and when their table is ready.
func TestArenaPauseMissAndLateJoin(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Abe", "Bea", "Cal", "Dot", "Eve", "Fox")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Wave arena", "table_size": 3, "minutes": 60})
	for _, p := range ps[:5] {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	abeStream := loggedIn(t, s, ps[0]).Stream(ctx, "/my/events")
	abeStream.Next(t, "turn")
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	if n := abeStream.Next(t, "notice"); !strings.Contains(n, `"kind":"start"`) || !strings.Contains(n, fmt.Sprintf(`"tournament":%d`, id)) {
		t.Errorf("the start notice: %s", n)
	}
	table := abeStream.Next(t, "notice")
	if !strings.Contains(table, `"kind":"table"`) {
		t.Errorf("the table notice: %s", table)
	}
	// Five players at tables of three: one table, two wait.
	var seated []*apptest.API
	var waiting []*apptest.API
	var game int64
	for _, p := range ps[:5] {
		if g := currentGame(t, p, id); g != 0 {
			seated, game = append(seated, p), g
		} else {
			waiting = append(waiting, p)
		}
	}
	if len(seated) != 3 || !strings.Contains(table, fmt.Sprintf(`"game":%d`, game)) && slices.Contains(seated, ps[0]) {
		t.Fatalf("%d seated of five at tables of three (notice %s)", len(seated), table)
	}
	// One of the waiting pauses; Fox joins late.
	if st, _ := waiting[0].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/pause", id), nil); st != http.StatusOK {
		t.Fatalf("pause: %d", st)
	}
	ps[5].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	// At the table, one player misses every decision of theirs.
	absent := seated[0]
	for range 500 {
		_, v := seated[1].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil)
		if v["status"] == "finished" {
			break
		}
		moved := false
		for _, p := range seated {
			_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", game), nil)
			if v["your_turn"] != true {
				continue
			}
			moved = true
			if p == absent {
				if _, err := s.Store.DB.Exec(`UPDATE games SET due_at = now() - interval '1 second' WHERE id = $1`, game); err != nil {
					t.Fatal(err)
				}
				if _, err := s.App.Games.RunDue(context.Background()); err != nil {
					t.Fatal(err)
				}
				continue
			}
			vv := v["view"].(map[string]any)
			action := "pass"
			if vv["pot"].(float64) >= 2 || !strings.Contains(fmt.Sprint(vv["legal"]), "pass") {
				action = "take"
			}
			p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", game, action), map[string]any{"version": v["version"]})
		}
		if !moved {
			s.Clock.Advance(time.Second)
			s.App.Games.RunDue(context.Background())
		}
	}
	s.Clock.Advance(3 * time.Second)
	runEvents(t, s)
	_, me := absent.Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d/me", id), nil)
	if me["status"] != "paused" || me["game_id"] != nil {
		t.Errorf("the player who missed the table: %v", me)
	}
	if g := currentGame(t, waiting[0], id); g != 0 {
		t.Errorf("the paused player was seated at %d", g)
	}
	if g := currentGame(t, ps[5], id); g == 0 {
		t.Error("the late joiner was not seated in the next wave")
	}
	// Coming back: seated in the next wave with others free.
	if st, _ := absent.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/resume", id), nil); st != http.StatusOK {
		t.Fatalf("resume: %d", st)
	}
	if st, _ := waiting[0].Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/resume", id), nil); st != http.StatusOK {
		t.Fatalf("resume: %d", st)
	}
	s.Clock.Advance(3 * time.Second)
	runEvents(t, s)
	free := 0
	for _, p := range ps {
		if currentGame(t, p, id) == 0 {
			free++
		}
	}
	if free >= 3 {
		t.Errorf("%d players free after the wave: at tables of three at most two wait", free)
	}
}

// A live arena's "it starts" mail goes only to a player who has not been
// on the site since the start, and only when they want tournament mail.
func TestTournamentStartMailOnlyWhenAway(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	ps := verified(t, s, "Gia", "Hugo", "Iris")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Mail arena", "table_size": 3, "minutes": 30})
	for _, p := range ps {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	// Iris turns tournament mail off.
	iris := loggedIn(t, s, ps[2])
	iris.PostForm("/settings/notifications", map[string][]string{"mail_your_turn": {"true"}, "time_zone": {"UTC"}, "digest_hour": {"8"}})
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	// Hugo comes to the site after the start; Gia stays away.
	hugo := loggedIn(t, s, ps[1])
	hugo.Get(fmt.Sprintf("/tournaments/%d", id))
	// The API tokens count as being on the site: mark them unused again.
	if _, err := s.Store.DB.Exec(`UPDATE api_tokens SET last_used_at = NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.DB.Exec(`UPDATE sessions SET last_seen_at = now() - interval '1 hour' WHERE user_id = $1`, ps[0].ID); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(3 * time.Minute)
	if _, err := s.App.Notify.RunOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	started := func(p *apptest.API) bool {
		for _, m := range smtp.To(strings.ToLower(p.Name) + "@example.com") {
			if strings.Contains(m.Header("Subject"), "Mail arena has started") {
				return true
			}
		}
		return false
	}
	if !started(ps[0]) {
		t.Error("Gia, away since the start, was not mailed")
	}
	if started(ps[1]) {
		t.Error("Hugo, on the site since the start, was mailed")
	}
	if started(ps[2]) {
		t.Error("Iris turned tournament mail off and was mailed")
	}
}

// A moderator schedules an hourly arena: the server creates the next event
// one hour ahead of its start, once however many instances look, and the
// one after when its time comes; stopping the schedule stops it.
func TestRecurringArena(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	mod := verified(t, s, "Mona")[0]
	if err := s.App.Moderation.Grant(context.Background(), "Mona", true); err != nil {
		t.Fatal(err)
	}
	mc := loggedIn(t, s, mod)
	start := s.Clock.Now().Add(30 * time.Minute).UTC()
	res := mc.PostForm("/admin/schedules", map[string][]string{"kind": {"arena"}, "name": {"Hourly arena"}, "table_size": {"4"}, "minutes": {"30"},
		"game_rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"30"}, "max_players": {"500"}, "rated": {"true"},
		"every_hours": {"1"}, "time_zone": {"UTC"}, "starts_local": {start.Format("2006-01-02T15:04")}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("schedule: %d %s", res.Status, res.TestID("form-error"))
	}
	events := func() []string {
		var out []string
		if err := s.Store.DB.Select(&out, `SELECT to_char(starts_at AT TIME ZONE 'UTC', 'HH24:MI') || ' ' || name || ' ' || rated FROM tournaments ORDER BY starts_at`); err != nil {
			t.Fatal(err)
		}
		return out
	}
	runEvents(t, s)
	runEvents(t, s) // a second look creates nothing more
	first := start.Truncate(time.Minute)
	if got := events(); len(got) != 1 || got[0] != first.Format("15:04")+" Hourly arena true" {
		t.Fatalf("events after scheduling: %v", got)
	}
	s.Clock.Advance(31 * time.Minute) // the first starts; the next is an hour ahead
	runEvents(t, s)
	if got := events(); len(got) != 2 || got[1] != first.Add(time.Hour).Format("15:04")+" Hourly arena true" {
		t.Fatalf("events an hour on: %v", got)
	}
	var sid int64
	if err := s.Store.DB.Get(&sid, `SELECT id FROM tournament_schedules`); err != nil {
		t.Fatal(err)
	}
	mc.PostForm(fmt.Sprintf("/admin/schedules/%d/active", sid), map[string][]string{"active": {"false"}})
	s.Clock.Advance(2 * time.Hour)
	runEvents(t, s)
	if got := events(); len(got) != 2 {
		t.Errorf("a stopped schedule made more events: %v", got)
	}
	if page := loggedIn(t, s, verified(t, s, "Nobody")[0]).Get("/admin/schedules"); page.Status != http.StatusForbidden {
		t.Errorf("a member opens the schedules: %d", page.Status)
	}
}

// A moderator hides an event's description: others no longer read it, the
// moderator still does (marked), and the moderation log says so.
func TestModeratorHidesADescription(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Oona", "Moss")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Loud arena", "description": "Buy cheap tokens at example.com", "table_size": 3, "minutes": 30})
	if err := s.App.Moderation.Grant(context.Background(), "Moss", true); err != nil {
		t.Fatal(err)
	}
	mc := loggedIn(t, s, ps[1])
	if res := mc.PostForm(fmt.Sprintf("/tournaments/%d/hide", id), map[string][]string{"hide": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("hide: %d", res.Status)
	}
	if page := s.Client().Get(fmt.Sprintf("/tournaments/%d", id)); strings.Contains(page.Body, "cheap tokens") || !page.Has("description-hidden") {
		t.Error("a visitor still reads the hidden description")
	}
	if _, ev := ps[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", id), nil); strings.Contains(fmt.Sprint(ev), "cheap tokens") {
		t.Error("the API still gives the hidden description")
	}
	if page := mc.Get(fmt.Sprintf("/tournaments/%d", id)); !strings.Contains(page.TestID("tournament-description"), "cheap tokens") || !page.Has("description-hidden") {
		t.Error("the moderator does not read the hidden description, marked")
	}
	if log := mc.Get("/admin/log"); !strings.Contains(log.TestID("mod-log-row"), "hid a tournament's description") {
		t.Errorf("the log: %q", log.TestID("mod-log-row"))
	}
	if res := loggedIn(t, s, ps[0]).PostForm(fmt.Sprintf("/tournaments/%d/hide", id), map[string][]string{"hide": {"false"}}); res.Status != http.StatusForbidden {
		t.Errorf("the creator shows the hidden description again: %d", res.Status)
	}
}

// The featured table is watched as a spectator by everyone on the event's
// page, its own players too: no seat's tokens, no buttons.
func TestFeaturedTableIsASpectatorsView(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Quin", "Rita", "Saul")
	id := createEvent(t, s, ps[0], map[string]any{"kind": "arena", "name": "Featured arena", "table_size": 3, "minutes": 30})
	for _, p := range ps {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	ev := eventOf(t, ps[0], id)
	g := int64(ev["featured_game_id"].(float64))
	player := loggedIn(t, s, ps[0])
	page := player.Get(fmt.Sprintf("/tournaments/%d", id))
	stream := page.Doc().Find(`[data-testid="featured-live"]`).AttrOr("sse-connect", "")
	if stream != fmt.Sprintf("/games/%d/events?view=spectator", g) {
		t.Fatalf("the featured table's stream is %q", stream)
	}
	if page.Doc().Find(`#featured [data-testid="my-tokens"], #featured [data-key]`).Length() > 0 {
		t.Error("the featured table drawn in the page shows a seat's tokens or buttons")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	board := player.Stream(ctx, stream).Next(t, "board")
	if strings.Contains(board, "You hold") || strings.Contains(board, `data-key="T"`) {
		t.Errorf("a player's featured stream shows their own seat: %.300s", board)
	}
	if own := player.Stream(ctx, fmt.Sprintf("/games/%d/events", g)).Next(t, "board"); !strings.Contains(own, "You hold") {
		t.Error("the player's own stream of the table does not show their tokens (the check above cannot fail)")
	}
}
