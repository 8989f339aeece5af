// Package bot plays No Thanks! seats. A bot decides only from the View its
// seat is given, never from the hidden state of the game: it knows what a
// player at the table with a perfect memory would know (its own tokens, the
// others' counted from the public log, the cards in play).
//
// The levels are a random bot, a one-line heuristic, and a search (strong,
// and a slower expert) that plays the auction of the active card against
// models of the other players inferred from their play (see SearchBot).
// RuleBot, the search's model of a careful player, is an opponent for
// tournaments; Evaluate judges both actions of a position.
//
// Like the engine, it imports the standard library and the engine only
// (the outside subpackage adds os/exec to seat a bot run as a process).
package bot

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"nothanks/internal/engine"
)

// Level names a bot's strength.
type Level string

const (
	Random    Level = "random"
	Heuristic Level = "heuristic"
	Strong    Level = "strong"
	// Expert is the strong bot's search with ten times the time: for
	// correspondence games and post-game analysis.
	Expert Level = "expert"
)

// Levels lists the levels, weakest first.
var Levels = []Level{Random, Heuristic, Strong, Expert}

// Label is the level's name for players.
func (l Level) Label() string {
	switch l {
	case Random:
		return l.Name() + ": plays at random"
	case Heuristic:
		return l.Name() + ": a simple rule"
	case Strong:
		return l.Name() + ": searches each decision"
	case Expert:
		return l.Name() + ": searches ten times longer (slower)"
	}
	return l.Name()
}

// Name is what the site calls a bot of the level, in menus and at the
// table alike ("Club bot"; at the table with its seat: "Club bot 2").
func (l Level) Name() string {
	switch l {
	case Random:
		return "Beginner bot"
	case Heuristic:
		return "Club bot"
	case Strong:
		return "Strong bot"
	case Expert:
		return "Expert bot"
	}
	return string(l) + " bot"
}

// Bot chooses an action for the seat that a View belongs to.
type Bot interface {
	// Decide returns one of v.Legal. v must be the view of the seat to act.
	Decide(v engine.View, rng *rand.Rand) engine.ActionKind
}

// New returns a bot of the given level.
func New(l Level) (Bot, error) {
	switch l {
	case Random:
		return RandomBot{}, nil
	case Heuristic:
		return HeuristicBot{}, nil
	case Strong:
		return NewSearchBot(StrongBudget), nil
	case Expert:
		return NewSearchBot(ExpertBudget), nil
	}
	return nil, fmt.Errorf("bot: unknown level %q", l)
}

// RandomBot picks any legal action with equal chance.
type RandomBot struct{}

func (RandomBot) Decide(v engine.View, rng *rand.Rand) engine.ActionKind {
	return v.Legal[rng.IntN(len(v.Legal))]
}

// HeuristicBot takes a card when what it costs in card points, less the
// tokens on it, is small next to its cost; the fewer tokens it holds the
// more it accepts (see takeByRule).
type HeuristicBot struct{}

func (HeuristicBot) Decide(v engine.View, _ *rand.Rand) engine.ActionKind {
	if len(v.Legal) == 1 {
		return v.Legal[0]
	}
	if slices.Contains(v.Legal, engine.LayTiger) {
		return engine.LayTiger // a laid Tiger never costs points
	}
	me := v.Seats[v.Viewer]
	tokens := 0
	if me.Tokens != nil {
		tokens = *me.Tokens
	}
	if takeByRule(engine.SetOf(me.Cards...), tokens, v.ActiveCard, v.Pot, 0) {
		return engine.Take
	}
	return engine.Pass
}

// takeByRule is the heuristic's rule, shared with the search bot's
// playouts (which add noise so that playouts differ): take when what the
// card costs in card points, less the tokens on it, is small next to what it
// costs: at most 40% of the cost with tokens to spare, 70% with three or
// fewer left. A card that extends or joins a run costs nothing or less, so
// it is always taken. With no tokens there is no choice. noise moves the
// bar by up to a token either way.
func takeByRule(cards engine.CardSet, tokens, card, pot, noise int) bool {
	if tokens == 0 {
		return true
	}
	cost := cards.Cost(card)
	keep := 4 // tenths of the cost the net may be
	if tokens <= 3 {
		keep = 7
	}
	net := cost - pot
	return 10*net <= keep*cost+10*noise
}

// Tokens returns every seat's token count as the viewer can know it: its own
// (and, with open tokens, everyone's) from the view, the others counted from
// the public log of the round in play, as a player with a perfect memory
// would.
func Tokens(v engine.View) []int {
	out := make([]int, len(v.Seats))
	for i := range out {
		out[i] = v.StartingTokens
	}
	for _, e := range v.Events {
		if e.Round != v.Round {
			continue
		}
		switch e.Kind {
		case engine.EventPass:
			out[e.Seat]--
		case engine.EventTake:
			out[e.Seat] += e.Tokens
		}
	}
	for i, s := range v.Seats {
		if s.Tokens != nil {
			out[i] = *s.Tokens
		}
	}
	return out
}
