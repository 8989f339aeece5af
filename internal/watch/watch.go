// Package watch serves the event streams of games in this server instance:
// the players' and spectators' live tables. It is built so that a watched
// game costs the same whether ten or a thousand people watch it:
//
//   - a change of a game (heard through Postgres LISTEN/NOTIFY) makes one
//     database read for the game in this instance, not one per stream;
//   - each distinct view of that version (the spectators' view, each seat's
//     view, each language) is rendered once, and the bytes of the
//     server-sent event are shared by every stream that shows that view;
//   - a stream never waits on another: each has a small mailbox in which a
//     newer board replaces one not yet written; a stream whose client stops
//     reading is cut by its write deadline, and one whose mailbox overflows
//     is dropped;
//   - who watches is counted in memory and written to Postgres in one
//     statement per instance every few seconds, not per stream per move.
//
// It knows games only through the State the games package loads and the
// Renderer the handlers give it; it holds no SQL and no HTML of its own.
package watch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"nothanks/internal/chat"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/views"
)

// Viewer is who opened a stream.
type Viewer struct {
	UserID *int64
	// Code is the invite code the viewer came with (private games).
	Code string
	Lang string
	// Moderator: the viewer is a moderator, who reads hidden chat
	// messages too (marked as hidden).
	Moderator bool
	// API: the stream is the JSON API's (a line of JSON for each version,
	// with the events since the last one sent, and a line for each chat
	// message; no watcher count).
	API bool
	// Since is the version an API client resumes after (-1: none, the
	// whole view first).
	Since int
}

// Key names one distinct view of a game version: everyone with the same
// key sees the same bytes.
type Key struct {
	// Seat is the viewer's seat once the game has started, or
	// engine.Spectator.
	Seat int
	// Role matters before the start only: who may join, start, leave.
	Role Role
	// Code is the invite code a viewer of a private game holds, which the
	// board's links carry on ("" when the viewer is seated, or the game is
	// public).
	Code string
	Lang string
	// API: the JSON API's line rather than the page's board.
	API bool
	// From is, for an API line, the version after which its events start
	// (-1: the recent events, as a read of the game answers).
	From int
	// Opening: with From 0, the events of the start (before the first
	// decision, which makes version 1) come too. The table before the
	// start and the first position are both version 0, so a line after
	// one drawn before the start, or a client resuming from version 0,
	// needs them; a line after one drawn at the first position does not.
	Opening bool
}

// Role is a viewer's part at an open table.
type Role int

// Roles at an open table.
const (
	Visitor Role = iota // not logged in
	Member              // logged in, not seated
	Seated              // seated, not the creator
	Creator             // created the game
)

// KeyFor says which view of a state a viewer gets.
func KeyFor(st *games.State, v Viewer) Key {
	seat, seated := st.SeatOf(v.UserID)
	k := Key{Seat: seat, Lang: v.Lang, API: v.API}
	if v.API {
		k.Lang = ""
	}
	if !seated && !st.Game.Public {
		k.Code = v.Code
	}
	if st.Game.Status != db.StatusOpen {
		if !seated {
			k.Seat = engine.Spectator
		}
		return k
	}
	switch {
	case v.UserID != nil && *v.UserID == st.Game.CreatorID:
		k.Role = Creator
	case seated:
		k.Role = Seated
	case v.UserID != nil:
		k.Role = Member
	}
	return k
}

// Renderer draws what the streams send; the handlers provide it.
type Renderer interface {
	// Board is the HTML of a game's board in one view.
	Board(ctx context.Context, st *games.State, k Key) ([]byte, error)
	// Watchers is the HTML of the watcher count in a language.
	Watchers(ctx context.Context, n int, lang string) ([]byte, error)
	// Chat is the HTML of a game's chat messages in one channel.
	Chat(ctx context.Context, gameID int64, l chat.Log, k ChatKey) ([]byte, error)
	// GameLine is the API's line of JSON for a game in one view (k.API),
	// ending in a newline.
	GameLine(ctx context.Context, st *games.State, k Key) ([]byte, error)
	// ChatLine is the API's line of JSON for a chat message, ending in a
	// newline; a hidden message's text only for a moderator.
	ChatLine(m db.ChatMessage, moderator bool) ([]byte, error)
}

