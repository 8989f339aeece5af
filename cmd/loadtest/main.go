// Command loadtest measures a running No Thanks! server from outside, the
// way its users load it: players making moves through the JSON API, and
// spectators watching one game over server-sent events.
//
//	loadtest -url http://localhost:8080 -games 8 -duration 30s
//	    N games played at once as fast as the server answers: moves/s and
//	    move latency p50/p99.
//	loadtest -url http://localhost:8080 -games 200 -pace 2s-5s -duration 60s
//	    N games at a human pace (a move every 2 to 5 s each): move latency.
//	loadtest -url http://localhost:8080,http://localhost:8081 -watchers 1000 -pids 1234,5678
//	    one game watched by K visitors (split over the servers given):
//	    delivery delay of each move to every spectator p50/p99/max, the
//	    mover's latency with and without the watchers, and server memory
//	    per open stream (from /proc, for the server processes given).
//	loadtest ... -pgbench postgres://postgres@127.0.0.1:5432/pgbench
//	    also runs `pgbench -N` at the same concurrency (-games) on that
//	    database, right after the moves, and prints the ratio.
//	loadtest -url http://localhost:8080 -games 8 -pids 1234
//	    also prints the server processes' CPU time per move (from
//	    /proc/PID/stat) over the run.
//	loadtest -url http://localhost:8080 -arena 30 -duration 90s -host-token nt_... [-table-size 4] [-pace 1s-3s]
//	    an arena of N players, made by the host (a moderator) to start 65 s
//	    later and measured for D from its first table: each player asks its
//	    /me every 250-500 ms while free and plays its table as fast as
//	    answered (with -pace, a pause of MIN-MAX before each decision). Tables seated, games finished, moves made, and the seat
//	    wait (a game's end to the next table on /me) p50/p99/max; the
//	    first tables at the start are no wait. Afterwards the players
//	    withdraw.
//	loadtest ... -arena 30 -tournament-watchers 200 [-metrics-token T]
//	loadtest -url ... -tournament-watchers 200 -tournament ID -duration 60s
//	    K visitors on an event page's stream (split over the servers),
//	    while the arena is played (or whoever plays event ID): each new
//	    version of the standings reaches the streams how long after the
//	    first stream that got it, p50/p99/max, and how many versions were
//	    sent; memory per stream as with -watchers.
//	loadtest -url http://localhost:8080 -make-host NAME
//	    registers NAME and prints its API token and how to make it a
//	    moderator (cmd/web admin grant NAME): the host -arena needs.
//
// It creates its own players (registering through the site's form, as a
// person would) and games. It imports nothing of the server's code.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

