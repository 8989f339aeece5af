package handlers

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/ranked"
	"nothanks/internal/rating"
	"nothanks/internal/views"
)

// ladderPool is the ladder a request asks for: ?pool=bots is the bot
// ladder (docs/bots.md), anything else the people's.
func ladderPool(c echo.Context) ranked.Pool {
	if c.QueryParam("pool") == string(ranked.Bots) {
		return ranked.Bots
	}
	return ranked.People
}

func (s *Server) ladder(c echo.Context) error {
	page, _ := strconv.Atoi(c.QueryParam("page"))
	pool := ladderPool(c)
	l, err := s.ranked.Ladder(c.Request().Context(), pool, page, currentUser(c))
	if err != nil {
		return err
	}
	me := viewerID(c)
	row := func(r db.LadderRow) views.LadderRow {
		return views.LadderRow{Rank: r.Rank, Name: r.Username, Rating: int(math.Round(r.Rating)), Games: r.Games, Wins: r.Wins, Me: me != nil && *me == r.UserID}
	}
	v := views.LadderView{Page: l.Page, Pages: l.Pages, MyRank: l.MyRank, MyPage: l.MyPage, LoggedIn: me != nil, Bots: pool == ranked.Bots}
	for _, r := range l.Rows {
		v.Rows = append(v.Rows, row(r))
	}
	for _, r := range l.Provisional {
		v.Provisional = append(v.Provisional, row(r))
	}
	return render(c, http.StatusOK, views.LadderPage(s.page(c, tr(c, "Ladder")), v))
}

func (s *Server) queueView(c echo.Context, in ranked.QueueInput, formErr error) (views.QueueView, error) {
	st, err := s.ranked.Status(c.Request().Context(), currentUser(c).ID, ranked.People)
	if err != nil {
		return views.QueueView{}, err
	}
	v := views.QueueView{Queued: st.Queued && st.GameID == 0, Pace: paceWord(c.Request().Context(), st.Pace), Gap: int(st.Gap), Waiting: st.Waiting, SizeChecked: map[int]bool{}, PaceValue: in.Pace}
	var sizes []string
	for _, n := range st.Sizes {
		sizes = append(sizes, strconv.Itoa(n))
	}
	v.Sizes = strings.Join(sizes, "/")
	v.Waited = i18n.Duration(i18n.From(c.Request().Context()), s.clock.Now().Sub(st.Since))
	for _, n := range in.Sizes {
		v.SizeChecked[n] = true
	}
	if len(in.Sizes) == 0 && formErr == nil {
		v.SizeChecked = map[int]bool{3: true, 4: true, 5: true}
	}
	v.Form = formOf(c, nil, formErr)
	if !v.Queued {
		v.Pause = s.pauseView(c)
	}
	return v, nil
}

func (s *Server) queuePage(c echo.Context) error {
	if done, err := s.sendMatched(c); done || err != nil {
		return err
	}
	v, err := s.queueView(c, ranked.QueueInput{}, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.QueuePage(s.page(c, tr(c, "Ranked play")), v))
}

// sendMatched takes a matched player to their new game.
func (s *Server) sendMatched(c echo.Context) (bool, error) {
	u := currentUser(c)
	st, err := s.ranked.Status(c.Request().Context(), u.ID, ranked.PoolOf(*u))
	if err != nil || st.GameID == 0 {
		return false, err
	}
	if err := s.ranked.Collect(c.Request().Context(), u.ID); err != nil {
		return true, err
	}
	return true, redirect(c, fmt.Sprintf("/games/%d", st.GameID))
}

func (s *Server) queueStatus(c echo.Context) error {
	if done, err := s.sendMatched(c); done || err != nil {
		return err
	}
	v, err := s.queueView(c, ranked.QueueInput{}, nil)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.QueueStatus(s.page(c, ""), v))
}

func (s *Server) joinQueue(c echo.Context) error {
	var in ranked.QueueInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	if err := s.ranked.Join(c.Request().Context(), currentUser(c).ID, ranked.People, in); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		v, verr := s.queueView(c, in, err)
		if verr != nil {
			return verr
		}
		return render(c, statusOf(apperr.CodeOf(err)), views.QueuePage(s.page(c, tr(c, "Ranked play")), v))
	}
	return redirect(c, "/ranked")
}

