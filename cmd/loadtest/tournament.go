package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// hostHelp says how to get an account that may create an arena.
func hostHelp(base string) string {
	return fmt.Sprintf(`-arena needs a host: the API token of an account that may create tournaments (a moderator). Make one:
    go run ./cmd/loadtest -url %s -make-host lthost     # registers lthost, prints its token
    DATABASE_URL=<the server's database URL> go run ./cmd/web admin grant lthost
  (or register on the site, grant the account the same way, and create a token in Settings),
  then run again with -host-token <the token>`, base)
}

// makeHost registers an account for -host-token and says how to make it a
// moderator.
func makeHost(ctx context.Context, base, name string, out io.Writer) error {
	token, err := register(ctx, base, name)
	if err != nil {
		return fmt.Errorf("register %s: %w", name, err)
	}
	fmt.Fprintf(out, "registered %s (password %q); its API token:\n    %s\n", name, "load test password "+name, token)
	fmt.Fprintf(out, "make it a moderator, so that it may create arenas of any size:\n    DATABASE_URL=<the server's database URL> go run ./cmd/web admin grant %s\n", name)
	fmt.Fprintf(out, "then: go run ./cmd/loadtest -url %s -arena 30 -duration 90s -host-token %s\n", base, token)
	return nil
}

// eventInfo is the part of a tournament answer the load test reads.
type eventInfo struct {
	Tournament struct {
		ID      int64 `json:"id"`
		Round   int   `json:"round"`
		Version int   `json:"version"`
	} `json:"tournament"`
}

// meInfo is GET /api/v1/tournaments/{id}/me.
type meInfo struct {
	Status string `json:"status"`
	GameID *int64 `json:"game_id"`
}

// seatedGame is a player's first look at the table they were given.
type seatedGame struct {
	table
	Players []struct {
		Name string `json:"name"`
	} `json:"players"`
}

