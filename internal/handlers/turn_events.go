package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/turns"
)

// turnEvents streams to a logged-in person, on every page, how many games
// wait for their decision: one small stream per page, whatever the page,
// fed by this instance's turns hub with no database work per move. Each
// event is "turn" with {"my_turn": n, "games": [ids]}, at once and then on
// every change. Like the game streams it takes the connection over after
// the headers.
func (s *Server) turnEvents(c echo.Context) error {
	if s.turns == nil {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	u := currentUser(c)
	sub, first, err := s.turns.Subscribe(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no")
	closed := s.metrics.StreamOpened()
	if conn, err := takeOver(c, h); err == nil {
		go s.turnStream(context.Background(), &connWriter{conn: conn}, sub, first, closed)
		return nil
	}
	h.Set("Connection", "keep-alive")
	w := c.Response()
	w.WriteHeader(http.StatusOK)
	w.Flush()
	s.turnStream(c.Request().Context(), &responseWriter{w: w, rc: http.NewResponseController(w)}, sub, first, closed)
	return nil
}

func (s *Server) turnStream(ctx context.Context, w frameWriter, sub *turns.Sub, first turns.Update, closed func()) {
	defer s.turns.Unsubscribe(sub)
	defer w.Close()
	defer closed()
	if err := w.Write(turnFrame(first)); err != nil {
		return
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.Gone():
			return
		case <-s.hub.Done():
			return
		case u := <-sub.C:
			if err := w.Write(turnFrame(u)); err != nil {
				return
			}
		case <-beat.C:
			if err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
		}
	}
}

func turnFrame(u turns.Update) []byte {
	b, _ := json.Marshal(u)
	return append(append([]byte("event: turn\ndata: "), b...), '\n', '\n')
}
