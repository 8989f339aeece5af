package handlers

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

// summary puts a game's options in words.
func summary(ctx context.Context, o engine.Options) string {
	return i18n.N(ctx, "{{.Count}} player", "{{.Count}} players", o.Players) + " · " + gameWords(ctx, o)
}

// gameWords puts a game's rounds, variant and options in words (not its
// players: a tournament says its table size apart).
func gameWords(ctx context.Context, o engine.Options) string {
	parts := []string{i18n.N(ctx, "{{.Count}} round", "{{.Count}} rounds", o.Rounds), variantLabel(ctx, o.Variant)}
	if o.OpenTokens {
		parts = append(parts, i18n.T(ctx, "open tokens"))
	}
	if o.HiddenTiger {
		parts = append(parts, i18n.T(ctx, "Hidden Tiger"))
	}
	return strings.Join(parts, " · ")
}

// variantLabel names a variant in the reader's language.
func variantLabel(ctx context.Context, v engine.Variant) string {
	switch v {
	case engine.Standard:
		return i18n.T(ctx, "Standard")
	case engine.Amigo:
		return i18n.T(ctx, "Amigo (10, 20, 30 out)")
	case engine.AmigoHigh:
		return i18n.T(ctx, "Amigo, long runs (10, 19, 28 out)")
	case engine.Tactical:
		return i18n.T(ctx, "Tactical (10 tokens, 10, 20, 30 out)")
	}
	return v.Label()
}

// botLevelLabel names a bot level with what it does, for the menus.
func botLevelLabel(ctx context.Context, l bot.Level) string {
	switch l {
	case bot.Random:
		return i18n.T(ctx, "{{.Name}}: plays at random", "Name", views.PlayerName(ctx, l.Name()))
	case bot.Heuristic:
		return i18n.T(ctx, "{{.Name}}: a simple rule", "Name", views.PlayerName(ctx, l.Name()))
	case bot.Strong:
		return i18n.T(ctx, "{{.Name}}: searches each decision", "Name", views.PlayerName(ctx, l.Name()))
	case bot.Expert:
		return i18n.T(ctx, "{{.Name}}: searches ten times longer (slower)", "Name", views.PlayerName(ctx, l.Name()))
	}
	return l.Label()
}

// paceLabel puts a game's pace in words.
func paceLabel(ctx context.Context, pace string, seconds int) string {
	if pace == games.Correspondence {
		return i18n.T(ctx, "Correspondence · {{.Time}} a decision", "Time", durationLabel(ctx, seconds))
	}
	return i18n.T(ctx, "Live · {{.Time}} a decision", "Time", durationLabel(ctx, seconds))
}

func durationLabel(ctx context.Context, seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return i18n.N(ctx, "{{.Count}} day", "{{.Count}} days", int(d/(24*time.Hour)))
	case d >= time.Hour && d%time.Hour == 0:
		return i18n.N(ctx, "{{.Count}} hour", "{{.Count}} hours", int(d/time.Hour))
	case d >= time.Minute && d%time.Minute == 0:
		return i18n.N(ctx, "{{.Count}} minute", "{{.Count}} minutes", int(d/time.Minute))
	}
	return i18n.N(ctx, "{{.Count}} second", "{{.Count}} seconds", seconds)
}

// boardView builds the board's view model of one view of a game (watch.Key:
// the viewer's seat, their part at an open table, the invite code they
// hold). The page, its fragments and every event stream draw the board
// from here, so that the same view is the same bytes.
func (s *Server) boardView(ctx context.Context, st *games.State, k watch.Key) views.TableView {
	t := st.TableFor(k.Seat, k.Seat != engine.Spectator || k.Role >= watch.Seated)
	g := t.Game
	v := views.TableView{
		GameID: g.ID, Version: g.Version, Status: g.Status, Summary: summary(ctx, t.Options),
		Pace: paceLabel(ctx, g.Pace, g.TurnSeconds), Public: g.Public, Ranked: g.Ranked, MyTokens: -1,
	}
	if g.TournamentID != nil {
		v.TournamentID = *g.TournamentID
	}
	v.Code, v.Query = k.Code, views.CodeQuery(k.Code)
	for _, st := range t.Seats {
		if st.BotAccount {
			if v.BotAccounts == nil {
				v.BotAccounts = views.BotAccountNames{}
			}
			v.BotAccounts[games.Name(st)] = true
		}
	}
	v.Seated = k.Seat != engine.Spectator || k.Role >= watch.Seated
	if g.Status == db.StatusOpen {
		v.Lobby = s.lobbyView(ctx, t, k)
		if s.invites != nil && k.Role >= watch.Seated {
			s.fillInvited(ctx, v.Lobby, g.ID, s.clock.Now())
		}
		s.fillReliability(ctx, &v, t)
		return v
	}
	if t.View == nil {
		return v
	}
	v = fillTable(ctx, v, t, t.View, g, s.clock.Now())
	s.fillReliability(ctx, &v, t)
	if g.Ranked && g.Status == db.StatusFinished {
		s.fillRatingChanges(ctx, &v, t)
	}
	if g.Status == db.StatusFinished && s.reviews != nil {
		s.fillAccuracy(ctx, &v, st)
	}
	if g.Status == db.StatusFinished && s.rematch != nil && g.TournamentID == nil {
		s.fillRematch(ctx, &v, st, k.Seat)
	}
	return v
}

