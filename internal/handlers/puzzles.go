package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/i18n"
	"nothanks/internal/puzzleplay"
	"nothanks/internal/puzzles"
	"nothanks/internal/views"
)

// seenCookie keeps the last puzzles a visitor was shown, so that the next
// is another (members' attempts are kept in the database).
const (
	seenCookie = "nt_puzzles_seen"
	seenKeep   = 30
)

// Provisional is the deviation above which a puzzle rating is shown as
// not yet settled.
const Provisional = 110

func puzzleID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, puzzleplay.ErrNoPuzzle
	}
	return id, nil
}

// themeLabel and themeExplain say a theme in the reader's language.
func themeLabel(ctx context.Context, t string) string {
	switch t {
	case puzzles.ThemeRun:
		return i18n.T(ctx, "Run")
	case puzzles.ThemeBridge:
		return i18n.T(ctx, "Bridge")
	case puzzles.ThemeMilk:
		return i18n.T(ctx, "Let it go round")
	case puzzles.ThemeBlock:
		return i18n.T(ctx, "Block a rival")
	case puzzles.ThemeRichPot:
		return i18n.T(ctx, "Rich pot")
	case puzzles.ThemeLastCards:
		return i18n.T(ctx, "Last cards")
	case puzzles.ThemeFewTokens:
		return i18n.T(ctx, "Few tokens")
	}
	return t
}

func themeExplain(ctx context.Context, t string) string {
	switch t {
	case puzzles.ThemeRun:
		return i18n.T(ctx, "The card is next to one of yours.")
	case puzzles.ThemeBridge:
		return i18n.T(ctx, "The card joins two of your runs.")
	case puzzles.ThemeMilk:
		return i18n.T(ctx, "The card fits your cards, and the best is to pass it round for more tokens.")
	case puzzles.ThemeBlock:
		return i18n.T(ctx, "The card fits another player's cards, and the best is to take it.")
	case puzzles.ThemeRichPot:
		return i18n.T(ctx, "Many tokens lie on the card.")
	case puzzles.ThemeLastCards:
		return i18n.T(ctx, "Three cards or fewer are left in the deck.")
	case puzzles.ThemeFewTokens:
		return i18n.T(ctx, "You hold two tokens or fewer.")
	}
	return ""
}

func themeLabels(ctx context.Context, ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = themeLabel(ctx, t)
	}
	return out
}

func ratingText(r float64) string { return fmt.Sprintf("%.0f", r) }

// solverView is a solver's record for the pages.
func (s *Server) solverView(ctx context.Context, u *db.User, history bool, loc *time.Location) (views.SolverView, error) {
	var v views.SolverView
	if u == nil || u.Guest {
		return v, nil
	}
	v.Member = true
	rec, err := s.puzzles.RecordOf(ctx, u.ID)
	if err != nil {
		return v, err
	}
	if r := rec.Rating; r != nil {
		v.Rating, v.Provisional = ratingText(r.R), r.RD > Provisional
		v.Attempts, v.Solved, v.Streak, v.BestStreak = r.Attempts, r.Solved, r.Streak, r.BestStreak
	}
	if history {
		v.History = attemptRows(ctx, rec.History, loc)
	}
	return v, nil
}

func attemptRows(ctx context.Context, as []db.PuzzleAttempt, loc *time.Location) []views.AttemptRow {
	lang := i18n.From(ctx)
	out := make([]views.AttemptRow, 0, len(as))
	for _, a := range as {
		row := views.AttemptRow{URL: fmt.Sprintf("/puzzles/%d", a.PuzzleID), When: i18n.DateTime(lang, a.CreatedAt.In(loc)),
			Themes: strings.Join(themeLabels(ctx, a.Themes), ", "), Solved: a.Status == "solved", Open: a.Status == "open"}
		switch a.Status {
		case "solved":
			row.Status = i18n.T(ctx, "Puzzle #{{.ID}}: solved", "ID", a.PuzzleID)
		case "failed":
			row.Status = i18n.T(ctx, "Puzzle #{{.ID}}: failed", "ID", a.PuzzleID)
		default:
			row.Status = i18n.T(ctx, "Puzzle #{{.ID}}: not finished", "ID", a.PuzzleID)
		}
		if a.RatingBefore != nil && a.RatingAfter != nil {
			row.Change = ratingDelta(*a.RatingAfter - *a.RatingBefore)
		}
		out = append(out, row)
	}
	return out
}

