package notation

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"nothanks/internal/engine"
)

// Write writes a finished game in the notation, ending with a line end.
// The options written are the game's own (h.Options is not used); h.Seats
// names every seat. A file of several games is their texts one after the
// other with a blank line between (docs/notation.md).
func Write(w io.Writer, h Header, g *engine.Game) error {
	buf, err := appendGame(make([]byte, 0, 4096), h, g)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

func appendGame(b []byte, h Header, g *engine.Game) ([]byte, error) {
	if g == nil || !g.Finished() {
		return b, errors.New("notation: the game is not over: only a finished game is written")
	}
	o := g.Options()
	if len(h.Seats) != o.Players {
		return b, fmt.Errorf("notation: %d seats named for a game of %d players", len(h.Seats), o.Players)
	}
	tw := tagWriter{b: b}
	if h.Site != "" {
		tw.tag("Site", h.Site)
	}
	if h.URL != "" {
		tw.tag("Game", h.URL)
	}
	if !h.Date.IsZero() {
		if y := h.Date.UTC().Year(); y < 1 || y > 9999 {
			tw.fail(fmt.Errorf("notation: the date %s is not a day of the years 1 to 9999", h.Date))
		}
		tw.tag("Date", h.Date.UTC().Format(dateLayout))
	}
	if h.Event != "" {
		tw.tag("Event", h.Event)
	}
	tw.tag("Variant", string(o.Variant))
	tw.tag("Rounds", strconv.Itoa(o.Rounds))
	tw.tag("Players", strconv.Itoa(o.Players))
	tw.tag("OpenTokens", yesNo(o.OpenTokens))
	tw.tag("HiddenTiger", yesNo(o.HiddenTiger))
	tw.tag("Ranked", yesNo(h.Ranked))
	if h.Pace != "" {
		if h.Pace != "live" && h.Pace != "correspondence" {
			tw.fail(fmt.Errorf("notation: the pace %q is live or correspondence", h.Pace))
		}
		tw.tag("Pace", h.Pace)
	}
	for i, s := range h.Seats {
		l := letter(i)
		if s.Name == "" {
			tw.fail(fmt.Errorf("notation: seat %s has no name", l))
		}
		tw.tag("Seat"+l, s.Name)
		if s.Bot != "" {
			tw.tag("Bot"+l, s.Bot)
		}
		if s.Rating != nil {
			tw.tag("Rating"+l, strconv.Itoa(*s.Rating))
		}
	}
	var result []byte
	for i, t := range g.Totals() {
		if i > 0 {
			result = append(result, ", "...)
		}
		result = append(result, byte('A'+i), ' ')
		result = strconv.AppendInt(result, int64(t), 10)
	}
	tw.tag("Result", string(result))
	for i, t := range h.Extra {
		if !validName(t.Name) {
			tw.fail(fmt.Errorf("notation: %q is not a tag name (a letter, then letters, digits or _)", t.Name))
		} else if known(t.Name) {
			tw.fail(fmt.Errorf("notation: the extra tag %s is one the notation writes itself", t.Name))
		} else if slices.ContainsFunc(h.Extra[:i], func(u Tag) bool { return u.Name == t.Name }) {
			tw.fail(fmt.Errorf("notation: the extra tag %s is given twice", t.Name))
		}
		tw.tag(t.Name, t.Value)
	}
	if tw.err != nil {
		return b, tw.err
	}
	return appendBody(tw.b, g), nil
}

const dateLayout = "2006-01-02"

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// tagWriter appends tag lines, keeping the first problem.
type tagWriter struct {
	b   []byte
	err error
}

func (tw *tagWriter) fail(err error) {
	if tw.err == nil {
		tw.err = err
	}
}

func (tw *tagWriter) tag(name, value string) {
	if !validValue(value) {
		tw.fail(fmt.Errorf("notation: the %s tag's value %q is not one line of printable UTF-8 text", name, value))
		return
	}
	start := len(tw.b)
	tw.b = append(tw.b, '[')
	tw.b = append(tw.b, name...)
	tw.b = append(tw.b, ' ', '"')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			tw.b = append(tw.b, '\\', c)
		} else {
			tw.b = append(tw.b, c)
		}
	}
	tw.b = append(tw.b, '"', ']')
	if len(tw.b)-start > MaxLine {
		tw.fail(fmt.Errorf("notation: the %s tag's line is over %d bytes", name, MaxLine))
	}
	tw.b = append(tw.b, '\n')
}

// validValue reports whether a tag value can be written and read back:
// UTF-8 with no control character but the tab.
func validValue(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// appendBody appends the rounds: the events of the public log, each card on
// its own line, and each round's removed cards and scores once it is scored.
func appendBody(b []byte, g *engine.Game) []byte {
	results := g.Results()
	for _, e := range g.Events() {
		switch e.Kind {
		case engine.EventRoundStart:
			b = append(b, "\nround "...)
			b = strconv.AppendInt(b, int64(e.Round), 10)
			b = append(b, ", "...)
			b = append(b, byte('A'+e.Seat))
			b = append(b, " starts\n"...)
			b = strconv.AppendInt(b, int64(e.Card), 10)
			b = append(b, ':')
		case engine.EventFlip:
			b = strconv.AppendInt(b, int64(e.Card), 10)
			b = append(b, ':')
		case engine.EventPass:
			b = append(b, ' ', byte('A'+e.Seat), '-')
			b = timeoutMark(b, e)
		case engine.EventTake:
			b = append(b, ' ', byte('A'+e.Seat), '+')
			b = strconv.AppendInt(b, int64(e.Tokens), 10)
			b = timeoutMark(b, e)
			b = append(b, '\n')
		case engine.EventTiger:
			b = append(b, ' ', byte('A'+e.Seat), '^')
			b = timeoutMark(b, e)
		case engine.EventLeave:
			b = append(b, ' ', byte('A'+e.Seat), '!')
		case engine.EventRoundEnd:
			b = appendScores(b, results[e.Round-1])
		}
	}
	return b
}

func timeoutMark(b []byte, e engine.Event) []byte {
	if e.Timeout {
		return append(b, '*')
	}
	return b
}

func appendScores(b []byte, r engine.RoundResult) []byte {
	b = append(b, "removed"...)
	removed := r.Removed
	if !slices.IsSorted(removed) {
		removed = slices.Sorted(slices.Values(removed))
	}
	for _, c := range removed {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(c), 10)
	}
	b = append(b, '\n')
	for seat, cards := range r.Cards {
		b = append(b, "score "...)
		b = append(b, byte('A'+seat), ':')
		if len(cards) == 0 {
			b = append(b, " no cards"...)
		}
		for _, c := range cards {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(c), 10)
		}
		if r.Tiger != nil && r.Tiger[seat] != 0 {
			b = append(b, " tiger "...)
			b = strconv.AppendInt(b, int64(r.Tiger[seat]), 10)
		}
		b = append(b, " = "...)
		b = strconv.AppendInt(b, int64(r.CardPoints[seat]), 10)
		b = append(b, " points, "...)
		b = strconv.AppendInt(b, int64(r.Tokens[seat]), 10)
		if r.Tokens[seat] == 1 {
			b = append(b, " token, "...)
		} else {
			b = append(b, " tokens, "...)
		}
		b = strconv.AppendInt(b, int64(r.Scores[seat]), 10)
		b = append(b, '\n')
	}
	return b
}