// fillAccuracy shows each person's accuracy from the post-game analysis on
// the finished table, once it is made.
func (s *Server) fillAccuracy(ctx context.Context, v *views.TableView, st *games.State) {
	rep, err := s.reviews.ReportOf(ctx, st.Game.ID)
	if err != nil {
		s.log.Warn("analysis for the finished table", "game", st.Game.ID, "err", err)
	}
	if rep == nil {
		return
	}
	acc := map[int]string{}
	for _, p := range rep.Players {
		if p.Judged > 0 {
			acc[p.Seat] = fmt.Sprintf("%.1f", p.Accuracy)
		}
	}
	for i := range v.Standings {
		v.Standings[i].Accuracy = acc[v.Standings[i].Seat]
	}
}

// fillRatingChanges shows each player's rating change of a finished ranked
// game (one short read, made once per version and view by the streams).
func (s *Server) fillRatingChanges(ctx context.Context, v *views.TableView, t *games.Table) {
	changes, err := s.db.GameRatingChanges(ctx, t.Game.ID)
	if err != nil {
		s.log.Warn("rating changes of a game", "game", t.Game.ID, "err", err)
		return
	}
	by := map[int64]db.RatingChange{}
	for _, c := range changes {
		by[c.UserID] = c
	}
	for i := range v.Seats {
		st := t.Seats[i]
		if st.UserID == nil {
			continue
		}
		if c, ok := by[*st.UserID]; ok {
			v.Seats[i].RatingChange = ratingDelta(c.After - c.Before)
		}
	}
	for i := range v.Standings {
		v.Standings[i].RatingChange = v.Seats[v.Standings[i].Seat].RatingChange
	}
}

// ratingDelta writes a rating change with its sign ("+12", "−8", "±0").
func ratingDelta(d float64) string {
	n := int(math.Round(d))
	switch {
	case n > 0:
		return fmt.Sprintf("+%d", n)
	case n < 0:
		return fmt.Sprintf("−%d", -n)
	}
	return "±0"
}

// fillTable fills the table part of a view model from a projection.
func fillTable(ctx context.Context, v views.TableView, t *games.Table, pv *engine.View, g db.Game, now time.Time) views.TableView {
	names := localNames(ctx, t.SeatNames())
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
		if st.Username != nil && names[i] == *st.Username {
			seat.ProfileURL = "/u/" + *st.Username
		}
		if st.VacationUntil != nil && st.VacationUntil.After(now) && g.Pace == games.Correspondence {
			seat.Vacation = i18n.DateTime(i18n.From(ctx), st.VacationUntil.UTC())
		}
		seat.Score = "?"
		if sv.Tokens != nil {
			seat.Tokens = fmt.Sprint(*sv.Tokens)
			seat.Score = fmt.Sprint(sv.CardPoints - *sv.Tokens)
			if i == t.ViewerSeat {
				v.MyTokens = *sv.Tokens
			}
		}
		seat.RunsText = runsText(ctx, sv.Runs)
		v.Seats = append(v.Seats, seat)
	}
	last, hasLast := lastAction(pv.Events)
	if hasLast && last.Seat >= 0 && last.Seat < len(v.Seats) {
		v.Seats[last.Seat].Last = lastMoveWords(ctx, last)
	}
	v.Announce = announce(ctx, pv, last, hasLast, names, v.MyTurn)
	v.RoundEnd = roundEnd(ctx, pv, names, t.ViewerSeat)
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
		v.PassBlocked = i18n.T(ctx, "You have no tokens left, so you must take the card.")
	}
	v.Log, v.LogOmitted = logLines(ctx, pv.Events, names, BoardLogLines)
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
			st := views.Standing{Seat: i, Place: pv.Placings[i], Name: name, Total: pv.Totals[i], Me: i == t.ViewerSeat}
			st.ReportURL = reportURL(t, i, g.ID)
			v.Standings = append(v.Standings, st)
		}
		sortStandings(v.Standings)
		v.ReplayURL = fmt.Sprintf("/games/%d/replay", g.ID)
	}
	v.Imported = g.Imported
	return v
}

