package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/lists"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

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
