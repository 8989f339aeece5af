package notation

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"nothanks/internal/engine"
)

// A game is read in two steps: the lines' form (tags, then the rounds'
// cards, removed cards and scores, which give the deals), then the rules,
// by replaying the decisions through the engine over those deals. So a
// problem of form is reported before a problem of the rules further up.

// parser reads the lines of one game.
type parser struct {
	opts  ParseOptions
	first int // the game's first line
	h     Header
	o     engine.Options
	// roundsTag is the Rounds tag's line (0: absent, the rounds are those
	// of the text).
	roundsTag int
	// result is the Result tag's totals (nil: absent) and its line.
	result     []int
	resultLine int
	rounds     []*roundText
	// open is the last card line if nobody has taken its card yet.
	open     *cardLine
	lastBody int
}

// roundText is a round as the text gives it.
type roundText struct {
	line    int // the header's
	number  int
	first   int // the seat that starts it
	cards   []*cardLine
	seen    engine.CardSet
	removed int // the removed line's line (0: absent)
	scores  []*scoreLine
	// scoring: a removed or score line came, so no more cards may.
	scoring bool
}

type cardLine struct {
	line      int
	card      int
	decisions []decision
	taken     bool
}

type decision struct {
	seat    int
	kind    engine.ActionKind
	pot     int // tokens taken as written, -1 when not written
	timeout bool
	text    string
}

type scoreLine struct {
	line                  int
	cards                 []int
	tiger                 int
	points, tokens, score int
}

func errorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...), Format: format, Args: args}
}

