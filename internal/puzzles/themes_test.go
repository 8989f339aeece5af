package puzzles

import (
	"slices"
	"strings"
	"testing"

	"nothanks/internal/engine"
)

// seq is the cards from a to b.
func seq(a, b int) []int {
	var out []int
	for c := a; c <= b; c++ {
		out = append(out, c)
	}
	return out
}

func TestThemes(t *testing.T) {
	tests := []struct {
		name  string
		first []int
		moves string
		best  engine.ActionKind
		want  []string
	}{
		// Seat 0 took 20; 21 extends it.
		{"Run", []int{20, 21}, "t", engine.Take, []string{ThemeRun}},
		{"RunPassedIsMilk", []int{20, 21}, "t", engine.Pass, []string{ThemeRun, ThemeMilk}},
		// Seat 0 holds 20 and 22; 21 joins them.
		{"Bridge", []int{20, 22, 21}, "tt", engine.Take, []string{ThemeRun, ThemeBridge}},
		{"NoRun", []int{20, 23}, "t", engine.Take, []string{}},
		// Seat 0 passes 22 and seat 1 takes it; seat 1 and 2 pass 5 and
		// seat 0 takes it: seat 0 faces 21, next to seat 1's 22.
		{"Block", []int{22, 5, 21}, "pt ppt", engine.Take, []string{ThemeBlock}},
		{"NoBlockWhenPassing", []int{22, 5, 21}, "pt ppt", engine.Pass, []string{}},
		// 10 with 5 tokens on it, to seat 2 without cards: 2 × 5 ≥ 10.
		{"RichPot", []int{10}, "ppppp", engine.Take, []string{ThemeRichPot}},
		{"FourTokensAreNoRichPot", []int{10}, "pppp", engine.Take, []string{}},
		{"FiveTokensOn35AreNoRichPot", []int{35}, "ppppp", engine.Pass, []string{}},
		// Seat 0 took 3 to 22; 35 is up with 3 cards face down.
		{"LastCards", append(seq(3, 22), 35), strings.Repeat("t", 20), engine.Pass, []string{ThemeLastCards}},
		{"FourCardsLeft", append(seq(3, 21), 35), strings.Repeat("t", 19), engine.Pass, []string{}},
		// 35 has gone round 9 times: seat 0 holds 2 tokens, the pot 27.
		{"FewTokens", []int{35}, strings.Repeat("ppp", 9), engine.Pass, []string{ThemeRichPot, ThemeFewTokens}},
		{"ThreeTokensAreNotFew", []int{35}, strings.Repeat("ppp", 8), engine.Pass, []string{ThemeRichPot}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, eg := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal(tt.first)}}, tt.moves)
			v := eg.View(eg.Turn())
			if got := Themes(v, tt.best); !slices.Equal(got, tt.want) {
				t.Errorf("seat %d, card %d, pot %d, deck %d: themes %v, want %v", v.Viewer, v.ActiveCard, v.Pot, v.DeckLeft, got, tt.want)
			}
		})
	}
}

func TestThemeNamesAreStable(t *testing.T) {
	want := []string{"run", "bridge", "milk", "block", "rich-pot", "last-cards", "few-tokens"}
	if got := ThemeNames(); !slices.Equal(got, want) {
		t.Errorf("themes %v, want %v", got, want)
	}
}
