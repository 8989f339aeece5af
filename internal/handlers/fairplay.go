package handlers

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/fairplay"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// Fair play (docs/fair-play.md): a member reports a player; a member
// reads the decisions about them, appeals one, and sees their reports
// end; moderators work the queue of cases, decide, undo and judge
// appeals. The pages are thin: package fairplay decides.

func points(x float64) string { return fmt.Sprintf("%.1f", x) }

func (s *Server) reportPage(c echo.Context) error {
	game, _ := strconv.ParseInt(c.QueryParam("game"), 10, 64)
	v := views.PlayerReportView{Target: c.Param("name"), GameID: game}
	if _, err := s.accounts.UserByName(c.Request().Context(), v.Target); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.PlayerReportPage(s.page(c, tr(c, "Report {{.Name}}", "Name", v.Target)), v))
}

func (s *Server) reportPlayer(c echo.Context) error {
	in := fairplay.ReportInput{Target: c.Param("name"), Reason: c.FormValue("reason"), Note: c.FormValue("note")}
	values := map[string]string{"reason": in.Reason, "note": in.Note, "game": c.FormValue("game")}
	if g := strings.TrimSpace(c.FormValue("game")); g != "" {
		id, err := strconv.ParseInt(g, 10, 64)
		if err != nil || id <= 0 {
			f := views.Form{Values: values, Errors: map[string]string{"game": tr(c, "Give the game's number, or leave it empty.")}}
			return render(c, http.StatusUnprocessableEntity, views.PlayerReportPage(s.page(c, tr(c, "Report {{.Name}}", "Name", in.Target)), views.PlayerReportView{Target: in.Target, Form: f}))
		}
		in.GameID = id
	}
	if _, err := s.fairplay.Report(c.Request().Context(), *currentUser(c), in); err != nil {
		if apperr.CodeOf(err) == apperr.Internal || apperr.CodeOf(err) == apperr.NotFound {
			return err
		}
		f := formOf(c, values, err)
		return render(c, statusOf(apperr.CodeOf(err)), views.PlayerReportPage(s.page(c, tr(c, "Report {{.Name}}", "Name", in.Target)), views.PlayerReportView{Target: in.Target, GameID: in.GameID, Form: f}))
	}
	s.setFlash(c, "ok", tr(c, "Thank you: your report is sent. A moderator will look at it, and your fair-play page tells you when it has been handled."))
	return redirect(c, "/my/fairplay")
}

// decisionView is a decision as the pages show it.
func (s *Server) decisionView(c echo.Context, d db.FairDecision, viewer int64) views.FairDecisionView {
	lang, loc := i18n.From(c.Request().Context()), s.userLocation(c)
	v := views.FairDecisionView{ID: d.ID, CaseID: d.CaseID, Account: d.UserName, Action: d.Action, Reason: d.Reason,
		When: i18n.DateTime(lang, d.DecidedAt.In(loc)), Undone: d.UndoneAt != nil,
		CanAppeal: d.UserID == viewer && d.Action != "dismiss" && d.AppealedAt == nil && d.UndoneAt == nil,
		Own:       d.DecidedBy != nil && *d.DecidedBy == viewer}
	if d.UndoReason != nil {
		v.UndoWhy = *d.UndoReason
	}
	if d.Refunded > 0 {
		v.Refunded = points(d.Refunded)
	}
	if d.Appeal != nil {
		v.Appeal = *d.Appeal
	}
	if d.Answer != nil {
		v.Answer = *d.Answer
	}
	if d.AnswerNote != nil {
		v.AnswerNote = *d.AnswerNote
	}
	return v
}

func (s *Server) myFairPlay(c echo.Context) error {
	return s.renderMyFairPlay(c, http.StatusOK, 0, views.Form{})
}