type config struct {
	urls       []string
	games      int
	duration   time.Duration
	paceMin    time.Duration
	paceMax    time.Duration
	watchers   int
	watchMoves int
	watchEvery time.Duration
	pids       []int
	pgbench    string
	players    int
	metrics    string
	// The tournament modes (tournament.go).
	arena      int
	tableSize  int
	hostToken  string
	tWatchers  int
	tournament int64
	makeHost   string
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	urls := fs.String("url", "http://localhost:8080", "server URL; several, comma-separated, share the spectators")
	games := fs.Int("games", 0, "games played at once through the API (the concurrency)")
	duration := fs.Duration("duration", 30*time.Second, "how long the games are played")
	pace := fs.String("pace", "", "wait between a game's moves, as MIN-MAX (e.g. 2s-5s); empty: as fast as answered")
	watchers := fs.Int("watchers", 0, "spectator streams opened on one game")
	watchMoves := fs.Int("watch-moves", 30, "moves made in the watched game (each phase)")
	watchEvery := fs.Duration("watch-every", 400*time.Millisecond, "time between moves in the watched game")
	pids := fs.String("pids", "", "server process ids, comma-separated: their CPU time per move, resident memory per stream")
	metricsToken := fs.String("metrics-token", "", "the servers' METRICS_TOKEN: memory per stream from their Go heap and stacks")
	pgbench := fs.String("pgbench", "", "a Postgres URL: run pgbench -N there at the same concurrency and compare")
	players := fs.Int("players", 12, "accounts the games are played by (a player sits in many games)")
	arena := fs.Int("arena", 0, "players in an arena played through the API for -duration")
	tableSize := fs.Int("table-size", 4, "the arena's tables: 3, 4 or 5 players")
	hostToken := fs.String("host-token", "", "API token of a moderator, who creates the arena")
	tWatchers := fs.Int("tournament-watchers", 0, "streams opened on the event's page (the arena's, or -tournament's)")
	tournament := fs.Int64("tournament", 0, "the event -tournament-watchers watch when there is no -arena")
	mkHost := fs.String("make-host", "", "register this account, print its API token and how to make it the arena's host")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := config{games: *games, duration: *duration, watchers: *watchers, watchMoves: *watchMoves, watchEvery: *watchEvery,
		pgbench: *pgbench, players: max(*players, 3), metrics: *metricsToken,
		arena: *arena, tableSize: *tableSize, hostToken: *hostToken, tWatchers: *tWatchers, tournament: *tournament, makeHost: *mkHost}
	for _, u := range strings.Split(*urls, ",") {
		if u = strings.TrimRight(strings.TrimSpace(u), "/"); u != "" {
			cfg.urls = append(cfg.urls, u)
		}
	}
	if len(cfg.urls) == 0 {
		return errors.New("-url: give at least one server")
	}
	if *pace != "" {
		lo, hi, ok := strings.Cut(*pace, "-")
		a, err1 := time.ParseDuration(lo)
		b, err2 := time.ParseDuration(hi)
		if !ok || err1 != nil || err2 != nil || a > b {
			return fmt.Errorf("-pace: want MIN-MAX such as 2s-5s, not %q", *pace)
		}
		cfg.paceMin, cfg.paceMax = a, b
	}
	for _, p := range strings.Split(*pids, ",") {
		if p = strings.TrimSpace(p); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil {
				return fmt.Errorf("-pids: %q is not a process id", p)
			}
			cfg.pids = append(cfg.pids, n)
		}
	}
	ctx := context.Background()
	if cfg.makeHost != "" {
		return makeHost(ctx, cfg.urls[0], cfg.makeHost, out)
	}
	if cfg.games == 0 && cfg.watchers == 0 && cfg.arena == 0 && cfg.tWatchers == 0 {
		return errors.New("nothing to do: give -games N, -watchers K, -arena N and/or -tournament-watchers K")
	}
	if cfg.arena > 0 && (cfg.tableSize < 3 || cfg.tableSize > 5 || cfg.arena < cfg.tableSize) {
		return fmt.Errorf("-arena %d -table-size %d: tables seat 3 to 5, and the arena needs at least one table's worth", cfg.arena, cfg.tableSize)
	}
	if cfg.arena > 0 && cfg.hostToken == "" {
		return errors.New(hostHelp(cfg.urls[0]))
	}
	if cfg.tWatchers > 0 && cfg.arena == 0 && cfg.tournament == 0 {
		return errors.New("-tournament-watchers: give the event to watch, -tournament ID, or play one with -arena N")
	}
	fmt.Fprintf(out, "loadtest against %s\n", strings.Join(cfg.urls, ", "))
	if cfg.games > 0 || cfg.watchers > 0 {
		ps, err := makePlayers(ctx, cfg.urls[0], cfg.players)
		if err != nil {
			return err
		}
		if cfg.games > 0 {
			if err := playGames(ctx, cfg, ps, out); err != nil {
				return err
			}
		}
		if cfg.watchers > 0 {
			if err := watchGame(ctx, cfg, ps, out); err != nil {
				return err
			}
		}
	}
	if cfg.arena > 0 || cfg.tWatchers > 0 {
		return runTournament(ctx, cfg, out)
	}
	return nil
}

// httpClient keeps connections to the server alive across requests.
// httpClient drops a connection idle for a minute, before the server does
// (its IdleTimeout is two): a move sent on a connection the server has just
// closed fails with EOF, and a move is not sent twice.
var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1024, MaxIdleConns: 4096, IdleConnTimeout: time.Minute}}

