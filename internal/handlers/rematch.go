package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"nothanks/internal/games"
	"nothanks/internal/rematch"
	"nothanks/internal/views"
)

func (s *Server) offerRematch(c echo.Context, userID, id int64) error {
	_, err := s.rematch.Offer(c.Request().Context(), userID, id)
	return err
}

func (s *Server) declineRematch(c echo.Context, userID, id int64) error {
	return s.rematch.Decline(c.Request().Context(), userID, id)
}

func (s *Server) startRematch(c echo.Context, userID, id int64) error {
	_, err := s.rematch.StartNow(c.Request().Context(), userID, id)
	return err
}

// fillRematch shows "Play again" on a finished table, as the viewer in
// seat (engine.Spectator: nobody who played) may use it.
func (s *Server) fillRematch(ctx context.Context, v *views.TableView, st *games.State, seat int) {
	r, err := s.rematch.StateOf(ctx, st)
	if err != nil {
		s.log.Warn("rematch of a game", "game", st.Game.ID, "err", err)
		return
	}
	var me *int64
	for _, sv := range st.Seats {
		if sv.Seat != nil && *sv.Seat == seat {
			me = sv.UserID
		}
	}
	rv := &views.RematchView{}
	switch {
	case r == nil:
		if me == nil {
			return
		}
		rv.CanOffer = true
	case r.NewGameID != 0:
		rv.NewGameURL = fmt.Sprintf("/games/%d", r.NewGameID)
	default:
		rv.Open, rv.Offerer, rv.Players = true, r.Offerer, r.Players
		all := true
		for _, a := range r.Answers {
			rv.Answers = append(rv.Answers, views.RematchAnswer{Name: a.Name, State: a.State})
			if me != nil && a.UserID == *me {
				rv.MyState = a.State
			}
			all = all && a.State == "accepted"
		}
		rv.CanStartNow = me != nil && *me == r.OfferedBy && !all && r.Players >= 3
	}
	v.Rematch = rv
}

// apiRematch answers a rematch action of the API with the offer as it
// stands: {"rematch": {...}} (docs/api.md).
func (s *Server) apiRematch(do func(ctx context.Context, userID, gameID int64) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := gameID(c)
		if err != nil {
			return err
		}
		u := apiUser(c)
		if do != nil {
			if err := do(c.Request().Context(), u.ID, id); err != nil {
				return err
			}
		}
		st, err := s.games.State(c.Request().Context(), id)
		if err != nil {
			return err
		}
		if !st.CanSee(&u.ID, "") {
			return games.ErrNoGame
		}
		r, err := s.rematch.StateOf(c.Request().Context(), st)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"game_id": id, "rematch": rematchJSON(r)})
	}
}

func rematchJSON(r *rematch.State) any {
	if r == nil {
		return nil
	}
	answers := make([]map[string]any, 0, len(r.Answers))
	for _, a := range r.Answers {
		answers = append(answers, map[string]any{"name": a.Name, "state": a.State})
	}
	out := map[string]any{"open": r.Open, "offered_by": r.Offerer, "answers": answers, "players": r.Players}
	if r.NewGameID != 0 {
		out["new_game_id"] = r.NewGameID
	}
	return out
}
