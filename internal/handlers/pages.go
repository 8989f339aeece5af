package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/db"
	"nothanks/internal/views"
	"nothanks/static"
)

// home lists what a visitor may do next: games waiting for them, tables
// looking for players, games being played.
func (s *Server) home(c echo.Context) error {
	ctx := c.Request().Context()
	var v views.HomeView
	open, err := s.games.OpenGames(ctx)
	if err != nil {
		return err
	}
	live, err := s.games.LiveGames(ctx)
	if err != nil {
		return err
	}
	v.Open, v.Live = gameRows(ctx, first(open, 5), 0), gameRows(ctx, first(live, 5), 0)
	s.fillRowReliability(ctx, v.Open, first(open, 5))
	if u := currentUser(c); u != nil {
		v.Invitations = s.invitations(ctx, u.ID)
		mine, err := s.games.MyGames(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, r := range gameRows(ctx, mine, u.ID) {
			r.Players = others(r.Players, u.Username)
			switch {
			case r.MyTurn:
				v.Waiting = append(v.Waiting, r)
			case r.UnreadChat > 0 && r.Status != db.StatusFinished:
				// Finished games' new messages wait in My games.
				v.Chatting = append(v.Chatting, r)
			}
		}
	}
	v.Puzzle = s.homePuzzle(c)
	return render(c, http.StatusOK, views.HomePage(s.page(c, ""), v))
}

// others is a game's player names less the viewer's own ("against ...").
func others(names []string, me string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != me {
			out = append(out, n)
		}
	}
	return out
}

func first[T any](xs []T, n int) []T { return xs[:min(len(xs), n)] }

func (s *Server) rules(c echo.Context) error {
	return render(c, http.StatusOK, views.RulesPage(s.page(c, tr(c, "Rules"))))
}

// healthz answers 200 when the database answers within two seconds.
func (s *Server) healthz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		s.log.Warn("health check: database", "err", err)
		return c.String(http.StatusServiceUnavailable, "database unavailable\n")
	}
	return c.String(http.StatusOK, "ok\n")
}

// asset serves an embedded file by its content-hashed name, cacheable for a
// year since a changed file gets a new name.
func (s *Server) asset(c echo.Context) error {
	a, ok := static.ByHashedName(c.Param("name"))
	if !ok {
		return echo.ErrNotFound
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	return c.Blob(http.StatusOK, a.ContentType, a.Body)
}

func (s *Server) favicon(c echo.Context) error {
	return c.Redirect(http.StatusMovedPermanently, static.Path("favicon.svg"))
}
