package engine

import (
	"fmt"
	"slices"
)

// Variant is the set of rules a game's deal and tokens follow.
type Variant string

const (
	// Standard: 9 cards removed at random, 11/9/7 Pass tokens.
	Standard Variant = "standard"
	// Amigo (3-5 players): cards 10, 20 and 30 are always removed, then six
	// more at random, so 9 are still out.
	Amigo Variant = "amigo"
	// AmigoHigh (3-5 players): the Amigo variant's alternative for longer
	// runs, removing 10, 19 and 28 instead of 10, 20 and 30.
	AmigoHigh Variant = "amigo-high"
	// Tactical (3-5 players): 10 Pass tokens each, and 10, 20 and 30 removed
	// (plus six at random) as in Amigo.
	Tactical Variant = "tactical"
)

// Variants lists every variant, in the order a form offers them.
var Variants = []Variant{Standard, Amigo, AmigoHigh, Tactical}

// Limits on the number of players and rounds.
const (
	MinPlayers = 3
	MaxPlayers = 7
	MinRounds  = 1
	MaxRounds  = 10
	// RecommendedRounds is what the rules suggest for a full game.
	RecommendedRounds = 4
	// BoxTokens is how many Pass tokens the box holds; no deal may use more.
	BoxTokens = 55
)

// Options are chosen when a game is created and never change.
type Options struct {
	Players int     `json:"players"`
	Rounds  int     `json:"rounds"`
	Variant Variant `json:"variant"`
	// OpenTokens makes every player's token count public.
	OpenTokens bool `json:"open_tokens"`
	// HiddenTiger deals each player a hidden Tiger card every round (see
	// docs/rules.md): once per round, during their turn, a player may lay it
	// in their play area, where it stands for the one missing card that saves
	// them most points. Laying it does not end the turn.
	HiddenTiger bool `json:"hidden_tiger"`
}

// DefaultOptions is a one-round standard game for n players.
func DefaultOptions(n int) Options {
	return Options{Players: n, Rounds: 1, Variant: Standard}
}

// Label is the variant's name as players know it.
func (v Variant) Label() string {
	switch v {
	case Standard:
		return "Standard"
	case Amigo:
		return "Amigo (10, 20, 30 out)"
	case AmigoHigh:
		return "Amigo, long runs (10, 19, 28 out)"
	case Tactical:
		return "Tactical (10 tokens, 10, 20, 30 out)"
	}
	return string(v)
}

// FixedRemoved is the cards a variant always removes before the random ones.
func (v Variant) FixedRemoved() []int {
	switch v {
	case Amigo, Tactical:
		return []int{10, 20, 30}
	case AmigoHigh:
		return []int{10, 19, 28}
	}
	return nil
}

// Validate explains the first thing wrong with the options, or returns nil.
// The error is an *OptionsError naming the field.
func (o Options) Validate() error {
	if o.Players < MinPlayers || o.Players > MaxPlayers {
		return optionsError("players", "a game has %d to %d players, not %d", MinPlayers, MaxPlayers, o.Players)
	}
	if o.Rounds < MinRounds || o.Rounds > MaxRounds {
		return optionsError("rounds", "a game has %d to %d rounds, not %d", MinRounds, MaxRounds, o.Rounds)
	}
	if !slices.Contains(Variants, o.Variant) {
		return optionsError("variant", "unknown variant %q", o.Variant)
	}
	if o.Variant != Standard && o.Players > 5 {
		return optionsError("variant", "the %s variant is for 3 to 5 players", o.Variant.Label())
	}
	if o.Players*o.StartingTokens() > BoxTokens {
		return optionsError("variant", "%d players with %d tokens each need more than the box's %d tokens", o.Players, o.StartingTokens(), BoxTokens)
	}
	return nil
}

// StartingTokens is how many Pass tokens each player gets every round.
func (o Options) StartingTokens() int {
	if o.Variant == Tactical {
		return 10
	}
	switch {
	case o.Players <= 5:
		return 11
	case o.Players == 6:
		return 9
	default:
		return 7
	}
}

// OptionsError says which option is wrong and why.
type OptionsError struct {
	Field string
	Msg   string
	// Format and Args are Msg before it was filled in, for a reader's
	// language.
	Format string
	Args   []any
}

func optionsError(field, format string, args ...any) *OptionsError {
	return &OptionsError{Field: field, Msg: fmt.Sprintf(format, args...), Format: format, Args: args}
}

func (e *OptionsError) Error() string { return "engine: invalid options: " + e.Msg }