// player is an account with an API token.
type player struct {
	name, token string
}

// makePlayers registers n accounts through the sign-up form and makes each
// an API token on the settings page, as a person would.
func makePlayers(ctx context.Context, base string, n int) ([]player, error) {
	run := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	ps := make([]player, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			name := fmt.Sprintf("lt%s_%d", run, i)
			token, err := register(ctx, base, name)
			if err != nil {
				errs <- fmt.Errorf("make player %s: %w", name, err)
				return
			}
			ps[i] = player{name: name, token: token}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return ps, nil
}

var tokenRe = regexp.MustCompile(`data-testid="new-token">(nt_[A-Za-z0-9_-]+)<`)

func register(ctx context.Context, base, name string) (string, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := func(path string, v url.Values) (*http.Response, []byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin") // as a browser on the site sends
		res, err := c.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		return res, body, err
	}
	pw := "load test password " + name
	res, _, err := form("/register", url.Values{"username": {name}, "email": {name + "@example.invalid"}, "password": {pw}, "confirm": {pw}})
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("register: status %d", res.StatusCode)
	}
	res, body, err := form("/settings/tokens", url.Values{"name": {"loadtest"}})
	if err != nil {
		return "", err
	}
	m := tokenRe.FindSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		return "", fmt.Errorf("create token: status %d, no token on the page", res.StatusCode)
	}
	return string(m[1]), nil
}

// busyRetries is how many times api sends a request again that the server
// turned away as too busy (503), after the Retry-After it gives: 0, a 503
// is an error (the games modes); the arena mode retries, as an app would.
var busyRetries = 0

// busyAnswers counts the 503s api received.
var busyAnswers atomic.Int64

// api sends a JSON API request as p and decodes the answer.
func api(ctx context.Context, base string, p player, method, path string, body any, out any) (int, error) {
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	var res *http.Response
	var raw []byte
	for try := 0; ; try++ {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(ctx, method, base+path, r)
		req.Header.Set("Authorization", "Bearer "+p.token)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		var err error
		if res, err = httpClient.Do(req); err != nil {
			return 0, err
		}
		raw, err = io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return res.StatusCode, err
		}
		if res.StatusCode != http.StatusServiceUnavailable {
			break
		}
		busyAnswers.Add(1)
		if try >= busyRetries {
			break
		}
		wait := time.Second
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return res.StatusCode, ctx.Err()
		case <-time.After(wait):
		}
	}
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: not JSON: %w", method, path, err)
		}
	}
	if res.StatusCode >= 300 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(raw))
	}
	return res.StatusCode, nil
}

// table is the part of a game answer the players need.
type table struct {
	ID       int64  `json:"id"`
	Status   string `json:"status"`
	Version  int    `json:"version"`
	YourSeat *int   `json:"your_seat"`
	View     *struct {
		Version int      `json:"version"`
		Turn    int      `json:"turn"`
		Pot     int      `json:"pot"`
		Legal   []string `json:"legal"`
	} `json:"view"`
}

// game is one game being played by three of the players.
type game struct {
	base  string
	id    int64
	seats map[int]player
	last  table
}

// newGame creates a 3-player game of ten rounds (so that it lasts) with a
// long timer (so that nobody times out) and seats three players.
func newGame(ctx context.Context, base string, ps []player, rng *rand.Rand) (*game, error) {
	idx := rng.Perm(len(ps))[:3]
	var t table
	if _, err := api(ctx, base, ps[idx[0]], http.MethodPost, "/api/v1/games",
		map[string]any{"seats": 3, "rounds": 10, "pace": "live", "turn_seconds": 300}, &t); err != nil {
		return nil, err
	}
	g := &game{base: base, id: t.ID, seats: map[int]player{}}
	for _, i := range idx[1:] {
		if _, err := api(ctx, base, ps[i], http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", t.ID), map[string]any{}, &t); err != nil {
			return nil, err
		}
	}
	for _, i := range idx {
		var mine table
		if _, err := api(ctx, base, ps[i], http.MethodGet, fmt.Sprintf("/api/v1/games/%d", t.ID), nil, &mine); err != nil {
			return nil, err
		}
		g.seats[*mine.YourSeat] = ps[i]
		g.last = mine
	}
	return g, nil
}

