package handlers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// apiGame starts a 3-player, 10-round game between three API users and
// returns, per seat, the client holding it.
func apiGame(b *testing.B, s *apptest.Server, n int) []*apptest.API {
	return apiGameAt(b, s, n, "correspondence")
}

// apiGameAt is apiGame at a pace: live (a five-minute timer) or
// correspondence (seven days).
func apiGameAt(b *testing.B, s *apptest.Server, n int, pace string) []*apptest.API {
	players := []*apptest.API{s.APIFor(fmt.Sprintf("ann%d", n)), s.APIFor(fmt.Sprintf("ben%d", n)), s.APIFor(fmt.Sprintf("cat%d", n))}
	timer := 7 * 24 * 3600
	if pace == "live" {
		timer = 300
	}
	status, g := players[0].Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 10, "variant": "standard", "pace": pace, "turn_seconds": timer})
	if status != http.StatusCreated {
		b.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	for _, p := range players[1:] {
		if st, body := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); st != http.StatusOK {
			b.Fatalf("join: %d %v", st, body)
		}
	}
	bySeat := make([]*apptest.API, 3)
	for _, p := range players {
		_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
		bySeat[int(v["your_seat"].(float64))] = p
		p.Game = id
	}
	return bySeat
}

// BenchmarkAPIMoves measures moves per second through the JSON API (each
// op: one POST take or pass, answered with the mover's view) with several
// games played at once, each by its own goroutine.
func BenchmarkAPIMoves(b *testing.B) {
	for _, games := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("games=%d", games), func(b *testing.B) {
			s := apptest.New(b)
			tables := make([][]*apptest.API, games)
			for i := range tables {
				tables[i] = apiGame(b, s, i)
			}
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ResetTimer()
			var wg sync.WaitGroup
			for _, seats := range tables {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, view := seats[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", seats[0].Game), nil)
					for left.Add(-1) >= 0 {
						v := view["view"].(map[string]any)
						if view["status"] != "playing" {
							return
						}
						turn := int(v["turn"].(float64))
						kind := "pass"
						if int(v["pot"].(float64)) >= 2 {
							kind = "take"
						}
						p := seats[turn]
						status, next := p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", p.Game, kind), map[string]any{"version": v["version"]})
						if status == http.StatusUnprocessableEntity { // no tokens left: must take
							status, next = p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/take", p.Game), map[string]any{"version": v["version"]})
						}
						if status != http.StatusOK {
							b.Errorf("%s: %d %v", kind, status, next)
							return
						}
						view = next
					}
				}()
			}
			wg.Wait()
		})
	}
}

