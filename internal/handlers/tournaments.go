package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/lists"
	"nothanks/internal/pairing"
	"nothanks/internal/tournaments"
	"nothanks/internal/turns"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

// The standings a page draws (the API gives them all): the live board
// (its stream sends it to every viewer at each change, so it stays small)
// shows LiveShown lines with their last LiveResults games, and LiveTables
// games in play; the full standings, StandingsPage lines a page.
const (
	LiveShown     = 30
	LiveResults   = 6
	LiveTables    = 12
	StandingsPage = 100
)

func tournamentID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, tournaments.ErrNoTournament
	}
	return id, nil
}

// kindLabel names an event's kind.
func kindLabel(ctx context.Context, kind string) string {
	if kind == db.KindSwiss {
		return i18n.T(ctx, "Swiss")
	}
	return i18n.T(ctx, "Arena")
}

// tournamentSummary puts an event's rules in a line.
func tournamentSummary(ctx context.Context, t db.Tournament) string {
	o := tournaments.OptionsOf(t)
	length := ""
	if t.Minutes != nil {
		length = durationLabel(ctx, *t.Minutes*60)
	} else if t.Rounds != nil {
		length = i18n.N(ctx, "{{.Count}} tournament round", "{{.Count}} tournament rounds", *t.Rounds)
	}
	return i18n.T(ctx, "tables of {{.Size}} · {{.Length}} · {{.Pace}}", "Size", t.TableSize, "Length", length, "Pace", paceLabel(ctx, t.Pace, t.TurnSeconds)) +
		" · " + gameWords(ctx, o)
}

// tournamentRow is an event in a list.
func tournamentRow(ctx context.Context, t db.Tournament) views.TournamentRow {
	return views.TournamentRow{ID: t.ID, URL: tournamentURL(t.ID, ""), Name: t.Name, Kind: kindLabel(ctx, t.Kind), Summary: tournamentSummary(ctx, t),
		StartsAt: t.StartsAt.UTC().Format(time.RFC3339), Starts: i18n.DateTime(i18n.From(ctx), t.StartsAt), Players: t.Players, Rated: t.Rated, Private: !t.Public}
}

func tournamentURL(id int64, code string) string {
	return fmt.Sprintf("/tournaments/%d%s", id, views.CodeQuery(code))
}

// tournamentsPage lists the events; its stream says when a list changed.
func (s *Server) tournamentsPage(c echo.Context) error {
	ctx := c.Request().Context()
	var viewer int64
	if u := currentUser(c); u != nil {
		viewer = u.ID
	}
	l, err := s.tournaments.List(ctx, viewer)
	if err != nil {
		return err
	}
	v := views.TournamentsView{}
	for _, t := range l.Upcoming {
		v.Upcoming = append(v.Upcoming, tournamentRow(ctx, t))
	}
	for _, t := range l.Running {
		v.Running = append(v.Running, tournamentRow(ctx, t))
	}
	for _, t := range l.Finished {
		v.Finished = append(v.Finished, tournamentRow(ctx, t))
	}
	switch u := currentUser(c); {
	case u == nil:
		v.Why = tr(c, "Log in to join a tournament or create one.")
	case u.Guest:
		v.Why = tr(c, "Register (free) to join tournaments.")
	case u.EmailVerifiedAt == nil && !u.Admin:
		v.Why = tr(c, "Confirm your email address to create tournaments; you can join them now.")
	default:
		v.CanCreate = true
	}
	p := s.page(c, tr(c, "Tournaments"))
	p.Lists = lists.Tournaments
	return render(c, http.StatusOK, views.TournamentsPage(p, v))
}