// runTournament runs the tournament modes: an arena played by cfg.arena
// players, and/or cfg.tWatchers streams on an event's page.
func runTournament(ctx context.Context, cfg config, out io.Writer) error {
	base := cfg.urls[0]
	host := player{name: "host", token: cfg.hostToken}
	if cfg.arena == 0 {
		// Streams alone, on an event someone else plays.
		w, err := openEventStreams(ctx, cfg, cfg.tournament)
		if err != nil {
			return err
		}
		var before, after eventInfo
		if host.token != "" {
			_, _ = api(ctx, base, host, http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", cfg.tournament), nil, &before)
		}
		time.Sleep(cfg.duration)
		w.stop()
		if host.token != "" {
			_, _ = api(ctx, base, host, http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", cfg.tournament), nil, &after)
		}
		w.report(out, before.Tournament.Version, after.Tournament.Version)
		return nil
	}

	busyRetries = 5
	if status, err := api(ctx, base, host, http.MethodGet, "/api/v1/tournaments", nil, nil); err != nil {
		if status == http.StatusUnauthorized {
			return fmt.Errorf("the server does not accept -host-token\n%s", hostHelp(base))
		}
		return err
	}
	start := time.Now()
	ps, err := makePlayers(ctx, base, cfg.arena)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "registered %d players in %s\n", len(ps), time.Since(start).Round(100*time.Millisecond))

	startsAt := time.Now().Add(65 * time.Second).Truncate(time.Second)
	minutes := max(20, int((cfg.duration+time.Minute-1)/time.Minute))
	var ev eventInfo
	status, err := api(ctx, base, host, http.MethodPost, "/api/v1/tournaments", map[string]any{
		"kind": "arena", "name": "Load test " + startsAt.Format("15:04:05"), "table_size": cfg.tableSize, "minutes": minutes,
		"game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": max(cfg.arena, cfg.tableSize),
		"starts_at": startsAt.UTC().Format(time.RFC3339),
	}, &ev)
	if status == http.StatusForbidden || status == http.StatusUnauthorized {
		return fmt.Errorf("the host may not create the arena: %v\n%s", err, hostHelp(base))
	}
	if err != nil {
		return err
	}
	id := ev.Tournament.ID
	start = time.Now()
	if err := joinAll(ctx, base, id, ps); err != nil {
		return err
	}
	fmt.Fprintf(out, "arena %d: %d players joined in %s; tables of %d, %d minutes, starts at %s\n",
		id, len(ps), time.Since(start).Round(100*time.Millisecond), cfg.tableSize, minutes, startsAt.Format("15:04:05"))
	if time.Now().After(startsAt) {
		fmt.Fprintln(out, "  (the joins ended after the start: the late ones were seated in later waves)")
	}

	var w *eventStreams
	var before eventInfo
	if cfg.tWatchers > 0 {
		if w, err = openEventStreams(ctx, cfg, id); err != nil {
			return err
		}
		if _, err := api(ctx, base, host, http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", id), nil, &before); err != nil {
			return err
		}
	}
	a := newArena(base, id, startsAt, cfg.duration, ps)
	a.paceMin, a.paceMax = cfg.paceMin, cfg.paceMax
	res, err := a.play(ctx, host)
	if w != nil {
		w.stop()
	}
	if err != nil {
		return err
	}
	res.report(out, cfg)
	if w != nil {
		w.report(out, before.Tournament.Version, res.version)
		w.reportFromEnds(out, a.endTimes())
	}
	if n := len(res.errs); n > 0 {
		return fmt.Errorf("%d players or tables stopped on an error; the first: %w", n, res.errs[0])
	}
	return nil
}

// joinAll enters every player in the event, a few at a time.
func joinAll(ctx context.Context, base string, id int64, ps []player) error {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	errs := make([]error, len(ps))
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, errs[i] = api(ctx, base, p, http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), map[string]any{}, nil)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// arena is an arena being played by the load test's players.
type arena struct {
	base     string
	id       int64
	startsAt time.Time
	duration time.Duration
	players  []player

	startOnce sync.Once
	started   chan struct{} // closed when the first table is seen
	begin     time.Time     // when the first table was seen
	stopped   chan struct{} // closed duration after begin
	// stopAt, and the event's round and version then, are set before
	// stopped is closed.
	stopAt                 time.Time
	stopRound, stopVersion int

	mu     sync.Mutex
	tables map[int64]*arenaTable

	moves, games atomic.Int64
	busyBefore   int64         // busyAnswers at the start of the measurement
	busy         int64         // 503s during the measurement
	withdrawing  chan struct{} // how many withdraw at once once it is over
	// paceMin and paceMax bound the pause before each decision (zero: none).
	paceMin, paceMax time.Duration
}

// arenaTable is a game of the arena: played once every player seated at
// it has seen it on their /me.
type arenaTable struct {
	id      int64
	seen    time.Time // by its first player, for the count of tables seated
	size    int
	seats   map[int]player
	last    table
	done    chan struct{} // closed when the game has ended
	endedAt time.Time
	err     error
}

// seatLog is what one player measured.
type seatLog struct {
	waits     []time.Duration // a game's end to the next table seen
	cut       int             // waits the end of the measurement cut
	first     time.Duration   // the start time to the first table seen (-1: none)
	polls     []time.Duration
	moveLat   []time.Duration
	withdrawn bool
	err       error
}

func newArena(base string, id int64, startsAt time.Time, d time.Duration, ps []player) *arena {
	return &arena{base: base, id: id, startsAt: startsAt, duration: d, players: ps,
		started: make(chan struct{}), stopped: make(chan struct{}), tables: map[int64]*arenaTable{}, withdrawing: make(chan struct{}, 4)}
}

func (a *arena) isStarted() bool {
	select {
	case <-a.started:
		return true
	default:
		return false
	}
}

func (a *arena) isStopped() bool {
	select {
	case <-a.stopped:
		return true
	default:
		return false
	}
}

// arenaResult is what the arena's players measured together.
type arenaResult struct {
	players, tables, waves, games int
	moves                         int64
	elapsed                       time.Duration
	waits, firsts, polls, moveLat []time.Duration
	cut                           int
	busy                          int64
	views                         []time.Duration
	version                       int
	errs                          []error
}

// play runs every player until the measurement ends and their last table
// is played out, then withdraws them.
func (a *arena) play(ctx context.Context, host player) (*arenaResult, error) {
	hard, cancel := context.WithTimeout(ctx, time.Until(a.startsAt)+a.duration+3*time.Minute)
	defer cancel()
	go func() {
		select {
		case <-a.started:
			time.Sleep(a.duration)
		case <-time.After(time.Until(a.startsAt) + time.Minute):
			// Never started: stop anyway and say so below.
		case <-hard.Done():
		}
		a.stopAt = time.Now()
		a.busy = busyAnswers.Load() - a.busyBefore
		// The event as the measurement ends, before the players withdraw.
		var ev eventInfo
		if _, err := api(hard, a.base, host, http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", a.id), nil, &ev); err == nil {
			a.stopRound, a.stopVersion = ev.Tournament.Round, ev.Tournament.Version
		}
		close(a.stopped)
	}()
	// The event's full view, read every 5 s by the host: its cost as the
	// event grows.
	var views []time.Duration
	viewsDone := make(chan struct{})
	go func() {
		defer close(viewsDone)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-a.stopped:
				return
			case <-t.C:
			}
			if !a.isStarted() {
				continue
			}
			at := time.Now()
			if _, err := api(hard, a.base, host, http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", a.id), nil, nil); err == nil {
				views = append(views, time.Since(at))
			}
		}
	}()
	logs := make([]seatLog, len(a.players))
	var wg sync.WaitGroup
	for i, p := range a.players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logs[i] = a.runPlayer(hard, p, uint64(i))
		}()
	}
	wg.Wait()
	<-a.stopped
	<-viewsDone
	if a.begin.IsZero() {
		return nil, fmt.Errorf("arena %d: no table was seen by %s (a minute after its start time): is the server's tournament worker running?",
			a.id, a.startsAt.Add(time.Minute).Format("15:04:05"))
	}
	r := &arenaResult{players: len(a.players), moves: a.moves.Load(), games: int(a.games.Load()), elapsed: a.duration, views: views, busy: a.busy}
	end := a.begin.Add(a.duration)
	for _, t := range a.tables {
		if t.seen.Before(end) {
			r.tables++
		}
		if t.err != nil {
			r.errs = append(r.errs, fmt.Errorf("game %d: %w", t.id, t.err))
		}
	}
	for _, l := range logs {
		r.waits = append(r.waits, l.waits...)
		r.cut += l.cut
		if l.first >= 0 {
			r.firsts = append(r.firsts, l.first)
		}
		r.polls = append(r.polls, l.polls...)
		r.moveLat = append(r.moveLat, l.moveLat...)
		if l.err != nil {
			r.errs = append(r.errs, l.err)
		}
	}
	r.waves, r.version = a.stopRound, a.stopVersion
	return r, nil
}

