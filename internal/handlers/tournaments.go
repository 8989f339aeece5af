package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	"nothanks/internal/tournaments"
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
