package handlers_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/notation"
)

// handWritten is a one-round game of three written by hand in the
// notation, without the removed cards, score lines or result (they are
// optional). The cards each seat ends with and the tokens, worked out on
// paper line by line (11 tokens each to start):
//
//	Ayo: 9 10 11 | 17 18 19 | 31        = 9 + 17 + 31      = 57 card points, 4 tokens:  53
//	Bex: 3 | 13 14 15 | 25 26 | 33 34   = 3 + 13 + 25 + 33 = 74 card points, 11 tokens: 63
//	Cam: 5 6 7 | 21 22 23 | 27 | 29 30  = 5 + 21 + 27 + 29 = 82 card points, 18 tokens: 64
const handWritten = `[Site "a club table"]
[Date "2026-11-14"]
[Variant "standard"]
[Rounds "1"]
[Players "3"]
[SeatA "Ayo"]
[SeatB "Bex"]
[SeatC "Cam"]

round 1, A starts
33: A- B- C- A- B+4
3: B+0
5: B- C+1
6: C+0
34: C- A- B- C- A- B+5
7: B- C+1
9: C- A+1
10: A+0
31: A- B- C- A- B- C- A+6
11: A+0
13: A- B+1
14: B+0
29: B- C- A- B- C+4
30: C+0
15: C- A- B+2
17: B- C- A+2
18: A+0
27: A- B- C- A- B- C- A- B- C+8
19: C- A+1
21: A- B- C+2
22: C+0
26: C- A- B- C- A- B+5
25: B+0
23: B- C- A- B- C- A- B- C+7
`

// recordOf reads a finished game's record through the API.
func recordOf(t *testing.T, p *apptest.API, id int64) map[string]any {
	t.Helper()
	st, r := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/record", id), nil)
	if st != http.StatusOK {
		t.Fatalf("record of %d: %d %v", id, st, r)
	}
	return r
}

