package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
)

// standingsOf reads an event's standings through the API: by name, each
// line's rank, points and status, and the names in the order listed.
type apiLine struct {
	rank   int
	points float64
	status string
}

func standingsOf(t *testing.T, p *apptest.API, id int64) (map[string]apiLine, []string) {
	t.Helper()
	ev := eventOf(t, p, id)
	out := map[string]apiLine{}
	var order []string
	for _, x := range ev["standings"].([]any) {
		st := x.(map[string]any)
		name := st["username"].(string)
		out[name] = apiLine{rank: int(st["rank"].(float64)), points: st["points"].(float64), status: st["status"].(string)}
		order = append(order, name)
	}
	return out, order
}

// arenaPoints works an arena's points out by hand from its games in the
// order they were played: each game's placing points (placePoints), a
// game doubled when the player's two games before it were first places.
// out, when set, is counted last at every table it sat at: those below
// it move up a place.
func arenaPoints(games []finishedGame, out string) map[string]float64 {
	sort.Slice(games, func(i, j int) bool { return games[i].id < games[j].id })
	won := map[string][]bool{}
	total := map[string]float64{}
	for _, g := range games {
		pl := slices.Clone(g.placings)
		if k := slices.Index(g.names, out); k >= 0 {
			pl[k] = slices.Max(pl) + 1
		}
		pts := placePoints(pl)
		for i, name := range g.names {
			w := won[name]
			p := pts[i]
			if len(w) >= 2 && w[len(w)-1] && w[len(w)-2] {
				p *= 2
			}
			total[name] += p
			won[name] = append(w, pl[i] == slices.Min(pl))
		}
	}
	return total
}

