// Package turns keeps, for every logged-in person with a page open on this
// instance, which games wait for their decision and how many invitations
// wait for their answer, and tells their pages when that changes: the live
// "My games" badge, the "(Your turn)" title, the
// favicon mark, the sound and the browser notification all come from here.
//
// One stream per person (not per game) is fed from the game-change
// notifications every instance already listens to: their payload names who
// is to move next ("id:version:user"), so a move costs no database work
// here. A person's games are read once when their first page connects, and
// again for everybody after the listener reconnects and every Resync period,
// which catches a notification lost between a commit and its send (and an
// invitation that expired or whose table started). Invitations have their
// own notification, naming the invitee; it costs one read when they have a
// page open here.
package turns

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"nothanks/internal/db"
)

// Store is what the hub reads: the games waiting for each of some people,
// and the invitations waiting for their answer.
type Store interface {
	TurnGames(ctx context.Context, userIDs []int64) ([]db.TurnGame, error)
	InviteCounts(ctx context.Context, userIDs []int64, now time.Time) (map[int64]int, error)
}

// Update is what a person's pages are told: how many games wait for their
// decision, and which (oldest first by game number), and how many
// invitations wait for their answer.
type Update struct {
	MyTurn  int     `json:"my_turn"`
	Games   []int64 `json:"games"`
	Invites int     `json:"invites"`
	// Versions is the version at which each game came to wait for them
	// (for the API's event stream: a new version is a new decision, as
	// after taking a card the same player decides again).
	Versions map[int64]int `json:"-"`
}

// Sub is one open page's subscription. C holds at most the latest update:
// a page that is slow to read misses only stale ones. N holds the notices
// not read yet (the oldest give way to newer ones).
type Sub struct {
	C      chan Update
	N      chan Notice
	userID int64
	// api: an API event stream, told every notice and every new version
	// of a game waiting for them; a page is told only the notices it
	// shows (PageNotices) and only when the games waiting change.
	api     bool
	dropped chan struct{}
	once    sync.Once
}

// Dropped is closed when an API stream fell too far behind to be told
// every notice (never for a page's).
func (s *Sub) Dropped() <-chan struct{} { return s.dropped }

func (s *Sub) drop() { s.once.Do(func() { close(s.dropped) }) }

// Notice is something a person's pages are told once, as it happens: a
// tournament they play starts, their table in one is ready.
type Notice struct {
	Kind       string `json:"kind"`
	Tournament int64  `json:"tournament"`
	Game       int64  `json:"game,omitempty"`
	// ID is what the notice is about when it is neither (an invitation).
	ID int64 `json:"id,omitempty"`
}

// PageNotices are the kinds of notice the site's pages show (a
// tournament's); the others (a game starts or ends, an invitation, a
// rematch offer) go to API event streams only, the pages learning of
// those from their own streams.
var PageNotices = []string{"start", "table", "bye", "cancelled"}

// Notice applies a notice notification ("user:kind:tournament:game", and
// ":id" for some kinds): the person's streams open here are told.
func (h *Hub) Notice(payload string) {
	parts := strings.Split(payload, ":")
	if len(parts) != 4 && len(parts) != 5 {
		return
	}
	uid, err1 := strconv.ParseInt(parts[0], 10, 64)
	tid, err2 := strconv.ParseInt(parts[2], 10, 64)
	gid, err3 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	n := Notice{Kind: parts[1], Tournament: tid, Game: gid}
	if len(parts) == 5 {
		id, err := strconv.ParseInt(parts[4], 10, 64)
		if err != nil {
			return
		}
		n.ID = id
	}
	page := slices.Contains(PageNotices, n.Kind)
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.people[uid]
	if p == nil {
		return
	}
	for s := range p.subs {
		if !s.api && !page {
			continue
		}
		for {
			select {
			case s.N <- n:
			default:
				if s.api {
					s.drop()
					break
				}
				select {
				case <-s.N: // the oldest gives way
				default:
				}
				continue
			}
			break
		}
	}
}

