package handlers

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/pairing"
	"nothanks/internal/tournaments"
	"nothanks/internal/views"
)

// tournamentView is an event's page for the viewer.
func (s *Server) tournamentView(c echo.Context, tv *tournaments.View, code string) views.TournamentView {
	ctx := c.Request().Context()
	t := tv.T
	u := currentUser(c)
	if !t.Public && code == "" {
		code = t.Code // a player of a private event: the links carry it
	}
	if t.Public {
		code = ""
	}
	board := s.tournamentBoard(ctx, tv, 0)
	board.Code = code
	v := views.TournamentView{ID: t.ID, Name: t.Name, Description: t.Description, Hidden: t.DescriptionHiddenBy != nil, Kind: t.Kind,
		KindLabel: kindLabel(ctx, t.Kind), Rules: tournamentRules(ctx, t), Status: t.Status, StatusText: board.StatusText,
		Deadline: board.Deadline, StartsAt: t.StartsAt.UTC().Format(time.RFC3339), Starts: i18n.DateTime(i18n.From(ctx), t.StartsAt),
		Players: t.Players, Version: t.Version, Code: code, Board: board, Moderator: u != nil && u.Admin && u.Active(),
		Featured: featuredTable(tv)}
	if code != "" {
		v.InviteURL = s.cfg.BaseURL.String() + tournamentURL(t.ID, code)
	} else if t.Status != db.TournamentFinished && t.Status != db.TournamentCancelled {
		v.InviteURL = s.cfg.BaseURL.String() + tournamentURL(t.ID, "")
	}
	if v.Hidden && !v.Moderator {
		v.Description = ""
		v.Hidden = true
	}
	if u != nil && t.Status == db.TournamentUpcoming && u.Active() && (u.Admin || (t.CreatorID != nil && *t.CreatorID == u.ID)) {
		v.CanEdit, v.CanCancel = true, true
	}
	open := t.Status == db.TournamentUpcoming || (t.Status == db.TournamentRunning && t.Kind == db.KindArena && s.clock.Now().Before(t.EndsAt()))
	var me *tournaments.Standing
	if u != nil {
		me = tv.Player(u.ID)
	}
	switch {
	case me != nil:
		m := &views.TournamentMe{Status: me.Status}
		over := t.Status == db.TournamentFinished || t.Status == db.TournamentCancelled
		switch me.Status {
		case db.PlayerActive:
			m.StatusText = tr(c, "You play in this tournament.")
			if me.GameID != 0 {
				m.StatusText = tr(c, "You are at a table now.")
				m.GameURL = fmt.Sprintf("/games/%d", me.GameID)
			}
			m.CanPause = !over && t.Kind == db.KindArena && t.Status == db.TournamentRunning
			m.Withdraw = !over
		case db.PlayerPaused:
			m.StatusText = tr(c, "You have paused: you are not seated until you come back.")
			m.CanResume, m.Withdraw = !over, !over
		case db.PlayerWithdrawn:
			m.StatusText = tr(c, "You withdrew from this tournament.")
		case tournaments.Disqualified:
			m.StatusText = tr(c, "You are disqualified from this tournament: your account is marked for unfair play. See Fair play in your settings to read the decision and appeal it.")
		}
		if t.Status == db.TournamentFinished && me.Status != tournaments.Disqualified {
			m.StatusText = tr(c, "You placed {{.Place}} with {{.Points}}.", "Place", views.Ordinal(ctx, me.Rank), "Points", pointsText(ctx, me.Points))
		}
		if t.Status == db.TournamentUpcoming && me.Status != tournaments.Disqualified {
			m.StatusText = tr(c, "You are in: the tournament starts at the time shown.")
			m.Withdraw = true
		}
		v.Me = m
	case u == nil:
		v.JoinWhy = tr(c, "Log in to join.")
		if open {
			v.LoginURL = "/login?next=" + url.QueryEscape(tournamentURL(t.ID, code))
		}
	case u.Guest:
		v.JoinWhy = tr(c, "Register (free) to join tournaments.")
	case !open:
		if t.Status == db.TournamentRunning && t.Kind == db.KindSwiss {
			v.JoinWhy = tr(c, "This Swiss tournament has begun: players join before its first round.")
		}
	case t.Players >= t.MaxPlayers:
		v.JoinWhy = tr(c, "This tournament is full: {{.Count}} players.", "Count", t.MaxPlayers)
	default:
		if t.Rated {
			v.Pause = s.pauseView(c)
		}
		v.Join = v.Pause == nil
	}
	return v
}

