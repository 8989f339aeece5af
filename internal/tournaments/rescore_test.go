package tournaments

import (
	"testing"

	"nothanks/internal/db"
)

func result(id, user, game int64, place, points, counted int, won bool) db.TournamentResult {
	r := db.TournamentResult{ID: id, UserID: user, Points: points, Counted: counted, Won: won}
	if game != 0 {
		g := game
		r.GameID, r.Place = &g, &place
	}
	return r
}

// Worked out by hand (points in half points, tables of three: places
// worth 4, 2, 0; two tied for first share 4+2, 3 each).
func TestRescoreASwissEventWithoutAMarkedPlayer(t *testing.T) {
	// Game 10: 1, 2, 3 placed 1, 2, 3. Game 11: 2 and 4 tied first, 1
	// last. Player 3 had a bye (2).
	rs := []db.TournamentResult{
		result(1, 1, 10, 1, 4, 4, true), result(2, 2, 10, 2, 2, 2, false), result(3, 3, 10, 3, 0, 0, false),
		result(4, 1, 11, 2, 0, 0, false), result(5, 2, 11, 1, 3, 3, true), result(6, 4, 11, 1, 3, 3, true),
		result(7, 3, 0, 0, 2, 2, false),
	}
	seats := []db.SeatPlace{{GameID: 10, UserID: 1, Place: 1}, {GameID: 10, UserID: 2, Place: 2}, {GameID: 10, UserID: 3, Place: 3},
		{GameID: 11, UserID: 1, Place: 2}, {GameID: 11, UserID: 2, Place: 1}, {GameID: 11, UserID: 4, Place: 1}}
	// Without 2: game 10 is 1, 3, then 2; game 11 is 4, 1, then 2.
	changed, totals := Rescore(db.KindSwiss, rs, seats, map[int64]bool{2: true})
	want := map[int64][3]int{ // result id: place, points, won
		2: {3, 0, 0}, 3: {2, 2, 0}, 4: {2, 2, 0}, 5: {3, 0, 0}, 6: {1, 4, 1},
	}
	if len(changed) != len(want) {
		t.Fatalf("%d results changed, want %d: %+v", len(changed), len(want), changed)
	}
	for _, r := range changed {
		w, ok := want[r.ID]
		won := 0
		if r.Won {
			won = 1
		}
		if !ok || *r.Place != w[0] || r.Points != w[1] || r.Counted != w[1] || won != w[2] {
			t.Errorf("result %d: place %d points %d counted %d won %v, want %v", r.ID, *r.Place, r.Points, r.Counted, r.Won, w)
		}
	}
	wantTotals := map[int64]db.PlayerTotals{
		1: {UserID: 1, Points: 6, Games: 2, Wins: 1},
		2: {UserID: 2, Points: 0, Games: 2},
		3: {UserID: 3, Points: 4, Games: 1, Byes: 1},
		4: {UserID: 4, Points: 4, Games: 1, Wins: 1},
	}
	if len(totals) != 4 {
		t.Fatalf("totals: %+v", totals)
	}
	for _, x := range totals {
		if x != wantTotals[x.UserID] {
			t.Errorf("player %d: %+v, want %+v", x.UserID, x, wantTotals[x.UserID])
		}
	}
	// With nobody out, the event as it was played: nothing changes.
	if changed, _ := Rescore(db.KindSwiss, rs, seats, nil); len(changed) != 0 {
		t.Errorf("nobody out changed %+v", changed)
	}
}

// An arena's streak follows the new first places: without 1, player 2
// wins three games in a row, the third counted double, and is on fire.
func TestRescoreAnArenaStreak(t *testing.T) {
	var rs []db.TournamentResult
	var seats []db.SeatPlace
	raw := [][3]int{{1, 2, 3}, {1, 2, 3}, {2, 1, 3}} // places of 1, 2, 3 in games 1..3
	pts := map[int]int{1: 4, 2: 2, 3: 0}
	id := int64(0)
	for g, places := range raw {
		for u, p := range places {
			id++
			rs = append(rs, result(id, int64(u+1), int64(g+1), p, pts[p], pts[p], p == 1))
			seats = append(seats, db.SeatPlace{GameID: int64(g + 1), UserID: int64(u + 1), Place: p})
		}
	}
	_, totals := Rescore(db.KindArena, rs, seats, map[int64]bool{1: true})
	want := map[int64]db.PlayerTotals{
		1: {UserID: 1, Points: 0, Games: 3},
		2: {UserID: 2, Points: 4 + 4 + 8, Games: 3, Wins: 3, OnFire: true},
		3: {UserID: 3, Points: 2 + 2 + 2, Games: 3},
	}
	for _, x := range totals {
		if x != want[x.UserID] {
			t.Errorf("player %d: %+v, want %+v", x.UserID, x, want[x.UserID])
		}
	}
}