// runPlayer is one player: it asks its /me every 250-500 ms while free and
// plays each table it is given. Once the measurement is over it withdraws
// when free, plays a table it was given meanwhile, and stops.
func (a *arena) runPlayer(ctx context.Context, p player, seed uint64) seatLog {
	rng := rand.New(rand.NewPCG(seed, 31))
	l := seatLog{first: -1}
	var last int64
	var freeAt time.Time // when the player's last table ended, until they see the next: zero for the first
	for ctx.Err() == nil {
		if a.isStopped() && !l.withdrawn {
			if !freeAt.IsZero() && freeAt.Before(a.stopAt) {
				l.cut++ // waiting when the measurement ended
			}
			freeAt = time.Time{}
			// A withdrawal answers the whole event: a few at a time.
			a.withdrawing <- struct{}{}
			_, err := api(ctx, a.base, p, http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/withdraw", a.id), map[string]any{}, nil)
			<-a.withdrawing
			if err != nil {
				l.err = fmt.Errorf("%s: withdraw: %w", p.name, err)
				return l
			}
			l.withdrawn = true
		} else {
			select {
			case <-ctx.Done():
				return l
			case <-time.After(250*time.Millisecond + time.Duration(rng.Int64N(int64(250*time.Millisecond)))):
			}
		}
		at := time.Now()
		var me meInfo
		if _, err := api(ctx, a.base, p, http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d/me", a.id), nil, &me); err != nil {
			if ctx.Err() == nil {
				l.err = fmt.Errorf("%s: %w", p.name, err)
			}
			return l
		}
		now := time.Now()
		measured := a.isStarted() && !a.isStopped()
		if measured {
			l.polls = append(l.polls, now.Sub(at))
		}
		if me.GameID == nil || *me.GameID == last {
			if l.withdrawn {
				return l // no table came meanwhile, and none will
			}
			continue
		}
		last = *me.GameID
		a.startOnce.Do(func() {
			a.begin = now
			a.busyBefore = busyAnswers.Load()
			close(a.started)
		})
		switch {
		case !freeAt.IsZero() && !a.isStopped():
			l.waits = append(l.waits, now.Sub(freeAt))
		case !freeAt.IsZero() && freeAt.Before(a.stopAt):
			l.cut++
		case freeAt.IsZero() && l.first < 0:
			l.first = now.Sub(a.startsAt)
		}
		freeAt = time.Time{}
		t, drive, err := a.sit(ctx, p, last, now)
		if err != nil {
			l.err = fmt.Errorf("%s at game %d: %w", p.name, last, err)
			return l
		}
		// The last of the table to see it plays it, every seat as its
		// own player; the others wait for its end.
		if drive {
			t.playOut(ctx, a, &l)
		}
		select {
		case <-t.done:
		case <-ctx.Done():
			return l
		case <-time.After(2*time.Minute + 200*a.paceMax):
			// (With -pace a game takes a couple of hundred decisions' pauses.)
			l.err = fmt.Errorf("%s at game %d: the table's other players never saw it", p.name, last)
			return l
		}
		if t.err != nil {
			return l
		}
		freeAt = t.endedAt
	}
	return l
}

// sit records that p has seen their table, which is played once every
// seat's player has seen it: drive says p is the last, who plays it.
func (a *arena) sit(ctx context.Context, p player, id int64, seen time.Time) (t *arenaTable, drive bool, err error) {
	var g seatedGame
	if _, err := api(ctx, a.base, p, http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil, &g); err != nil {
		return nil, false, err
	}
	if g.YourSeat == nil {
		return nil, false, errors.New("not seated at the game /me names")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	t = a.tables[id]
	if t == nil {
		t = &arenaTable{id: id, seen: seen, size: len(g.Players), seats: map[int]player{}, done: make(chan struct{})}
		a.tables[id] = t
	}
	if g.Status == "finished" {
		return nil, false, errors.New("the table ended before its players saw it (their turns ran out)")
	}
	t.seats[*g.YourSeat] = p
	if g.Version >= t.last.Version {
		t.last = g.table
	}
	return t, len(t.seats) == t.size, nil
}

// playOut plays the table to its end: as fast as the server answers, or
// with -pace a pause of MIN to MAX before each decision, as people take.
func (t *arenaTable) playOut(ctx context.Context, a *arena, l *seatLog) {
	defer close(t.done)
	g := &game{base: a.base, id: t.id, seats: t.seats, last: t.last}
	rng := rand.New(rand.NewPCG(uint64(t.id), 7))
	for g.last.Status != "finished" {
		if a.paceMax > 0 {
			select {
			case <-ctx.Done():
				t.err = ctx.Err()
				return
			case <-time.After(a.paceMin + time.Duration(rng.Int64N(int64(a.paceMax-a.paceMin)+1))):
			}
		}
		took, err := g.move(ctx)
		if err != nil {
			t.err = err
			return
		}
		if !a.isStopped() {
			a.moves.Add(1)
			l.moveLat = append(l.moveLat, took)
		}
	}
	t.endedAt = time.Now()
	if !a.isStopped() {
		a.games.Add(1)
	}
}

func (r *arenaResult) report(out io.Writer, cfg config) {
	fmt.Fprintf(out, "arena: %d players at tables of %d, measured for %s from the first table seen%s\n", r.players, cfg.tableSize, r.elapsed, paceText(cfg))
	fmt.Fprintf(out, "  first tables: seen p50 %s, max %s after the start time (%d players; not counted as waits)\n",
		short(pct(r.firsts, 50)), short(pct(r.firsts, 100)), len(r.firsts))
	fmt.Fprintf(out, "  tables seated %d (waves so far: %d), games finished %d, moves made %d (%.0f/s; latency p50 %s, p99 %s)\n",
		r.tables, r.waves, r.games, r.moves, float64(r.moves)/r.elapsed.Seconds(), pct(r.moveLat, 50), pct(r.moveLat, 99))
	fmt.Fprintf(out, "  seat wait, a game's end to the next table on /me (polled every 250-500 ms): %d waits, p50 %s, p99 %s, max %s (%d cut by the end)\n",
		len(r.waits), short(pct(r.waits, 50)), short(pct(r.waits, 99)), short(pct(r.waits, 100)), r.cut)
	fmt.Fprintf(out, "  /me: %d polls, latency p50 %s, p99 %s; the event's full view (every 5 s): first %s, last %s, max %s\n",
		len(r.polls), pct(r.polls, 50), pct(r.polls, 99), first(r.views), last(r.views), pct(r.views, 100))
	if r.busy > 0 {
		fmt.Fprintf(out, "  the server turned away %d requests as too busy (503), each sent again after its Retry-After\n", r.busy)
	}
	if len(r.errs) > 0 {
		fmt.Fprintf(out, "  errors: %d (first: %v)\n", len(r.errs), r.errs[0])
	}
}

// short rounds a duration of seconds to the millisecond.
func short(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d
}

func first(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[0].Round(10 * time.Microsecond)
}

func last(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[len(ds)-1].Round(10 * time.Microsecond)
}

// eventStreams are visitors on an event's page stream.
type eventStreams struct {
	cfg    config
	id     int64
	cancel context.CancelFunc
	wg     sync.WaitGroup

	counting                                 atomic.Bool // set once every stream is open
	arrivals                                 sync.Map    // version -> *arrivalList
	closed                                   atomic.Int64
	memBefore, memAfter, rssBefore, rssAfter int64
}

// openEventStreams opens cfg.tWatchers logged-out streams on event id,
// split over the servers, and returns once every one has its first
// standings.
func openEventStreams(ctx context.Context, cfg config, id int64) (*eventStreams, error) {
	w := &eventStreams{cfg: cfg, id: id}
	w.rssBefore, w.memBefore = rss(cfg.pids), goMemory(cfg.urls, cfg.metrics)
	sctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	var open sync.WaitGroup
	open.Add(cfg.tWatchers)
	var failed atomic.Int64
	for i := range cfg.tWatchers {
		base := cfg.urls[i%len(cfg.urls)]
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			opened := false
			defer func() {
				if !opened {
					open.Done()
				}
			}()
			req, _ := http.NewRequestWithContext(sctx, http.MethodGet, fmt.Sprintf("%s/tournaments/%d/events", base, id), nil)
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
			r := bufio.NewReaderSize(res.Body, 64<<10)
			event, seen := "", -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					if sctx.Err() == nil {
						w.closed.Add(1)
					}
					return
				}
				switch {
				case strings.HasPrefix(line, "event: "):
					event = strings.TrimSpace(strings.TrimPrefix(line, "event: "))
				case event == "standings" && strings.HasPrefix(line, "data: "):
					event = "" // the version is on the frame's first line
					m := versionRe.FindStringSubmatch(line)
					if m == nil {
						continue
					}
					v, _ := strconv.Atoi(m[1])
					at := time.Now()
					if !opened {
						// What the stream starts with is no delivery.
						opened, seen = true, v
						open.Done()
						continue
					}
					if v != seen && w.counting.Load() {
						l, _ := w.arrivals.LoadOrStore(v, &arrivalList{})
						l.(*arrivalList).add(at)
					}
					seen = v
				}
			}
		}()
	}
	open.Wait()
	if n := failed.Load(); n > 0 {
		cancel()
		return nil, fmt.Errorf("%d of %d event streams could not be opened (raise the open-files limit: ulimit -n)", n, cfg.tWatchers)
	}
	time.Sleep(2 * time.Second) // let the server settle with the streams idle
	w.rssAfter, w.memAfter = rss(cfg.pids), goMemory(cfg.urls, cfg.metrics)
	w.counting.Store(true)
	return w, nil
}

