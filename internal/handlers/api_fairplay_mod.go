package handlers

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/fairplay"
	"nothanks/internal/i18n"
)

// The moderators' fair-play endpoints: the same queue, evidence and
// decisions as /admin/fairplay, through fairplay.Service, which refuses a
// member (403), a moderator acting on a case about themselves and the
// moderator who decided judging its appeal.

// apiFreshUser reads the caller's account again, not trusting the token
// cache's copy (up to accounts.TokenCacheFor old): moderator rights given
// or taken, and a mark, count at the next request.
func (s *Server) apiFreshUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, err := s.accounts.User(c.Request().Context(), apiUser(c).ID)
		if apperr.CodeOf(err) == apperr.NotFound {
			return accounts.ErrUnknownToken
		}
		if err != nil {
			return err
		}
		c.Set(ctxAPIUser, &u)
		return next(c)
	}
}

type apiCaseRow struct {
	ID       int64     `json:"id"`
	Account  string    `json:"account"`
	Partner  *string   `json:"partner,omitempty"`
	Source   string    `json:"source"`
	Score    float64   `json:"score"`
	Reports  int       `json:"reports"`
	Status   string    `json:"status"`
	OpenedAt time.Time `json:"opened_at"`
}

func caseRow(c db.FairCase) apiCaseRow {
	return apiCaseRow{ID: c.ID, Account: c.UserName, Partner: c.PartnerName, Source: c.Source, Score: round2(c.Score), Reports: c.Reports,
		Status: c.Status, OpenedAt: c.OpenedAt.UTC()}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// apiModDecision is a decision as moderators read it.
type apiModDecision struct {
	ID         int64      `json:"id"`
	CaseID     int64      `json:"case_id"`
	Account    string     `json:"account"`
	Action     string     `json:"action"`
	Reason     string     `json:"reason"`
	DecidedBy  *string    `json:"decided_by,omitempty"`
	DecidedAt  time.Time  `json:"decided_at"`
	UndoneAt   *time.Time `json:"undone_at,omitempty"`
	UndoReason *string    `json:"undo_reason,omitempty"`
	Appeal     *string    `json:"appeal,omitempty"`
	AppealedAt *time.Time `json:"appealed_at,omitempty"`
	Answer     *string    `json:"answer,omitempty"`
	AnswerNote *string    `json:"answer_note,omitempty"`
	Refunded   float64    `json:"refunded_to_others"`
}

func modDecision(d db.FairDecision) apiModDecision {
	return apiModDecision{ID: d.ID, CaseID: d.CaseID, Account: d.UserName, Action: d.Action, Reason: d.Reason, DecidedBy: d.DecidedName,
		DecidedAt: d.DecidedAt.UTC(), UndoneAt: utcPtr(d.UndoneAt), UndoReason: d.UndoReason, Appeal: d.Appeal, AppealedAt: utcPtr(d.AppealedAt),
		Answer: d.Answer, AnswerNote: d.AnswerNote, Refunded: math.Round(d.Refunded*10) / 10}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// apiFairQueue is the open cases, strongest first, and the appeals
// waiting for an answer.
func (s *Server) apiFairQueue(c echo.Context) error {
	q, err := s.fairplay.Queue(c.Request().Context(), *apiUser(c))
	if err != nil {
		return err
	}
	out := struct {
		Cases   []apiCaseRow     `json:"cases"`
		Appeals []apiModDecision `json:"appeals"`
	}{Cases: []apiCaseRow{}, Appeals: []apiModDecision{}}
	for _, cs := range q.Cases {
		out.Cases = append(out.Cases, caseRow(cs))
	}
	for _, d := range q.Appeals {
		out.Appeals = append(out.Appeals, modDecision(d))
	}
	return c.JSON(http.StatusOK, out)
}

func caseParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.E(apperr.NotFound, "There is no such case.")
	}
	return id, nil
}

func decisionParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.E(apperr.NotFound, "There is no such decision.")
	}
	return id, nil
}

// apiFairCase is a case with its evidence, as the case page shows it.
func (s *Server) apiFairCase(c echo.Context) error {
	id, err := caseParam(c)
	if err != nil {
		return err
	}
	return s.apiShowCase(c, id, http.StatusOK)
}