// puzzlesPage is the puzzles' start: rating and streak, the puzzle of the
// day, the themes.
func (s *Server) puzzlesPage(c echo.Context) error {
	ctx := c.Request().Context()
	ts, total, err := s.puzzles.Themes(ctx)
	if err != nil {
		return err
	}
	v := views.PuzzlesView{Total: total}
	for _, t := range ts {
		v.Themes = append(v.Themes, views.ThemeRow{Theme: t.Theme, Label: themeLabel(ctx, t.Theme), Explain: themeExplain(ctx, t.Theme),
			URL: "/puzzles/next?theme=" + url.QueryEscape(t.Theme), Count: t.Count})
	}
	if total > 0 {
		v.DailyURL = "/puzzles/daily"
	}
	if v.Solver, err = s.solverView(ctx, currentUser(c), true, s.userLocation(c)); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.PuzzlesPage(s.page(c, tr(c, "Puzzles")), v))
}

// seen reads a visitor's recent puzzles from their cookie.
func seen(c echo.Context) []int64 {
	ck, err := c.Cookie(seenCookie)
	if err != nil {
		return nil
	}
	var out []int64
	for _, f := range strings.Split(ck.Value, ".") {
		if id, err := strconv.ParseInt(f, 10, 64); err == nil && id > 0 && len(out) < seenKeep {
			out = append(out, id)
		}
	}
	return out
}