// BenchmarkBoardRequest measures the server's time to answer a player's
// board request mid-game: load the game, replay it, project and render.
func BenchmarkBoardRequest(b *testing.B) {
	s := apptest.New(b)
	seats := apiGame(b, s, 0)
	id := seats[0].Game
	_, view := seats[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
	for range 120 {
		v := view["view"].(map[string]any)
		p := seats[int(v["turn"].(float64))]
		kind := "pass"
		if int(v["pot"].(float64)) >= 2 {
			kind = "take"
		}
		_, view = p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", id, kind), map[string]any{"version": v["version"]})
	}
	c := s.Client()
	c.Login("ann0", apptest.Password)
	path := fmt.Sprintf("/games/%d/board", id)
	b.ResetTimer()
	for b.Loop() {
		if res := c.Get(path); res.Status != http.StatusOK {
			b.Fatalf("board: %d", res.Status)
		}
	}
}

// BenchmarkIdleStreamMemory measures what an idle spectator stream costs
// the server: the Go heap and stacks in use per open stream, after a
// collection. The clients are bare TCP connections that send the request
// and never read (the first board waits in the kernel's buffers), so that
// nearly all of the memory counted is the server's.
func BenchmarkIdleStreamMemory(b *testing.B) {
	s := apptest.New(b, apptest.WithoutWorkers())
	seats := apiGame(b, s, 0)
	u, _ := url.Parse(s.URL)
	req := []byte(fmt.Sprintf("GET /games/%d/events HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", seats[0].Game, u.Host))
	const n = 1000
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		conns := make([]net.Conn, 0, n)
		for range n {
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := conn.Write(req); err != nil {
				b.Fatal(err)
			}
			conns = append(conns, conn)
		}
		for s.App.Watch.Stats().Streams < n {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		runtime.GC()
		runtime.ReadMemStats(&after)
		used := int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)
		b.ReportMetric(float64(used)/n, "B/stream")
		for _, c := range conns {
			c.Close()
		}
		for s.App.Watch.Stats().Streams > 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// BenchmarkAPIGameStreamFanOut measures a move reaching the API game
// streams that follow it (each op: one POST, then every stream reads the
// line of the new version), and the hub's drawings per move: one per
// distinct view, whatever the number of streams.
func BenchmarkAPIGameStreamFanOut(b *testing.B) {
	for _, streams := range []int{1, 200} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			s := apptest.New(b)
			seats := apiGame(b, s, 0)
			path := fmt.Sprintf("/api/v1/games/%d", seats[0].Game)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Spectators, four streams each (a token holds up to 16).
			var watchers []*apptest.API
			for i := 0; len(watchers)*4 < streams; i++ {
				watchers = append(watchers, s.APIFor(fmt.Sprintf("watcher%d", i)))
			}
			seen := make(chan float64, streams*4)
			for i := range streams {
				lines := watchers[i/4].Stream(ctx, path+"/stream")
				lines.Next("game")
				go func() {
					for {
						m, _, err := lines.Read()
						if err != nil {
							return
						}
						if m["type"] == "game" {
							seen <- m["game"].(map[string]any)["version"].(float64)
						}
					}
				}()
			}
			_, view := seats[0].Do(http.MethodGet, path, nil)
			before := s.App.Watch.Stats().Renders
			b.ResetTimer()
			for range b.N {
				v := view["view"].(map[string]any)
				kind := "pass"
				if int(v["pot"].(float64)) >= 2 {
					kind = "take"
				}
				p := seats[int(v["turn"].(float64))]
				status, next := p.Do(http.MethodPost, path+"/"+kind, map[string]any{"version": v["version"]})
				if status == http.StatusUnprocessableEntity {
					status, next = p.Do(http.MethodPost, path+"/take", map[string]any{"version": v["version"]})
				}
				if status != http.StatusOK || next["status"] != "playing" {
					b.Fatalf("%s: %d %v", kind, status, next["status"])
				}
				want := next["version"].(float64)
				for got := 0; got < streams; {
					if <-seen == want {
						got++
					}
				}
				view = next
			}
			b.StopTimer()
			b.ReportMetric(float64(s.App.Watch.Stats().Renders-before)/float64(b.N), "drawings/move")
		})
	}
}

// BenchmarkAPIMoveHandler is one API move served in the process, without
// a network or a client: the request goes to the server's handler (every
// middleware, the token check, the engine, the write to Postgres, the
// answer's projection and JSON) and only that is timed and counted, so
// that -benchmem gives the server's own allocations per move:
//
//	go test -run '^$' -bench APIMoveHandler -benchmem -count 5 ./internal/handlers/
func BenchmarkAPIMoveHandler(b *testing.B) {
	for _, pace := range []string{"live", "correspondence"} {
		b.Run("pace="+pace, func(b *testing.B) { benchMoveHandler(b, pace) })
	}
}

func benchMoveHandler(b *testing.B, pace string) {
	s := apptest.New(b, apptest.WithoutWorkers())
	seats := apiGameAt(b, s, 0, pace)
	_, view := seats[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", seats[0].Game), nil)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if view["status"] != "playing" {
			seats = apiGameAt(b, s, rand.IntN(1<<30), pace)
			_, view = seats[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", seats[0].Game), nil)
		}
		v := view["view"].(map[string]any)
		p := seats[int(v["turn"].(float64))]
		kind := "pass"
		if int(v["pot"].(float64)) >= 2 {
			kind = "take"
		}
		move := func(kind string) *httptest.ResponseRecorder {
			body := fmt.Sprintf(`{"version":%d}`, int(v["version"].(float64)))
			req := httptest.NewRequest(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", p.Game, kind), strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+p.Token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept-Encoding", "gzip")
			rec := httptest.NewRecorder()
			b.StartTimer()
			s.App.Handler.ServeHTTP(rec, req)
			b.StopTimer()
			return rec
		}
		rec := move(kind)
		if rec.Code == http.StatusUnprocessableEntity && kind == "pass" { // no tokens left: must take
			rec = move("take")
		}
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", kind, rec.Code, rec.Body)
		}
		// The next mover reads the game as it is now (not timed).
		_, view = seats[0].Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", p.Game), nil)
		b.StartTimer()
	}
	b.ReportMetric(float64(s.App.Games.KeptMoves())/float64(b.N), "kept/op")
}