// move makes the next move: the player to move takes when there are two or
// more tokens on the card, or must; else says No thanks!. It returns the
// request's latency.
func (g *game) move(ctx context.Context) (time.Duration, error) {
	v := g.last.View
	p := g.seats[v.Turn]
	kind := "pass"
	if v.Pot >= 2 {
		kind = "take"
	}
	path := fmt.Sprintf("/api/v1/games/%d/", g.id)
	start := time.Now()
	var t table
	status, err := api(ctx, g.base, p, http.MethodPost, path+kind, map[string]any{"version": g.last.Version}, &t)
	took := time.Since(start)
	if status == http.StatusUnprocessableEntity && kind == "pass" {
		// No tokens left: this player must take.
		start = time.Now()
		_, err = api(ctx, g.base, p, http.MethodPost, path+"take", map[string]any{"version": g.last.Version}, &t)
		took = time.Since(start)
	}
	if err != nil {
		return took, err
	}
	g.last = t
	return took, nil
}

// playGames plays cfg.games games at once for cfg.duration.
func playGames(ctx context.Context, cfg config, ps []player, out io.Writer) error {
	base := cfg.urls[0]
	ctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	var moves atomic.Int64
	lat := make([][]time.Duration, cfg.games)
	errs := make([]error, cfg.games)
	var wg sync.WaitGroup
	var started time.Time
	ready := make(chan struct{})
	var setup sync.WaitGroup
	setup.Add(cfg.games)
	for i := range cfg.games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			g, err := newGame(context.Background(), base, ps, rng)
			setup.Done()
			if err != nil {
				errs[i] = err
				return
			}
			<-ready
			for ctx.Err() == nil {
				if cfg.paceMax > 0 {
					wait := cfg.paceMin + time.Duration(rng.Int64N(int64(cfg.paceMax-cfg.paceMin)+1))
					select {
					case <-ctx.Done():
						return
					case <-time.After(wait):
					}
				}
				took, err := g.move(ctx)
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					errs[i] = err
					return
				}
				lat[i] = append(lat[i], took)
				moves.Add(1)
				if g.last.Status == "finished" {
					if g, err = newGame(ctx, base, ps, rng); err != nil {
						if ctx.Err() == nil {
							errs[i] = err
						}
						return
					}
				}
			}
		}()
	}
	setup.Wait()
	cpu0 := cpuTime(cfg.pids)
	started = time.Now()
	close(ready)
	wg.Wait()
	elapsed := time.Since(started)
	cpu := cpuTime(cfg.pids) - cpu0
	if err := errors.Join(errs...); err != nil {
		return err
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	rate := float64(moves.Load()) / elapsed.Seconds()
	fmt.Fprintf(out, "moves: %d games at once%s, %d moves in %s: %.0f moves/s; move latency p50 %s, p99 %s\n",
		cfg.games, paceText(cfg), moves.Load(), elapsed.Round(time.Millisecond), rate, pct(all, 50), pct(all, 99))
	if len(cfg.pids) > 0 && moves.Load() > 0 {
		// The games' last moves, cut by the end, are not counted; their
		// CPU is, so the figure is a bound from above.
		fmt.Fprintf(out, "server CPU: %.3f ms a move (%s over %d moves; %.2f cores)\n",
			float64(cpu.Microseconds())/1000/float64(moves.Load()), cpu.Round(time.Millisecond), moves.Load(), cpu.Seconds()/elapsed.Seconds())
	}
	if cfg.pgbench != "" {
		tps, err := runPgbench(cfg.pgbench, cfg.games)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "pgbench -N -c %d: %.0f tps; moves/s ÷ pgbench tps = %.2f\n", cfg.games, tps, rate/tps)
	}
	return nil
}

