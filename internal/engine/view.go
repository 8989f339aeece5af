package engine

import "slices"

// Spectator is the viewer of a View who holds no seat.
const Spectator = -1

// View is what one viewer may see of a game: the projection. It never holds
// the order of the deck, the cards removed from a round still in play, or a
// token count of any seat but the viewer's own (unless the game is played
// with open tokens) before that count is scored; scored rounds reveal both
// in Results, and a finished game shows every final count.
type View struct {
	Viewer         int           `json:"viewer"`
	Options        Options       `json:"options"`
	Version        int           `json:"version"`
	Round          int           `json:"round"`
	Finished       bool          `json:"finished"`
	StartingTokens int           `json:"starting_tokens"`
	ActiveCard     int           `json:"active_card"`
	Pot            int           `json:"pot"`
	DeckLeft       int           `json:"deck_left"`
	Turn           int           `json:"turn"`
	Seats          []SeatView    `json:"seats"`
	Legal          []ActionKind  `json:"legal"`
	Results        []RoundResult `json:"results"`
	Totals         []int         `json:"totals"`
	// Placings is set once the game is over (players who abandoned the
	// game place last).
	Placings []int `json:"placings,omitempty"`
	// Events is the public log of the round in play, from its start (of the
	// last round once the game is over): everything a player with a perfect
	// memory knows about the round. Earlier rounds are in Results; the
	// whole log is Game.Events.
	Events []Event `json:"events"`
}

// SeatView is one seat as the viewer sees it.
type SeatView struct {
	Seat       int     `json:"seat"`
	Cards      []int   `json:"cards"`
	Runs       [][]int `json:"runs"`
	CardPoints int     `json:"card_points"`
	// Tokens is nil when the viewer may not see the count.
	Tokens      *int `json:"tokens"`
	TigerHeld   bool `json:"tiger_held,omitempty"`
	TigerPlayed bool `json:"tiger_played,omitempty"`
	// Timeouts counts the decisions made for this seat because its time
	// ran out; at MaxTimeouts the player has abandoned the game.
	Timeouts  int  `json:"timeouts,omitempty"`
	Abandoned bool `json:"abandoned,omitempty"`
	// Left: the player left the game (so abandoned it) rather than let
	// their time run out.
	Left bool `json:"left,omitempty"`
}

// OpenView is the spectator's view with every token count shown. It is for
// replays of finished games, where nothing is hidden any more; it still
// holds neither the deck order nor the removed cards of a round in play.
func (g *Game) OpenView() View {
	v := g.View(Spectator)
	for i := range v.Seats {
		t := g.players[i].tokens
		v.Seats[i].Tokens = &t
	}
	return v
}

// View projects the game for viewer: a seat number, or Spectator. Its
// Results and Events share the game's own (the log only grows, and a
// scored round never changes): read them, never write into them; an
// append goes to a copy (they are clipped).
func (g *Game) View(viewer int) View {
	if viewer < 0 || viewer >= len(g.players) {
		viewer = Spectator
	}
	v := View{
		Viewer:         viewer,
		Options:        g.opts,
		Version:        g.version,
		Round:          g.round + 1,
		Finished:       g.finished,
		StartingTokens: g.opts.StartingTokens(),
		ActiveCard:     g.active,
		Pot:            g.pot,
		DeckLeft:       len(g.deck),
		Turn:           g.turn,
		Seats:          make([]SeatView, len(g.players)),
		Results:        slices.Clip(g.results),
		Totals:         g.Totals(),
		Events:         g.RoundEvents(),
	}
	for i, p := range g.players {
		cards := p.cards.Cards()
		sv := SeatView{
			Seat:        i,
			Cards:       cards,
			Runs:        Runs(cards),
			CardPoints:  p.cards.Points(),
			TigerHeld:   p.tigerHeld,
			TigerPlayed: p.tigerPlayed,
			Timeouts:    g.timeouts[i],
			Abandoned:   g.Abandoned(i),
			Left:        g.left[i],
		}
		// Once the last round is scored its token counts are public.
		if i == viewer || g.opts.OpenTokens || g.finished {
			t := p.tokens
			sv.Tokens = &t
		}
		v.Seats[i] = sv
	}
	if viewer != Spectator {
		v.Legal = g.Legal(viewer)
	}
	v.Placings = g.Placings()
	return v
}

// Seen is every card the viewer knows the place of in the round in play:
// cards in play areas and the active card (and, in the Amigo and Tactical
// variants, the cards always removed). The rest are the deck or removed,
// indistinguishably.
func (v View) Seen() CardSet {
	var s CardSet
	for _, sv := range v.Seats {
		s |= SetOf(sv.Cards...)
	}
	if v.ActiveCard != 0 {
		s = s.With(v.ActiveCard)
	}
	return s | SetOf(v.Options.Variant.FixedRemoved()...)
}
