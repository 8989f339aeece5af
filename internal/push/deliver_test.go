package push_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/games"
	"nothanks/internal/push"
	"nothanks/internal/push/pushtest"
)

// testTimeout is the tests' SendTimeout: long enough that a sender posting
// one push after another would keep the healthy devices waiting past the
// 2 s they are given, short enough to keep the tests quick.
const testTimeout = 3 * time.Second

// instance is one server's push worker: its own pool on the shared
// database, run as the app runs it, again and again (start), or once.
type instance struct {
	svc *push.Service
}

// newInstance makes an instance whose posts have timeout, with senders
// posts in flight at most (0: push.Senders).
func newInstance(t *testing.T, dbURL string, keys push.Keys, clk clock.Clock, timeout time.Duration, senders int) *instance {
	t.Helper()
	store, err := db.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := push.New(store, games.New(store, clk, log),
		push.Config{Keys: keys, Subject: "mailto:ops@example.com", AllowLocal: true, SendTimeout: timeout, Senders: senders}, clk, log)
	return &instance{svc: svc}
}

// start runs the worker until the test ends (as internal/app does, with a
// shorter tick).
func (in *instance) start(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, err := in.svc.RunOutbox(ctx); err != nil && ctx.Err() == nil {
				t.Errorf("push outbox: %v", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// device subscribes a device of a person on a push service.
func device(t *testing.T, store *db.Store, userID int64, ps *pushtest.Server, name string) (*pushtest.Device, db.PushDevice) {
	t.Helper()
	dev := ps.NewDevice(name)
	d, _, err := store.AddPushDevice(context.Background(), db.PushDevice{UserID: userID, Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth,
		Name: name, CreatedAt: time.Now()}, true)
	if err != nil {
		t.Fatal(err)
	}
	return dev, d
}

// eventually polls cond until it holds, failing the test after within.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pushRow is a device's push in the outbox (its newest).
func pushRow(t *testing.T, store *db.Store, d db.PushDevice) db.Mail {
	t.Helper()
	rows, err := store.PushesTo(context.Background(), d.UserID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows {
		if m.SubscriptionID != nil && *m.SubscriptionID == d.ID {
			return m
		}
	}
	t.Fatalf("no push for device %d in the outbox", d.ID)
	return db.Mail{}
}

// A push service that holds every request without answering delays only
// its own devices: with two instances on one database, the devices on the
// other services (the same players' other devices, other players') get
// their push within 2 s, each once; the held pushes are given up after
// the timeout and tried again later, and then arrive, once.
func TestHungPushServiceHoldsUpOnlyItsOwnDevices(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	hung, fcm, autopush := pushtest.New(), pushtest.New(), pushtest.New()
	defer hung.Close()
	defer fcm.Close()
	defer autopush.Close()
	answer := hung.Hang()
	defer answer()

	type dev struct {
		ps  *pushtest.Server
		dev *pushtest.Device
		row db.PushDevice
	}
	var hungDevs, healthy []dev
	for _, p := range []struct {
		name     string
		services []*pushtest.Server
	}{
		{"Ada", []*pushtest.Server{hung, fcm}},
		{"Ben", []*pushtest.Server{hung, autopush}},
		{"Cy", []*pushtest.Server{fcm, autopush}},
		{"Dee", []*pushtest.Server{fcm, autopush}},
	} {
		u, err := store.CreateUser(ctx, p.name, p.name+"@example.com", "x", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range p.services {
			d, row := device(t, store, u.ID, ps, p.name+"'s device")
			if ps == hung {
				hungDevs = append(hungDevs, dev{ps, d, row})
			} else {
				healthy = append(healthy, dev{ps, d, row})
			}
		}
	}
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Now())
	// The pushes to the hung service are due first, so that a sender
	// taking them in order meets them before the others.
	for _, d := range hungDevs {
		if err := store.EnqueueDevicePush(ctx, d.row.UserID, d.row.ID, db.PushTest, clk.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range healthy {
		if err := store.EnqueueDevicePush(ctx, d.row.UserID, d.row.ID, db.PushTest, clk.Now()); err != nil {
			t.Fatal(err)
		}
	}

	a, b := newInstance(t, dbURL, keys, clk, testTimeout, 0), newInstance(t, dbURL, keys, clk, testTimeout, 0)
	start := time.Now()
	a.start(t)
	b.start(t)
	for _, ps := range []*pushtest.Server{fcm, autopush} {
		if _, err := ps.Wait(3, 2*time.Second); err != nil {
			t.Fatalf("beside a hung push service: %v", err)
		}
	}
	t.Logf("the 6 healthy devices had their push %s after the workers started", time.Since(start).Round(time.Millisecond))

	t.Run("HeldPushesTriedAgainLater", func(t *testing.T) {
		for _, d := range hungDevs {
			eventually(t, 3*testTimeout, "the held push is not put back for a later try", func() bool {
				m := pushRow(t, store, d.row)
				return m.Status == "pending" && m.Attempts == 1 && m.LastError != nil
			})
			if n := hung.Requests(d.dev); n != 1 {
				t.Errorf("the hung service had %d requests for %s, want 1", n, d.dev.Name)
			}
		}
		answer()
		clk.Advance(push.FirstRetry)
		if _, err := hung.Wait(2, 5*time.Second); err != nil {
			t.Fatalf("once the service answers again: %v", err)
		}
	})

	t.Run("EachPushOnce", func(t *testing.T) {
		eventually(t, 5*time.Second, "pushes still not marked sent", func() bool {
			for _, d := range append(healthy, hungDevs...) {
				if pushRow(t, store, d.row).Status != "sent" {
					return false
				}
			}
			return true
		})
		for _, d := range append(healthy, hungDevs...) {
			if got := len(d.ps.PushesTo(d.dev)); got != 1 {
				t.Errorf("%s got %d pushes, want 1", d.dev.Name, got)
			}
		}
		for _, d := range healthy {
			if n := d.ps.Requests(d.dev); n != 1 {
				t.Errorf("%s: %d requests, want 1", d.dev.Name, n)
			}
		}
		for _, ps := range []*pushtest.Server{hung, fcm, autopush} {
			if r := ps.Rejections(); len(r) > 0 {
				t.Errorf("refused: %q", r)
			}
		}
	})
}

// A push claimed but kept waiting behind its push service until its lease
// is nearly out is not posted on that claim: it is given back untried and
// posted on a fresh claim, so that no other instance can take it over
// while it is being sent.
func TestPushWaitingPastItsLeaseIsGivenBack(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	hung := pushtest.New()
	defer hung.Close()
	answer := hung.Hang()
	defer answer()
	u, err := store.CreateUser(ctx, "Eli", "eli@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	first, firstRow := device(t, store, u.ID, hung, "phone")
	second, secondRow := device(t, store, u.ID, hung, "laptop")
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Now())
	if err := store.EnqueueDevicePush(ctx, u.ID, firstRow.ID, db.PushTest, clk.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := store.EnqueueDevicePush(ctx, u.ID, secondRow.ID, db.PushTest, clk.Now()); err != nil {
		t.Fatal(err)
	}
	const timeout = time.Second
	in := newInstance(t, dbURL, keys, clk, timeout, 0)
	claimedAt := clk.Now()
	done := make(chan error, 1)
	go func() { _, err := in.svc.RunOutbox(ctx); done <- err }()

	eventually(t, 2*time.Second, "the first push never reached the service", func() bool { return hung.Requests(first) == 1 })
	if m := pushRow(t, store, secondRow); m.Status != "sending" || hung.Requests(second) != 0 {
		t.Fatalf("the second push: %s, %d requests; want claimed, waiting for the first", m.Status, hung.Requests(second))
	}
	// While the first is held, the second's claim comes within two
	// timeouts of its end.
	clk.Advance(push.Lease - 2*timeout + time.Millisecond)
	eventually(t, 5*timeout, "the second push never reached the service", func() bool { return hung.Requests(second) == 1 })
	m := pushRow(t, store, secondRow)
	if fresh := clk.Now().Add(push.Lease); m.ClaimedUntil == nil || m.ClaimedUntil.Sub(fresh).Abs() > time.Millisecond {
		t.Errorf("the second push was posted on a claim until %v, want a fresh one until %v (the first was until %v)", m.ClaimedUntil, fresh, claimedAt.Add(push.Lease))
	}
	answer()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m := pushRow(t, store, secondRow); m.Status != "pending" || m.Attempts != 1 || hung.Requests(second) != 1 {
		t.Errorf("the second push: %s after %d attempts and %d requests, want pending after 1 (the claim given back not counted)", m.Status, m.Attempts, hung.Requests(second))
	}
}

// An instance claims no more pushes than it has senders, counting those
// waiting in line for their push service: with a backlog on one stalled
// service, a second instance takes its share at once, rather than finding
// the first has claimed it all.
func TestInstanceClaimsNoMoreThanItsSenders(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	hung := pushtest.New()
	defer hung.Close()
	answer := hung.Hang()
	defer answer()
	u, err := store.CreateUser(ctx, "Fay", "fay@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Now())
	var devs []*pushtest.Device
	for i := range 6 {
		dev, row := device(t, store, u.ID, hung, fmt.Sprintf("device %d", i))
		devs = append(devs, dev)
		if err := store.EnqueueDevicePush(ctx, u.ID, row.ID, db.PushTest, clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	requests := func() (n int) {
		for _, d := range devs {
			n += hung.Requests(d)
		}
		return n
	}
	claimed := func() (n int) {
		rows, err := store.PushesTo(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rows {
			if m.Status == "sending" {
				n++
			}
		}
		return n
	}
	const senders = 2
	a, b := newInstance(t, dbURL, keys, clk, push.SendTimeout, senders), newInstance(t, dbURL, keys, clk, push.SendTimeout, senders)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	run := func(in *instance) {
		wg.Go(func() {
			if _, err := in.svc.RunOutbox(ctx); err != nil {
				t.Errorf("push outbox: %v", err)
			}
		})
	}

	run(a)
	eventually(t, 2*time.Second, "the first instance posted nothing", func() bool { return requests() == 1 })
	if n := claimed(); n != senders {
		t.Fatalf("one instance with %d senders claimed %d of the 6 pushes, want %d: one posting, one waiting behind it", senders, n, senders)
	}
	run(b)
	eventually(t, 2*time.Second, "the second instance posted nothing beside the first", func() bool { return requests() == 2 })
	if n := claimed(); n != 2*senders {
		t.Fatalf("two instances claimed %d of the 6 pushes, want %d", n, 2*senders)
	}

	// Once the service answers again, the two held pushes are put back for
	// a later try and the others go out, each posted once.
	answer()
	wg.Wait()
	var sent, pending int
	rows, err := store.PushesTo(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows {
		switch {
		case m.Status == "sent":
			sent++
		case m.Status == "pending" && m.Attempts == 1:
			pending++
		default:
			t.Errorf("push %d: %s after %d attempts", m.ID, m.Status, m.Attempts)
		}
	}
	if sent != 4 || pending != 2 {
		t.Errorf("%d sent and %d put back, want 4 and 2", sent, pending)
	}
	for _, d := range devs {
		if n := hung.Requests(d); n != 1 {
			t.Errorf("%s: %d requests, want 1", d.Name, n)
		}
	}
	if r := hung.Rejections(); len(r) > 0 {
		t.Errorf("refused: %q", r)
	}
}

// A push the service has taken when the worker is told to stop (its
// context ends between the post and the answer) is recorded as sent, and
// not left claimed for another instance to post again once the claim runs
// out.
func TestPushPostedAsTheWorkerStopsIsMarkedSent(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	ps := pushtest.New()
	defer ps.Close()
	u, err := store.CreateUser(ctx, "Gus", "gus@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dev, row := device(t, store, u.ID, ps, "phone")
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Now())
	if err := store.EnqueueDevicePush(ctx, u.ID, row.ID, db.PushTest, clk.Now()); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ps.OnAccept(dev, stop)
	n, err := newInstance(t, dbURL, keys, clk, testTimeout, 0).svc.RunOutbox(runCtx)
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("RunOutbox: %d sent (%v), want 1 and the context's end", n, err)
	}
	if m := pushRow(t, store, row); m.Status != "sent" || m.Attempts != 1 {
		t.Fatalf("the push taken as the worker stopped: %s after %d attempts, want sent after 1", m.Status, m.Attempts)
	}
	clk.Advance(push.Lease + time.Second)
	if n, err := newInstance(t, dbURL, keys, clk, testTimeout, 0).svc.RunOutbox(ctx); n != 0 || err != nil {
		t.Errorf("another instance after the claim: %d sent (%v), want none", n, err)
	}
	if got, reqs := len(ps.PushesTo(dev)), ps.Requests(dev); got != 1 || reqs != 1 {
		t.Errorf("the device got %d pushes in %d requests, want 1 in 1", got, reqs)
	}
	if r := ps.Rejections(); len(r) > 0 {
		t.Errorf("refused: %q", r)
	}
}

// An instance claims at most push.LaneDepth pushes for one push service:
// with more due to a service that holds its requests than the instance has
// senders, the push to another service, due after them all, still goes
// out at once from the same instance, and the held service's backlog is
// left in the outbox for later (or another instance).
func TestHungServiceBacklogLeavesTheOtherSendersFree(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	hung, healthy := pushtest.New(), pushtest.New()
	defer hung.Close()
	defer healthy.Close()
	answer := hung.Hang()
	defer answer()
	u, err := store.CreateUser(ctx, "Gil", "gil@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Now())
	const senders = 3
	var held []db.PushDevice
	for i := range 2 * senders {
		_, row := device(t, store, u.ID, hung, fmt.Sprintf("held device %d", i))
		held = append(held, row)
		if err := store.EnqueueDevicePush(ctx, u.ID, row.ID, db.PushTest, clk.Now().Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	phone, row := device(t, store, u.ID, healthy, "phone")
	if err := store.EnqueueDevicePush(ctx, u.ID, row.ID, db.PushTest, clk.Now()); err != nil {
		t.Fatal(err)
	}
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	in := newInstance(t, dbURL, keys, clk, push.SendTimeout, senders)
	in.start(t)
	eventually(t, 2*time.Second, "the phone's push did not arrive while the other service held its requests", func() bool {
		return len(healthy.PushesTo(phone)) == 1
	})
	claimed := 0
	for _, d := range held {
		if pushRow(t, store, d).Status == "sending" {
			claimed++
		}
	}
	if claimed != push.LaneDepth {
		t.Errorf("%d pushes to the held service claimed, want %d (one posting, one behind it)", claimed, push.LaneDepth)
	}
	answer()
}
