package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

var seatTokensRe = regexp.MustCompile(`data-testid="seat-tokens">([^<]*)<`)

// Three hundred people watch one game: each of their streams gets every
// board, each board shows no token count but the pot's, and the server read
// the game once and drew the spectators' board once per version, however
// many watched.
func TestManySpectatorsShareOneRenderPerVersion(t *testing.T) {
	const watchers = 300
	s := apptest.New(t, apptest.WithoutWorkers())
	id, cs := threePlayers(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	type seen struct {
		version int
		board   string
	}
	got := make([]chan seen, watchers)
	var opened sync.WaitGroup
	opened.Add(watchers)
	for i := range watchers {
		got[i] = make(chan seen, 64)
		go func() {
			c := s.Client()
			c.HTTP.Timeout = 0 // the stream lives as long as ctx
			st := c.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
			opened.Done()
			for {
				e, err := st.Read()
				if err != nil {
					close(got[i])
					return
				}
				if e.Name != "board" {
					continue
				}
				m := versionRe.FindStringSubmatch(e.Data)
				if m == nil {
					t.Errorf("stream %d: a board without a version", i)
					continue
				}
				v, _ := strconv.Atoi(m[1])
				got[i] <- seen{v, e.Data}
			}
		}()
	}
	opened.Wait()
	// Each player watches too, with a stream of their own.
	players := make([]*apptest.Stream, len(cs))
	for i, c := range cs {
		players[i] = c.Stream(ctx, fmt.Sprintf("/games/%d/events", id))
	}
	playerBoard := func(i, want int) string {
		t.Helper()
		for {
			b := players[i].Next(t, "board")
			if m := versionRe.FindStringSubmatch(b); m != nil && m[1] == strconv.Itoa(want) {
				return b
			}
		}
	}
	check := func(want int) {
		t.Helper()
		for i, ch := range got {
			for {
				b, ok := <-ch
				if !ok {
					t.Fatalf("stream %d ended before version %d", i, want)
				}
				for _, m := range seatTokensRe.FindAllStringSubmatch(b.board, -1) {
					if m[1] != "?" {
						t.Fatalf("stream %d shows a spectator a token count: %q", i, m[1])
					}
				}
				if strings.Contains(b.board, `data-testid="my-tokens"`) || strings.Contains(b.board, `data-testid="actions"`) {
					t.Fatalf("stream %d shows a spectator a player's own part of the table", i)
				}
				if b.version == want {
					break
				}
				if b.version > want {
					t.Fatalf("stream %d jumped to version %d, want %d", i, b.version, want)
				}
			}
		}
	}
	_, v := whoseTurn(t, cs, id)
	check(v)
	for p := range cs {
		playerBoard(p, v)
	}
	before := s.App.Watch.Stats()
	const moves = 8
	for n := range moves {
		i, v := whoseTurn(t, cs, id)
		kind := "pass"
		if n%3 == 2 {
			kind = "take"
		}
		if res := act(cs[i], id, kind, v); res.Status != http.StatusSeeOther {
			t.Fatalf("move %d: %d", n, res.Status)
		}
		check(v + 1)
		// Each player's stream shows their own count and nobody else's.
		for p := range cs {
			b := playerBoard(p, v+1)
			counts := seatTokensRe.FindAllStringSubmatch(b, -1)
			shown := 0
			for _, m := range counts {
				if m[1] != "?" {
					shown++
				}
			}
			if len(counts) != 3 || shown != 1 || !strings.Contains(b, `data-testid="my-tokens"`) {
				t.Fatalf("player %d's stream: %d seats, %d counts shown, want 3 and 1 (their own)", p, len(counts), shown)
			}
		}
	}
	after := s.App.Watch.Stats()
	// One read per move (each move is one version), and one drawing per
	// view of it: the spectators' one and each player's.
	if loads := after.Loads - before.Loads; loads != moves {
		t.Errorf("%d reads of the game for %d moves watched by %d streams, want %d", loads, moves, watchers, moves)
	}
	if renders, want := after.Renders-before.Renders, int64(moves*(1+len(cs))); renders != want {
		t.Errorf("%d boards drawn for %d moves watched by %d spectators and %d players, want %d", renders, moves, watchers, len(cs), want)
	}
	if after.Streams != watchers+int64(len(cs)) {
		t.Errorf("the hub counts %d open streams, want %d", after.Streams, watchers+len(cs))
	}
	// Who watches is written in one go and read back as one count.
	if err := s.App.Watch.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.App.Watch.Watchers(id); n != watchers {
		t.Errorf("watcher count %d, want %d", n, watchers)
	}
	if page := s.Client().Get(fmt.Sprintf("/games/%d", id)); page.TestID("watchers") != fmt.Sprintf("%d watching", watchers) {
		t.Errorf("the page says %q", page.TestID("watchers"))
	}
}

// TestListChangesReachEveryInstance: a visitor's list stream on one
// instance and a member's turn stream asking for the live list on another
// hear of a table opened on a third party's instance ("open"), and of its
// start ("open" and "live"), and nothing that concerns no list they asked
// for; a list stream that asks for no list is refused.
func TestListChangesReachEveryInstance(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	s2 := apptest.NewOn(t, s.Store, s.DBURL, apptest.WithoutWorkers())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if res := s2.Client().Get("/lists/events?lists=nothing"); res.Status != http.StatusNotFound {
		t.Errorf("a list stream of no list: %d", res.Status)
	}
	visitor := s2.Client().Stream(ctx, "/lists/events?lists=open")
	mel := s2.APIFor("Mel")
	member := loggedIn(t, s2, mel).Stream(ctx, "/my/events?lists=live")
	member.Next(t, "turn") // the stream's first word: Mel's turns
	time.Sleep(200 * time.Millisecond)

	ann := s.APIFor("Ann")
	_, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	if got := visitor.Next(t, "lists"); got != "open" {
		t.Errorf("the visitor is told %q of a new table, want open", got)
	}
	for range 2 {
		ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/bots", id), map[string]any{"level": "random"})
	}
	// The member asked for the live list only: the table's opening and
	// filling are not told to him, its start is.
	if got := member.Next(t, "lists"); got != "live" {
		t.Errorf("the member is told %q, want live", got)
	}
	if got := visitor.Next(t, "lists"); got != "open" {
		t.Errorf("the visitor is told %q of the table's start, want open", got)
	}
}
