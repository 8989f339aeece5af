package push_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
	"nothanks/internal/games"
	"nothanks/internal/push"
	"nothanks/internal/push/pushtest"
)

// BenchmarkPushOutbox is the cost of one push from the outbox to the push
// service: claim, compose, encrypt (aes128gcm), sign (VAPID ES256), post,
// mark sent. The push service is the tests' own, on loopback, which
// decrypts each message as a browser would (its work is in the figure).
//
//	go test -run '^$' -bench PushOutbox -benchtime 500x -count 5 ./internal/push/
func BenchmarkPushOutbox(b *testing.B) {
	store := dbtest.New(b)
	ctx := context.Background()
	ps := pushtest.New()
	defer ps.Close()
	u, err := store.CreateUser(ctx, "Bench", "bench@example.com", "x", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	var devices []db.PushDevice
	for i := range 4 {
		dev := ps.NewDevice(fmt.Sprintf("device %d", i))
		d, _, err := store.AddPushDevice(ctx, db.PushDevice{UserID: u.ID, Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth, Name: dev.Name, CreatedAt: time.Now()}, true)
		if err != nil {
			b.Fatal(err)
		}
		devices = append(devices, d)
	}
	keys, err := push.LoadKeys(ctx, "", "", store)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	clk := clock.NewFake(time.Now())
	svc := push.New(store, games.New(store, clk, log), push.Config{Keys: keys, Subject: "mailto:ops@example.com", AllowLocal: true}, clk, log)
	for i := range b.N {
		if err := store.EnqueueDevicePush(ctx, u.ID, devices[i%len(devices)].ID, db.PushTest, clk.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	n, err := svc.RunOutbox(ctx)
	b.StopTimer()
	if err != nil || n != b.N {
		b.Fatalf("%d of %d pushes sent (%v); refused: %v", n, b.N, err, ps.Rejections())
	}
	if got := len(ps.Pushes()); got != b.N {
		b.Fatalf("the push service has %d pushes, want %d", got, b.N)
	}
}
