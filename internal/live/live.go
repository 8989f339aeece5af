// Package live holds this process's one Postgres LISTEN connection. Every
// instance hears every instance's NOTIFY (payloads carry ids and times,
// never game state) and hands each notification to the handler of its
// channel: the game streams, the due-move worker, and so on. Handlers run
// on the listener's goroutine and must not block.
package live

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"
)

// Handlers maps a channel to what is done with its payloads.
type Handlers map[string]func(payload string)

// Listen holds the LISTEN connection on every channel of h until ctx ends.
// lib/pq reconnects by itself; after a reconnect it delivers a nil
// notification, since some may have been lost, and onReconnect runs so
// that everyone can catch up.
func Listen(ctx context.Context, dbURL string, h Handlers, onReconnect func(), log *slog.Logger) error {
	l := pq.NewListener(dbURL, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			log.Warn("listener", "event", ev, "err", err)
		}
	})
	defer l.Close()
	for ch := range h {
		if err := l.Listen(ch); err != nil {
			return err
		}
	}
	ping := time.NewTicker(60 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-l.Notify:
			if n == nil {
				log.Info("listener reconnected: everyone catches up")
				onReconnect()
				continue
			}
			if f := h[n.Channel]; f != nil {
				f(n.Extra)
			}
		case <-ping.C:
			go func() {
				if err := l.Ping(); err != nil {
					log.Warn("listener ping", "err", err)
				}
			}()
		}
	}
}

// GameID reads the game id of a "gameID:version" payload.
func GameID(payload string) (int64, bool) {
	id, _, _ := strings.Cut(payload, ":")
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Waker wakes a worker at the earliest of the times it is told, without
// any database work: a notification that names a later time than the one
// planned changes nothing.
type Waker struct {
	c    chan struct{}
	next chan time.Time
}

// NewWaker returns a waker.
func NewWaker() *Waker {
	return &Waker{c: make(chan struct{}, 1), next: make(chan time.Time, 64)}
}

// At asks to be woken at t (a Unix-millisecond payload, or a time).
func (w *Waker) At(t time.Time) {
	select {
	case w.next <- t:
	default:
		w.Now() // too many at once: just look
	}
}

// AtPayload reads a Unix-millisecond payload and asks to be woken then.
func (w *Waker) AtPayload(payload string) {
	ms, err := strconv.ParseInt(payload, 10, 64)
	if err != nil {
		w.Now()
		return
	}
	w.At(time.UnixMilli(ms))
}

// Now wakes the worker at once.
func (w *Waker) Now() {
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// Wait blocks until the planned time (at most max from now), an earlier
// time told meanwhile, a wake-up, or the end of ctx.
func (w *Waker) Wait(ctx context.Context, planned time.Time, max time.Duration, now func() time.Time) {
	if limit := now().Add(max); planned.IsZero() || planned.After(limit) {
		planned = limit
	}
	for {
		d := planned.Sub(now())
		if d <= 0 {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-w.c:
			t.Stop()
			return
		case at := <-w.next:
			t.Stop()
			if at.Before(planned) {
				planned = at
			}
		case <-t.C:
			return
		}
	}
}
