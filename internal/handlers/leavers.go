package handlers

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/reliability"
	"nothanks/internal/views"
)

// Leavers: leaving a game in play, the reliability figure beside names,
// a player's own record with its pauses and appeals, and the moderators'
// answers (docs/fair-play.md).

// relView is a figure as shown beside a name.
func relView(ctx context.Context, f reliability.Figure) *views.Reliability {
	if f.New() {
		return &views.Reliability{Label: i18n.T(ctx, "new"), Level: "new",
			Text: i18n.N(ctx, "New player: {{.Count}} finished game so far.", "New player: {{.Count}} finished games so far.", f.Games)}
	}
	p := f.Percent()
	level := "poor"
	switch {
	case p >= 90:
		level = "good"
	case p >= 75:
		level = "fair"
	}
	return &views.Reliability{Label: i18n.T(ctx, "{{.Percent}}%", "Percent", p), Level: level,
		Text: i18n.N(ctx, "Finished {{.Percent}}% of the last {{.Count}} game without abandoning; {{.Timeouts}} timeouts per 100 decisions.",
			"Finished {{.Percent}}% of the last {{.Count}} games without abandoning; {{.Timeouts}} timeouts per 100 decisions.", f.Games,
			"Percent", p, "Timeouts", i18n.Decimal(ctx, f.TimeoutsPer100()))}
}

// figures reads the shown figures of accounts (nil, and a warning in the
// log, when they cannot be read: a page is drawn without them).
func (s *Server) figures(ctx context.Context, ids []int64) map[int64]reliability.Figure {
	if s.leavers == nil || len(ids) == 0 {
		return nil
	}
	fs, err := s.leavers.Shown(ctx, ids)
	if err != nil {
		s.log.Warn("reliability figures", "err", err)
		return nil
	}
	return fs
}

// fillReliability puts each seated account's figure beside its name at a
// table (open or in play), the table's minimum, and whether the viewer
// may leave the game in play.
func (s *Server) fillReliability(ctx context.Context, v *views.TableView, t *games.Table) {
	var ids []int64
	for _, st := range t.Seats {
		if st.UserID != nil {
			ids = append(ids, *st.UserID)
		}
	}
	fs := s.figures(ctx, ids)
	mark := func(st db.Seat) *views.Reliability {
		if st.UserID == nil || fs == nil {
			return nil
		}
		return relView(ctx, fs[*st.UserID])
	}
	if v.Lobby != nil {
		for i := range v.Lobby.Seats {
			if i < len(t.Seats) {
				v.Lobby.Seats[i].Reliability = mark(t.Seats[i])
			}
		}
		if m := t.Game.MinReliability; m != nil {
			v.Lobby.MinShare = *m
		}
		return
	}
	for i := range v.Seats {
		if i < len(t.Seats) {
			v.Seats[i].Reliability = mark(t.Seats[i])
			v.Seats[i].Left = t.View.Seats[i].Left
		}
	}
	if t.Game.Status == db.StatusPlaying && t.ViewerSeat >= 0 && t.ViewerSeat < len(t.Seats) && t.View != nil {
		me := t.Seats[t.ViewerSeat]
		v.CanLeave = me.UserID != nil && !me.Abandoned && !t.View.Seats[t.ViewerSeat].Abandoned
	}
}

// fillRowReliability puts the players' figures into rows of open tables.
func (s *Server) fillRowReliability(ctx context.Context, rows []views.GameRow, gs []db.GameSummary) {
	var ids []int64
	for _, g := range gs {
		for _, id := range g.UserIDs {
			if id != 0 {
				ids = append(ids, id)
			}
		}
	}
	fs := s.figures(ctx, ids)
	for i, g := range gs {
		if g.MinReliability != nil {
			rows[i].MinShare = *g.MinReliability
		}
		if fs == nil {
			continue
		}
		rows[i].Reliabilities = make([]*views.Reliability, len(g.UserIDs))
		for k, id := range g.UserIDs {
			if id != 0 {
				rows[i].Reliabilities[k] = relView(ctx, fs[id])
			}
		}
	}
}