// ChatKey names one distinct view of a game's chat.
type ChatKey struct {
	Channel string
	Lang    string
	// Code is the invite code the report links carry (private games).
	Code string
	// Moderator: the moderators' view, with hidden messages (and their
	// text) marked as hidden; nobody else's view carries their text.
	Moderator bool
}

// ChatKeyFor says which chat a viewer of a state reads; its links carry
// the same invite code as the viewer's board.
func ChatKeyFor(st *games.State, v Viewer) ChatKey {
	return ChatKey{Channel: chat.ChannelOf(st, v.UserID), Lang: v.Lang, Code: KeyFor(st, v).Code, Moderator: v.Moderator}
}

// ChatLoader reads a game's chat (one database read).
type ChatLoader func(ctx context.Context, gameID int64) (chat.Log, error)

// Loader reads a game as of its current version (one database read).
type Loader func(ctx context.Context, gameID int64) (*games.State, error)

// PresenceStore keeps who watches which game, across instances.
type PresenceStore interface {
	SavePresence(ctx context.Context, instance string, rows []db.Presence, at time.Time) error
	WatchedGames(ctx context.Context, gameIDs []int64, since time.Time) (map[int64]db.Watched, error)
}

// MaxLoads is how many changed games a hub reads at once.
const MaxLoads = 2

// Frame is one server-sent event, ready to write.
type Frame struct {
	// Kind is the event's name (board, watchers).
	Kind string
	Data []byte
	// Digest identifies a board's content, so that a stream does not send
	// the board its page already shows.
	Digest string
}

// MaxPending is how many events may wait for a stream's client; a client
// that falls that far behind is dropped (boards replace each other, so only
// other events pile up).
const MaxPending = 32

// queue holds the frames waiting for one stream's client.
type queue struct {
	// Wake is signalled when frames wait.
	Wake    chan struct{}
	mu      sync.Mutex
	pending []Frame
	dropped bool
}

// Take returns the frames waiting for the stream, oldest first, and
// whether the stream was dropped for falling behind.
func (q *queue) Take() ([]Frame, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.pending
	q.pending = nil
	return out, q.dropped
}

// deliver queues a frame. A frame of a kind that replaces the last one
// (a board, a count, a chat, a tournament's standings) makes one of its
// kind not yet written moot; a client that falls MaxPending frames behind
// is dropped.
func (q *queue) deliver(f Frame) {
	q.mu.Lock()
	// An API line carries the events since the line before it, so none
	// may replace another.
	if f.Kind != "turn" && f.Kind != "notice" && f.Kind != KindGameLine && f.Kind != KindChatLine {
		for i := range q.pending {
			if q.pending[i].Kind == f.Kind {
				q.pending = append(q.pending[:i], q.pending[i+1:]...)
				break
			}
		}
	}
	if len(q.pending) >= MaxPending {
		q.dropped = true
		q.pending = nil
	} else {
		q.pending = append(q.pending, f)
	}
	q.mu.Unlock()
	select {
	case q.Wake <- struct{}{}:
	default:
	}
}

// The kinds of an API stream's frames: a game's line, and chat lines.
const (
	KindGameLine = "game"
	KindChatLine = "chat-line"
)

// Sub is one open stream.
type Sub struct {
	queue
	viewer Viewer
	room   *room
	// chatKey is the chat view last sent (zero: none yet).
	chatKey ChatKey
	// sent is, for an API stream, the version of the last line handed to
	// it (-1: none yet); the next line's events start after it. sentState
	// is the state that line was drawn from.
	sent      int
	sentState *games.State
	// chatMu orders an API stream's chat lines; chatSent holds the
	// messages sent to it, each with whether it was hidden then.
	// chatChannel is the channel it reads.
	chatMu      sync.Mutex
	chatSent    map[int64]bool
	chatChannel string
}