func (s *Server) apiShowCase(c echo.Context, id int64, status int) error {
	cv, err := s.fairplay.Case(c.Request().Context(), *apiUser(c), id)
	if err != nil {
		return err
	}
	type report struct {
		Reporter  string    `json:"reporter"`
		Reason    string    `json:"reason"`
		Note      string    `json:"note,omitempty"`
		GameID    *int64    `json:"game_id,omitempty"`
		CreatedAt time.Time `json:"created_at"`
	}
	type game struct {
		GameID      int64     `json:"game_id"`
		FinishedAt  time.Time `json:"finished_at"`
		Players     int       `json:"players"`
		PlaceA      int       `json:"place_a"`
		PlaceB      int       `json:"place_b"`
		FromRest    float64   `json:"from_rest"`
		BFromA      float64   `json:"b_from_a"`
		AFromB      float64   `json:"a_from_b"`
		FeedsAB     int       `json:"feeds_ab"`
		FeedsBA     int       `json:"feeds_ba"`
		ReplayURL   string    `json:"replay_url"`
		AnalysisURL string    `json:"analysis_url"`
	}
	type score struct {
		Meet  float64 `json:"meet"`
		Flow  float64 `json:"flow"`
		Feed  float64 `json:"feed"`
		Links float64 `json:"links"`
		Total float64 `json:"total"`
	}
	type play struct {
		With         *float64 `json:"with,omitempty"`
		WithGames    int      `json:"with_games"`
		Without      *float64 `json:"without,omitempty"`
		WithoutGames int      `json:"without_games"`
	}
	playOf := func(p db.PlayWith) play {
		x := play{WithGames: p.WithGames, WithoutGames: p.WithoutGames}
		if p.WithGames > 0 {
			v := math.Round(p.WithAcc*10) / 10
			x.With = &v
		}
		if p.WithoutGames > 0 {
			v := math.Round(p.WithoutAcc*10) / 10
			x.Without = &v
		}
		return x
	}
	type pair struct {
		A        string  `json:"a"`
		B        string  `json:"b"`
		Games    int     `json:"games"`
		Expected float64 `json:"expected_meetings"`
		FromRest float64 `json:"from_rest"`
		BFromA   float64 `json:"b_from_a"`
		AFromB   float64 `json:"a_from_b"`
		FeedsAB  int     `json:"feeds_ab"`
		FeedsBA  int     `json:"feeds_ba"`
		JudgedA  int     `json:"judged_a"`
		JudgedB  int     `json:"judged_b"`
		Device   bool    `json:"device"`
		Network  bool    `json:"network"`
		Score    score   `json:"score"`
		List     []game  `json:"games_together"`
		// AccuracyA and AccuracyB: each one's accuracy in analysed rated
		// games with the other and without.
		AccuracyA play `json:"accuracy_a"`
		AccuracyB play `json:"accuracy_b"`
	}
	type linked struct {
		Of       string    `json:"of"`
		Account  string    `json:"account"`
		Kind     string    `json:"kind"`
		LastSeen time.Time `json:"last_seen"`
	}
	out := struct {
		apiCaseRow
		ClosedAt  *time.Time       `json:"closed_at,omitempty"`
		Self      bool             `json:"about_you"`
		Accounts  []string         `json:"accounts"`
		Reports   []report         `json:"reports"`
		Pairs     []pair           `json:"pairs"`
		Linked    []linked         `json:"linked"`
		Decisions []apiModDecision `json:"decisions"`
	}{apiCaseRow: caseRow(cv.Case), ClosedAt: utcPtr(cv.Case.ClosedAt), Self: cv.Self, Accounts: []string{}, Reports: []report{},
		Pairs: []pair{}, Linked: []linked{}, Decisions: []apiModDecision{}}
	for _, a := range cv.Accounts {
		out.Accounts = append(out.Accounts, a.Username)
	}
	for _, r := range cv.Reports {
		out.Reports = append(out.Reports, report{Reporter: r.ReporterName, Reason: r.Reason, Note: r.Note, GameID: r.GameID, CreatedAt: r.CreatedAt.UTC()})
	}
	for _, p := range cv.Pairs {
		sg := p.Signal
		x := pair{A: sg.NameA, B: sg.NameB, Games: sg.Games, Expected: round2(sg.Expected), FromRest: round2(sg.FromRest), BFromA: round2(sg.BFromA),
			AFromB: round2(sg.AFromB), FeedsAB: sg.FeedsAB, FeedsBA: sg.FeedsBA, JudgedA: sg.JudgedA, JudgedB: sg.JudgedB, Device: sg.Device, Network: sg.Network,
			Score: score{Meet: round2(p.Score.Meet), Flow: round2(p.Score.Flow), Feed: round2(p.Score.Feed), Links: round2(p.Score.Links), Total: round2(p.Score.Total)},
			List:  []game{}, AccuracyA: playOf(p.A), AccuracyB: playOf(p.B)}
		for _, g := range p.Games {
			x.List = append(x.List, game{GameID: g.GameID, FinishedAt: g.FinishedAt.UTC(), Players: g.Players, PlaceA: g.PlaceA, PlaceB: g.PlaceB,
				FromRest: round2(g.FromRest), BFromA: round2(g.BFromA), AFromB: round2(g.AFromB), FeedsAB: g.FeedsAB, FeedsBA: g.FeedsBA,
				ReplayURL: fmt.Sprintf("/games/%d/replay", g.GameID), AnalysisURL: fmt.Sprintf("/games/%d/analysis", g.GameID)})
		}
		out.Pairs = append(out.Pairs, x)
	}
	for _, l := range cv.Linked {
		out.Linked = append(out.Linked, linked{Of: cv.Case.UserName, Account: l.Username, Kind: l.Kind, LastSeen: l.LastSeen.UTC()})
	}
	if cv.Case.PartnerName != nil {
		for _, l := range cv.PartnerLinked {
			if l.Username != cv.Case.UserName {
				out.Linked = append(out.Linked, linked{Of: *cv.Case.PartnerName, Account: l.Username, Kind: l.Kind, LastSeen: l.LastSeen.UTC()})
			}
		}
	}
	for _, d := range cv.Decisions {
		out.Decisions = append(out.Decisions, modDecision(d))
	}
	return c.JSON(status, out)
}

