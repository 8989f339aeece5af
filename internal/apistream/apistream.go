// Package apistream is the JSON API's streams (docs/api.md, "Streams"):
// the lines of the account's event stream, and the streams open on this
// instance — how many each personal token holds, and which end when their
// token is revoked or the server stops.
//
// The lines' content comes from what the pages' streams already use: a
// game's lines from the watch hub (one read per game version, one drawing
// per view), the account's events from the turns hub (who is to move, from
// the game notifications' payload) and its notices. This package holds no
// SQL and no HTTP.
package apistream

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/turns"
)

// MaxPerToken is how many streams one personal token may hold open at
// once, on all instances together: a bot's event stream and a game stream
// for each of the games it may play at once, with room to reconnect.
const MaxPerToken = 16

// CountsEvery is how often an instance writes how many streams each token
// holds open on it; the other instances count what is newer than
// CountsFresh. (A token may thus hold a few more for a moment, while
// streams it opened on several instances at once are not written yet.)
const (
	CountsEvery = 3 * time.Second
	CountsFresh = 3 * CountsEvery
)

// Store keeps the instances' counts of streams per token.
type Store interface {
	SaveStreamCounts(ctx context.Context, instance string, counts map[string]int, at time.Time) error
	StreamsElsewhere(ctx context.Context, instance, token string, since time.Time) (int, error)
}

// ErrTooMany is Open's error past MaxPerToken.
var ErrTooMany = errors.New("apistream: too many streams")

// Why a stream ended, as its last line says.
const (
	EndRevoked  = "revoked"
	EndShutdown = "shutdown"
)

// Registry holds the API streams open on this instance.
type Registry struct {
	max      int
	store    Store
	instance string
	now      func() time.Time
	mu       sync.Mutex
	byToken  map[string]map[*Stream]struct{}
}

// New returns a registry allowing max streams per token, counting those
// open on other instances through store (nil: this instance's only).
func New(max int, store Store, instance string, now func() time.Time) *Registry {
	return &Registry{max: max, store: store, instance: instance, now: now, byToken: map[string]map[*Stream]struct{}{}}
}

// Stream is one open API stream. Done is closed when the server ends it;
// Reason says why.
type Stream struct {
	token  string
	done   chan struct{}
	once   sync.Once
	reason string
}

// Done is closed when the stream must end.
func (s *Stream) Done() <-chan struct{} { return s.done }

// Reason is why the stream was ended (valid once Done is closed).
func (s *Stream) Reason() string { return s.reason }

func (s *Stream) end(reason string) {
	s.once.Do(func() {
		s.reason = reason
		close(s.done)
	})
}

// Open counts a new stream of a token (its hash in hex), or refuses it
// with ErrTooMany: one read of the other instances' counts.
func (r *Registry) Open(ctx context.Context, tokenHash string) (*Stream, error) {
	elsewhere := 0
	if r.store != nil {
		n, err := r.store.StreamsElsewhere(ctx, r.instance, tokenHash, r.now().Add(-CountsFresh))
		if err != nil {
			return nil, err
		}
		elsewhere = n
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.byToken[tokenHash]
	if len(set)+elsewhere >= r.max {
		return nil, ErrTooMany
	}
	if set == nil {
		set = map[*Stream]struct{}{}
		r.byToken[tokenHash] = set
	}
	s := &Stream{token: tokenHash, done: make(chan struct{})}
	set[s] = struct{}{}
	return s, nil
}

// Close forgets a stream that ended.
func (r *Registry) Close(s *Stream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if set := r.byToken[s.token]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(r.byToken, s.token)
		}
	}
}

// Count is how many streams a token holds open here.
func (r *Registry) Count(tokenHash string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byToken[tokenHash])
}

// Run writes this instance's counts every CountsEvery until ctx ends,
// then clears them.
func (r *Registry) Run(ctx context.Context, log *slog.Logger) {
	if r.store == nil {
		return
	}
	t := time.NewTicker(CountsEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := r.store.SaveStreamCounts(ctx, r.instance, nil, r.now()); err != nil {
				log.Warn("apistream: clear counts", "err", err)
			}
			return
		case <-t.C:
		}
		r.mu.Lock()
		counts := make(map[string]int, len(r.byToken))
		for t, set := range r.byToken {
			counts[t] = len(set)
		}
		r.mu.Unlock()
		if err := r.store.SaveStreamCounts(ctx, r.instance, counts, r.now()); err != nil && ctx.Err() == nil {
			log.Warn("apistream: save counts", "err", err)
		}
	}
}

// Revoked ends at once every stream of a token that was revoked.
func (r *Registry) Revoked(tokenHash string) { r.endWhere(EndRevoked, tokenHash) }

// Tokens lists the tokens (hashes) holding streams here, so that they can
// be checked again when revocations may have been missed.
func (r *Registry) Tokens() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.byToken))
	for t := range r.byToken {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func (r *Registry) endWhere(reason, tokenHash string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for t, set := range r.byToken {
		if tokenHash != "" && t != tokenHash {
			continue
		}
		for s := range set {
			s.end(reason)
		}
	}
}

// Line is one line of the account's event stream.
type Line struct {
	Type         string `json:"type"`
	GameID       int64  `json:"game_id,omitempty"`
	Version      *int   `json:"version,omitempty"`
	InvitationID int64  `json:"invitation_id,omitempty"`
	TournamentID int64  `json:"tournament_id,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

// The kinds of line of the event stream (and of a game's stream: game,
// chat, ping, end).
const (
	LineGame            = "game"
	LinePing            = "ping"
	LineEnd             = "end"
	LineChat            = "chat"
	LineYourTurn        = "your_turn"
	LineGameStart       = db.NoticeGameStart
	LineGameEnd         = db.NoticeGameEnd
	LineInvitation      = db.NoticeInvitation
	LineRematchOffer    = db.NoticeRematchOffer
	LineTournamentStart = "tournament_start"
	LineTournamentTable = "tournament_table"
	LineTournamentBye   = "tournament_bye"
	LineTournamentOff   = "tournament_cancelled"
)

// tournamentLines names the tournament notices (turns.PageNotices) as the
// event stream does.
var tournamentLines = map[string]string{
	"start": LineTournamentStart, "table": LineTournamentTable, "bye": LineTournamentBye, "cancelled": LineTournamentOff,
}

// NoticeLine is the event stream's line for a notice (false for a kind it
// does not carry).
func NoticeLine(n turns.Notice) (Line, bool) {
	l := Line{GameID: n.Game, TournamentID: n.Tournament}
	if t, ok := tournamentLines[n.Kind]; ok {
		l.Type = t
		return l, true
	}
	switch n.Kind {
	case LineGameStart, LineGameEnd, LineRematchOffer:
		l.Type = n.Kind
		return l, true
	case LineInvitation:
		l.Type, l.InvitationID = n.Kind, n.ID
		return l, true
	}
	return Line{}, false
}

// Turns tells which games came to wait for a person's decision: a game
// not waiting for them before, or waiting at a newer version (after taking
// a card, the same player decides again).
type Turns struct{ versions map[int64]int }

// Lines returns a your_turn line for each decision new in u, oldest game
// first, and remembers u.
func (t *Turns) Lines(u turns.Update) []Line {
	var out []Line
	for _, g := range u.Games {
		v := u.Versions[g]
		if have, ok := t.versions[g]; ok && have >= v {
			continue
		}
		out = append(out, Line{Type: LineYourTurn, GameID: g, Version: &v})
	}
	t.versions = u.Versions
	return out
}
