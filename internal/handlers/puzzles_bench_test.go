package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"nothanks/internal/apptest"
)

// BenchmarkServePuzzle times serving a puzzle in the process, every
// middleware included: the puzzle's page for a visitor and a member's next
// puzzle through the API. The
// puzzle comes from a finished game of ten rounds (three players), the
// longest the site plays, so rebuilding the deciding seat's view replays
// the most; the choice among 100,000 puzzles is BenchmarkNextPuzzle's
// (internal/db), which this adds to.
//
//	go test -run '^$' -bench ServePuzzle -benchmem -count 5 ./internal/handlers/
func BenchmarkServePuzzle(b *testing.B) {
	s := apptest.New(b, apptest.WithoutWorkers())
	ctx := context.Background()
	seats := apiGameAt(b, s, 0, "live")
	id := seats[0].Game
	for {
		_, g := seats[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		if g["status"] != "playing" {
			break
		}
		v := g["view"].(map[string]any)
		p := seats[int(v["turn"].(float64))]
		kind := "pass"
		if v["pot"].(float64) >= 3 || v["active_card"].(float64) < 12 {
			kind = "take"
		}
		if st, _ := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, kind), map[string]any{"version": v["version"]}); st != http.StatusOK {
			if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": v["version"]}); st != http.StatusOK {
				b.Fatalf("take: %d %v", st, body)
			}
		}
	}
	if n, err := s.App.Puzzles.RunOnce(ctx); err != nil || n == 0 {
		b.Fatalf("mining found %d puzzles (%v)", n, err)
	}
	var pid, move int64
	if err := s.Store.DB.QueryRowContext(ctx, `SELECT id, move FROM puzzles WHERE game_id = $1 ORDER BY move DESC LIMIT 1`, id).Scan(&pid, &move); err != nil {
		b.Fatal(err)
	}
	b.Logf("puzzle %d at decision %d of the game", pid, move+1)
	solver := s.APIFor("solver")

	serve := func(b *testing.B, req func() *http.Request) {
		b.ReportAllocs()
		for b.Loop() {
			rec := httptest.NewRecorder()
			s.App.Handler.ServeHTTP(rec, req())
			if rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	}
	b.Run("page", func(b *testing.B) {
		serve(b, func() *http.Request { return httptest.NewRequest(http.MethodGet, fmt.Sprintf("/puzzles/%d", pid), nil) })
	})
	b.Run("api-next", func(b *testing.B) {
		serve(b, func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/puzzles/next", nil)
			r.Header.Set("Authorization", "Bearer "+solver.Token)
			return r
		})
	})
}