// textOf reads a game's notation through the API.
func textOf(t *testing.T, p *apptest.API, id int64) string {
	t.Helper()
	st, b := p.Raw(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/notation", id), nil)
	if st != http.StatusOK {
		t.Fatalf("notation of %d: %d %s", id, st, b)
	}
	return string(b)
}

func importText(t *testing.T, p *apptest.API, text string) int64 {
	t.Helper()
	st, res := p.Do(http.MethodPost, "/api/v1/imports", map[string]any{"notation": text})
	if st != http.StatusCreated {
		t.Fatalf("import: %d %v", st, res)
	}
	return int64(res["id"].(float64))
}

func TestImportAHandWrittenGame(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Importer")
	p := ps[0]
	id := importText(t, p, handWritten)

	r := recordOf(t, p, id)
	if r["ranked"] != false {
		t.Errorf("an imported game is rated: %v", r["ranked"])
	}
	want := map[string][3]int{"Ayo": {57, 4, 53}, "Bex": {74, 11, 63}, "Cam": {82, 18, 64}}
	names := map[float64]string{}
	for _, x := range r["players"].([]any) {
		pl := x.(map[string]any)
		names[pl["seat"].(float64)] = pl["name"].(string)
	}
	res := r["rounds"].([]any)[0].(map[string]any)["results"].([]any)
	for _, x := range res {
		rr := x.(map[string]any)
		name := names[rr["seat"].(float64)]
		got := [3]int{int(rr["card_points"].(float64)), int(rr["tokens"].(float64)), int(rr["score"].(float64))}
		if got != want[name] {
			t.Errorf("%s: card points, tokens, score %v; by hand %v", name, got, want[name])
		}
	}
	removed := r["rounds"].([]any)[0].(map[string]any)["removed"].([]any)
	if fmt.Sprint(removed) != "[4 8 12 16 20 24 28 32 35]" {
		t.Errorf("removed %v, by hand 4 8 12 16 20 24 28 32 35", removed)
	}

	// The game's page says it was imported and is over; its analysis is
	// queued like any other.
	page := loggedIn(t, s, p).Get(fmt.Sprintf("/games/%d", id))
	if page.Status != http.StatusOK || !page.Has("imported-note") || !page.Has("notation-link") {
		t.Errorf("the imported game's page: %d, imported note %v", page.Status, page.Has("imported-note"))
	}
	if _, err := s.App.Reviews.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, an := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/analysis", id), nil)
	if an["status"] != "done" {
		t.Errorf("the imported game's analysis: %v", an["status"])
	}

	// Written out again, the text has the removed cards and the scores
	// as worked out by hand.
	text := textOf(t, p, id)
	for _, line := range []string{
		"removed 4 8 12 16 20 24 28 32 35",
		"score A: 9 10 11 17 18 19 31 = 57 points, 4 tokens, 53",
		"score B: 3 13 14 15 25 26 33 34 = 74 points, 11 tokens, 63",
		"score C: 5 6 7 21 22 23 27 29 30 = 82 points, 18 tokens, 64",
		`[SeatA "Ayo"]`,
	} {
		if !strings.Contains(text, line) {
			t.Errorf("the text has no %q:\n%s", line, text)
		}
	}
	// And brought in again it is the same game.
	again := importText(t, p, text)
	if a, b := recordMoves(recordOf(t, p, id)), recordMoves(recordOf(t, p, again)); a != b {
		t.Errorf("export then import changed the game:\n%s\n%s", a, b)
	}
}

// recordMoves is a record's decisions and results, to compare two games.
func recordMoves(r map[string]any) string {
	var b strings.Builder
	for _, x := range r["rounds"].([]any) {
		rd := x.(map[string]any)
		fmt.Fprintln(&b, rd["first_seat"], rd["removed"])
		for _, m := range rd["moves"].([]any) {
			mv := m.(map[string]any)
			fmt.Fprintln(&b, mv["seat"], mv["action"], mv["card"], mv["tokens"], mv["timeout"])
		}
		for _, res := range rd["results"].([]any) {
			fmt.Fprintln(&b, res)
		}
	}
	for _, x := range r["players"].([]any) {
		pl := x.(map[string]any)
		fmt.Fprintln(&b, pl["seat"], pl["name"], pl["total"], pl["placing"])
	}
	return b.String()
}

func TestImportRefusals(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	p := verified(t, s, "Importer")[0]
	// B passes with the pot at 4 instead of taking: line 18 says 33 is
	// taken by B with 4, here written 5 (the pot was 4).
	wrongPot := strings.Replace(handWritten, "33: A- B- C- A- B+4", "33: A- B- C- A- B+5", 1)
	// A seat that does not exist in a game of three.
	noSeat := strings.Replace(handWritten, "3: B+0", "3: D+0", 1)
	// A card turned up twice.
	twice := strings.Replace(handWritten, "6: C+0", "5: C+0", 1)
	for name, c := range map[string]struct {
		text string
		line string
	}{
		"WrongPot":   {wrongPot, "Line 11:"},
		"NoSuchSeat": {noSeat, "Line 12:"},
		"CardTwice":  {twice, "Line 14:"},
		"Empty":      {"   ", "empty"},
		"NotAGame":   {"hello there\n", "Line 1:"},
	} {
		t.Run(name, func(t *testing.T) {
			st, res := p.Do(http.MethodPost, "/api/v1/imports", map[string]any{"notation": c.text})
			if st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(res["error"]), c.line) {
				t.Errorf("%d %v, want 422 saying %q", st, res, c.line)
			}
		})
	}
	// Too big: over 1 MiB.
	big := handWritten + strings.Repeat("# a comment to make the text long\n", 40000)
	if st, res := p.Do(http.MethodPost, "/api/v1/imports", map[string]any{"notation": big}); st != http.StatusUnprocessableEntity && st != http.StatusRequestEntityTooLarge {
		t.Errorf("a text over 1 MiB: %d %v", st, res)
	}
	// The page keeps the text and names the line; nothing is stored.
	c := loggedIn(t, s, p)
	res := c.PostForm("/import", url.Values{"notation": {wrongPot}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.TestID("error-notation"), "Line 11:") ||
		!strings.Contains(res.Doc().Find(`[data-testid="input-notation"]`).Text(), "33: A- B- C- A- B+5") {
		t.Errorf("the form's refusal: %d %q", res.Status, res.TestID("error-notation"))
	}
	if page := c.Get("/import"); page.Has("imported-game") {
		t.Errorf("a refused import was stored")
	}
	// In Spanish the line and what is wrong there are Spanish too.
	c.PostForm("/lang", url.Values{"lang": {"es"}, "next": {"/import"}})
	res = c.PostForm("/import", url.Values{"notation": {wrongPot}})
	if got := res.TestID("error-notation"); res.Status != http.StatusUnprocessableEntity || !strings.Contains(got, "Línea 11: B toma la carta 33 con 4 fichas encima, no 5") {
		t.Errorf("the refusal in Spanish: %d %q", res.Status, got)
	}
	c.PostForm("/lang", url.Values{"lang": {"en"}, "next": {"/import"}})
	// The form imports a good one and shows the game.
	res = c.PostForm("/import", url.Values{"notation": {handWritten}})
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/games/") {
		t.Errorf("the form's import: %d %s", res.Status, res.Header.Get("Location"))
	}
	if page := c.Get("/import"); !page.Has("imported-game") {
		t.Errorf("the imported game is not listed")
	}
}