func (s *Server) leaveQueue(c echo.Context) error {
	if err := s.ranked.Leave(c.Request().Context(), currentUser(c).ID); err != nil {
		return err
	}
	s.setFlash(c, "info", tr(c, "You left the ranked queue."))
	return redirect(c, "/ranked")
}

func (s *Server) profile(c echo.Context) error {
	u, err := s.accounts.UserByName(c.Request().Context(), c.Param("name"))
	if err != nil {
		return err
	}
	p, err := s.ranked.Profile(c.Request().Context(), u)
	if err != nil {
		return err
	}
	v := views.ProfileView{
		Username: u.Username, Joined: i18n.Date(i18n.From(c.Request().Context()), u.CreatedAt), Rating: int(math.Round(p.Rating)),
		Rank: p.Rank, RankedGames: p.Games, RankedWins: p.Wins, Provisional: p.Games < rating.Provisional,
		Bot: u.Bot,
	}
	refunds, err := s.fairplay.Refunds(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	if len(p.History) > 0 {
		ratings := []float64{p.History[0].Before}
		var titles []string
		// A refund is a point of the history at its time; the changes
		// after it start from the rating with it.
		k := 0
		var live []db.Refund
		for _, r := range refunds {
			if r.UndoneAt == nil {
				live = append(live, r)
			}
		}
		for i, h := range p.History {
			shift := 0.0
			ratings = append(ratings, h.After)
			titles = append(titles, tr(c, "Game #{{.ID}}, {{.Place}} of {{.Players}}: {{.Before}} → {{.After}}", "ID", h.GameID, "Place", views.Ordinal(c.Request().Context(), h.Place), "Players", h.Players, "Before", fmt.Sprintf("%.0f", h.Before), "After", fmt.Sprintf("%.0f", h.After)))
			for ; k < len(live) && (i == len(p.History)-1 || live[k].CreatedAt.Before(p.History[i+1].CreatedAt)); k++ {
				shift += live[k].Points
				ratings = append(ratings, h.After+shift)
				titles = append(titles, tr(c, "Refund for game #{{.ID}}: +{{.Points}}", "ID", live[k].GameID, "Points", points(live[k].Points)))
			}
		}
		v.Chart = views.NewChart(c.Request().Context(), ratings, titles)
	}
	for _, g := range p.Recent {
		r := views.RecentGame{ID: g.GameID, URL: fmt.Sprintf("/games/%d", g.GameID), Seats: g.Seats, Ranked: g.Ranked}
		if g.FinishedAt != nil {
			r.Date = i18n.Date(i18n.From(c.Request().Context()), *g.FinishedAt)
		}
		if g.Place != nil {
			r.Place = *g.Place
		}
		if g.Total != nil {
			r.Total = *g.Total
		}
		if g.Before != nil && g.After != nil {
			r.Change = signed(*g.After - *g.Before)
		}
		v.Recent = append(v.Recent, r)
	}
	if s.puzzles != nil && !u.Guest {
		me := currentUser(c) != nil && currentUser(c).ID == u.ID
		if pv, err := s.solverView(c.Request().Context(), &u, me, s.userLocation(c)); err != nil {
			s.log.Warn("puzzle record", "user", u.ID, "err", err)
		} else if pv.Rating != "" || len(pv.History) > 0 {
			v.Puzzles = &pv
		}
	}
	if s.reviews != nil {
		if a, err := s.reviews.RecentAccuracy(c.Request().Context(), u.ID); err != nil {
			s.log.Warn("recent accuracy", "user", u.ID, "err", err)
		} else if a.Games > 0 && a.Accuracy != nil {
			v.Accuracy, v.AccuracyGames = fmt.Sprintf("%.1f", *a.Accuracy), a.Games
		}
	}
	for _, r := range p.BySize {
		v.BySize = append(v.BySize, views.SizeRow{Seats: r.Seats, Games: r.Games, Wins: r.Wins, Share: fmt.Sprintf("%.0f%%", 100*float64(r.Wins)/float64(max(r.Games, 1)))})
	}
	if s.tournaments != nil {
		ts, err := s.tournaments.PlayedBy(c.Request().Context(), u.ID)
		if err != nil {
			return err
		}
		for _, t := range ts {
			r := tournamentRow(c.Request().Context(), t.Tournament)
			switch {
			case t.Place != nil:
				r.Place = tr(c, "{{.Place}} of {{.Count}}", "Place", views.Ordinal(c.Request().Context(), *t.Place), "Count", t.Players)
			case t.Status == db.TournamentRunning:
				r.Place = tr(c, "playing now")
			}
			v.Tournaments = append(v.Tournaments, r)
		}
	}
	if fs := s.figures(c.Request().Context(), []int64{u.ID}); fs != nil {
		v.Reliability = relView(c.Request().Context(), fs[u.ID])
	}
	if me := currentUser(c); me != nil && me.ID == u.ID {
		v.Mine = true
	}
	if me := currentUser(c); me != nil && !me.Guest && me.ID != u.ID && !u.Guest {
		rel, err := s.people.Relation(c.Request().Context(), me.ID, u.ID)
		if err != nil {
			return err
		}
		v.Relation = &views.RelationView{Follows: rel.Follows, Blocks: rel.Blocks, BlockedBy: rel.BlockedBy}
		v.CanReport = !u.Bot
	}
	v.Marked = u.MarkedAt != nil
	lang := i18n.From(c.Request().Context())
	for _, r := range refunds {
		v.Refunds = append(v.Refunds, views.RefundView{GameID: r.GameID, Marked: r.MarkedName, Points: points(r.Points), When: i18n.Date(lang, r.CreatedAt), Undone: r.UndoneAt != nil})
	}
	return render(c, http.StatusOK, views.ProfilePage(s.page(c, u.Username), v))
}

func signed(d float64) string {
	n := int(math.Round(d))
	if n >= 0 {
		return fmt.Sprintf("+%d", n)
	}
	return fmt.Sprintf("−%d", -n)
}

// API: the queue and the ladder.

func (s *Server) apiQueueStatus(c echo.Context) error { return s.apiPoolStatus(c, ranked.People) }

// apiPoolStatus is the caller's place in the queue, with the players
// waiting in a pool.
func (s *Server) apiPoolStatus(c echo.Context, pool ranked.Pool) error {
	st, err := s.ranked.Status(c.Request().Context(), apiUser(c).ID, pool)
	if err != nil {
		return err
	}
	out := map[string]any{"queued": st.Queued && st.GameID == 0, "sizes": st.Sizes, "pace": st.Pace, "waiting": st.Waiting}
	if st.Queued {
		out["since"] = st.Since
		out["gap"] = math.Round(st.Gap)
	}
	if st.GameID != 0 {
		out["game_id"] = st.GameID
		out["game_url"] = fmt.Sprintf("%s/games/%d", s.cfg.BaseURL, st.GameID)
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) apiJoinQueue(c echo.Context) error { return s.apiJoinPool(c, ranked.People) }

// apiJoinPool puts the caller in a pool of the queue.
func (s *Server) apiJoinPool(c echo.Context, pool ranked.Pool) error {
	var in ranked.QueueInput
	if err := apiBind(c, &in, i18n.M("The body is not valid JSON: send {\"sizes\": [3, 4], \"pace\": \"live\"}.")); err != nil {
		return err
	}
	if err := s.ranked.Join(c.Request().Context(), apiUser(c).ID, pool, in); err != nil {
		return err
	}
	return s.apiPoolStatus(c, pool)
}

func (s *Server) apiLeaveQueue(c echo.Context) error {
	if err := s.ranked.Leave(c.Request().Context(), apiUser(c).ID); err != nil {
		return err
	}
	return s.apiQueueStatus(c)
}

func (s *Server) apiLadder(c echo.Context) error {
	page, _ := strconv.Atoi(c.QueryParam("page"))
	pool := ladderPool(c)
	// A program that misspells the pool hears so, rather than reading
	// the people's ladder as if it were what it asked for.
	if q := c.QueryParam("pool"); q != "" && q != string(pool) {
		return apperr.FieldErrors{"pool": i18n.M("The pool is people or bots.")}.Err()
	}
	l, err := s.ranked.Ladder(c.Request().Context(), pool, page, apiUser(c))
	if err != nil {
		return err
	}
	type row struct {
		Rank   int     `json:"rank,omitempty"`
		Name   string  `json:"name"`
		Rating float64 `json:"rating"`
		Games  int     `json:"ranked_games"`
		Wins   int     `json:"wins"`
		// BotAccount: a bot account's row (the bot ladder's every row).
		BotAccount bool `json:"bot_account"`
	}
	bots := pool == ranked.Bots
	rows, prov := []row{}, []row{}
	for _, r := range l.Rows {
		rows = append(rows, row{r.Rank, r.Username, math.Round(r.Rating*10) / 10, r.Games, r.Wins, bots})
	}
	for _, r := range l.Provisional {
		prov = append(prov, row{0, r.Username, math.Round(r.Rating*10) / 10, r.Games, r.Wins, bots})
	}
	return c.JSON(http.StatusOK, map[string]any{"pool": pool, "page": l.Page, "pages": l.Pages, "your_rank": l.MyRank, "ladder": rows, "provisional": prov})
}

// apiProfile is a player's public record, as the profile page shows it:
// their rating in their pool (people's or bots'), recent public games,
// record by table size and tournaments; and how the token's owner stands
// with them (following, blocking).
func (s *Server) apiProfile(c echo.Context) error {
	ctx := c.Request().Context()
	u, err := s.accounts.UserByName(ctx, c.Param("name"))
	if err != nil {
		return err
	}
	p, err := s.ranked.Profile(ctx, u)
	if err != nil {
		return err
	}
	type game struct {
		ID         int64   `json:"game_id"`
		Seats      int     `json:"seats"`
		Ranked     bool    `json:"ranked"`
		Place      *int    `json:"place,omitempty"`
		Score      *int    `json:"score,omitempty"`
		FinishedAt *string `json:"finished_at,omitempty"`
		Change     *int    `json:"rating_change,omitempty"`
	}
	type size struct {
		Seats int `json:"seats"`
		Games int `json:"games"`
		Wins  int `json:"wins"`
	}
	type event struct {
		ID     int64  `json:"tournament_id"`
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Status string `json:"status"`
		Place  *int   `json:"place,omitempty"`
	}
	pool := ranked.People
	if u.Bot {
		pool = ranked.Bots
	}
	out := map[string]any{
		"name": u.Username, "bot_account": u.Bot, "joined": apiTime(u.CreatedAt), "pool": pool,
		"rating": math.Round(p.Rating*10) / 10, "ranked_games": p.Games, "wins": p.Wins, "provisional": p.Games < rating.Provisional,
	}
	if p.Rank > 0 {
		out["rank"] = p.Rank
	}
	f, err := s.leavers.Figure(ctx, u.ID)
	if err != nil {
		return err
	}
	out["reliability"] = apiReliabilityOf(f)
	recent := []game{}
	for _, g := range p.Recent {
		r := game{ID: g.GameID, Seats: g.Seats, Ranked: g.Ranked, Place: g.Place, Score: g.Total}
		if g.FinishedAt != nil {
			t := apiTime(*g.FinishedAt)
			r.FinishedAt = &t
		}
		if g.Before != nil && g.After != nil {
			d := int(math.Round(*g.After - *g.Before))
			r.Change = &d
		}
		recent = append(recent, r)
	}
	out["recent_games"] = recent
	sizes := []size{}
	for _, r := range p.BySize {
		sizes = append(sizes, size{r.Seats, r.Games, r.Wins})
	}
	out["by_size"] = sizes
	events := []event{}
	if s.tournaments != nil {
		ts, err := s.tournaments.PlayedBy(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, t := range ts {
			events = append(events, event{t.ID, t.Name, t.Kind, t.Status, t.Place})
		}
	}
	out["tournaments"] = events
	if me := apiUser(c); me.ID != u.ID && !u.Guest {
		rel, err := s.people.Relation(ctx, me.ID, u.ID)
		if err != nil {
			return err
		}
		out["you_follow"], out["you_block"], out["blocks_you"] = rel.Follows, rel.Blocks, rel.BlockedBy
	}
	return c.JSON(http.StatusOK, out)
}