func (s *Server) renderMyFairPlay(c echo.Context, status int, appealID int64, f views.Form) error {
	ctx, u := c.Request().Context(), currentUser(c)
	m, err := s.fairplay.Mine(ctx, *u)
	if err != nil {
		return err
	}
	v := views.MyFairPlayView{Marked: u.MarkedAt != nil}
	s.myDecisions(c, &v, m.Decisions, u.ID, "/my/fairplay/%d/appeal", appealID, f)
	lang, loc := i18n.From(ctx), s.userLocation(c)
	for _, r := range m.Reports {
		rv := views.MyReportView{Target: r.TargetName, Reason: r.Reason, When: i18n.DateTime(lang, r.CreatedAt.In(loc)), Handled: r.HandledAt != nil}
		if r.GameID != nil {
			rv.GameID = *r.GameID
		}
		if r.Outcome != nil {
			rv.Outcome = *r.Outcome
		}
		v.Reports = append(v.Reports, rv)
	}
	for _, r := range m.Refunds {
		v.Refunds = append(v.Refunds, views.RefundView{GameID: r.GameID, Marked: r.MarkedName, Points: points(r.Points),
			When: i18n.DateTime(lang, r.CreatedAt.In(loc)), Undone: r.UndoneAt != nil})
	}
	return render(c, status, views.MyFairPlayPage(s.page(c, tr(c, "Fair play")), v))
}

// myDecisions fills a player's page with the decisions about them, each
// appeal form posting to appealURL (a format of the decision's id), the
// one just sent (appealID) with its form.
func (s *Server) myDecisions(c echo.Context, v *views.MyFairPlayView, ds []db.FairDecision, viewer int64, appealURL string, appealID int64, f views.Form) {
	for _, d := range ds {
		dv := s.decisionView(c, d, viewer)
		dv.By = "" // the player reads the decision, not who took it
		dv.AppealURL = fmt.Sprintf(appealURL, d.ID)
		if d.ID == appealID {
			dv.Form = f
		}
		v.Decisions = append(v.Decisions, dv)
	}
}

// The owner of an account closed as a second account cannot log in; the
// log-in that the closing refuses, given the right password, opens this
// page instead for an hour: the decision, and its one appeal.
const (
	closedAccountKey = "closed_account"
	closedAccountAt  = "closed_account_at"
	closedAccountFor = time.Hour
)

// startClosedSession keeps, in a new session that is logged in to
// nothing, which closed account just gave its password.
func (s *Server) startClosedSession(c echo.Context, u db.User) error {
	return s.newSession(c, map[string]any{closedAccountKey: u.ID, closedAccountAt: s.clock.Now().Unix()}, nil)
}

// closedAccount is the closed account this browser gave the password of
// within the hour.
func (s *Server) closedAccount(c echo.Context) (db.User, []db.FairDecision, error) {
	again := apperr.E(apperr.NotFound, "There is no closed account to appeal for: log in again.")
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil {
		return db.User{}, nil, again
	}
	id, ok := sessionInt(sess.Values[closedAccountKey])
	at, ok2 := sessionInt(sess.Values[closedAccountAt])
	if !ok || !ok2 || s.clock.Now().Sub(time.Unix(at, 0)) > closedAccountFor {
		return db.User{}, nil, again
	}
	return s.fairplay.ClosedAccount(c.Request().Context(), id)
}

// sessionInt reads a number kept in a session: an int64 as it was set,
// or, loaded again from the session's JSON, a float64.
func sessionInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), x == float64(int64(x))
	}
	return 0, false
}

func (s *Server) closedAccountPage(c echo.Context) error {
	return s.renderClosedAccount(c, http.StatusOK, 0, views.Form{})
}

func (s *Server) renderClosedAccount(c echo.Context, status int, appealID int64, f views.Form) error {
	u, ds, err := s.closedAccount(c)
	if err != nil {
		return err
	}
	v := views.MyFairPlayView{Closed: true, Marked: u.MarkedAt != nil}
	s.myDecisions(c, &v, ds, u.ID, "/closed-account/%d/appeal", appealID, f)
	return render(c, status, views.MyFairPlayPage(s.page(c, tr(c, "Fair play")), v))
}

