package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"nothanks/internal/db/dbtest"
)

func TestCountAttempt(t *testing.T) {
	s := dbtest.New(t)
	ctx := context.Background()
	now := time.Now()
	window := 15 * time.Minute
	const limit, n = 5, 20
	counts := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a, err := s.CountAttempt(ctx, "user:1", limit, now, now.Add(-window))
			if err != nil {
				t.Error(err)
			}
			counts[i] = a.Count
		})
	}
	wg.Wait()
	seen := map[int]int{}
	for _, c := range counts {
		seen[c]++
	}
	for c := 1; c <= limit; c++ {
		if seen[c] != 1 {
			t.Errorf("count %d given to %d of %d parallel attempts, want exactly one; %v", c, seen[c], n, seen)
		}
	}
	if seen[limit+1] != n-limit {
		t.Errorf("%d attempts past the limit, want %d; %v", seen[limit+1], n-limit, seen)
	}

	t.Run("UncountGivesOneBack", func(t *testing.T) {
		a, _ := s.CountAttempt(ctx, "ip:x", limit, now, now.Add(-window))
		if err := s.UncountAttempt(ctx, a); err != nil {
			t.Fatal(err)
		}
		if b, _ := s.CountAttempt(ctx, "ip:x", limit, now, now.Add(-window)); b.Count != 1 {
			t.Errorf("after an uncount, count %d, want 1", b.Count)
		}
	})
	t.Run("NewWindow", func(t *testing.T) {
		later := now.Add(window)
		a, err := s.CountAttempt(ctx, "user:1", limit, later, later.Add(-window))
		if err != nil {
			t.Fatal(err)
		}
		if a.Count != 1 || !a.WindowFrom.After(now) {
			t.Errorf("a window later: count %d from %v, want 1 from %v", a.Count, a.WindowFrom, later)
		}
	})
	t.Run("ClearAndDeleteOld", func(t *testing.T) {
		if err := s.ClearAttempts(ctx, "user:1"); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.CountAttempt(ctx, "user:1", limit, now, now.Add(-window)); a.Count != 1 {
			t.Errorf("after clearing: count %d, want 1", a.Count)
		}
		if err := s.DeleteOldAttempts(ctx, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if a, _ := s.CountAttempt(ctx, "ip:x", limit, now, now.Add(-window)); a.Count != 1 {
			t.Errorf("after deleting old counters: count %d, want 1", a.Count)
		}
	})
}
