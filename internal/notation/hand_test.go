package notation

import (
	"slices"
	"strings"
	"testing"

	"nothanks/internal/engine"
)

// handGame is a one-round 3-player game written by hand. The running token
// counts (A, B, C after each line, 11 each to start) and the cards taken
// were worked out on paper, not by the code under test.
const handGame = `[Site "nothanks.example"]
[Game "https://nothanks.example/games/7"]
[Date "2026-12-07"]
[Event "Sunday club"]
[Variant "standard"]
[Rounds "1"]
[Players "3"]
[OpenTokens "no"]
[HiddenTiger "no"]
[Ranked "no"]
[Pace "live"]
[SeatA "Ayo"]
[RatingA "1523"]
[SeatB "Bex"]
[SeatC "Club bot"]
[BotC "heuristic"]
[Result "A 53, B 63, C 64"]
[Table "3"]

round 1, A starts
33: A- B- C- A- B+4             # A 9, B 14, C 10
3: B+0                          # B: 3 33
5: B- C+1                       # B 13, C 11
6: C+0                          # C: 5 6
34: C- A- B- C- A- B+5          # A 7, B 17, C 9
7: B- C+1                       # B 16, C 10; C: 5 6 7
9: C- A+1                       # C 9, A 8
10: A+0                         # A: 9 10
31: A- B- C- A- B- C- A+6       # A 12, B 14, C 7
11: A+0                         # A: 9 10 11 31
13: A- B+1                      # A 11, B 15
14: B+0                         # B: 3 13 14 33 34
29: B- C- A- B- C+4             # A 10, B 13, C 10
30: C+0                         # C: 5 6 7 29 30
15: C- A- B+2                   # A 9, B 15, C 9
17: B- C- A+2                   # A 11, B 14, C 8
18: A+0                         # A: 9 10 11 17 18 31
27: A- B- C- A- B- C- A- B- C+8 # A 8, B 11, C 14
19: C- A+1                      # A 9, C 13
21: A- B- C+2                   # A 8, B 10, C 15
22: C+0                         # C: 5 6 7 21 22 27 29 30
26: C- A- B- C- A- B+5          # A 6, B 14, C 13
25: B+0                         # B: 3 13 14 15 25 26 33 34
23: B- C- A- B- C- A- B- C+7    # A 4, B 11, C 18
removed 4 8 12 16 20 24 28 32 35
score A: 9 10 11 17 18 19 31 = 57 points, 4 tokens, 53
score B: 3 13 14 15 25 26 33 34 = 74 points, 11 tokens, 63
score C: 5 6 7 21 22 23 27 29 30 = 82 points, 18 tokens, 64
`