// lastAction is the latest decision of the round in play.
func lastAction(events []engine.Event) (engine.Event, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if _, ok := events[i].Action(); ok {
			return events[i], true
		}
	}
	return engine.Event{}, false
}

// lastMoveWords names a seat's latest decision beside its name.
func lastMoveWords(ctx context.Context, e engine.Event) string {
	switch e.Kind {
	case engine.EventTake:
		return i18n.T(ctx, "took {{.Card}}", "Card", e.Card)
	case engine.EventPass:
		return i18n.T(ctx, "No thanks! to {{.Card}}", "Card", e.Card)
	case engine.EventTiger:
		return i18n.T(ctx, "laid the Tiger")
	case engine.EventLeave:
		return i18n.T(ctx, "left the game")
	}
	return ""
}

// announce says the last decision and what is to do now, in words, for a
// screen reader: "Bea took 31 with 2 tokens. Your turn: 3, no tokens on it."
func announce(ctx context.Context, pv *engine.View, last engine.Event, hasLast bool, names []string, myTurn bool) string {
	var b strings.Builder
	if hasLast {
		b.WriteString(eventText(ctx, last, names))
		b.WriteString(" ")
	}
	switch {
	case pv.Finished:
		b.WriteString(i18n.T(ctx, "The game is over."))
	case myTurn:
		b.WriteString(i18n.T(ctx, "Your turn: {{.Card}}, {{.Tokens}} on it.", "Card", pv.ActiveCard, "Tokens", views.TokensOn(ctx, pv.Pot)))
	case pv.Turn >= 0 && pv.Turn < len(names):
		b.WriteString(i18n.T(ctx, "{{.Name}} to decide on {{.Card}}, {{.Tokens}} on it.", "Name", names[pv.Turn], "Card", pv.ActiveCard, "Tokens", views.TokensOn(ctx, pv.Pot)))
	}
	return b.String()
}

// runsText reads cards as runs: "4, 6 to 8, 13 to 15".
func runsText(ctx context.Context, runs [][]int) string {
	if len(runs) == 0 {
		return i18n.T(ctx, "no cards")
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		if len(r) == 1 {
			parts[i] = fmt.Sprint(r[0])
		} else {
			parts[i] = i18n.T(ctx, "{{.From}} to {{.To}}", "From", r[0], "To", r[len(r)-1])
		}
	}
	return strings.Join(parts, ", ")
}

// roundEnd sums up the last scored round while nobody has decided anything
// in the next one yet, and on the finished table.
func roundEnd(ctx context.Context, pv *engine.View, names []string, viewer int) *views.RoundEndView {
	if len(pv.Results) == 0 {
		return nil
	}
	if !pv.Finished {
		if _, decided := lastAction(pv.Events); decided {
			return nil
		}
	}
	r := pv.Results[len(pv.Results)-1]
	re := &views.RoundEndView{Round: r.Round, Removed: slices.Sorted(slices.Values(r.Removed))}
	totals := make([]int, len(names))
	for _, res := range pv.Results {
		for i, sc := range res.Scores {
			if i < len(totals) {
				totals[i] += sc
			}
		}
	}
	for i, name := range names {
		if i >= len(r.Cards) {
			break
		}
		runs := engine.Runs(r.Cards[i])
		re.Rows = append(re.Rows, views.RoundEndRow{
			Name: name, Runs: runs, RunsText: runsText(ctx, runs), Tokens: r.Tokens[i],
			CardPoints: r.CardPoints[i], Score: r.Scores[i], Total: totals[i], Me: i == viewer,
		})
	}
	return re
}

