package notation

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// played is a game played by bots, with what went into it.
type played struct {
	setup   engine.Setup
	actions []engine.Action
	g       *engine.Game
}

// play plays a whole game: seats alternate between the heuristic and the
// random bot, about one decision in twelve is marked a timeout, and with
// leave one player leaves at a random moment (on their turn or not).
func play(t testing.TB, o engine.Options, seed uint64, leave bool) played {
	t.Helper()
	s := engine.SetupFromSeed(o, seed)
	g, err := engine.NewFromSetup(o, s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	bots := []bot.Bot{bot.HeuristicBot{}, bot.RandomBot{}}
	leaveAt := -1
	if leave {
		leaveAt = rng.IntN(150)
	}
	var actions []engine.Action
	for !g.Finished() {
		var a engine.Action
		if len(actions) == leaveAt {
			a = engine.Action{Seat: rng.IntN(o.Players), Kind: engine.Leave}
			if g.Abandoned(a.Seat) {
				leaveAt++
				continue
			}
		} else {
			seat := g.Turn()
			a = engine.Action{Seat: seat, Kind: bots[seat%2].Decide(g.View(seat), rng), Timeout: rng.IntN(12) == 0}
		}
		if err := g.Apply(a); err != nil {
			t.Fatalf("seed %d: %+v: %v", seed, a, err)
		}
		actions = append(actions, a)
	}
	return played{setup: s, actions: actions, g: g}
}

func header(o engine.Options, seed uint64) Header {
	h := Header{
		Site:  "nothanks.example",
		URL:   fmt.Sprintf("https://nothanks.example/games/%d", seed),
		Date:  time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC),
		Pace:  "correspondence",
		Extra: []Tag{{"Round", "semi-final"}, {"Annotator", `Zoë "the \ wall"`}},
	}
	if seed%2 == 0 {
		h.Event, h.Ranked, h.Pace = "December cup", true, "live"
	}
	for i := range o.Players {
		s := Seat{Name: fmt.Sprintf(`Player "%s" \ %d`, letter(i), seed)}
		switch i % 3 {
		case 1:
			s.Bot = "strong"
		case 2:
			r := 1400 + i
			s.Rating = &r
		}
		h.Seats = append(h.Seats, s)
	}
	return h
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		o    engine.Options
	}{
		{"SameGameThreePlayersStandard", engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}},
		{"SameGameFourPlayersAmigoOpenTokens", engine.Options{Players: 4, Rounds: 4, Variant: engine.Amigo, OpenTokens: true}},
		{"SameGameFivePlayersAmigoHighHiddenTiger", engine.Options{Players: 5, Rounds: 4, Variant: engine.AmigoHigh, HiddenTiger: true}},
		{"SameGameThreePlayersTacticalHiddenTiger", engine.Options{Players: 3, Rounds: 2, Variant: engine.Tactical, HiddenTiger: true}},
		{"SameGameSixPlayersOpenTokensHiddenTiger", engine.Options{Players: 6, Rounds: 3, Variant: engine.Standard, OpenTokens: true, HiddenTiger: true}},
		{"SameGameSevenPlayersTenRounds", engine.Options{Players: 7, Rounds: 10, Variant: engine.Standard, HiddenTiger: true}},
	}
	marks := map[string]int{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(12) {
				p := play(t, tt.o, seed, seed%3 != 0)
				h := header(tt.o, seed)
				var first bytes.Buffer
				if err := Write(&first, h, p.g); err != nil {
					t.Fatal(err)
				}
				text := first.String()
				for _, m := range []string{"*", "!", "^", "tiger "} {
					marks[m] += strings.Count(text, m)
				}
				got, err := Parse(strings.NewReader(text))
				if err != nil {
					t.Fatalf("seed %d: %v\n%s", seed, err, text)
				}
				h.Options = tt.o
				if !reflect.DeepEqual(got.Header, h) {
					t.Errorf("seed %d: header\n%+v\nwant\n%+v", seed, got.Header, h)
				}
				if !reflect.DeepEqual(got.Setup, p.setup) {
					t.Errorf("seed %d: setup\n%+v\nwant\n%+v", seed, got.Setup, p.setup)
				}
				if !reflect.DeepEqual(got.Actions, p.actions) {
					t.Errorf("seed %d: the actions differ", seed)
				}
				if len(got.Lines) != len(got.Actions) {
					t.Errorf("seed %d: %d lines for %d actions", seed, len(got.Lines), len(got.Actions))
				}
				if !reflect.DeepEqual(got.Game.Results(), p.g.Results()) {
					t.Errorf("seed %d: results\n%+v\nwant\n%+v", seed, got.Game.Results(), p.g.Results())
				}
				if !reflect.DeepEqual(got.Game.Placings(), p.g.Placings()) {
					t.Errorf("seed %d: placings %v, want %v", seed, got.Game.Placings(), p.g.Placings())
				}
				for seat := range tt.o.Players {
					if got.Game.Abandoned(seat) != p.g.Abandoned(seat) || got.Game.Left(seat) != p.g.Left(seat) ||
						got.Game.Timeouts(seat) != p.g.Timeouts(seat) || got.Game.Decisions(seat) != p.g.Decisions(seat) {
						t.Errorf("seed %d: seat %s's timeouts, leaving or decisions differ", seed, letter(seat))
					}
				}
				var second bytes.Buffer
				if err := Write(&second, got.Header, got.Game); err != nil {
					t.Fatal(err)
				}
				if second.String() != text {
					t.Errorf("seed %d: written again:\n%s\nfirst:\n%s", seed, second.String(), text)
				}
			}
		})
	}
	// The games must hold every mark, or the test proves less than it says.
	for _, m := range []string{"*", "!", "^", "tiger "} {
		if marks[m] == 0 {
			t.Errorf("no game holds %q", m)
		}
	}
}