func (s *Server) closedAccountAppeal(c echo.Context) error {
	u, _, err := s.closedAccount(c)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such decision about you.")
	}
	text := c.FormValue("appeal")
	if err := s.fairplay.Appeal(c.Request().Context(), u, id, text); err != nil {
		if apperr.CodeOf(err) == apperr.Internal || apperr.CodeOf(err) == apperr.NotFound {
			return err
		}
		return s.renderClosedAccount(c, statusOf(apperr.CodeOf(err)), id, formOf(c, map[string]string{"appeal": text}, err))
	}
	s.setFlash(c, "ok", tr(c, "Your appeal is sent: another moderator reads it and answers here."))
	return redirect(c, "/closed-account")
}

func (s *Server) fairAppeal(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such decision about you.")
	}
	text := c.FormValue("appeal")
	if err := s.fairplay.Appeal(c.Request().Context(), *currentUser(c), id, text); err != nil {
		if apperr.CodeOf(err) == apperr.Internal || apperr.CodeOf(err) == apperr.NotFound {
			return err
		}
		return s.renderMyFairPlay(c, statusOf(apperr.CodeOf(err)), id, formOf(c, map[string]string{"appeal": text}, err))
	}
	s.setFlash(c, "ok", tr(c, "Your appeal is sent: another moderator reads it and answers here."))
	return redirect(c, "/my/fairplay")
}

func (s *Server) fairQueue(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	q, err := s.fairplay.Queue(ctx, *u)
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), s.userLocation(c)
	var v views.FairQueueView
	for _, cs := range q.Cases {
		row := views.FairCaseRow{ID: cs.ID, Account: cs.UserName, Source: cs.Source, Score: points(cs.Score), Reports: cs.Reports,
			Opened: i18n.Date(lang, cs.OpenedAt.In(loc))}
		if cs.PartnerName != nil {
			row.Partner = *cs.PartnerName
		}
		v.Cases = append(v.Cases, row)
	}
	for _, d := range q.Appeals {
		v.Appeals = append(v.Appeals, s.decisionView(c, d, u.ID))
	}
	return render(c, http.StatusOK, views.FairQueuePage(s.page(c, tr(c, "Fair-play cases")), v))
}

func (s *Server) fairCase(c echo.Context) error {
	return s.renderFairCase(c, http.StatusOK, views.Form{})
}

func (s *Server) renderFairCase(c echo.Context, status int, f views.Form) error {
	ctx, u := c.Request().Context(), currentUser(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such case.")
	}
	cv, err := s.fairplay.Case(ctx, *u, id)
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), s.userLocation(c)
	v := views.FairCaseView{ID: cv.Case.ID, Account: cv.Case.UserName, Source: cv.Case.Source, Score: points(cv.Case.Score),
		Open: cv.Case.Status == "open", Self: cv.Self, Form: f}
	if cv.Case.PartnerName != nil {
		v.Partner = *cv.Case.PartnerName
	}
	for _, a := range cv.Accounts {
		v.Accounts = append(v.Accounts, a.Username)
	}
	for _, r := range cv.Reports {
		row := views.CaseReportRow{Reporter: r.ReporterName, Reason: r.Reason, Note: r.Note, When: i18n.DateTime(lang, r.CreatedAt.In(loc))}
		if r.GameID != nil {
			row.GameID = *r.GameID
		}
		v.Reports = append(v.Reports, row)
	}
	for _, p := range cv.Pairs {
		sg := p.Signal
		e := views.PairEvidence{A: sg.NameA, B: sg.NameB, Games: sg.Games, Expected: points(sg.Expected), FromRest: points(sg.FromRest),
			BFromA: points(sg.BFromA), AFromB: points(sg.AFromB), FeedsAB: sg.FeedsAB, FeedsBA: sg.FeedsBA, JudgedA: sg.JudgedA, JudgedB: sg.JudgedB,
			Device: sg.Device, Network: sg.Network, Meet: points(p.Score.Meet), Flow: points(p.Score.Flow), Feed: points(p.Score.Feed),
			Links: points(p.Score.Links), Score: points(p.Score.Total),
			AWith: accuracyText(p.A.WithAcc, p.A.WithGames), AWithout: accuracyText(p.A.WithoutAcc, p.A.WithoutGames), AWithGames: p.A.WithGames, AWithoutGames: p.A.WithoutGames,
			BWith: accuracyText(p.B.WithAcc, p.B.WithGames), BWithout: accuracyText(p.B.WithoutAcc, p.B.WithoutGames), BWithGames: p.B.WithGames, BWithoutGames: p.B.WithoutGames}
		for _, g := range p.Games {
			e.Rows = append(e.Rows, views.PairGameRow{GameID: g.GameID, When: i18n.DateTime(lang, g.FinishedAt.In(loc)), Players: g.Players,
				PlaceA: g.PlaceA, PlaceB: g.PlaceB, FromRest: points(g.FromRest), BFromA: points(g.BFromA), AFromB: points(g.AFromB),
				FeedsAB: g.FeedsAB, FeedsBA: g.FeedsBA})
		}
		v.Pairs = append(v.Pairs, e)
	}
	for _, l := range cv.Linked {
		v.Linked = append(v.Linked, views.LinkedView{Of: cv.Case.UserName, Name: l.Username, Kind: l.Kind, Seen: i18n.DateTime(lang, l.LastSeen.In(loc))})
	}
	if cv.Case.PartnerName != nil {
		for _, l := range cv.PartnerLinked {
			if l.Username == cv.Case.UserName {
				continue // said already
			}
			v.Linked = append(v.Linked, views.LinkedView{Of: *cv.Case.PartnerName, Name: l.Username, Kind: l.Kind, Seen: i18n.DateTime(lang, l.LastSeen.In(loc))})
		}
	}
	for _, d := range cv.Decisions {
		v.Decisions = append(v.Decisions, s.decisionView(c, d, u.ID))
	}
	return render(c, status, views.FairCasePage(s.page(c, tr(c, "Case #{{.ID}}", "ID", v.ID)), v))
}