// stop closes the streams (after a moment for the last deliveries).
func (w *eventStreams) stop() {
	time.Sleep(2 * time.Second)
	w.counting.Store(false)
	w.cancel()
	w.wg.Wait()
}

// report prints the delivery of each version behind the first stream that
// got it; from and to are the event's versions before and after the
// measurement (0: unknown), and later versions are left out.
// endTimes are when the measured games ended (their last move answered:
// committed, so a change of the standings).
func (a *arena) endTimes() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []time.Time
	for _, t := range a.tables {
		if !t.endedAt.IsZero() && t.endedAt.Before(a.stopAt) {
			out = append(out, t.endedAt)
		}
	}
	return out
}

// reportFromEnds measures the standings' delivery from the change itself:
// for each game that ended, the first version any stream received after
// its end holds its result; every stream's arrival of that version, less
// the game's end, is a delay.
func (w *eventStreams) reportFromEnds(out io.Writer, ends []time.Time) {
	type version struct {
		first time.Time
		got   []time.Time
	}
	var vs []version
	w.arrivals.Range(func(_, l any) bool {
		got := l.(*arrivalList).times()
		if len(got) == 0 {
			return true
		}
		first := got[0]
		for _, t := range got {
			if t.Before(first) {
				first = t
			}
		}
		vs = append(vs, version{first, got})
		return true
	})
	slices.SortFunc(vs, func(a, b version) int { return a.first.Compare(b.first) })
	var delays []time.Duration
	for _, e := range ends {
		for _, v := range vs {
			if !v.first.Before(e) {
				for _, t := range v.got {
					delays = append(delays, t.Sub(e))
				}
				break
			}
		}
	}
	fmt.Fprintf(out, "  a game's end (its last move answered) to each stream's new standings: %d games, p50 %s, p99 %s, max %s\n",
		len(ends), pct(delays, 50), pct(delays, 99), pct(delays, 100))
}