// tournamentForm is the create (or edit, or schedule) form for an input.
func (s *Server) tournamentForm(c echo.Context, in tournaments.Input, err error) views.TournamentFormView {
	ctx := c.Request().Context()
	u := currentUser(c)
	loc := s.userLocation(c)
	values := map[string]string{
		"kind": in.Kind, "name": in.Name, "description": in.Description, "table_size": strconv.Itoa(in.TableSize),
		"minutes": strconv.Itoa(in.Minutes), "rounds": strconv.Itoa(in.Rounds), "game_rounds": strconv.Itoa(in.GameRounds),
		"variant": in.Variant, "open_tokens": strconv.FormatBool(in.OpenTokens), "hidden_tiger": strconv.FormatBool(in.HiddenTiger),
		"max_players": strconv.Itoa(in.MaxPlayers), "private": strconv.FormatBool(in.Private), "rated": strconv.FormatBool(in.Rated),
	}
	if !in.StartsAt.IsZero() {
		values["starts_local"] = in.StartsAt.In(loc).Format("2006-01-02T15:04")
	}
	v := views.TournamentFormView{Form: formOf(c, values, err), Pace: in.Pace, TurnSeconds: strconv.Itoa(in.TurnSeconds),
		Moderator: u != nil && u.Admin, TimeZone: loc.String()}
	v.Kinds = []views.Choice{{Value: db.KindArena, Label: tr(c, "Arena")}, {Value: db.KindSwiss, Label: tr(c, "Swiss")}}
	for _, n := range tournaments.SwissSizes {
		v.Sizes = append(v.Sizes, views.Choice{Value: strconv.Itoa(n), Label: i18n.N(ctx, "{{.Count}} player", "{{.Count}} players", n)})
	}
	for _, m := range tournaments.ArenaMinutes {
		v.Minutes = append(v.Minutes, views.Choice{Value: strconv.Itoa(m), Label: durationLabel(ctx, m*60)})
	}
	for n := tournaments.MinSwissRounds; n <= tournaments.MaxSwissRounds; n++ {
		v.Rounds = append(v.Rounds, views.Choice{Value: strconv.Itoa(n), Label: i18n.N(ctx, "{{.Count}} tournament round", "{{.Count}} tournament rounds", n)})
	}
	for n := engine.MinRounds; n <= engine.MaxRounds; n++ {
		v.GameRnds = append(v.GameRnds, views.Choice{Value: strconv.Itoa(n), Label: i18n.N(ctx, "{{.Count}} round", "{{.Count}} rounds", n)})
	}
	for _, va := range engine.Variants {
		v.Variants = append(v.Variants, views.Choice{Value: string(va), Label: variantLabel(ctx, va)})
	}
	for _, sec := range games.LiveTimers {
		v.Live = append(v.Live, views.Choice{Value: strconv.Itoa(sec), Label: durationLabel(ctx, sec)})
	}
	for _, sec := range games.CorrespondenceTimers {
		v.Corr = append(v.Corr, views.Choice{Value: strconv.Itoa(sec), Label: durationLabel(ctx, sec)})
	}
	return v
}

// userLocation is the time zone a form's start is read in: the browser's
// (the page's script fills it in), else the account's, else UTC.
func (s *Server) userLocation(c echo.Context) *time.Location {
	if tz := c.FormValue("time_zone"); tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			return loc
		}
	}
	if u := currentUser(c); u != nil {
		if m, err := s.accounts.MailSettings(c.Request().Context(), u.ID); err == nil {
			if loc, err := time.LoadLocation(m.TimeZone); err == nil {
				return loc
			}
		}
	}
	return time.UTC
}

// readTournamentForm reads the form into an input; a start that cannot be
// read is left zero (Validate says so).
func (s *Server) readTournamentForm(c echo.Context) (tournaments.Input, error) {
	var in tournaments.Input
	if err := c.Bind(&in); err != nil {
		return in, apperr.E(apperr.Invalid, "The form could not be read.")
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04", c.FormValue("starts_local"), s.userLocation(c)); err == nil {
		in.StartsAt = t
	}
	return in, nil
}

func (s *Server) newTournament(c echo.Context) error {
	return render(c, http.StatusOK, views.TournamentFormPage(s.page(c, tr(c, "Create a tournament")), s.tournamentForm(c, tournaments.DefaultInput(s.clock.Now()), nil)))
}

