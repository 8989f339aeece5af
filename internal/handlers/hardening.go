package handlers

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// AdmitWait is how long a request waits for a request slot before it is
// answered 503: long enough for a burst to drain, short enough that a
// client under sustained overload hears so at once.
const AdmitWait = 2 * time.Second

// RetryAfter is the Retry-After of an overload answer, in seconds.
const RetryAfter = "5"

// errBusy is the error of a request that found every request slot busy.
var errBusy = errors.New("handlers: every request slot is busy")

// readBody reads a request's body whole within BODY_TIMEOUT, through a read
// deadline on the connection, so that a client trickling a body is cut off
// with 408 rather than holding the server. The body is then served from
// memory (at most the body limit). The deadline is lifted once the body is
// in, so that it never cuts the handler or, on a kept-alive connection, a
// later event stream. Requests without a body, event streams among them,
// pass as they are.
func (s *Server) readBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 || isStream(c) {
			return next(c)
		}
		rc := http.NewResponseController(c.Response())
		// A writer without deadlines (a test recorder) reads as before.
		if err := rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)); err != nil {
			return next(c)
		}
		body, err := io.ReadAll(r.Body)
		_ = rc.SetReadDeadline(time.Time{})
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				c.Response().Header().Set(echo.HeaderConnection, "close")
				return echo.NewHTTPError(http.StatusRequestTimeout, "The request came in too slowly.")
			}
			var he *echo.HTTPError
			if errors.As(err, &he) {
				return err // the body limit's 413
			}
			return echo.NewHTTPError(http.StatusBadRequest, "The request could not be read.").SetInternal(err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		return next(c)
	}
}

// admit lets at most cap(s.slots) requests work at once, so that requests
// leave the background workers their share of the pool and a surge queues
// briefly, then hears 503 with Retry-After, instead of piling onto the
// pool until every request times out. Event streams hold a slot only while
// they load (they are mostly idle), and assets, the health check and
// /metrics need none.
func (s *Server) admit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.slots == nil || isStream(c) || noSlot(c.Request().URL.Path) {
			return next(c)
		}
		t := time.NewTimer(AdmitWait)
		select {
		case s.slots <- struct{}{}:
			t.Stop()
		case <-t.C:
			s.metrics.Shed()
			return errBusy
		case <-c.Request().Context().Done():
			t.Stop()
			return c.Request().Context().Err()
		}
		defer func() { <-s.slots }()
		return next(c)
	}
}

func noSlot(path string) bool {
	return strings.HasPrefix(path, "/static/") || path == "/favicon.ico" || path == "/healthz" || path == "/metrics"
}

// observe counts each answered request by its route pattern and status,
// and times moves. It sits outside the request
// logger, which has written any error page by the time it returns.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		stream := isStream(c) // counted open by the stream itself
		err := next(c)
		took := time.Since(start)
		method := c.Request().Method
		route := c.Path()
		if !s.routeSet[method+" "+route] {
			route = "unmatched"
		}
		status := c.Response().Status
		s.metrics.ObserveRequest(method, route, status, took, stream)
		if via := moveVia(method, route); via != "" {
			s.metrics.ObserveMove(via, took)
		}
		return err
	}
}

// moveVia names the way a move came in, or "" for a request that is not
// a move.
func moveVia(method, route string) string {
	if method != http.MethodPost {
		return ""
	}
	if route == "/m" {
		return "mail"
	}
	for _, suffix := range []string{"/take", "/pass", "/tiger"} {
		if strings.HasSuffix(route, suffix) {
			if strings.HasPrefix(route, "/api/") {
				return "api"
			}
			return "page"
		}
	}
	return ""
}
