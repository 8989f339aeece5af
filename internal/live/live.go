// Package live fans game changes out to the event streams of this server
// instance. One Postgres LISTEN connection per process hears every
// instance's NOTIFY (payload "gameID:version", never game state) and wakes
// the streams watching that game; each stream then re-reads the game and
// renders its own viewer's view.
//
// A wake-up is a signal, not a message: each subscriber has a buffer of one,
// so a slow stream never holds up the others and still learns that
// something changed (it reads the latest state, not each step).
package live

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
)

// Broker keeps the subscriptions of this process.
type Broker struct {
	mu     sync.Mutex
	subs   map[int64]map[*Sub]struct{}
	any    map[*Sub]struct{}
	closed chan struct{}
	once   sync.Once
}

// Sub is one subscription; C receives a value when the game changed.
type Sub struct {
	C      chan struct{}
	gameID int64 // 0: every game
}

// NewBroker returns an empty broker.
func NewBroker() *Broker {
	return &Broker{subs: map[int64]map[*Sub]struct{}{}, any: map[*Sub]struct{}{}, closed: make(chan struct{})}
}

// Subscribe wakes the subscription whenever gameID changes.
func (b *Broker) Subscribe(gameID int64) *Sub {
	s := &Sub{C: make(chan struct{}, 1), gameID: gameID}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[gameID] == nil {
		b.subs[gameID] = map[*Sub]struct{}{}
	}
	b.subs[gameID][s] = struct{}{}
	return s
}

// SubscribeAll wakes the subscription whenever any game changes (the
// worker that moves for bots listens so).
func (b *Broker) SubscribeAll() *Sub {
	s := &Sub{C: make(chan struct{}, 1)}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.any[s] = struct{}{}
	return s
}

// Unsubscribe ends a subscription.
func (b *Broker) Unsubscribe(s *Sub) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.gameID == 0 {
		delete(b.any, s)
		return
	}
	delete(b.subs[s.gameID], s)
	if len(b.subs[s.gameID]) == 0 {
		delete(b.subs, s.gameID)
	}
}

func wake(s *Sub) {
	select {
	case s.C <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Publish wakes the subscribers of a game.
func (b *Broker) Publish(gameID int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs[gameID] {
		wake(s)
	}
	for s := range b.any {
		wake(s)
	}
}

// PublishAll wakes every subscriber, after notifications may have been lost.
func (b *Broker) PublishAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, subs := range b.subs {
		for s := range subs {
			wake(s)
		}
	}
	for s := range b.any {
		wake(s)
	}
}

// Subscribers counts this process's subscriptions to a game.
func (b *Broker) Subscribers(gameID int64) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs[gameID])
}

// Close tells every stream to end (at server shutdown).
func (b *Broker) Close() { b.once.Do(func() { close(b.closed) }) }

// Done is closed when the broker closes.
func (b *Broker) Done() <-chan struct{} { return b.closed }

// Listen holds the process's LISTEN connection on channel until ctx ends,
// publishing each notification to the broker. lib/pq reconnects by itself;
// after a reconnect it delivers a nil notification, since some may have been
// lost, and then every stream re-reads its game.
func Listen(ctx context.Context, dbURL, channel string, b *Broker, log *slog.Logger) error {
	l := pq.NewListener(dbURL, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			log.Warn("listener", "event", ev, "err", err)
		}
	})
	defer l.Close()
	if err := l.Listen(channel); err != nil {
		return err
	}
	ping := time.NewTicker(60 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-l.Notify:
			if n == nil {
				log.Info("listener reconnected: refreshing every stream")
				b.PublishAll()
				continue
			}
			id, _, _ := strings.Cut(n.Extra, ":")
			gameID, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				log.Warn("listener: bad payload", "payload", n.Extra)
				continue
			}
			b.Publish(gameID)
		case <-ping.C:
			go func() {
				if err := l.Ping(); err != nil {
					log.Warn("listener ping", "err", err)
				}
			}()
		}
	}
}
