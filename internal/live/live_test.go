package live

import "testing"

func pending(s *Sub) bool {
	select {
	case <-s.C:
		return true
	default:
		return false
	}
}

func TestBrokerWakesOnlyThatGameAndCoalesces(t *testing.T) {
	b := NewBroker()
	one, two, all := b.Subscribe(1), b.Subscribe(2), b.SubscribeAll()
	for range 5 {
		b.Publish(1) // never blocks, however many come
	}
	if !pending(one) || pending(one) {
		t.Error("game 1's subscriber did not get exactly one pending wake-up")
	}
	if pending(two) {
		t.Error("game 2's subscriber was woken by game 1")
	}
	if !pending(all) {
		t.Error("the all-games subscriber was not woken")
	}
	b.PublishAll()
	if !pending(one) || !pending(two) || !pending(all) {
		t.Error("PublishAll missed a subscriber")
	}
	b.Unsubscribe(one)
	b.Publish(1)
	if pending(one) || b.Subscribers(1) != 0 {
		t.Error("an unsubscribed subscriber is still woken")
	}
	b.Close()
	b.Close() // twice is fine
	select {
	case <-b.Done():
	default:
		t.Error("Done is not closed after Close")
	}
}