// accuracyText writes an accuracy (0 to 100) as a percentage to one
// decimal, "–" over no games.
func accuracyText(acc float64, games int) string {
	if games == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", acc)
}

func (s *Server) fairDecide(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such case.")
	}
	in := fairplay.DecideInput{Account: c.FormValue("account"), Action: c.FormValue("action"), Reason: c.FormValue("reason"), Close: c.FormValue("close") == "true"}
	if err := s.fairplay.Decide(c.Request().Context(), *currentUser(c), id, in); err != nil {
		code := apperr.CodeOf(err)
		if code == apperr.Internal || code == apperr.NotFound || code == apperr.Forbidden {
			return err
		}
		return s.renderFairCase(c, statusOf(code), formOf(c, map[string]string{"account": in.Account, "action": in.Action, "reason": in.Reason}, err))
	}
	s.setFlash(c, "ok", tr(c, "The decision is recorded and in the moderation log; the player reads it on their fair-play page."))
	return redirect(c, fmt.Sprintf("/admin/fairplay/cases/%d", id))
}

func (s *Server) fairRefund(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such case.")
	}
	game, err := strconv.ParseInt(strings.TrimSpace(c.FormValue("game")), 10, 64)
	if err != nil || game <= 0 {
		return s.renderFairCase(c, http.StatusUnprocessableEntity, views.Form{Error: tr(c, "Give the game's number.")})
	}
	if err := s.fairplay.RefundGame(c.Request().Context(), *currentUser(c), id, c.FormValue("account"), game, c.FormValue("reason")); err != nil {
		code := apperr.CodeOf(err)
		if code == apperr.Internal || code == apperr.NotFound || code == apperr.Forbidden {
			return err
		}
		return s.renderFairCase(c, statusOf(code), formOf(c, map[string]string{"account": c.FormValue("account"), "reason": c.FormValue("reason")}, err))
	}
	s.setFlash(c, "ok", tr(c, "The points of game #{{.ID}} are given back to the players who lost them.", "ID", game))
	return redirect(c, fmt.Sprintf("/admin/fairplay/cases/%d", id))
}

func (s *Server) fairUndo(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such decision.")
	}
	if err := s.fairplay.Undo(c.Request().Context(), *currentUser(c), id, c.FormValue("reason")); err != nil {
		return err
	}
	d, err := s.fairplay.DecisionCase(c.Request().Context(), id)
	if err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The decision is undone, and that is in the moderation log."))
	return redirect(c, fmt.Sprintf("/admin/fairplay/cases/%d", d))
}

