package games

import (
	"context"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
)

// Record is the full story of a finished game, hidden parts revealed. Its
// JSON form is documented in docs/record.md.
type Record struct {
	Game       int64          `json:"game"`
	Options    engine.Options `json:"options"`
	Ranked     bool           `json:"ranked"`
	Pace       string         `json:"pace"`
	StartedAt  *time.Time     `json:"started_at"`
	FinishedAt *time.Time     `json:"finished_at"`
	Players    []RecordPlayer `json:"players"`
	Rounds     []RecordRound  `json:"rounds"`
}

// RecordPlayer is a seat in the record.
type RecordPlayer struct {
	Seat      int    `json:"seat"`
	Name      string `json:"name"`
	Bot       string `json:"bot,omitempty"`
	Total     int    `json:"total"`
	Placing   int    `json:"placing"`
	Abandoned bool   `json:"abandoned,omitempty"`
}

// RecordRound is one round: its removed cards, every move, and the result.
type RecordRound struct {
	Round     int           `json:"round"`
	FirstSeat int           `json:"first_seat"`
	Removed   []int         `json:"removed"`
	Moves     []RecordMove  `json:"moves"`
	Results   []RoundResult `json:"results"`
}

// RecordMove is one decision: the seat, pass or take, the active card and
// the tokens on it at that moment.
type RecordMove struct {
	Seat    int               `json:"seat"`
	Action  engine.ActionKind `json:"action"`
	Card    int               `json:"card"`
	Tokens  int               `json:"tokens"`
	Timeout bool              `json:"timeout,omitempty"`
}

// RoundResult is a player's end of a round.
type RoundResult struct {
	Seat       int   `json:"seat"`
	Cards      []int `json:"cards"`
	Tokens     int   `json:"tokens"`
	CardPoints int   `json:"card_points"`
	Tiger      int   `json:"tiger,omitempty"`
	Score      int   `json:"score"`
}

// Record returns a finished game's record for a viewer who may see it.
func (s *Service) Record(ctx context.Context, viewerID *int64, gameID int64) (*Record, *engine.Game, error) {
	st, err := s.load(ctx, gameID)
	if err != nil {
		return nil, nil, err
	}
	t, err := st.Table(viewerID, "")
	if err != nil {
		return nil, nil, err
	}
	if t.Game.Status != db.StatusFinished {
		return nil, nil, apperr.E(apperr.Conflict, "The record is ready when the game is over.")
	}
	eg := st.eg
	r := &Record{Game: t.Game.ID, Options: t.Options, Ranked: t.Game.Ranked, Pace: t.Game.Pace, StartedAt: t.Game.StartedAt, FinishedAt: t.Game.FinishedAt}
	for _, st := range t.Seats {
		p := RecordPlayer{Seat: *st.Seat, Name: Name(st), Abandoned: st.Abandoned}
		if st.BotLevel != nil {
			p.Bot = *st.BotLevel
		}
		if st.Total != nil {
			p.Total = *st.Total
		}
		if st.Place != nil {
			p.Placing = *st.Place
		}
		r.Players = append(r.Players, p)
	}
	for _, e := range eg.Events() {
		switch e.Kind {
		case engine.EventRoundStart:
			r.Rounds = append(r.Rounds, RecordRound{Round: e.Round, FirstSeat: e.Seat})
		case engine.EventPass, engine.EventTake:
			a, _ := e.Action()
			cur := &r.Rounds[len(r.Rounds)-1]
			cur.Moves = append(cur.Moves, RecordMove{Seat: e.Seat, Action: a.Kind, Card: e.Card, Tokens: e.Tokens, Timeout: e.Timeout})
		case engine.EventTiger:
			cur := &r.Rounds[len(r.Rounds)-1]
			cur.Moves = append(cur.Moves, RecordMove{Seat: e.Seat, Action: engine.LayTiger, Card: e.Card, Tokens: e.Tokens, Timeout: e.Timeout})
		case engine.EventLeave:
			cur := &r.Rounds[len(r.Rounds)-1]
			cur.Moves = append(cur.Moves, RecordMove{Seat: e.Seat, Action: engine.Leave, Card: e.Card, Tokens: e.Tokens})
		}
	}
	for i, res := range eg.Results() {
		cur := &r.Rounds[i]
		cur.Removed = res.Removed
		for seat := range res.Scores {
			rr := RoundResult{Seat: seat, Cards: res.Cards[seat], Tokens: res.Tokens[seat], CardPoints: res.CardPoints[seat], Score: res.Scores[seat]}
			if res.Tiger != nil {
				rr.Tiger = res.Tiger[seat]
			}
			cur.Results = append(cur.Results, rr)
		}
	}
	return r, eg, nil
}

// ReplayStep returns the table of a finished game after its first step
// actions, every token count shown (the game is over), and the number of
// steps there are.
func (s *Service) ReplayStep(ctx context.Context, viewerID *int64, gameID int64, step int) (*Table, int, []int, error) {
	st, err := s.load(ctx, gameID)
	if err != nil {
		return nil, 0, nil, err
	}
	t, err := st.Table(viewerID, "")
	if err != nil {
		return nil, 0, nil, err
	}
	if t.Game.Status != db.StatusFinished {
		return nil, 0, nil, apperr.E(apperr.Conflict, "The replay is ready when the game is over.")
	}
	var actions []engine.Action
	var roundStarts []int // the step at which each round begins
	for _, e := range st.eg.Events() {
		if e.Kind == engine.EventRoundStart {
			roundStarts = append(roundStarts, len(actions))
		}
		if a, ok := e.Action(); ok {
			actions = append(actions, a)
		}
	}
	step = min(max(step, 0), len(actions))
	setup, err := SetupOf(st.Game, st.Options)
	if err != nil {
		return nil, 0, nil, apperr.Wrap(err, apperr.Internal, "could not rebuild the game")
	}
	eg, err := engine.Replay(st.Options, setup, actions[:step])
	if err != nil {
		return nil, 0, nil, apperr.Wrap(err, apperr.Internal, "could not rebuild the game")
	}
	v := eg.OpenView()
	t.View = &v
	t.eg = eg
	t.ViewerSeat = engine.Spectator
	return t, len(actions), roundStarts, nil
}
