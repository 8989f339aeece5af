package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/games"
	"nothanks/internal/push"
	"nothanks/internal/push/pushtest"
)

// A kill -9 of the instance that is sending a push, caught while the push
// service has not yet answered, loses nothing and sends nothing twice:
// once the dead instance's claim runs out, another instance sends it, and
// the device gets it once.
func TestKillDuringPushSendsItOnce(t *testing.T) {
	store, dbURL := dbtest.NewWithURL(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	ps := pushtest.New()
	defer ps.Close()
	dev := ps.NewDevice("Kai's phone")
	arrived, release := ps.Hold(dev)
	defer release()

	u, err := store.CreateUser(ctx, "Kai", "kai@example.com", "x", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := store.AddPushDevice(ctx, db.PushDevice{UserID: u.ID, Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth, Name: "Kai's phone", CreatedAt: time.Now()}, true)
	if err != nil {
		t.Fatal(err)
	}
	// The keys are made here, once, and kept in the database, where the
	// server finds them.
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnqueueDevicePush(ctx, u.ID, d.ID, db.PushTest, time.Now()); err != nil {
		t.Fatal(err)
	}

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childServer+"=1", "DATABASE_URL="+dbURL, "ADDR=127.0.0.1:0", "LOG_LEVEL=error", "PUSH_ALLOW_LOCAL=1")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the child server never sent the push")
	}
	// In the middle of the send: kill -9, then the push service fails the
	// request it held (its sender is gone anyway).
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	release()
	var status string
	if err := store.DB.Get(&status, `SELECT status FROM mail_outbox WHERE channel = 'push' AND user_id = $1`, u.ID); err != nil {
		t.Fatal(err)
	}
	if status != "sending" {
		t.Fatalf("the killed instance's push is %q, want still claimed (sending)", status)
	}

	// Another instance: before the claim runs out it leaves the push alone;
	// after, it sends it, once.
	clk := clock.NewFake(time.Now())
	g := games.New(store, clk, log)
	other := push.New(store, g, push.Config{Keys: keys, Subject: "mailto:ops@example.com", AllowLocal: true}, clk, log)
	if n, err := other.RunOutbox(ctx); err != nil || n != 0 {
		t.Fatalf("while the claim holds: %d pushes handled (%v), want 0", n, err)
	}
	clk.Advance(push.Lease + time.Second)
	if n, err := other.RunOutbox(ctx); err != nil || n != 1 {
		t.Fatalf("after the claim ran out: %d pushes handled (%v), want 1", n, err)
	}
	clk.Advance(push.Lease + time.Second)
	if n, err := other.RunOutbox(ctx); err != nil || n != 0 {
		t.Fatalf("a second run: %d pushes handled (%v), want 0", n, err)
	}
	got := ps.PushesTo(dev)
	if len(got) != 1 {
		t.Fatalf("the device got %d pushes, want 1 (refused: %v)", len(got), ps.Rejections())
	}
	var pl struct{ Kind, URL string }
	if err := json.Unmarshal(got[0].Payload, &pl); err != nil || pl.Kind != db.PushTest || pl.URL != "/settings#devices" {
		t.Errorf("push %s (%v)", got[0].Payload, err)
	}
	var attempts int
	if err := store.DB.Get(&attempts, `SELECT attempts FROM mail_outbox WHERE channel = 'push' AND user_id = $1 AND status = 'sent'`, u.ID); err != nil || attempts != 2 {
		t.Errorf("the push row: %d attempts (%v), want sent after 2", attempts, err)
	}
}
