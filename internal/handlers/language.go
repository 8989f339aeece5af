package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/i18n"
)

// setLanguage is the footer's language switch: it keeps the choice in a
// cookie (visitors too) and, for a logged-in person, on the account, so
// that their mail follows it; then it goes back to the page it came from.
func (s *Server) setLanguage(c echo.Context) error {
	lang, ok := i18n.Parse(c.FormValue("lang"))
	if !ok {
		return apperr.E(apperr.Invalid, "Choose English, Spanish or Italian.")
	}
	if u := currentUser(c); u != nil {
		if err := s.accounts.SetLanguage(c.Request().Context(), u.ID, string(lang)); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{
		Name:     langCookie,
		Value:    string(lang),
		Path:     "/",
		Expires:  s.clock.Now().Add(365 * 24 * time.Hour),
		HttpOnly: true,
		Secure:   s.cfg.Secure(),
		SameSite: http.SameSiteLaxMode,
	})
	return redirect(c, localPath(c.FormValue("next")))
}
