// Package background runs work claimed from Postgres one item at a time:
// a worker claims an item (a lease, FOR UPDATE SKIP LOCKED, so several
// instances share the queue and a worker that dies loses nothing), does
// it, and gives it back with the reason when it fails. Work that is heavy
// on the CPU (the analysis, puzzle mining) holds itself to a share of a
// core while people play on the instance. It knows nothing of what the
// work is, nor of SQL: the services give it their claim, work and failure.
package background

import (
	"context"
	"log/slog"
	"time"
)

// Queue is one kind of background work.
type Queue struct {
	// Name is what the log calls the work.
	Name string
	// Claim takes the next item for this worker; false when none waits.
	Claim func(ctx context.Context) (id int64, ok bool, err error)
	// Work does an item and reports how many things it made (puzzles
	// found, games analysed: 1).
	Work func(ctx context.Context, id int64) (int, error)
	// Fail gives a failed item back with the reason.
	Fail func(ctx context.Context, id int64, why string) error
	// Share is the part of one core the work may take while Busy: after an
	// item that took d, the worker rests d × (1/Share − 1) before the
	// next. 0, 1 or more, or Busy nil or false: no rest.
	Share float64
	Busy  func() bool
	Log   *slog.Logger
	// Max is how many items one RunOnce does at most (0: until none
	// waits), so that one queue lets another have its turn.
	Max int
}

// RunOnce does the items waiting, one at a time, until none waits, Max
// are done or ctx ends, and returns the sum of what Work made.
func (q Queue) RunOnce(ctx context.Context) (int, error) {
	made := 0
	for done := 0; ctx.Err() == nil && (q.Max == 0 || done < q.Max); done++ {
		id, ok, err := q.Claim(ctx)
		if err != nil || !ok {
			return made, err
		}
		start := time.Now()
		n, err := q.Work(ctx, id)
		if err != nil {
			q.Log.Warn(q.Name+" failed", "id", id, "err", err)
			if ferr := q.Fail(ctx, id, err.Error()); ferr != nil {
				return made, ferr
			}
			continue
		}
		made += n
		if wait := Rest(q.Share, q.Busy, time.Since(start)); wait > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
	}
	return made, ctx.Err()
}

// Rest is how long a worker rests after work that took d, so that it
// takes at most share of a core while busy() says people play: nothing
// when nobody plays, or share is not between 0 and 1.
func Rest(share float64, busy func() bool, d time.Duration) time.Duration {
	if share <= 0 || share >= 1 || busy == nil || !busy() {
		return 0
	}
	return time.Duration(float64(d) * (1/share - 1))
}

// Every calls once every period until ctx ends, logging its errors.
func Every(ctx context.Context, every time.Duration, log *slog.Logger, name string, once func(context.Context) (int, error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := once(ctx); err != nil && ctx.Err() == nil {
			log.Warn(name, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