func (s *Server) createTournament(c echo.Context) error {
	in, err := s.readTournamentForm(c)
	if err != nil {
		return err
	}
	id, err := s.tournaments.Create(c.Request().Context(), *currentUser(c), in)
	if apperr.CodeOf(err) == apperr.Invalid {
		return render(c, http.StatusUnprocessableEntity, views.TournamentFormPage(s.page(c, tr(c, "Create a tournament")), s.tournamentForm(c, in, err)))
	}
	if err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The tournament is created. Players can join it now."))
	return redirect(c, tournamentURL(id, ""))
}

func (s *Server) editTournamentForm(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	t, err := s.tournaments.Get(c.Request().Context(), &u.ID, id, c.QueryParam("code"))
	if err != nil {
		return err
	}
	if !(u.Admin || (t.CreatorID != nil && *t.CreatorID == u.ID)) {
		return apperr.E(apperr.Forbidden, "Only the tournament's creator or a moderator can change it.")
	}
	if t.Status != db.TournamentUpcoming {
		return apperr.E(apperr.Conflict, "The tournament has started: its rules can no longer change.")
	}
	v := s.tournamentForm(c, tournaments.InputOf(t), nil)
	v.ID = id
	return render(c, http.StatusOK, views.TournamentFormPage(s.page(c, tr(c, "Change the tournament")), v))
}

func (s *Server) editTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	in, err := s.readTournamentForm(c)
	if err != nil {
		return err
	}
	err = s.tournaments.Edit(c.Request().Context(), *currentUser(c), id, in)
	if apperr.CodeOf(err) == apperr.Invalid {
		v := s.tournamentForm(c, in, err)
		v.ID = id
		return render(c, http.StatusUnprocessableEntity, views.TournamentFormPage(s.page(c, tr(c, "Change the tournament")), v))
	}
	if err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The tournament's rules are changed."))
	return redirect(c, tournamentURL(id, ""))
}

// viewedTournament reads the event of the path for its page, for a viewer
// who may see it (a private one with its code), and the code they came
// with.
func (s *Server) viewedTournament(c echo.Context) (*tournaments.View, string, error) {
	id, err := tournamentID(c)
	if err != nil {
		return nil, "", err
	}
	ctx := c.Request().Context()
	code := c.QueryParam("code")
	if _, err := s.tournaments.Get(ctx, viewerID(c), id, code); err != nil {
		return nil, "", err
	}
	tv, err := s.tournaments.LoadPage(ctx, id)
	return tv, code, err
}