// room is one watched game in this instance.
type room struct {
	id   int64
	mu   sync.Mutex
	subs map[*Sub]struct{}
	// state is the game as last loaded, with the frames drawn from it.
	state  *games.State
	frames map[Key]Frame
	ready  chan struct{} // closed once the first load is done
	err    error         // the first load's error
	// loading and again coalesce changes that come during a load.
	loading, again bool
	watchers       int
	// drawing is held while a view is drawn, so that streams asking for the
	// same view at once share one drawing.
	drawing sync.Mutex
	// chat is the game's chat as last read (nil: not read yet), with the
	// frames drawn from it; chatLoading and chatAgain coalesce changes.
	chat                   *chat.Log
	chatFrames             map[ChatKey]Frame
	chatLoading, chatAgain bool
	// chatLines are the API's lines drawn from chat, each once.
	chatLines map[chatLineKey][]byte
}

// chatLineKey names one API line of a chat message.
type chatLineKey struct {
	ID        int64
	Moderator bool
}

// Hub holds the rooms of this instance.
type Hub struct {
	load     Loader
	loadChat ChatLoader
	render   Renderer
	presence PresenceStore
	clock    clock.Clock
	log      *slog.Logger
	// Instance names this process in the presence table.
	Instance string

	mu    sync.Mutex
	rooms map[int64]*room
	done  chan struct{}
	once  sync.Once
	// loading bounds the reads of changed games under way at once, so
	// that many games changing together cannot take the pool from requests.
	loading chan struct{}

	loads, renders atomic.Int64
	streams        atomic.Int64
}

// New returns a hub. The renderer is set with SetRenderer before use.
func New(load Loader, presence PresenceStore, clk clock.Clock, log *slog.Logger) *Hub {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Hub{load: load, presence: presence, clock: clk, log: log, Instance: hex.EncodeToString(b),
		rooms: map[int64]*room{}, done: make(chan struct{}), loading: make(chan struct{}, MaxLoads)}
}

// SetRenderer gives the hub its renderer (the handlers make it).
func (h *Hub) SetRenderer(r Renderer) { h.render = r }

// SetChat makes the streams carry the games' chat, read with load.
func (h *Hub) SetChat(load ChatLoader) { h.loadChat = load }

// Stats counts the hub's work since it started, for tests and metrics.
type Stats struct {
	Loads, Renders, Streams int64
}

// Stats returns the counters.
func (h *Hub) Stats() Stats {
	return Stats{Loads: h.loads.Load(), Renders: h.renders.Load(), Streams: h.streams.Load()}
}

// ErrClosed is returned to streams opened after the hub closed.
var ErrClosed = errors.New("watch: closed")

// Subscribe opens a stream on a game for a viewer and returns it with the
// board to send first. A viewer who may not see the game gets the games
// package's not-found error.
func (h *Hub) Subscribe(ctx context.Context, gameID int64, v Viewer) (*Sub, Frame, error) {
	select {
	case <-h.done:
		return nil, Frame{}, ErrClosed
	default:
	}
	h.mu.Lock()
	r := h.rooms[gameID]
	fresh := r == nil
	if fresh {
		r = &room{id: gameID, subs: map[*Sub]struct{}{}, ready: make(chan struct{})}
		h.rooms[gameID] = r
	}
	sub := &Sub{queue: queue{Wake: make(chan struct{}, 1)}, viewer: v, room: r, sent: -1}
	// Counted in at once, so that the room outlives its first load.
	r.mu.Lock()
	r.subs[sub] = struct{}{}
	r.mu.Unlock()
	h.mu.Unlock()
	h.streams.Add(1)
	if fresh {
		h.loading <- struct{}{}
		st, err := h.load(ctx, gameID)
		<-h.loading
		h.loads.Add(1)
		r.mu.Lock()
		r.state, r.err, r.frames = st, err, map[Key]Frame{}
		r.mu.Unlock()
		close(r.ready)
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		h.Unsubscribe(sub)
		return nil, Frame{}, ctx.Err()
	}
	r.mu.Lock()
	st, err := r.state, r.err
	r.mu.Unlock()
	if err == nil && !st.CanSee(v.UserID, v.Code) {
		err = games.ErrNoGame
	}
	if err != nil {
		h.Unsubscribe(sub)
		return nil, Frame{}, err
	}
	if v.API {
		return h.subscribeAPI(ctx, r, st, sub)
	}
	f, err := h.frameFor(ctx, r, st, sub)
	if err != nil {
		h.Unsubscribe(sub)
		return nil, Frame{}, err
	}
	if h.loadChat != nil {
		// The chat follows as the stream's first event after the board:
		// at once when it is read already, else once it is.
		r.mu.Lock()
		loaded := r.chat != nil
		r.mu.Unlock()
		if loaded {
			h.sendChat(ctx, r, st, sub)
		} else {
			h.refreshChat(r)
		}
	}
	return sub, f, nil
}

