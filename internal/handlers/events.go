package handlers

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/views"
)

// Heartbeat is how often an open stream tells the browser it is alive and
// refreshes its presence row.
const Heartbeat = 20 * time.Second

// gameEvents streams a game to one viewer as server-sent events: the board
// at once, then again after every change, each rendered for this viewer
// alone. It ends when the client goes, or the server shuts down.
func (s *Server) gameEvents(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	code := c.QueryParam("code")
	// Check access before the stream starts, so an error is a status.
	if _, err := s.board(c, id, code, ""); err != nil {
		return err
	}
	sub := s.broker.Subscribe(id)
	defer s.broker.Unsubscribe(sub)

	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // no proxy buffering
	w.WriteHeader(http.StatusOK)
	w.Flush() // the stream is open now, even if there is nothing to send yet

	ctx := c.Request().Context()
	streamID := randomID()
	s.seePresence(ctx, streamID, id, viewerID(c))
	// The first board counts this viewer among the watchers.
	first, err := s.board(c, id, code, "")
	if err != nil {
		return nil
	}
	defer func() {
		// The request context is gone by now; the row must still go.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if err := s.db.EndPresence(ctx, streamID); err != nil {
			s.log.Warn("end presence", "err", err)
		}
	}()

	// The board last sent: a wake-up that changes nothing this viewer sees
	// (a lobby change elsewhere, a duplicate notification) sends nothing.
	// The page says which board it already shows (h, a digest), so the
	// first board is not swapped in needlessly under the user's pointer.
	var sent []byte
	shown := c.QueryParam("h")
	send := func(v views.TableView) error {
		var buf bytes.Buffer
		if err := views.Board(v).Render(ctx, &buf); err != nil {
			return err
		}
		if bytes.Equal(buf.Bytes(), sent) || (sent == nil && shown != "" && shown == views.BoardDigest(buf.Bytes())) {
			sent = buf.Bytes()
			return nil
		}
		if err := writeEvent(w, "board", buf.String()); err != nil {
			return err
		}
		sent = buf.Bytes()
		return nil
	}
	if err := send(first); err != nil {
		return nil
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.broker.Done():
			return nil
		case <-sub.C:
			v, err := s.board(c, id, code, "")
			if err != nil {
				s.log.Warn("stream: reload board", "game", id, "err", err)
				return nil
			}
			if err := send(v); err != nil {
				return nil
			}
		case <-beat.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return nil
			}
			w.Flush()
			s.seePresence(ctx, streamID, id, viewerID(c))
		}
	}
}

func (s *Server) seePresence(ctx context.Context, streamID string, gameID int64, userID *int64) {
	if err := s.db.SeePresence(ctx, streamID, gameID, userID, s.clock.Now()); err != nil && ctx.Err() == nil {
		s.log.Warn("presence", "err", err)
	}
}

// writeEvent writes one server-sent event; every line of data gets its own
// "data:" field, as the format requires.
func writeEvent(w *echo.Response, event, data string) error {
	var b strings.Builder
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteByte('\n')
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	if _, err := w.Write([]byte(b.String())); err != nil {
		return err
	}
	w.Flush()
	return nil
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
