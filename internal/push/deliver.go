package push

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"nothanks/internal/db"
)

// RunOutbox sends every due push and returns how many went out.
//
// Pushes go out concurrently: at most Senders claimed pushes on this
// instance at once (posting, or waiting for their push service), at most
// one post at a time to each push service (an origin: the scheme and host
// of the endpoint), in the order they were claimed, and at most LaneDepth
// claimed for one service, so that a service that holds its requests
// delays only its own devices and is not hit by many requests at once, and
// the pushes this instance cannot post now are left to other instances. While posts are in flight it looks for newly
// due pushes every PollEvery; it returns once nothing is due and nothing
// is in flight. After a database error it claims no more, gives
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
			// Claim no more than there are free slots, leaving the rest to
			// other instances; a full batch means more may be due.
			if free := s.reserve(); free > 0 {
				n, full, err := s.dispatch(ctx, r, free)
				s.unreserve(free - n)
				running += n
				if err != nil {
					fail(err)
				} else if full {
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

// reserve takes every free slot (a slot is held by a claimed push from
// its claim until it is done) and returns how many it took.
func (s *Service) reserve() int {
	for n := 0; ; n++ {
		select {
		case s.slots <- struct{}{}:
		default:
			return n
		}
	}
}

// unreserve frees n slots.
func (s *Service) unreserve(n int) {
	for range n {
		<-s.slots
	}
}

// dispatch claims up to limit due pushes, for as many slots reserved, and
// starts each on its way, queued behind the pushes claimed before it for
// the same push service; each started frees its slot when done. A push
// beyond its service's LaneDepth is given back untried at once (the next
// claim passes that service by). It returns how many it started, and
// whether the claim was full (more may be due).
func (s *Service) dispatch(ctx context.Context, r *run, limit int) (int, bool, error) {
	now := s.clock.Now()
	batch, err := s.store.ClaimPushes(ctx, now, now.Add(Lease), limit, s.lanes.busy(LaneDepth))
	if err != nil || len(batch) == 0 {
		return 0, false, err
	}
	ids := make([]int64, len(batch))
	for i, m := range batch {
		ids[i] = *m.SubscriptionID
	}
	devices, err := s.store.PushDevicesByID(ctx, ids)
	if err != nil {
		for _, m := range batch {
			_ = s.giveBack(ctx, m)
		}
		return 0, false, err
	}
	started := 0
	for _, m := range batch {
		// A device removed since has no push service ("": handle skips it).
		var d *db.PushDevice
		o := ""
		if dev, ok := devices[*m.SubscriptionID]; ok {
			d, o = &dev, origin(dev.Endpoint)
		}
		w, ok := s.lanes.join(o, LaneDepth)
		if !ok {
			if err := s.giveBack(ctx, m); err != nil {
				return started, false, err
			}
			continue
		}
		started++
		go func() { r.results <- s.deliver(ctx, r, m, d, o, w) }()
	}
	return started, len(batch) == limit, nil
}

// origin is an endpoint's scheme and host: one push service.
func origin(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return endpoint
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// deliver waits for the push's turn at its push service, then handles it
// (d is its device, nil if removed); a push whose run ended first is given
// back untried. It frees the push's slot when done.
func (s *Service) deliver(ctx context.Context, r *run, m db.Mail, d *db.PushDevice, origin string, w *waiter) result {
	defer s.unreserve(1)
	defer s.lanes.leave(origin, w)
	select {
	case <-w.turn:
	case <-r.stop:
		return result{err: s.giveBack(ctx, m)}
	}
	ok, err := s.handle(ctx, m, d)
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

// LaneDepth is how many claimed pushes an instance holds at most for one
// push service: one posting and the next behind it. It claims no more
// for a service while that many wait, so that a service that holds its
// requests ties up LaneDepth of the Senders and the others go on.
const LaneDepth = 2

// busy lists the push services with at least depth pushes in their lane.
func (l *lanes) busy(depth int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []string{}
	for o, q := range l.queue {
		if len(q) >= depth && o != "" {
			out = append(out, o)
		}
	}
	return out
}

// join takes the next place in a push service's lane, unless depth pushes
// hold places already (the server's "" lane, of removed devices, has no
// limit: nothing is posted for them).
func (l *lanes) join(origin string, depth int) (*waiter, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if origin != "" && len(l.queue[origin]) >= depth {
		return nil, false
	}
	w := &waiter{turn: make(chan struct{})}
	l.queue[origin] = append(l.queue[origin], w)
	if len(l.queue[origin]) == 1 {
		close(w.turn)
	}
	return w, true
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
