package notation

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// The examples of docs/notation.md read as the document says: the first
// a finished game, the second a game still in play.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/notation.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, part := range strings.Split(string(doc), "```notation\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, block)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d examples, want 2", len(blocks))
	}
	t.Run("OneRoundGameIsTheTests", func(t *testing.T) {
		// The refusals' line numbers in the document are this game's.
		if blocks[0] != handGame {
			t.Error("the document's one-round game is not handGame")
		}
	})
	t.Run("OneRoundGameIsFinished", func(t *testing.T) {
		p, err := Parse(strings.NewReader(blocks[0]))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.Game.Totals(), []int{53, 63, 64}; !slices.Equal(got, want) {
			t.Errorf("totals %v, want %v", got, want)
		}
	})
	t.Run("HiddenTigerGameIsInPlay", func(t *testing.T) {
		_, err := Parse(strings.NewReader(blocks[1]))
		var e *Error
		if !errors.As(err, &e) || e.Msg != "the game stops in round 2 before its last card is taken" {
			t.Errorf("read as finished: %v", err)
		}
		p, err := ParseWith(strings.NewReader(blocks[1]), ParseOptions{Partial: true})
		if err != nil {
			t.Fatal(err)
		}
		g := p.Game
		if g.Round() != 2 || g.ActiveCard() != 22 || g.Pot() != 3 || !g.Left(0) || g.Timeouts(2) != 1 {
			t.Errorf("round %d, card %d with %d tokens, A left %v, C's timeouts %d", g.Round(), g.ActiveCard(), g.Pot(), g.Left(0), g.Timeouts(2))
		}
		if got, want := g.Results()[0].Tiger, []int{3, 23, 12}; !slices.Equal(got, want) {
			t.Errorf("the Tigers stood for %v, want %v", got, want)
		}
	})
}
