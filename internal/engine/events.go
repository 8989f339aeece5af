package engine

// EventKind names an entry of the public event log.
type EventKind string

const (
	// EventRoundStart: a round began; Seat starts, Card is the first active card.
	EventRoundStart EventKind = "round_start"
	// EventPass: Seat put a token on Card, which had Tokens on it before.
	EventPass EventKind = "pass"
	// EventTake: Seat took Card with the Tokens that were on it.
	EventTake EventKind = "take"
	// EventFlip: Card was turned up from the deck as the new active card.
	EventFlip EventKind = "flip"
	// EventTiger: Seat laid their Hidden Tiger while Card was active.
	EventTiger EventKind = "tiger"
	// EventRoundEnd: the last card was taken and the round was scored.
	EventRoundEnd EventKind = "round_end"
	// EventGameEnd: the last round was scored.
	EventGameEnd EventKind = "game_end"
	// EventLeave: Seat's player left the game; the server plays the seat
	// from now on. Card and Tokens are the active card and its pot then.
	EventLeave EventKind = "leave"
)

// Event is one entry of the public log. Everything in it is seen by every
// player and spectator: it never holds a token count other than the pot.
type Event struct {
	Seq     int       `json:"seq"`
	Round   int       `json:"round"`
	Kind    EventKind `json:"kind"`
	Seat    int       `json:"seat"`
	Card    int       `json:"card,omitempty"`
	Tokens  int       `json:"tokens"`
	Timeout bool      `json:"timeout,omitempty"`
}

// Action returns the player action an event records, if it records one.
func (e Event) Action() (Action, bool) {
	switch e.Kind {
	case EventPass:
		return Action{Seat: e.Seat, Kind: Pass, Timeout: e.Timeout}, true
	case EventTake:
		return Action{Seat: e.Seat, Kind: Take, Timeout: e.Timeout}, true
	case EventTiger:
		return Action{Seat: e.Seat, Kind: LayTiger, Timeout: e.Timeout}, true
	case EventLeave:
		return Action{Seat: e.Seat, Kind: Leave}, true
	}
	return Action{}, false
}
