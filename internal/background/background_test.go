package background

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

func TestRest(t *testing.T) {
	busy := func() bool { return true }
	idle := func() bool { return false }
	for _, c := range []struct {
		share float64
		busy  func() bool
		want  time.Duration
	}{
		{0.25, busy, 300 * time.Millisecond}, // 100 ms of work at a quarter of a core: 300 ms of rest
		{0.5, busy, 100 * time.Millisecond},
		{0.25, idle, 0},
		{0.25, nil, 0},
		{1, busy, 0},
		{0, busy, 0},
	} {
		if got := Rest(c.share, c.busy, 100*time.Millisecond); got != c.want {
			t.Errorf("Rest(%v) = %v, want %v", c.share, got, c.want)
		}
	}
}

// A queue of three items where the second fails: the failure is given
// back with its reason, the others are done, and the loop ends when none
// waits.
func TestQueueGivesFailuresBack(t *testing.T) {
	todo := []int64{1, 2, 3}
	var failed []string
	q := Queue{
		Name: "test",
		Claim: func(context.Context) (int64, bool, error) {
			if len(todo) == 0 {
				return 0, false, nil
			}
			id := todo[0]
			todo = todo[1:]
			return id, true, nil
		},
		Work: func(_ context.Context, id int64) (int, error) {
			if id == 2 {
				return 0, errors.New("no such game")
			}
			return 10, nil
		},
		Fail: func(_ context.Context, id int64, why string) error {
			failed = append(failed, why)
			return nil
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	n, err := q.RunOnce(context.Background())
	if err != nil || n != 20 {
		t.Fatalf("RunOnce = %d, %v; want 20, nil", n, err)
	}
	if len(failed) != 1 || failed[0] != "no such game" {
		t.Errorf("failed %q", failed)
	}
}

// Max stops a run after that many items; the rest wait for the next.
func TestQueueMax(t *testing.T) {
	left := 5
	q := Queue{
		Claim: func(context.Context) (int64, bool, error) {
			if left == 0 {
				return 0, false, nil
			}
			left--
			return int64(left), true, nil
		},
		Work: func(context.Context, int64) (int, error) { return 1, nil },
		Max:  2,
	}
	if n, _ := q.RunOnce(context.Background()); n != 2 || left != 3 {
		t.Fatalf("made %d, %d left; want 2 and 3", n, left)
	}
}
