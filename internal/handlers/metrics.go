package handlers

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/labstack/echo/v4"
)

// metricsPage serves the Prometheus metrics to a scraper that sends
// "Authorization: Bearer <METRICS_TOKEN>". Without a token configured
// there is nothing here.
func (s *Server) metricsPage(c echo.Context) error {
	if s.cfg.MetricsToken == "" || s.metrics == nil {
		return echo.ErrNotFound
	}
	if !s.metricsToken(c) {
		return c.String(http.StatusUnauthorized, "Send the metrics token as 'Authorization: Bearer <token>'.\n")
	}
	s.metrics.Handler().ServeHTTP(c.Response(), c.Request())
	return nil
}

// metricsToken checks the request's bearer token against METRICS_TOKEN.
func (s *Server) metricsToken(c echo.Context) bool {
	token, _ := bearerToken(c.Request())
	// Hashed first, so that the comparison takes the same time whatever
	// the length sent.
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.cfg.MetricsToken))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="metrics"`)
		return false
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return true
}

// pprofPage serves Go's profiles (net/http/pprof) to whoever holds the
// metrics token: /debug/pprof/profile?seconds=10 (CPU), /debug/pprof/allocs,
// /debug/pprof/heap, … (docs/operations.md, "Profiling"). Without a token
// configured there is nothing here.
func (s *Server) pprofPage(c echo.Context) error {
	if s.cfg.MetricsToken == "" {
		return echo.ErrNotFound
	}
	if !s.metricsToken(c) {
		return c.String(http.StatusUnauthorized, "Send the metrics token as 'Authorization: Bearer <token>'.\n")
	}
	switch name := c.Param("*"); name {
	case "", "/":
		pprof.Index(c.Response(), c.Request())
	case "profile":
		pprof.Profile(c.Response(), c.Request())
	case "trace":
		pprof.Trace(c.Response(), c.Request())
	case "symbol":
		pprof.Symbol(c.Response(), c.Request())
	case "cmdline":
		pprof.Cmdline(c.Response(), c.Request())
	default:
		pprof.Handler(name).ServeHTTP(c.Response(), c.Request())
	}
	return nil
}
