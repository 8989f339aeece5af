package outside

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// TestMain lets the test binary act as an outside bot process (the
// heuristic bot behind Serve) when run with helperEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		if err := Serve(os.Stdin, os.Stdout, bot.HeuristicBot{}, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const helperEnv = "NOTHANKS_OUTSIDE_HELPER"

func tournament(entrant bot.Bot, deals int) bot.Tournament {
	return bot.Tournament{
		Names:   []string{"entrant", "heuristic", "rule"},
		Bots:    []bot.Bot{entrant, bot.HeuristicBot{}, bot.RuleBot{}},
		Options: engine.Options{Rounds: 2, Variant: engine.Standard},
		Deals:   deals, Seed: 3, Workers: 1,
	}
}

// TestProtocolRoundTrip plays games with the heuristic bot seated through
// the protocol (an in-process "outside" bot decoding every request) and
// checks that they end exactly as with the heuristic bot seated directly.
func TestProtocolRoundTrip(t *testing.T) {
	toBot, fromClient := io.Pipe()
	toClient, fromBot := io.Pipe()
	games := map[string]bool{}
	done := make(chan error, 1)
	go func() {
		dec := json.NewDecoder(toBot)
		enc := json.NewEncoder(fromBot)
		for {
			var req Request
			if err := dec.Decode(&req); err != nil {
				done <- nil
				return
			}
			switch {
			case req.Protocol != Protocol:
				done <- fmt.Errorf("protocol %q", req.Protocol)
			case req.Seat != req.View.Viewer || req.View.Turn != req.Seat:
				done <- fmt.Errorf("seat %d, viewer %d, turn %d", req.Seat, req.View.Viewer, req.View.Turn)
			case !slices.Equal(req.Tokens, bot.Tokens(req.View)):
				done <- fmt.Errorf("tokens %v, the view counts %v", req.Tokens, bot.Tokens(req.View))
			case req.Game == "":
				done <- fmt.Errorf("no game id")
			}
			for i, s := range req.View.Seats {
				if s.Tokens != nil && i != req.Seat {
					done <- fmt.Errorf("seat %d's tokens leaked to seat %d", i, req.Seat)
				}
			}
			games[req.Game] = true
			_ = enc.Encode(Response{Action: bot.HeuristicBot{}.Decide(req.View, nil)})
		}
	}()
	c := NewClient(toClient, fromClient)
	got, err := tournament(c, 10).Run()
	if err != nil {
		t.Fatal(err, c.Err())
	}
	fromClient.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want, err := tournament(bot.HeuristicBot{}, 10).Run()
	if err != nil {
		t.Fatal(err)
	}
	got[0].Name, want[0].Name = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("through the protocol:\n%+v\ndirect:\n%+v", got, want)
	}
	if len(games) != 30 {
		t.Errorf("%d game ids, want one per game (30)", len(games))
	}
}

func TestBadAnswers(t *testing.T) {
	g, _ := engine.New(engine.DefaultOptions(3), 1)
	v := g.View(g.Turn())
	tests := []struct {
		name   string
		answer string
		want   string
	}{
		{"ErrNotJSON", "take\n", "answer"},
		{"ErrIllegalAction", `{"action":"tiger"}` + "\n", "legal are"},
		{"ErrNoAnswer", "", "closed its output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(strings.NewReader(tt.answer), io.Discard)
			if got := c.Decide(v, nil); got != "" {
				t.Errorf("Decide = %q, want no action", got)
			}
			if err := c.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Err() = %v, want it to say %q", err, tt.want)
			}
			if _, err := c.Ask(NewRequest("g", v)); err == nil {
				t.Error("a client that failed once answered again")
			}
		})
	}
}

// TestProcess runs the test binary itself as the outside process.
func TestProcess(t *testing.T) {
	t.Setenv(helperEnv, "1")
	p, err := Start(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := tournament(p, 5).Run()
	if err != nil {
		t.Fatal(err, p.Err())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := tournament(bot.HeuristicBot{}, 5).Run()
	got[0].Name, want[0].Name = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("through a process:\n%+v\ndirect:\n%+v", got, want)
	}
}

// TestOutsideBot plays a few games against the bot named by OUTSIDE_BOT (a
// command line, e.g. an adapter for a public bot; see docs/bots.md).
func TestOutsideBot(t *testing.T) {
	command := os.Getenv("OUTSIDE_BOT")
	if command == "" {
		t.Skip(`no outside bot configured: set OUTSIDE_BOT to its command line, e.g. OUTSIDE_BOT="python3 adapter.py" (docs/bots.md)`)
	}
	p, err := Start(command)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	standings, err := bot.Tournament{
		Names:   []string{"strong", "outside", "outside"},
		Bots:    []bot.Bot{bot.NewSearchBot(bot.Budget{Iterations: 300}), p, p},
		Options: engine.Options{Rounds: 1, Variant: engine.Standard},
		Deals:   5, Seed: 1, Workers: 1,
	}.Run()
	if err != nil {
		t.Fatal(err, p.Err())
	}
	var b strings.Builder
	bot.Print(&b, standings)
	t.Log("\n" + b.String())
}
