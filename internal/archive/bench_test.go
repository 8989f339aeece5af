package archive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/games"
	"nothanks/internal/notation"
)

// The month BenchmarkMonthFile100k makes: a busy month of the site.
const (
	benchGames     = 100_000
	benchTemplates = 64    // distinct games the month's games are copies of
	benchPlayers   = 5_000 // accounts seated in them
)

// BenchmarkMonthFile100k times making one month's file of the open
// database, target under a minute: 100,000 finished public games of the
// site's usual kind (4 rounds, 3 to 5 seats, one in three ranked, half the
// others with a bot), each read from Postgres in batches, replayed,
// written in the notation, gzipped and stored in chunks.
//
// The games are copies of 64 games the bots played, each copy with its own
// id, date, seats and ratings; the copies of one game lie 64 games apart in
// the file, far past gzip's 32 KB window, so the file compresses as games
// that all differ would (one game copied next to itself would compress to
// almost nothing).
//
// RunOnce is the whole path as the background work runs it (discover,
// claim, make, save); split goes over the month again the way MakeMonth
// does, timing the reads from Postgres and the gzip apart (text is the
// rest: decoding, replaying, writing the notation).
//
//	go test -run '^$' -bench MonthFile100k -benchtime 1x -timeout 30m ./internal/archive/
func BenchmarkMonthFile100k(b *testing.B) {
	store := dbtest.New(b)
	ctx := context.Background()
	month := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Now()
	moves := seedMonth(b, store, month)
	b.Logf("seeded %d games, %d moves in %s", benchGames, moves, time.Since(start).Round(time.Second))

	clk := clock.NewFake(month.AddDate(0, 1, 2))
	log := slog.New(slog.DiscardHandler)
	s := New(store, games.New(store, clk, log), clk, log, "https://nothanks.example")

	b.Run("RunOnce", func(b *testing.B) {
		first := true
		for b.Loop() {
			if !first { // make the month again
				b.StopTimer()
				if _, err := store.DB.ExecContext(ctx, `UPDATE archive_months SET status = 'pending', attempts = 0, claim = claim + 1`); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			first = false
			if n, err := s.RunOnce(ctx); err != nil || n != 1 {
				b.Fatalf("RunOnce made %d files: %v", n, err)
			}
		}
		m, err := store.ArchiveMonthOf(ctx, month)
		if err != nil {
			b.Fatal(err)
		}
		if m.Games != benchGames || m.Rated != benchGames/3 {
			b.Fatalf("the file holds %d games, %d rated; want %d, %d", m.Games, m.Rated, benchGames, benchGames/3)
		}
		checkFirstGame(b, store, month)
		b.ReportMetric(float64(m.Bytes)/1e6, "file-MB")
		b.ReportMetric(float64(m.Bytes)/float64(m.Games), "B/game")
	})

	b.Run("split", func(b *testing.B) {
		for b.Loop() {
			sp := split(b, s, month)
			b.ReportMetric(sp.read.Seconds(), "read-s")
			b.ReportMetric(sp.text.Seconds(), "text-s")
			b.ReportMetric(sp.gzip.Seconds(), "gzip-s")
			b.ReportMetric(float64(sp.textBytes)/1e6, "text-MB")
		}
	})
}

// times is where a month's file spends its time.
type times struct {
	read, text, gzip time.Duration
	textBytes        int64
}

// split makes the month's file as MakeMonth and each do (the same batches,
// the same writers), timing apart the reads from Postgres (ArchiveGames)
// and what the gzip writer and those under it take.
func split(b *testing.B, s *Service, month time.Time) times {
	b.Helper()
	ctx := context.Background()
	var t times
	total := time.Now()
	ch := &chunker{}
	zw, err := gzip.NewWriterLevel(io.MultiWriter(ch, sha256.New()), gzip.DefaultCompression)
	if err != nil {
		b.Fatal(err)
	}
	tw := &timedWriter{w: zw}
	bw := bufio.NewWriterSize(tw, 64<<10)
	q := db.ArchiveQuery{From: month, To: month.AddDate(0, 1, 0), Limit: 500}
	n := 0
	for {
		at := time.Now()
		gs, err := s.store.ArchiveGames(ctx, q)
		t.read += time.Since(at)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range gs {
			if err := s.write(bw, g, n > 0); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if len(gs) < q.Limit {
			break
		}
		last := gs[len(gs)-1].Game
		q.AfterFinished, q.AfterID = *last.FinishedAt, last.ID
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	at := time.Now()
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	tw.took += time.Since(at)
	if n != benchGames {
		b.Fatalf("wrote %d games, want %d", n, benchGames)
	}
	t.gzip, t.textBytes = tw.took, tw.n
	t.text = time.Since(total) - t.read - t.gzip
	return t
}

// timedWriter counts the time and bytes written through it.
type timedWriter struct {
	w    io.Writer
	took time.Duration
	n    int64
}

func (t *timedWriter) Write(p []byte) (int, error) {
	at := time.Now()
	n, err := t.w.Write(p)
	t.took += time.Since(at)
	t.n += int64(n)
	return n, err
}

// checkFirstGame reads the first game back from the stored file: the
// chunks hold a gzipped notation file.
func checkFirstGame(b *testing.B, store *db.Store, month time.Time) {
	b.Helper()
	chunk, ok, err := store.ArchiveChunk(context.Background(), month, 0)
	if err != nil || !ok {
		b.Fatalf("first chunk: %v, %v", ok, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(chunk))
	if err != nil {
		b.Fatal(err)
	}
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(zr, head)
	if err != nil {
		b.Fatal(err)
	}
	text, _, _ := strings.Cut(string(head[:n]), "\n\n[Site")
	if _, err := notation.Parse(strings.NewReader(text)); err != nil {
		b.Fatalf("the file's first game does not read back: %v\n%s", err, text)
	}
}

// template is a game the bots played, as the site stores it.
type template struct {
	seed                      int64
	options                   engine.Options
	version                   int
	moves                     []db.Move
	totals, places, decisions []int
}

// playTemplate plays game t of the templates: 3 to 5 seats (4 most
// often), 4 rounds (the site's default and ranked games'), a mix of bots
// weak and careful so that the games hold runs, long auctions and
// mistakes. Its moves are the rows the games service writes (seq is the
// version after the move, pot the tokens on the card).
func playTemplate(b *testing.B, t int) template {
	b.Helper()
	rng := rand.New(rand.NewPCG(uint64(t), 0xa2c))
	o := engine.Options{Players: []int{3, 4, 4, 5}[t%4], Rounds: engine.RecommendedRounds, Variant: engine.Standard}
	lineup := []bot.Bot{bot.HeuristicBot{}, bot.RuleBot{}, bot.RuleBot{Sharp: true}, bot.RandomBot{}}
	bots := make([]bot.Bot, o.Players)
	for i := range bots {
		bots[i] = lineup[rng.IntN(len(lineup))]
	}
	tp := template{seed: int64(1000 + t), options: o}
	eg, err := engine.New(o, uint64(tp.seed))
	if err != nil {
		b.Fatal(err)
	}
	for !eg.Finished() {
		seat := eg.Turn()
		kind := bots[seat].Decide(eg.View(seat), rng)
		before := len(eg.Events())
		if err := eg.Apply(engine.Action{Seat: seat, Kind: kind}); err != nil {
			b.Fatal(err)
		}
		for _, e := range eg.Events()[before:] {
			if e.Kind == engine.EventPass || e.Kind == engine.EventTake {
				tp.moves = append(tp.moves, db.Move{Seq: eg.Version(), Round: e.Round, Seat: e.Seat, Kind: string(kind), Card: e.Card, Pot: e.Tokens})
			}
		}
	}
	tp.version, tp.totals, tp.places = eg.Version(), eg.Totals(), eg.Placings()
	for i := range o.Players {
		tp.decisions = append(tp.decisions, eg.Decisions(i))
	}
	// The archive must replay it as the site would.
	raw, _ := json.Marshal(o)
	if _, _, err := Rebuild(db.Game{ID: int64(t), Options: raw, Seats: o.Players, Seed: tp.seed, Version: eg.Version()}, tp.moves); err != nil {
		b.Fatal(err)
	}
	return tp
}

// seedMonth fills store with the month's games, one bulk statement per
// table in one transaction: the players, the templates and their moves
// (bench_ tables of the throwaway database), then the games, seats, moves
// and rating changes copied from them; then it vacuums and analyzes as
// autovacuum would have. Game n (1 to 100,000) is a copy of template
// n mod 64 and ends n × 26 s into the month. It returns how many moves it
// wrote.
func seedMonth(b *testing.B, store *db.Store, month time.Time) int64 {
	b.Helper()
	ctx := context.Background()
	var (
		ts, versions                       []int
		seeds                              []int64
		options, totals, places, decisions []string
		mt, seq, round, seat, card, pot    []int
		kind                               []string
	)
	asJSON := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		return string(raw)
	}
	for t := range benchTemplates {
		tp := playTemplate(b, t)
		ts, seeds, versions = append(ts, t), append(seeds, tp.seed), append(versions, tp.version)
		options, totals, places, decisions = append(options, asJSON(tp.options)), append(totals, asJSON(tp.totals)),
			append(places, asJSON(tp.places)), append(decisions, asJSON(tp.decisions))
		for _, m := range tp.moves {
			mt, seq, round, seat, kind, card, pot = append(mt, t), append(seq, m.Seq), append(round, m.Round), append(seat, m.Seat),
				append(kind, m.Kind), append(card, m.Card), append(pot, m.Pot)
		}
	}
	b.Logf("templates: %.0f moves a game on average", float64(len(mt))/benchTemplates)

	tx, err := store.DB.BeginTxx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck
	steps := []struct {
		what string
		sql  string
		args []any
	}{
		{"players", `
			INSERT INTO users (username, email, password_hash, created_at, rating)
			SELECT 'player' || i, 'player' || i || '@example.com', 'x', $1::timestamptz - interval '1 year', 1500
			FROM generate_series(1, $2::int) i`,
			[]any{month, benchPlayers}},
		{"templates", `
			CREATE TABLE bench_templates AS
			SELECT * FROM unnest($1::int[], $2::bigint[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[])
				AS v(t, seed, options, version, totals, places, decisions)`,
			[]any{pq.Array(ts), pq.Array(seeds), pq.Array(options), pq.Array(versions), pq.Array(totals), pq.Array(places), pq.Array(decisions)}},
		{"template moves", `
			CREATE TABLE bench_template_moves AS
			SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::text[], $6::int[], $7::int[])
				AS v(t, seq, round, seat, kind, card, pot)`,
			[]any{pq.Array(mt), pq.Array(seq), pq.Array(round), pq.Array(seat), pq.Array(kind), pq.Array(card), pq.Array(pot)}},
		// Every third game is ranked; the player of seat 0 made it.
		{"games", `
			INSERT INTO games (creator_id, status, options, seats, public, invite_code, ranked, pace, turn_seconds, seed, version,
				created_at, started_at, finished_at, updated_at)
			SELECT u.id, 'finished', tp.options::jsonb, (tp.options::jsonb->>'players')::int, true, 'bench' || n, n % 3 = 0, 'live', 60,
				tp.seed, tp.version, f - interval '27 minutes', f - interval '25 minutes', f, f
			FROM generate_series(1, $2::int) n
			CROSS JOIN LATERAL (SELECT $1::timestamptz + n * interval '26 seconds' AS f) f
			JOIN bench_templates tp ON tp.t = n % $3::int
			JOIN users u ON u.username = 'player' || (1 + 5 * n % $4::int)`,
			[]any{month, benchGames, benchTemplates, benchPlayers}},
		// Seat k of game n is player 1 + (5n + k) mod 5,000, all distinct;
		// the last seat of every other unranked game is a bot.
		{"seats", `
			INSERT INTO game_seats (game_id, seat, user_id, bot_level, bot_number, joined_at, total, place, decisions)
			SELECT g.id, k, CASE WHEN NOT s.is_bot THEN u.id END, CASE WHEN s.is_bot THEN 'heuristic' END, CASE WHEN s.is_bot THEN k + 1 END,
				g.created_at, (tp.totals::jsonb->>k)::int, (tp.places::jsonb->>k)::int, (tp.decisions::jsonb->>k)::int
			FROM (SELECT id, seed, seats, ranked, created_at, row_number() OVER (ORDER BY id) AS n FROM games) g
			JOIN bench_templates tp ON tp.seed = g.seed
			CROSS JOIN LATERAL generate_series(0, g.seats - 1) k
			CROSS JOIN LATERAL (SELECT NOT g.ranked AND g.n % 2 = 0 AND k = g.seats - 1 AS is_bot) s
			JOIN users u ON u.username = 'player' || (1 + (5 * g.n + k) % $1::int)`,
			[]any{benchPlayers}},
		// The moves in the order they were played: a game's 328 moves over
		// its 25 minutes, the moves of the 58 games in play at a time
		// interleaved in the heap as on the site, so that reading a game's
		// moves touches a page for every move or two (written game by game,
		// they would lie together; written in template order, every move
		// on its own page: ten times slower to read).
		{"sort room", `SET LOCAL work_mem = '256MB'`, nil},
		{"moves", `
			INSERT INTO moves (game_id, seq, round, seat, kind, card, pot, timeout, created_at)
			SELECT g.id, m.seq, m.round, m.seat, m.kind, m.card, m.pot, false, g.started_at + (g.finished_at - g.started_at) * m.seq / tp.version AS at
			FROM games g JOIN bench_templates tp ON tp.seed = g.seed JOIN bench_template_moves m ON m.t = tp.t
			ORDER BY at, g.id, m.seq`,
			nil},
		{"rating changes", `
			INSERT INTO rating_changes (user_id, game_id, before, after, place, players, created_at)
			SELECT s.user_id, g.id, 1350 + s.user_id % 300, 1350 + s.user_id % 300 + 12 - 6 * s.place, s.place, g.seats, g.finished_at
			FROM games g JOIN game_seats s ON s.game_id = g.id
			WHERE g.ranked`,
			nil},
	}
	for _, st := range steps {
		at := time.Now()
		if _, err := tx.ExecContext(ctx, st.sql, st.args...); err != nil {
			b.Fatalf("seed %s: %v", st.what, err)
		}
		b.Logf("seed %s: %s", st.what, time.Since(at).Round(time.Millisecond))
	}
	var n int64
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM moves`); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := store.DB.ExecContext(ctx, `VACUUM ANALYZE users, games, game_seats, moves, rating_changes`); err != nil {
		b.Fatal(err)
	}
	return n
}
