// Package clock lets code take time from an injected clock, so tests of
// deadlines, throttling and expiry run instantly.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// Real is the system clock.
type Real struct{}

func (Real) Now() time.Time { return time.Now() }

// Fake is a clock that moves only when told to.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a fake clock set at t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// Offset is the system clock moved forward by however much tests advance
// it: time passes as usual, and a test can jump past a deadline.
type Offset struct {
	mu     sync.Mutex
	offset time.Duration
}

func (o *Offset) Now() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Now().Add(o.offset)
}

// Advance moves the clock forward by d.
func (o *Offset) Advance(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.offset += d
}
