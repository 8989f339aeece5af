package handlers

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/games"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

// summary puts a game's options in words.
func summary(o engine.Options) string {
	parts := []string{fmt.Sprintf("%d players", o.Players), views.Count(o.Rounds, "round"), o.Variant.Label()}
	if o.OpenTokens {
		parts = append(parts, "open tokens")
	}
	if o.HiddenTiger {
		parts = append(parts, "Hidden Tiger")
	}
	return strings.Join(parts, " · ")
}

// paceLabel puts a game's pace in words.
func paceLabel(pace string, seconds int) string {
	if pace == games.Correspondence {
		return "Correspondence · " + durationLabel(seconds) + " a decision"
	}
	return "Live · " + durationLabel(seconds) + " a decision"
}

func durationLabel(seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return views.Count(int(d/(24*time.Hour)), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return views.Count(int(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return views.Count(int(d/time.Minute), "minute")
	}
	return fmt.Sprintf("%d seconds", seconds)
}

// boardView builds the board's view model of one view of a game (watch.Key:
// the viewer's seat, their part at an open table, the invite code they
// hold). The page, its fragments and every event stream draw the board
// from here, so that the same view is the same bytes.
func (s *Server) boardView(st *games.State, k watch.Key) views.TableView {
	t := st.TableFor(k.Seat, k.Seat != engine.Spectator || k.Role >= watch.Seated)
	g := t.Game
	v := views.TableView{
		GameID: g.ID, Version: g.Version, Status: g.Status, Summary: summary(t.Options),
		Pace: paceLabel(g.Pace, g.TurnSeconds), Public: g.Public, Ranked: g.Ranked, MyTokens: -1,
	}
	if k.Code != "" {
		v.Query = "?code=" + url.QueryEscape(k.Code)
	}
	if g.Status == db.StatusOpen {
		v.Lobby = s.lobbyView(t, k)
		return v
	}
	if t.View == nil {
		return v
	}
	return fillTable(v, t, t.View, g, s.clock.Now())
}

// fillTable fills the table part of a view model from a projection.
func fillTable(v views.TableView, t *games.Table, pv *engine.View, g db.Game, now time.Time) views.TableView {
	names := t.SeatNames()
	v.Round, v.Rounds = pv.Round, pv.Options.Rounds
	v.ActiveCard, v.Pot, v.DeckLeft = pv.ActiveCard, pv.Pot, pv.DeckLeft
	if pv.Turn >= 0 && pv.Turn < len(names) {
		v.TurnName = names[pv.Turn]
		v.MyTurn = pv.Turn == t.ViewerSeat
	}
	if g.DueAt != nil && g.TurnUserID != nil {
		v.Deadline = g.DueAt.UTC().Format(time.RFC3339)
	}
	for i, sv := range pv.Seats {
		st := t.Seats[i]
		seat := views.SeatView{
			Seat: i, Name: names[i], Bot: st.BotLevel != nil, Me: i == t.ViewerSeat, Turn: i == pv.Turn,
			Abandoned: st.Abandoned, Runs: sv.Runs, CardPoints: sv.CardPoints, Tokens: "?",
			Total: pv.Totals[i], TigerHeld: sv.TigerHeld, TigerPlayed: sv.TigerPlayed,
		}
		if st.Username != nil {
			seat.ProfileURL = "/u/" + *st.Username
		}
		if st.VacationUntil != nil && st.VacationUntil.After(now) && g.Pace == games.Correspondence {
			seat.Vacation = st.VacationUntil.UTC().Format("2 Jan 15:04 MST")
		}
		if sv.Tokens != nil {
			seat.Tokens = fmt.Sprint(*sv.Tokens)
			if i == t.ViewerSeat {
				v.MyTokens = *sv.Tokens
			}
		}
		v.Seats = append(v.Seats, seat)
	}
	for _, k := range pv.Legal {
		switch k {
		case engine.Take:
			v.CanTake = true
		case engine.Pass:
			v.CanPass = true
		case engine.LayTiger:
			v.CanTiger = true
		}
	}
	if v.MyTurn && !v.CanPass {
		v.PassBlocked = "You have no tokens left, so you must take the card."
	}
	v.Log, v.LogOmitted = logLines(pv.Events, names, BoardLogLines)
	if len(pv.Results) > 0 {
		st := &views.ScoreTable{}
		for _, r := range pv.Results {
			st.Rounds = append(st.Rounds, r.Round)
		}
		for i, name := range names {
			row := views.ScoreRow{Name: name, Total: pv.Totals[i]}
			for _, r := range pv.Results {
				row.PerRound = append(row.PerRound, r.Scores[i])
			}
			st.Rows = append(st.Rows, row)
		}
		v.Scores = st
	}
	if pv.Finished {
		for i, name := range names {
			v.Standings = append(v.Standings, views.Standing{Place: pv.Placings[i], Name: name, Total: pv.Totals[i], Me: i == t.ViewerSeat})
		}
		sortStandings(v.Standings)
		v.ReplayURL = fmt.Sprintf("/games/%d/replay", g.ID)
	}
	return v
}

func sortStandings(st []views.Standing) {
	for i := 1; i < len(st); i++ {
		for j := i; j > 0 && st[j].Place < st[j-1].Place; j-- {
			st[j], st[j-1] = st[j-1], st[j]
		}
	}
}

// BoardLogLines is how many moves of the round the board lists; a board
// does not grow with a long round (the replay and the record have all).
const BoardLogLines = 40

// logLines writes the public events of the round in play, newest first, at
// most max of them, and counts those left out.
func logLines(events []engine.Event, names []string, max int) ([]views.LogLine, int) {
	var out []views.LogLine
	omitted := 0
	for i := len(events) - 1; i >= 0; i-- {
		text := eventText(events[i], names)
		if text == "" {
			continue
		}
		if len(out) == max {
			omitted++
			continue
		}
		out = append(out, views.LogLine{Round: events[i].Round, Text: text, Timeout: events[i].Timeout})
	}
	return out, omitted
}

func eventText(e engine.Event, names []string) string {
	name := func() string {
		if e.Seat >= 0 && e.Seat < len(names) {
			return names[e.Seat]
		}
		return "?"
	}
	switch e.Kind {
	case engine.EventRoundStart:
		return fmt.Sprintf("Round %d begins with %d; %s starts.", e.Round, e.Card, name())
	case engine.EventPass:
		return fmt.Sprintf("%s: No thanks! to %d (%s on it).", name(), e.Card, views.Count(e.Tokens, "token"))
	case engine.EventTake:
		return fmt.Sprintf("%s took %d with %s.", name(), e.Card, views.Count(e.Tokens, "token"))
	case engine.EventFlip:
		return fmt.Sprintf("Turned up %d.", e.Card)
	case engine.EventTiger:
		return fmt.Sprintf("%s laid the Hidden Tiger.", name())
	case engine.EventRoundEnd:
		return fmt.Sprintf("Round %d is over and scored.", e.Round)
	case engine.EventGameEnd:
		return "The game is over."
	}
	return ""
}

func (s *Server) lobbyView(t *games.Table, k watch.Key) *views.LobbyView {
	creator := k.Role == watch.Creator
	seated := k.Role >= watch.Seated
	loggedIn := k.Role != watch.Visitor
	l := &views.LobbyView{
		Capacity: t.Game.Seats, IsCreator: creator, IsSeated: seated, LoggedIn: loggedIn,
		CanJoin:   loggedIn && !seated && len(t.Seats) < t.Game.Seats,
		CanStart:  creator && len(t.Seats) >= engine.MinPlayers,
		CanAddBot: creator && !t.Game.Ranked && len(t.Seats) < t.Game.Seats,
	}
	for _, st := range t.Seats {
		if st.UserID != nil && *st.UserID == t.Game.CreatorID {
			l.Creator = games.Name(st)
		}
		l.Seats = append(l.Seats, views.LobbySeat{ID: st.ID, Name: games.Name(st), Bot: st.BotLevel != nil, CanRemove: creator && st.BotLevel != nil})
	}
	if !t.Game.Public {
		l.InviteCode = k.Code
		if seated {
			l.InviteURL = s.cfg.BaseURL.String() + "/join/" + t.Game.InviteCode
			l.InviteCode = t.Game.InviteCode
		}
	} else if seated {
		l.InviteURL = fmt.Sprintf("%s/games/%d", s.cfg.BaseURL.String(), t.Game.ID)
	}
	for _, lv := range bot.Levels {
		l.BotLevels = append(l.BotLevels, views.Choice{Value: string(lv), Label: lv.Label()})
	}
	return l
}

// gameRows builds the rows of a list of games for a viewer (0: nobody).
func gameRows(gs []db.GameSummary, userID int64) []views.GameRow {
	rows := make([]views.GameRow, len(gs))
	for i, g := range gs {
		rows[i] = gameRow(g, userID)
	}
	return rows
}

// gameRow is a game in a list.
func gameRow(g db.GameSummary, userID int64) views.GameRow {
	var o engine.Options
	_ = jsonUnmarshal(g.Options, &o)
	if g.Status != db.StatusOpen {
		o.Players = g.Seats
	}
	r := views.GameRow{
		ID: g.ID, URL: fmt.Sprintf("/games/%d", g.ID), Summary: summary(o), Pace: paceLabel(g.Pace, g.TurnSeconds),
		Players: g.Players, Taken: g.Taken, Seats: g.Seats, Status: g.Status, Watchers: g.Watchers, Ranked: g.Ranked,
	}
	if g.TurnName != nil {
		r.TurnName = *g.TurnName
	} else if g.Status == db.StatusPlaying {
		r.TurnName = "a bot"
	}
	r.MyTurn = g.Status == db.StatusPlaying && g.TurnUserID != nil && *g.TurnUserID == userID
	if r.MyTurn && g.DueAt != nil {
		r.Deadline = g.DueAt.UTC().Format(time.RFC3339)
	}
	if g.MyPlacing != nil {
		r.Placing = *g.MyPlacing
	}
	return r
}