// markSeen adds a puzzle to a visitor's recent ones.
func markSeen(c echo.Context, id int64) {
	ids := append([]int64{id}, seen(c)...)
	var parts []string
	for i, x := range ids {
		if i == seenKeep {
			break
		}
		if i > 0 && x == id {
			continue
		}
		parts = append(parts, strconv.FormatInt(x, 10))
	}
	c.SetCookie(&http.Cookie{Name: seenCookie, Value: strings.Join(parts, "."), Path: "/puzzles", MaxAge: 30 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
}

// nextPuzzle finds a puzzle near the solver's level (of the theme asked)
// and goes to it.
func (s *Server) nextPuzzle(c echo.Context) error {
	theme := c.QueryParam("theme")
	u := currentUser(c)
	var skip []int64
	if u == nil || u.Guest {
		skip = seen(c)
	}
	sh, err := s.puzzles.Next(c.Request().Context(), u, theme, skip)
	if err != nil {
		return err
	}
	to := fmt.Sprintf("/puzzles/%d", sh.ID)
	if theme != "" {
		to += "?theme=" + url.QueryEscape(theme)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// dailyPuzzle shows the puzzle of the day.
func (s *Server) dailyPuzzle(c echo.Context) error {
	u := currentUser(c)
	sh, err := s.puzzles.Daily(c.Request().Context(), u)
	if err != nil {
		return err
	}
	if u == nil || u.Guest {
		markSeen(c, sh.ID)
	}
	v, err := s.puzzleView(c, sh, false, "")
	if err != nil {
		return err
	}
	v.Daily = true
	return render(c, http.StatusOK, views.PuzzlePage(s.page(c, tr(c, "The puzzle of the day")), v))
}

// showPuzzle is a puzzle where the solver is in it.
func (s *Server) showPuzzle(c echo.Context) error {
	id, err := puzzleID(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	step := 0
	if q := c.QueryParam("step"); q != "" && (u == nil || u.Guest) {
		if n, err := strconv.Atoi(q); err == nil {
			step = n - 1
		}
	}
	sh, err := s.puzzles.Show(c.Request().Context(), u, id, step)
	if err != nil {
		return err
	}
	if u == nil || u.Guest {
		markSeen(c, id)
	}
	v, err := s.puzzleView(c, sh, false, c.QueryParam("theme"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.PuzzlePage(s.page(c, tr(c, "Puzzle #{{.ID}}", "ID", id)), v))
}

// answerPuzzle takes the solver's choice: the next step, or the outcome.
func (s *Server) answerPuzzle(c echo.Context) error {
	id, err := puzzleID(c)
	if err != nil {
		return err
	}
	step, err := strconv.Atoi(c.FormValue("step"))
	if err != nil {
		return apperr.E(apperr.Invalid, "Say which step of the puzzle you answer.")
	}
	u := currentUser(c)
	a, err := s.puzzles.Answer(c.Request().Context(), u, id, step-1, engine.ActionKind(c.FormValue("choice")))
	if err != nil {
		return err
	}
	theme := c.FormValue("theme")
	var v views.PuzzleView
	if a.Next != nil {
		if v, err = s.puzzleView(c, *a.Next, true, theme); err != nil {
			return err
		}
	} else {
		sh, err := s.puzzles.Show(c.Request().Context(), u, id, step-1)
		if err != nil {
			return err
		}
		sh.Over = a.Over
		if v, err = s.puzzleView(c, sh, false, theme); err != nil {
			return err
		}
	}
	if c.Request().Header.Get(HXRequest) == "true" {
		return render(c, http.StatusOK, views.PuzzleBoard(v))
	}
	return render(c, http.StatusOK, views.PuzzlePage(s.page(c, tr(c, "Puzzle #{{.ID}}", "ID", id)), v))
}

// puzzleView is a puzzle's step for the page: the deciding seat's view,
// its seats named by their place at the table (the game is not named
// until the attempt is over).
func (s *Server) puzzleView(c echo.Context, sh puzzleplay.Shown, right bool, theme string) (views.PuzzleView, error) {
	ctx := c.Request().Context()
	pv := sh.View
	v := views.PuzzleView{ID: sh.ID, Step: sh.Step + 1, Steps: sh.Steps, Themes: themeLabels(ctx, sh.Themes), Theme: theme,
		Round: pv.Round, Rounds: pv.Options.Rounds, ActiveCard: pv.ActiveCard, Pot: pv.Pot, DeckLeft: pv.DeckLeft,
		Right: right, AnswerURL: fmt.Sprintf("/puzzles/%d/answer", sh.ID), NextURL: "/puzzles/next"}
	if theme != "" {
		v.NextURL += "?theme=" + url.QueryEscape(theme)
	}
	names := seatNames(ctx, pv)
	for i, sv := range pv.Seats {
		seat := views.SeatView{Seat: i, Name: i18n.T(ctx, "Player {{.N}}", "N", i+1), Me: i == pv.Viewer, Turn: i == pv.Turn, Runs: sv.Runs, CardPoints: sv.CardPoints,
			Tokens: "?", Score: "?", Total: pv.Totals[i], TigerHeld: sv.TigerHeld, TigerPlayed: sv.TigerPlayed, RunsText: runsText(ctx, sv.Runs)}
		if sv.Tokens != nil {
			seat.Tokens, seat.Score = fmt.Sprint(*sv.Tokens), fmt.Sprint(sv.CardPoints-*sv.Tokens)
			if i == pv.Viewer {
				v.MyTokens = *sv.Tokens
			}
		}
		v.Seats = append(v.Seats, seat)
	}
	for _, k := range pv.Legal {
		if k == engine.Pass {
			v.CanPass = true
		}
	}
	if !v.CanPass {
		v.PassBlocked = i18n.T(ctx, "You have no tokens left, so you must take the card.")
	}
	v.Log, _ = logLines(ctx, pv.Events, names, BoardLogLines)
	for _, e := range sh.Replies {
		if t := eventText(ctx, e, names); t != "" {
			v.Replies = append(v.Replies, t)
		}
	}
	var err error
	if v.Solver, err = s.solverView(ctx, currentUser(c), false, s.userLocation(c)); err != nil {
		return v, err
	}
	if o := sh.Over; o != nil {
		v.Outcome = outcomeView(ctx, *o, names)
	}
	return v, nil
}

// seatNames names a puzzle's seats by their place at the table ("player
// 2"), the deciding seat's with "(you)": the players' names would tell the
// game before the attempt is over.
func seatNames(ctx context.Context, pv engine.View) []string {
	names := make([]string, len(pv.Seats))
	for i := range pv.Seats {
		if i == pv.Viewer {
			names[i] = i18n.T(ctx, "Player {{.N}} (you)", "N", i+1)
		} else {
			names[i] = i18n.T(ctx, "Player {{.N}}", "N", i+1)
		}
	}
	return names
}

func choiceWords(ctx context.Context, k engine.ActionKind) string {
	if k == engine.Take {
		return i18n.T(ctx, "Take")
	}
	return i18n.T(ctx, "No thanks!")
}

func outcomeView(ctx context.Context, o puzzleplay.Outcome, names []string) *views.PuzzleOutcome {
	out := &views.PuzzleOutcome{Solved: o.Solved, GameURL: fmt.Sprintf("/games/%d/replay", o.GameID), Rated: o.Rated,
		PuzzleRating: ratingText(o.PuzzleRating), Attempts: o.PuzzleAttempt, SolvedBy: o.PuzzleSolved}
	if o.Rated {
		out.Before, out.After, out.Change = ratingText(o.SolverBefore), ratingText(o.SolverAfter), ratingDelta(o.SolverAfter-o.SolverBefore)
	}
	pct := func(w float64) string { return fmt.Sprintf("%.0f %%", 100*w) }
	for i, st := range o.Line {
		sv := views.PuzzleStepView{N: i + 1, Card: st.Card, Pot: st.Pot, Tokens: st.Tokens, Best: choiceWords(ctx, st.Best), Played: choiceWords(ctx, st.Played),
			TakeCP: fmt.Sprintf("%.1f", st.Take.CardPoints), PassCP: fmt.Sprintf("%.1f", st.Pass.CardPoints),
			TakeScore: fmt.Sprintf("%.1f", st.Take.Score), PassScore: fmt.Sprintf("%.1f", st.Pass.Score),
			TakeWin: pct(st.Take.Win), PassWin: pct(st.Pass.Win), BestIsTake: st.Best == engine.Take}
		for _, e := range st.Replies {
			if t := eventText(ctx, e, names); t != "" {
				sv.Replies = append(sv.Replies, t)
			}
		}
		out.Steps = append(out.Steps, sv)
	}
	return out
}

// The puzzles through the API (docs/api.md). A puzzle's view is the
// deciding seat's engine.View: its own tokens, the others' hidden where
// the game hid them, never the deck; the game it came from only in the
// outcome.

type apiPuzzle struct {
	ID      int64          `json:"id"`
	Step    int            `json:"step"`
	Steps   int            `json:"steps"`
	Themes  []string       `json:"themes"`
	Rated   bool           `json:"rated"`
	Rating  *apiSolver     `json:"rating"`
	View    engine.View    `json:"view"`
	Replies []engine.Event `json:"replies"`
	Outcome *apiOutcome    `json:"outcome"`
}

type apiSolver struct {
	Rating      float64 `json:"rating"`
	RD          float64 `json:"rd"`
	Volatility  float64 `json:"volatility"`
	Provisional bool    `json:"provisional"`
	Attempts    int     `json:"attempts"`
	Solved      int     `json:"solved"`
	Streak      int     `json:"streak"`
	BestStreak  int     `json:"best_streak"`
}

type apiOutcome struct {
	Solved       bool           `json:"solved"`
	GameID       int64          `json:"game_id"`
	GameURL      string         `json:"game_url"`
	Line         []puzzles.Step `json:"line"`
	Rated        bool           `json:"rated"`
	RatingBefore *float64       `json:"rating_before"`
	RatingAfter  *float64       `json:"rating_after"`
	PuzzleRating float64        `json:"puzzle_rating"`
	PuzzleTried  int            `json:"puzzle_attempts"`
	PuzzleSolved int            `json:"puzzle_solved"`
}

func solverJSON(r *db.SolverRating) *apiSolver {
	if r == nil {
		return nil
	}
	return &apiSolver{Rating: r.R, RD: r.RD, Volatility: r.Sigma, Provisional: r.RD > Provisional, Attempts: r.Attempts, Solved: r.Solved,
		Streak: r.Streak, BestStreak: r.BestStreak}
}

func puzzleJSON(sh puzzleplay.Shown) apiPuzzle {
	out := apiPuzzle{ID: sh.ID, Step: sh.Step + 1, Steps: sh.Steps, Themes: sh.Themes, Rated: sh.Rated, Rating: solverJSON(sh.Rating),
		View: sh.View, Replies: sh.Replies}
	if out.Themes == nil {
		out.Themes = []string{}
	}
	if out.Replies == nil {
		out.Replies = []engine.Event{}
	}
	if o := sh.Over; o != nil {
		out.Outcome = outcomeJSON(*o)
	}
	return out
}

func outcomeJSON(o puzzleplay.Outcome) *apiOutcome {
	out := &apiOutcome{Solved: o.Solved, GameID: o.GameID, GameURL: fmt.Sprintf("/games/%d", o.GameID), Line: o.Line, Rated: o.Rated,
		PuzzleRating: o.PuzzleRating, PuzzleTried: o.PuzzleAttempt, PuzzleSolved: o.PuzzleSolved}
	if o.Rated {
		b, a := o.SolverBefore, o.SolverAfter
		out.RatingBefore, out.RatingAfter = &b, &a
	}
	return out
}

// apiPuzzles is the themes with their counts.
func (s *Server) apiPuzzles(c echo.Context) error {
	ts, total, err := s.puzzles.Themes(c.Request().Context())
	if err != nil {
		return err
	}
	type theme struct {
		Theme string `json:"theme"`
		Count int    `json:"count"`
	}
	out := struct {
		Total  int     `json:"total"`
		Themes []theme `json:"themes"`
	}{Total: total, Themes: []theme{}}
	for _, t := range ts {
		out.Themes = append(out.Themes, theme{t.Theme, t.Count})
	}
	return c.JSON(http.StatusOK, out)
}

// apiNextPuzzle is a puzzle near the caller's level, of ?theme= if given.
func (s *Server) apiNextPuzzle(c echo.Context) error {
	sh, err := s.puzzles.Next(c.Request().Context(), apiUser(c), c.QueryParam("theme"), nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, puzzleJSON(sh))
}

// apiDailyPuzzle is the puzzle of the day.
func (s *Server) apiDailyPuzzle(c echo.Context) error {
	sh, err := s.puzzles.Daily(c.Request().Context(), apiUser(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, puzzleJSON(sh))
}

// apiPuzzle is a puzzle where the caller is in it.
func (s *Server) apiPuzzle(c echo.Context) error {
	id, err := puzzleID(c)
	if err != nil {
		return err
	}
	sh, err := s.puzzles.Show(c.Request().Context(), apiUser(c), id, 0)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, puzzleJSON(sh))
}

// apiAnswerPuzzle takes {"step": 1, "choice": "take"}.
func (s *Server) apiAnswerPuzzle(c echo.Context) error {
	id, err := puzzleID(c)
	if err != nil {
		return err
	}
	var in struct {
		Step   int               `json:"step"`
		Choice engine.ActionKind `json:"choice"`
	}
	if err := decodeBody(c, &in, i18n.M(`The body is not an answer: send {"step": 1, "choice": "take"} or "pass".`), bodyRules{required: true}); err != nil {
		return err
	}
	a, err := s.puzzles.Answer(c.Request().Context(), apiUser(c), id, in.Step-1, in.Choice)
	if err != nil {
		return err
	}
	out := struct {
		Right   bool        `json:"right"`
		Next    *apiPuzzle  `json:"next"`
		Outcome *apiOutcome `json:"outcome"`
	}{Right: a.Right}
	if a.Next != nil {
		n := puzzleJSON(*a.Next)
		out.Next = &n
	}
	if a.Over != nil {
		out.Outcome = outcomeJSON(*a.Over)
	}
	return c.JSON(http.StatusOK, out)
}

// apiMyPuzzles is the caller's puzzle rating, streak and latest attempts.
func (s *Server) apiMyPuzzles(c echo.Context) error {
	u := apiUser(c)
	rec, err := s.puzzles.RecordOf(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	type attempt struct {
		PuzzleID     int64      `json:"puzzle_id"`
		Status       string     `json:"status"`
		Themes       []string   `json:"themes"`
		RatingBefore *float64   `json:"rating_before"`
		RatingAfter  *float64   `json:"rating_after"`
		Started      time.Time  `json:"started"`
		Finished     *time.Time `json:"finished"`
	}
	out := struct {
		Rating   *apiSolver `json:"rating"`
		Attempts []attempt  `json:"attempts"`
	}{Rating: solverJSON(rec.Rating), Attempts: []attempt{}}
	for _, a := range rec.History {
		t := []string(a.Themes)
		if t == nil {
			t = []string{}
		}
		out.Attempts = append(out.Attempts, attempt{a.PuzzleID, a.Status, t, a.RatingBefore, a.RatingAfter, a.CreatedAt.UTC(), a.FinishedAt})
	}
	return c.JSON(http.StatusOK, out)
}

// homePuzzle is the puzzle of the day for the start page: nil before there
// is one, or when it cannot be read (the page goes on without it).
func (s *Server) homePuzzle(c echo.Context) *views.HomePuzzle {
	if s.puzzles == nil {
		return nil
	}
	sh, err := s.puzzles.Daily(c.Request().Context(), currentUser(c))
	if err != nil {
		if apperr.CodeOf(err) != apperr.NotFound {
			s.log.Warn("the puzzle of the day", "err", err)
		}
		return nil
	}
	v := sh.View
	hp := &views.HomePuzzle{URL: "/puzzles/daily", Card: v.ActiveCard, Pot: v.Pot, DeckLeft: v.DeckLeft}
	if v.Viewer >= 0 && v.Viewer < len(v.Seats) && v.Seats[v.Viewer].Tokens != nil {
		hp.Tokens = *v.Seats[v.Viewer].Tokens
	}
	if sh.Over != nil {
		hp.Solved, hp.Failed = sh.Over.Solved, !sh.Over.Solved
	}
	return hp
}
