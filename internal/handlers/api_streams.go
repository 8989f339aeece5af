package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/apistream"
	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/turns"
	"nothanks/internal/watch"
)

// APIKeepAlive is how often an API stream with nothing to say writes a
// ping line, so that clients and proxies know it is alive.
const APIKeepAlive = 5 * time.Second

// ndjson is the content type of the API's streams: one JSON object a line.
const ndjson = "application/x-ndjson"

var (
	pingLine = []byte(`{"type":"ping"}` + "\n")
)

func endLine(reason string) []byte {
	b, _ := json.Marshal(apistream.Line{Type: apistream.LineEnd, Reason: reason})
	return append(b, '\n')
}

// openAPIStream counts a stream of the request's token, or answers 429.
func (s *Server) openAPIStream(c echo.Context) (*apistream.Stream, error) {
	token, _ := bearerToken(c.Request())
	st, err := s.apiStreams.Open(c.Request().Context(), accounts.TokenHash(token))
	if errors.Is(err, apistream.ErrTooMany) {
		// A stream closed elsewhere is counted off within a count's
		// refresh: try again after one.
		e := apperr.E(apperr.TooMany, "This token holds %d streams open already: close one before opening another.", apistream.MaxPerToken)
		e.RetryAfter = apistream.CountsEvery
		return nil, e
	}
	return st, err
}

// apiGameStream streams a game as the token's owner may see it: a line
// with the whole view (or, with ?version=N, with the events since version
// N), then a line at each change, whose events are those since the line
// before; and a chat line for each message of the chat the owner reads
// (those said before it opened first, then each new one, and one again
// when a moderator hides it). The lines come from this instance's watch hub: one read per
// game version and one drawing per view, however many streams.
func (s *Server) apiGameStream(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	since := -1
	if q := c.QueryParam("version"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 {
			return (apperr.FieldErrors{"version": "The version to resume after is a whole number, 0 or more."}).Err()
		}
		since = n
	}
	stream, err := s.openAPIStream(c)
	if err != nil {
		return err
	}
	u := apiUser(c)
	sub, first, err := s.hub.Subscribe(c.Request().Context(), id, watch.Viewer{UserID: &u.ID, API: true, Since: since, Moderator: u.Admin && u.Active()})
	if err != nil {
		s.apiStreams.Close(stream)
		if errors.Is(err, watch.ErrClosed) {
			return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is restarting: connect again in a moment.")
		}
		return err
	}
	return s.serveStreamAs(c, ndjson, func(ctx context.Context, w frameWriter, closed func()) {
		defer s.apiStreams.Close(stream)
		defer s.hub.Unsubscribe(sub)
		defer w.Close()
		defer closed()
		if err := w.Write(first.Data); err != nil {
			return
		}
		last := first.Digest
		s.apiStreamLoop(ctx, w, stream, sub.Wake, func() bool {
			frames, dropped := sub.Take()
			if dropped {
				return false
			}
			for _, f := range frames {
				if f.Kind == watch.KindGameLine {
					if f.Digest == last {
						continue
					}
					last = f.Digest
				}
				if w.Write(f.Data) != nil {
					return false
				}
			}
			return true
		}, nil, nil)
	})
}

