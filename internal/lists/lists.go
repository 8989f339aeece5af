// Package lists tells the pages that show the site's lists of games (the
// open tables, the games to watch) that a list changed, so that they read
// it again at once instead of asking every few seconds. Every instance
// hears of a change through one Postgres notification (db.ListsChannel,
// sent by the transaction that opens, fills, starts, cancels or ends a
// table) and hands it to the streams its pages hold: a member's turn
// stream, or a visitor's list stream. Changes that come close together are
// told once, so that a busy site does not make every open list page read
// its list many times a second.
//
// It imports nothing of the site's: the payload is the list's name.
package lists

import (
	"slices"
	"sync"
	"time"
)

// The lists.
const (
	Open        = "open"        // tables waiting for players
	Live        = "live"        // games in play, to watch
	Tournaments = "tournaments" // events upcoming, running and finished
)

// Every is the least time between two tellings of a list's change.
const Every = time.Second

// Valid reports whether name is one of the lists.
func Valid(name string) bool { return name == Open || name == Live || name == Tournaments }

// Sub is one page's subscription. C holds the lists changed since the page
// last read it (at most one pending telling).
type Sub struct {
	C     chan []string
	kinds []string
}

// Hub is one instance's subscriptions.
type Hub struct {
	mu      sync.Mutex
	subs    map[*Sub]struct{}
	pending map[string]bool
	timer   *time.Timer
}

// New makes a hub.
func New() *Hub {
	return &Hub{subs: map[*Sub]struct{}{}, pending: map[string]bool{}}
}

// Subscribe opens a subscription to some lists (unknown names are left
// out); it returns nil when none is left.
func (h *Hub) Subscribe(kinds []string) *Sub {
	var ks []string
	for _, k := range kinds {
		if Valid(k) && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	s := &Sub{C: make(chan []string, 1), kinds: ks}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Unsubscribe closes a subscription.
func (h *Hub) Unsubscribe(s *Sub) {
	if s == nil {
		return
	}
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// Open counts the subscriptions.
func (h *Hub) Open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Changed takes a notification (the list's name) and tells the
// subscribers of that list within Every, once however many came.
func (h *Hub) Changed(kind string) {
	if !Valid(kind) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending[kind] = true
	if h.timer == nil {
		h.timer = time.AfterFunc(Every, h.flush)
	}
}

// ChangedAll tells every subscriber that every list may have changed
// (after the listener reconnects: notifications may have been lost).
func (h *Hub) ChangedAll() {
	h.Changed(Open)
	h.Changed(Live)
	h.Changed(Tournaments)
}

func (h *Hub) flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.timer = nil
	changed := h.pending
	h.pending = map[string]bool{}
	for s := range h.subs {
		var news []string
		for _, k := range s.kinds {
			if changed[k] {
				news = append(news, k)
			}
		}
		if len(news) == 0 {
			continue
		}
		select {
		case old := <-s.C: // not read yet: tell both
			for _, k := range old {
				if !slices.Contains(news, k) {
					news = append(news, k)
				}
			}
		default:
		}
		s.C <- news
	}
}
