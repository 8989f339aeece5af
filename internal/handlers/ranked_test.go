package handlers_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/apptest"
)

// rankedGame creates a ranked game among the players through the API and
// returns its id once it has started.
func rankedGame(t *testing.T, players []*apptest.API) int64 {
	t.Helper()
	status, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": len(players), "rounds": 1, "ranked": true, "pace": "live", "turn_seconds": 60})
	if status != http.StatusCreated {
		t.Fatalf("create ranked: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	for _, p := range players[1:] {
		if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d %v", st, body)
		}
	}
	return id
}

// playOut plays a game to the end through the API; skip, when set, is a
// player who never moves (the test makes their time run out instead).
func playOut(t *testing.T, s *apptest.Server, id int64, players []*apptest.API, skip *apptest.API) {
	t.Helper()
	ctx := context.Background()
	for n := 0; n < 3000; n++ {
		acted := false
		for _, p := range players {
			_, view := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
			if view["status"] == "finished" {
				return
			}
			if view["your_turn"] != true || p == skip {
				continue
			}
			v := view["view"].(map[string]any)
			kind := "take"
			for _, l := range v["legal"].([]any) {
				if l == "pass" && v["pot"].(float64) < 2 {
					kind = "pass"
				}
			}
			if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, kind), map[string]any{"version": v["version"]}); st != http.StatusOK {
				t.Fatalf("%s: %d %v", kind, st, body)
			}
			acted = true
		}
		if !acted {
			s.Clock.Advance(61 * time.Second)
			if _, err := s.App.Games.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Fatal("the game did not end")
}

func TestRankedGamesUpdateRatingsLadderAndHistory(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Rook"), s.APIFor("Pawn"), s.APIFor("King")}
	var last int64
	for game := 1; game <= 2; game++ {
		last = rankedGame(t, players)
		playOut(t, s, last, players, nil)
	}
	ctx := context.Background()
	sum := 0.0
	for _, p := range players {
		u, _ := s.Store.UserByName(ctx, p.Name)
		hist, err := s.Store.RatingHistory(ctx, u.ID)
		if err != nil || len(hist) != 2 {
			t.Fatalf("%s: %d rating changes (%v), want 2", p.Name, len(hist), err)
		}
		if hist[0].Before != 1500 || hist[1].Before != hist[0].After {
			t.Errorf("%s: history does not chain: %+v", p.Name, hist)
		}
		sum += hist[1].After
		// The finished table says the game is ranked and shows each
		// player's rating change beside their seat.
		table := s.Client().Get(fmt.Sprintf("/games/%d", last))
		if !table.Has("ranked-badge") {
			t.Error("the finished ranked table does not say it is ranked")
		}
		d := int(math.Round(hist[1].After - hist[1].Before))
		want := fmt.Sprintf("rating +%d", d)
		if d < 0 {
			want = fmt.Sprintf("rating −%d", -d)
		} else if d == 0 {
			want = "rating ±0"
		}
		found := false
		table.Doc().Find(`[data-testid="seat"]`).Each(func(_ int, sel *goquery.Selection) {
			if strings.TrimSpace(sel.Find(`[data-testid="seat-name"]`).Text()) == p.Name {
				found = strings.TrimSpace(sel.Find(`[data-testid="seat-rating-change"]`).Text()) == want
			}
		})
		if !found {
			t.Errorf("%s's seat does not show %q", p.Name, want)
		}
	}
	if math.Abs(sum-4500) > 1e-6 {
		t.Errorf("ratings sum to %v after games between provisional players, want 4500", sum)
	}

	// The profile shows the rating, the chart and the change per game.
	prof := s.Client().Get("/u/Rook")
	if !prof.Has("rating-chart") || prof.Doc().Find(`[data-testid="recent-game"]`).Length() != 2 {
		t.Errorf("profile: chart %v, %d recent games", prof.Has("rating-chart"), prof.Doc().Find(`[data-testid="recent-game"]`).Length())
	}
	if change := prof.TestID("recent-change"); !strings.HasPrefix(change, "+") && !strings.HasPrefix(change, "−") {
		t.Errorf("recent rating change %q", change)
	}
	if strings.Contains(prof.Body, "style=") {
		t.Error("the profile has inline styles, which the CSP forbids")
	}

	// With fewer than 20 games everyone is provisional, shown apart.
	lad := s.Client().Get("/ladder")
	if !lad.Has("ladder-empty") || lad.Doc().Find(`[data-testid="provisional"] [data-testid="ladder-row"]`).Length() != 3 {
		t.Errorf("ladder with provisional players only: %s", lad.TestID("ladder-empty"))
	}
	// Once established (as after 20 games), they are ranked by rating.
	if _, err := s.Store.DB.Exec(`UPDATE users SET ranked_games = ranked_games + 20`); err != nil {
		t.Fatal(err)
	}
	c := s.Client()
	c.Login("King", apptest.Password)
	lad = c.Get("/ladder")
	rows := lad.Doc().Find(`[data-testid="ladder"] [data-testid="ladder-row"]`)
	if rows.Length() != 3 {
		t.Fatalf("%d ladder rows, want 3", rows.Length())
	}
	if !lad.Has("find-me") || lad.Doc().Find(`tr#me`).Length() != 1 {
		t.Error("the viewer's own row is not marked")
	}
	var prev float64 = math.Inf(1)
	rows.Each(func(_ int, sel *goquery.Selection) {
		var r float64
		fmt.Sscan(strings.TrimSpace(sel.Find(`[data-testid="ladder-rating"]`).Text()), &r)
		if r > prev {
			t.Errorf("ladder out of order: %v after %v", r, prev)
		}
		prev = r
	})
	status, api := players[0].Do(http.MethodGet, "/api/v1/ladder", nil)
	if status != http.StatusOK || len(api["ladder"].([]any)) != 3 {
		t.Errorf("API ladder: %d %v", status, api)
	}
}

