package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// gamePath is a game's address in the API.
func gamePath(id int64) string { return fmt.Sprintf("/api/v1/games/%d", id) }

// seatOfName is the seat a player's name holds in an API view of a game.
func seatOfName(t *testing.T, v map[string]any, name string) int {
	t.Helper()
	for _, p := range v["players"].([]any) {
		pl := p.(map[string]any)
		if pl["name"] == name && pl["seat"] != nil {
			return int(pl["seat"].(float64))
		}
	}
	t.Fatalf("%s has no seat in %v", name, v["players"])
	return -1
}

// seatView is a seat of an API view of a game.
func seatView(v map[string]any, seat int) map[string]any {
	return v["view"].(map[string]any)["seats"].([]any)[seat].(map[string]any)
}

// rankedTable makes a ranked table of one round for the players (the
// first creates it) and returns it once it has started.
func rankedTable(t *testing.T, ps ...*apptest.API) int64 {
	t.Helper()
	st, g := ps[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": len(ps), "rounds": 1, "ranked": true})
	if st != http.StatusCreated {
		t.Fatalf("create a ranked table: %d %v", st, g)
	}
	id := int64(g["id"].(float64))
	for _, p := range ps[1:] {
		if st, res := p.Do(http.MethodPost, gamePath(id)+"/join", nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	return id
}

// abandonThroughTheAPI leaves a game in play, confirmed.
func abandonThroughTheAPI(t *testing.T, p *apptest.API, id int64) {
	t.Helper()
	if st, res := p.Do(http.MethodPost, gamePath(id)+"/leave", map[string]any{"abandon": true}); st != http.StatusOK {
		t.Fatalf("%s leaves game %d: %d %v", p.Name, id, st, res)
	}
}

// Leaving a ranked game of four in play through the page: the
// confirmation says what it costs, the seat is abandoned at once and the
// log says so, nothing else can be done with the seat, a bot plays it to
// the end, and the leaver places last: starting at 1500 against three
// players of 1500, K = 40 while provisional, their change is 40/3 × 3 ×
// (0 − ½) = −20.
func TestLeavingARankedGameInPlay(t *testing.T) {
	s := apptest.New(t)
	ada, ben, cal, dee := s.APIFor("Ada"), s.APIFor("Ben"), s.APIFor("Cal"), s.APIFor("Dee")
	id := rankedTable(t, ada, ben, cal, dee)
	page := loggedIn(t, s, dee)

	// On the table, the link; on the confirmation, the costs.
	board := page.Get(fmt.Sprintf("/games/%d", id))
	if board.Doc().Find(`[data-testid="leave-game"]`).AttrOr("href", "") != fmt.Sprintf("/games/%d/leave", id) {
		t.Fatalf("no link to leave the game on the player's table")
	}
	if loggedIn(t, s, ada).Get(fmt.Sprintf("/games/%d", id)).Doc().Find(`[data-testid="leave-game"]`).Length() != 1 {
		t.Fatal("Ada's table has no link to leave either")
	}
	confirm := page.Get(fmt.Sprintf("/games/%d/leave", id))
	if confirm.Status != http.StatusOK || !confirm.Has("leave-ranked") || !strings.Contains(confirm.TestID("leave-pause"), "second abandonment") ||
		!strings.Contains(confirm.TestID("leave-costs"), "placed last") {
		t.Fatalf("the confirmation: %d %q", confirm.Status, confirm.TestID("leave-costs"))
	}

	// Through the API without the confirmation: refused, saying how.
	st, res := dee.Do(http.MethodPost, gamePath(id)+"/leave", nil)
	if _, msg := errorOf(res); st != http.StatusConflict || !strings.Contains(msg, `{"abandon": true}`) {
		t.Errorf("leaving without abandon: %d %v", st, res)
	}
	_, v := ada.Do(http.MethodGet, gamePath(id), nil)
	seat := seatOfName(t, v, "Dee")
	if seatView(v, seat)["abandoned"] != nil {
		t.Fatalf("a refused leave abandoned the seat: %v", seatView(v, seat))
	}

	if res := page.PostForm(fmt.Sprintf("/games/%d/abandon", id), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("leave: %d %s", res.Status, res.Body)
	}
	_, v = ada.Do(http.MethodGet, gamePath(id)+"?log=full", nil)
	if sv := seatView(v, seat); sv["abandoned"] != true || sv["left"] != true {
		t.Errorf("Dee's seat after leaving: %v", sv)
	}
	left := 0
	for _, e := range v["view"].(map[string]any)["events"].([]any) {
		if ev := e.(map[string]any); ev["kind"] == "leave" && int(ev["seat"].(float64)) == seat {
			left++
		}
	}
	if left != 1 {
		t.Errorf("%d leave events for Dee's seat in the log, want 1", left)
	}
	if !strings.Contains(loggedIn(t, s, ben).Get(fmt.Sprintf("/games/%d", id)).TestID("log"), "Dee left the game") {
		t.Error("the table's log does not say that Dee left")
	}

	// Twice, or a move: refused, nothing changed.
	st, res = dee.Do(http.MethodPost, gamePath(id)+"/leave", map[string]any{"abandon": true})
	if _, msg := errorOf(res); st != http.StatusConflict || !strings.Contains(msg, "left this game already") {
		t.Errorf("leaving twice: %d %v", st, res)
	}
	if res := page.Get(fmt.Sprintf("/games/%d/leave", id)); res.Status != http.StatusConflict {
		t.Errorf("the confirmation after leaving: %d", res.Status)
	}
	st, res = dee.Do(http.MethodPost, gamePath(id)+"/take", map[string]any{"version": v["version"]})
	if _, msg := errorOf(res); st != http.StatusForbidden || !strings.Contains(msg, "You left this game") {
		t.Errorf("a move after leaving: %d %v", st, res)
	}

	apptest.PlayOut(t, []*apptest.API{ada, ben, cal}, id)
	_, v = ada.Do(http.MethodGet, gamePath(id), nil)
	placings := v["view"].(map[string]any)["placings"].([]any)
	for i, p := range placings {
		if i == seat && p.(float64) != 4 || i != seat && p.(float64) >= 4 {
			t.Errorf("placings %v: Dee (seat %d) is not alone in last place", placings, seat)
			break
		}
	}
	_, rec := ada.Do(http.MethodGet, "/api/v1/users/Dee", nil)
	if r := rec["rating"].(float64); math.Abs(r-1480) > 0.05 {
		t.Errorf("Dee's rating after leaving the ranked game: %v, want 1480", r)
	}
	if rel := rec["reliability"].(map[string]any); rel["games"] != 1.0 || rel["finished_share"] != 0.0 || rel["new"] != true {
		t.Errorf("Dee's reliability after one game abandoned: %v", rel)
	}
	_, mine := dee.Do(http.MethodGet, "/api/v1/me/reliability", nil)
	ab := mine["abandonments"].([]any)
	if len(ab) != 1 || ab[0].(map[string]any)["how"] != "left" || ab[0].(map[string]any)["step"] != 1.0 || ab[0].(map[string]any)["pause_until"] != nil || mine["paused_until"] != nil {
		t.Errorf("Dee's record: %v", mine)
	}
	// The finished game cannot be left.
	st, res = ben.Do(http.MethodPost, gamePath(id)+"/leave", map[string]any{"abandon": true})
	if _, msg := errorOf(res); st != http.StatusConflict || !strings.Contains(msg, "The game is over") {
		t.Errorf("leaving a finished game: %d %v", st, res)
	}
}

// paused checks that an API answer is the pause refusal ending at until.
func paused(t *testing.T, what string, st int, h http.Header, res map[string]any, until time.Time) {
	t.Helper()
	code, _ := errorOf(res)
	if st != http.StatusForbidden || code != "paused" {
		t.Errorf("%s: %d %v, want 403 paused", what, st, res)
		return
	}
	got, err := time.Parse(time.RFC3339, res["error"].(map[string]any)["until"].(string))
	if err != nil || got.Sub(until).Abs() > 5*time.Second {
		t.Errorf("%s: until %v, want %s", what, res["error"], until.UTC().Format(time.RFC3339))
	}
	if h != nil {
		if ra, err := strconv.Atoi(h.Get("Retry-After")); err != nil || ra <= 0 {
			t.Errorf("%s: Retry-After %q", what, h.Get("Retry-After"))
		}
	}
}

// Repeat leavers of rated games are paused, step by step as
// docs/fair-play.md gives them: the first abandonment brings nothing, the
// second an hour, the third a day; while paused the queue, ranked tables
// and rated events refuse them, through the API, the pages and a second
// instance alike, and casual tables do not; an appeal forgiven ends the
// pause; thirty days without one start the run again.
func TestPausesForRepeatLeavers(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Lea", "Max", "Nia")
	lea, max, nia := ps[0], ps[1], ps[2]
	ctx := context.Background()
	queue := func(p *apptest.API) (int, http.Header, map[string]any) {
		return apiHeaders(t, s, p, http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"})
	}

	// 1: no pause.
	abandonThroughTheAPI(t, lea, rankedTable(t, lea, max, nia))
	if st, _, res := queue(lea); st != http.StatusOK {
		t.Fatalf("queue after a first abandonment: %d %v", st, res)
	}
	lea.Do(http.MethodDelete, "/api/v1/queue", nil)

	// 2: an hour.
	abandonThroughTheAPI(t, lea, rankedTable(t, max, nia, lea))
	until := s.Clock.Now().Add(time.Hour)
	st, h, res := queue(lea)
	paused(t, "the queue after a second abandonment", st, h, res, until)
	if ra, _ := strconv.Atoi(h.Get("Retry-After")); ra < 3590 || ra > 3600 {
		t.Errorf("Retry-After %q, want an hour", h.Get("Retry-After"))
	}
	other := apptest.NewOn(t, s.Store, s.DBURL, apptest.WithoutWorkers())
	other.Clock.Advance(s.Clock.Now().Sub(other.Clock.Now()))
	st, h, res = apiHeaders(t, other, apptest.NewAPI(other, lea.Token), http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"})
	paused(t, "the queue through another instance", st, h, res, until)
	st, res = lea.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "ranked": true})
	paused(t, "creating a ranked table", st, nil, res, until)
	_, g := max.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "ranked": true})
	st, res = lea.Do(http.MethodPost, gamePath(int64(g["id"].(float64)))+"/join", nil)
	paused(t, "joining a ranked table", st, nil, res, until)
	if st, res := lea.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3}); st != http.StatusCreated {
		t.Errorf("a casual table while paused: %d %v", st, res)
	}
	if err := s.App.Moderation.Grant(ctx, "Max", true); err != nil {
		t.Fatal(err)
	}
	event := createEvent(t, s, max, map[string]any{"kind": "arena", "name": "Rated arena", "table_size": 3, "minutes": 30, "rated": true})
	st, res = lea.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", event), nil)
	paused(t, "joining a rated tournament", st, nil, res, until)
	browser := loggedIn(t, s, lea)
	if r := browser.Get("/ranked"); !strings.Contains(r.TestID("pause-banner"), "paused from rated play") || r.Has("queue-form") {
		t.Errorf("the ranked page while paused: banner %q", r.TestID("pause-banner"))
	}
	if r := browser.Get(fmt.Sprintf("/tournaments/%d", event)); !r.Has("pause-banner") || r.Has("tournament-join") {
		t.Error("the rated tournament's page offers to join while paused")
	}

	// The hour over: free again.
	s.Clock.Advance(61 * time.Minute)
	if st, _, res := queue(lea); st != http.StatusOK {
		t.Fatalf("queue after the hour: %d %v", st, res)
	}
	lea.Do(http.MethodDelete, "/api/v1/queue", nil)

	// 3: a day.
	abandonThroughTheAPI(t, lea, rankedTable(t, nia, lea, max))
	until = s.Clock.Now().Add(24 * time.Hour)
	st, h, res = queue(lea)
	paused(t, "the queue after a third abandonment", st, h, res, until)

	// The appeal: too short, then sent, then not twice; its moderator
	// is not the player; forgiven, the pause ends.
	_, mine := lea.Do(http.MethodGet, "/api/v1/me/reliability", nil)
	if len(mine["abandonments"].([]any)) != 3 || mine["abandonments"].([]any)[0].(map[string]any)["step"] != 3.0 {
		t.Fatalf("Lea's record: %v", mine)
	}
	rec, err := s.Store.Abandonments(ctx, lea.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	appeal := fmt.Sprintf("/my/reliability/%d/appeal", rec[0].ID)
	if r := browser.PostForm(appeal, map[string][]string{"appeal": {"sorry"}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID("error-appeal"), "10 to 1,000") {
		t.Errorf("a short appeal: %d %q", r.Status, r.TestID("error-appeal"))
	}
	if r := browser.PostForm(appeal, map[string][]string{"appeal": {"My power went out in the storm for an hour."}}); r.Status != http.StatusSeeOther {
		t.Fatalf("the appeal: %d", r.Status)
	}
	if r := browser.PostForm(appeal, map[string][]string{"appeal": {"And again, my power went out."}}); r.Status != http.StatusConflict {
		t.Errorf("a second appeal: %d", r.Status)
	}
	if err := s.App.Moderation.Grant(ctx, "Lea", true); err != nil {
		t.Fatal(err)
	}
	answer := fmt.Sprintf("/admin/appeals/%d", rec[0].ID)
	if r := loggedIn(t, s, lea).PostForm(answer, map[string][]string{"answer": {"forgiven"}}); r.Status != http.StatusForbidden {
		t.Errorf("a moderator answering their own appeal: %d", r.Status)
	}
	if err := s.App.Moderation.Grant(ctx, "Lea", false); err != nil {
		t.Fatal(err)
	}
	mod := loggedIn(t, s, max)
	if r := mod.Get("/admin"); !strings.Contains(r.TestID("appeals"), "My power went out") {
		t.Errorf("the moderators' page does not show the appeal: %q", r.TestID("appeals"))
	}
	if r := mod.PostForm(answer, map[string][]string{"answer": {"forgiven"}, "note": {"Storms happen."}}); r.Status != http.StatusSeeOther {
		t.Fatalf("forgive: %d", r.Status)
	}
	if r := mod.PostForm(answer, map[string][]string{"answer": {"upheld"}}); r.Status != http.StatusConflict {
		t.Errorf("answering twice: %d", r.Status)
	}
	if st, _, res := queue(lea); st != http.StatusOK {
		t.Fatalf("queue after the appeal was forgiven: %d %v", st, res)
	}
	lea.Do(http.MethodDelete, "/api/v1/queue", nil)
	if r := browser.Get("/my/reliability"); !strings.Contains(r.TestID("appeal-answer"), "Storms happen.") {
		t.Errorf("Lea's page does not give the answer: %q", r.TestID("appeal-answer"))
	}
	if r := mod.Get("/admin/log"); !strings.Contains(r.Body, "forgave an abandoned game on appeal") {
		t.Error("the moderation log does not have the answer")
	}

	// Thirty days without an abandonment: the next is step 1 again.
	s.Clock.Advance(31 * 24 * time.Hour)
	abandonThroughTheAPI(t, lea, rankedTable(t, lea, max, nia))
	if st, _, res := queue(lea); st != http.StatusOK {
		t.Errorf("queue after an abandonment 31 days on: %d %v", st, res)
	}
	_, mine = lea.Do(http.MethodGet, "/api/v1/me/reliability", nil)
	if a := mine["abandonments"].([]any)[0].(map[string]any); a["step"] != 1.0 || a["pause_until"] != nil {
		t.Errorf("the abandonment 31 days on: %v", a)
	}
	// Casual abandonments bring no pause at all.
	_, g = lea.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1})
	casual := int64(g["id"].(float64))
	for _, p := range []*apptest.API{max, nia} {
		p.Do(http.MethodPost, gamePath(casual)+"/join", nil)
	}
	abandonThroughTheAPI(t, lea, casual)
	if _, mine = lea.Do(http.MethodGet, "/api/v1/me/reliability", nil); len(mine["abandonments"].([]any)) != 4 {
		t.Errorf("a casual abandonment was counted as rated: %v", mine["abandonments"])
	}
}

