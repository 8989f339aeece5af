package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/apperr"
	"nothanks/internal/views"
)

// following shows whom the player follows and blocks.
func (s *Server) following(c echo.Context) error {
	return s.renderFollowing(c, http.StatusOK, "", nil)
}

func (s *Server) renderFollowing(c echo.Context, status int, name string, ferr error) error {
	ctx := c.Request().Context()
	me := currentUser(c)
	fs, err := s.people.Following(ctx, me.ID)
	if err != nil {
		return err
	}
	bs, err := s.people.Blocked(ctx, me.ID)
	if err != nil {
		return err
	}
	v := views.FollowingView{Name: name}
	if ferr != nil {
		v.Error = messageOf(ctx, ferr)
	}
	for _, f := range fs {
		v.Following = append(v.Following, views.FollowedView{Name: f.Username, Online: f.Online, Games: f.Games})
	}
	for _, b := range bs {
		v.Blocked = append(v.Blocked, b.Username)
	}
	return render(c, status, views.FollowingPage(s.page(c, tr(c, "Following")), v))
}

// followByName follows the player named in the page's form.
func (s *Server) followByName(c echo.Context) error {
	name := c.FormValue("name")
	u, err := s.people.Follow(c.Request().Context(), currentUser(c).ID, name)
	if err != nil {
		if code := apperr.CodeOf(err); code == apperr.Internal || code == "" {
			return err
		}
		return s.renderFollowing(c, statusOf(apperr.CodeOf(err)), name, err)
	}
	s.setFlash(c, "ok", tr(c, "You follow {{.Name}}.", "Name", u.Username))
	return redirect(c, "/following")
}

// relation follows, unfollows, blocks or unblocks the player of the path
// ("on" says which way), then goes back to their profile (or "next").
func (s *Server) relation(what string) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		me, name, on := currentUser(c).ID, c.Param("name"), c.FormValue("on") != "false"
		var msg string
		switch {
		case what == "follow" && on:
			msg = tr(c, "You follow {{.Name}}.", "Name", name)
		case what == "follow":
			msg = tr(c, "You no longer follow {{.Name}}.", "Name", name)
		case on:
			msg = tr(c, "You block {{.Name}}: they cannot invite you, chat where you play, or join your private tables.", "Name", name)
		default:
			msg = tr(c, "You no longer block {{.Name}}.", "Name", name)
		}
		if err := s.changeRelation(ctx, me, name, what, on); err != nil {
			if code := apperr.CodeOf(err); code == apperr.Internal || code == apperr.NotFound || code == "" {
				return err
			}
			s.setFlash(c, "error", messageOf(ctx, err))
		} else {
			s.setFlash(c, "ok", msg)
		}
		next := "/u/" + url.PathEscape(name)
		if c.FormValue("next") == "/following" {
			next = "/following"
		}
		return redirect(c, next)
	}
}

// exportData sends the player's own data as a JSON file.
func (s *Server) exportData(c echo.Context) error {
	x, err := s.privacy.Export(c.Request().Context(), *currentUser(c))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="no-thanks-data.json"`)
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSONPretty(http.StatusOK, x, "  ")
}

// apiExport is the same export through the API.
func (s *Server) apiExport(c echo.Context) error {
	x, err := s.privacy.Export(c.Request().Context(), *apiUser(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, x)
}

// deleteAccount deletes the account once its password is confirmed, then
// says goodbye on the home page.
func (s *Server) deleteAccount(c echo.Context) error {
	ctx := c.Request().Context()
	err := s.privacy.Delete(ctx, *currentUser(c), c.FormValue("password"))
	if errors.Is(err, accounts.ErrReauthExhausted) {
		return s.endSession(c, messageOf(ctx, err))
	}
	if err != nil {
		return s.settingsRefused(c, err, nil, func(v *views.SettingsView, f views.Form) { v.Delete = f })
	}
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil {
		return err
	}
	sess.ID = ""
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	sess.Values[flashKey] = "ok|" + tr(c, "Your account is deleted. Thank you for the games.")
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	c.Set(ctxUser, nil)
	return redirect(c, "/")
}

// apiPerson is a person in the API's lists.
type apiPerson struct {
	Username string  `json:"username"`
	Online   bool    `json:"online"`
	Games    []int64 `json:"games"`
}

// apiFollowing lists whom the caller follows and blocks.
func (s *Server) apiFollowing(c echo.Context) error {
	ctx, me := c.Request().Context(), apiUser(c).ID
	fs, err := s.people.Following(ctx, me)
	if err != nil {
		return err
	}
	bs, err := s.people.Blocked(ctx, me)
	if err != nil {
		return err
	}
	out := map[string]any{"following": []apiPerson{}, "blocked": []string{}}
	following := []apiPerson{}
	for _, f := range fs {
		games := []int64(f.Games)
		if games == nil {
			games = []int64{}
		}
		following = append(following, apiPerson{Username: f.Username, Online: f.Online, Games: games})
	}
	blocked := []string{}
	for _, b := range bs {
		blocked = append(blocked, b.Username)
	}
	out["following"], out["blocked"] = following, blocked
	return c.JSON(http.StatusOK, out)
}

// apiRelation follows, unfollows, blocks or unblocks the player of the
// path (PUT does, DELETE undoes), answering 204.
func (s *Server) apiRelation(what string, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.changeRelation(c.Request().Context(), apiUser(c).ID, c.Param("name"), what, on); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// changeRelation follows (what "follow") or blocks a player by name, or
// with on false undoes it.
func (s *Server) changeRelation(ctx context.Context, me int64, name, what string, on bool) error {
	do := s.people.Block
	switch {
	case what == "follow" && on:
		do = s.people.Follow
	case what == "follow":
		do = s.people.Unfollow
	case !on:
		do = s.people.Unblock
	}
	_, err := do(ctx, me, name)
	return err
}