func paceText(cfg config) string {
	if cfg.paceMax == 0 {
		return ""
	}
	return fmt.Sprintf(" (a move every %s-%s each)", cfg.paceMin, cfg.paceMax)
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// runPgbench runs pgbench's simple-update transaction at c clients for 20 s
// on dbURL, initialising its tables first if they are missing.
func runPgbench(dbURL string, c int) (float64, error) {
	check := exec.Command("psql", dbURL, "-Atc", "SELECT count(*) FROM pgbench_branches")
	if outp, err := check.Output(); err != nil || strings.TrimSpace(string(outp)) == "0" {
		if outp, err := exec.Command("pgbench", "-i", "-q", "-s", "10", dbURL).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("pgbench -i: %v: %s (create the database first: createdb pgbench)", err, outp)
		}
	}
	outp, err := exec.Command("pgbench", "-N", "-n", "-c", strconv.Itoa(c), "-j", "2", "-T", "20", dbURL).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench: %v: %s", err, outp)
	}
	m := tpsRe.FindSubmatch(outp)
	if m == nil {
		return 0, fmt.Errorf("pgbench printed no tps: %s", outp)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

var versionRe = regexp.MustCompile(`data-version="(\d+)"`)

// watchGame opens cfg.watchers spectator streams on one game and measures
// how long each move takes to reach them.
func watchGame(ctx context.Context, cfg config, ps []player, out io.Writer) error {
	rng := rand.New(rand.NewPCG(99, 1))
	g, err := newGame(ctx, cfg.urls[0], ps, rng)
	if err != nil {
		return err
	}
	// The mover's latency with nobody watching.
	alone, err := paceMoves(ctx, g, cfg.watchMoves, cfg.watchEvery, nil)
	if err != nil {
		return err
	}
	before, beforeGo := rss(cfg.pids), goMemory(cfg.urls, cfg.metrics)
	var arrivals sync.Map // version -> *[]time.Time
	record := func(v int, at time.Time) {
		l, _ := arrivals.LoadOrStore(v, &arrivalList{})
		l.(*arrivalList).add(at)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var open sync.WaitGroup
	open.Add(cfg.watchers)
	var failed atomic.Int64
	var closed atomic.Int64
	for i := range cfg.watchers {
		base := cfg.urls[i%len(cfg.urls)]
		go func() {
			first := true
			defer func() {
				if first {
					open.Done()
				}
			}()
			req, _ := http.NewRequestWithContext(sctx, http.MethodGet, fmt.Sprintf("%s/games/%d/events", base, g.id), nil)
			req.Header.Set("Accept", "text/event-stream")
			res, err := streamClient.Do(req)
			if err != nil {
				failed.Add(1)
				return
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				failed.Add(1)
				return
			}
			r := bufio.NewReaderSize(res.Body, 16<<10)
			event := ""
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					if sctx.Err() == nil {
						closed.Add(1)
					}
					return
				}
				switch {
				case strings.HasPrefix(line, "event: "):
					event = strings.TrimSpace(strings.TrimPrefix(line, "event: "))
				case event == "board" && strings.HasPrefix(line, "data: "):
					if m := versionRe.FindStringSubmatch(line); m != nil {
						v, _ := strconv.Atoi(m[1])
						record(v, time.Now())
						if first {
							first = false
							open.Done()
						}
						event = ""
					}
				}
			}
		}()
	}
	open.Wait()
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d of %d streams could not be opened (raise the open-files limit: ulimit -n)", n, cfg.watchers)
	}
	time.Sleep(3 * time.Second) // let the server settle with the streams idle
	after, afterGo := rss(cfg.pids), goMemory(cfg.urls, cfg.metrics)
	sent := map[int]time.Time{}
	watched, err := paceMoves(ctx, g, cfg.watchMoves, cfg.watchEvery, sent)
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // the last deliveries
	var delays []time.Duration
	missing := 0
	for v, at := range sent {
		l, ok := arrivals.Load(v)
		var got []time.Time
		if ok {
			got = l.(*arrivalList).times()
		}
		missing += cfg.watchers - len(got)
		for _, t := range got {
			delays = append(delays, t.Sub(at))
		}
	}
	fmt.Fprintf(out, "spectators: %d streams on game %d over %d server(s); %d moves every %s\n",
		cfg.watchers, g.id, len(cfg.urls), cfg.watchMoves, cfg.watchEvery)
	fmt.Fprintf(out, "  delivery from the move's request to each spectator: p50 %s, p99 %s, max %s; %d deliveries missing, %d streams cut\n",
		pct(delays, 50), pct(delays, 99), pct(delays, 100), missing, closed.Load())
	fmt.Fprintf(out, "  mover's latency: alone p50 %s p99 %s; watched p50 %s p99 %s (p50 ratio %.2f)\n",
		pct(alone, 50), pct(alone, 99), pct(watched, 50), pct(watched, 99), float64(pct(watched, 50))/float64(max(pct(alone, 50), 1)))
	if len(cfg.pids) > 0 && before > 0 {
		fmt.Fprintf(out, "  server resident memory: %.1f MB before, %.1f MB with the streams open: %.1f KB per idle stream\n",
			float64(before)/(1<<20), float64(after)/(1<<20), float64(after-before)/1024/float64(cfg.watchers))
	}
	if cfg.metrics != "" && beforeGo > 0 {
		fmt.Fprintf(out, "  server Go heap and stacks in use: %.1f MB before, %.1f MB with the streams open: %.1f KB per idle stream\n",
			float64(beforeGo)/(1<<20), float64(afterGo)/(1<<20), float64(afterGo-beforeGo)/1024/float64(cfg.watchers))
	}
	return nil
}

