package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/invites"
	"nothanks/internal/views"
)

func (s *Server) inviteByName(c echo.Context, userID, id int64) error {
	return s.invites.Invite(c.Request().Context(), userID, id, c.FormValue("username"))
}

// inviteSuggestions answers the invite field's first focus with the names
// of the people the viewer played with lately.
func (s *Server) inviteSuggestions(c echo.Context) error {
	names, err := s.invites.Suggestions(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.InviteSuggestions(names))
}

func inviteID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.E(apperr.NotFound, "There is no such invitation.")
	}
	return id, nil
}

func (s *Server) acceptInvite(c echo.Context) error {
	id, err := inviteID(c)
	if err != nil {
		return err
	}
	game, err := s.invites.Accept(c.Request().Context(), currentUser(c).ID, id)
	if err != nil {
		return err
	}
	return redirect(c, fmt.Sprintf("/games/%d", game))
}

func (s *Server) declineInvite(c echo.Context) error {
	id, err := inviteID(c)
	if err != nil {
		return err
	}
	if err := s.invites.Decline(c.Request().Context(), currentUser(c).ID, id); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The invitation is declined."))
	return redirect(c, "/")
}

// invitations lists the invitations waiting for a player, for the start
// page.
func (s *Server) invitations(ctx context.Context, userID int64) []views.Invitation {
	invs, err := s.invites.Pending(ctx, userID)
	if err != nil {
		s.log.Warn("invitations", "user", userID, "err", err)
		return nil
	}
	out := make([]views.Invitation, len(invs))
	for i, inv := range invs {
		out[i] = invitationView(ctx, inv)
	}
	return out
}

func invitationView(ctx context.Context, inv db.Invite) views.Invitation {
	return views.Invitation{ID: inv.ID, GameID: inv.GameID, From: inv.FromName, Pace: paceWord(ctx, inv.Pace), Taken: inv.Taken, Seats: inv.Seats, URL: inv.TablePath()}
}

// invitationTo is the viewer's invitation to a game, if one waits for
// their answer.
func (s *Server) invitationTo(ctx context.Context, userID, gameID int64) *views.Invitation {
	invs, err := s.invites.Pending(ctx, userID)
	if err != nil {
		s.log.Warn("invitations", "user", userID, "err", err)
		return nil
	}
	for _, inv := range invs {
		if inv.GameID == gameID {
			v := invitationView(ctx, inv)
			return &v
		}
	}
	return nil
}

// paceWord names a pace in a word.
func paceWord(ctx context.Context, p string) string {
	if p == "correspondence" {
		return i18n.T(ctx, "correspondence")
	}
	return i18n.T(ctx, "live")
}

// The states of an invitation or a rematch answer, which the views
// translate.
var _ = []string{i18n.M("waiting"), i18n.M("accepted"), i18n.M("declined"), i18n.M("expired"), i18n.M("cancelled")}

// fillInvited shows a lobby's invitations by name.
func (s *Server) fillInvited(ctx context.Context, l *views.LobbyView, gameID int64, now time.Time) {
	invs, err := s.invites.Of(ctx, gameID)
	if err != nil {
		s.log.Warn("invitations of a game", "game", gameID, "err", err)
		return
	}
	for _, inv := range invs {
		l.Invited = append(l.Invited, views.RematchAnswer{Name: inv.ToName, State: invites.State(inv, now)})
	}
}

// API: invitations.

func (s *Server) apiInvite(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	var body struct {
		Username string `json:"username"`
	}
	if err := apiBind(c, &body, i18n.M("The body is not valid JSON.")); err != nil {
		return err
	}
	if err := s.invites.Invite(c.Request().Context(), apiUser(c).ID, id, body.Username); err != nil {
		return withField(c, err, "username", nil)
	}
	return s.apiShow(c, id, http.StatusOK)
}

func (s *Server) apiInvitations(c echo.Context) error {
	invs, err := s.invites.Pending(c.Request().Context(), apiUser(c).ID)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(invs))
	for i, inv := range invs {
		out[i] = inviteJSON(inv)
	}
	return c.JSON(http.StatusOK, map[string]any{"invitations": out})
}

// apiTableInvites lists whom a table invited, for its players.
func (s *Server) apiTableInvites(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	invs, err := s.invites.ForPlayer(c.Request().Context(), apiUser(c).ID, id)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	out := make([]map[string]any, len(invs))
	for i, inv := range invs {
		out[i] = map[string]any{"username": inv.ToName, "from": inv.FromName, "state": invites.State(inv, now), "expires_at": inv.ExpiresAt}
	}
	return c.JSON(http.StatusOK, map[string]any{"invitations": out})
}

func inviteJSON(inv db.Invite) map[string]any {
	return map[string]any{"id": inv.ID, "game_id": inv.GameID, "from": inv.FromName, "pace": inv.Pace,
		"seats": inv.Seats, "taken": inv.Taken, "expires_at": inv.ExpiresAt, "from_bot_account": inv.FromBot}
}

func (s *Server) apiAcceptInvite(c echo.Context) error {
	id, err := inviteID(c)
	if err != nil {
		return err
	}
	game, err := s.invites.Accept(c.Request().Context(), apiUser(c).ID, id)
	if err != nil {
		return err
	}
	return s.apiShow(c, game, http.StatusOK)
}

func (s *Server) apiDeclineInvite(c echo.Context) error {
	id, err := inviteID(c)
	if err != nil {
		return err
	}
	if err := s.invites.Decline(c.Request().Context(), apiUser(c).ID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
