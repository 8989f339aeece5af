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

// BenchmarkArenaWave1000 times one wave of a running 1,000-player arena at
// tables of four: some tables end (the test ends them directly, outside
// the timer), their players wait longer than a wave waits, and the step
// that seats them runs. free=1000 is every player free at once (the
// largest wave there can be); free=100 a wave as they come in a running
// arena, 25 tables ending within a couple of seconds.
func BenchmarkArenaWave1000(b *testing.B) {
	const players = 1000
	s := apptest.New(b, apptest.WithoutWorkers())
	ctx := context.Background()
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
	host, err := s.Store.UserByID(ctx, ids[0])
	if err != nil {
		b.Fatal(err)
	}
	in := tournaments.Input{Kind: db.KindArena, Name: "Waves", TableSize: 4, Minutes: 180, GameRounds: 1,
		Variant: "standard", Pace: "live", TurnSeconds: 30, StartsAt: s.Clock.Now().Add(61 * time.Second), MaxPlayers: players}
	id, err := s.App.Tournaments.Create(ctx, host, in)
	if err != nil {
		b.Fatal(err)
	}
	for _, uid := range ids {
		u, err := s.Store.UserByID(ctx, uid)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.App.Tournaments.Join(ctx, u, id, ""); err != nil {
			b.Fatal(err)
		}
	}
	s.Clock.Advance(62 * time.Second)
	if _, err := s.App.Tournaments.RunDue(ctx); err != nil { // the start and the first wave
		b.Fatal(err)
	}
	for _, free := range []int{1000, 100} {
		b.Run(fmt.Sprintf("free=%d", free), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				// free/4 tables end; their players are free and have waited
				// longer than a wave waits.
				if _, err := s.Store.DB.ExecContext(ctx, `
					WITH done AS (
						UPDATE tournament_games SET finished = true WHERE game_id IN (
							SELECT game_id FROM tournament_games WHERE tournament_id = $1 AND NOT finished ORDER BY game_id LIMIT $2)
						RETURNING game_id),
					g AS (UPDATE games SET status = 'finished', due_at = NULL, turn_user_id = NULL WHERE id IN (SELECT game_id FROM done) RETURNING id)
					UPDATE tournament_players SET game_id = NULL, free_since = now() - interval '1 minute'
					WHERE tournament_id = $1 AND game_id IN (SELECT id FROM g)`, id, free/4); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Store.DB.ExecContext(ctx, `UPDATE tournaments SET due_at = now() - interval '1 second' WHERE id = $1`, id); err != nil {
					b.Fatal(err)
				}
				var before int
				if err := s.Store.DB.GetContext(ctx, &before, `SELECT count(*) FROM tournament_games WHERE tournament_id = $1`, id); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				steps, err := s.App.Tournaments.RunDue(ctx)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				var after int
				if err := s.Store.DB.GetContext(ctx, &after, `SELECT count(*) FROM tournament_games WHERE tournament_id = $1`, id); err != nil {
					b.Fatal(err)
				}
				if steps != 1 || after-before != free/4 {
					b.Fatalf("RunDue made %d steps and seated %d tables; want 1 step and %d tables", steps, after-before, free/4)
				}
				b.StartTimer()
			}
		})
	}
}
