package handlers

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
)

// codeUnavailable is the code of an overload answer (503 with Retry-After):
// the request was fine and may simply be sent again a little later. API
// clients rely on it as a stable identifier.
const codeUnavailable apperr.Code = "unavailable"

// msgUnavailable is what a user reads when the site is overloaded.
var msgUnavailable = i18n.M("The site is very busy just now. Please try again in a few seconds.")

// overloaded reports whether err means the server could not serve in time,
// not that the request or the code was wrong: every request slot busy, the
// request's deadline passed (most often waiting for a pool connection), or
// Postgres refusing or dropping connections.
func overloaded(err error) bool {
	return errors.Is(err, errBusy) || errors.Is(err, context.DeadlineExceeded) || db.Unavailable(err)
}

// statusOf maps an error's code to its HTTP status.
func statusOf(code apperr.Code) int {
	switch code {
	case apperr.Invalid:
		return http.StatusUnprocessableEntity
	case apperr.Unauthorized:
		return http.StatusUnauthorized
	case apperr.Forbidden:
		return http.StatusForbidden
	case apperr.NotFound:
		return http.StatusNotFound
	case apperr.Conflict:
		return http.StatusConflict
	case apperr.TooMany:
		return http.StatusTooManyRequests
	case apperr.Paused:
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

func codeOfStatus(status int) apperr.Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge, http.StatusMethodNotAllowed, http.StatusRequestTimeout:
		return apperr.Invalid
	case http.StatusUnauthorized:
		return apperr.Unauthorized
	case http.StatusForbidden:
		return apperr.Forbidden
	case http.StatusNotFound:
		return apperr.NotFound
	case http.StatusConflict:
		return apperr.Conflict
	case http.StatusTooManyRequests:
		return apperr.TooMany
	}
	return apperr.Internal
}

// problem turns any error into a status, a code and a message for the user.
// Only internal errors are logged.
func (s *Server) problem(c echo.Context, err error) (int, apperr.Code, string) {
	var he *echo.HTTPError
	switch {
	case overloaded(err):
		s.log.Warn("overloaded", "err", err, "path", c.Request().URL.Path)
		return http.StatusServiceUnavailable, codeUnavailable, tr(c, msgUnavailable)
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok && he.Code < 500 {
			msg = humanize(m)
		}
		// Echo's own texts, and ours given as HTTPErrors, are catalogue
		// messages.
		msg = i18n.Sprintf(c.Request().Context(), msg)
		if he.Code >= 500 {
			s.log.Error("http error", "err", err, "path", c.Request().URL.Path)
		}
		return he.Code, codeOfStatus(he.Code), msg
	}
	code := apperr.CodeOf(err)
	if code == apperr.Internal {
		s.log.Error("internal error", "err", err, "path", c.Request().URL.Path)
	}
	return statusOf(code), code, messageOf(c.Request().Context(), err)
}

// humanize gives echo's terse messages a sentence's shape.
func humanize(m string) string {
	switch {
	case strings.Contains(m, "csrf"), strings.Contains(m, "CSRF"):
		return i18n.M("This form expired or came from another site. Reload the page and try again.")
	case m == "Request Entity Too Large":
		return i18n.M("That was more than the server accepts at once.")
	case m == "Not Found":
		return i18n.M("There is nothing at this address.")
	case m == "Method Not Allowed":
		return i18n.M("That address does not take this kind of request.")
	case m == "Request Timeout":
		return i18n.M("The request came in too slowly.")
	}
	if m != "" {
		m = strings.ToUpper(m[:1]) + m[1:]
		if !strings.HasSuffix(m, ".") {
			m += "."
		}
	}
	return m
}

// handleError is Echo's error handler: JSON for the API, an error page (or
// fragment) for the rest.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	// Echo calls this after the middleware chain has returned, when the
	// request deadline's context is already cancelled; the error page still
	// needs the session and a render, so it gets a context without that
	// cancellation (but bounded on its own).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), 5*time.Second)
	defer cancel()
	c.SetRequest(c.Request().WithContext(ctx))
	if strings.HasPrefix(c.Request().URL.Path, "/api/") && errors.Is(err, echo.ErrNotFound) {
		// The API's group catches every path under it, so Echo answers a
		// known path asked with another method 404: say 405, and which
		// methods it takes.
		if allow := allowedMethods(c); len(allow) > 0 && !slices.Contains(allow, c.Request().Method) {
			c.Response().Header().Set(echo.HeaderAllow, strings.Join(allow, ", "))
			err = echo.ErrMethodNotAllowed
		}
	}
	status, code, msg := s.problem(c, err)
	page := s.page
	if code == codeUnavailable {
		c.Response().Header().Set(echo.HeaderRetryAfter, RetryAfter)
		// The page must not wait on the database that is short of
		// connections: no session, no user.
		page = plainPage
	}
	if wait := apperr.RetryAfterOf(err); wait > 0 && code == apperr.TooMany {
		c.Response().Header().Set(echo.HeaderRetryAfter, strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	}
	until := apperr.UntilOf(err)
	if !until.IsZero() {
		if wait := until.Sub(s.clock.Now()); wait > 0 {
			c.Response().Header().Set(echo.HeaderRetryAfter, strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		}
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		body := apiError{Error: apiErrorBody{Code: string(code), Message: msg, Fields: fieldsOf(c.Request().Context(), err)}}
		if !until.IsZero() {
			u := until.UTC()
			body.Error.Until = &u
		}
		if g := (withGame{}); errors.As(err, &g) {
			body.Game = g.game
		}
		_ = c.JSON(status, body)
		return
	}
	if isFragment(c) {
		// Show the message where htmx shows errors, keeping the page.
		c.Response().Header().Set(HXRetarget, "#flash-area")
		c.Response().Header().Set(HXReswap, "innerHTML")
		_ = render(c, status, views.FlashMessage(views.Flash{Kind: "error", Message: msg}))
		return
	}
	if rerr := render(c, status, views.ErrorPage(page(c, views.ErrorTitle(c.Request().Context(), status)), status, msg)); rerr != nil {
		s.log.Error("render error page", "err", rerr)
		_ = c.String(status, msg)
	}
}

// allowedMethods lists the methods the request's path is routed for (the
// catch-alls of a group, which answer 404, do not count).
func allowedMethods(c echo.Context) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := c.Echo().NewContext(c.Request(), nil)
		c.Echo().Router().Find(m, echo.GetPath(c.Request()), probe)
		if p := probe.Path(); p != "" && !strings.HasSuffix(p, "/*") && p != "/api/v1" {
			out = append(out, m)
		}
	}
	return out
}

// plainPage is the page frame without what comes from the database (the
// user, the flash).
func plainPage(c echo.Context, title string) views.Page {
	return views.Page{Title: title, CSRF: csrfToken(c), Path: c.Request().URL.Path}
}

type apiError struct {
	Error apiErrorBody `json:"error"`
	// Game: with a stale move's refusal, the game as it is now.
	Game *apiTable `json:"game,omitempty"`
}

type apiErrorBody struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
	// Until: with a "paused" refusal, when the pause ends.
	Until *time.Time `json:"until,omitempty"`
}

// formMessage is the message above a form: the error's own message unless
// the fields say it all.
func formMessage(ctx context.Context, err error) string {
	if err == nil {
		return ""
	}
	if len(apperr.FieldsOf(err)) > 0 {
		return i18n.T(ctx, "Please correct the marked fields.")
	}
	return messageOf(ctx, err)
}
