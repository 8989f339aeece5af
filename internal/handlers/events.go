package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/turns"
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
//
// Once the headers are out, the stream takes the connection over from the
// HTTP server (a hijack) and runs on a goroutine of its own: the server's
// per-connection buffers, its request and its second goroutine are freed,
// so that an idle stream costs a few kilobytes. Where the connection
// cannot be taken over (HTTP/2), the stream runs in the handler instead.
func (s *Server) gameEvents(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// A featured table (a tournament's page, /tv) is watched as a
	// spectator, whoever watches (?view=spectator): even one of its own
	// players sees it as everyone else does there, with no buttons.
	spectate := c.QueryParam("view") == "spectator"
	viewer := watch.Viewer{UserID: viewerID(c), Code: c.QueryParam("code"), Lang: string(i18n.From(ctx)), Moderator: isModerator(c)}
	if spectate {
		viewer.UserID, viewer.Moderator = nil, false
	}
	sub, first, err := s.hub.Subscribe(ctx, id, viewer)
	if errors.Is(err, watch.ErrClosed) {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is restarting: the page checks for moves by itself meanwhile.")
	}
	if err != nil {
		return err
	}
	// The page says which board it already shows (h, a digest), so the
	// first board is not swapped in needlessly under the user's pointer.
	last := c.QueryParam("h")
	// A logged-in player's turn events ride on the same stream, so the
	// page needs no second connection for them.
	var ts *turnSub
	// (Not for a featured table: its page has its own turn stream.)
	if u := currentUser(c); u != nil && s.turns != nil && !spectate {
		tsub, tfirst, err := s.turns.Subscribe(ctx, u.ID)
		if err != nil {
			s.hub.Unsubscribe(sub)
			return err
		}
		ts = &turnSub{sub: tsub, first: tfirst}
	}
	return s.serveStream(c, func(ctx context.Context, w frameWriter, closed func()) {
		s.stream(ctx, w, sub, first, last, ts, closed)
	})
}

// serveStream answers with an event stream written by run: the headers
// go out, then the stream takes the connection over and runs on a
// goroutine of its own or, where the connection cannot be taken over
// (HTTP/2), runs in the handler.
func (s *Server) serveStream(c echo.Context, run func(ctx context.Context, w frameWriter, closed func())) error {
	return s.serveStreamAs(c, "text/event-stream", run)
}

// serveStreamAs is serveStream with another content type (the API's
// streams of JSON lines).
func (s *Server) serveStreamAs(c echo.Context, contentType string, run func(ctx context.Context, w frameWriter, closed func())) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, contentType)
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no") // no proxy buffering
	closed := s.metrics.StreamOpened()
	if conn, err := takeOver(c, h); err == nil {
		go run(context.Background(), &connWriter{conn: conn}, closed)
		return nil
	}
	h.Set("Connection", "keep-alive")
	w := c.Response()
	w.WriteHeader(http.StatusOK)
	w.Flush() // the stream is open now, even if there is nothing to send yet
	run(c.Request().Context(), &responseWriter{w: w, rc: http.NewResponseController(w)}, closed)
	return nil
}

// turnSub is a player's turn subscription carried by a game stream.
type turnSub struct {
	sub   *turns.Sub
	first turns.Update
}