// tournamentPage is an event's page.
func (s *Server) tournamentPage(c echo.Context) error {
	tv, code, err := s.viewedTournament(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v := s.tournamentView(c, tv, code)
	if v.Featured != nil {
		if st, err := s.games.State(ctx, v.Featured.GameID); err == nil {
			b := s.boardView(ctx, st, watch.Key{Seat: engine.Spectator, Lang: string(i18n.From(ctx))})
			v.Featured.Board = &b
		}
	}
	p := s.page(c, tv.T.Name)
	p.TurnsInGameStream = true
	p.Tournament = tv.T.ID
	return render(c, http.StatusOK, views.TournamentPage(p, v))
}

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
		}
		if t.Status == db.TournamentFinished {
			m.StatusText = tr(c, "You placed {{.Place}} with {{.Points}}.", "Place", views.Ordinal(ctx, me.Rank), "Points", pointsText(ctx, me.Points))
		}
		if t.Status == db.TournamentUpcoming {
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
		v.Join = true
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
	for i := from; i < to && i < len(standings); i++ {
		b.Standings = append(b.Standings, standingLine(ctx, standings[i], b.Code, results))
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

// renderTournamentFeed draws what an event's streams send, once per
// version and language: its board, and its featured table.
func (s *Server) renderTournamentFeed(ctx context.Context, _ int64, data any, lang string) ([]watch.Frame, error) {
	tv, ok := data.(*tournaments.View)
	if !ok {
		return nil, errors.New("handlers: a tournament feed without its view")
	}
	ctx = i18n.With(ctx, i18n.Or(lang))
	var board, feat bytes.Buffer
	if err := views.TournamentBoardView(s.tournamentBoard(ctx, tv, 0)).Render(ctx, &board); err != nil {
		return nil, fmt.Errorf("render tournament board: %w", err)
	}
	if err := views.FeaturedPanel(featuredTable(tv)).Render(ctx, &feat); err != nil {
		return nil, fmt.Errorf("render featured table: %w", err)
	}
	return []watch.Frame{
		{Kind: "standings", Data: watch.EventBytes("standings", board.Bytes())},
		{Kind: "featured", Data: watch.EventBytes("featured", feat.Bytes())},
	}, nil
}

// tournamentEvents streams an event's board and featured table to its
// page, drawn once per version and language for every viewer; a member's
// turns and notices ride on it too.
func (s *Server) tournamentEvents(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := s.tournaments.Get(ctx, viewerID(c), id, c.QueryParam("code")); err != nil {
		return err
	}
	sub, first, err := s.feed.Subscribe(ctx, id, string(i18n.From(ctx)))
	if errors.Is(err, watch.ErrClosed) {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is restarting: the page checks for moves by itself meanwhile.")
	}
	if err != nil {
		return err
	}
	var ts *turnSub
	if u := currentUser(c); u != nil && s.turns != nil {
		tsub, tfirst, err := s.turns.Subscribe(ctx, u.ID)
		if err != nil {
			s.feed.Unsubscribe(sub)
			return err
		}
		ts = &turnSub{sub: tsub, first: tfirst}
	}
	return s.serveStream(c, func(ctx context.Context, w frameWriter, closed func()) {
		s.feedStream(ctx, w, sub, first, ts, closed)
	})
}

// feedStream writes a feed's frames (and a member's turns) until the
// client goes, falls behind, or the server shuts down.
func (s *Server) feedStream(ctx context.Context, w frameWriter, sub *watch.FeedSub, first []watch.Frame, ts *turnSub, closed func()) {
	defer s.feed.Unsubscribe(sub)
	defer w.Close()
	defer closed()
	if ts != nil {
		defer s.turns.Unsubscribe(ts.sub)
		if err := w.Write(turnFrame(ts.first)); err != nil {
			return
		}
	}
	for _, f := range first {
		if err := w.Write(f.Data); err != nil {
			return
		}
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	turnC, noticeC := turnChans(ts)
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.Gone():
			return
		case <-s.feed.Done():
			return
		case <-sub.Wake:
			frames, dropped := sub.Take()
			if dropped {
				return
			}
			for _, f := range frames {
				if err := w.Write(f.Data); err != nil {
					return
				}
			}
		case u := <-turnC:
			if err := w.Write(turnFrame(u)); err != nil {
				return
			}
		case n := <-noticeC:
			if err := w.Write(noticeFrame(n)); err != nil {
				return
			}
		case <-beat.C:
			if err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
		}
	}
}

// turnChans are a turn subscription's channels (nil ones, never ready, for
// none).
func turnChans(ts *turnSub) (<-chan turns.Update, <-chan turns.Notice) {
	if ts == nil {
		return nil, nil
	}
	return ts.sub.C, ts.sub.N
}

// tournamentStandings answers the round picker (and the page without
// script): the standings after a round.
func (s *Server) tournamentStandings(c echo.Context) error {
	tv, code, err := s.viewedTournament(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	round, _ := strconv.Atoi(c.QueryParam("round"))
	if page, err := strconv.Atoi(c.QueryParam("page")); err == nil && page > 0 {
		// Every player's line and games: the whole event is read.
		full, err := s.tournaments.Load(ctx, tv.T.ID)
		if err != nil {
			return err
		}
		b := s.standingsBoard(ctx, full, round, page)
		if page > max(b.Pages, 1) {
			return apperr.E(apperr.NotFound, "There is no such page of the standings.")
		}
		b.Code = code
		p := s.page(c, tr(c, "Standings of {{.Name}}", "Name", tv.T.Name))
		return render(c, http.StatusOK, views.StandingsPage(p, tv.T.Name, b))
	}
	b := s.tournamentBoard(ctx, tv, round)
	if !isFragment(c) {
		v := s.tournamentView(c, tv, code)
		v.Board = b
		p := s.page(c, tv.T.Name)
		p.Tournament = tv.T.ID
		return render(c, http.StatusOK, views.TournamentPage(p, v))
	}
	return render(c, http.StatusOK, views.TournamentStandings(b))
}

// tournamentMe answers the viewer's panel, read again when the event's
// status changes.
func (s *Server) tournamentMe(c echo.Context) error {
	tv, code, err := s.viewedTournament(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.TournamentMePanel(s.tournamentView(c, tv, code)))
}

// tournamentAction runs a player's action on an event and goes back to it
// with what happened.
func (s *Server) tournamentAction(do func(c echo.Context, u db.User, id int64) error, done string) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := tournamentID(c)
		if err != nil {
			return err
		}
		err = do(c, *currentUser(c), id)
		switch apperr.CodeOf(err) {
		case apperr.Internal, apperr.NotFound, apperr.Unauthorized:
			if err != nil {
				return err
			}
		}
		if err != nil {
			s.setFlash(c, "error", messageOf(c.Request().Context(), err))
		} else if done != "" {
			s.setFlash(c, "ok", tr(c, done))
		}
		return redirect(c, tournamentURL(id, c.FormValue("code")))
	}
}