// apiFairDecide records a decision on a case.
func (s *Server) apiFairDecide(c echo.Context) error {
	id, err := caseParam(c)
	if err != nil {
		return err
	}
	var in struct {
		Account string `json:"account"`
		Action  string `json:"action"`
		Reason  string `json:"reason"`
		Close   bool   `json:"close"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not a decision: send {"account": "name", "action": "dismiss|warn|mark|close", "reason": "…", "close": true}.`), bodyRules{required: true}); err != nil {
		return err
	}
	if err := s.fairplay.Decide(c.Request().Context(), *apiUser(c), id, fairplay.DecideInput{Account: in.Account, Action: in.Action, Reason: in.Reason, Close: in.Close}); err != nil {
		return err
	}
	return s.apiShowCase(c, id, http.StatusCreated)
}

// apiFairRefund gives back one game's points that others lost to an
// account of the case.
func (s *Server) apiFairRefund(c echo.Context) error {
	id, err := caseParam(c)
	if err != nil {
		return err
	}
	var in struct {
		Account string `json:"account"`
		GameID  int64  `json:"game_id"`
		Reason  string `json:"reason"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not a refund: send {"account": "name", "game_id": 12, "reason": "…"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	if in.GameID <= 0 {
		return apperr.FieldErrors{"game_id": "Give the game's number."}.Err()
	}
	if err := s.fairplay.RefundGame(c.Request().Context(), *apiUser(c), id, in.Account, in.GameID, in.Reason); err != nil {
		return err
	}
	return s.apiShowCase(c, id, http.StatusCreated)
}

// apiFairUndo undoes a decision, with why.
func (s *Server) apiFairUndo(c echo.Context) error {
	id, err := decisionParam(c)
	if err != nil {
		return err
	}
	var in struct {
		Reason string `json:"reason"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not an undoing: send {"reason": "why the decision is undone"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := s.fairplay.Undo(ctx, *apiUser(c), id, in.Reason); err != nil {
		return err
	}
	caseID, err := s.fairplay.DecisionCase(ctx, id)
	if err != nil {
		return err
	}
	return s.apiShowCase(c, caseID, http.StatusOK)
}

// apiFairAnswer answers an appeal: upheld or overturned (undone).
func (s *Server) apiFairAnswer(c echo.Context) error {
	id, err := decisionParam(c)
	if err != nil {
		return err
	}
	var in struct {
		Answer string `json:"answer"`
		Note   string `json:"note"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not an answer: send {"answer": "upheld|overturned", "note": "…"}.`), bodyRules{required: true}); err != nil {
		return err
	}
	if in.Answer != "upheld" && in.Answer != "overturned" {
		return apperr.FieldErrors{"answer": "Answer an appeal by upholding or overturning the decision."}.Err()
	}
	ctx := c.Request().Context()
	if err := s.fairplay.AnswerAppeal(ctx, *apiUser(c), id, in.Answer == "overturned", in.Note); err != nil {
		return err
	}
	caseID, err := s.fairplay.DecisionCase(ctx, id)
	if err != nil {
		return err
	}
	return s.apiShowCase(c, caseID, http.StatusOK)
}
