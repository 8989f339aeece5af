package archive

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/notation"
)

// Limits of imports: the text's size, and how many games an account may
// import in a window (a flood fills the database with nothing).
const (
	MaxImportBytes = 1 << 20
	ImportLimit    = 60
	ImportWindow   = time.Hour
)

// Import checks a game written in the notation against the rules and
// stores it as an imported game of the member: finished, never rated, its
// analysis queued. Nothing is stored when the text is refused; the error
// names the line at fault.
func (s *Service) Import(ctx context.Context, u db.User, text string) (int64, error) {
	if u.Guest {
		return 0, apperr.E(apperr.Forbidden, "Guests cannot import games: make an account first.")
	}
	if len(text) > MaxImportBytes {
		return 0, apperr.E(apperr.Invalid, "The text is over 1 MiB: import one game at a time.")
	}
	if strings.TrimSpace(text) == "" {
		return 0, apperr.E(apperr.Invalid, "The text is empty: paste a game in the notation, or choose its file.")
	}
	ps, err := notation.ParseMany(strings.NewReader(text))
	if err != nil {
		return 0, refusal(err)
	}
	switch {
	case len(ps) == 0:
		return 0, apperr.E(apperr.Invalid, "The text holds no game.")
	case len(ps) > 1:
		return 0, apperr.E(apperr.Invalid, "The text holds %d games: import one at a time.", len(ps))
	}
	p := ps[0]
	now := s.clock.Now()
	a, err := s.store.CountAttempt(ctx, "import:"+strconv.FormatInt(u.ID, 10), ImportLimit, now, now.Add(-ImportWindow))
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not count your imports")
	}
	if a.Count > ImportLimit {
		e := apperr.E(apperr.TooMany, "You have imported %d games in the last hour: wait a little before the next.", ImportLimit)
		e.RetryAfter = a.WindowFrom.Add(ImportWindow).Sub(now)
		return 0, e
	}
	g, err := imported(u.ID, p, now)
	if err != nil {
		return 0, err
	}
	id, err := s.store.ImportGame(ctx, g)
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not store the game")
	}
	s.log.Info("game imported", "game", id, "by", u.ID, "moves", len(g.Moves))
	return id, nil
}

// refusal turns the notation's error into the user's: the line at fault
// and what is wrong there.
func refusal(err error) error {
	var ne *notation.Error
	if errors.As(err, &ne) {
		what := apperr.Sub{Format: ne.Format, Args: ne.Args}
		if ne.Format == "" {
			what.Format = ne.Msg
		}
		if ne.Line == 0 {
			return &apperr.Error{Code: apperr.Invalid, Message: what.String(), Format: what.Format, Args: what.Args}
		}
		return apperr.E(apperr.Invalid, "Line %d: %s", ne.Line, what)
	}
	return apperr.Wrap(err, apperr.Invalid, "The text is not a game in the notation.")
}

// imported is the stored form of a checked game.
func imported(creator int64, p *notation.Parsed, now time.Time) (db.ImportedGame, error) {
	eg := p.Game
	o := p.Header.Options
	opts, err := json.Marshal(o)
	if err != nil {
		return db.ImportedGame{}, apperr.Wrap(err, apperr.Internal, "could not encode the options")
	}
	setup, err := json.Marshal(p.Setup)
	if err != nil {
		return db.ImportedGame{}, apperr.Wrap(err, apperr.Internal, "could not encode the deals")
	}
	tags, err := json.Marshal(p.Header)
	if err != nil {
		return db.ImportedGame{}, apperr.Wrap(err, apperr.Internal, "could not encode the tags")
	}
	code, err := games.RandomCode()
	if err != nil {
		return db.ImportedGame{}, apperr.Wrap(err, apperr.Internal, "could not make a code")
	}
	pace := p.Header.Pace
	if pace != games.Live && pace != games.Correspondence {
		pace = games.Live
	}
	when := now
	if !p.Header.Date.IsZero() && p.Header.Date.Before(now) {
		when = p.Header.Date
	}
	g := db.ImportedGame{
		CreatorID: creator, Options: opts, Seats: o.Players, Setup: setup, Tags: tags, Pace: pace, InviteCode: code,
		StartedAt: when, FinishedAt: when, CreatedAt: now, Totals: eg.Totals(), Places: eg.Placings(),
	}
	for i := range o.Players {
		name := strings.TrimSpace(p.Header.Seats[i].Name)
		if name == "" {
			name = "Seat " + string(rune('A'+i))
		}
		g.Names = append(g.Names, name)
		var bot *string
		if b := p.Header.Seats[i].Bot; b != "" {
			bot = &b
		}
		g.Bots = append(g.Bots, bot)
		g.Decisions = append(g.Decisions, eg.Decisions(i))
		g.Abandoned = append(g.Abandoned, eg.Abandoned(i))
	}
	seq := 0
	for _, e := range eg.Events() {
		a, ok := e.Action()
		if !ok {
			continue
		}
		seq++
		g.Moves = append(g.Moves, db.Move{Seq: seq, Round: e.Round, Seat: e.Seat, Kind: string(a.Kind), Card: e.Card, Pot: e.Tokens, Timeout: e.Timeout})
	}
	if seq != eg.Version() {
		return db.ImportedGame{}, apperr.E(apperr.Internal, "the game's moves do not add up to its version")
	}
	for i, r := range eg.Results() {
		raw, err := json.Marshal(r)
		if err != nil {
			return db.ImportedGame{}, apperr.Wrap(err, apperr.Internal, "could not encode a round")
		}
		g.Rounds = append(g.Rounds, db.Round{Round: i + 1, Result: raw})
	}
	return g, nil
}

// Imported lists the member's latest imported games, newest first.
func (s *Service) Imported(ctx context.Context, userID int64) ([]db.ImportedSummary, error) {
	gs, err := s.store.ImportedGames(ctx, userID, 20)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not list your imported games")
	}
	return gs, nil
}