type person struct {
	games map[int64]int // game → version it came to them
	// gone holds the version at which a game left them, so that a late
	// notification of an older version does not bring it back.
	gone map[int64]int
	subs map[*Sub]struct{}
	// invites counts the invitations waiting for their answer.
	invites int
}

// Hub is one instance's set of people with pages open.
type Hub struct {
	store Store
	now   func() time.Time
	log   *slog.Logger

	mu     sync.Mutex
	people map[int64]*person
	byGame map[int64]map[int64]struct{} // game → people it waits for
}

// New makes a hub; now is the clock invitations expire by.
func New(store Store, now func() time.Time, log *slog.Logger) *Hub {
	return &Hub{store: store, now: now, log: log, people: map[int64]*person{}, byGame: map[int64]map[int64]struct{}{}}
}

// Subscribe opens a page's subscription and returns it with the person's
// current update.
func (h *Hub) Subscribe(ctx context.Context, userID int64) (*Sub, Update, error) {
	return h.subscribe(ctx, &Sub{C: make(chan Update, 1), N: make(chan Notice, 4), userID: userID})
}

// MaxAPINotices is how many notices an API event stream may have waiting;
// a stream that falls further behind is dropped (Sub.Dropped) rather than
// losing one, and its client reconnects.
const MaxAPINotices = 64

// SubscribeAPI opens an API event stream's subscription: every notice,
// and an update at every new version of a game waiting for the person.
func (h *Hub) SubscribeAPI(ctx context.Context, userID int64) (*Sub, Update, error) {
	return h.subscribe(ctx, &Sub{C: make(chan Update, 1), N: make(chan Notice, MaxAPINotices), userID: userID, api: true, dropped: make(chan struct{})})
}

func (h *Hub) subscribe(ctx context.Context, s *Sub) (*Sub, Update, error) {
	userID := s.userID
	h.mu.Lock()
	p := h.people[userID]
	fresh := p == nil
	if fresh {
		p = &person{games: map[int64]int{}, gone: map[int64]int{}, subs: map[*Sub]struct{}{}}
		h.people[userID] = p
	}
	p.subs[s] = struct{}{}
	h.mu.Unlock()
	if fresh {
		// Registered first, read second: a change in between is applied
		// on top of the read by its version.
		if err := h.load(ctx, []int64{userID}); err != nil {
			h.Unsubscribe(s)
			return nil, Update{}, err
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-s.C: // the read's own news: it is the first update below
	default:
	}
	return s, p.update(), nil
}

// Unsubscribe closes a page's subscription.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.people[s.userID]
	if p == nil {
		return
	}
	delete(p.subs, s)
	if len(p.subs) == 0 {
		for g := range p.games {
			h.unindex(g, s.userID)
		}
		delete(h.people, s.userID)
	}
}

// Open counts the people with a page subscribed on this instance.
func (h *Hub) Open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.people)
}

// Changed applies a game-change notification. A payload without a third
// part ("id:version") says nothing of turns and is ignored.
func (h *Hub) Changed(payload string) {
	parts := strings.Split(payload, ":")
	if len(parts) != 3 {
		return
	}
	game, err1 := strconv.ParseInt(parts[0], 10, 64)
	version, err2 := strconv.Atoi(parts[1])
	turn, err3 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// Whoever it waited for until now, it no longer does (unless it is
	// theirs again), provided this is news rather than a late notification.
	for uid := range h.byGame[game] {
		p := h.people[uid]
		if v, ok := p.games[game]; ok && v < version && uid != turn {
			delete(p.games, game)
			p.gone[game] = version
			h.unindex(game, uid)
			p.send()
		}
	}
	// (Version 0 is news too: a game that starts with their decision.)
	if p := h.people[turn]; p != nil && notGoneBy(p.gone, game, version) {
		if v, ok := p.games[game]; !ok || v < version {
			p.games[game] = version
			h.index(game, turn)
			if !ok {
				p.send()
			} else {
				p.sendAPI()
			}
		}
	}
}

