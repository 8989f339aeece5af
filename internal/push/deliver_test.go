package push_test

import (
	"context"
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
// database, run as the app runs it, again and again.
type instance struct {
	svc *push.Service
}

func newInstance(t *testing.T, dbURL string, keys push.Keys, clk clock.Clock, timeout time.Duration) *instance {
	t.Helper()
	store, err := db.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := push.New(store, games.New(store, clk, log),
		push.Config{Keys: keys, Subject: "mailto:ops@example.com", AllowLocal: true, SendTimeout: timeout}, clk, log)
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

// pushRow is a device's push in the outbox.
func pushRow(t *testing.T, store *db.Store, deviceID int64) db.Mail {
	t.Helper()
	var m db.Mail
	if err := store.DB.Get(&m, `SELECT id, status, attempts, last_error, claimed_until, send_after FROM mail_outbox WHERE subscription_id = $1`, deviceID); err != nil {
		t.Fatal(err)
	}
	return m
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

	a, b := newInstance(t, dbURL, keys, clk, testTimeout), newInstance(t, dbURL, keys, clk, testTimeout)
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
				m := pushRow(t, store, d.row.ID)
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
				if pushRow(t, store, d.row.ID).Status != "sent" {
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
	in := newInstance(t, dbURL, keys, clk, timeout)
	claimedAt := clk.Now()
	done := make(chan error, 1)
	go func() { _, err := in.svc.RunOutbox(ctx); done <- err }()

	eventually(t, 2*time.Second, "the first push never reached the service", func() bool { return hung.Requests(first) == 1 })
	if m := pushRow(t, store, secondRow.ID); m.Status != "sending" || hung.Requests(second) != 0 {
		t.Fatalf("the second push: %s, %d requests; want claimed, waiting for the first", m.Status, hung.Requests(second))
	}
	// While the first is held, the second's claim comes within two
	// timeouts of its end.
	clk.Advance(push.Lease - 2*timeout + time.Millisecond)
	eventually(t, 5*timeout, "the second push never reached the service", func() bool { return hung.Requests(second) == 1 })
	m := pushRow(t, store, secondRow.ID)
	if fresh := clk.Now().Add(push.Lease); m.ClaimedUntil == nil || m.ClaimedUntil.Sub(fresh).Abs() > time.Millisecond {
		t.Errorf("the second push was posted on a claim until %v, want a fresh one until %v (the first was until %v)", m.ClaimedUntil, fresh, claimedAt.Add(push.Lease))
	}
	answer()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if m := pushRow(t, store, secondRow.ID); m.Status != "pending" || m.Attempts != 1 || hung.Requests(second) != 1 {
		t.Errorf("the second push: %s after %d attempts and %d requests, want pending after 1 (the claim given back not counted)", m.Status, m.Attempts, hung.Requests(second))
	}
}
