package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
)

// apiRating is a player's rating as the API gives it (to 0.1).
func apiRating(t *testing.T, p *apptest.API, name string) float64 {
	t.Helper()
	st, v := p.Do(http.MethodGet, "/api/v1/users/"+name, nil)
	if st != http.StatusOK {
		t.Fatalf("profile of %s: %d %v", name, st, v)
	}
	return v["rating"].(float64)
}

// grant makes a moderator.
func grant(t *testing.T, s *apptest.Server, name string) {
	t.Helper()
	if err := s.App.Moderation.Grant(context.Background(), name, true); err != nil {
		t.Fatal(err)
	}
}

// caseOf is the id of the open case whose row names the account, from
// the moderators' queue page.
func caseOf(t *testing.T, mod *apptest.Client, name string) string {
	t.Helper()
	q := mod.Get("/admin/fairplay")
	if q.Status != http.StatusOK {
		t.Fatalf("queue: %d", q.Status)
	}
	href := ""
	q.Doc().Find(`[data-testid="case-row"]`).Each(func(_ int, row *goquery.Selection) {
		if strings.Contains(row.Text(), name) && href == "" {
			href = row.Find("a").AttrOr("href", "")
		}
	})
	if href == "" {
		t.Fatalf("no open case about %s in the queue: %s", name, q.TestID("fair-queue"))
	}
	return href
}