// subscribeAPI gives an API stream its first line: the whole view, or
// the events since the version it resumes after. A version the hub has
// not read yet (another instance served it) gets the whole view.
func (h *Hub) subscribeAPI(ctx context.Context, r *room, st *games.State, sub *Sub) (*Sub, Frame, error) {
	k := KeyFor(st, sub.viewer)
	k.From = sub.viewer.Since
	if k.From > st.Game.Version {
		k.From = -1
	}
	k.Opening = k.From == 0
	f, err := h.lineFor(ctx, r, st, k)
	if err != nil {
		h.Unsubscribe(sub)
		return nil, Frame{}, err
	}
	sub.mu.Lock()
	sub.sent, sub.sentState = st.Game.Version, st
	sub.mu.Unlock()
	// A reload that ran between the read above and now passed this
	// stream by (it had no line yet): read the game once more.
	r.mu.Lock()
	moved := r.state != st
	r.mu.Unlock()
	if moved {
		h.refresh(r)
	}
	if h.loadChat != nil {
		// The chat's lines follow the first line: at once when the chat
		// is read already, else once it is.
		r.mu.Lock()
		loaded := r.chat != nil
		r.mu.Unlock()
		if loaded {
			h.sendChatLines(r, st, sub)
		} else {
			h.refreshChat(r)
		}
	}
	return sub, f, nil
}

// lineFor returns an API line of st in view k, drawn once per view, state
// and starting version.
func (h *Hub) lineFor(ctx context.Context, r *room, st *games.State, k Key) (Frame, error) {
	return h.drawOnce(r, st, k, func() (Frame, error) {
		line, err := h.render.GameLine(ctx, st, k)
		if err != nil {
			return Frame{}, err
		}
		return Frame{Kind: KindGameLine, Data: line, Digest: views.BoardDigest(line)}, nil
	})
}

// sendLine hands an API stream the line of a newer state, with the events
// since the last line it was handed.
func (h *Hub) sendLine(ctx context.Context, r *room, st *games.State, s *Sub) error {
	s.mu.Lock()
	from, prev := s.sent, s.sentState
	s.mu.Unlock()
	if from < 0 {
		return nil // its first line is still being drawn
	}
	if st.Game.Version == from && sameRows(prev, st) {
		return nil // the same game read again (a late or doubled notice)
	}
	k := KeyFor(st, s.viewer)
	k.From = from
	k.Opening = from == 0 && (prev == nil || prev.Game.Status == db.StatusOpen)
	f, err := h.lineFor(ctx, r, st, k)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.sent, s.sentState = st.Game.Version, st
	s.mu.Unlock()
	s.deliver(f)
	return nil
}

