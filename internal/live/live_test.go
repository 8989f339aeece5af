package live

import (
	"context"
	"testing"
	"time"
)

func TestGameID(t *testing.T) {
	tests := []struct {
		payload string
		want    int64
		ok      bool
	}{
		{"12:7", 12, true},
		{"12", 12, true},
		{"x:1", 0, false},
		{"-3:1", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := GameID(tt.payload)
		if got != tt.want || ok != tt.ok {
			t.Errorf("GameID(%q) = %d, %v; want %d, %v", tt.payload, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWakerWakesAtTheEarliestTimeTold(t *testing.T) {
	w := NewWaker()
	start := time.Now()
	// Planned an hour away; told of a time 30 ms away, then of a later one
	// that must not push it back.
	w.At(start.Add(30 * time.Millisecond))
	w.AtPayload("99999999999999")
	w.Wait(context.Background(), start.Add(time.Hour), time.Hour, time.Now)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("woke after %s", took)
	}
	// Now wakes at once; ctx ends the wait too.
	w.Now()
	w.Wait(context.Background(), time.Now().Add(time.Hour), time.Hour, time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.Wait(ctx, time.Now().Add(time.Hour), time.Hour, time.Now)
}
