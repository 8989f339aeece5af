package puzzles

import (
	"nothanks/internal/engine"
)

// Themes of a puzzle: stable identifiers, lower case and hyphenated, that
// the site translates. Each is read from the solver's view of the first
// step and the best action there (see docs/puzzles.md).
const (
	// ThemeRun: the active card is next to one of the seat's cards, so
	// taking it extends a run (or joins two).
	ThemeRun = "run"
	// ThemeBridge: the active card joins two of the seat's runs (both its
	// neighbours are the seat's).
	ThemeBridge = "bridge"
	// ThemeRichPot: the pot is at least RichPot tokens and at least half
	// of what the card would add to the seat's card points.
	ThemeRichPot = "rich-pot"
	// ThemeLastCards: LastCards or fewer cards are left in the deck.
	ThemeLastCards = "last-cards"
	// ThemeBlock: the active card is next to another seat's card and the
	// best action is to take it.
	ThemeBlock = "block"
	// ThemeFewTokens: the seat holds FewTokens tokens or fewer.
	ThemeFewTokens = "few-tokens"
	// ThemeMilk: the active card is next to one of the seat's cards and
	// the best action is to pass, letting it go round for more tokens.
	ThemeMilk = "milk"
)

// The themes' thresholds.
const (
	RichPot   = 5
	LastCards = 3
	FewTokens = 2
)

// theme is one theme's test.
type theme struct {
	name string
	has  func(v engine.View, best engine.ActionKind) bool
}

// themes in the order a puzzle lists them.
var themes = []theme{
	{ThemeRun, func(v engine.View, _ engine.ActionKind) bool { return isRun(v) }},
	{ThemeBridge, func(v engine.View, _ engine.ActionKind) bool { return isBridge(v) }},
	{ThemeMilk, isMilk},
	{ThemeBlock, isBlock},
	{ThemeRichPot, func(v engine.View, _ engine.ActionKind) bool { return isRichPot(v) }},
	{ThemeLastCards, func(v engine.View, _ engine.ActionKind) bool { return isLastCards(v) }},
	{ThemeFewTokens, func(v engine.View, _ engine.ActionKind) bool { return isFewTokens(v) }},
}

// ThemeNames lists every theme, in the order a puzzle lists them.
func ThemeNames() []string {
	out := make([]string, len(themes))
	for i, t := range themes {
		out[i] = t.name
	}
	return out
}

// Themes names what the position v (a seat's view with a card to decide
// on) is about, given its best action.
func Themes(v engine.View, best engine.ActionKind) []string {
	out := []string{}
	if v.ActiveCard == 0 || v.Viewer < 0 || v.Viewer >= len(v.Seats) {
		return out
	}
	for _, t := range themes {
		if t.has(v, best) {
			out = append(out, t.name)
		}
	}
	return out
}

func own(v engine.View) engine.CardSet { return engine.SetOf(v.Seats[v.Viewer].Cards...) }

func nextTo(cards engine.CardSet, c int) bool { return cards.Has(c-1) || cards.Has(c+1) }

func isRun(v engine.View) bool { return nextTo(own(v), v.ActiveCard) }

func isBridge(v engine.View) bool {
	cards := own(v)
	return cards.Has(v.ActiveCard-1) && cards.Has(v.ActiveCard+1)
}

func isMilk(v engine.View, best engine.ActionKind) bool { return best == engine.Pass && isRun(v) }

func isBlock(v engine.View, best engine.ActionKind) bool {
	if best != engine.Take {
		return false
	}
	for _, s := range v.Seats {
		if s.Seat != v.Viewer && nextTo(engine.SetOf(s.Cards...), v.ActiveCard) {
			return true
		}
	}
	return false
}

// isRichPot: the pot is big in itself and against the card's cost to the
// seat (a run card costs nothing or less, so any big pot on it is rich).
func isRichPot(v engine.View) bool {
	return v.Pot >= RichPot && 2*v.Pot >= own(v).Cost(v.ActiveCard)
}

func isLastCards(v engine.View) bool { return v.DeckLeft <= LastCards }

func isFewTokens(v engine.View) bool {
	t := v.Seats[v.Viewer].Tokens
	return t != nil && *t <= FewTokens
}
