package push

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"nothanks/internal/db"
)

// RunOutbox sends every due push and returns how many went out.
//
// Pushes go out concurrently: at most Senders posts in flight on this
// instance, and at most one at a time to each push service (an origin:
// the scheme and host of the endpoint), in the order they were claimed, so
// that a service that holds its requests delays only its own devices and
// is not hit by many requests at once. While posts are in flight it looks
// for newly due pushes every PollEvery; it returns once nothing is due and
// nothing is in flight. After a database error it claims no more, gives
// back the pushes not yet started and returns the error when the posts in
// flight are done.
func (s *Service) RunOutbox(ctx context.Context) (int, error) {
	r := &run{results: make(chan result), stop: make(chan struct{})}
	poll := time.NewTicker(PollEvery)
	defer poll.Stop()
	done := ctx.Done()
	var (
		sent, running int
		firstErr      error
		claim         = true
	)
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
		r.halt()
	}
	for {
		if claim && firstErr == nil && ctx.Err() == nil {
			claim = false
			// Claim no more than can be posted now, leaving the rest to
			// other instances; a full batch means more may be due.
			if free := cap(s.slots) - len(s.slots); free > 0 {
				n, err := s.dispatch(ctx, r, free)
				running += n
				if err != nil {
					fail(err)
				} else if n == free {
					claim = true
					continue
				}
			}
		}
		if running == 0 {
			break
		}
		select {
		case res := <-r.results:
			running--
			if res.sent {
				sent++
			}
			if res.err != nil {
				fail(res.err)
			}
			claim = true
		case <-poll.C:
			claim = true
		case <-done:
			done = nil
			r.halt()
		}
	}
	r.halt()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return sent, firstErr
}

// run is one RunOutbox: its posts report on results, and stop closes
// when it ends early, so that pushes still waiting are given back.
type run struct {
	results chan result
	stop    chan struct{}
	once    sync.Once
}

func (r *run) halt() { r.once.Do(func() { close(r.stop) }) }

// result is how one claimed push ended: sent, or a database error.
type result struct {
	sent bool
	err  error
}

// dispatch claims up to limit due pushes and starts each on its way,
// queued behind the pushes claimed before it for the same push service.
// It returns how many it started.
func (s *Service) dispatch(ctx context.Context, r *run, limit int) (int, error) {
	now := s.clock.Now()
	batch, err := s.store.ClaimPushes(ctx, now, now.Add(Lease), limit)
	if err != nil {
		return 0, err
	}
	for i, m := range batch {
		o, err := s.originOf(ctx, m)
		if err != nil {
			for _, rest := range batch[i:] {
				_ = s.giveBack(ctx, rest)
			}
			return i, err
		}
		w := s.lanes.join(o)
		go func() { r.results <- s.deliver(ctx, r, m, o, w) }()
	}
	return len(batch), nil
}

// originOf is the push service a push goes to ("" for a device removed
// since: handle skips it).
func (s *Service) originOf(ctx context.Context, m db.Mail) (string, error) {
	d, err := s.store.PushDevice(ctx, *m.SubscriptionID)
	if errors.Is(err, db.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return origin(d.Endpoint), nil
}

// origin is an endpoint's scheme and host: one push service.
func origin(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return endpoint
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// deliver waits for the push's turn at its push service and for a free
// slot, then handles it; a push whose run ended, or whose claim has too
// little time left by then, is given back untried.
func (s *Service) deliver(ctx context.Context, r *run, m db.Mail, origin string, w *waiter) result {
	defer s.lanes.leave(origin, w)
	select {
	case <-w.turn:
	case <-r.stop:
		return result{err: s.giveBack(ctx, m)}
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-r.stop:
		return result{err: s.giveBack(ctx, m)}
	}
	if s.late(m) {
		return result{err: s.giveBack(ctx, m)}
	}
	ok, err := s.handle(ctx, m)
	return result{sent: ok, err: err}
}

// late reports whether a claimed push has too little of its lease left to
// be posted: less than two SendTimeouts, one for the post and one for the
// work around it.
func (s *Service) late(m db.Mail) bool {
	return m.ClaimedUntil != nil && s.clock.Now().After(m.ClaimedUntil.Add(-2*s.cfg.SendTimeout))
}

// giveBack puts a claimed push back untried, due as it was, for this or
// another instance to claim afresh (at once, rather than when the lease
// runs out). It is written even when ctx has ended (shutting down).
func (s *Service) giveBack(ctx context.Context, m db.Mail) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	s.log.Info("push given back untried", "push", m.ID)
	return s.store.ReleaseMails(ctx, []int64{m.ID})
}

// lanes keeps, for each push service, the claimed pushes waiting to be
// posted to it, in the order claimed: only the first may be posted, the
// next when it is done (or gives up its place).
type lanes struct {
	mu    sync.Mutex
	queue map[string][]*waiter
}

// waiter is a place in a lane: turn closes when it comes first.
type waiter struct{ turn chan struct{} }

func (l *lanes) join(origin string) *waiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &waiter{turn: make(chan struct{})}
	l.queue[origin] = append(l.queue[origin], w)
	if len(l.queue[origin]) == 1 {
		close(w.turn)
	}
	return w
}

func (l *lanes) leave(origin string, w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queue[origin]
	for i, x := range q {
		if x != w {
			continue
		}
		q = append(q[:i:i], q[i+1:]...)
		if i == 0 && len(q) > 0 {
			close(q[0].turn)
		}
		break
	}
	if len(q) == 0 {
		delete(l.queue, origin)
	} else {
		l.queue[origin] = q
	}
}