func (w *eventStreams) report(out io.Writer, from, to int) {
	var delays []time.Duration
	versions, everywhere, missing := 0, 0, 0
	w.arrivals.Range(func(v, l any) bool {
		if to > 0 && v.(int) > to {
			return true // after the measurement
		}
		got := l.(*arrivalList).times()
		versions++
		if len(got) == w.cfg.tWatchers {
			everywhere++
		}
		missing += w.cfg.tWatchers - len(got)
		firstAt := got[0]
		for _, t := range got {
			if t.Before(firstAt) {
				firstAt = t
			}
		}
		for _, t := range got {
			delays = append(delays, t.Sub(firstAt))
		}
		return true
	})
	fmt.Fprintf(out, "event streams: %d on /tournaments/%d/events over %d server(s)\n", w.cfg.tWatchers, w.id, len(w.cfg.urls))
	went := ""
	if to > from && from > 0 {
		went = fmt.Sprintf(" of the %d the event went through (a stream is sent the latest at each read)", to-from)
	}
	fmt.Fprintf(out, "  versions sent: %d%s; %d reached every stream, %d deliveries missing, %d streams cut\n",
		versions, went, everywhere, missing, w.closed.Load())
	fmt.Fprintf(out, "  delivery of a version behind the first stream that got it: p50 %s, p99 %s, max %s\n",
		pct(delays, 50), pct(delays, 99), pct(delays, 100))
	if len(w.cfg.pids) > 0 && w.rssBefore > 0 {
		fmt.Fprintf(out, "  server resident memory: %.1f MB before, %.1f MB with the streams open: %.1f KB per idle stream\n",
			float64(w.rssBefore)/(1<<20), float64(w.rssAfter)/(1<<20), float64(w.rssAfter-w.rssBefore)/1024/float64(w.cfg.tWatchers))
	}
	if w.cfg.metrics != "" && w.memBefore > 0 {
		fmt.Fprintf(out, "  server Go heap and stacks in use: %.1f MB before, %.1f MB with the streams open: %.1f KB per idle stream\n",
			float64(w.memBefore)/(1<<20), float64(w.memAfter)/(1<<20), float64(w.memAfter-w.memBefore)/1024/float64(w.cfg.tWatchers))
	}
}
