package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// settingsRefused answers a settings form the service refused: the
// settings page again, with the form (set by set) showing its values and
// what was wrong, and the status of the error; an internal error goes on
// to the error page.
func (s *Server) settingsRefused(c echo.Context, err error, values map[string]string, set func(*views.SettingsView, views.Form)) error {
	if apperr.CodeOf(err) == apperr.Internal {
		return err
	}
	v, verr := s.settingsView(c)
	if verr != nil {
		return verr
	}
	set(&v, formOf(c, values, err))
	return s.settingsWithTokens(c, statusOf(apperr.CodeOf(err)), v)
}

// settingsWithTokens renders the settings page with the API tokens section.
func (s *Server) settingsWithTokens(c echo.Context, status int, v views.SettingsView) error {
	tokens, err := s.accounts.APITokens(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	for _, t := range tokens {
		lang := i18n.From(c.Request().Context())
		tv := views.APITokenView{ID: t.ID, Name: t.Name, Created: i18n.Date(lang, t.CreatedAt), LastUsed: tr(c, "never")}
		if t.LastUsedAt != nil {
			tv.LastUsed = i18n.DateTime(lang, t.LastUsedAt.UTC())
		}
		v.Tokens = append(v.Tokens, tv)
	}
	return render(c, status, views.SettingsPage(s.page(c, tr(c, "Settings")), v))
}

func (s *Server) createToken(c echo.Context) error {
	v, err := s.settingsView(c)
	if err != nil {
		return err
	}
	name := c.FormValue("name")
	token, err := s.accounts.CreateAPIToken(c.Request().Context(), currentUser(c).ID, name)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		v.TokenForm = formOf(c, map[string]string{"name": name}, err)
		return s.settingsWithTokens(c, statusOf(apperr.CodeOf(err)), v)
	}
	v.NewToken = token
	return s.settingsWithTokens(c, http.StatusOK, v)
}

func (s *Server) revokeToken(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "No such token.")
	}
	if err := s.accounts.RevokeAPIToken(c.Request().Context(), currentUser(c).ID, id); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The token is revoked; programs using it can no longer act for you."))
	return redirect(c, "/settings")
}