// stream writes a subscription's frames until the client goes, falls
// behind, or the server shuts down; a board like the last one sent is not
// sent again.
func (s *Server) stream(ctx context.Context, w frameWriter, sub *watch.Sub, first watch.Frame, last string, ts *turnSub, closed func()) {
	defer s.hub.Unsubscribe(sub)
	defer w.Close()
	defer closed()
	var turnC <-chan turns.Update
	var noticeC <-chan turns.Notice
	if ts != nil {
		defer s.turns.Unsubscribe(ts.sub)
		turnC, noticeC = ts.sub.C, ts.sub.N
		if err := w.Write(turnFrame(ts.first)); err != nil {
			return
		}
	}
	if first.Digest != last {
		if err := w.Write(first.Data); err != nil {
			return
		}
		last = first.Digest
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
		case <-sub.Wake:
			frames, dropped := sub.Take()
			if dropped {
				return
			}
			for _, f := range frames {
				if f.Kind == "board" {
					if f.Digest == last {
						continue
					}
					last = f.Digest
				}
				if err := w.Write(f.Data); err != nil {
					return
				}
			}
		case u := <-turnC:
			if err := w.Write(turnFrame(u)); err != nil {
				return
			}
		case n := <-noticeC:
			if err := w.Write(noticeFrame(n)); err != nil {
				return
			}
		case <-beat.C:
			if err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
		}
	}
}

// frameWriter is where a stream's events go.
type frameWriter interface {
	Write(b []byte) error
	// Gone is closed when the client has gone (nil when that is learnt
	// from the request's context instead).
	Gone() <-chan struct{}
	Close()
}

// takeOver hijacks the connection and writes the response's head with the
// headers set so far. The body then runs until the connection closes.
func takeOver(c echo.Context, h http.Header) (net.Conn, error) {
	conn, rw, err := http.NewResponseController(c.Response()).Hijack()
	if err != nil {
		return nil, err
	}
	if rw.Reader.Buffered() > 0 {
		// The client sent more after its request (pipelining): not a
		// stream client; give up on it.
		conn.Close()
		return nil, errors.New("stream: bytes after the request")
	}
	_ = conn.SetDeadline(time.Time{})
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	h.Set("Connection", "close") // the stream ends with the connection
	if err := h.Write(&head); err != nil {
		conn.Close()
		return nil, err
	}
	head.WriteString("\r\n")
	_ = conn.SetWriteDeadline(time.Now().Add(WriteTimeout))
	if _, err := conn.Write(head.Bytes()); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// connWriter writes events straight to a taken-over connection, each with
// a deadline; a reader notices when the client closes it.
type connWriter struct {
	conn net.Conn
	gone chan struct{}
	once sync.Once
}

func (w *connWriter) Write(b []byte) error {
	_ = w.conn.SetWriteDeadline(time.Now().Add(WriteTimeout))
	_, err := w.conn.Write(b)
	return err
}

func (w *connWriter) Gone() <-chan struct{} {
	w.once.Do(func() {
		w.gone = make(chan struct{})
		go func() {
			// A stream's client sends nothing: any read that returns means
			// it closed the connection (or broke the protocol).
			var b [1]byte
			_, _ = w.conn.Read(b[:])
			close(w.gone)
		}()
	})
	return w.gone
}

func (w *connWriter) Close() { w.conn.Close() }

// responseWriter writes events through the HTTP server (when the
// connection cannot be taken over).
type responseWriter struct {
	w  *echo.Response
	rc *http.ResponseController
}

func (w *responseWriter) Write(b []byte) error {
	// Not every ResponseWriter has deadlines (tests' recorders).
	_ = w.rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	if _, err := w.w.Write(b); err != nil {
		return err
	}
	w.w.Flush()
	return nil
}

func (w *responseWriter) Gone() <-chan struct{} { return nil }

func (w *responseWriter) Close() {}

// streamRenderer draws what the watch hub sends.
type streamRenderer struct{ s *Server }

func (r streamRenderer) Board(ctx context.Context, st *games.State, k watch.Key) ([]byte, error) {
	// The hub renders once per key, the key holds the viewer's language.
	ctx = i18n.With(ctx, i18n.Or(k.Lang))
	var buf bytes.Buffer
	if err := views.Board(r.s.boardView(ctx, st, k)).Render(ctx, &buf); err != nil {
		return nil, fmt.Errorf("render board: %w", err)
	}
	return buf.Bytes(), nil
}

func (r streamRenderer) Watchers(ctx context.Context, n int, lang string) ([]byte, error) {
	ctx = i18n.With(ctx, i18n.Or(lang))
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
