package handlers

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestAdmitShedsWhenEverySlotIsBusy(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler), slots: make(chan struct{}, 1)}
	e := echo.New()
	e.HTTPErrorHandler = s.handleError
	ok := func(c echo.Context) error { return c.String(http.StatusOK, "ok") }
	e.GET("/api/v1/me", ok, s.admit)
	e.GET("/games/:id/events", ok, s.admit)
	e.GET("/static/:name", ok, s.admit)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	s.slots <- struct{}{} // a request at work
	t.Run("ErrBusy", func(t *testing.T) {
		rec := get("/api/v1/me")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != RetryAfter || !strings.Contains(rec.Body.String(), `"code":"unavailable"`) {
			t.Errorf("with every slot busy: %d, Retry-After %q, %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	})
	t.Run("StreamsAndAssetsNeedNoSlot", func(t *testing.T) {
		for _, path := range []string{"/games/1/events", "/static/app.css"} {
			if rec := get(path); rec.Code != http.StatusOK {
				t.Errorf("%s with every slot busy: %d", path, rec.Code)
			}
		}
	})
	<-s.slots
	t.Run("AdmittedOnceFree", func(t *testing.T) {
		if rec := get("/api/v1/me"); rec.Code != http.StatusOK {
			t.Errorf("with a free slot: %d", rec.Code)
		}
		if len(s.slots) != 0 {
			t.Errorf("the slot was not given back: %d taken", len(s.slots))
		}
	})
}
