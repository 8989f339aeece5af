package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/games"
	"nothanks/internal/tournaments"
)

// childServer, set in the environment, makes the test binary run the
// server itself (run, as main does) instead of the tests: a process the
// test can kill -9.
const childServer = "NT_TEST_CHILD_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(childServer) != "" {
		if err := run(context.Background(), nil, os.Getenv, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A kill -9 of the instance that is seating an arena's first wave, caught
// in the middle of its transaction (its games and seats written, the
// event's list of games held up by a lock the test holds), loses no player
// and seats nobody twice: nothing of the half-done seating stays, and the
// next seating seats every player once.
func TestKillDuringSeatingLosesNobody(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	g := games.New(store, clock.Real{}, log)
	tr := tournaments.New(store, g, clock.Real{}, log)
	var users []db.User
	for i := range 8 {
		u, err := store.CreateUser(ctx, fmt.Sprintf("Crash%d", i), fmt.Sprintf("crash%d@example.com", i), "x", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	if _, err := store.VerifyEmail(ctx, users[0].ID, "crash0@example.com", time.Now()); err != nil {
		t.Fatal(err)
	}
	in := tournaments.DefaultInput(time.Now())
	in.Name, in.TableSize, in.Minutes, in.StartsAt = "Crash arena", 4, 20, time.Now().Add(2*time.Minute)
	id, err := tr.Create(ctx, users[0], in)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if err := tr.Join(ctx, u, id, ""); err != nil {
			t.Fatal(err)
		}
	}
	// The test holds the event's list of games: a seating gets as far as
	// writing the games and waits there.
	lock, err := store.DB.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, `LOCK TABLE tournament_games IN EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB.Exec(`UPDATE tournaments SET starts_at = now(), due_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childServer+"=1", "DATABASE_URL="+dbURL, "ADDR=127.0.0.1:0", "LOG_LEVEL=error")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	waiting := func() bool {
		var n int
		if err := store.DB.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO tournament_games%'`); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	deadline := time.Now().Add(30 * time.Second)
	for !waiting() {
		if time.Now().After(deadline) {
			t.Fatal("the child server never got to seating the arena")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Caught in the middle of its transaction: kill -9.
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	// The dead instance's transaction ends without a commit.
	deadline = time.Now().Add(30 * time.Second)
	for {
		var open int
		if err := store.DB.Get(&open, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
			AND query LIKE '%tournament%' AND state <> 'idle'`); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the killed instance's transaction is still open")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var gamesLeft, seated int
	var status string
	if err := store.DB.Get(&gamesLeft, `SELECT count(*) FROM games WHERE tournament_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := store.DB.Get(&seated, `SELECT count(*) FROM tournament_players WHERE tournament_id = $1 AND game_id IS NOT NULL`, id); err != nil {
		t.Fatal(err)
	}
	if err := store.DB.Get(&status, `SELECT status FROM tournaments WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if gamesLeft != 0 || seated != 0 || status != db.TournamentUpcoming {
		t.Fatalf("after the kill: %d games, %d players seated, status %s; want nothing of the half-done seating", gamesLeft, seated, status)
	}

	// The next seating (here, in this process) seats everyone once.
	if _, err := tr.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	var perPlayer []int
	if err := store.DB.Select(&perPlayer, `SELECT count(s.id) FROM tournament_players p
		LEFT JOIN game_seats s ON s.user_id = p.user_id AND s.game_id IN (SELECT id FROM games WHERE tournament_id = $1)
		WHERE p.tournament_id = $1 GROUP BY p.user_id`, id); err != nil {
		t.Fatal(err)
	}
	if len(perPlayer) != len(users) {
		t.Fatalf("%d players after the seating, want %d", len(perPlayer), len(users))
	}
	for _, n := range perPlayer {
		if n != 1 {
			t.Fatalf("seats per player %v: want each seated once", perPlayer)
		}
	}
}
