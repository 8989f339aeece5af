package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"nothanks/internal/apperr"
	"nothanks/internal/i18n"
	"nothanks/internal/session"
)

// Context keys.
const (
	ctxUser = "user"
	ctxCSRF = "csrf"
)

// csrf protects every state-changing request. Browsers are checked by
// Sec-Fetch-Site (same-origin passes, cross-site is refused); a client that
// sends no such header must echo the token from the _csrf cookie in the
// X-CSRF-Token header or the _csrf form field. The JSON API authenticates
// with a bearer token, which a browser never sends on its own, so it is
// exempt; so are the two mailed one-click links (unsubscribe, a move),
// which mail programs post from anywhere and whose signature is the check.
func (s *Server) csrf() echo.MiddlewareFunc {
	name := "_csrf"
	if s.cfg.Secure() {
		name = "__Host-csrf"
	}
	return middleware.CSRFWithConfig(middleware.CSRFConfig{
		Skipper: func(c echo.Context) bool {
			p := c.Request().URL.Path
			return strings.HasPrefix(p, "/api/") || p == "/unsubscribe" || p == "/m"
		},
		TokenLookup:    "header:" + echo.HeaderXCSRFToken + ",form:_csrf",
		ContextKey:     ctxCSRF,
		CookieName:     name,
		CookiePath:     "/",
		CookieMaxAge:   86400,
		CookieSecure:   s.cfg.Secure(),
		CookieHTTPOnly: true,
		CookieSameSite: http.SameSiteLaxMode,
		ErrorHandler: func(err error, c echo.Context) error {
			// The error page's own forms (log out, language) carry the
			// browser's token, so the next try works.
			if ck, cerr := c.Cookie(name); cerr == nil {
				c.Set(ctxCSRF, ck.Value)
			}
			return echo.NewHTTPError(http.StatusForbidden, "csrf: "+err.Error())
		},
	})
}

// loadUser puts the logged-in user, if any, in the context.
func (s *Server) loadUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if strings.HasPrefix(c.Request().URL.Path, "/static/") || strings.HasPrefix(c.Request().URL.Path, "/api/") {
			return next(c)
		}
		sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
		if err != nil {
			return err
		}
		if id, ok := sess.Values[session.UserKey].(int64); ok {
			u, err := s.accounts.User(c.Request().Context(), id)
			switch {
			case err == nil:
				c.Set(ctxUser, &u)
				if u.Lang != "" {
					c.SetRequest(c.Request().WithContext(i18n.With(c.Request().Context(), i18n.Or(u.Lang))))
				}
			case apperr.CodeOf(err) != apperr.NotFound:
				return err
			}
		}
		return next(c)
	}
}

// requireUser sends visitors to the log-in page, coming back afterwards.
func requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) != nil {
			return next(c)
		}
		if c.Request().Method != http.MethodGet && c.Request().Header.Get(HXRequest) != "true" {
			return apperr.E(apperr.Unauthorized, "Please log in first.")
		}
		back := c.Request().URL.RequestURI()
		if c.Request().Header.Get(HXRequest) == "true" {
			back = c.Request().Header.Get("HX-Current-URL")
			if u, err := url.Parse(back); err == nil {
				back = u.RequestURI()
			}
		}
		return redirect(c, "/login?next="+url.QueryEscape(localPath(back)))
	}
}

// langCookie keeps the language a visitor chose with the footer's switch.
const langCookie = "lang"

// language decides the language of the request and puts it in the request's
// context, where views, mails and messages find it: the switch's cookie,
// else Accept-Language, else English; loadUser puts the account's setting
// over them once it knows the user. The JSON API
// follows Accept-Language only (its error codes stay English identifiers).
func (s *Server) language(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		lang := i18n.FromAcceptLanguage(r.Header.Get("Accept-Language"))
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			if ck, err := r.Cookie(langCookie); err == nil {
				if l, ok := i18n.Parse(ck.Value); ok {
					lang = l
				}
			}
		}
		c.SetRequest(r.WithContext(i18n.With(r.Context(), lang)))
		c.Response().Header().Add("Vary", "Accept-Language, Cookie")
		return next(c)
	}
}
