package db_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
)

// TestArchiveGamesReadsEveryMoveAsStored reads a finished game whole the
// way the open database and the games files do (moves packed from the
// moves' key) and finds each move as it was written, with every kind and
// the largest card, pot, seat and round the rules allow.
func TestArchiveGamesReadsEveryMoveAsStored(t *testing.T) {
	s := dbtest.New(t)
	ctx := context.Background()
	at := time.Date(2027, 2, 10, 12, 0, 0, 0, time.UTC)
	var uid, gid int64
	if err := s.DB.GetContext(ctx, &uid, `INSERT INTO users (username, email, password_hash, created_at) VALUES ('ann', 'ann@example.com', 'x', $1) RETURNING id`, at); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.GetContext(ctx, &gid, `
		INSERT INTO games (creator_id, status, options, seats, public, invite_code, pace, turn_seconds, seed, version, created_at, started_at, finished_at, updated_at)
		VALUES ($1, 'finished', '{"players": 7, "rounds": 10, "variant": "standard"}', 7, true, 'packed', 'live', 30, 1, 6, $2, $2, $2, $2) RETURNING id`, uid, at); err != nil {
		t.Fatal(err)
	}
	want := []db.Move{
		{Seq: 1, Round: 1, Seat: 0, Kind: "pass", Card: 3, Pot: 0},
		{Seq: 2, Round: 1, Seat: 1, Kind: "take", Card: 3, Pot: 1, Timeout: true},
		{Seq: 3, Round: 4, Seat: 6, Kind: "tiger", Card: 35, Pot: 55},
		{Seq: 4, Round: 10, Seat: 6, Kind: "leave", Card: 0, Pot: 0},
		{Seq: 5, Round: 10, Seat: 5, Kind: "take", Card: 35, Pot: 54, Timeout: true},
		{Seq: 6, Round: 10, Seat: 3, Kind: "pass", Card: 34, Pot: 2},
	}
	// Written out of order: the key, not the heap, orders them.
	for _, i := range []int{3, 0, 5, 1, 4, 2} {
		m := want[i]
		if _, err := s.DB.ExecContext(ctx, `INSERT INTO moves (game_id, seq, round, seat, kind, card, pot, timeout, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			gid, m.Seq, m.Round, m.Seat, m.Kind, m.Card, m.Pot, m.Timeout, at); err != nil {
			t.Fatal(err)
		}
	}
	// A move past the row's version is not the game's yet.
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO moves (game_id, seq, round, seat, kind, card, pot, created_at) VALUES ($1, 7, 10, 4, 'pass', 34, 3, $2)`, gid, at); err != nil {
		t.Fatal(err)
	}
	gs, err := s.ArchiveGames(ctx, db.ArchiveQuery{From: at.Add(-time.Hour), To: at.Add(time.Hour), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 {
		t.Fatalf("%d games", len(gs))
	}
	for i := range want {
		want[i].GameID = gid
	}
	if got := gs[0].Moves; !reflect.DeepEqual(got, want) {
		t.Errorf("moves:\n got %+v\nwant %+v", got, want)
	}
}