func TestAbandoningARankedGamePlacesLast(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	players := []*apptest.API{s.APIFor("Stays"), s.APIFor("Also"), s.APIFor("Leaves")}
	id := rankedGame(t, players)
	playOut(t, s, id, players, players[2])
	status, rec := players[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/record", id), nil)
	if status != http.StatusOK {
		t.Fatalf("record: %d", status)
	}
	for _, p := range rec["players"].([]any) {
		pm := p.(map[string]any)
		if pm["name"] == "Leaves" {
			if pm["abandoned"] != true || pm["placing"].(float64) != 3 {
				t.Errorf("the player who left: %v", pm)
			}
		}
	}
	u, _ := s.Store.UserByName(context.Background(), "Leaves")
	hist, _ := s.Store.RatingHistory(context.Background(), u.ID)
	if len(hist) != 1 || hist[0].After >= hist[0].Before || hist[0].Place != 3 {
		t.Errorf("the abandoner's rating change: %+v", hist)
	}
}

func TestRankedQueueMatchesPlayers(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	var players []*apptest.API
	for i := range 7 {
		p := s.APIFor(fmt.Sprintf("queuer%d", i))
		players = append(players, p)
		sizes := []int{3, 4}
		if i == 6 {
			sizes = []int{5} // nobody else wants five
		}
		if st, body := p.Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": sizes, "pace": "live"}); st != http.StatusOK || body["queued"] != true {
			t.Fatalf("join queue: %d %v", st, body)
		}
	}
	if st, body := players[0].Do(http.MethodPost, "/api/v1/queue", map[string]any{"sizes": []int{2}, "pace": "live"}); st != http.StatusUnprocessableEntity {
		t.Errorf("size 2: %d %v", st, body)
	}
	ids, err := s.App.Ranked.RunMatcher(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 {
		t.Fatalf("%d games formed from 6 players who accept 3 or 4, want 1 (of 4)", len(ids))
	}
	matched := 0
	for _, p := range players {
		_, st := p.Do(http.MethodGet, "/api/v1/queue", nil)
		if st["game_id"] != nil {
			matched++
			_, g := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%v", st["game_id"]), nil)
			if g["ranked"] != true || g["status"] != "playing" || g["public"] != true {
				t.Errorf("matched game: %v", g)
			}
		}
	}
	if matched != 4 {
		t.Errorf("%d players matched, want 4", matched)
	}
	// A matched player who opens the queue page is sent to the game.
	for i, p := range players {
		_, st := p.Do(http.MethodGet, "/api/v1/queue", nil)
		if st["game_id"] == nil {
			continue
		}
		c := s.Client()
		c.Login(fmt.Sprintf("queuer%d", i), apptest.Password)
		res := c.Get("/ranked")
		if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/games/") {
			t.Errorf("matched player at /ranked: %d %q", res.Status, res.Header.Get("Location"))
		}
		if again := c.Get("/ranked"); again.Status != http.StatusOK || !again.Has("queue-form") {
			t.Errorf("after being sent to the game, the queue page: %d", again.Status)
		}
		break
	}
	// Leaving works at any time.
	if st, body := players[6].Do(http.MethodDelete, "/api/v1/queue", nil); st != http.StatusOK || body["queued"] != false {
		t.Errorf("leave queue: %d %v", st, body)
	}
}
