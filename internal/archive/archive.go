// Package archive is the games as text: every finished game written in
// the notation (package notation, docs/notation.md) for its page and the
// API, a player's games as one file, games imported from text (checked
// against the rules, stored finished and never rated, then analysed like
// any other), and the open database: a compressed file a month of every
// finished public game of the site, made by background work claimed from
// Postgres. It never writes a game still in play, and a private game only
// for those who may see it. It knows nothing of HTTP.
package archive

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/notation"
)

// Site is the Site tag of the games the site writes.
const Site = "No Thanks! play-by-web"

// Service writes, reads and keeps games as text.
type Service struct {
	store *db.Store
	games *games.Service
	clock clock.Clock
	log   *slog.Logger
	// base is the site's address, for each game's Game tag.
	base string
}

// New makes the service; base is the site's address (no trailing slash).
func New(store *db.Store, g *games.Service, clk clock.Clock, log *slog.Logger, base string) *Service {
	return &Service{store: store, games: g, clock: clk, log: log, base: strings.TrimSuffix(base, "/")}
}

// ErrNotOver refuses the text of a game still in play: it would tell what
// the rules still hide.
var ErrNotOver = apperr.E(apperr.Conflict, "The game is not over: its text is ready when it ends.")

// Game writes one finished game for a viewer who may see it, and names
// the file.
func (s *Service) Game(ctx context.Context, viewerID *int64, gameID int64) ([]byte, string, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return nil, "", err
	}
	if !st.CanSee(viewerID, "") {
		return nil, "", games.ErrNoGame
	}
	if st.Game.Status != db.StatusFinished || !st.Started() || !st.Engine().Finished() {
		return nil, "", ErrNotOver
	}
	ratings, err := s.store.RatingsBefore(ctx, gameID)
	if err != nil {
		return nil, "", apperr.Wrap(err, apperr.Internal, "could not read the ratings")
	}
	h, err := s.header(st.Game, st.Seats, ratings, st.Options)
	if err != nil {
		return nil, "", apperr.Wrap(err, apperr.Internal, "could not write the game")
	}
	var b strings.Builder
	if err := notation.Write(&b, h, st.Engine()); err != nil {
		return nil, "", apperr.Wrap(err, apperr.Internal, "could not write the game")
	}
	return []byte(b.String()), fmt.Sprintf("nothanks-%d.txt", gameID), nil
}

// batch is how many games a file reads from Postgres at a time.
const batch = 200

// PlayerGames writes every finished game a player sat at, oldest first,
// as one file: the public ones, and the private ones too for the player
// themselves. It returns the file's name before writing, through name.
func (s *Service) PlayerGames(ctx context.Context, viewerID *int64, player string, start func(name string) io.Writer) error {
	u, err := s.store.UserByName(ctx, player)
	if errors.Is(err, db.ErrNotFound) || err == nil && (u.DeletedAt != nil || u.Guest) {
		return apperr.E(apperr.NotFound, "No player is called %s.", player)
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not read the player")
	}
	q := db.ArchiveQuery{UserID: u.ID, Private: viewerID != nil && *viewerID == u.ID, Limit: batch}
	bw := bufio.NewWriterSize(start(fmt.Sprintf("nothanks-%s.txt", u.Username)), 64<<10)
	if _, err := s.each(ctx, q, bw, nil); err != nil {
		return err
	}
	return bw.Flush()
}

// each writes every game a query picks to w, batch by batch, and calls
// seen (if set) with each game written; it returns how many it wrote. The
// next batch is read from Postgres while this one is written out (a
// month's file: the reads and the notation with its gzip take a core
// each, one after the other they took the sum).
func (s *Service) each(ctx context.Context, q db.ArchiveQuery, w io.Writer, seen func(db.ArchivedGame)) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type batch struct {
		games []db.ArchivedGame
		err   error
	}
	batches := make(chan batch, 1)
	go func() {
		defer close(batches)
		for {
			gs, err := s.store.ArchiveGames(ctx, q)
			select {
			case batches <- batch{gs, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(gs) < q.Limit {
				return
			}
			last := gs[len(gs)-1].Game
			q.AfterFinished, q.AfterID = *last.FinishedAt, last.ID
		}
	}()
	n := 0
	for b := range batches {
		if b.err != nil {
			return n, apperr.Wrap(b.err, apperr.Internal, "could not read the games")
		}
		for _, g := range b.games {
			if err := s.write(w, g, n > 0); err != nil {
				return n, err
			}
			if seen != nil {
				seen(g)
			}
			n++
		}
	}
	// The reader stops early only when the caller's context ended.
	if err := ctx.Err(); err != nil {
		return n, apperr.Wrap(err, apperr.Internal, "could not read the games")
	}
	return n, nil
}

// write writes one game read whole, after a blank line unless it is the
// file's first.
func (s *Service) write(w io.Writer, g db.ArchivedGame, blank bool) error {
	o, eg, err := Rebuild(g.Game, g.Moves)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not rebuild a game")
	}
	h, err := s.header(g.Game, g.Seats, g.Ratings, o)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not write a game")
	}
	if blank {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return notation.Write(w, h, eg)
}

// Rebuild replays a finished game's whole move log over its deals.
func Rebuild(g db.Game, moves []db.Move) (engine.Options, *engine.Game, error) {
	o, eg, err := games.Replay(g, moves)
	if err != nil {
		return o, nil, err
	}
	if !eg.Finished() {
		return o, nil, fmt.Errorf("archive: game %d is not over", g.ID)
	}
	return o, eg, nil
}

// header is a game's tags: the site and the game's address, the day it
// started, the options, each seat's name (a deleted account's shown as
// such), bot and rating before the game (ranked games). An imported game
// keeps the tags its text came with.
func (s *Service) header(g db.Game, seats []db.Seat, ratings map[int]float64, o engine.Options) (notation.Header, error) {
	h := notation.Header{Site: Site, URL: fmt.Sprintf("%s/games/%d", s.base, g.ID), Ranked: g.Ranked, Pace: g.Pace, Options: o}
	if g.Imported {
		if err := json.Unmarshal(g.ImportTags, &h); err != nil {
			return h, fmt.Errorf("archive: tags of imported game %d: %w", g.ID, err)
		}
		h.Options, h.Ranked = o, false
	} else if g.StartedAt != nil {
		h.Date = g.StartedAt.UTC()
	}
	tagged := h.Seats
	h.Seats = make([]notation.Seat, o.Players)
	for _, st := range seats {
		if st.Seat == nil || *st.Seat < 0 || *st.Seat >= o.Players {
			continue
		}
		n := *st.Seat
		p := notation.Seat{Name: games.Name(st)}
		switch {
		case st.BotLevel != nil:
			p.Bot = *st.BotLevel
		case st.ImportBot != nil:
			p.Bot = *st.ImportBot
		}
		if g.Imported && n < len(tagged) {
			p.Rating = tagged[n].Rating
		}
		if r, ok := ratings[n]; ok {
			v := int(r + 0.5)
			p.Rating = &v
		}
		h.Seats[n] = p
	}
	return h, nil
}