// The hand-worked end of the round:
//
//	A: 9 10 11 | 17 18 19 | 31        = 9 + 17 + 31      = 57 points, 4 tokens:  53
//	B: 3 | 13 14 15 | 25 26 | 33 34   = 3 + 13 + 25 + 33 = 74 points, 11 tokens: 63
//	C: 5 6 7 | 21 22 23 | 27 | 29 30  = 5 + 21 + 27 + 29 = 82 points, 18 tokens: 64
//
// and the tokens add up to the box's 33 (4 + 11 + 18).
func TestParseHandGame(t *testing.T) {
	wantCards := [][]int{{9, 10, 11, 17, 18, 19, 31}, {3, 13, 14, 15, 25, 26, 33, 34}, {5, 6, 7, 21, 22, 23, 27, 29, 30}}
	wantPoints := []int{57, 74, 82}
	wantTokens := []int{4, 11, 18}
	wantScores := []int{53, 63, 64}
	// Without its removed and score lines and Result the text says the
	// same game: they are checked when present, never needed.
	var bare []string
	for _, l := range strings.Split(handGame, "\n") {
		if !strings.HasPrefix(l, "removed") && !strings.HasPrefix(l, "score") && !strings.HasPrefix(l, "[Result") {
			bare = append(bare, l)
		}
	}
	tests := []struct {
		name string
		text string
		// firstLine is the line of round 1's first card.
		firstLine int
	}{
		{"ScoredAsByHand", handGame, 21},
		{"ScoredAsByHandWithoutScoreLines", strings.Join(bare, "\n"), 20}, // no Result line
		{"ScoredAsByHandWithoutPots", strings.NewReplacer("+0", "+", "+1 ", "+ ", "+4 ", "+ ").Replace(handGame), 21},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			g := p.Game
			if !g.Finished() {
				t.Fatal("the game is not over")
			}
			r := g.Results()[0]
			for seat := range 3 {
				if got, want := r.Cards[seat], wantCards[seat]; !slices.Equal(got, want) {
					t.Errorf("%s's cards = %v, want %v", letter(seat), got, want)
				}
				if got, want := r.CardPoints[seat], wantPoints[seat]; got != want {
					t.Errorf("%s's card points = %d, want %d", letter(seat), got, want)
				}
				if got, want := r.Tokens[seat], wantTokens[seat]; got != want {
					t.Errorf("%s's tokens = %d, want %d", letter(seat), got, want)
				}
				if got, want := r.Scores[seat], wantScores[seat]; got != want {
					t.Errorf("%s's score = %d, want %d", letter(seat), got, want)
				}
			}
			if got, want := r.Removed, []int{4, 8, 12, 16, 20, 24, 28, 32, 35}; !slices.Equal(got, want) {
				t.Errorf("removed = %v, want %v", got, want)
			}
			if got, want := p.Setup.FirstSeat, 0; got != want {
				t.Errorf("first seat = %d, want %d", got, want)
			}
			// 24 takes and, counting the dashes line by line, 50 passes
			// (as many as the tokens taken: 4+1+5+1+1+6+1+4+2+2+8+1+2+5+7).
			if got, want := len(p.Actions), 24+50; got != want {
				t.Errorf("%d actions, want %d", got, want)
			}
			if got, want := p.Lines[0], tt.firstLine; got != want {
				t.Errorf("the first action is on line %d, want %d", got, want)
			}
			if got, want := p.Actions[4], (engine.Action{Seat: 1, Kind: engine.Take}); got != want {
				t.Errorf("the fifth action = %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseHandGameHeader(t *testing.T) {
	p, err := Parse(strings.NewReader(handGame))
	if err != nil {
		t.Fatal(err)
	}
	h := p.Header
	if got, want := h.Date.Format("2006-01-02 15:04 MST"), "2026-12-07 00:00 UTC"; got != want {
		t.Errorf("date = %s, want %s", got, want)
	}
	if h.Site != "nothanks.example" || h.URL != "https://nothanks.example/games/7" || h.Event != "Sunday club" || h.Pace != "live" || h.Ranked {
		t.Errorf("header = %+v", h)
	}
	if got, want := h.Options, (engine.Options{Players: 3, Rounds: 1, Variant: engine.Standard}); got != want {
		t.Errorf("options = %+v, want %+v", got, want)
	}
	if len(h.Seats) != 3 || h.Seats[0].Name != "Ayo" || h.Seats[0].Rating == nil || *h.Seats[0].Rating != 1523 ||
		h.Seats[1].Name != "Bex" || h.Seats[1].Rating != nil || h.Seats[2].Bot != "heuristic" {
		t.Errorf("seats = %+v", h.Seats)
	}
	if got, want := h.Extra, []Tag{{"Table", "3"}}; !slices.Equal(got, want) {
		t.Errorf("extra = %v, want %v", got, want)
	}
}

// Written back, the hand game is the same text but for its comments, its
// spacing and the unknown tag, which comes after Result.
func TestWriteHandGame(t *testing.T) {
	p, err := Parse(strings.NewReader(handGame))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, p.Header, p.Game); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(handGame, "\n") {
		if l, _, _ = strings.Cut(l, "#"); l != "" {
			want = append(want, strings.Join(strings.Fields(l), " "))
		}
	}
	got := strings.Split(strings.TrimSuffix(strings.ReplaceAll(b.String(), "\n\n", "\n"), "\n"), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("written:\n%s\nwant the lines:\n%s", b.String(), strings.Join(want, "\n"))
	}
}