// A member reports the winner of a four-player rated game for feeding; a
// moderator marks them. Worked out by hand: all four started at 1500
// with no rated game (K = 40 while provisional) at a table of 4, so each
// pairwise result is worth 40/3 × (score − ½): every player placed below
// the marked winner lost 40/3 × ½ = 6.67 points to them, and gets those
// back; a player tied with them lost nothing. The mark takes the winner
// off rated play; a second mark or a second refund of the game is
// refused; the marked player appeals once, the moderator who marked them
// may not judge it, another overturns it and the points are taken back.
func TestMarkRefundsARatedGameOfFourAndAnAppealOverturnsIt(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Ada"), s.APIFor("Ben"), s.APIFor("Cal"), s.APIFor("Dee")}
	id := rankedGame(t, players)
	playOut(t, s, id, players, nil)
	g := readGame(t, players[0], id)
	winner := -1
	for i, p := range g.placings {
		if p == 1 && winner < 0 {
			winner = i
		}
	}
	marked := g.names[winner]
	var markedAPI *apptest.API
	before := map[string]float64{}
	for _, p := range players {
		before[p.Name] = apiRating(t, players[0], p.Name)
		if p.Name == marked {
			markedAPI = p
		}
	}
	want := map[string]float64{}
	for i, name := range g.names {
		if i != winner && g.placings[i] > 1 {
			want[name] = 20.0 / 3
		}
	}
	reporter := g.names[(winner+1)%4]

	// The report, from the finished game's standings.
	rep := loggedIn(t, s, apiOf(players, reporter))
	board := rep.Get(fmt.Sprintf("/games/%d", id))
	link := ""
	board.Doc().Find(`[data-testid="standing"]`).Each(func(_ int, row *goquery.Selection) {
		if strings.Contains(row.Text(), marked) {
			link = row.Find(`[data-testid="standing-report"]`).AttrOr("href", "")
		}
	})
	if link != fmt.Sprintf("/report/%s?game=%d", marked, id) {
		t.Fatalf("report link beside %s on the finished game: %q", marked, link)
	}
	if form := rep.Get(link); form.Status != http.StatusOK || form.Doc().Find(`[data-testid="input-game"]`).AttrOr("value", "") != fmt.Sprint(id) {
		t.Fatalf("report form: %d", form.Status)
	}
	// No reason: refused, the text kept.
	res := rep.PostForm("/report/"+marked, url.Values{"game": {fmt.Sprint(id)}, "note": {"took every card I needed"}})
	if res.Status != http.StatusUnprocessableEntity || !res.Has("error-reason") || !strings.Contains(res.Body, "took every card I needed") {
		t.Fatalf("report without a reason: %d", res.Status)
	}
	res = rep.PostForm("/report/"+marked, url.Values{"game": {fmt.Sprint(id)}, "reason": {"feeding"}, "note": {"took every card I needed"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("report: %d %s", res.Status, res.Body)
	}
	if mine := rep.Get("/my/fairplay"); !strings.Contains(mine.TestID("report-outcome"), "Waiting") {
		t.Fatalf("the reporter's page: %q", mine.TestID("report-outcome"))
	}
	// Twice: refused.
	if res := rep.PostForm("/report/"+marked, url.Values{"reason": {"feeding"}}); res.Status != http.StatusConflict || !strings.Contains(res.TestID("form-error"), "already") {
		t.Fatalf("a second open report: %d %q", res.Status, res.TestID("form-error"))
	}

	moe := s.Client().Register("Moe")
	grant(t, s, "Moe")
	casePath := caseOf(t, moe, marked)
	cp := moe.Get(casePath)
	if !strings.Contains(cp.TestID("case-report"), "took every card I needed") {
		t.Fatalf("the case page lacks the report: %q", cp.TestID("fair-case"))
	}
	// Without a reason: refused, nothing done.
	res = moe.PostForm(casePath+"/decide", url.Values{"account": {marked}, "action": {"mark"}, "close": {"true"}})
	if res.Status != http.StatusUnprocessableEntity || !res.Has("error-reason") {
		t.Fatalf("a mark without a reason: %d", res.Status)
	}
	if r := apiRating(t, players[0], g.names[(winner+1)%4]); r != before[g.names[(winner+1)%4]] {
		t.Fatalf("a refused mark moved a rating: %v", r)
	}
	res = moe.PostForm(casePath+"/decide", url.Values{"account": {marked}, "action": {"mark"}, "reason": {"Fed another player"}, "close": {"true"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("mark: %d %s", res.Status, res.Body)
	}
	for _, p := range players {
		got := apiRating(t, players[0], p.Name)
		if math.Abs(got-(before[p.Name]+want[p.Name])) > 0.11 {
			t.Errorf("%s after the mark: %.1f, want %.1f + %.2f", p.Name, got, before[p.Name], want[p.Name])
		}
	}
	for name := range want {
		mine := loggedIn(t, s, apiOf(players, name)).Get("/my/fairplay")
		if !strings.Contains(mine.TestID("refund"), fmt.Sprintf("+6.7 for game #%d", id)) {
			t.Errorf("%s's refund: %q", name, mine.TestID("refund"))
		}
	}
	if mine := rep.Get("/my/fairplay"); !strings.Contains(mine.TestID("report-outcome"), "marked for unfair play") {
		t.Errorf("the reporter is not told: %q", mine.TestID("report-outcome"))
	}
	mp := loggedIn(t, s, markedAPI)
	if prof := mp.Get("/u/" + marked); !prof.Has("profile-marked") {
		t.Error("the marked profile does not say so")
	}
	mine := mp.Get("/my/fairplay")
	if !mine.Has("marked-notice") || !strings.Contains(mine.TestID("decision-reason"), "Fed another player") || strings.Contains(mine.TestID("my-decision"), "Moe") {
		t.Fatalf("the marked player's page: %q", mine.TestID("my-fairplay"))
	}
	// No rated play: the queue refuses, saying why.
	st, body := markedAPI.Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"})
	if _, msg := errorOf(body); st != http.StatusForbidden || !strings.Contains(msg, "marked for unfair play") {
		t.Errorf("a marked player queues: %d %v", st, body)
	}
	// Marked twice, refunded twice: refused.
	other := loggedIn(t, s, apiOf(players, g.names[(winner+2)%4]))
	if res := other.PostForm("/report/"+marked, url.Values{"reason": {"feeding"}, "game": {fmt.Sprint(id)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("a second report: %d", res.Status)
	}
	second := caseOf(t, moe, marked)
	res = moe.PostForm(second+"/decide", url.Values{"account": {marked}, "action": {"mark"}, "reason": {"again"}})
	if res.Status != http.StatusConflict || !strings.Contains(res.TestID("form-error"), "marked already") {
		t.Errorf("a second mark: %d %q", res.Status, res.TestID("form-error"))
	}
	res = moe.PostForm(second+"/refund", url.Values{"account": {marked}, "game": {fmt.Sprint(id)}, "reason": {"again"}})
	if res.Status != http.StatusConflict || !strings.Contains(res.TestID("form-error"), "given back already") {
		t.Errorf("a second refund: %d %q", res.Status, res.TestID("form-error"))
	}

	// The appeal: once.
	did := mine.Doc().Find(`[data-testid="fair-appeal-form"]`).AttrOr("action", "")
	if did == "" {
		t.Fatal("no appeal form")
	}
	if res := mp.PostForm(did, url.Values{"appeal": {"I played my own game"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("appeal: %d %s", res.Status, res.Body)
	}
	if res := mp.PostForm(did, url.Values{"appeal": {"again"}}); res.Status != http.StatusConflict {
		t.Errorf("a second appeal: %d", res.Status)
	}
	q := moe.Get("/admin/fairplay")
	if !strings.Contains(q.TestID("fair-appeal"), "I played my own game") || q.Has("fair-uphold") {
		t.Fatalf("Moe's queue shows the appeal with a form to judge his own decision: %q", q.TestID("fair-appeal"))
	}
	decision := strings.TrimSuffix(strings.TrimPrefix(did, "/my/fairplay/"), "/appeal")
	if res := moe.PostForm("/admin/fairplay/decisions/"+decision+"/appeal", url.Values{"answer": {"overturned"}, "note": {"mine"}}); res.Status != http.StatusForbidden {
		t.Errorf("the deciding moderator judges the appeal: %d", res.Status)
	}
	mia := s.Client().Register("Mia")
	grant(t, s, "Mia")
	if res := mia.PostForm("/admin/fairplay/decisions/"+decision+"/appeal", url.Values{"answer": {"overturned"}, "note": {"The games show no feeding."}}); res.Status != http.StatusSeeOther {
		t.Fatalf("overturn: %d %s", res.Status, res.Body)
	}
	for _, p := range players {
		if got := apiRating(t, players[0], p.Name); math.Abs(got-before[p.Name]) > 0.11 {
			t.Errorf("%s after the overturn: %.1f, want %.1f", p.Name, got, before[p.Name])
		}
	}
	if mine := mp.Get("/my/fairplay"); mine.Has("marked-notice") || !strings.Contains(mine.TestID("fair-appeal-answer"), "The games show no feeding.") {
		t.Errorf("after the overturn: %q", mine.TestID("my-fairplay"))
	}
	if st, body := markedAPI.Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{3}, "pace": "live"}); st != http.StatusOK && st != http.StatusNoContent {
		t.Errorf("queueing after the overturn: %d %v", st, body)
	}
	for name := range want {
		if mine := loggedIn(t, s, apiOf(players, name)).Get("/my/fairplay"); !strings.Contains(mine.TestID("refund"), "taken back") {
			t.Errorf("%s's refund after the overturn: %q", name, mine.TestID("refund"))
		}
	}
	log := moe.Get("/admin/log").Body
	for _, a := range []string{"marked for unfair play", "overturned a fair-play decision on appeal"} {
		if !strings.Contains(log, a) {
			t.Errorf("the moderation log lacks %q", a)
		}
	}
}

// apiOf finds a player's API client by name.
func apiOf(ps []*apptest.API, name string) *apptest.API {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Bad reports and decisions: reporting oneself, a flood of reports, a
// game the two did not share, a moderator deciding a case about
// themselves, a warning and its undoing.
func TestReportsAndDecisionsRefuseBadInput(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ann := s.Client().Register("Ann")
	if res := ann.PostForm("/report/Ann", url.Values{"reason": {"abuse"}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.TestID("form-error"), "yourself") {
		t.Errorf("reporting oneself: %d %q", res.Status, res.TestID("form-error"))
	}
	for i := 1; i <= 6; i++ {
		s.Client().Register(fmt.Sprintf("Target%d", i))
	}
	for i := 1; i <= 5; i++ {
		if res := ann.PostForm(fmt.Sprintf("/report/Target%d", i), url.Values{"reason": {"abuse"}}); res.Status != http.StatusSeeOther {
			t.Fatalf("report %d: %d", i, res.Status)
		}
	}
	if res := ann.PostForm("/report/Target6", url.Values{"reason": {"abuse"}}); res.Status != http.StatusTooManyRequests || !strings.Contains(res.TestID("form-error"), "last hour") {
		t.Errorf("a sixth report in an hour: %d %q", res.Status, res.TestID("form-error"))
	}
	bob := s.Client().Register("Bob")
	if res := bob.PostForm("/report/Target6", url.Values{"reason": {"feeding"}, "game": {"999999"}}); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.TestID("form-error"), "both played") {
		t.Errorf("a game not shared: %d %q", res.Status, res.TestID("form-error"))
	}
	if res := bob.PostForm("/report/Target6", url.Values{"reason": {"theft"}}); res.Status != http.StatusUnprocessableEntity || !res.Has("error-reason") {
		t.Errorf("an unknown reason: %d", res.Status)
	}

	// A case about a moderator: they read it, cannot decide it.
	moe := s.Client().Register("Moe")
	grant(t, s, "Moe")
	if res := bob.PostForm("/report/Moe", url.Values{"reason": {"abuse"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("report Moe: %d", res.Status)
	}
	own := caseOf(t, moe, "Moe")
	if cp := moe.Get(own); cp.Has("decide-form") {
		t.Error("a moderator is offered to decide a case about themselves")
	}
	if res := moe.PostForm(own+"/decide", url.Values{"account": {"Moe"}, "action": {"dismiss"}, "reason": {"no"}}); res.Status != http.StatusForbidden {
		t.Errorf("a moderator decides their own case: %d", res.Status)
	}
	// Not a moderator: refused.
	if res := bob.Get("/admin/fairplay"); res.Status != http.StatusForbidden {
		t.Errorf("a member opens the queue: %d", res.Status)
	}

	// A warning, seen by the player, undone with a reason.
	c1 := caseOf(t, moe, "Target1")
	if res := moe.PostForm(c1+"/decide", url.Values{"account": {"Target1"}, "action": {"warn"}, "reason": {"Mind your words"}, "close": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("warn: %d %s", res.Status, res.Body)
	}
	t1 := s.Client()
	t1.Login("Target1", apptest.Password)
	if mine := t1.Get("/my/fairplay"); !strings.Contains(mine.TestID("decision-action"), "Warning") || !strings.Contains(mine.TestID("decision-reason"), "Mind your words") {
		t.Fatalf("the warned player's page: %q", mine.TestID("my-fairplay"))
	}
	if mine := ann.Get("/my/fairplay"); !strings.Contains(mine.Body, "the player was warned") {
		t.Error("the reporter is not told of the warning")
	}
	undo := moe.Get(c1).Doc().Find(`[data-testid="undo-form"]`).AttrOr("action", "")
	if res := moe.PostForm(undo, url.Values{"reason": {"Too harsh"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("undo: %d", res.Status)
	}
	if res := moe.PostForm(undo, url.Values{"reason": {"Too harsh"}}); res.Status != http.StatusConflict {
		t.Errorf("undo twice: %d", res.Status)
	}
	if mine := t1.Get("/my/fairplay"); !mine.Has("decision-undone") || mine.Has("fair-appeal-form") {
		t.Errorf("after the undo: %q", mine.TestID("my-fairplay"))
	}
}

// Two instances on one database work out a finished rated game's signals
// once: each pair of its three players gets one game. By hand, for three
// players at 1500 with no rated game (K = 40, table of 3: each pairwise
// result worth 20 × (score − ½)): the pair placed 1st and 2nd took
// 20 × ½ + 20 × ½ = 20 points from the third, with a variance of
// 2 × 20² × ¼ = 200. The case page of a pair shows the finished game and
// never one still in play.
func TestSignalsOfAGameWorkedOutOnceByTwoInstances(t *testing.T) {
	s1 := apptest.New(t, apptest.WithoutWorkers())
	s2 := apptest.NewOn(t, s1.Store, s1.DBURL, apptest.WithoutWorkers())
	players := []*apptest.API{s1.APIFor("Uma"), s1.APIFor("Vic"), s1.APIFor("Wes")}
	id := rankedGame(t, players)
	playOut(t, s1, id, players, nil)
	g := readGame(t, players[0], id)
	// A second game, left in play.
	inPlay := rankedGame(t, players)

	ctx := context.Background()
	// The analysis is not made here (no workers): after an hour the
	// signals go without it.
	s1.Clock.Advance(2 * time.Hour)
	s2.Clock.Advance(2 * time.Hour)
	var wg sync.WaitGroup
	done := make([]int, 2)
	for i, s := range []*apptest.Server{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.App.FairPlay.RunOnce(ctx)
			if err != nil {
				t.Error(err)
			}
			done[i] = n
		}()
	}
	wg.Wait()
	if done[0]+done[1] != 1 {
		t.Fatalf("the instances worked out %v games, want 1 in all", done)
	}
	var rows []struct {
		A, B           string
		Games          int
		FromRest, Var  float64
		GamesInRecords int
	}
	if err := s1.Store.DB.SelectContext(ctx, &rows, `
		SELECT ua.username AS a, ub.username AS b, p.games, p.from_rest AS fromrest, p.from_rest_var AS var,
			(SELECT count(*) FROM pair_games pg WHERE pg.user_a = p.user_a AND pg.user_b = p.user_b) AS gamesinrecords
		FROM pair_signals p JOIN users ua ON ua.id = p.user_a JOIN users ub ON ub.id = p.user_b`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d pairs, want 3", len(rows))
	}
	place := map[string]int{}
	for i, n := range g.names {
		place[n] = g.placings[i]
	}
	score := func(a, b int) float64 {
		switch {
		case a < b:
			return 1
		case a == b:
			return 0.5
		}
		return 0
	}
	for _, r := range rows {
		if r.Games != 1 || r.GamesInRecords != 1 {
			t.Errorf("%s+%s: %d games (%d recorded), want 1", r.A, r.B, r.Games, r.GamesInRecords)
		}
		third := ""
		for n := range place {
			if n != r.A && n != r.B {
				third = n
			}
		}
		want := 20*(score(place[r.A], place[third])-0.5) + 20*(score(place[r.B], place[third])-0.5)
		if math.Abs(r.FromRest-want) > 1e-9 || math.Abs(r.Var-200) > 1e-9 {
			t.Errorf("%s+%s from the rest: %v (variance %v), want %v (200)", r.A, r.B, r.FromRest, r.Var, want)
		}
	}

	// The evidence of a pair, through a case page: Vic reports Uma.
	vic := loggedIn(t, s1, players[1])
	if res := vic.PostForm("/report/Uma", url.Values{"reason": {"feeding"}, "game": {fmt.Sprint(inPlay)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("report about a game in play: %d", res.Status)
	}
	moe := s1.Client().Register("Moe")
	grant(t, s1, "Moe")
	cp := moe.Get(caseOf(t, moe, "Uma"))
	games := cp.TestID("pair-games-table")
	if !strings.Contains(games, fmt.Sprintf("#%d", id)) {
		t.Errorf("the finished game is not in the evidence: %q", games)
	}
	if cp.Doc().Find(fmt.Sprintf(`[data-testid="pair-games-table"] a[href="/games/%d/analysis"]`, inPlay)).Length() != 0 {
		t.Error("the game in play is in the evidence")
	}
}

// Two accounts logging in on one browser are linked by its device, which
// a case about one of them shows.
func TestAccountsOnOneDeviceAreLinked(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	browser := s.Client().Register("Zed")
	browser.PostForm("/logout", nil)
	browser.Register("Zed2")
	if res := s.Client().Register("Yan").PostForm("/report/Zed", url.Values{"reason": {"second_account"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("report: %d", res.Status)
	}
	moe := s.Client().Register("Moe")
	grant(t, s, "Moe")
	cp := moe.Get(caseOf(t, moe, "Zed"))
	if l := cp.TestID("linked"); !strings.Contains(l, "Zed2") || !strings.Contains(l, "one device") {
		t.Errorf("linked accounts on the case page: %q", l)
	}
	var raw int
	if err := s.Store.DB.Get(&raw, `SELECT count(*) FROM account_links WHERE length(hash) <> 32`); err != nil || raw != 0 {
		t.Errorf("links stored other than as 32-byte keyed hashes: %d %v", raw, err)
	}
	// The export says what is kept; deleting the account forgets it.
	res := browser.Get("/settings/export")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `"fair_play"`) || !strings.Contains(res.Body, `"devices": 1`) && !strings.Contains(res.Body, `"devices":1`) {
		t.Errorf("the export of Zed2: %d %s", res.Status, res.Body)
	}
	if res := browser.PostForm("/settings/delete", url.Values{"password": {apptest.Password}}); res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	if cp := moe.Get(caseOf(t, moe, "Zed")); strings.Contains(cp.TestID("linked"), "Zed2") || cp.Has("linked") {
		t.Errorf("a deleted account is still linked: %q", cp.TestID("linked"))
	}
}

// Reports, the player's record and an appeal through the API, each
// answer checked against the OpenAPI document.
func TestFairPlayThroughTheAPI(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	kim, lou := s.APIFor("Kim"), s.APIFor("Lou")
	if st, body := kim.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Kim", "reason": "abuse"}); st != http.StatusUnprocessableEntity {
		t.Errorf("reporting oneself: %d %v", st, body)
	}
	if st, body := kim.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Lou", "reason": "abuse", "gmae_id": 3}); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "gmae_id") {
		t.Errorf("a misspelt field: %d %v", st, body)
	}
	st, body := kim.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Lou", "reason": "abuse", "note": "rude in chat"})
	if st != http.StatusCreated || body["status"] != "waiting" {
		t.Fatalf("report: %d %v", st, body)
	}
	if st, _ := kim.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Lou", "reason": "abuse"}); st != http.StatusConflict {
		t.Errorf("a second open report: %d", st)
	}
	_, mine := kim.Do(http.MethodGet, "/api/v1/me/fairplay", nil)
	if rs := mine["reports"].([]any); len(rs) != 1 || rs[0].(map[string]any)["player"] != "Lou" || rs[0].(map[string]any)["outcome"] != nil {
		t.Fatalf("Kim's reports: %v", mine["reports"])
	}
	moe := s.Client().Register("Moe")
	grant(t, s, "Moe")
	if res := moe.PostForm(caseOf(t, moe, "Lou")+"/decide", url.Values{"account": {"Lou"}, "action": {"warn"}, "reason": {"Be kind"}, "close": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("warn: %d", res.Status)
	}
	_, mine = kim.Do(http.MethodGet, "/api/v1/me/fairplay", nil)
	if r := mine["reports"].([]any)[0].(map[string]any); r["outcome"] != "warned" {
		t.Errorf("Kim's report after the warning: %v", r)
	}
	_, his := lou.Do(http.MethodGet, "/api/v1/me/fairplay", nil)
	ds := his["decisions"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["action"] != "warn" || his["marked"] != false {
		t.Fatalf("Lou's decisions: %v", his)
	}
	path := fmt.Sprintf("/api/v1/me/fairplay/decisions/%d/appeal", int64(ds[0].(map[string]any)["id"].(float64)))
	if st, body := kim.Do(http.MethodPost, path, map[string]any{"appeal": "not me"}); st != http.StatusNotFound {
		t.Errorf("appealing someone else's decision: %d %v", st, body)
	}
	if st, body := lou.Do(http.MethodPost, path, map[string]any{"appeal": "I was joking with a friend"}); st != http.StatusOK || body["decisions"].([]any)[0].(map[string]any)["appealed"] != true {
		t.Errorf("appeal: %d %v", st, body)
	}
	if st, _ := lou.Do(http.MethodPost, path, map[string]any{"appeal": "again"}); st != http.StatusConflict {
		t.Errorf("a second appeal: %d", st)
	}
}

// The reporter is mailed when their report is handled and the player when
// a decision about them is taken, each in their own language, through
// the outbox.
func TestFairPlayMails(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	ctx := context.Background()
	rep, bad := s.APIFor("Rae"), s.APIFor("Sly")
	for _, p := range []*apptest.API{rep, bad} {
		if _, err := s.Store.VerifyEmail(ctx, p.ID, strings.ToLower(p.Name)+"@example.com", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Store.DB.ExecContext(ctx, `UPDATE users SET lang = 'es' WHERE id = $1`, bad.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Notify.RunOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	before := len(smtp.Messages())
	if st, body := rep.Do(http.MethodPost, "/api/v1/reports", map[string]any{"player": "Sly", "reason": "abuse"}); st != http.StatusCreated {
		t.Fatalf("report: %d %v", st, body)
	}
	moe := s.Client().Register("Moe")
	grant(t, s, "Moe")
	if res := moe.PostForm(caseOf(t, moe, "Sly")+"/decide", url.Values{"account": {"Sly"}, "action": {"warn"}, "reason": {"Be kind"}, "close": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("warn: %d", res.Status)
	}
	if _, err := s.App.Notify.RunOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	var toRae, toSly []apptest.Received
	for _, m := range smtp.Messages()[before:] {
		switch {
		case strings.Contains(m.Header("To"), "rae@"):
			toRae = append(toRae, m)
		case strings.Contains(m.Header("To"), "sly@"):
			toSly = append(toSly, m)
		}
	}
	if len(toRae) != 1 || !strings.Contains(toRae[0].Parts()["text/plain"], "warned the player") {
		t.Errorf("mails to the reporter: %d %v", len(toRae), toRae)
	}
	if len(toSly) != 1 || !strings.Contains(toSly[0].Parts()["text/plain"], "Be kind") || !strings.Contains(toSly[0].Parts()["text/plain"], "/my/fairplay") ||
		strings.Contains(toSly[0].Parts()["text/plain"], "Rae") {
		t.Errorf("mails to the warned player: %d %v", len(toSly), toSly)
	}
	if len(toSly) == 1 && !strings.Contains(toSly[0].Header("Subject"), "juego limpio") {
		t.Errorf("the warned player's mail is not in Spanish: %q", toSly[0].Header("Subject"))
	}
}

// One game's points given back, then the account marked: the game is not
// refunded twice. By hand, at a rated table of three at 1500 with no
// rated game (K = 40): each player placed below the winner lost
// 40/2 × ½ = 10 points to them.
func TestRefundOfOneGameThenAMarkRefundsItOnce(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Ida"), s.APIFor("Jon"), s.APIFor("Kit")}
	id := rankedGame(t, players)
	playOut(t, s, id, players, nil)
	g := readGame(t, players[0], id)
	winner := 0
	for i, p := range g.placings {
		if p == 1 {
			winner = i
			break
		}
	}
	marked := g.names[winner]
	before := map[string]float64{}
	for _, n := range g.names {
		before[n] = apiRating(t, players[0], n)
	}
	reporter := apiOf(players, g.names[(winner+1)%3])
	if res := loggedIn(t, s, reporter).PostForm("/report/"+marked, url.Values{"reason": {"feeding"}, "game": {fmt.Sprint(id)}}); res.Status != http.StatusSeeOther {
		t.Fatalf("report: %d", res.Status)
	}
	moe := s.Client().Register("Moe")
	grant(t, s, "Moe")
	cp := caseOf(t, moe, marked)
	if res := moe.PostForm(cp+"/refund", url.Values{"account": {marked}, "game": {fmt.Sprint(id)}, "reason": {"Fed at this table"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("refund: %d %s", res.Status, res.Body)
	}
	if res := moe.PostForm(cp+"/decide", url.Values{"account": {marked}, "action": {"mark"}, "reason": {"Fed again and again"}, "close": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("mark after a refund: %d %s", res.Status, res.Body)
	}
	for i, n := range g.names {
		want := before[n]
		if i != winner && g.placings[i] > 1 {
			want += 10
		}
		if got := apiRating(t, players[0], n); math.Abs(got-want) > 0.11 {
			t.Errorf("%s: %.1f, want %.1f", n, got, want)
		}
	}
}