// sameRows reports whether two reads of a game found the same rows: the
// game's and its seats'. A line drawn from b would then say nothing that
// the one drawn from a did not. (Compared as JSON: the times of two reads
// are equal instants but not equal values.)
func sameRows(a, b *games.State) bool {
	if a == nil || b == nil {
		return false
	}
	if a == b {
		return true
	}
	type rows struct {
		G db.Game
		S []db.Seat
	}
	ja, errA := json.Marshal(rows{a.Game, a.Seats})
	jb, errB := json.Marshal(rows{b.Game, b.Seats})
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// sendChat gives a stream the chat view it reads of the room's chat,
// drawing each view once per read.
func (h *Hub) sendChat(ctx context.Context, r *room, st *games.State, s *Sub) {
	k := ChatKeyFor(st, s.viewer)
	r.mu.Lock()
	l := r.chat
	f, ok := r.chatFrames[k]
	r.mu.Unlock()
	if l == nil {
		return
	}
	if !ok {
		html, err := h.render.Chat(ctx, r.id, *l, k)
		if err != nil {
			h.log.Warn("watch: render chat", "game", r.id, "err", err)
			return
		}
		h.renders.Add(1)
		f = Frame{Kind: "chat", Data: EventBytes("chat", html)}
		r.mu.Lock()
		if r.chat == l {
			r.chatFrames[k] = f
		}
		r.mu.Unlock()
	}
	s.mu.Lock()
	s.chatKey = k
	s.mu.Unlock()
	s.deliver(f)
}

// ChatChanged tells the hub that a game's chat changed: if anyone here
// watches the game, the chat is read once and every stream gets its view.
func (h *Hub) ChatChanged(gameID int64) {
	h.mu.Lock()
	r := h.rooms[gameID]
	h.mu.Unlock()
	if r != nil && h.loadChat != nil {
		h.refreshChat(r)
	}
}

// refreshChat reads a room's chat again in the background, coalescing
// changes that come meanwhile into one more read.
func (h *Hub) refreshChat(r *room) {
	r.coalesce(&r.chatLoading, &r.chatAgain, func() { h.reloadChat(r) })
}

func (h *Hub) reloadChat(r *room) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.loading <- struct{}{}
	l, err := h.loadChat(ctx, r.id)
	<-h.loading
	if err != nil {
		h.log.Warn("watch: read chat", "game", r.id, "err", err)
		return
	}
	r.mu.Lock()
	r.chat, r.chatFrames, r.chatLines = &l, map[ChatKey]Frame{}, map[chatLineKey][]byte{}
	st := r.state
	subs := make([]*Sub, 0, len(r.subs))
	for s := range r.subs {
		subs = append(subs, s)
	}
	r.mu.Unlock()
	if st == nil {
		return
	}
	for _, s := range subs {
		if !st.CanSee(s.viewer.UserID, s.viewer.Code) {
			continue
		}
		if s.viewer.API {
			h.sendChatLines(r, st, s)
		} else {
			h.sendChat(ctx, r, st, s)
		}
	}
}

// sendChatLines hands an API stream, in one frame, a line for each message
// of the chat it reads that it was not sent yet, and again for each
// hidden (or shown again) since it was sent. Each line is drawn once per
// read of the chat, however many streams.
func (h *Hub) sendChatLines(r *room, st *games.State, s *Sub) {
	// Held while the room's chat is taken and sent, so that the lines of
	// two reads reach the stream in the order of the reads.
	s.chatMu.Lock()
	defer s.chatMu.Unlock()
	r.mu.Lock()
	l, lines := r.chat, r.chatLines
	r.mu.Unlock()
	if l == nil {
		return
	}
	if s.chatSent == nil {
		s.chatSent = map[int64]bool{}
	}
	var data []byte
	s.chatChannel = chat.ChannelOf(st, s.viewer.UserID)
	for _, m := range l.Channel(s.chatChannel) {
		hidden := m.HiddenAt != nil
		if was, ok := s.chatSent[m.ID]; ok && was == hidden {
			continue
		}
		k := chatLineKey{ID: m.ID, Moderator: s.viewer.Moderator}
		r.mu.Lock()
		line, ok := lines[k]
		r.mu.Unlock()
		if !ok {
			var err error
			if line, err = h.render.ChatLine(m, s.viewer.Moderator); err != nil {
				h.log.Warn("watch: render chat line", "game", r.id, "err", err)
				return
			}
			h.renders.Add(1)
			r.mu.Lock()
			lines[k] = line
			r.mu.Unlock()
		}
		s.chatSent[m.ID] = hidden
		data = append(data, line...)
	}
	if len(data) > 0 {
		s.deliver(Frame{Kind: KindChatLine, Data: data})
	}
}

// Unsubscribe closes a stream; the last one out closes its room.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := s.room
	r.mu.Lock()
	if _, ok := r.subs[s]; ok {
		delete(r.subs, s)
		h.streams.Add(-1)
	}
	empty := len(r.subs) == 0
	r.mu.Unlock()
	if empty && h.rooms[r.id] == r {
		delete(h.rooms, r.id)
	}
}