// A rated arena of three players, four games; the player with the most
// points is reported and marked through the moderators' API. The event is
// scored again without them, worked out by hand: at every table the
// marked player counts last, the others move up and take those places'
// points, streaks follow the new first places; the marked player's line
// stays, unranked, "disqualified", last. Undoing the mark gives back the
// standings exactly as they were. Members may not use the moderators'
// endpoints, and bad decisions are refused with nothing changed.
func TestMarkDisqualifiesFromARatedArenaAndUndoingRestoresIt(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ann", "Bea", "Cyd", "Mod")
	players, mod := ps[:3], ps[3]
	grant(t, s, "Mod")
	id := createEvent(t, s, mod, map[string]any{"kind": "arena", "name": "Rated arena", "table_size": 3, "minutes": 60, "rated": true})
	for _, p := range players {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("%s joins: %d %v", p.Name, st, res)
		}
	}
	s.Clock.Advance(2 * time.Minute)
	var games []finishedGame
	for wave := 1; wave <= 4; wave++ {
		runEvents(t, s)
		g := currentGame(t, players[0], id)
		if g == 0 {
			t.Fatalf("wave %d: not seated", wave)
		}
		apptest.PlayOut(t, players, g)
		games = append(games, readGame(t, players[0], g))
		s.Clock.Advance(3 * time.Second)
	}
	s.Clock.Advance(time.Hour)
	runEvents(t, s)
	if st := eventOf(t, players[0], id)["tournament"].(map[string]any)["status"]; st != "finished" {
		t.Fatalf("the arena is %v", st)
	}
	before, beforeOrder := standingsOf(t, players[0], id)
	raw := arenaPoints(slices.Clone(games), "")
	marked := ""
	for _, p := range players {
		if got := before[p.Name].points; math.Abs(got-raw[p.Name]) > 1e-9 {
			t.Fatalf("%s before: %v points, by hand %v", p.Name, got, raw[p.Name])
		}
		if marked == "" || raw[p.Name] > raw[marked] {
			marked = p.Name
		}
	}
	want := arenaPoints(slices.Clone(games), marked)

	// A member may not read the moderators' queue.
	if st, _ := players[0].Do(http.MethodGet, "/api/v1/mod/fairplay", nil); st != http.StatusForbidden {
		t.Fatalf("a member reads the moderators' queue: %d", st)
	}
	reporter := players[0]
	if reporter.Name == marked {
		reporter = players[1]
	}
	if st, res := reporter.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": marked, "reason": "feeding", "game_id": games[0].id}); st != http.StatusCreated {
		t.Fatalf("report: %d %v", st, res)
	}
	st, q := mod.Do(http.MethodGet, "/api/v1/mod/fairplay", nil)
	if st != http.StatusOK {
		t.Fatalf("queue: %d %v", st, q)
	}
	caseID := int64(0)
	for _, x := range q["cases"].([]any) {
		if c := x.(map[string]any); c["account"] == marked {
			caseID = int64(c["id"].(float64))
		}
	}
	if caseID == 0 {
		t.Fatalf("no case about %s in %v", marked, q)
	}
	path := fmt.Sprintf("/api/v1/mod/fairplay/cases/%d", caseID)
	if st, c := mod.Do(http.MethodGet, path, nil); st != http.StatusOK || len(c["reports"].([]any)) != 1 {
		t.Fatalf("the case: %d %v", st, c)
	}
	if st, _ := mod.Do(http.MethodGet, "/api/v1/mod/fairplay/cases/999999", nil); st != http.StatusNotFound {
		t.Errorf("an unknown case: %d", st)
	}
	// Refused, nothing changed: no reason, an unknown action, an unknown account.
	for _, bad := range []map[string]any{
		{"account": marked, "action": "mark"},
		{"account": marked, "action": "ban", "reason": "x"},
		{"account": "Nobody", "action": "mark", "reason": "x"},
	} {
		if st, res := mod.Do(http.MethodPost, path+"/decisions", bad); st != http.StatusUnprocessableEntity && st != http.StatusNotFound {
			t.Errorf("decision %v: %d %v", bad, st, res)
		}
	}
	if now, _ := standingsOf(t, players[0], id); now[marked].status == "disqualified" {
		t.Fatal("a refused decision disqualified the player")
	}
	st, c := mod.Do(http.MethodPost, path+"/decisions", map[string]any{"account": marked, "action": "mark", "reason": "Fed another player", "close": true})
	if st != http.StatusCreated {
		t.Fatalf("mark: %d %v", st, c)
	}
	var decision int64
	for _, x := range c["decisions"].([]any) {
		if d := x.(map[string]any); d["action"] == "mark" {
			decision = int64(d["id"].(float64))
		}
	}
	if decision == 0 || c["status"] != "closed" {
		t.Fatalf("the case after the mark: %v", c)
	}

	after, order := standingsOf(t, players[0], id)
	if l := after[marked]; l.status != "disqualified" || l.rank != 0 || order[len(order)-1] != marked {
		t.Errorf("the marked player's line: %+v, order %v", l, order)
	}
	var ranked []string
	for _, p := range players {
		if p.Name == marked {
			continue
		}
		ranked = append(ranked, p.Name)
		if got := after[p.Name].points; math.Abs(got-want[p.Name]) > 1e-9 {
			t.Errorf("%s after the mark: %v points, by hand %v (before %v)", p.Name, got, want[p.Name], raw[p.Name])
		}
	}
	a, b := ranked[0], ranked[1]
	if want[a] != want[b] {
		hi, lo := a, b
		if want[b] > want[a] {
			hi, lo = b, a
		}
		if after[hi].rank != 1 || after[lo].rank != 2 {
			t.Errorf("ranks after the mark: %s %d, %s %d", hi, after[hi].rank, lo, after[lo].rank)
		}
	}
	page := s.Client().Get(fmt.Sprintf("/tournaments/%d", id))
	row := page.Doc().Find(`[data-testid="standing-row"][data-name="` + marked + `"]`)
	if !strings.Contains(row.Text(), "disqualified") || strings.TrimSpace(row.Find(`[data-testid="standing-rank"]`).Text()) != "–" {
		t.Errorf("the page's line of %s: %q", marked, strings.Join(strings.Fields(row.Text()), " "))
	}
	mp := loggedIn(t, s, apiOf(players, marked)).Get(fmt.Sprintf("/tournaments/%d", id))
	if !strings.Contains(mp.TestID("me-status"), "disqualified") {
		t.Errorf("the marked player reads: %q", mp.TestID("me-status"))
	}

	// Undone: the standings as they were.
	if st, res := mod.Do(http.MethodPost, fmt.Sprintf("/api/v1/mod/fairplay/decisions/%d/undo", decision), map[string]any{}); st != http.StatusUnprocessableEntity {
		t.Errorf("an undoing without a reason: %d %v", st, res)
	}
	if st, res := mod.Do(http.MethodPost, fmt.Sprintf("/api/v1/mod/fairplay/decisions/%d/undo", decision), map[string]any{"reason": "Wrong account"}); st != http.StatusOK {
		t.Fatalf("undo: %d %v", st, res)
	}
	again, againOrder := standingsOf(t, players[0], id)
	if !slices.Equal(againOrder, beforeOrder) {
		t.Errorf("order after the undoing %v, before %v", againOrder, beforeOrder)
	}
	for name, l := range before {
		if again[name] != l {
			t.Errorf("%s after the undoing: %+v, before %+v", name, again[name], l)
		}
	}
	if st, _ := mod.Do(http.MethodPost, fmt.Sprintf("/api/v1/mod/fairplay/decisions/%d/undo", decision), map[string]any{"reason": "again"}); st != http.StatusConflict {
		t.Errorf("a second undoing: %d", st)
	}
}