// hideTournament hides an event's description (or shows it again).
func (s *Server) hideTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	hide := c.FormValue("hide") != "false"
	if err := s.tournaments.HideDescription(c.Request().Context(), *currentUser(c), id, hide); err != nil {
		return err
	}
	if hide {
		s.setFlash(c, "ok", tr(c, "The description is hidden; the moderation log says so."))
	} else {
		s.setFlash(c, "ok", tr(c, "The description shows again."))
	}
	return redirect(c, tournamentURL(id, ""))
}

// tv is the site's featured game.
func (s *Server) tv(c echo.Context) error {
	return render(c, http.StatusOK, views.TVPage(s.tvPage(c), s.tvView(c)))
}

func (s *Server) tvPage(c echo.Context) views.Page {
	p := s.page(c, tr(c, "No Thanks! TV"))
	// The page's own stream tells it when a game starts (it may show
	// none); the featured game's stream carries no turns.
	p.Lists = lists.Live
	return p
}

// tvFrame answers /tv's move to the next game.
func (s *Server) tvFrame(c echo.Context) error {
	return render(c, http.StatusOK, views.TVFrame(s.tvView(c)))
}

// tvView finds the featured game (not the one the page shows, when it asks
// for the next one) and draws its board.
func (s *Server) tvView(c echo.Context) views.TVView {
	ctx := c.Request().Context()
	except, _ := strconv.ParseInt(c.QueryParam("after"), 10, 64)
	id, err := s.tournaments.TVGame(ctx, except)
	if err != nil || id == 0 {
		if err != nil {
			s.log.Warn("tv game", "err", err)
		}
		return views.TVView{}
	}
	st, err := s.games.State(ctx, id)
	if err != nil {
		return views.TVView{}
	}
	f := featuredOf(id, true, "", localNames(ctx, tableNames(st)))
	b := s.boardView(ctx, st, watch.Key{Seat: engine.Spectator, Lang: string(i18n.From(ctx))})
	f.Board = &b
	return views.TVView{Featured: f}
}

func tableNames(st *games.State) []string {
	names := make([]string, 0, len(st.Seats))
	for _, seat := range st.Seats {
		names = append(names, games.Name(seat))
	}
	return names
}

// API: tournaments.

