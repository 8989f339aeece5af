package fairplay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"nothanks/internal/analysis"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/fairplay"
	"nothanks/internal/games"
)

// report plays one four-player game with the rule bot and analyses it
// (200 playouts a decision), for the stored games' analyses.
func report(tb testing.TB) []byte {
	tb.Helper()
	o := engine.Options{Players: 4, Rounds: 1, Variant: engine.Standard}
	setup := engine.SetupFromSeed(o, 7)
	g, err := engine.NewFromSetup(o, setup)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var actions []engine.Action
	for !g.Finished() {
		v := g.View(g.View(0).Turn)
		a := engine.Action{Seat: v.Viewer, Kind: bot.RuleBot{}.Decide(v, rng)}
		if err := g.Apply(a); err != nil {
			tb.Fatal(err)
		}
		actions = append(actions, a)
	}
	r, err := analysis.Analyse(analysis.Game{ID: 1, Options: o, Setup: setup, Actions: actions, Judge: []bool{true, true, true, true}}, 200)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// seed stores n finished rated games of four among people accounts
// (seated at random from the population), each with its rating changes
// and analysis, and a seating pool per game; it returns the games' ids.
func seed(tb testing.TB, store *db.Store, people, n int) []int64 {
	tb.Helper()
	ctx := context.Background()
	rep := report(tb)
	now := time.Now()
	if _, err := store.DB.ExecContext(ctx, `
		INSERT INTO users (username, email, password_hash, created_at)
		SELECT 'p' || i, 'p' || i || '@example.com', '!', $2 FROM generate_series(1, $1) i`, people, now); err != nil {
		tb.Fatal(err)
	}
	var first int64
	if err := store.DB.GetContext(ctx, &first, `SELECT min(id) FROM users`); err != nil {
		tb.Fatal(err)
	}
	const batch = 5000
	var ids []int64
	for done := 0; done < n; done += batch {
		k := min(batch, n-done)
		var got []int64
		// Each game seats four distinct accounts drawn from a window of the
		// population, so pairs meet again and again.
		err := store.DB.SelectContext(ctx, &got, `
			WITH g AS (
				INSERT INTO games (creator_id, status, options, seats, public, invite_code, ranked, pace, turn_seconds, seed, created_at, updated_at, finished_at)
				SELECT $1, 'finished', '{"players":4,"rounds":1,"variant":"standard"}', 4, true, md5(random()::text || i), true, 'live', 60, i, $3, $3, $3
				FROM generate_series(1, $2) i RETURNING id
			) SELECT id FROM g ORDER BY id`, first, k, now)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := store.DB.ExecContext(ctx, `
			WITH s AS (
				SELECT g.id AS game_id, s.seat, $2::bigint + ((g.id * 7 + s.seat * 13) % $3) AS user_id
				FROM unnest($1::bigint[]) AS g (id), generate_series(0, 3) AS s (seat)
			), ins AS (
				INSERT INTO game_seats (game_id, seat, user_id, joined_at, place, total)
				SELECT game_id, seat, user_id, $4, seat + 1, 10 * seat FROM s RETURNING game_id, user_id, place
			), rc AS (
				INSERT INTO rating_changes (user_id, game_id, before, after, place, players, created_at)
				SELECT user_id, game_id, 1500, 1500 + (2.5 - place) * 10, place, 4, $4 FROM ins RETURNING game_id
			)
			INSERT INTO analyses (game_id, status, report, created_at, finished_at)
			SELECT DISTINCT game_id, 'done', $5::jsonb, $4, $4 FROM rc`,
			pqArray(got), first, people, now, string(rep)); err != nil {
			tb.Fatal(err)
		}
		if _, err := store.DB.ExecContext(ctx, `
			INSERT INTO seating_pools (members, chance, at)
			SELECT (SELECT array_agg(user_id) FROM game_seats WHERE game_id = g.id), 1, $2 FROM unnest($1::bigint[]) AS g (id)`, pqArray(got), now); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, got...)
	}
	return ids
}

func pqArray(ids []int64) string {
	b := []byte("{")
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", id)
	}
	return string(append(b, '}'))
}

// BenchmarkGameSignals times adding one finished rated game of four to
// the signals (six pairs), in a database holding 2,000 games among 200
// people: go test -run '^$' -bench GameSignals ./internal/fairplay/
func BenchmarkGameSignals(b *testing.B) {
	store := dbtest.New(b)
	ids := seed(b, store, 200, 2000)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := fairplay.New(store, games.New(store, clock.Real{}, log), clock.Real{}, log, []byte("key"), nil)
	ctx := context.Background()
	// The first half are signals already; the rest are added one by one.
	for _, id := range ids[:1000] {
		enqueue(b, store, id)
		if err := s.Process(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	i := 1000
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		id := ids[i%len(ids)]
		i++
		if _, err := store.DB.ExecContext(ctx, `DELETE FROM fairplay_jobs WHERE game_id = $1`, id); err != nil {
			b.Fatal(err)
		}
		enqueue(b, store, id)
		b.StartTimer()
		if err := s.Process(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

func enqueue(tb testing.TB, store *db.Store, id int64) {
	tb.Helper()
	if _, err := store.DB.ExecContext(context.Background(), `INSERT INTO fairplay_jobs (game_id, created_at) VALUES ($1, now())`, id); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRebuild times working every pair's signals out again from
// 100,000 stored rated games of four among 2,000 people:
// go test -run '^$' -bench Rebuild -benchtime 1x -timeout 30m ./internal/fairplay/
func BenchmarkRebuild(b *testing.B) {
	store := dbtest.New(b)
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("FAIRPLAY_REBUILD_GAMES")); err == nil && v > 0 {
		n = v // a smaller run first (FAIRPLAY_REBUILD_GAMES=10000)
	}
	seed(b, store, 2000, n)
	var size int
	if err := store.DB.Get(&size, `SELECT avg(length(report::text))::int FROM analyses`); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d games, analyses of %d bytes each", n, size)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := fairplay.New(store, games.New(store, clock.Real{}, log), clock.Real{}, log, []byte("key"), nil)
	b.ResetTimer()
	for b.Loop() {
		g, p, err := s.Rebuild(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if g != n {
			b.Fatalf("rebuilt %d games, want %d", g, n)
		}
		b.ReportMetric(float64(p), "pairs")
	}
}