func (s *Server) fairAnswer(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such decision.")
	}
	answer := c.FormValue("answer")
	if answer != "upheld" && answer != "overturned" {
		return apperr.E(apperr.Invalid, "Answer an appeal by upholding or overturning the decision.")
	}
	if err := s.fairplay.AnswerAppeal(c.Request().Context(), *currentUser(c), id, answer == "overturned", c.FormValue("note")); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The appeal is answered; the player reads your answer on their fair-play page."))
	return redirect(c, "/admin/fairplay#fair-appeals")
}

// apiReport files a report of a player.
func (s *Server) apiReport(c echo.Context) error {
	var in fairplay.ReportInput
	if err := decodeBody(c, &in, i18n.M(`The body is not a report: send {"player": "name", "reason": "feeding", "game_id": 12, "note": "…"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	id, err := s.fairplay.Report(c.Request().Context(), *apiUser(c), in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": id, "status": "waiting"})
}

// apiDecision is a decision about the caller as the API gives it.
type apiDecision struct {
	ID        int64      `json:"id"`
	Action    string     `json:"action"`
	Reason    string     `json:"reason"`
	DecidedAt time.Time  `json:"decided_at"`
	UndoneAt  *time.Time `json:"undone_at,omitempty"`
	Refunded  float64    `json:"refunded_to_others,omitempty"`
	Appealed  bool       `json:"appealed"`
	Answer    *string    `json:"answer,omitempty"`
}

// apiMyFairPlay is the caller's fair play: decisions about them, their
// reports and the points given back to them.
func (s *Server) apiMyFairPlay(c echo.Context) error {
	u := apiUser(c)
	m, err := s.fairplay.Mine(c.Request().Context(), *u)
	if err != nil {
		return err
	}
	type report struct {
		Player    string     `json:"player"`
		GameID    *int64     `json:"game_id,omitempty"`
		Reason    string     `json:"reason"`
		CreatedAt time.Time  `json:"created_at"`
		HandledAt *time.Time `json:"handled_at,omitempty"`
		Outcome   *string    `json:"outcome,omitempty"`
	}
	type refund struct {
		GameID    int64      `json:"game_id"`
		Points    float64    `json:"points"`
		CreatedAt time.Time  `json:"created_at"`
		UndoneAt  *time.Time `json:"undone_at,omitempty"`
	}
	out := struct {
		Marked    bool          `json:"marked"`
		Decisions []apiDecision `json:"decisions"`
		Reports   []report      `json:"reports"`
		Refunds   []refund      `json:"refunds"`
	}{Marked: u.MarkedAt != nil, Decisions: []apiDecision{}, Reports: []report{}, Refunds: []refund{}}
	for _, d := range m.Decisions {
		out.Decisions = append(out.Decisions, apiDecision{ID: d.ID, Action: d.Action, Reason: d.Reason, DecidedAt: d.DecidedAt.UTC(), UndoneAt: d.UndoneAt,
			Refunded: math.Round(d.Refunded*10) / 10, Appealed: d.AppealedAt != nil, Answer: d.Answer})
	}
	for _, r := range m.Reports {
		out.Reports = append(out.Reports, report{Player: r.TargetName, GameID: r.GameID, Reason: r.Reason, CreatedAt: r.CreatedAt.UTC(), HandledAt: r.HandledAt, Outcome: r.Outcome})
	}
	for _, r := range m.Refunds {
		out.Refunds = append(out.Refunds, refund{GameID: r.GameID, Points: math.Round(r.Points*10) / 10, CreatedAt: r.CreatedAt.UTC(), UndoneAt: r.UndoneAt})
	}
	return c.JSON(http.StatusOK, out)
}

// apiFairAppeal appeals a decision about the caller, once.
func (s *Server) apiFairAppeal(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "There is no such decision about you.")
	}
	var in struct {
		Appeal string `json:"appeal"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not an appeal: send {"appeal": "why the decision is wrong"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	if err := s.fairplay.Appeal(c.Request().Context(), *apiUser(c), id, in.Appeal); err != nil {
		return err
	}
	return s.apiMyFairPlay(c)
}
