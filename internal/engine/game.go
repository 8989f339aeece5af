package engine

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// ActionKind is what a player does on their turn.
type ActionKind string

const (
	// Pass puts one of the player's tokens on the active card ("No thanks!").
	Pass ActionKind = "pass"
	// Take takes the active card and every token on it.
	Take ActionKind = "take"
	// LayTiger lays the player's Hidden Tiger in their play area (variant).
	LayTiger ActionKind = "tiger"
	// Leave is a player leaving a game in play for good: their seat is
	// abandoned at once, as after MaxTimeouts timeouts, and the server
	// plays it to the end. It may come at any time, not only on the
	// player's turn, and changes nothing else at the table.
	Leave ActionKind = "leave"
)

// Action is one player's decision.
type Action struct {
	Seat int        `json:"seat"`
	Kind ActionKind `json:"kind"`
	// Timeout marks an action the server took for a player whose time ran out.
	Timeout bool `json:"timeout,omitempty"`
}

type player struct {
	cards       CardSet
	tokens      int
	tigerHeld   bool
	tigerPlayed bool
}

// RoundResult is a scored round. It is public: removed cards and token
// counts are revealed once the round is over.
type RoundResult struct {
	Round      int     `json:"round"`
	Removed    []int   `json:"removed"`
	Cards      [][]int `json:"cards"`
	Tokens     []int   `json:"tokens"`
	CardPoints []int   `json:"card_points"`
	// Tiger is the card each player's laid Tiger stood for (0: none).
	Tiger  []int `json:"tiger,omitempty"`
	Scores []int `json:"scores"`
}

// Game is the whole state of a game, hidden parts included. Only Apply
// changes it; what a player may see of it is View.
type Game struct {
	opts     Options
	setup    Setup
	round    int   // index of the round in play, or of the last round when finished
	deck     []int // face-down cards still to come, next first
	active   int   // the active card; 0 once the game is over
	pot      int   // tokens on the active card
	turn     int   // seat to decide
	players  []player
	results  []RoundResult
	events   []Event
	version  int
	finished bool
	// timeouts counts, per seat, the decisions the server made for a
	// player whose time ran out (public: they are marked in the log).
	timeouts []int
	// left marks the seats whose player left the game (Leave).
	left []bool
	// decisions counts, per seat, the decisions that came to its player
	// while they still held it: their own and the timeouts, not those the
	// server made once the seat was abandoned.
	decisions []int
	// roundStart is the index in events of the round in play's start.
	roundStart int
	// tail is set (once) when a clone took the spare capacity after
	// events to append its own in place (Clone); nil for a game that was
	// never cloned from.
	tail *atomic.Bool
}

// MaxTimeouts is how many decisions a player may let run out in one game:
// at that many they have abandoned it. The server plays their seat to the
// end and they place last, below everyone who stayed.
const MaxTimeouts = 3

// New starts a game whose chance is drawn from seed.
func New(o Options, seed uint64) (*Game, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return NewFromSetup(o, SetupFromSeed(o, seed))
}

// NewFromSetup starts a game with explicit deals, as tests and replays do.
func NewFromSetup(o Options, s Setup) (*Game, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if s.FirstSeat < 0 || s.FirstSeat >= o.Players {
		return nil, fmt.Errorf("engine: first seat %d is not at a table of %d", s.FirstSeat, o.Players)
	}
	if len(s.Deals) != o.Rounds {
		return nil, fmt.Errorf("engine: %d deals for %d rounds", len(s.Deals), o.Rounds)
	}
	for i, d := range s.Deals {
		if err := d.check(o.Variant); err != nil {
			return nil, fmt.Errorf("round %d: %w", i+1, err)
		}
	}
	g := &Game{opts: o, setup: s, players: make([]player, o.Players), timeouts: make([]int, o.Players),
		left: make([]bool, o.Players), decisions: make([]int, o.Players)}
	g.startRound(0)
	return g, nil
}

// Replay rebuilds a game from its setup and the actions applied so far.
func Replay(o Options, s Setup, actions []Action) (*Game, error) {
	g, err := NewFromSetup(o, s)
	if err != nil {
		return nil, err
	}
	for i, a := range actions {
		if err := g.Apply(a); err != nil {
			return nil, fmt.Errorf("engine: replay action %d (%s by seat %d): %w", i+1, a.Kind, a.Seat, err)
		}
	}
	return g, nil
}

func (g *Game) startRound(r int) {
	g.round = r
	deal := g.setup.Deals[r]
	g.active = deal.Deck[0]
	g.deck = deal.Deck[1:]
	g.pot = 0
	g.turn = (g.setup.FirstSeat + r) % g.opts.Players
	for i := range g.players {
		g.players[i] = player{tokens: g.opts.StartingTokens(), tigerHeld: g.opts.HiddenTiger}
	}
	g.roundStart = len(g.events)
	g.log(Event{Kind: EventRoundStart, Seat: g.turn, Card: g.active})
}