// frameFor returns the board frame a stream shows of st, drawing it once
// per view and state.
func (h *Hub) frameFor(ctx context.Context, r *room, st *games.State, s *Sub) (Frame, error) {
	k := KeyFor(st, s.viewer)
	return h.drawOnce(r, st, k, func() (Frame, error) {
		html, err := h.render.Board(ctx, st, k)
		if err != nil {
			return Frame{}, err
		}
		return Frame{Kind: "board", Data: EventBytes("board", html), Digest: views.BoardDigest(html)}, nil
	})
}

// drawOnce returns the frame of view k of st, drawing it with draw once
// per view and state, however many streams ask at once.
func (h *Hub) drawOnce(r *room, st *games.State, k Key, draw func() (Frame, error)) (Frame, error) {
	lookup := func() (Frame, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.state != st {
			return Frame{}, false
		}
		f, ok := r.frames[k]
		return f, ok
	}
	if f, ok := lookup(); ok {
		return f, nil
	}
	r.drawing.Lock()
	defer r.drawing.Unlock()
	if f, ok := lookup(); ok {
		return f, nil // drawn while this stream waited
	}
	f, err := draw()
	if err != nil {
		return Frame{}, err
	}
	h.renders.Add(1)
	r.mu.Lock()
	if r.state == st {
		r.frames[k] = f
	}
	r.mu.Unlock()
	return f, nil
}

// Changed tells the hub that a game changed: if anyone here watches it, it
// is read once and every stream gets its view.
func (h *Hub) Changed(gameID int64) {
	h.mu.Lock()
	r := h.rooms[gameID]
	h.mu.Unlock()
	if r != nil {
		h.refresh(r)
	}
}

// ChangedAll refreshes every room (after the LISTEN connection was lost,
// when changes may have been missed).
func (h *Hub) ChangedAll() {
	h.mu.Lock()
	rooms := make([]*room, 0, len(h.rooms))
	for _, r := range h.rooms {
		rooms = append(rooms, r)
	}
	h.mu.Unlock()
	for _, r := range rooms {
		h.refresh(r)
		if h.loadChat != nil {
			h.refreshChat(r)
		}
	}
}

// refresh reloads a room in the background; changes that come while it
// loads make one more load after it, never one each.
func (h *Hub) refresh(r *room) { r.coalesce(&r.loading, &r.again, func() { h.reload(r) }) }

// coalesce runs load in the background once the room's first read is
// done; calls while it runs (loading set) make one more run after it
// (again), never one each.
func (r *room) coalesce(loading, again *bool, load func()) {
	r.mu.Lock()
	if *loading {
		*again = true
		r.mu.Unlock()
		return
	}
	*loading = true
	r.mu.Unlock()
	go func() {
		for {
			<-r.ready
			load()
			r.mu.Lock()
			if !*again {
				*loading = false
				r.mu.Unlock()
				return
			}
			*again = false
			r.mu.Unlock()
		}
	}()
}

func (h *Hub) reload(r *room) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.loading <- struct{}{}
	st, err := h.load(ctx, r.id)
	<-h.loading
	h.loads.Add(1)
	if err != nil {
		h.log.Warn("watch: reload game", "game", r.id, "err", err)
		return
	}
	r.mu.Lock()
	if old := r.state; old != nil && old.Game.Version > st.Game.Version {
		r.mu.Unlock()
		return // an older read finishing late
	}
	r.state, r.frames = st, map[Key]Frame{}
	subs := make([]*Sub, 0, len(r.subs))
	for s := range r.subs {
		subs = append(subs, s)
	}
	r.mu.Unlock()
	for _, s := range subs {
		if !st.CanSee(s.viewer.UserID, s.viewer.Code) {
			continue
		}
		if s.viewer.API {
			if err := h.sendLine(ctx, r, st, s); err != nil {
				h.log.Warn("watch: render game line", "game", r.id, "err", err)
				return
			}
			// Someone who took a seat now reads the players' chat.
			s.chatMu.Lock()
			moved := s.chatSent != nil && s.chatChannel != chat.ChannelOf(st, s.viewer.UserID)
			s.chatMu.Unlock()
			if moved {
				h.sendChatLines(r, st, s)
			}
			continue
		}
		f, err := h.frameFor(ctx, r, st, s)
		if err != nil {
			h.log.Warn("watch: render board", "game", r.id, "err", err)
			return
		}
		s.deliver(f)
		// Someone who took a seat now reads the players' chat.
		s.mu.Lock()
		moved := s.chatKey != (ChatKey{}) && s.chatKey != ChatKeyFor(st, s.viewer)
		s.mu.Unlock()
		if moved {
			h.sendChat(ctx, r, st, s)
		}
	}
}