// leaveCost is the confirmation of leaving a game in play: what it costs,
// before anything is done.
func (s *Server) leaveConfirm(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	ctx, u := c.Request().Context(), currentUser(c)
	cost, err := s.leavers.LeaveCost(ctx, *u, id)
	if err == games.ErrLeaveOpen {
		return redirect(c, fmt.Sprintf("/games/%d", id))
	}
	if err != nil {
		return err
	}
	v := views.LeaveView{GameID: id, Ranked: cost.Ranked, Tournament: cost.Tournament, Step: cost.Step}
	if cost.Pause > 0 {
		v.Pause = durationLabel(ctx, int(cost.Pause/time.Second))
	}
	return render(c, http.StatusOK, views.LeaveGamePage(s.page(c, tr(c, "Leave game #{{.ID}}?", "ID", id)), v))
}

// abandonGame leaves a game in play, from its confirmation.
func (s *Server) abandonGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	if _, err := s.leavers.Leave(c.Request().Context(), currentUser(c).ID, id); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "You left game #{{.ID}}: a bot plays your seat to the end, and you are placed last.", "ID", id))
	return redirect(c, fmt.Sprintf("/games/%d", id))
}

// reliabilityPage is a player's own record: the figure, the pause that
// holds them, their rated abandonments and the appeal of each.
func (s *Server) reliabilityPage(c echo.Context) error {
	return s.renderReliability(c, http.StatusOK, 0, views.Form{})
}

func (s *Server) renderReliability(c echo.Context, status int, appealID int64, f views.Form) error {
	ctx, u := c.Request().Context(), currentUser(c)
	rec, err := s.leavers.RecordOf(ctx, u.ID)
	if err != nil {
		return err
	}
	lang := i18n.From(ctx)
	loc := s.userLocation(c)
	v := views.ReliabilityView{Mark: relView(ctx, rec.Figure), Games: rec.Figure.Games, Percent: rec.Figure.Percent(),
		TimeoutsPer100: i18n.Decimal(ctx, rec.Figure.TimeoutsPer100()), New: rec.Figure.New(), Bot: u.Bot}
	if rec.Pause != nil {
		v.PausedUntil = i18n.DateTime(lang, rec.Pause.PauseUntil.In(loc))
		v.PausedUntilRFC = rec.Pause.PauseUntil.UTC().Format(time.RFC3339)
	}
	for _, a := range rec.Abandonments {
		av := views.AbandonmentView{ID: a.ID, GameID: a.GameID, Left: a.How == db.AbandonedByLeaving, When: i18n.DateTime(lang, a.At.In(loc)), Step: a.Step,
			CanAppeal: a.AppealedAt == nil}
		if a.PauseUntil != nil {
			av.Pause = durationLabel(ctx, int(a.PauseUntil.Sub(a.At)/time.Second))
		}
		if a.Appeal != nil {
			av.Appeal = *a.Appeal
		}
		if a.Answer != nil {
			av.Answer, av.AnswerNote = *a.Answer, a.AnswerNote
		}
		if a.ID == appealID {
			av.Form = f
		}
		v.Abandonments = append(v.Abandonments, av)
	}
	return render(c, status, views.ReliabilityPage(s.page(c, tr(c, "Your reliability")), v))
}

// appeal stores a player's appeal of an abandonment.
func (s *Server) appeal(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "You have no such abandonment to appeal.")
	}
	text := c.FormValue("appeal")
	if err := s.leavers.Appeal(c.Request().Context(), currentUser(c).ID, id, text); err != nil {
		if apperr.CodeOf(err) == apperr.Internal || apperr.CodeOf(err) == apperr.NotFound {
			return err
		}
		return s.renderReliability(c, statusOf(apperr.CodeOf(err)), id, formOf(c, map[string]string{"appeal": text}, err))
	}
	s.setFlash(c, "ok", tr(c, "Your appeal is sent: a moderator reads it and answers here."))
	return redirect(c, "/my/reliability")
}

// answerAppeal is a moderator's answer to an appeal of an abandonment.
func (s *Server) answerAppeal(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such appeal.")
	}
	forgive := c.FormValue("answer") == db.AppealForgiven
	if !forgive && c.FormValue("answer") != db.AppealUpheld {
		return apperr.E(apperr.Invalid, "Answer an appeal by forgiving or upholding the abandonment.")
	}
	if err := s.leavers.Answer(c.Request().Context(), *currentUser(c), id, forgive, c.FormValue("note")); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The appeal is answered; the player reads your answer on their reliability page."))
	return redirect(c, "/admin#appeals")
}