// An account closed as a second account cannot log in, but its owner,
// giving its password, reads the decision and appeals it once; another
// moderator overturns it through the API and the account logs in again.
// A wrong password says nothing of the closing.
func TestAClosedAccountAppealsItsClosing(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	ps := verified(t, s, "Kit", "Zed", "Moe", "Mia")
	kit, zed, moe, mia := ps[0], ps[1], ps[2], ps[3]
	grant(t, s, "Moe")
	grant(t, s, "Mia")
	if st, res := kit.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Zed", "reason": "second_account", "note": "plays like my rival"}); st != http.StatusCreated {
		t.Fatalf("report: %d %v", st, res)
	}
	// Moderator rights given and taken count at the next request, though
	// the token was checked (and kept in memory) before.
	if st, _ := kit.Do(http.MethodGet, "/api/v1/mod/fairplay", nil); st != http.StatusForbidden {
		t.Fatalf("a member reads the queue: %d", st)
	}
	grant(t, s, "Kit")
	if st, _ := kit.Do(http.MethodGet, "/api/v1/mod/fairplay", nil); st != http.StatusOK {
		t.Fatalf("a new moderator reads the queue: %d", st)
	}
	if err := s.App.Moderation.Grant(context.Background(), "Kit", false); err != nil {
		t.Fatal(err)
	}
	if st, _ := kit.Do(http.MethodGet, "/api/v1/mod/fairplay", nil); st != http.StatusForbidden {
		t.Fatalf("a former moderator reads the queue: %d", st)
	}
	_, q := moe.Do(http.MethodGet, "/api/v1/mod/fairplay", nil)
	caseID := int64(q["cases"].([]any)[0].(map[string]any)["id"].(float64))
	st, c := moe.Do(http.MethodPost, fmt.Sprintf("/api/v1/mod/fairplay/cases/%d/decisions", caseID), map[string]any{"account": "Zed", "action": "close", "reason": "A second account of Kit's rival"})
	if st != http.StatusCreated {
		t.Fatalf("close: %d %v", st, c)
	}
	if st, _ := zed.Do(http.MethodGet, "/api/v1/me", nil); st != http.StatusUnauthorized {
		t.Errorf("a closed account's token still works: %d", st)
	}
	// Closed, it is still told, with the way to read and appeal it.
	if _, err := s.App.Notify.RunOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	var toZed []apptest.Received
	for _, m := range smtp.Messages() {
		if strings.Contains(m.Header("To"), "zed@") {
			toZed = append(toZed, m)
		}
	}
	if len(toZed) != 1 || !strings.Contains(toZed[0].Parts()["text/plain"], "A second account of Kit's rival") ||
		!strings.Contains(toZed[0].Parts()["text/plain"], "/login") || !strings.Contains(toZed[0].Parts()["text/plain"], "log in with this account's password") {
		t.Errorf("the closed account's mail: %d %v", len(toZed), toZed)
	}
	// A wrong password: the usual refusal.
	web := s.Client()
	if res := web.Login("Zed", "not the password"); res.Status == http.StatusSeeOther || strings.Contains(res.Body, "second account") {
		t.Fatalf("a wrong password: %d", res.Status)
	}
	// Without having logged in: nothing to read.
	if res := s.Client().Get("/closed-account"); res.Status != http.StatusNotFound {
		t.Errorf("the closed-account page without a log-in: %d", res.Status)
	}
	res := web.Login("Zed", apptest.Password)
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/closed-account" {
		t.Fatalf("a closed account logs in: %d %q", res.Status, res.Header.Get("Location"))
	}
	page := web.Get("/closed-account")
	if !page.Has("closed-notice") || !strings.Contains(page.TestID("decision-reason"), "A second account of Kit's rival") {
		t.Fatalf("the closed account's page: %d %q", page.Status, page.TestID("my-fairplay"))
	}
	if me := web.Get("/settings"); me.Status == http.StatusOK && me.Has("settings") {
		t.Error("the closed account is logged in")
	}
	form := page.Doc().Find(`[data-testid="fair-appeal-form"]`).AttrOr("action", "")
	if !strings.HasPrefix(form, "/closed-account/") {
		t.Fatalf("appeal form: %q", form)
	}
	if res := web.PostForm(form, url.Values{"appeal": {""}}); res.Status != http.StatusUnprocessableEntity || !res.Has("error-appeal") {
		t.Errorf("an empty appeal: %d", res.Status)
	}
	if res := web.PostForm(form, url.Values{"appeal": {"I am my own person"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("appeal: %d %s", res.Status, res.Body)
	}
	if res := web.PostForm(form, url.Values{"appeal": {"again"}}); res.Status != http.StatusConflict {
		t.Errorf("a second appeal: %d", res.Status)
	}
	_, q = mia.Do(http.MethodGet, "/api/v1/mod/fairplay", nil)
	appeals := q["appeals"].([]any)
	if len(appeals) != 1 || appeals[0].(map[string]any)["appeal"] != "I am my own person" {
		t.Fatalf("the appeal in the queue: %v", appeals)
	}
	did := int64(appeals[0].(map[string]any)["id"].(float64))
	answer := fmt.Sprintf("/api/v1/mod/fairplay/decisions/%d/answer", did)
	if st, _ := moe.Do(http.MethodPost, answer, map[string]any{"answer": "overturned", "note": "mine"}); st != http.StatusForbidden {
		t.Errorf("the deciding moderator judges the appeal: %d", st)
	}
	if st, _ := mia.Do(http.MethodPost, answer, map[string]any{"answer": "maybe", "note": "x"}); st != http.StatusUnprocessableEntity {
		t.Errorf("an answer neither upheld nor overturned: %d", st)
	}
	if st, res := mia.Do(http.MethodPost, answer, map[string]any{"answer": "overturned", "note": "Different people, different places."}); st != http.StatusOK {
		t.Fatalf("overturn: %d %v", st, res)
	}
	if res := s.Client().Login("Zed", apptest.Password); res.Status != http.StatusSeeOther || res.Header.Get("Location") == "/closed-account" {
		t.Errorf("after the overturn Zed logs in: %d %q", res.Status, res.Header.Get("Location"))
	}
	if page := web.Get("/closed-account"); page.Status != http.StatusNotFound {
		t.Errorf("the closed-account page after the overturn: %d", page.Status)
	}
}

// Marked while at a table of a running rated arena: that game, ending
// after the mark, is scored without them too (worked out by hand as
// above), and they are seated no more.
func TestMarkDuringARunningArena(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ivy", "Jon", "Kai", "Moz")
	players, mod := ps[:3], ps[3]
	grant(t, s, "Moz")
	id := createEvent(t, s, mod, map[string]any{"kind": "arena", "name": "Rated now", "table_size": 3, "minutes": 60, "rated": true})
	for _, p := range players {
		p.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), nil)
	}
	s.Clock.Advance(2 * time.Minute)
	runEvents(t, s)
	g := currentGame(t, players[0], id)
	if g == 0 {
		t.Fatal("not seated")
	}
	marked := players[0].Name
	if st, res := players[1].Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": marked, "reason": "feeding"}); st != http.StatusCreated {
		t.Fatalf("report: %d %v", st, res)
	}
	_, q := mod.Do(http.MethodGet, "/api/v1/mod/fairplay", nil)
	caseID := q["cases"].([]any)[0].(map[string]any)["id"]
	if st, res := mod.Do(http.MethodPost, fmt.Sprintf("/api/v1/mod/fairplay/cases/%v/decisions", caseID),
		map[string]any{"account": marked, "action": "mark", "reason": "Fed another player", "close": true}); st != http.StatusCreated {
		t.Fatalf("mark: %d %v", st, res)
	}
	apptest.PlayOut(t, players, g)
	want := arenaPoints([]finishedGame{readGame(t, players[0], g)}, marked)
	after, _ := standingsOf(t, players[1], id)
	for _, p := range players[1:] {
		if got := after[p.Name].points; math.Abs(got-want[p.Name]) > 1e-9 {
			t.Errorf("%s: %v points, by hand %v", p.Name, got, want[p.Name])
		}
	}
	if after[marked].status != "disqualified" || after[marked].rank != 0 {
		t.Errorf("the marked player's line: %+v", after[marked])
	}
	s.Clock.Advance(3 * time.Second)
	runEvents(t, s)
	if g := currentGame(t, players[0], id); g != 0 {
		t.Errorf("the marked player was seated again at game %d", g)
	}
}

