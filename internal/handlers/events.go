package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/games"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

// Heartbeat is how often an open stream tells the browser it is alive.
const Heartbeat = 20 * time.Second

// WriteTimeout is how long one event may take to reach a stream's client;
// a client that does not read for that long is dropped, never waited on.
const WriteTimeout = 10 * time.Second

// gameEvents streams a game to one viewer as server-sent events: the board
// at once, then again after every change, and the watcher count when it
// changes. The stream does no database work of its own: this instance's
// watch hub reads each game version once and draws each view of it once,
// and the stream writes the bytes it is handed. It ends when the client
// goes, falls behind, or the server shuts down.
func (s *Server) gameEvents(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	sub, first, err := s.hub.Subscribe(ctx, id, watch.Viewer{UserID: viewerID(c), Code: c.QueryParam("code")})
	if errors.Is(err, watch.ErrClosed) {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is restarting: the page checks for moves by itself meanwhile.")
	}
	if err != nil {
		return err
	}
	defer s.hub.Unsubscribe(sub)

	w := c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // no proxy buffering
	w.WriteHeader(http.StatusOK)
	w.Flush() // the stream is open now, even if there is nothing to send yet

	rc := http.NewResponseController(w)
	write := func(b []byte) error {
		// Not every ResponseWriter has deadlines (tests' recorders); the
		// real server's has.
		_ = rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return err
		}
		w.Flush()
		return nil
	}
	// The page says which board it already shows (h, a digest), so the
	// first board is not swapped in needlessly under the user's pointer;
	// later, a board like the last one sent is not sent again.
	last := c.QueryParam("h")
	if first.Digest != last {
		if err := write(first.Data); err != nil {
			return nil
		}
		last = first.Digest
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.hub.Done():
			return nil
		case <-sub.Wake:
			frames, dropped := sub.Take()
			if dropped {
				return nil
			}
			for _, f := range frames {
				if f.Kind == "board" {
					if f.Digest == last {
						continue
					}
					last = f.Digest
				}
				if err := write(f.Data); err != nil {
					return nil
				}
			}
		case <-beat.C:
			if err := write([]byte(": ping\n\n")); err != nil {
				return nil
			}
		}
	}
}

// streamRenderer draws what the watch hub sends.
type streamRenderer struct{ s *Server }

func (r streamRenderer) Board(ctx context.Context, st *games.State, k watch.Key) ([]byte, error) {
	var buf bytes.Buffer
	if err := views.Board(r.s.boardView(st, k)).Render(ctx, &buf); err != nil {
		return nil, fmt.Errorf("render board: %w", err)
	}
	return buf.Bytes(), nil
}

func (r streamRenderer) Watchers(ctx context.Context, n int, _ string) ([]byte, error) {
	var buf bytes.Buffer
	if err := views.WatcherCount(n).Render(ctx, &buf); err != nil {
		return nil, fmt.Errorf("render watchers: %w", err)
	}
	return buf.Bytes(), nil
}

// watchers counts the people watching a game across every instance, for a
// page (streams get the count from the hub).
func (s *Server) watchers(ctx context.Context, gameID int64) int {
	w, err := s.db.WatchedGames(ctx, []int64{gameID}, s.clock.Now().Add(-games.WatchWindow))
	if err != nil {
		s.log.Warn("count watchers", "game", gameID, "err", err)
		return 0
	}
	return w[gameID].Watchers
}

var _ watch.Renderer = streamRenderer{}