// Apply carries out one action. An illegal action returns a *RuleError and
// changes nothing.
func (g *Game) Apply(a Action) error {
	if err := g.check(a); err != nil {
		return err
	}
	p := &g.players[a.Seat]
	if a.Kind == Leave {
		g.left[a.Seat] = true
		g.log(Event{Kind: EventLeave, Seat: a.Seat, Card: g.active, Tokens: g.pot})
		g.version++
		return nil
	}
	if !g.Abandoned(a.Seat) {
		g.decisions[a.Seat]++
	}
	if a.Timeout {
		g.timeouts[a.Seat]++
	}
	switch a.Kind {
	case Pass:
		g.log(Event{Kind: EventPass, Seat: a.Seat, Card: g.active, Tokens: g.pot, Timeout: a.Timeout})
		p.tokens--
		g.pot++
		g.turn = (g.turn + 1) % g.opts.Players
	case Take:
		g.log(Event{Kind: EventTake, Seat: a.Seat, Card: g.active, Tokens: g.pot, Timeout: a.Timeout})
		p.cards = p.cards.With(g.active)
		p.tokens += g.pot
		g.pot = 0
		if len(g.deck) == 0 {
			g.version++
			g.endRound()
			return nil
		}
		g.active, g.deck = g.deck[0], g.deck[1:]
		g.log(Event{Kind: EventFlip, Seat: a.Seat, Card: g.active})
	case LayTiger:
		g.log(Event{Kind: EventTiger, Seat: a.Seat, Card: g.active, Tokens: g.pot, Timeout: a.Timeout})
		p.tigerHeld, p.tigerPlayed = false, true
	}
	g.version++
	return nil
}

// check returns why a is illegal now, or nil.
func (g *Game) check(a Action) error {
	switch {
	case g.finished:
		return ErrGameOver
	case a.Seat < 0 || a.Seat >= len(g.players):
		return ErrUnknownSeat
	case a.Kind == Leave && g.Abandoned(a.Seat):
		return ErrLeft
	case a.Kind == Leave:
		return nil
	case a.Kind != Pass && a.Kind != Take && a.Kind != LayTiger:
		return ErrUnknownAction
	case a.Seat != g.turn:
		return ErrNotYourTurn
	case a.Kind == Pass && g.players[a.Seat].tokens == 0:
		return ErrNoTokens
	case a.Kind == LayTiger && !g.opts.HiddenTiger:
		return ErrNoTiger
	case a.Kind == LayTiger && !g.players[a.Seat].tigerHeld:
		return ErrTigerPlayed
	}
	return nil
}

// Legal lists what seat may do now: nothing unless it is that seat's turn.
func (g *Game) Legal(seat int) []ActionKind {
	var out []ActionKind
	for _, k := range []ActionKind{Take, Pass, LayTiger} {
		if g.check(Action{Seat: seat, Kind: k}) == nil {
			out = append(out, k)
		}
	}
	return out
}

func (g *Game) endRound() {
	n := len(g.players)
	res := RoundResult{
		Round:      g.round + 1,
		Removed:    slices.Clone(g.setup.Deals[g.round].Removed),
		Cards:      make([][]int, n),
		Tokens:     make([]int, n),
		CardPoints: make([]int, n),
		Scores:     make([]int, n),
	}
	if g.opts.HiddenTiger {
		res.Tiger = make([]int, n)
	}
	for i, p := range g.players {
		cards := p.cards
		res.Cards[i] = cards.Cards()
		if p.tigerPlayed {
			res.Tiger[i] = TigerCard(cards)
			if res.Tiger[i] != 0 {
				cards = cards.With(res.Tiger[i])
			}
		}
		res.Tokens[i] = p.tokens
		res.CardPoints[i] = cards.Points()
		res.Scores[i] = res.CardPoints[i] - p.tokens
	}
	g.results = append(g.results, res)
	g.active = 0
	g.log(Event{Kind: EventRoundEnd, Seat: -1})
	if g.round+1 == g.opts.Rounds {
		g.finished = true
		g.turn = -1
		g.log(Event{Kind: EventGameEnd, Seat: -1})
		return
	}
	g.startRound(g.round + 1)
}

// TigerCard is the card a laid Tiger stands for in a play area: the missing
// value that lowers the card points most (the lowest such value on a tie),
// or 0 when no value would lower them, in which case the Tiger counts
// nothing.
func TigerCard(cards CardSet) int {
	best, bestPoints := 0, cards.Points()
	for c := MinCard; c <= MaxCard; c++ {
		if cards.Has(c) {
			continue
		}
		if p := cards.With(c).Points(); p < bestPoints {
			best, bestPoints = c, p
		}
	}
	return best
}

// Options returns the game's options.
func (g *Game) Options() Options { return g.opts }

// Version counts the actions applied; a client acts on the version it saw.
func (g *Game) Version() int { return g.version }

// Finished reports whether the last round has been scored.
func (g *Game) Finished() bool { return g.finished }

// Turn is the seat to decide, or -1 once the game is over.
func (g *Game) Turn() int { return g.turn }

