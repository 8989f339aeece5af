package handlers

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
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
	token, _ := bearerToken(c.Request())
	// Hashed first, so that the comparison takes the same time whatever
	// the length sent.
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.cfg.MetricsToken))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="metrics"`)
		return c.String(http.StatusUnauthorized, "Send the metrics token as 'Authorization: Bearer <token>'.\n")
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	s.metrics.Handler().ServeHTTP(c.Response(), c.Request())
	return nil
}