type apiTournament struct {
	ID          int64          `json:"id"`
	URL         string         `json:"url"`
	Kind        string         `json:"kind"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Status      string         `json:"status"`
	Rated       bool           `json:"rated"`
	Public      bool           `json:"public"`
	TableSize   int            `json:"table_size"`
	Options     engine.Options `json:"options"`
	Pace        string         `json:"pace"`
	TurnSeconds int            `json:"turn_seconds"`
	StartsAt    time.Time      `json:"starts_at"`
	EndsAt      *time.Time     `json:"ends_at,omitempty"`
	Minutes     *int           `json:"minutes,omitempty"`
	Rounds      *int           `json:"rounds,omitempty"`
	Round       int            `json:"round"`
	Players     int            `json:"players"`
	MaxPlayers  int            `json:"max_players"`
	Version     int            `json:"version"`
}

func (s *Server) apiTournamentOf(t db.Tournament) apiTournament {
	a := apiTournament{ID: t.ID, URL: s.cfg.BaseURL.String() + tournamentURL(t.ID, ""), Kind: t.Kind, Name: t.Name, Status: t.Status,
		Rated: t.Rated, Public: t.Public, TableSize: t.TableSize, Options: tournaments.OptionsOf(t), Pace: t.Pace, TurnSeconds: t.TurnSeconds,
		StartsAt: t.StartsAt.UTC(), Minutes: t.Minutes, Rounds: t.Rounds, Round: t.Round, Players: t.Players, MaxPlayers: t.MaxPlayers, Version: t.Version}
	if t.DescriptionHiddenBy == nil {
		a.Description = t.Description
	}
	if t.Minutes != nil {
		e := t.EndsAt().UTC()
		a.EndsAt = &e
	}
	return a
}

func (s *Server) apiTournaments(c echo.Context) error {
	l, err := s.tournaments.List(c.Request().Context(), apiUser(c).ID)
	if err != nil {
		return err
	}
	out := map[string][]apiTournament{"upcoming": {}, "running": {}, "finished": {}}
	for _, t := range l.Upcoming {
		out["upcoming"] = append(out["upcoming"], s.apiTournamentOf(t))
	}
	for _, t := range l.Running {
		out["running"] = append(out["running"], s.apiTournamentOf(t))
	}
	for _, t := range l.Finished {
		out["finished"] = append(out["finished"], s.apiTournamentOf(t))
	}
	return c.JSON(http.StatusOK, out)
}

// apiTournamentBody is a created or changed event: the rules as in the
// form, the start as RFC 3339.
func apiTournamentBody(c echo.Context) (tournaments.Input, error) {
	var in tournaments.Input
	err := apiBind(c, &in, i18n.M("The body is not valid JSON, or starts_at is not an RFC 3339 time."))
	return in, err
}

func (s *Server) apiCreateTournament(c echo.Context) error {
	in, err := apiTournamentBody(c)
	if err != nil {
		return err
	}
	id, err := s.tournaments.Create(c.Request().Context(), *apiUser(c), in)
	if err != nil {
		return err
	}
	return s.apiShowTournament(c, id, http.StatusCreated)
}

func (s *Server) apiEditTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	in, err := apiTournamentBody(c)
	if err != nil {
		return err
	}
	if err := s.tournaments.Edit(c.Request().Context(), *apiUser(c), id, in); err != nil {
		return err
	}
	return s.apiShowTournament(c, id, http.StatusOK)
}

func (s *Server) apiGetTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	return s.apiShowTournament(c, id, http.StatusOK)
}

type apiStanding struct {
	Rank     int         `json:"rank"`
	Username string      `json:"username"`
	Points   float64     `json:"points"`
	Games    int         `json:"games"`
	Wins     int         `json:"wins"`
	Byes     int         `json:"byes,omitempty"`
	OnFire   bool        `json:"on_fire,omitempty"`
	Buchholz *float64    `json:"buchholz,omitempty"`
	Status   string      `json:"status"`
	GameID   *int64      `json:"game_id,omitempty"`
	Results  []apiResult `json:"results"`
}

type apiResult struct {
	GameID  *int64  `json:"game_id"`
	Round   int     `json:"round"`
	Place   int     `json:"place,omitempty"`
	Points  float64 `json:"points"`
	Counted float64 `json:"counted"`
	Won     bool    `json:"won,omitempty"`
}

type apiEventTable struct {
	GameID   int64    `json:"game_id"`
	Round    int      `json:"round"`
	Status   string   `json:"status"`
	Players  []string `json:"players"`
	Placings []int    `json:"placings,omitempty"`
}

func half(p pairing.Points) float64 { return float64(p) / 2 }

// apiShowTournament answers an event as the token's owner may see it: its
// rules, their part, the standings (after ?round=N of a Swiss event), the
// tables and the featured game.
func (s *Server) apiShowTournament(c echo.Context, id int64, status int) error {
	ctx := c.Request().Context()
	u := apiUser(c)
	if _, err := s.tournaments.Get(ctx, &u.ID, id, c.QueryParam("code")); err != nil {
		return err
	}
	tv, err := s.tournaments.Load(ctx, id)
	if err != nil {
		return err
	}
	standings := tv.Standings
	if r, err := strconv.Atoi(c.QueryParam("round")); err == nil && r >= 1 && r <= len(tv.ByRound) {
		standings = tv.ByRound[r-1]
	}
	out := map[string]any{"tournament": s.apiTournamentOf(tv.T)}
	list := []apiStanding{}
	for _, st := range standings {
		a := apiStanding{Rank: st.Rank, Username: st.Name, Points: half(st.Points), Games: st.Games, Wins: st.Wins, Byes: st.Byes, OnFire: st.OnFire, Status: st.Status, Results: []apiResult{}}
		if tv.T.Kind == db.KindSwiss {
			b := half(st.Buchholz)
			a.Buchholz = &b
		}
		if st.GameID != 0 {
			g := st.GameID
			a.GameID = &g
		}
		for _, r := range st.Results {
			x := apiResult{Round: r.Round, Place: r.Place, Points: half(r.Points), Counted: half(r.Counted), Won: r.Won}
			if r.GameID != 0 {
				g := r.GameID
				x.GameID = &g
			}
			a.Results = append(a.Results, x)
		}
		list = append(list, a)
		if me := st.UserID; me == u.ID {
			out["you"] = a
		}
	}
	out["standings"] = list
	tables := []apiEventTable{}
	for _, tb := range tv.Tables {
		tables = append(tables, apiEventTable{GameID: tb.GameID, Round: tb.Round, Status: tb.Status, Players: tb.Names, Placings: tb.Placings})
	}
	out["tables"] = tables
	if tv.Featured != 0 {
		out["featured_game_id"] = tv.Featured
	}
	return c.JSON(status, out)
}

// apiTournamentDo runs a player's action and answers the event's rules
// and the player's part (not the standings: an answer that costs the same
// at an event's end as at its start).
func (s *Server) apiTournamentDo(do func(c echo.Context, u db.User, id int64) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := tournamentID(c)
		if err != nil {
			return err
		}
		u := apiUser(c)
		if err := do(c, *u, id); err != nil {
			return err
		}
		ctx := c.Request().Context()
		t, err := s.tournaments.Get(ctx, &u.ID, id, "")
		if err != nil {
			return err
		}
		out := map[string]any{"tournament": s.apiTournamentOf(t)}
		if p, err := s.tournaments.Me(ctx, u.ID, id); err == nil {
			out["you"] = apiMeOf(p)
		}
		return c.JSON(http.StatusOK, out)
	}
}

// apiMeOf is a player's part in an event.
func apiMeOf(p db.TournamentPlayer) map[string]any {
	return map[string]any{"status": p.Status, "points": float64(p.Points) / 2, "games": p.Games, "wins": p.Wins, "byes": p.Byes, "on_fire": p.OnFire, "game_id": p.GameID}
}

// apiTournamentMe answers the token owner's part in an event alone: their
// status, points and the table they sit at (a cheap read for clients that
// ask often).
func (s *Server) apiTournamentMe(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	p, err := s.tournaments.Me(c.Request().Context(), apiUser(c).ID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiMeOf(p))
}

func (s *Server) apiCancelTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	if err := s.tournaments.Cancel(c.Request().Context(), *apiUser(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// The actions of a player, shared by the pages and the API.
func (s *Server) joinTournament(c echo.Context, u db.User, id int64) error {
	code := c.FormValue("code")
	if code == "" {
		code = c.QueryParam("code")
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		var body struct {
			Code string `json:"code"`
		}
		_ = json.NewDecoder(c.Request().Body).Decode(&body)
		if body.Code != "" {
			code = body.Code
		}
	}
	return s.tournaments.Join(c.Request().Context(), u, id, code)
}

func (s *Server) pauseTournament(c echo.Context, u db.User, id int64) error {
	return s.tournaments.Pause(c.Request().Context(), u.ID, id)
}

func (s *Server) resumeTournament(c echo.Context, u db.User, id int64) error {
	return s.tournaments.Resume(c.Request().Context(), u.ID, id)
}

func (s *Server) withdrawTournament(c echo.Context, u db.User, id int64) error {
	return s.tournaments.Withdraw(c.Request().Context(), u.ID, id)
}

func (s *Server) cancelTournament(c echo.Context, u db.User, id int64) error {
	return s.tournaments.Cancel(c.Request().Context(), u, id)
}

// Recurring events (moderators).

func (s *Server) schedulesPage(c echo.Context) error {
	in := tournaments.ScheduleInput{Input: tournaments.DefaultInput(s.clock.Now()), EveryHours: 1}
	return s.renderSchedules(c, http.StatusOK, in, nil)
}

func (s *Server) renderSchedules(c echo.Context, status int, in tournaments.ScheduleInput, ferr error) error {
	ctx := c.Request().Context()
	rows, err := s.tournaments.Schedules(ctx, *currentUser(c))
	if err != nil {
		return err
	}
	v := views.SchedulesView{Form: s.tournamentForm(c, in.Input, ferr)}
	v.Form.Schedule = true
	v.Form.Form.Values["every_hours"] = strconv.Itoa(in.EveryHours)
	for _, h := range tournaments.EveryChoices {
		v.Form.Every = append(v.Form.Every, views.Choice{Value: strconv.Itoa(h), Label: everyLabel(ctx, h)})
	}
	for _, r := range rows {
		t := db.Tournament{Kind: r.Kind, TableSize: r.TableSize, Options: r.Options, Pace: r.Pace, TurnSeconds: r.TurnSeconds, Minutes: r.Minutes, Rounds: r.Rounds}
		v.Rows = append(v.Rows, views.ScheduleRow{ID: r.ID, Name: r.Name, Summary: kindLabel(ctx, r.Kind) + " · " + tournamentSummary(ctx, t),
			Every: everyLabel(ctx, r.EveryHours), NextAt: r.NextAt.UTC().Format(time.RFC3339), Next: i18n.DateTime(i18n.From(ctx), r.NextAt), Active: r.Active})
	}
	return render(c, status, views.SchedulesPage(s.page(c, tr(c, "Recurring tournaments")), v))
}

// everyLabel says how often a recurring event comes.
func everyLabel(ctx context.Context, hours int) string {
	switch {
	case hours%(24*7) == 0:
		return i18n.N(ctx, "every week", "every {{.Count}} weeks", hours/(24*7))
	case hours%24 == 0:
		return i18n.N(ctx, "every day", "every {{.Count}} days", hours/24)
	}
	return i18n.N(ctx, "every hour", "every {{.Count}} hours", hours)
}

func (s *Server) createSchedule(c echo.Context) error {
	in, err := s.readTournamentForm(c)
	if err != nil {
		return err
	}
	every, _ := strconv.Atoi(c.FormValue("every_hours"))
	sin := tournaments.ScheduleInput{Input: in, EveryHours: every}
	if _, err := s.tournaments.Schedule(c.Request().Context(), *currentUser(c), sin); err != nil {
		if apperr.CodeOf(err) == apperr.Invalid {
			return s.renderSchedules(c, http.StatusUnprocessableEntity, sin, err)
		}
		return err
	}
	s.setFlash(c, "ok", tr(c, "The recurring tournament is scheduled: its next event appears one period ahead of its start."))
	return redirect(c, "/admin/schedules")
}

func (s *Server) setScheduleActive(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such recurring tournament.")
	}
	if err := s.tournaments.SetScheduleActive(c.Request().Context(), *currentUser(c), id, c.FormValue("active") == "true"); err != nil {
		return err
	}
	return redirect(c, "/admin/schedules")
}