// apiEventStream streams the account's events: at once a game_start line
// for each game it plays, an invitation line for each invitation waiting
// for its answer and a your_turn line for each game waiting for its
// decision; then each as it happens, with the game's end, rematch offers
// and the tournaments' notices. It is fed by the turns hub (no database
// work per move) and reads the account's games once as it opens.
func (s *Server) apiEventStream(c echo.Context) error {
	stream, err := s.openAPIStream(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := apiUser(c)
	sub, first, err := s.turns.SubscribeAPI(ctx, u.ID)
	if err != nil {
		s.apiStreams.Close(stream)
		return err
	}
	// Subscribed first, read second: what happens in between comes twice
	// at worst (a client takes a line again as it took it once).
	var lines []apistream.Line
	fail := func(err error) error {
		s.turns.Unsubscribe(sub)
		s.apiStreams.Close(stream)
		return err
	}
	gs, err := s.games.MyGames(ctx, u.ID)
	if err != nil {
		return fail(err)
	}
	for i := len(gs) - 1; i >= 0; i-- {
		if gs[i].Status == db.StatusPlaying {
			lines = append(lines, apistream.Line{Type: apistream.LineGameStart, GameID: gs[i].ID})
		}
	}
	invs, err := s.invites.Pending(ctx, u.ID)
	if err != nil {
		return fail(err)
	}
	for _, inv := range invs {
		lines = append(lines, apistream.Line{Type: apistream.LineInvitation, GameID: inv.GameID, InvitationID: inv.ID})
	}
	var mine apistream.Turns
	lines = append(lines, mine.Lines(first)...)
	return s.serveStreamAs(c, ndjson, func(ctx context.Context, w frameWriter, closed func()) {
		defer s.apiStreams.Close(stream)
		defer s.turns.Unsubscribe(sub)
		defer w.Close()
		defer closed()
		write := func(ls ...apistream.Line) bool {
			for _, l := range ls {
				b, _ := json.Marshal(l)
				if w.Write(append(b, '\n')) != nil {
					return false
				}
			}
			return true
		}
		if !write(lines...) {
			return
		}
		s.apiStreamLoop(ctx, w, stream, nil, nil, sub, func(ev any) bool {
			switch ev := ev.(type) {
			case turns.Update:
				return write(mine.Lines(ev)...)
			case turns.Notice:
				if l, ok := apistream.NoticeLine(ev); ok {
					return write(l)
				}
			}
			return true
		})
	})
}

// apiStreamLoop runs an API stream until its client goes, it falls behind,
// its token is revoked or the server stops: a game's frames (wake, take)
// or a person's turns and notices (tsub, on), and a ping line when there
// was nothing to say for APIKeepAlive. The server's ending is said in a
// last line.
func (s *Server) apiStreamLoop(ctx context.Context, w frameWriter, stream *apistream.Stream, wake <-chan struct{}, take func() bool, tsub *turns.Sub, on func(any) bool) {
	var turnC <-chan turns.Update
	var noticeC <-chan turns.Notice
	var dropped <-chan struct{}
	if tsub != nil {
		turnC, noticeC, dropped = tsub.C, tsub.N, tsub.Dropped()
	}
	beat := time.NewTimer(APIKeepAlive)
	defer beat.Stop()
	for {
		ok := true
		select {
		case <-ctx.Done():
			return
		case <-w.Gone():
			return
		case <-dropped:
			return
		case <-s.hub.Done():
			_ = w.Write(endLine(apistream.EndShutdown))
			return
		case <-stream.Done():
			_ = w.Write(endLine(stream.Reason()))
			return
		case <-wake:
			ok = take()
		case u := <-turnC:
			ok = on(u)
		case n := <-noticeC:
			ok = on(n)
		case <-beat.C:
			ok = w.Write(pingLine) == nil
		}
		if !ok {
			return
		}
		beat.Reset(APIKeepAlive)
	}
}

// gameLine is a game stream's line.
type gameLine struct {
	Type string   `json:"type"`
	Game apiTable `json:"game"`
}

// GameLine draws an API stream's line of a game in one view: the game as
// a read answers it, with the events since version k.From when it is set.
func (r streamRenderer) GameLine(_ context.Context, st *games.State, k watch.Key) ([]byte, error) {
	t := st.TableFor(k.Seat, k.Seat != engine.Spectator || k.Role >= watch.Seated)
	out := r.s.apiTableOf(t, logRecent)
	if k.From >= 0 && out.View != nil {
		v := *out.View
		v.Events = eventsAfter(t.Log(), k.From, k.Opening)
		out.View, out.EventsOmitted = &v, 0
	}
	b, err := json.Marshal(gameLine{Type: apistream.LineGame, Game: out})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// eventsAfter is the part of a game's log after version n: from its
// (n+1)th action (each action makes one version) on, with what each
// caused. With opening, version 0 counts from before the start: the
// events that began the game (the first round's start) come too.
func eventsAfter(log []engine.Event, n int, opening bool) []engine.Event {
	if n == 0 && opening {
		return log
	}
	actions := 0
	for i, e := range log {
		if _, ok := e.Action(); ok {
			if actions == n {
				return log[i:]
			}
			actions++
		}
	}
	return []engine.Event{}
}