// streamClient has no overall timeout: streams stay open.
var streamClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, MaxConnsPerHost: 0}}

type arrivalList struct {
	mu sync.Mutex
	at []time.Time
}

func (l *arrivalList) add(t time.Time) {
	l.mu.Lock()
	l.at = append(l.at, t)
	l.mu.Unlock()
}

func (l *arrivalList) times() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.at)
}

// paceMoves makes n moves in g, one every interval, noting when each new
// version's request was sent; it returns the moves' latencies.
func paceMoves(ctx context.Context, g *game, n int, every time.Duration, sent map[int]time.Time) ([]time.Duration, error) {
	var lat []time.Duration
	for range n {
		if g.last.Status == "finished" {
			return lat, errors.New("the watched game ended: use fewer -watch-moves")
		}
		at := time.Now()
		took, err := g.move(ctx)
		if err != nil {
			return lat, err
		}
		if sent != nil {
			sent[g.last.Version] = at
		}
		lat = append(lat, took)
		time.Sleep(every)
	}
	return lat, nil
}

// goMemory sums the Go heap and stacks in use of the servers, read from
// their /metrics (0 without a token).
func goMemory(urls []string, token string) int64 {
	if token == "" {
		return 0
	}
	var total int64
	for _, u := range urls {
		req, _ := http.NewRequest(http.MethodGet, u+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := httpClient.Do(req)
		if err != nil {
			return 0
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for _, line := range strings.Split(string(raw), "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && (f[0] == "go_memstats_heap_inuse_bytes" || f[0] == "go_memstats_stack_inuse_bytes") {
				v, _ := strconv.ParseFloat(f[1], 64)
				total += int64(v)
			}
		}
	}
	return total
}

// cpuTime sums the processes' CPU time, user and system, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s, Linux's
// USER_HZ).
func cpuTime(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may hold
		// spaces: count the fields after its closing one.
		s := string(raw)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			s = s[i+1:]
		}
		f := strings.Fields(s) // f[0] is field 3
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + k
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// rss sums the resident memory of the processes, in bytes.
func rss(pids []int) int64 {
	var total int64
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return 0
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				total += kb << 10
			}
		}
	}
	return total
}

// pct is the p-th percentile (nearest rank) of ds.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)].Round(10 * time.Microsecond)
}
