package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"nothanks/internal/analysis"
	"nothanks/internal/engine"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// apiAnalysis serves a finished game's analysis (docs/analysis.md).
func (s *Server) apiAnalysis(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	viewer := viewerID(c)
	if u := apiUser(c); u != nil {
		viewer = &u.ID
	}
	res, err := s.reviews.Of(c.Request().Context(), viewer, id)
	if err != nil {
		return err
	}
	out := map[string]any{"game_id": id, "status": res.Status, "players": res.Names}
	if res.Report != nil {
		out["analysis"] = res.Report
		out["thresholds"] = map[string]float64{
			"inaccuracy": analysis.Inaccuracy, "mistake": analysis.Mistake, "blunder": analysis.Blunder,
			"zero_accuracy_loss": analysis.ZeroAccuracyLoss, "noise_se": analysis.NoiseSE,
		}
	}
	return c.JSON(http.StatusOK, out)
}

// deepAnalysis looks at one decision again with a longer search, from the
// replay, and shows the replay at that decision with the result.
func (s *Server) deepAnalysis(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	move, err := strconv.Atoi(c.Param("move"))
	if err != nil || move < 0 {
		return echo.NewHTTPError(http.StatusNotFound, "No such move.")
	}
	if _, err := s.reviews.Deep(c.Request().Context(), viewerID(c), id, move); err != nil {
		return err
	}
	return redirect(c, fmt.Sprintf("/games/%d/replay?step=%d", id, move+1))
}

// analysisView builds what the replay shows of a game's analysis at a step.
func (s *Server) analysisView(c echo.Context, gameID int64, step int) *views.AnalysisView {
	res, err := s.reviews.Of(c.Request().Context(), viewerID(c), gameID)
	if err != nil {
		s.log.Warn("analysis of a game", "game", gameID, "err", err)
		return nil
	}
	v := &views.AnalysisView{GameID: gameID, Status: res.Status}
	if res.Report == nil {
		return v
	}
	rep := res.Report
	names := localNames(c.Request().Context(), res.Names)
	name := func(seat int) string {
		if seat >= 0 && seat < len(names) {
			return names[seat]
		}
		return "?"
	}
	for _, p := range rep.Players {
		if p.Judged == 0 {
			continue
		}
		v.Players = append(v.Players, views.AccuracyRow{
			Name: name(p.Seat), Accuracy: fmt.Sprintf("%.1f", p.Accuracy), Judged: p.Judged,
			Inaccuracies: p.Inaccuracy, Mistakes: p.Mistakes, Blunders: p.Blunders,
		})
	}
	for _, d := range rep.Decisions {
		if d.Mark != "" {
			v.Moments = append(v.Moments, views.Moment{Step: d.Move + 1, Mark: d.Mark, Text: decisionText(c.Request().Context(), d, name(d.Seat))})
		}
		if d.Move == step-1 {
			dv := decisionView(c.Request().Context(), d, name(d.Seat))
			v.Current = &dv
			if deep, err := s.reviews.DeepOf(c.Request().Context(), gameID, d.Move); err == nil && deep != nil {
				dd := decisionView(c.Request().Context(), *deep, name(d.Seat))
				v.Deep = &dd
			}
		}
	}
	v.Chart = views.NewScoreChart(c.Request().Context(), rep.Curve, names)
	return v
}

// decisionText says a marked decision in a line.
func decisionText(ctx context.Context, d analysis.Decision, name string) string {
	return i18n.T(ctx, "{{.Name}} {{.Move}} — {{.Mark}} ({{.Loss}} of a win)", "Name", name, "Move", moveWords(ctx, d.Chosen, d.Card, d.Pot), "Mark", d.Mark, "Loss", pct(d.Loss))
}

// moveWords says a decision: "took 32 with no tokens", "said No thanks! to
// 18 (2 tokens on it)".
func moveWords(ctx context.Context, k engine.ActionKind, card, pot int) string {
	if k == engine.Pass {
		return i18n.T(ctx, "said No thanks! to {{.Card}} ({{.Tokens}} on it)", "Card", card, "Tokens", views.TokensOn(ctx, pot))
	}
	return i18n.T(ctx, "took {{.Card}} with {{.Tokens}}", "Card", card, "Tokens", views.TokensOn(ctx, pot))
}

// betterWords says which choice was better, by how much.
func betterWords(ctx context.Context, best engine.ActionKind, loss float64) string {
	if best == engine.Pass {
		return i18n.T(ctx, "No thanks! was better, by about {{.Loss}} of a win.", "Loss", pct(loss))
	}
	return i18n.T(ctx, "Taking was better, by about {{.Loss}} of a win.", "Loss", pct(loss))
}

func decisionView(ctx context.Context, d analysis.Decision, name string) views.DecisionView {
	v := views.DecisionView{
		Move: d.Move, Name: name, Chosen: moveWords(ctx, d.Chosen, d.Card, d.Pot), Mark: d.Mark,
		Card: d.Card, Pot: d.Pot, TakeWin: pct(d.Take.Win), PassWin: pct(d.Pass.Win),
		TakeSE: pct(d.Take.WinSE), PassSE: pct(d.Pass.WinSE), Loss: pct(d.Loss), Playouts: d.Playouts,
		Good: d.Loss == 0,
	}
	if d.Mark != "" {
		v.Better = betterWords(ctx, d.Best, d.Loss)
	}
	return v
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

// markLog puts the analysis's marks beside the decisions of the replay's
// move list: the round's decisions are the last of the step's.
func (s *Server) markLog(c echo.Context, r *views.ReplayView, events []engine.Event) {
	rep, err := s.reviews.ReportOf(c.Request().Context(), r.GameID)
	if err != nil || rep == nil {
		return
	}
	marks := map[int]string{}
	for _, d := range rep.Decisions {
		if d.Mark != "" {
			marks[d.Move] = d.Mark
		}
	}
	inRound := 0
	for _, e := range events {
		if _, ok := e.Action(); ok {
			inRound++
		}
	}
	base := r.Step - inRound // decisions of the game before this round's
	for i, l := range r.Table.Log {
		if l.Decision >= 0 {
			r.Table.Log[i].Mark = marks[base+l.Decision]
		}
	}
}