// InvitesChanged applies an invitation notification (payload: the
// invitee's id): if they have a page open here, their invitations are read
// again and their pages told.
func (h *Hub) InvitesChanged(ctx context.Context, payload string) error {
	uid, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		return nil
	}
	h.mu.Lock()
	_, here := h.people[uid]
	h.mu.Unlock()
	if !here {
		return nil
	}
	counts, err := h.store.InviteCounts(ctx, []int64{uid}, h.now())
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.people[uid]; p != nil && p.invites != counts[uid] {
		p.invites = counts[uid]
		p.send()
	}
	return nil
}

// Resync reads again the games of everybody subscribed: after the listener
// reconnects (notifications may have been missed) and now and then.
func (h *Hub) Resync(ctx context.Context) error {
	h.mu.Lock()
	ids := make([]int64, 0, len(h.people))
	for id := range h.people {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		if err := h.load(ctx, ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// Run resyncs every period until ctx is done.
func (h *Hub) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := h.Resync(ctx); err != nil && ctx.Err() == nil {
				h.log.Warn("resync turns", "err", err)
			}
		}
	}
}

// load reads the games waiting for some people and makes them the truth,
// except where a notification newer than the read has already spoken.
func (h *Hub) load(ctx context.Context, ids []int64) error {
	rows, err := h.store.TurnGames(ctx, ids)
	if err != nil {
		return err
	}
	invites, err := h.store.InviteCounts(ctx, ids, h.now())
	if err != nil {
		return err
	}
	read := map[int64]map[int64]int{}
	for _, r := range rows {
		if read[r.UserID] == nil {
			read[r.UserID] = map[int64]int{}
		}
		read[r.UserID][r.GameID] = r.Version
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, uid := range ids {
		p := h.people[uid]
		if p == nil {
			continue
		}
		changed := p.invites != invites[uid]
		p.invites = invites[uid]
		clear(p.gone)
		for g, v := range read[uid] {
			if have, ok := p.games[g]; !ok || have < v {
				if !ok {
					changed = true
				}
				p.games[g] = v
				h.index(g, uid)
			}
		}
		// Not waiting for them in the read: gone. (A game that came to
		// them in the instant between the read and here is lost until the
		// next resync brings it back.)
		for g := range p.games {
			if _, ok := read[uid][g]; !ok {
				delete(p.games, g)
				h.unindex(g, uid)
				changed = true
			}
		}
		if changed {
			p.send()
		}
	}
	return nil
}

// notGoneBy reports whether a game had not left a person at a version
// (or later).
func notGoneBy(gone map[int64]int, game int64, version int) bool {
	v, ok := gone[game]
	return !ok || v < version
}

func (h *Hub) index(game, uid int64) {
	m := h.byGame[game]
	if m == nil {
		m = map[int64]struct{}{}
		h.byGame[game] = m
	}
	m[uid] = struct{}{}
}

func (h *Hub) unindex(game, uid int64) {
	if m := h.byGame[game]; m != nil {
		delete(m, uid)
		if len(m) == 0 {
			delete(h.byGame, game)
		}
	}
}

func (p *person) update() Update {
	u := Update{MyTurn: len(p.games), Games: make([]int64, 0, len(p.games)), Invites: p.invites, Versions: make(map[int64]int, len(p.games))}
	for g, v := range p.games {
		u.Games = append(u.Games, g)
		u.Versions[g] = v
	}
	slices.Sort(u.Games)
	return u
}

// send hands the person's pages the latest update, replacing one they have
// not read yet.
func (p *person) send() { p.sendTo(false) }

// sendAPI tells only the API streams: a game still waiting for them has a
// new version, which the pages' count does not show.
func (p *person) sendAPI() { p.sendTo(true) }

func (p *person) sendTo(apiOnly bool) {
	u := p.update()
	for s := range p.subs {
		if apiOnly && !s.api {
			continue
		}
		select {
		case <-s.C:
		default:
		}
		s.C <- u
	}
}