// appealViews are the open appeals, for the moderators' page.
func (s *Server) appealViews(ctx context.Context, admin db.User) ([]views.AppealView, error) {
	open, err := s.leavers.OpenAppeals(ctx, admin)
	if err != nil {
		return nil, err
	}
	lang := i18n.From(ctx)
	var out []views.AppealView
	for _, a := range open {
		av := views.AppealView{ID: a.ID, Name: a.Username, GameID: a.GameID, Left: a.How == db.AbandonedByLeaving, Step: a.Step,
			When: i18n.DateTime(lang, a.At.UTC()), Own: a.UserID == admin.ID}
		if a.Appeal != nil {
			av.Text = *a.Appeal
		}
		out = append(out, av)
	}
	return out, nil
}

// apiLeave leaves an open table, or a game in play when the body says
// {"abandon": true}: leaving a game in play abandons the seat for good.
func (s *Server) apiLeave(c echo.Context, userID, id int64, b apiBody) (*games.State, error) {
	ctx := c.Request().Context()
	st, err := s.games.State(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.Game.Status == db.StatusOpen {
		return nil, s.games.Leave(ctx, userID, id)
	}
	if err := games.CanAbandon(st, userID); err != nil {
		return nil, err
	}
	if !b.Abandon {
		return nil, apperr.E(apperr.Conflict, `This game is in play: leaving it abandons your seat for good (a bot plays it, you place last, and a ranked game is rated so). To leave, send {"abandon": true}.`)
	}
	return s.leavers.Leave(ctx, userID, id)
}

// apiReliability is a figure as the API gives it.
type apiReliability struct {
	Games          int     `json:"games"`
	New            bool    `json:"new"`
	FinishedShare  float64 `json:"finished_share"`
	TimeoutsPer100 float64 `json:"timeouts_per_100"`
}

func apiReliabilityOf(f reliability.Figure) apiReliability {
	share := 1.0
	if f.Games > 0 {
		share = math.Round(float64(f.Kept)/float64(f.Games)*1000) / 1000
	}
	return apiReliability{Games: f.Games, New: f.New(), FinishedShare: share, TimeoutsPer100: f.TimeoutsPer100()}
}

// apiMyReliability is the token owner's own record: the figure, the pause
// that holds them (absent: none), and their rated abandonments with their
// appeals.
func (s *Server) apiMyReliability(c echo.Context) error {
	rec, err := s.leavers.RecordOf(c.Request().Context(), apiUser(c).ID)
	if err != nil {
		return err
	}
	type abandonment struct {
		GameID     int64      `json:"game_id"`
		How        string     `json:"how"`
		At         time.Time  `json:"at"`
		Step       int        `json:"step"`
		PauseUntil *time.Time `json:"pause_until,omitempty"`
		Appealed   bool       `json:"appealed"`
		Answer     *string    `json:"answer,omitempty"`
	}
	out := struct {
		Reliability  apiReliability `json:"reliability"`
		PausedUntil  *time.Time     `json:"paused_until,omitempty"`
		Abandonments []abandonment  `json:"abandonments"`
	}{Reliability: apiReliabilityOf(rec.Figure), Abandonments: []abandonment{}}
	if rec.Pause != nil {
		u := rec.Pause.PauseUntil.UTC()
		out.PausedUntil = &u
	}
	for _, a := range rec.Abandonments {
		x := abandonment{GameID: a.GameID, How: a.How, At: a.At.UTC(), Step: a.Step, Appealed: a.AppealedAt != nil, Answer: a.Answer}
		if a.PauseUntil != nil {
			u := a.PauseUntil.UTC()
			x.PauseUntil = &u
		}
		out.Abandonments = append(out.Abandonments, x)
	}
	return c.JSON(http.StatusOK, out)
}

// pauseView is the pause that holds the viewer from rated play, for the
// pages where it bites (nil: none, or it cannot be read just now: the
// refusal at the action says it then).
func (s *Server) pauseView(c echo.Context) *views.PauseView {
	u := currentUser(c)
	if u == nil || s.leavers == nil {
		return nil
	}
	a, err := s.leavers.PauseOf(c.Request().Context(), *u)
	if err != nil {
		s.log.Warn("pause", "user", u.ID, "err", err)
		return nil
	}
	if a == nil {
		return nil
	}
	return &views.PauseView{Until: i18n.DateTime(i18n.From(c.Request().Context()), a.PauseUntil.In(s.userLocation(c))),
		UntilRFC: a.PauseUntil.UTC().Format(time.RFC3339), Step: a.Step, GameID: a.GameID}
}
