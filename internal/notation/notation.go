// Package notation is the plain-text record of a whole No Thanks! game: tag
// lines (who sat where, the options, the result) and then every card turned
// up with the decisions on it, round by round, with each round's removed
// cards and scores. People can read it, write it by hand and diff it, as
// chess players do PGN. docs/notation.md describes the format.
//
// Write writes a finished game; Parse reads one game back and checks it
// against the rules by replaying it through the engine; ParseMany and
// Reader read a file of several games (a player's download, a monthly
// database file).
//
// It imports the standard library and nothanks/internal/engine only: no
// SQL, no HTTP, no other package of this module.
package notation

import (
	"strconv"
	"time"

	"nothanks/internal/engine"
)

// Limits on a text read.
const (
	// MaxText is the size of the longest game (and, for Parse, the longest
	// text) read.
	MaxText = 1 << 20
	// MaxLine is the length of the longest line read, its line end left out.
	MaxLine = 4 << 10
)

// Header is a game's tags.
type Header struct {
	// Site is the site the game was played on ("nothanks.example").
	Site string `json:"site,omitempty"`
	// URL is the game's address (the Game tag).
	URL string `json:"url,omitempty"`
	// Event is what the game was played in, such as a tournament's name.
	Event string `json:"event,omitempty"`
	// Date is the UTC day the game started; zero when absent.
	Date   time.Time `json:"date,omitzero"`
	Ranked bool      `json:"ranked,omitempty"`
	// Pace is "live", "correspondence" or empty.
	Pace string `json:"pace,omitempty"`
	// Options are the game's. Write ignores them and writes the game's own.
	Options engine.Options `json:"options"`
	// Seats are by seat: seat 0 is A.
	Seats []Seat `json:"seats"`
	// Extra are the tags the notation does not know, in the order read.
	Extra []Tag `json:"extra,omitempty"`
}

// Seat is a seat's player.
type Seat struct {
	Name string `json:"name"`
	// Bot is the level of the bot that played the seat ("strong"), if one did.
	Bot string `json:"bot,omitempty"`
	// Rating is the player's rating before the game, if known.
	Rating *int `json:"rating,omitempty"`
}

// Tag is a tag line: [Name "Value"].
type Tag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Parsed is an imported game: everything to rebuild it with engine.Replay.
type Parsed struct {
	Header Header
	// Setup is the game's chance: the first seat and, per round, the deal
	// (Deck: the cards in the order turned up; Removed: the 9 others,
	// lowest first). Of a game still in play (ParseOptions.Partial) the
	// cards not yet turned up are unknown: see docs/notation.md.
	Setup engine.Setup
	// Actions are the decisions in order: Timeout set for `*`, Leave for
	// `!`, LayTiger for `^`.
	Actions []engine.Action
	// Lines is the line of each action in the text.
	Lines []int
	// Game is the replayed game.
	Game *engine.Game
}

// ParseOptions change what a text may be.
type ParseOptions struct {
	// Partial accepts a game still in play: its text may stop in any
	// round, even before the card on its last line is taken.
	Partial bool
}

// Error is a problem with a text, at a line (0: the text as a whole).
type Error struct {
	Line int
	Msg  string
	// Format and Args are Msg before it was filled in, for a reader's
	// language (Msg is Format filled in, in English).
	Format string
	Args   []any
	// Err is the engine's error behind the problem, if there is one (a
	// *engine.RuleError or an *engine.OptionsError).
	Err error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return "line " + strconv.Itoa(e.Line) + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// letter is a seat's letter: seat 0 is A.
func letter(seat int) string { return string(rune('A' + seat)) }
