package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// counting records every request a client sends.
type counting struct {
	mu   sync.Mutex
	sent []string
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.sent = append(c.sent, r.Method+" "+r.URL.RequestURI())
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// list is what was sent so far.
func (c *counting) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.sent...)
}

// The example bot, on a new account made a bot account as it starts, is
// invited by two people, accepts
// through its event stream, and plays the whole game through the game's
// stream: its requests are the two streams, the acceptance and one per
// decision it made, and nothing else (it never reads a game).
func TestExampleBotPlaysAGameAgainstPeopleThroughItsStreams(t *testing.T) {
	s := apptest.New(t)
	botAPI := s.APIFor("ExampleBot")
	ann, ben := s.APIFor("Ann"), s.APIFor("Ben")
	sent := &counting{}
	b := &Bot{Base: s.URL, Token: botAPI.Token, HTTP: &http.Client{Transport: sent}, Accept: true, Games: 1,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- b.Run(ctx) }()
	// The bot's event stream is open before the invitation is sent.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		sent.mu.Lock()
		n := len(sent.sent)
		sent.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bot opened no stream")
		}
	}
	time.Sleep(200 * time.Millisecond)
	// The account becomes a bot account while its stream is open: the
	// stream goes on (its token still works).
	if status, body := botAPI.Do(http.MethodPost, "/api/v1/bot/account/upgrade", nil); status != http.StatusOK {
		t.Fatalf("upgrade to a bot account: %d %v", status, body)
	}
	time.Sleep(200 * time.Millisecond)
	status, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300, "invite": []string{"ExampleBot"}})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	id := int64(g["id"].(float64))
	if status, body := ben.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", id), nil); status != http.StatusOK {
		t.Fatalf("join: %d %v", status, body)
	}
	apptest.PlayOut(t, []*apptest.API{ann, ben}, id)
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("the bot stopped: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the bot did not finish its game")
	}
	// What it should have sent, worked out from the game's log: one
	// decision per take or pass of its seat.
	_, full := ann.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d?log=full", id), nil)
	seat := -1.0
	for _, p := range full["players"].([]any) {
		if p := p.(map[string]any); p["name"] == "ExampleBot" {
			seat = p["seat"].(float64)
		}
	}
	decisions := 0
	for _, e := range full["view"].(map[string]any)["events"].([]any) {
		e := e.(map[string]any)
		if (e["kind"] == "take" || e["kind"] == "pass") && e["seat"] == seat {
			decisions++
		}
	}
	if decisions == 0 {
		t.Fatal("the bot made no decision")
	}
	counts := map[string]int{}
	move := regexp.MustCompile(fmt.Sprintf(`^POST /api/v1/games/%d/(take|pass)$`, id))
	for _, r := range sent.sent {
		switch {
		case r == "GET /api/v1/stream/events", r == fmt.Sprintf("GET /api/v1/games/%d/stream", id):
			counts[r]++
		case regexp.MustCompile(`^POST /api/v1/invites/\d+/accept$`).MatchString(r):
			counts["accept"]++
		case move.MatchString(r):
			counts["move"]++
		default:
			t.Errorf("an unexpected request: %s", r)
		}
	}
	want := map[string]int{"GET /api/v1/stream/events": 1, fmt.Sprintf("GET /api/v1/games/%d/stream", id): 1, "accept": 1, "move": decisions}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("the bot's requests %v, want %v (%d in all)", counts, want, len(sent.sent))
	}
}

// An invitation the site will not let the bot accept (here: it holds as
// many games at once as a bot account may) is declined, and the bot goes
// on reading the same event stream: it neither stops nor reconnects, and
// the inviter sees the invitation declined.
func TestExampleBotDeclinesWhatItCannotAccept(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	botAPI := s.APIFor("BusyBot")
	if status, body := botAPI.Do(http.MethodPost, "/api/v1/bot/account/upgrade", nil); status != http.StatusOK {
		t.Fatalf("upgrade to a bot account: %d %v", status, body)
	}
	// Ten tables waiting for players: as many games as a bot may hold.
	for i := range 10 {
		if status, body := botAPI.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300}); status != http.StatusCreated {
			t.Fatalf("table %d: %d %v", i+1, status, body)
		}
	}
	ann := s.APIFor("Ann")
	sent := &counting{}
	b := &Bot{Base: s.URL, Token: botAPI.Token, HTTP: &http.Client{Transport: sent}, Accept: true,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- b.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); len(sent.list()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the bot opened no stream")
		}
	}
	time.Sleep(200 * time.Millisecond)
	status, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 300, "invite": []string{"BusyBot"}})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, g)
	}
	path := fmt.Sprintf("/api/v1/games/%v/invites", g["id"])
	state := ""
	for deadline := time.Now().Add(10 * time.Second); state != "declined" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_, res := ann.Do(http.MethodGet, path, nil)
		if list, _ := res["invitations"].([]any); len(list) == 1 {
			state, _ = list[0].(map[string]any)["state"].(string)
		}
	}
	if state != "declined" {
		t.Fatalf("the invitation is %q, want declined", state)
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-ran:
		t.Fatalf("the bot stopped: %v", err)
	default:
	}
	counts := map[string]int{}
	for _, r := range sent.list() {
		switch {
		case r == "GET /api/v1/stream/events":
			counts["stream"]++
		case regexp.MustCompile(`^POST /api/v1/invites/\d+/accept$`).MatchString(r):
			counts["accept"]++
		case regexp.MustCompile(`^POST /api/v1/invites/\d+/decline$`).MatchString(r):
			counts["decline"]++
		default:
			t.Errorf("an unexpected request: %s", r)
		}
	}
	if want := map[string]int{"stream": 1, "accept": 1, "decline": 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("the bot's requests %v, want %v", counts, want)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Errorf("the bot stopped with %v", err)
	}
}
