package handlers

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// htmx request and response headers.
const (
	HXRequest  = "HX-Request"
	HXBoosted  = "HX-Boosted"
	HXRedirect = "HX-Redirect"
	HXRetarget = "HX-Retarget"
	HXReswap   = "HX-Reswap"
)

// isFragment reports whether the request wants a fragment rather than a
// whole page: an htmx request that is not a boosted navigation.
func isFragment(c echo.Context) bool {
	h := c.Request().Header
	return h.Get(HXRequest) == "true" && h.Get(HXBoosted) != "true"
}

// render writes a component with a status. It renders into a buffer first so
// that a failure mid-way becomes an error page, not half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(views.WithCSRF(c.Request().Context(), csrfToken(c)), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// redirect sends the browser to path: HX-Redirect for htmx requests (a 3xx
// would be followed inside the fragment swap), 303 otherwise.
func redirect(c echo.Context, path string) error {
	if c.Request().Header.Get(HXRequest) == "true" {
		c.Response().Header().Set(HXRedirect, path)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, path)
}

// currentUser is the logged-in user, or nil.
func currentUser(c echo.Context) *db.User {
	u, _ := c.Get(ctxUser).(*db.User)
	return u
}

func csrfToken(c echo.Context) string {
	t, _ := c.Get(ctxCSRF).(string)
	return t
}

// page builds the common page model, taking the flash message out of the
// session.
func (s *Server) page(c echo.Context, title string) views.Page {
	p := views.Page{Title: title, CSRF: csrfToken(c), Path: c.Request().URL.Path, Here: c.Request().URL.RequestURI()}
	if u := currentUser(c); u != nil {
		p.User = &views.NavUser{Name: u.Username, TurnSound: u.TurnSound, Guest: u.Guest, Admin: u.Admin}
		w, err := s.games.Waiting(c.Request().Context(), u.ID)
		if err != nil {
			s.log.Warn("count games waiting", "err", err)
		}
		p.User.MyTurn, p.User.Invites = w.Turns, w.Invites
	}
	p.Flash = s.popFlash(c)
	return p
}

const flashKey = "flash"

// setFlash keeps a message for the next page the user sees.
func (s *Server) setFlash(c echo.Context, kind, msg string) {
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil {
		s.log.Warn("flash: session", "err", err)
		return
	}
	sess.Values[flashKey] = kind + "|" + msg
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		s.log.Warn("flash: save", "err", err)
	}
}

func (s *Server) popFlash(c echo.Context) *views.Flash {
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil || sess.IsNew {
		return nil
	}
	raw, ok := sess.Values[flashKey].(string)
	if !ok {
		return nil
	}
	delete(sess.Values, flashKey)
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		s.log.Warn("flash: save", "err", err)
	}
	kind, msg, _ := strings.Cut(raw, "|")
	return &views.Flash{Kind: kind, Message: msg}
}

// localPath returns next when it is a path on this site, else "/"; it keeps
// a log-in's "next" from sending the user to another site.
func localPath(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}

// formOf keeps submitted values (never passwords) and the error's fields to
// show a form again.
func formOf(c echo.Context, values map[string]string, err error) views.Form {
	return views.Form{Values: values, Errors: fieldsOf(c.Request().Context(), err), Error: formMessage(c.Request().Context(), err)}
}

// tr translates a message into the request's language.
func tr(c echo.Context, id string, kv ...any) string {
	return i18n.T(c.Request().Context(), id, kv...)
}

// trn translates a message with plural forms into the request's language.
func trn(c echo.Context, one, other string, n int, kv ...any) string {
	return i18n.N(c.Request().Context(), one, other, n, kv...)
}

// messageOf is err's message for the user, in the request's language.
func messageOf(ctx context.Context, err error) string {
	return apperr.MessageIn(err, translator(ctx))
}

// fieldsOf is err's field errors, in the request's language.
func fieldsOf(ctx context.Context, err error) map[string]string {
	return apperr.FieldsIn(err, translator(ctx))
}

func translator(ctx context.Context) apperr.Translator {
	return func(format string, args ...any) string { return i18n.Sprintf(ctx, format, args...) }
}