// The case shows each account's play with the other against without: the
// accuracy the analysis gave them in analysed rated games together and in
// their other ones. Three rated games, A and B together in the first,
// A without B in the second, B without A in the third; the figures on the
// case (API and page) are those of the games' own analyses, read from the
// analysis API.
func TestCaseComparesPlayWithAndWithout(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx := context.Background()
	s.App.Reviews.Playouts = 64
	ps := verified(t, s, "Ayo", "Bex", "Cam", "Dru", "Mods")
	a, b, c, d, mod := ps[0], ps[1], ps[2], ps[3], ps[4]
	grant(t, s, "Mods")
	tables := [][]*apptest.API{{a, b, c}, {a, c, d}, {b, c, d}}
	var ids []int64
	for _, tb := range tables {
		id := rankedGame(t, tb)
		playOut(t, s, id, tb, nil)
		ids = append(ids, id)
	}
	for range ids {
		if _, err := s.App.Reviews.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.App.FairPlay.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	// Each game's accuracy by name, from its analysis.
	acc := func(id int64, name string) float64 {
		_, g := a.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		seat := -1
		for _, pl := range g["players"].([]any) {
			if p := pl.(map[string]any); p["name"] == name {
				seat = int(p["seat"].(float64))
			}
		}
		_, an := a.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/analysis", id), nil)
		if an["status"] != "done" {
			t.Fatalf("game %d's analysis: %v", id, an["status"])
		}
		for _, pl := range an["analysis"].(map[string]any)["players"].([]any) {
			if p := pl.(map[string]any); int(p["seat"].(float64)) == seat {
				return p["accuracy"].(float64)
			}
		}
		t.Fatalf("%s not in game %d's analysis", name, id)
		return 0
	}
	want := map[string][2]float64{
		"Ayo": {acc(ids[0], "Ayo"), acc(ids[1], "Ayo")},
		"Bex": {acc(ids[0], "Bex"), acc(ids[2], "Bex")},
	}
	if st, res := c.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Ayo", "reason": "feeding", "game_id": ids[0]}); st != http.StatusCreated {
		t.Fatalf("report: %d %v", st, res)
	}
	_, q := mod.Do(http.MethodGet, "/api/v1/mod/fairplay", nil)
	caseID := q["cases"].([]any)[0].(map[string]any)["id"]
	_, cs := mod.Do(http.MethodGet, fmt.Sprintf("/api/v1/mod/fairplay/cases/%v", caseID), nil)
	found := false
	for _, x := range cs["pairs"].([]any) {
		p := x.(map[string]any)
		if !(p["a"] == "Ayo" && p["b"] == "Bex") {
			continue
		}
		found = true
		for name, key := range map[string]string{"Ayo": "accuracy_a", "Bex": "accuracy_b"} {
			got := p[key].(map[string]any)
			if got["with_games"].(float64) != 1 || got["without_games"].(float64) != 1 ||
				math.Abs(got["with"].(float64)-want[name][0]) > 0.11 || math.Abs(got["without"].(float64)-want[name][1]) > 0.11 {
				t.Errorf("%s with and without: %v, want %.1f in 1 with, %.1f in 1 without", name, got, want[name][0], want[name][1])
			}
		}
	}
	if !found {
		t.Fatalf("no pair of Ayo and Bex on the case: %v", cs["pairs"])
	}
	page := loggedIn(t, s, mod).Get(fmt.Sprintf("/admin/fairplay/cases/%v", caseID))
	// The case has a pair for each two of the reported player's tables
	// (Ayo and Cam too): the one of Ayo and Bex says Ayo's figures.
	line := fmt.Sprintf("Ayo: %.1f %% in 1 with, %.1f %% in 1 without", want["Ayo"][0], want["Ayo"][1])
	var texts []string
	page.Doc().Find(`[data-testid="pair-accuracy"]`).Each(func(_ int, sel *goquery.Selection) {
		texts = append(texts, strings.TrimSpace(sel.Text()))
	})
	if !slices.ContainsFunc(texts, func(text string) bool { return strings.Contains(text, line) && strings.Contains(text, "Bex: ") }) {
		t.Errorf("the case page's accuracy: %q, want a pair with %q", texts, line)
	}
}