// tournamentRules puts an event's rules in lines.
func tournamentRules(ctx context.Context, t db.Tournament) []string {
	o := tournaments.OptionsOf(t)
	var out []string
	if t.Kind == db.KindArena {
		out = append(out, i18n.T(ctx, "Arena of {{.Length}} at tables of {{.Size}}.", "Length", durationLabel(ctx, *t.Minutes*60), "Size", t.TableSize))
	} else {
		out = append(out, i18n.T(ctx, "Swiss tournament of {{.Rounds}} rounds at tables of {{.Size}}.", "Rounds", *t.Rounds, "Size", t.TableSize))
	}
	out = append(out, i18n.T(ctx, "Games: {{.Options}}; {{.Pace}}.", "Options", gameWords(ctx, o), "Pace", paceLabel(ctx, t.Pace, t.TurnSeconds)))
	if t.Rated {
		out = append(out, i18n.T(ctx, "Rated: its games change ratings as ranked games do."))
	} else {
		out = append(out, i18n.T(ctx, "Casual: ratings do not change."))
	}
	out = append(out, i18n.N(ctx, "At most {{.Count}} player.", "At most {{.Count}} players.", t.MaxPlayers))
	if t.CreatorName != nil && t.ScheduleID == nil {
		out = append(out, i18n.T(ctx, "Organised by {{.Name}}.", "Name", *t.CreatorName))
	}
	return out
}

// pairingWords say how an event seats and scores, for its page.
func pairingWords(ctx context.Context, t db.Tournament) []string {
	top := pairing.Points(2 * (t.TableSize - 1)).String()
	if t.Kind == db.KindArena {
		return []string{
			i18n.T(ctx, "As soon as {{.Size}} players are free (after a moment's wait for others), they are seated together, the closest in points and then in rating.", "Size", t.TableSize),
			i18n.T(ctx, "A game gives {{.Top}} points for first place down to 0 for last; tied players share the places they cover.", "Top", top),
			i18n.T(ctx, "Two first places in a row put you on a streak (🔥): your games count double until one is not won."),
			i18n.T(ctx, "Games still running when the time is up count. Most points wins; then more first places, fewer games, higher rating."),
			i18n.T(ctx, "A player who lets their first decisions run out at a table is paused until they come back."),
		}
	}
	return []string{
		i18n.T(ctx, "Each round seats players with equal scores together and avoids repeated meetings."),
		i18n.T(ctx, "A game gives {{.Top}} points for first place down to 0 for last; tied players share the places they cover.", "Top", top),
		i18n.T(ctx, "Players left over get a bye worth {{.Points}}, the mean of a table; nobody gets a second bye while others have none.", "Points", pointsText(ctx, pairing.ByePoints(t.TableSize))),
		i18n.T(ctx, "A round starts when every table of the last one has finished. A player who abandons a game is withdrawn."),
		i18n.T(ctx, "Most points wins; then the sum of the opponents' scores (Buchholz), more first places, higher rating."),
	}
}