// Round is the round in play, counted from 1 (the last round once over).
func (g *Game) Round() int { return g.round + 1 }

// ActiveCard is the face-up card, or 0 once the game is over.
func (g *Game) ActiveCard() int { return g.active }

// Pot is the number of tokens on the active card.
func (g *Game) Pot() int { return g.pot }

// DeckLeft is the number of face-down cards still to come.
func (g *Game) DeckLeft() int { return len(g.deck) }

// Tokens is the true token count of a seat: hidden information, for the
// server's own use (bots get a View).
func (g *Game) Tokens(seat int) int { return g.players[seat].tokens }

// Cards lists a seat's cards in the round in play, lowest first.
func (g *Game) Cards(seat int) []int { return g.players[seat].cards.Cards() }

// Results lists the scored rounds.
func (g *Game) Results() []RoundResult { return g.results }

// Events is the public event log, oldest first. Callers must not modify it.
func (g *Game) Events() []Event { return slices.Clip(g.events) }

// RoundEvents is the public log of the round in play (of the last round
// once the game is over), from its start. Callers must not modify it.
func (g *Game) RoundEvents() []Event { return slices.Clip(g.events[g.roundStart:]) }

// Totals is each seat's cumulative score over the scored rounds.
func (g *Game) Totals() []int {
	totals := make([]int, len(g.players))
	for _, r := range g.results {
		for i, s := range r.Scores {
			totals[i] += s
		}
	}
	return totals
}

// Timeouts is how many of a seat's decisions were made for it because its
// time ran out.
func (g *Game) Timeouts(seat int) int { return g.timeouts[seat] }

// Abandoned reports whether a seat's player has abandoned the game: they
// let MaxTimeouts decisions run out, or they left it.
func (g *Game) Abandoned(seat int) bool { return g.timeouts[seat] >= MaxTimeouts || g.left[seat] }

// Left reports whether a seat's player left the game (rather than let
// their time run out).
func (g *Game) Left(seat int) bool { return g.left[seat] }

// Decisions is how many decisions came to a seat's player while they held
// it (those made for them when their time ran out included; those the
// server made once they had abandoned it not).
func (g *Game) Decisions(seat int) int { return g.decisions[seat] }

// Placings is the final placing of every seat, nil until the game is over:
// by total, except that players who abandoned the game place after everyone
// who stayed (sharing that place among themselves). Every answer the site
// gives about who won comes from here.
func (g *Game) Placings() []int {
	if !g.finished {
		return nil
	}
	abandoned := make([]bool, len(g.players))
	for i := range abandoned {
		abandoned[i] = g.Abandoned(i)
	}
	return PlacingsAbandoned(g.Totals(), abandoned)
}

// PlacingsAbandoned ranks seats by total like Placings, but seats marked
// abandoned place after every other seat, all on one place.
func PlacingsAbandoned(totals []int, abandoned []bool) []int {
	var stayed []int
	for i, t := range totals {
		if !abandoned[i] {
			stayed = append(stayed, t)
		}
	}
	ranked := Placings(stayed)
	out := make([]int, len(totals))
	worst, k := 0, 0
	for i := range totals {
		if !abandoned[i] {
			out[i] = ranked[k]
			worst = max(worst, ranked[k])
			k++
		}
	}
	for i := range totals {
		if abandoned[i] {
			out[i] = worst + 1
		}
	}
	return out
}

// Placings ranks seats by total, lowest first; equal totals share a placing
// and the next total takes the next placing (21, 21, 30 place 1, 1, 2).
func Placings(totals []int) []int {
	distinct := slices.Clone(totals)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	out := make([]int, len(totals))
	for i, t := range totals {
		idx, _ := slices.BinarySearch(distinct, t)
		out[i] = idx + 1
	}
	return out
}

// Clone returns a deep copy of the game.
//
// The event log, which grows with the game, is not copied: the clone
// shares it. The first clone of a game may append to it in place, after
// the events the game holds (which nobody else writes: readers see only
// their own length); any other clone, and the game itself, append to a
// copy (a clipped slice reallocates on its first append). So a move, which
// clones the cached game and adds its events, costs no copy of the log.
func (g *Game) Clone() *Game {
	c := *g
	c.players = slices.Clone(g.players)
	if g.tail == nil || !g.tail.CompareAndSwap(false, true) {
		c.events = slices.Clip(g.events)
	}
	c.tail = new(atomic.Bool)
	c.results = slices.Clone(g.results)
	c.timeouts = slices.Clone(g.timeouts)
	c.left = slices.Clone(g.left)
	c.decisions = slices.Clone(g.decisions)
	return &c
}

func (g *Game) log(e Event) {
	e.Seq = len(g.events) + 1
	e.Round = g.round + 1
	if g.tail != nil && g.tail.Load() {
		// A clone appends after these events in place: this game's own
		// append goes to a copy.
		g.events, g.tail = slices.Clip(g.events), nil
	}
	g.events = append(g.events, e)
}