// A site game written out and imported is the same game; in play it has
// no text at all.
func TestExportThenImport(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ann", "Ben", "Cat")
	id := newAPITable(t, ps, map[string]any{"rounds": 2})
	if st, res := ps[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/notation", id), nil); st != http.StatusConflict {
		t.Errorf("the text of a game in play: %d %v", st, res)
	}
	page := loggedIn(t, s, ps[0]).Get(fmt.Sprintf("/games/%d/notation", id))
	if page.Status != http.StatusConflict || strings.Contains(page.Body, "removed") {
		t.Errorf("the text of a game in play from the page: %d", page.Status)
	}
	playOut(t, s, id, ps, nil)
	dl := s.Client().Get(fmt.Sprintf("/games/%d/notation", id))
	if dl.Status != http.StatusOK || !strings.Contains(dl.Header.Get("Content-Disposition"), fmt.Sprintf("nothanks-%d.txt", id)) {
		t.Fatalf("download: %d %v", dl.Status, dl.Header)
	}
	again := importText(t, ps[1], dl.Body)
	if a, b := recordMoves(recordOf(t, ps[0], id)), recordMoves(recordOf(t, ps[0], again)); a != b {
		t.Errorf("export then import changed the game:\n%s\n%s", a, b)
	}
	// The player's file holds the game, once.
	st, all := ps[0].Raw(http.MethodGet, "/api/v1/users/Ann/games/notation", nil)
	games, err := notation.ParseMany(bytes.NewReader(all))
	if st != http.StatusOK || err != nil || len(games) != 1 {
		t.Errorf("Ann's games: %d, %d games, %v", st, len(games), err)
	}
}

func TestOpenDatabaseMonth(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ctx := context.Background()
	ps := verified(t, s, "Ann", "Ben", "Cat")
	var public []int64
	for range 2 {
		id := newAPITable(t, ps, nil)
		playOut(t, s, id, ps, nil)
		public = append(public, id)
	}
	st, g := ps[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300, "private": true})
	if st != http.StatusCreated {
		t.Fatalf("create a private game: %d %v", st, g)
	}
	private := int64(g["id"].(float64))
	for _, p := range ps[1:] {
		if st, v := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", private), map[string]any{"code": g["invite_code"]}); st != http.StatusOK {
			t.Fatalf("join the private game: %d %v", st, v)
		}
	}
	playOut(t, s, private, ps, nil)
	imported := importText(t, ps[0], handWritten)

	// The month is not over: no file yet.
	if n, err := s.App.Archive.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a file before the month is over: %d %v", n, err)
	}
	month := s.Clock.Now().UTC().Format("2006-01")
	s.Clock.Advance(32 * 24 * time.Hour)
	if n, err := s.App.Archive.RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("the month's file: %d %v", n, err)
	}
	page := s.Client().Get("/database")
	if page.Status != http.StatusOK || page.TestID("month-games") != "2" {
		t.Errorf("the database page: %d, games %q", page.Status, page.TestID("month-games"))
	}
	file := s.Client().Get("/database/nothanks-" + month + ".txt.gz")
	if file.Status != http.StatusOK || file.Header.Get("Content-Type") != "application/gzip" {
		t.Fatalf("the month's file: %d %v", file.Status, file.Header)
	}
	sum := sha256.Sum256([]byte(file.Body))
	_, list := ps[0].Do(http.MethodGet, "/api/v1/database", nil)
	m := list["months"].([]any)[0].(map[string]any)
	if m["month"] != month || m["games"].(float64) != 2 || m["sha256"] != hex.EncodeToString(sum[:]) || int(m["bytes"].(float64)) != len(file.Body) {
		t.Errorf("the API's month %v; the file has %d bytes, sha256 %x", m, len(file.Body), sum)
	}
	text := gunzip(t, []byte(file.Body))
	gs, err := notation.ParseMany(strings.NewReader(text))
	if err != nil || len(gs) != 2 {
		t.Fatalf("the file's games: %d %v", len(gs), err)
	}
	for i, g := range gs {
		if !strings.HasSuffix(g.Header.URL, fmt.Sprintf("/games/%d", public[i])) {
			t.Errorf("game %d of the file is %s, want game %d", i, g.Header.URL, public[i])
		}
	}
	for _, id := range []int64{private, imported} {
		if strings.Contains(text, fmt.Sprintf("/games/%d\"", id)) {
			t.Errorf("game %d is in the open database", id)
		}
	}
	// Ben deletes his account: the file is made again with his name gone.
	c := loggedIn(t, s, ps[1])
	if res := c.PostForm("/settings/delete", url.Values{"password": {apptest.Password}}); res.Status >= 400 {
		t.Fatalf("delete: %d", res.Status)
	}
	if n, err := s.App.Archive.RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("the month's file again: %d %v", n, err)
	}
	again := gunzip(t, []byte(s.Client().Get("/database/nothanks-"+month+".txt.gz").Body))
	if strings.Contains(again, `"Ben"`) || !strings.Contains(again, `"deleted player"`) {
		t.Errorf("after Ben deleted his account the file says:\n%s", again[:min(len(again), 600)])
	}
	if res := s.Client().Get("/database/nothanks-1999-01.txt.gz"); res.Status != http.StatusNotFound {
		t.Errorf("a month without a file: %d", res.Status)
	}
	if st, _ := ps[0].Do(http.MethodGet, "/api/v1/database/not-a-month", nil); st != http.StatusNotFound {
		t.Errorf("a month that is not one: %d", st)
	}
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