// withBots makes a live casual table of one round for p and two bots of
// the site's, started; the bots move when the test runs due moves.
func withBots(t *testing.T, p *apptest.API, extra map[string]any) int64 {
	t.Helper()
	body := map[string]any{"seats": 3, "rounds": 1, "turn_seconds": 60}
	for k, v := range extra {
		body[k] = v
	}
	st, g := p.Do(http.MethodPost, "/api/v1/games", body)
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, g)
	}
	id := int64(g["id"].(float64))
	for range 2 {
		if st, res := p.Do(http.MethodPost, gamePath(id)+"/bots", map[string]any{"level": "heuristic"}); st != http.StatusOK {
			t.Fatalf("add a bot: %d %v", st, res)
		}
	}
	return id
}

// untilTurn runs the bots' moves until it is p's turn (true) or the game
// is over (false), and gives p's view then.
func untilTurn(t *testing.T, s *apptest.Server, p *apptest.API, id int64) (map[string]any, bool) {
	t.Helper()
	for range 500 {
		_, v := p.Do(http.MethodGet, gamePath(id)+"?log=full", nil)
		if v["status"] == "finished" {
			return v, false
		}
		if v["your_turn"] == true {
			return v, true
		}
		s.Clock.Advance(time.Second)
		if _, err := s.App.Games.RunDue(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("game %d: never %s's turn", id, p.Name)
	return nil, false
}

// A decision that came due while the server was away is not the player's
// timeout: Oli's deadline passes while no worker runs (the server is
// down); when the worker of a running instance meets it 5 minutes late,
// Oli is given back the time, a whole decision's 60 seconds (less than
// the 5 minutes away), and nothing is counted against them. A deadline
// the worker meets on time is a timeout as always.
func TestServerOutageIsNotATimeout(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	oli := s.APIFor("Oli")
	id := withBots(t, oli, nil) // full: it starts
	v, ok := untilTurn(t, s, oli, id)
	if !ok {
		t.Fatal("the game ended before Oli's turn")
	}
	seat := seatOfName(t, v, "Oli")
	due, err := time.Parse(time.RFC3339Nano, v["deadline"].(string))
	if err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(due.Sub(s.Clock.Now()) + 5*time.Minute)
	if _, err := s.App.Games.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, after := oli.Do(http.MethodGet, gamePath(id), nil)
	newDue, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(after["deadline"]))
	if after["your_turn"] != true || after["version"] != v["version"] || seatView(after, seat)["timeouts"] != nil {
		t.Fatalf("after the outage: turn %v, version %v (was %v), timeouts %v", after["your_turn"], after["version"], v["version"], seatView(after, seat)["timeouts"])
	}
	if d := newDue.Sub(s.Clock.Now().Add(time.Minute)); d.Abs() > 5*time.Second {
		t.Errorf("the deadline after the outage is %s, want a minute from now (%s)", newDue, s.Clock.Now().Add(time.Minute))
	}
	// On time this time: a timeout.
	s.Clock.Advance(61 * time.Second)
	if _, err := s.App.Games.Sweep(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, after = oli.Do(http.MethodGet, gamePath(id), nil)
	if seatView(after, seat)["timeouts"] != 1.0 {
		t.Errorf("a deadline met on time: timeouts %v, want 1", seatView(after, seat)["timeouts"])
	}
}

// decisionsOf counts, from a finished game's full log, the decisions that
// came to a seat while its player held it: its takes, passes and Tigers
// up to its leave or its third timeout.
func decisionsOf(v map[string]any, seat int) int {
	n, timeouts := 0, 0
	for _, e := range v["view"].(map[string]any)["events"].([]any) {
		ev := e.(map[string]any)
		if int(ev["seat"].(float64)) != seat {
			continue
		}
		switch ev["kind"] {
		case "leave":
			return n
		case "take", "pass", "tiger":
			n++
			if ev["timeout"] == true {
				if timeouts++; timeouts == 3 {
					return n
				}
			}
		}
	}
	return n
}

// Pia's reliability after a known history of five games with bots: three
// finished, one left after her first decision, one abandoned by three
// timeouts; worked out from the games' logs, it is 3 of 5 finished (60 %)
// with 3 timeouts over the decisions counted there. Then a table that
// asks for 80 % refuses her with her figure, takes a new player, and takes
// her when its creator invites her.
func TestReliabilityFigureAndATablesMinimum(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	pia := s.APIFor("Pia")
	ctx := context.Background()
	decisions := 0
	play := func(how string) {
		t.Helper()
		id := withBots(t, pia, nil)
		mine := 0
		for {
			v, ok := untilTurn(t, s, pia, id)
			if !ok {
				decisions += decisionsOf(v, seatOfName(t, v, "Pia"))
				return
			}
			switch {
			case how == "leave" && mine == 1:
				abandonThroughTheAPI(t, pia, id)
			case how == "timeouts" && mine < 3:
				if _, err := s.Store.DB.Exec(`UPDATE games SET due_at = $2 WHERE id = $1`, id, s.Clock.Now().Add(-time.Second)); err != nil {
					t.Fatal(err)
				}
				if _, err := s.App.Games.RunDue(ctx); err != nil {
					t.Fatal(err)
				}
			default:
				pia.Do(http.MethodPost, gamePath(id)+"/take", map[string]any{"version": v["version"]})
			}
			mine++
		}
	}
	for _, how := range []string{"finish", "leave", "finish", "timeouts"} {
		play(how)
	}
	_, rec := pia.Do(http.MethodGet, "/api/v1/users/Pia", nil)
	if rel := rec["reliability"].(map[string]any); rel["games"] != 4.0 || rel["new"] != true {
		t.Errorf("after four games: %v, want new with 4 games", rel)
	}
	play("finish")
	wantPer100 := math.Floor(3*1000/float64(decisions)+0.5) / 10
	_, rec = pia.Do(http.MethodGet, "/api/v1/users/Pia", nil)
	rel := rec["reliability"].(map[string]any)
	if rel["games"] != 5.0 || rel["new"] != false || rel["finished_share"] != 0.6 || rel["timeouts_per_100"] != wantPer100 {
		t.Errorf("after five games: %v, want 5 games, 0.6 finished, %v timeouts per 100 (3 of %d decisions)", rel, wantPer100, decisions)
	}
	profile := s.Client().Get("/u/Pia")
	if got := profile.TestID("profile-reliability"); !strings.Contains(got, "60%") || !strings.Contains(got, "last 5 games") {
		t.Errorf("the profile's reliability: %q", got)
	}
	_, exp := pia.Do(http.MethodGet, "/api/v1/me/export", nil)
	if r := exp["reliability"].(map[string]any); r["games"] != 5.0 || r["finished_without_abandoning"] != 3.0 || r["timeouts"] != 3.0 {
		t.Errorf("the export's reliability: %v", r)
	}

	// A table asking for 80 %.
	quin, rex := s.APIFor("Quin"), s.APIFor("Rex")
	for _, bad := range []int{30, 101, -5} {
		st, res := quin.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "min_reliability": bad})
		if st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(res), "min_reliability") {
			t.Errorf("a minimum of %d: %d %v", bad, st, res)
		}
	}
	page := loggedIn(t, s, quin)
	created := page.PostForm("/games", map[string][]string{"seats": {"4"}, "rounds": {"4"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "min_reliability": {"80"}})
	if created.Status != http.StatusSeeOther {
		t.Fatalf("create a table asking 80 %%: %d", created.Status)
	}
	var id int64
	fmt.Sscanf(created.Header.Get("Location"), "/games/%d", &id)
	if lobby := page.Get(fmt.Sprintf("/games/%d", id)); !strings.Contains(lobby.TestID("min-share"), "at least 80%") {
		t.Errorf("the lobby does not say the minimum: %q", lobby.TestID("min-share"))
	}
	if list := s.Client().Get("/games"); !strings.Contains(list.TestID("row-min-share"), "80%") || !list.Has("reliability") {
		t.Errorf("the open games list: minimum %q", list.TestID("row-min-share"))
	}
	st, res := pia.Do(http.MethodPost, gamePath(id)+"/join", nil)
	if _, msg := errorOf(res); st != http.StatusForbidden || !strings.Contains(msg, "at least 80%") || !strings.Contains(msg, "you finished 60% of your last 5") {
		t.Errorf("Pia joins: %d %v", st, res)
	}
	if st, res := rex.Do(http.MethodPost, gamePath(id)+"/join", nil); st != http.StatusOK {
		t.Errorf("a new player joins: %d %v", st, res)
	}
	_, g := quin.Do(http.MethodGet, gamePath(id), nil)
	if g["min_reliability"] != 80.0 {
		t.Errorf("the API's table: min_reliability %v", g["min_reliability"])
	}
	if st, res := quin.Do(http.MethodPost, gamePath(id)+"/invites", map[string]any{"username": "Pia"}); st != http.StatusOK && st != http.StatusCreated {
		t.Fatalf("invite Pia: %d %v", st, res)
	}
	_, invs := pia.Do(http.MethodGet, "/api/v1/invites", nil)
	list, _ := invs["invitations"].([]any)
	if len(list) != 1 {
		t.Fatalf("Pia's invitations: %v", invs)
	}
	inv := int64(list[0].(map[string]any)["id"].(float64))
	if st, res := pia.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%d/accept", inv), nil); st != http.StatusOK {
		t.Errorf("Pia accepts the invitation: %d %v", st, res)
	}
}