func TestWriteRefuses(t *testing.T) {
	o := engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}
	done := play(t, o, 1, false).g
	inPlay, _ := engine.New(o, 1)
	tests := []struct {
		name string
		h    func(h *Header)
		g    *engine.Game
		want string
	}{
		{"ErrGameNotOver", func(*Header) {}, inPlay, "notation: the game is not over: only a finished game is written"},
		{"ErrSeatsMissing", func(h *Header) { h.Seats = h.Seats[:2] }, done, "notation: 2 seats named for a game of 3 players"},
		{"ErrSeatWithoutName", func(h *Header) { h.Seats[1].Name = "" }, done, "notation: seat B has no name"},
		{"ErrLineBreak", func(h *Header) { h.Event = "a\nb" }, done, `notation: the Event tag's value "a\nb" is not one line of printable UTF-8 text`},
		{"ErrExtraTagName", func(h *Header) { h.Extra = []Tag{{"Two words", "x"}} }, done, `notation: "Two words" is not a tag name (a letter, then letters, digits or _)`},
		{"ErrExtraTagKnown", func(h *Header) { h.Extra = []Tag{{"RatingB", "1500"}} }, done, "notation: the extra tag RatingB is one the notation writes itself"},
		{"ErrExtraTagTwice", func(h *Header) { h.Extra = append(h.Extra, Tag{"Round", "final"}) }, done, "notation: the extra tag Round is given twice"},
		{"ErrPace", func(h *Header) { h.Pace = "blitz" }, done, `notation: the pace "blitz" is live or correspondence`},
		{"ErrDate", func(h *Header) { h.Date = time.Date(12026, 1, 1, 0, 0, 0, 0, time.UTC) }, done, "notation: the date 12026-01-01 00:00:00 +0000 UTC is not a day of the years 1 to 9999"},
		{"ErrLineTooLong", func(h *Header) { h.Event = strings.Repeat("x", MaxLine) }, done, "notation: the Event tag's line is over 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := header(o, 1)
			tt.h(&h)
			err := Write(&bytes.Buffer{}, h, tt.g)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}
