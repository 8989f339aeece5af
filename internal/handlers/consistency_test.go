package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// Every answer is built from one read: while moves are being made as fast
// as the server can, no answer mixes two versions of the game (its
// top-level version is its view's, and its view's log ends at that
// version).
func TestAnswersAreOneVersionUnderConcurrentMoves(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	owner := s.APIFor("Owner")
	status, g := owner.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 3, "pace": "live", "turn_seconds": 15})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	path := fmt.Sprintf("/api/v1/games/%d", id)
	for range 2 {
		if st, body := owner.Do(http.MethodPost, path+"/bots", map[string]any{"level": "heuristic"}); st != http.StatusOK {
			t.Fatalf("add bot: %d %v", st, body)
		}
	}
	watcher := s.APIFor("Watcher")
	ctx, cancel := context.WithCancel(context.Background())
	var answers, mixed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_, a := watcher.Do(http.MethodGet, path, nil)
				v, ok := a["view"].(map[string]any)
				if !ok {
					continue
				}
				answers.Add(1)
				top, inner := a["version"].(float64), v["version"].(float64)
				if top != inner {
					mixed.Add(1)
					t.Errorf("an answer says version %v at the top and %v in its view", top, inner)
				}
			}
		}()
	}
	// The owner's time runs out (three times, then a bot plays the seat)
	// and the bots move: every due move is made as soon as it is due.
	for range 3000 {
		if _, err := s.App.Games.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		if gm, _ := s.Store.Game(ctx, id); gm.Status == "finished" {
			break
		}
		s.Clock.Advance(16 * time.Second)
	}
	cancel()
	wg.Wait()
	if gm, _ := s.Store.Game(context.Background(), id); gm.Status != "finished" {
		t.Fatalf("the game did not finish")
	}
	if answers.Load() < 200 {
		t.Errorf("only %d answers were read while the game was played", answers.Load())
	}
	t.Logf("%d answers read while the game was played, %d mixed", answers.Load(), mixed.Load())
}
