package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/i18n"
	"nothanks/internal/tournaments"
	"nothanks/internal/turns"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

// renderTournamentFeed draws what an event's streams send, once per
// version and language: its board, and its featured table.
func (s *Server) renderTournamentFeed(ctx context.Context, _ int64, data any, lang string) ([]watch.Frame, error) {
	tv, ok := data.(*tournaments.View)
	if !ok {
		return nil, errors.New("handlers: a tournament feed without its view")
	}
	ctx = i18n.With(ctx, i18n.Or(lang))
	var board, feat bytes.Buffer
	if err := views.TournamentBoardView(s.tournamentBoard(ctx, tv, 0)).Render(ctx, &board); err != nil {
		return nil, fmt.Errorf("render tournament board: %w", err)
	}
	if err := views.FeaturedPanel(featuredTable(tv)).Render(ctx, &feat); err != nil {
		return nil, fmt.Errorf("render featured table: %w", err)
	}
	return []watch.Frame{
		{Kind: "standings", Data: watch.EventBytes("standings", board.Bytes())},
		{Kind: "featured", Data: watch.EventBytes("featured", feat.Bytes())},
	}, nil
}

// tournamentEvents streams an event's board and featured table to its
// page, drawn once per version and language for every viewer; a member's
// turns and notices ride on it too.
func (s *Server) tournamentEvents(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := s.tournaments.Get(ctx, viewerID(c), id, c.QueryParam("code")); err != nil {
		return err
	}
	sub, first, err := s.feed.Subscribe(ctx, id, string(i18n.From(ctx)))
	if errors.Is(err, watch.ErrClosed) {
		return echo.NewHTTPError(http.StatusServiceUnavailable, "The server is restarting: the page checks for moves by itself meanwhile.")
	}
	if err != nil {
		return err
	}
	var ts *turnSub
	if u := currentUser(c); u != nil && s.turns != nil {
		tsub, tfirst, err := s.turns.Subscribe(ctx, u.ID)
		if err != nil {
			s.feed.Unsubscribe(sub)
			return err
		}
		ts = &turnSub{sub: tsub, first: tfirst}
	}
	return s.serveStream(c, func(ctx context.Context, w frameWriter, closed func()) {
		s.feedStream(ctx, w, sub, first, ts, closed)
	})
}

// feedStream writes a feed's frames (and a member's turns) until the
// client goes, falls behind, or the server shuts down.
func (s *Server) feedStream(ctx context.Context, w frameWriter, sub *watch.FeedSub, first []watch.Frame, ts *turnSub, closed func()) {
	defer s.feed.Unsubscribe(sub)
	defer w.Close()
	defer closed()
	if ts != nil {
		defer s.turns.Unsubscribe(ts.sub)
		if err := w.Write(turnFrame(ts.first)); err != nil {
			return
		}
	}
	for _, f := range first {
		if err := w.Write(f.Data); err != nil {
			return
		}
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	turnC, noticeC := turnChans(ts)
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.Gone():
			return
		case <-s.feed.Done():
			return
		case <-sub.Wake:
			frames, dropped := sub.Take()
			if dropped {
				return
			}
			for _, f := range frames {
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

// turnChans are a turn subscription's channels (nil ones, never ready, for
// none).
func turnChans(ts *turnSub) (<-chan turns.Update, <-chan turns.Notice) {
	if ts == nil {
		return nil, nil
	}
	return ts.sub.C, ts.sub.N
}

// tournamentStandings answers the round picker (and the page without
// script): the standings after a round.
func (s *Server) tournamentStandings(c echo.Context) error {
	tv, code, err := s.viewedTournament(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	round, _ := strconv.Atoi(c.QueryParam("round"))
	if page, err := strconv.Atoi(c.QueryParam("page")); err == nil && page > 0 {
		// Every player's line and games: the whole event is read.
		full, err := s.tournaments.Load(ctx, tv.T.ID)
		if err != nil {
			return err
		}
		b := s.standingsBoard(ctx, full, round, page)
		if page > max(b.Pages, 1) {
			return apperr.E(apperr.NotFound, "There is no such page of the standings.")
		}
		b.Code = code
		p := s.page(c, tr(c, "Standings of {{.Name}}", "Name", tv.T.Name))
		return render(c, http.StatusOK, views.StandingsPage(p, tv.T.Name, b))
	}
	b := s.tournamentBoard(ctx, tv, round)
	if !isFragment(c) {
		v := s.tournamentView(c, tv, code)
		v.Board = b
		p := s.page(c, tv.T.Name)
		p.Tournament = tv.T.ID
		return render(c, http.StatusOK, views.TournamentPage(p, v))
	}
	return render(c, http.StatusOK, views.TournamentStandings(b))
}

// tournamentMe answers the viewer's panel, read again when the event's
// status changes.
func (s *Server) tournamentMe(c echo.Context) error {
	tv, code, err := s.viewedTournament(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.TournamentMePanel(s.tournamentView(c, tv, code)))
}