// tournamentStatus says where an event stands, with the time counted down.
func (s *Server) tournamentStatus(ctx context.Context, tv *tournaments.View) (string, string) {
	t := tv.T
	switch t.Status {
	case db.TournamentUpcoming:
		return i18n.T(ctx, "Starts in"), t.StartsAt.UTC().Format(time.RFC3339)
	case db.TournamentRunning:
		if t.Kind == db.KindSwiss {
			return i18n.T(ctx, "Round {{.Round}} of {{.Rounds}} is being played.", "Round", t.Round, "Rounds", *t.Rounds), ""
		}
		if s.clock.Now().Before(t.EndsAt()) {
			return i18n.T(ctx, "Running: ends in"), t.EndsAt().UTC().Format(time.RFC3339)
		}
		return i18n.T(ctx, "Time is up: the last games are being played."), ""
	case db.TournamentFinished:
		if len(tv.Standings) > 0 {
			return i18n.T(ctx, "Finished: {{.Name}} won with {{.Points}}.", "Name", views.PlayerName(ctx, tv.Standings[0].Name), "Points", pointsText(ctx, tv.Standings[0].Points)), ""
		}
		return i18n.T(ctx, "Finished."), ""
	}
	return i18n.T(ctx, "Cancelled."), ""
}

// tournamentBoard is the part of an event's page its stream redraws,
// the same for every viewer in a language: the standings (after round r
// of a Swiss event, 0: the latest) and the tables.
func (s *Server) tournamentBoard(ctx context.Context, tv *tournaments.View, round int) views.TournamentBoard {
	return s.standingsBoard(ctx, tv, round, 0)
}

// standingsBoard is the board (page 0) or a page of the full standings.
func (s *Server) standingsBoard(ctx context.Context, tv *tournaments.View, round, page int) views.TournamentBoard {
	t := tv.T
	b := views.TournamentBoard{ID: t.ID, Kind: t.Kind, Status: t.Status, Version: t.Version, Pairing: pairingWords(ctx, t)}
	b.StatusText, b.Deadline = s.tournamentStatus(ctx, tv)
	if !t.Public {
		b.Code = t.Code
	}
	standings := tv.Standings
	for r := 1; r <= len(tv.ByRound); r++ {
		b.Rounds = append(b.Rounds, r)
	}
	if round > 0 && round <= len(tv.ByRound) {
		standings, b.ShownRound = tv.ByRound[round-1], round
	} else if len(tv.ByRound) > 0 {
		b.ShownRound = len(tv.ByRound)
	}
	from, to, results := 0, LiveShown, LiveResults
	if page > 0 {
		from, to, results = (page-1)*StandingsPage, page*StandingsPage, 0
		b.Page, b.Pages = page, (len(standings)+StandingsPage-1)/StandingsPage
	}
	var ids []int64
	for i := from; i < to && i < len(standings); i++ {
		ids = append(ids, standings[i].UserID)
	}
	fs := s.figures(ctx, ids)
	for i := from; i < to && i < len(standings); i++ {
		line := standingLine(ctx, standings[i], b.Code, results)
		if fs != nil {
			line.Reliability = relView(ctx, fs[standings[i].UserID])
		}
		b.Standings = append(b.Standings, line)
	}
	b.Players = len(standings)
	if page == 0 && len(standings) > to {
		b.More = len(standings) - to
	}
	tables := tv.Tables
	if t.Kind == db.KindSwiss {
		tables = tv.Round(t.Round)
		b.TablesTitle = i18n.T(ctx, "Tables of round {{.Round}}", "Round", t.Round)
	} else {
		var playing []tournaments.Table
		for _, tb := range tables {
			if tb.Status == db.StatusPlaying {
				playing = append(playing, tb)
			}
		}
		tables = playing
		b.TablesTitle = i18n.T(ctx, "Games in play")
	}
	if t.Kind == db.KindArena && len(tables) > LiveTables {
		// The games of the best placed first (the standings' order).
		rank := map[int64]int{}
		for i, st := range tv.Standings {
			rank[st.UserID] = i
		}
		best := func(tb tournaments.Table) int {
			r := len(rank)
			for _, u := range tb.Users {
				if x, ok := rank[u]; ok && x < r {
					r = x
				}
			}
			return r
		}
		tables = slices.Clone(tables)
		slices.SortStableFunc(tables, func(a, c tournaments.Table) int { return best(a) - best(c) })
		b.MoreTables = len(tables) - LiveTables
		tables = tables[:LiveTables]
	}
	for _, tb := range tables {
		x := views.TournamentTable{URL: tableURL(tb), GameID: tb.GameID, Names: tb.Names, Playing: tb.Status == db.StatusPlaying}
		if tb.Status == db.StatusFinished {
			var places []string
			for i, n := range tb.Names {
				if i < len(tb.Placings) {
					places = append(places, fmt.Sprintf("%s %s", views.Ordinal(ctx, tb.Placings[i]), views.PlayerName(ctx, n)))
				}
			}
			x.Result = strings.Join(places, ", ")
		}
		b.Tables = append(b.Tables, x)
	}
	return b
}

