package handlers_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// Two instances on one database, three players, one live game: each move
// goes to either instance at random, so each instance's kept State of the
// game (the next move's, made without reading the game) is often stale.
// Every move on the version its player saw is accepted, every move on an
// older version is refused with the game as it is, and both instances end
// with the same game, holding every move once. On one instance alone, the
// moves after the first are made on the kept State.
func TestOneGameMovedOnTwoInstances(t *testing.T) {
	a := apptest.New(t)
	b := apptest.NewOn(t, a.Store, a.DBURL)
	onA := []*apptest.API{a.APIFor("Ora"), a.APIFor("Pim"), a.APIFor("Quy")}
	onB := make([]*apptest.API, 3)
	for i, p := range onA {
		onB[i] = apptest.NewAPI(b, p.Token)
	}
	_, g := onA[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 2, "pace": "live", "turn_seconds": 300})
	id := int64(g["id"].(float64))
	for _, p := range onA[1:] {
		if st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			t.Fatalf("join: %d %v", st, res)
		}
	}
	seatOf := map[int]int{} // seat → player index
	var view map[string]any
	for i, p := range onA {
		_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		seatOf[int(v["your_seat"].(float64))] = i
		view = v
	}
	rng := rand.New(rand.NewPCG(3, 8))
	moves, refused := 0, 0
	keptBefore := a.App.Games.KeptMoves() + b.App.Games.KeptMoves()
	for step := 0; view["status"] == "playing"; step++ {
		v := view["view"].(map[string]any)
		version := int(v["version"].(float64))
		who := seatOf[int(v["turn"].(float64))]
		// The first 20 moves all on instance a; then either.
		p := onA[who]
		if step >= 20 && rng.IntN(2) == 1 {
			p = onB[who]
		}
		kind := "pass"
		if int(v["pot"].(float64)) >= 2 {
			kind = "take"
		}
		st, res := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, kind), map[string]any{"version": version})
		if st == http.StatusUnprocessableEntity && kind == "pass" {
			st, res = p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": version})
		}
		if st != http.StatusOK {
			t.Fatalf("step %d on version %d: %d %v", step, version, st, res)
		}
		moves++
		view = res
		if step >= 20 && step%3 == 0 && res["status"] == "playing" {
			// At once, on the other instance, the same move on the version
			// it was made on (the one that instance may still hold kept):
			// refused, with the game as it is now.
			other := onB[who]
			if p == onB[who] {
				other = onA[who]
			}
			now := int(res["view"].(map[string]any)["version"].(float64))
			st, res := other.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", id), map[string]any{"version": version})
			if st != http.StatusConflict || int(res["game"].(map[string]any)["view"].(map[string]any)["version"].(float64)) != now {
				t.Fatalf("step %d: a move on version %d of %d: %d %v", step, version, now, st, res)
			}
			refused++
		}
		if step == 19 {
			if kept := a.App.Games.KeptMoves() - keptBefore; kept < 15 {
				t.Errorf("of 20 moves on one instance, %d were made on its kept State", kept)
			}
		}
	}
	if refused == 0 {
		t.Fatal("no stale move was tried")
	}
	// Both instances: the same finished game, every move once.
	time.Sleep(50 * time.Millisecond)
	_, fromA := onA[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d?log=full", id), nil)
	_, fromB := onB[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d?log=full", id), nil)
	if fromA["status"] != "finished" || !reflect.DeepEqual(fromA["view"], fromB["view"]) {
		t.Fatalf("the instances disagree:\n%v\n%v", fromA["view"], fromB["view"])
	}
	var n int
	if err := a.Store.DB.Get(&n, `SELECT count(*) FROM moves WHERE game_id = $1 AND NOT timeout`, id); err != nil {
		t.Fatal(err)
	}
	if n != moves {
		t.Errorf("%d moves made, %d stored", moves, n)
	}
}
