package tournaments_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/db"
	"nothanks/internal/tournaments"
)

// BenchmarkSeatArenaWave1000 times the step that starts a 1,000-player
// arena at tables of four and seats its first wave (250 tables) in one
// transaction, against the real Postgres. Each iteration needs an event
// nobody has been seated in yet, so a fresh one is made and joined by the
// same 1,000 people outside the timer; the events before it keep their
// players at their tables, which does not matter to the next.
func BenchmarkSeatArenaWave1000(b *testing.B) {
	const players = 1000
	s := apptest.New(b, apptest.WithoutWorkers())
	ctx := context.Background()
	// Registering through the form hashes a password per person: far too
	// slow for 1,000, so the people are written directly.
	if _, err := s.Store.DB.ExecContext(ctx, `
		INSERT INTO users (username, email, password_hash, created_at)
		SELECT 'wave' || i, 'wave' || i || '@example.com', 'x', now() FROM generate_series(1, $1) AS i`, players); err != nil {
		b.Fatal(err)
	}
	if err := s.App.Moderation.Grant(ctx, "wave1", true); err != nil {
		b.Fatal(err)
	}
	var ids []int64
	if err := s.Store.DB.SelectContext(ctx, &ids, `SELECT id FROM users WHERE username LIKE 'wave%' ORDER BY id`); err != nil {
		b.Fatal(err)
	}
	users := make([]db.User, len(ids))
	for i, id := range ids {
		u, err := s.Store.UserByID(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		users[i] = u
	}
	host := users[0]
	// arena makes an event whose start has come, with every person in it.
	arena := func(n int) int64 {
		in := tournaments.Input{Kind: db.KindArena, Name: fmt.Sprintf("Wave %d", n), TableSize: 4, Minutes: 180, GameRounds: 1,
			Variant: "standard", Pace: "live", TurnSeconds: 30, StartsAt: s.Clock.Now().Add(61 * time.Second), MaxPlayers: players}
		id, err := s.App.Tournaments.Create(ctx, host, in)
		if err != nil {
			b.Fatal(err)
		}
		for _, u := range users {
			if err := s.App.Tournaments.Join(ctx, u, id, ""); err != nil {
				b.Fatal(err)
			}
		}
		s.Clock.Advance(62 * time.Second)
		return id
	}
	n := 0
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		n++
		id := arena(n)
		b.StartTimer()
		steps, err := s.App.Tournaments.RunDue(ctx)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		var seated int
		if err := s.Store.DB.GetContext(ctx, &seated, `SELECT count(*) FROM tournament_games WHERE tournament_id = $1`, id); err != nil {
			b.Fatal(err)
		}
		if steps != 1 || seated != players/4 {
			b.Fatalf("RunDue made %d steps and seated %d tables; want 1 step and %d tables", steps, seated, players/4)
		}
		b.StartTimer()
	}
}
