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
}

// Sub is one open page's subscription. C holds at most the latest update:
// a page that is slow to read misses only stale ones. N holds the notices
// not read yet (the oldest give way to newer ones).
type Sub struct {
	C      chan Update
	N      chan Notice
	userID int64
}

// Notice is something a person's pages are told once, as it happens: a
// tournament they play starts, their table in one is ready.
type Notice struct {
	Kind       string `json:"kind"`
	Tournament int64  `json:"tournament"`
	Game       int64  `json:"game,omitempty"`
}

// Notice applies a notice notification ("user:kind:tournament:game"): the
// person's pages open here are told.
func (h *Hub) Notice(payload string) {
	parts := strings.Split(payload, ":")
	if len(parts) != 4 {
		return
	}
	uid, err1 := strconv.ParseInt(parts[0], 10, 64)
	tid, err2 := strconv.ParseInt(parts[2], 10, 64)
	gid, err3 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return
	}
	n := Notice{Kind: parts[1], Tournament: tid, Game: gid}
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.people[uid]
	if p == nil {
		return
	}
	for s := range p.subs {
		for {
			select {
			case s.N <- n:
			default:
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
	s := &Sub{C: make(chan Update, 1), N: make(chan Notice, 4), userID: userID}
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
	if p := h.people[turn]; p != nil && p.gone[game] < version {
		if v, ok := p.games[game]; !ok || v < version {
			p.games[game] = version
			h.index(game, turn)
			if !ok {
				p.send()
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
	u := Update{MyTurn: len(p.games), Games: make([]int64, 0, len(p.games)), Invites: p.invites}
	for g := range p.games {
		u.Games = append(u.Games, g)
	}
	slices.Sort(u.Games)
	return u
}

// send hands the person's pages the latest update, replacing one they have
// not read yet.
func (p *person) send() {
	u := p.update()
	for s := range p.subs {
		select {
		case <-s.C:
		default:
		}
		s.C <- u
	}
}
