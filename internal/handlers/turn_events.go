package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/lists"
	"nothanks/internal/turns"
)

// turnEvents streams to a logged-in person, on every page, how many games
// wait for their decision: one small stream per page, whatever the page,
// fed by this instance's turns hub with no database work per move. Each
// event is "turn" with {"my_turn": n, "games": [ids]}, at once and then on
// every change. A page that lists games (?lists=open or live) is told on
// the same stream when its list changed ("lists", the lists' names). Like
// the game streams it takes the connection over after the headers.
func (s *Server) turnEvents(c echo.Context) error {
	if s.turns == nil {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	u := currentUser(c)
	sub, first, err := s.turns.Subscribe(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	return s.siteStream(c, sub, &first)
}

// listEvents streams to a visitor's page of a list of games when the list
// changed, as a member's turn stream does (a visitor has no turns).
func (s *Server) listEvents(c echo.Context) error {
	if s.lists == nil || len(listsOf(c)) == 0 {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	return s.siteStream(c, nil, nil)
}

// listsOf is the lists a stream is asked to tell of (?lists=open,live).
func listsOf(c echo.Context) []string {
	var out []string
	for _, l := range strings.Split(c.QueryParam("lists"), ",") {
		if lists.Valid(l) {
			out = append(out, l)
		}
	}
	return out
}

// siteStream holds the stream of a page that is not a game's: a member's
// turns (sub and first; nil for a visitor) and the lists the page shows.
func (s *Server) siteStream(c echo.Context, sub *turns.Sub, first *turns.Update) error {
	var ls *lists.Sub
	if s.lists != nil {
		ls = s.lists.Subscribe(listsOf(c))
	}
	return s.serveStream(c, func(ctx context.Context, w frameWriter, closed func()) {
		s.turnStream(ctx, w, sub, first, ls, closed)
	})
}

func (s *Server) turnStream(ctx context.Context, w frameWriter, sub *turns.Sub, first *turns.Update, ls *lists.Sub, closed func()) {
	if sub != nil {
		defer s.turns.Unsubscribe(sub)
	}
	if ls != nil {
		defer s.lists.Unsubscribe(ls)
	}
	defer w.Close()
	defer closed()
	// A nil subscription's channel is nil: never ready.
	var turnC <-chan turns.Update
	var noticeC <-chan turns.Notice
	var listC <-chan []string
	if sub != nil {
		turnC, noticeC = sub.C, sub.N
		if err := w.Write(turnFrame(*first)); err != nil {
			return
		}
	} else if err := w.Write([]byte(": open\n\n")); err != nil {
		return
	}
	if ls != nil {
		listC = ls.C
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
		case u := <-turnC:
			if err := w.Write(turnFrame(u)); err != nil {
				return
			}
		case n := <-noticeC:
			if err := w.Write(noticeFrame(n)); err != nil {
				return
			}
		case l := <-listC:
			if err := w.Write([]byte("event: lists\ndata: " + strings.Join(l, ",") + "\n\n")); err != nil {
				return
			}
		case <-beat.C:
			if err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
		}
	}
}

// noticeFrame is a notice as an event ("notice", its JSON).
func noticeFrame(n turns.Notice) []byte {
	b, _ := json.Marshal(n)
	return append(append([]byte("event: notice\ndata: "), b...), '\n', '\n')
}

func turnFrame(u turns.Update) []byte {
	b, _ := json.Marshal(u)
	return append(append([]byte("event: turn\ndata: "), b...), '\n', '\n')
}