// reportURL is where a player seated at a finished game reports another
// person of it ("" for themselves, bots, or a viewer not seated).
func reportURL(t *games.Table, seat int, gameID int64) string {
	if t.ViewerSeat < 0 || seat == t.ViewerSeat {
		return ""
	}
	for _, st := range t.Seats {
		if st.Seat != nil && *st.Seat == seat && st.UserID != nil && st.Username != nil && !st.BotAccount {
			return fmt.Sprintf("/report/%s?game=%d", url.PathEscape(*st.Username), gameID)
		}
	}
	return ""
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
func logLines(ctx context.Context, events []engine.Event, names []string, max int) ([]views.LogLine, int) {
	var out []views.LogLine
	omitted := 0
	decisions := 0
	for _, e := range events {
		if _, ok := e.Action(); ok {
			decisions++
		}
	}
	for i := len(events) - 1; i >= 0; i-- {
		decision := -1
		if _, ok := events[i].Action(); ok {
			decisions--
			decision = decisions
		}
		text := eventText(ctx, events[i], names)
		if text == "" {
			continue
		}
		if len(out) == max {
			omitted++
			continue
		}
		out = append(out, views.LogLine{Round: events[i].Round, Text: text, Timeout: events[i].Timeout, Decision: decision})
	}
	return out, omitted
}

func eventText(ctx context.Context, e engine.Event, names []string) string {
	name := func() string {
		if e.Seat >= 0 && e.Seat < len(names) {
			return names[e.Seat]
		}
		return "?"
	}
	switch e.Kind {
	case engine.EventRoundStart:
		return i18n.T(ctx, "Round {{.Round}} begins with {{.Card}}; {{.Name}} starts.", "Round", e.Round, "Card", e.Card, "Name", name())
	case engine.EventPass:
		return i18n.T(ctx, "{{.Name}}: No thanks! to {{.Card}} ({{.Tokens}} on it).", "Name", name(), "Card", e.Card, "Tokens", views.TokensOn(ctx, e.Tokens))
	case engine.EventTake:
		return i18n.T(ctx, "{{.Name}} took {{.Card}} with {{.Tokens}}.", "Name", name(), "Card", e.Card, "Tokens", views.TokensOn(ctx, e.Tokens))
	case engine.EventFlip:
		return i18n.T(ctx, "Turned up {{.Card}}.", "Card", e.Card)
	case engine.EventTiger:
		return i18n.T(ctx, "{{.Name}} laid the Hidden Tiger.", "Name", name())
	case engine.EventLeave:
		return i18n.T(ctx, "{{.Name}} left the game: a bot plays the seat to the end.", "Name", name())
	case engine.EventRoundEnd:
		return i18n.T(ctx, "Round {{.Round}} is over and scored.", "Round", e.Round)
	case engine.EventGameEnd:
		return i18n.T(ctx, "The game is over.")
	}
	return ""
}

func (s *Server) lobbyView(ctx context.Context, t *games.Table, k watch.Key) *views.LobbyView {
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
			l.Creator = views.PlayerName(ctx, games.Name(st))
		}
		l.Seats = append(l.Seats, views.LobbySeat{ID: st.ID, Name: views.PlayerName(ctx, games.Name(st)), Bot: st.BotLevel != nil, CanRemove: creator && st.BotLevel != nil})
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
		l.BotLevels = append(l.BotLevels, views.Choice{Value: string(lv), Label: botLevelLabel(ctx, lv)})
	}
	return l
}

// gameRows builds the rows of a list of games for a viewer (0: nobody).
func gameRows(ctx context.Context, gs []db.GameSummary, userID int64) []views.GameRow {
	rows := make([]views.GameRow, len(gs))
	for i, g := range gs {
		rows[i] = gameRow(ctx, g, userID)
	}
	return rows
}

// gameRow is a game in a list.
func gameRow(ctx context.Context, g db.GameSummary, userID int64) views.GameRow {
	var o engine.Options
	_ = jsonUnmarshal(g.Options, &o)
	if g.Status != db.StatusOpen {
		o.Players = g.Seats
	}
	r := views.GameRow{
		ID: g.ID, URL: fmt.Sprintf("/games/%d", g.ID), Summary: summary(ctx, o), Pace: paceLabel(ctx, g.Pace, g.TurnSeconds),
		Players: games.SummaryNames(g), Taken: g.Taken, Seats: g.Seats, Status: g.Status, Watchers: g.Watchers, Ranked: g.Ranked,
		UnreadChat: g.UnreadChat,
	}
	if g.TurnName != nil {
		r.TurnName = *g.TurnName
	} else if g.Status == db.StatusPlaying {
		r.TurnName = i18n.T(ctx, "a bot")
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

// localNames are seat names to show in the reader's language.
func localNames(ctx context.Context, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = views.PlayerName(ctx, n)
	}
	return out
}