// pointsText says tournament points with their word: "1 point", "2½
// points".
func pointsText(ctx context.Context, p pairing.Points) string {
	n := 2
	if p == 2 {
		n = 1
	}
	return i18n.N(ctx, "{{.Points}} point", "{{.Points}} points", n, "Points", p.String())
}

func tableURL(tb tournaments.Table) string {
	if tb.Public {
		return fmt.Sprintf("/games/%d", tb.GameID)
	}
	return fmt.Sprintf("/games/%d?code=%s", tb.GameID, tb.Code)
}

// standingLine is a line of the standings, with its last results games (0:
// all).
func standingLine(ctx context.Context, st tournaments.Standing, code string, results int) views.TournamentStanding {
	l := views.TournamentStanding{Rank: st.Rank, Name: st.Name, ProfileURL: "/u/" + st.Name, Points: st.Points.String(), Games: st.Games,
		Wins: st.Wins, Byes: st.Byes, OnFire: st.OnFire, Buchholz: st.Buchholz.String(), Status: st.Status}
	switch st.Status {
	case db.PlayerPaused:
		l.StatusText = i18n.T(ctx, "paused")
	case db.PlayerWithdrawn:
		l.StatusText = i18n.T(ctx, "withdrawn")
	case tournaments.Disqualified:
		l.StatusText = i18n.T(ctx, "disqualified")
	}
	if st.GameID != 0 {
		l.GameURL = fmt.Sprintf("/games/%d%s", st.GameID, views.CodeQuery(code))
	}
	rs := st.Results
	if results > 0 && len(rs) > results {
		l.Earlier = len(rs) - results
		rs = rs[len(rs)-results:]
	}
	for _, r := range rs {
		x := views.TournamentResult{Points: r.Counted.String(), Doubled: r.Doubled(), Won: r.Won, Bye: r.GameID == 0}
		if x.Bye {
			x.Title = i18n.T(ctx, "Round {{.Round}}: a bye, {{.Points}}", "Round", r.Round, "Points", pointsText(ctx, r.Counted))
		} else {
			x.URL = fmt.Sprintf("/games/%d", r.GameID)
			x.Place = views.Ordinal(ctx, r.Place)
			x.Title = i18n.T(ctx, "Game #{{.ID}}: {{.Place}}, {{.Points}}", "ID", r.GameID, "Place", x.Place, "Points", pointsText(ctx, r.Counted))
			if x.Doubled {
				x.Title += " " + i18n.T(ctx, "(counted double: on a streak)")
			}
		}
		l.Results = append(l.Results, x)
	}
	return l
}

// featuredTable is the event's table of its top players.
func featuredTable(tv *tournaments.View) *views.FeaturedTable {
	if tv.Featured == 0 {
		return nil
	}
	for _, tb := range tv.Tables {
		if tb.GameID == tv.Featured {
			return featuredOf(tb.GameID, tb.Public, tb.Code, tb.Names)
		}
	}
	return nil
}

func featuredOf(gameID int64, public bool, code string, names []string) *views.FeaturedTable {
	q := ""
	if !public {
		q = "&code=" + code
	}
	url := fmt.Sprintf("/games/%d", gameID)
	if !public {
		url += "?code=" + code
	}
	return &views.FeaturedTable{GameID: gameID, URL: url, Stream: fmt.Sprintf("/games/%d/events?view=spectator%s", gameID, q), Names: names}
}
