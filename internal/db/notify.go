package db

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Notifications are sent after the transaction that causes them commits,
// not from inside it. Postgres lets one notifying transaction commit at a
// time (it holds a database-wide lock from its NOTIFY to the end of its
// commit, flush to disk included), so moves that notified inside their
// transaction committed one by one instead of sharing flushes. Here a
// committed transaction hands its notifications to the store's notifier,
// which sends whatever has gathered in one statement on a connection of its
// own with synchronous_commit off (a notification needs no flush to disk).
//
// A notification can thus be lost if the process dies between the commit
// and the send, a few milliseconds. Nothing depends on every notification:
// the event streams also compare their games' versions with the database
// every few seconds, and the due-move worker looks at the earliest due time
// at least every 5 seconds.

// note is one notification.
type note struct{ channel, payload string }

// notifier sends notifications in batches.
type notifier struct {
	pool    *sqlx.DB // synchronous_commit off
	queue   chan note
	start   sync.Once
	closing sync.Once
	stop    chan struct{}
	stopped chan struct{}
}

// notifyQueue is how many notifications may wait; past it, committing
// transactions send their own (backpressure rather than loss).
const notifyQueue = 4096

func newNotifier(pool *sqlx.DB) *notifier {
	return &notifier{pool: pool, queue: make(chan note, notifyQueue), stop: make(chan struct{}), stopped: make(chan struct{})}
}

// send queues notifications, or sends them at once when the queue is full.
func (n *notifier) send(ns []note) {
	n.start.Do(func() { go n.run() })
	for i, x := range ns {
		select {
		case n.queue <- x:
		default:
			n.flush(ns[i:])
			return
		}
	}
}

func (n *notifier) run() {
	defer close(n.stopped)
	batch := make([]note, 0, 256)
	for {
		select {
		case x := <-n.queue:
			batch = append(batch[:0], x)
		case <-n.stop:
			return
		}
	more:
		for len(batch) < cap(batch) {
			select {
			case x := <-n.queue:
				batch = append(batch, x)
			default:
				break more
			}
		}
		n.flush(batch)
	}
}

func (n *notifier) flush(batch []note) {
	channels := make([]string, len(batch))
	payloads := make([]string, len(batch))
	for i, x := range batch {
		channels[i], payloads[i] = x.channel, x.payload
	}
	for attempt := 0; attempt < 3; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := n.pool.ExecContext(ctx, `SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS t(c, p)`,
			pq.Array(channels), pq.Array(payloads))
		cancel()
		if err == nil {
			return
		}
		slog.Warn("db: send notifications", "n", len(batch), "attempt", attempt+1, "err", err)
		time.Sleep(50 * time.Millisecond << attempt)
	}
}

// close sends what is queued and stops; closing again does nothing.
func (n *notifier) close() {
	n.closing.Do(n.shutdown)
}

func (n *notifier) shutdown() {
	n.start.Do(func() { go n.run() })
	close(n.stop)
	<-n.stopped
	var rest []note
	for len(n.queue) > 0 {
		rest = append(rest, <-n.queue)
	}
	if len(rest) > 0 {
		n.flush(rest)
	}
	n.pool.Close()
}

// NotifyGame tells every server instance, once the transaction commits,
// that a game changed. The payload is "id:version", never game state.
func (t *Tx) NotifyGame(_ context.Context, gameID int64, version int) error {
	t.notes = append(t.notes, note{GameChannel, fmt.Sprintf("%d:%d", gameID, version)})
	return nil
}

// NotifyGameTurn tells every server instance, once the transaction
// commits, that a game changed and who is to move in it now (nil: no
// person: a bot, or nobody once it is over). The payload is
// "id:version:user" (user 0 for no person); the per-user turn streams keep
// their badges from it without reading the database.
func (t *Tx) NotifyGameTurn(_ context.Context, gameID int64, version int, turnUser *int64) error {
	t.notes = append(t.notes, note{GameChannel, turnPayload(gameID, version, turnUser)})
	return nil
}

func turnPayload(gameID int64, version int, turnUser *int64) string {
	var u int64
	if turnUser != nil {
		u = *turnUser
	}
	return fmt.Sprintf("%d:%d:%d", gameID, version, u)
}

// NotifyDue wakes the due-move workers of every instance, once the
// transaction commits, for a machine's move due at at.
func (t *Tx) NotifyDue(_ context.Context, at time.Time) error {
	t.notes = append(t.notes, note{DueChannel, strconv.FormatInt(at.UnixMilli(), 10)})
	return nil
}

// GameChannel is the LISTEN/NOTIFY channel of game changes, payload
// "id:version", or "id:version:user" when the change says who is to move
// (user 0: no person): the event streams and the turn streams of every
// instance listen to it.
const GameChannel = "game_changed"

// ListsChannel is the LISTEN/NOTIFY channel of changes to the lists of
// games the site shows, payload the list: ListOpen when a table opens,
// fills, starts or is cancelled, ListLive when a game starts or ends.
const ListsChannel = "lists_changed"

// The lists of ListsChannel (internal/lists).
const (
	ListOpen        = "open"
	ListLive        = "live"
	ListTournaments = "tournaments"
)

// noteLists tells every instance, once the transaction commits, that
// lists of games changed (a transaction tells each list once).
func (t *Tx) noteLists(lists ...string) {
	for _, l := range lists {
		if !slices.Contains(t.notes, note{ListsChannel, l}) {
			t.notes = append(t.notes, note{ListsChannel, l})
		}
	}
}

// DueChannel is the LISTEN/NOTIFY channel that wakes the due-move workers,
// payload the due time in Unix milliseconds. It is sent only when a machine
// moves next (soon): players' deadlines are far enough away for the
// workers' own look at the earliest due time to find them.
const DueChannel = "game_due"
