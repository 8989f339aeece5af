package engine

// RuleError is an action the rules do not allow. Code is stable and short
// (the JSON API sends it as is); Msg is a sentence for a player.
type RuleError struct {
	Code string
	Msg  string
}

func (e *RuleError) Error() string { return e.Msg }

// The illegal actions. Compare with errors.Is.
var (
	ErrGameOver      = &RuleError{"game_over", "the game is over"}
	ErrUnknownSeat   = &RuleError{"unknown_seat", "there is no such seat at this table"}
	ErrNotYourTurn   = &RuleError{"not_your_turn", "it is not your turn"}
	ErrNoTokens      = &RuleError{"no_tokens", "you have no Pass tokens left, so you must take the card"}
	ErrUnknownAction = &RuleError{"unknown_action", "that is not a move in this game"}
	ErrNoTiger       = &RuleError{"no_tiger", "this game is played without the Hidden Tiger"}
	ErrTigerPlayed   = &RuleError{"tiger_played", "you have already laid your Tiger this round"}
	ErrLeft          = &RuleError{"left", "you have left this game already: the server plays your seat"}
)