func parseGame(lines []rawLine, opts ParseOptions) (*Parsed, error) {
	p := &parser{opts: opts, first: lines[0].n}
	var tags []rawTag
	i := 0
	for ; i < len(lines) && lines[i].kind() == tagLine; i++ {
		l := lines[i]
		if l.long {
			return nil, errorf(l.n, "the line is over 4 KiB")
		}
		t, err := parseTag(l)
		if err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	if err := p.tags(tags); err != nil {
		return nil, err
	}
	for _, l := range lines[i:] {
		if err := p.bodyLine(l); err != nil {
			return nil, err
		}
	}
	if err := p.end(lines[len(lines)-1].n); err != nil {
		return nil, err
	}
	return p.replay()
}

// rawTag is a tag line as read.
type rawTag struct {
	name, value string
	line        int
}

// parseTag reads [Name "value"], spaces allowed around its parts and a
// comment after it.
func parseTag(l rawLine) (rawTag, *Error) {
	s := l.text
	form := func() (rawTag, *Error) {
		return rawTag{}, errorf(l.n, `a tag line is written [Name "value"]`)
	}
	i := strings.IndexByte(s, '[') + 1
	i = skipSpace(s, i)
	start := i
	for i < len(s) && isNameByte(s[i], i == start) {
		i++
	}
	t := rawTag{name: s[start:i], line: l.n}
	if t.name == "" {
		return form()
	}
	i = skipSpace(s, i)
	if i == len(s) || s[i] != '"' {
		return form()
	}
	i++
	var v strings.Builder
	for {
		if i == len(s) {
			return rawTag{}, errorf(l.n, "the %s tag's value has no closing quote", t.name)
		}
		c := s[i]
		if c == '"' {
			i++
			break
		}
		if c == '\\' {
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				v.WriteByte(s[i+1])
				i += 2
				continue
			}
			return rawTag{}, errorf(l.n, `in the %s tag's value a backslash comes only before " or \ (\" and \\)`, t.name)
		}
		v.WriteByte(c)
		i++
	}
	i = skipSpace(s, i)
	if i == len(s) || s[i] != ']' {
		return rawTag{}, errorf(l.n, "the %s tag has no closing ]", t.name)
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] != '#' {
		return rawTag{}, errorf(l.n, "the %s tag's line goes on after its ]: one tag a line", t.name)
	}
	t.value = v.String()
	if !validValue(t.value) {
		return rawTag{}, errorf(l.n, "the %s tag's value is not plain text (UTF-8, no control characters)", t.name)
	}
	return t, nil
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func isNameByte(c byte, first bool) bool {
	letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
	return letter || !first && (c >= '0' && c <= '9' || c == '_')
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

// seatTag splits a seat's tag (SeatA, BotB, RatingC) into its kind and
// seat; ok is false for any other name.
func seatTag(name string) (kind string, seat int, ok bool) {
	for _, k := range []string{"Seat", "Bot", "Rating"} {
		if len(name) == len(k)+1 && strings.HasPrefix(name, k) {
			if c := name[len(k)]; c >= 'A' && c <= 'Z' {
				return k, int(c - 'A'), true
			}
		}
	}
	return "", 0, false
}

var knownTags = []string{"Site", "Game", "Date", "Event", "Variant", "Rounds", "Players", "OpenTokens", "HiddenTiger", "Ranked", "Pace", "Result"}

// known reports whether the notation reads a tag itself (so it is not an
// unknown tag to keep).
func known(name string) bool {
	_, _, ok := seatTag(name)
	return ok || slices.Contains(knownTags, name)
}

// tags reads the tags into the header and the options.
func (p *parser) tags(tags []rawTag) *Error {
	seen := map[string]int{}
	var players, variant, result *rawTag
	type seatTags struct{ name, bot, rating *rawTag }
	var seats [26]seatTags
	p.o.Variant = engine.Standard
	for i := range tags {
		t := &tags[i]
		if at, dup := seen[t.name]; dup {
			return errorf(t.line, "the %s tag is given twice (line %d and here)", t.name, at)
		}
		seen[t.name] = t.line
		var err *Error
		switch t.name {
		case "Site":
			p.h.Site = t.value
		case "Game":
			p.h.URL = t.value
		case "Event":
			p.h.Event = t.value
		case "Date":
			d, perr := time.Parse(dateLayout, t.value)
			if perr != nil {
				err = errorf(t.line, "the Date tag is a day written 2026-12-07, not %q", t.value)
			}
			p.h.Date = d
		case "Variant":
			variant = t
			p.o.Variant = engine.Variant(t.value)
		case "Rounds":
			p.roundsTag = t.line
			p.o.Rounds, err = count(t)
		case "Players":
			players = t
			p.o.Players, err = count(t)
		case "OpenTokens":
			p.o.OpenTokens, err = yes(t)
		case "HiddenTiger":
			p.o.HiddenTiger, err = yes(t)
		case "Ranked":
			p.h.Ranked, err = yes(t)
		case "Pace":
			if t.value != "live" && t.value != "correspondence" {
				err = errorf(t.line, "the Pace tag is live or correspondence, not %q", t.value)
			}
			p.h.Pace = t.value
		case "Result":
			result = t
		default:
			kind, seat, ok := seatTag(t.name)
			if !ok {
				p.h.Extra = append(p.h.Extra, Tag{Name: t.name, Value: t.value})
				break
			}
			switch kind {
			case "Seat":
				seats[seat].name = t
				if t.value == "" {
					err = errorf(t.line, "the %s tag is empty: give the player's name", t.name)
				}
			case "Bot":
				seats[seat].bot = t
				if t.value == "" {
					err = errorf(t.line, "the %s tag is empty: give the bot's level", t.name)
				}
			case "Rating":
				seats[seat].rating = t
				if _, ok := parseInt(t.value); !ok {
					err = errorf(t.line, "the %s tag is a whole number, not %q", t.name, t.value)
				}
			}
		}
		if err != nil {
			return err
		}
	}
	if players == nil {
		return errorf(p.first, `the Players tag is missing: it gives the number of players, as in [Players "4"]`)
	}
	o := p.o
	if p.roundsTag == 0 {
		o.Rounds = engine.MinRounds // for now: the rounds of the text, checked at their header
	}
	if err := o.Validate(); err != nil {
		var oe *engine.OptionsError
		if !errors.As(err, &oe) {
			return &Error{Line: players.line, Msg: err.Error(), Err: err}
		}
		line := players.line
		switch {
		case oe.Field == "rounds":
			line = p.roundsTag
		case oe.Field == "variant" && variant != nil:
			line = variant.line
		}
		e := errorf(line, oe.Format, oe.Args...)
		if oe.Field == "variant" && !slices.Contains(engine.Variants, o.Variant) {
			e = errorf(line, "unknown variant %q: the variants are standard, amigo, amigo-high and tactical", o.Variant)
		}
		e.Err = err
		return e
	}
	n := p.o.Players
	for _, t := range tags {
		if _, seat, ok := seatTag(t.name); ok && seat >= n {
			return errorf(t.line, "the %s tag names seat %s, but a table of %d players has seats A to %s", t.name, letter(seat), n, letter(n-1))
		}
	}
	for i := range n {
		st := seats[i]
		if st.name == nil {
			return errorf(p.first, "the Seat%s tag is missing: every seat needs its player's name", letter(i))
		}
		s := Seat{Name: st.name.value}
		if st.bot != nil {
			s.Bot = st.bot.value
		}
		if st.rating != nil {
			r, _ := parseInt(st.rating.value)
			s.Rating = &r
		}
		p.h.Seats = append(p.h.Seats, s)
	}
	if result != nil {
		totals, ok := parseResult(result.value, n)
		if !ok {
			return errorf(result.line, `the Result tag gives every seat's total in seat order, as in [Result "A 12, B 30, C -3"]`)
		}
		p.result, p.resultLine = totals, result.line
	}
	return nil
}

func count(t *rawTag) (int, *Error) {
	n, ok := parseCount(t.value)
	if !ok {
		return 0, errorf(t.line, "the %s tag is a whole number, not %q", t.name, t.value)
	}
	return n, nil
}

func yes(t *rawTag) (bool, *Error) {
	switch t.value {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, errorf(t.line, "the %s tag is yes or no, not %q", t.name, t.value)
}

// parseCount reads digits only (at most 9, so no overflow).
func parseCount(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// parseInt reads digits with an optional minus sign.
func parseInt(s string) (int, bool) {
	if rest, neg := strings.CutPrefix(s, "-"); neg {
		n, ok := parseCount(rest)
		return -n, ok
	}
	return parseCount(s)
}

// parseResult reads "A 12, B 30, C -3": every seat in order.
func parseResult(s string, players int) ([]int, bool) {
	parts := strings.Split(s, ",")
	if len(parts) != players {
		return nil, false
	}
	totals := make([]int, players)
	for i, part := range parts {
		f := strings.Fields(part)
		if len(f) != 2 || f[0] != letter(i) {
			return nil, false
		}
		t, ok := parseInt(f[1])
		if !ok {
			return nil, false
		}
		totals[i] = t
	}
	return totals, true
}

// bodyLine reads a line of the rounds.
func (p *parser) bodyLine(l rawLine) *Error {
	if l.long {
		return errorf(l.n, "the line is over 4 KiB")
	}
	s := l.text
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if s[0] == '[' {
		return errorf(l.n, "a tag comes after the moves: tags come first")
	}
	if p.open != nil {
		return errorf(p.open.line, "nobody takes card %d, yet the game goes on at line %d", p.open.card, l.n)
	}
	p.lastBody = l.n
	switch {
	case s[0] >= '0' && s[0] <= '9':
		return p.cardLine(l.n, s)
	case word(s, "round"):
		return p.roundHeader(l.n, s)
	case word(s, "removed"):
		return p.removedLine(l.n, s)
	case word(s, "score"):
		return p.scoreLine(l.n, s)
	}
	return errorf(l.n, "%q is not a line of the notation: a line is a round header (round 1, A starts), a card (27: A- B- C+2), the removed cards (removed 3 8 …) or a score (score A: …)", clip(s))
}

// word reports whether s begins with the word w.
func word(s, w string) bool {
	return strings.HasPrefix(s, w) && (len(s) == len(w) || s[len(w)] == ' ' || s[len(w)] == '\t')
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func (p *parser) seatError(line, seat int) *Error {
	n := p.o.Players
	return errorf(line, "there is no seat %s at a table of %d players (A to %s)", letter(seat), n, letter(n-1))
}

func isSeatLetter(s string) bool { return len(s) == 1 && s[0] >= 'A' && s[0] <= 'Z' }

func (p *parser) roundHeader(line int, s string) *Error {
	f := strings.Fields(strings.ReplaceAll(s, ",", " , "))
	num, ok := 0, len(f) == 5 && f[2] == "," && isSeatLetter(f[3]) && f[4] == "starts"
	if ok {
		num, ok = parseCount(f[1])
	}
	if !ok {
		return errorf(line, "a round header is written round 2, B starts")
	}
	seat := int(f[3][0] - 'A')
	next := len(p.rounds) + 1
	if next > 1 {
		if prev := p.rounds[next-2]; len(prev.cards) < engine.DeckCards {
			if len(prev.cards) == 1 {
				return errorf(line, "round %d turns up only 1 card before round %d starts: every round turns up %d", prev.number, next, engine.DeckCards)
			}
			return errorf(line, "round %d turns up only %d cards before round %d starts: every round turns up %d", prev.number, len(prev.cards), next, engine.DeckCards)
		}
	}
	switch {
	case num != next:
		return errorf(line, "the next round is round %d, not round %d", next, num)
	case p.roundsTag != 0 && num > p.o.Rounds:
		if p.o.Rounds == 1 {
			return errorf(line, "the game has 1 round (the Rounds tag), so there is no round %d", num)
		}
		return errorf(line, "the game has %d rounds (the Rounds tag), so there is no round %d", p.o.Rounds, num)
	case num > engine.MaxRounds:
		return errorf(line, "a game has at most %d rounds, so there is no round %d", engine.MaxRounds, num)
	case seat >= p.o.Players:
		return p.seatError(line, seat)
	}
	if num > 1 {
		prev := p.rounds[0].first + num - 2
		want := (prev + 1) % p.o.Players
		if seat != want {
			return errorf(line, "round %d starts with %s, the seat after %s who started round %d, not with %s", num, letter(want), letter(prev%p.o.Players), num-1, letter(seat))
		}
	}
	p.rounds = append(p.rounds, &roundText{line: line, number: num, first: seat})
	return nil
}

func (p *parser) cardLine(line int, s string) *Error {
	colon := strings.IndexByte(s, ':')
	card, ok := 0, colon > 0
	if ok {
		card, ok = parseCount(strings.TrimSpace(s[:colon]))
	}
	if !ok {
		return errorf(line, "a card line is written 27: A- B- C+2 (the card, a colon, the decisions on it)")
	}
	if len(p.rounds) == 0 {
		return errorf(line, "card %d comes before the first round's header (round 1, A starts)", card)
	}
	rt := p.rounds[len(p.rounds)-1]
	switch {
	case rt.scoring:
		return errorf(line, "card %d comes after round %d's removed cards or scores, which come after its last card", card, rt.number)
	case len(rt.cards) == engine.DeckCards:
		return errorf(line, "round %d has turned up its %d cards already, so card %d is one too many", rt.number, engine.DeckCards, card)
	case card < engine.MinCard || card > engine.MaxCard:
		return errorf(line, "there is no card %d: the cards are %d to %d", card, engine.MinCard, engine.MaxCard)
	case slices.Contains(p.o.Variant.FixedRemoved(), card):
		return errorf(line, "the %s variant removes card %d, so it is never turned up", p.o.Variant, card)
	case rt.seen.Has(card):
		at := 0
		for _, c := range rt.cards {
			if c.card == card {
				at = c.line
			}
		}
		return errorf(line, "card %d is turned up twice in round %d (line %d and here)", card, rt.number, at)
	}
	cl := &cardLine{line: line, card: card}
	for item := range strings.FieldsSeq(s[colon+1:]) {
		d, ok := parseDecision(item)
		if !ok {
			return errorf(line, "%q is not a decision: write A- for a pass, A+3 for a take of the card with 3 tokens, A^ for laying the Tiger, A! for leaving the game, and add * when the server decided as time ran out", clip(item))
		}
		if d.seat >= p.o.Players {
			return p.seatError(line, d.seat)
		}
		if cl.taken {
			last := cl.decisions[len(cl.decisions)-1]
			return errorf(line, "%s takes card %d, so nothing more happens on it: %s belongs on the next card's line", letter(last.seat), card, d.text)
		}
		cl.decisions = append(cl.decisions, d)
		cl.taken = d.kind == engine.Take
	}
	rt.cards = append(rt.cards, cl)
	rt.seen = rt.seen.With(card)
	if !cl.taken {
		p.open = cl
	}
	return nil
}

// parseDecision reads A-, A+3, A+, A^, A! (and A-*, A+3*, A+*, A^*).
func parseDecision(s string) (decision, bool) {
	if len(s) < 2 || !isSeatLetter(s[:1]) {
		return decision{}, false
	}
	d := decision{seat: int(s[0] - 'A'), pot: -1, text: s}
	rest := s[1:]
	if r, ok := strings.CutSuffix(rest, "*"); ok {
		rest, d.timeout = r, true
	}
	switch {
	case rest == "-":
		d.kind = engine.Pass
	case rest == "^":
		d.kind = engine.LayTiger
	case rest == "!" && !d.timeout:
		d.kind = engine.Leave
	case strings.HasPrefix(rest, "+"):
		d.kind = engine.Take
		if rest != "+" {
			pot, ok := parseCount(rest[1:])
			if !ok {
				return decision{}, false
			}
			d.pot = pot
		}
	default:
		return decision{}, false
	}
	return d, true
}

// over returns the round in play if its 24 cards are turned up, or why a
// line that needs a round over (the removed cards' line, or else a score
// line) may not come yet.
func (p *parser) over(line int, removed bool) (*roundText, *Error) {
	if len(p.rounds) == 0 {
		if removed {
			return nil, errorf(line, "the removed cards come once a round is over, after its header and its %d cards", engine.DeckCards)
		}
		return nil, errorf(line, "the score lines come once a round is over, after its header and its %d cards", engine.DeckCards)
	}
	rt := p.rounds[len(p.rounds)-1]
	if len(rt.cards) < engine.DeckCards {
		if removed {
			return nil, errorf(line, "the removed cards come once round %d is over, but it has turned up only %d of its %d cards", rt.number, len(rt.cards), engine.DeckCards)
		}
		return nil, errorf(line, "the score lines come once round %d is over, but it has turned up only %d of its %d cards", rt.number, len(rt.cards), engine.DeckCards)
	}
	return rt, nil
}

func (p *parser) removedLine(line int, s string) *Error {
	rt, err := p.over(line, true)
	if err != nil {
		return err
	}
	switch {
	case rt.removed != 0:
		return errorf(line, "round %d's removed cards are given twice (line %d and here)", rt.number, rt.removed)
	case rt.scoring:
		return errorf(line, "round %d's removed cards come before its score lines", rt.number)
	}
	f := strings.Fields(s)[1:]
	var removed engine.CardSet
	for _, w := range f {
		c, ok := parseCount(w)
		if !ok {
			return errorf(line, "a removed line is written removed 3 8 11 14 19 23 26 30 33 (the round's 9 removed cards)")
		}
		switch {
		case c < engine.MinCard || c > engine.MaxCard:
			return errorf(line, "there is no card %d: the cards are %d to %d", c, engine.MinCard, engine.MaxCard)
		case removed.Has(c):
			return errorf(line, "card %d is removed twice", c)
		case rt.seen.Has(c):
			at := 0
			for _, cl := range rt.cards {
				if cl.card == c {
					at = cl.line
				}
			}
			return errorf(line, "card %d is turned up in round %d (line %d), so it is not removed", c, rt.number, at)
		}
		removed = removed.With(c)
	}
	if len(f) != engine.RemovedCards {
		return errorf(line, "%d cards are removed each round, not %d", engine.RemovedCards, len(f))
	}
	// 24 cards turned up and 9 others removed are all 33: the variant's
	// fixed removed cards, never turned up, are among them.
	rt.removed, rt.scoring = line, true
	return nil
}

// scoreSpacing sets a score line's punctuation apart from its words.
var scoreSpacing = strings.NewReplacer(":", " : ", ",", " , ", "=", " = ")

func (p *parser) scoreLine(line int, s string) *Error {
	f := strings.Fields(scoreSpacing.Replace(s))
	sl, seat, ok := readScore(f)
	if !ok {
		return errorf(line, "a score line is written score A: 3 4 5 15 29 = 47 points, 11 tokens, 36 (the cards, = the card points, the tokens left and the round's score)")
	}
	sl.line = line
	rt, err := p.over(line, false)
	if err != nil {
		return err
	}
	if seat >= p.o.Players {
		return p.seatError(line, seat)
	}
	if rt.scores == nil {
		rt.scores = make([]*scoreLine, p.o.Players)
	}
	if prev := rt.scores[seat]; prev != nil {
		return errorf(line, "%s's score in round %d is given twice (line %d and here)", letter(seat), rt.number, prev.line)
	}
	rt.scores[seat], rt.scoring = sl, true
	return nil
}

// readScore reads the fields of score A : 3 4 tiger 5 = 3 points , 11 tokens , -8.
func readScore(f []string) (*scoreLine, int, bool) {
	at := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	if at(0) != "score" || !isSeatLetter(at(1)) || at(2) != ":" {
		return nil, 0, false
	}
	sl := &scoreLine{}
	i := 3
	if at(i) == "no" && at(i+1) == "cards" {
		i += 2
	} else {
		for ; i < len(f) && f[i] != "=" && f[i] != "tiger"; i++ {
			c, ok := parseCount(f[i])
			if !ok {
				return nil, 0, false
			}
			sl.cards = append(sl.cards, c)
		}
	}
	if at(i) == "tiger" {
		c, ok := parseCount(at(i + 1))
		if !ok || c == 0 {
			return nil, 0, false
		}
		sl.tiger = c
		i += 2
	}
	var okP, okT, okS bool
	sl.points, okP = parseCount(at(i + 1))
	sl.tokens, okT = parseCount(at(i + 4))
	sl.score, okS = parseInt(at(i + 7))
	ok := at(i) == "=" && okP && (at(i+2) == "points" || at(i+2) == "point") && at(i+3) == "," &&
		okT && (at(i+5) == "tokens" || at(i+5) == "token") && at(i+6) == "," && okS && len(f) == i+8
	return sl, int(f[1][0] - 'A'), ok
}

// end checks that the text holds the whole game (or, partial, a start of
// it) and fixes the number of rounds.
func (p *parser) end(lastLine int) *Error {
	if len(p.rounds) == 0 {
		return errorf(lastLine, "the game has no moves: round 1 is missing (round 1, A starts)")
	}
	if p.roundsTag == 0 {
		p.o.Rounds = len(p.rounds)
	}
	if p.opts.Partial {
		return nil
	}
	last := p.rounds[len(p.rounds)-1]
	if p.open != nil || len(last.cards) < engine.DeckCards {
		return errorf(max(p.lastBody, last.line), "the game stops in round %d before its last card is taken", last.number)
	}
	if len(p.rounds) < p.o.Rounds {
		return errorf(p.lastBody, "the game stops after round %d, but the Rounds tag gives it %d: round %d is missing", len(p.rounds), p.o.Rounds, len(p.rounds)+1)
	}
	return nil
}

// setup is the deals the text shows. Of a round not over (a game still in
// play) the cards not turned up are unknown: the variant's fixed removed
// cards and the lowest others make up the 9 removed, and the rest follow
// in the deck, lowest first.
func (p *parser) setup() engine.Setup {
	s := engine.Setup{FirstSeat: p.rounds[0].first}
	fixed := p.o.Variant.FixedRemoved()
	for r := range p.o.Rounds {
		var d engine.Deal
		var seen engine.CardSet
		if r < len(p.rounds) {
			for _, cl := range p.rounds[r].cards {
				d.Deck = append(d.Deck, cl.card)
			}
			seen = p.rounds[r].seen
		}
		complete := len(d.Deck) == engine.DeckCards
		if !complete {
			d.Removed = slices.Clone(fixed)
		}
		for c := engine.MinCard; c <= engine.MaxCard; c++ {
			switch {
			case seen.Has(c) || !complete && slices.Contains(fixed, c):
			case len(d.Removed) < engine.RemovedCards:
				d.Removed = append(d.Removed, c)
			default:
				d.Deck = append(d.Deck, c)
			}
		}
		slices.Sort(d.Removed)
		s.Deals = append(s.Deals, d)
	}
	return s
}

// replay plays the decisions through the engine, checking each and the
// scores and result the text gives.
func (p *parser) replay() (*Parsed, error) {
	p.h.Options = p.o
	out := &Parsed{Header: p.h, Setup: p.setup()}
	g, err := engine.NewFromSetup(p.o, out.Setup)
	if err != nil {
		// The form's checks make every deal legal; this is a safeguard.
		e := errorf(p.rounds[0].line, "the deals are not legal: %s", err.Error())
		e.Err = err
		return nil, e
	}
	n := 0
	for _, rt := range p.rounds {
		for _, cl := range rt.cards {
			n += len(cl.decisions)
		}
	}
	out.Actions, out.Lines = make([]engine.Action, 0, n), make([]int, 0, n)
	for ri, rt := range p.rounds {
		for _, cl := range rt.cards {
			for _, d := range cl.decisions {
				// A take out of turn is the engine's to refuse, before its pot.
				if d.kind == engine.Take && d.pot >= 0 && d.pot != g.Pot() && d.seat == g.Turn() {
					if g.Pot() == 1 {
						return nil, errorf(cl.line, "%s takes card %d with 1 token on it, not %d", letter(d.seat), cl.card, d.pot)
					}
					return nil, errorf(cl.line, "%s takes card %d with %d tokens on it, not %d", letter(d.seat), cl.card, g.Pot(), d.pot)
				}
				a := engine.Action{Seat: d.seat, Kind: d.kind, Timeout: d.timeout}
				if err := g.Apply(a); err != nil {
					return nil, ruleError(cl.line, g, cl.card, d, err)
				}
				out.Actions = append(out.Actions, a)
				out.Lines = append(out.Lines, cl.line)
			}
		}
		if len(g.Results()) > ri {
			if err := checkScores(rt, g.Results()[ri]); err != nil {
				return nil, err
			}
		}
	}
	if p.result != nil {
		if !g.Finished() {
			return nil, errorf(p.resultLine, "the Result tag gives the final totals, but the game is not over")
		}
		for i, t := range g.Totals() {
			if p.result[i] != t {
				return nil, errorf(p.resultLine, "%s's total is %d, not %d (Result)", letter(i), t, p.result[i])
			}
		}
	}
	out.Game = g
	return out, nil
}

// ruleError says in the game's words why the engine refused a decision.
func ruleError(line int, g *engine.Game, card int, d decision, err error) *Error {
	who := letter(d.seat)
	var e *Error
	switch {
	case errors.Is(err, engine.ErrNotYourTurn):
		switch d.kind {
		case engine.Pass:
			e = errorf(line, "%s may not pass now: it is %s's turn", who, letter(g.Turn()))
		case engine.Take:
			e = errorf(line, "%s may not take card %d now: it is %s's turn", who, card, letter(g.Turn()))
		case engine.LayTiger:
			e = errorf(line, "%s may not lay the Tiger now: it is %s's turn", who, letter(g.Turn()))
		default:
			e = errorf(line, "%s may not leave now: it is %s's turn", who, letter(g.Turn()))
		}
	case errors.Is(err, engine.ErrNoTokens):
		e = errorf(line, "%s may not pass: %s has no tokens left, so must take card %d", who, who, card)
	case errors.Is(err, engine.ErrNoTiger):
		e = errorf(line, "%s may not lay the Tiger: the game is played without the Hidden Tiger", who)
	case errors.Is(err, engine.ErrTigerPlayed):
		e = errorf(line, "%s may not lay the Tiger: %s has laid it already this round", who, who)
	case errors.Is(err, engine.ErrLeft) && g.Left(d.seat):
		e = errorf(line, "%s may not leave: %s has left the game already", who, who)
	case errors.Is(err, engine.ErrLeft):
		e = errorf(line, "%s may not leave: %s has abandoned the game already, letting time run out %d times", who, who, engine.MaxTimeouts)
	case errors.Is(err, engine.ErrGameOver):
		e = errorf(line, "the game is over already")
	default:
		e = errorf(line, "%s may not %s: %s", who, map[engine.ActionKind]string{engine.Pass: "pass", engine.Take: "take card " + strconv.Itoa(card),
			engine.LayTiger: "lay the Tiger", engine.Leave: "leave"}[d.kind], err.Error())
	}
	e.Err = err
	return e
}

// checkScores compares a round's score lines with the engine's scoring.
func checkScores(rt *roundText, res engine.RoundResult) *Error {
	for seat, sl := range rt.scores {
		if sl == nil {
			continue
		}
		who, r := letter(seat), rt.number
		tiger := 0
		if res.Tiger != nil {
			tiger = res.Tiger[seat]
		}
		switch {
		case !slices.Equal(slices.Sorted(slices.Values(sl.cards)), res.Cards[seat]):
			return errorf(sl.line, "%s's cards in round %d are %s, not %s", who, r, cardList(res.Cards[seat]), cardList(sl.cards))
		case sl.tiger != tiger && tiger == 0:
			return errorf(sl.line, "%s has no laid Tiger that counts in round %d, so no tiger %d", who, r, sl.tiger)
		case sl.tiger != tiger && sl.tiger == 0:
			return errorf(sl.line, "%s's laid Tiger stands for card %d in round %d: write tiger %d after the cards", who, tiger, r, tiger)
		case sl.tiger != tiger:
			return errorf(sl.line, "%s's Tiger stands for card %d in round %d, not %d", who, tiger, r, sl.tiger)
		case sl.points != res.CardPoints[seat]:
			return errorf(sl.line, "%s's card points in round %d are %d (a run counts only its lowest card), not %d", who, r, res.CardPoints[seat], sl.points)
		case sl.tokens != res.Tokens[seat]:
			if res.Tokens[seat] == 1 {
				return errorf(sl.line, "%s has 1 token left at the end of round %d, not %d", who, r, sl.tokens)
			}
			return errorf(sl.line, "%s has %d tokens left at the end of round %d, not %d", who, res.Tokens[seat], r, sl.tokens)
		case sl.score != res.Scores[seat]:
			if res.Tokens[seat] == 1 {
				return errorf(sl.line, "%s's score in round %d is %d (%d card points less 1 token), not %d", who, r, res.Scores[seat], res.CardPoints[seat], sl.score)
			}
			return errorf(sl.line, "%s's score in round %d is %d (%d card points less %d tokens), not %d", who, r, res.Scores[seat], res.CardPoints[seat], res.Tokens[seat], sl.score)
		}
	}
	return nil
}

func cardList(cards []int) string {
	if len(cards) == 0 {
		return "no cards"
	}
	var b strings.Builder
	for i, c := range cards {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}