// A player who joins a rated arena and is paused from rated play before
// it starts is not seated in its first wave (docs/fair-play.md), while
// the others are: six players at tables of three would fill two tables.
func TestRatedArenaFirstWaveLeavesThePausedWaiting(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ann", "Bob", "Cyd", "Dia", "Eda", "Fin", "Gus", "Hal")
	di, gus, hal := ps[3], ps[6], ps[7]
	if err := s.App.Moderation.Grant(context.Background(), "Gus", true); err != nil {
		t.Fatal(err)
	}
	event := createEvent(t, s, gus, map[string]any{"kind": "arena", "name": "Rated arena", "table_size": 3, "minutes": 30, "rated": true})
	for _, p := range ps[:6] {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", event), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	// Two rated abandonments: an hour's pause, from before the start.
	abandonThroughTheAPI(t, di, rankedTable(t, di, gus, hal))
	abandonThroughTheAPI(t, di, rankedTable(t, gus, di, hal))
	s.Clock.Advance(3 * time.Minute)
	runEvents(t, s)
	if g := currentGame(t, di, event); g != 0 {
		t.Errorf("Dia, paused, was seated at game %d", g)
	}
	seated := 0
	for _, p := range []*apptest.API{ps[0], ps[1], ps[2], ps[4], ps[5]} {
		if currentGame(t, p, event) != 0 {
			seated++
		}
	}
	if seated != 3 {
		t.Errorf("%d of the five others seated, want one table of 3", seated)
	}
}