// Watchers is the last known number of people watching a game.
func (h *Hub) Watchers(gameID int64) int {
	h.mu.Lock()
	r := h.rooms[gameID]
	h.mu.Unlock()
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.watchers
}

// Flush writes this instance's streams to the presence table in one
// statement, reads back how many watch each of its games across every
// instance, and sends the new counts to the streams. A game or a chat
// found further on than its room is read again (its notification was
// lost).
func (h *Hub) Flush(ctx context.Context) error {
	now := h.clock.Now()
	type counted struct {
		r    *room
		subs []*Sub
	}
	var rows []db.Presence
	var ids []int64
	var rooms []counted
	h.mu.Lock()
	for id, r := range h.rooms {
		r.mu.Lock()
		per := map[int64]int{}
		subs := make([]*Sub, 0, len(r.subs))
		for s := range r.subs {
			var u int64
			if s.viewer.UserID != nil {
				u = *s.viewer.UserID
			}
			per[u]++
			subs = append(subs, s)
		}
		r.mu.Unlock()
		for u, n := range per {
			rows = append(rows, db.Presence{GameID: id, UserID: u, Streams: n})
		}
		ids = append(ids, id)
		rooms = append(rooms, counted{r, subs})
	}
	h.mu.Unlock()
	if err := h.presence.SavePresence(ctx, h.Instance, rows, now); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	watched, err := h.presence.WatchedGames(ctx, ids, now.Add(-games.WatchWindow))
	if err != nil {
		return err
	}
	frames := map[string]Frame{}
	for _, c := range rooms {
		w := watched[c.r.id]
		c.r.mu.Lock()
		changed := w.Watchers != c.r.watchers
		c.r.watchers = w.Watchers
		// A change whose notification was lost shows here: read it now.
		st := c.r.state
		behind := st != nil && (st.Game.Version != w.Version || st.Game.Status != w.Status || len(st.Seats) != w.Taken)
		chatBehind := c.r.chat != nil && c.r.chat.Mark != w.ChatMark
		c.r.mu.Unlock()
		if behind {
			h.refresh(c.r)
		}
		if chatBehind && h.loadChat != nil {
			h.refreshChat(c.r)
		}
		if !changed {
			continue
		}
		for _, s := range c.subs {
			if s.viewer.API {
				continue
			}
			key := s.viewer.Lang + "\x00" + strconv.Itoa(w.Watchers)
			f, ok := frames[key]
			if !ok {
				html, err := h.render.Watchers(ctx, w.Watchers, s.viewer.Lang)
				if err != nil {
					return err
				}
				f = Frame{Kind: "watchers", Data: EventBytes("watchers", html)}
				frames[key] = f
			}
			s.deliver(f)
		}
	}
	return nil
}

// Run flushes presence every interval until ctx ends, then removes this
// instance's rows.
func (h *Hub) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := h.presence.SavePresence(ctx, h.Instance, nil, h.clock.Now()); err != nil {
				h.log.Warn("watch: clear presence", "err", err)
			}
			return
		case <-t.C:
		}
		if err := h.Flush(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("watch: flush presence", "err", err)
		}
	}
}

// Close tells every stream to end (at server shutdown).
func (h *Hub) Close() { h.once.Do(func() { close(h.done) }) }

// Done is closed when the hub closes.
func (h *Hub) Done() <-chan struct{} { return h.done }

// EventBytes formats one server-sent event: every line of data gets its own
// "data:" field, as the format requires.
func EventBytes(event string, data []byte) []byte {
	var b strings.Builder
	b.Grow(len(data) + len(event) + 32)
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteByte('\n')
	for _, line := range strings.Split(string(data), "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return []byte(b.String())
}
