package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"nothanks/internal/engine/bot"
	"nothanks/internal/games"
)

// playNow starts a live game against two bots at once: "Play a bot game
// now". A visitor gets a guest account for it (no address, no password),
// which they can register later and keep the game; a logged-in player just
// gets the game.
func (s *Server) playNow(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	if u == nil {
		g, err := s.accounts.PlayAsGuest(ctx)
		if err != nil {
			return err
		}
		if err := s.startSession(c, g); err != nil {
			return err
		}
		u = &g
	}
	in := games.DefaultCreateInput()
	in.Seats, in.Rounds = 3, 1
	id, err := s.games.Create(ctx, u.ID, in)
	if err != nil {
		return err
	}
	for range 2 {
		if err := s.games.AddBot(ctx, u.ID, id, string(bot.Heuristic)); err != nil {
			return err
		}
	}
	if u.Guest {
		s.setFlash(c, "info", tr(c, "You play as a guest against two Club bots: one round, a minute a decision. Register (free) to keep this game and play people."))
	}
	return redirect(c, fmt.Sprintf("/games/%d", id))
}

// membersOnly keeps guests to their bot games: tables with people, the
// ranked queue, creating games and the account settings need an account.
func (s *Server) membersOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u != nil && u.Guest {
			s.setFlash(c, "info", tr(c, "Guests play against bots. Register (free, your games stay yours) to play people, create tables and play ranked."))
			if c.Request().Header.Get("HX-Request") == "true" {
				c.Response().Header().Set("HX-Redirect", "/register")
				return c.NoContent(http.StatusForbidden)
			}
			return c.Redirect(http.StatusSeeOther, "/register")
		}
		return next(c)
	}
}
