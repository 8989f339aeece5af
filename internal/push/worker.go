package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"nothanks/internal/db"
)

// Worker tuning.
const (
	// Lease is a claim's life. A push is posted only while at least two
	// SendTimeouts of its lease are left (late), and a post ends within
	// one, so a push is posted and its result written before the lease
	// runs out: no other instance takes over a push this one still works
	// on, however long it waited behind other posts.
	Lease = time.Minute
	// SendTimeout bounds one post to a push service, from connecting to
	// the answer: a push service that holds the request is given up then,
	// and the push tried again later.
	SendTimeout = 10 * time.Second
	// Senders is how many claimed pushes an instance has at most, posting
	// or waiting (a second one to the same push service waits for the
	// first post to end), and so how many posts it has in flight.
	Senders = 8
	// PollEvery is how often RunOutbox, while posts are in flight, looks
	// for newly due pushes (as often as the app runs it when idle).
	PollEvery   = 2 * time.Second
	MaxAttempts = 8
	// FirstRetry is the wait after a first failure; each later one doubles
	// it, up to MaxRetryWait (a Retry-After the service gives wins).
	FirstRetry   = 30 * time.Second
	MaxRetryWait = time.Hour
	// RecordSize is the size of the encrypted body (one aes128gcm record,
	// padded): 3,070 bytes, the most Firefox for Android's subscriptions
	// take (autopush hands them to FCM), where 4,096 would be refused.
	RecordSize = 3070
	// MaxPayload bounds a push's JSON before encryption: a record of
	// RecordSize bytes less the header (86), the tag (16) and the padding
	// delimiter (1) holds 2,967.
	MaxPayload = 2960
)

// The lease holds four SendTimeouts: a push may be posted until two are
// left, which leaves it half the lease to wait for its push service.
// Raising SendTimeout past a quarter of Lease does not compile.
const _ = uint(Lease - 4*SendTimeout)

// NextDue is when the earliest pending push is due (nil: none).
func (s *Service) NextDue(ctx context.Context) (*time.Time, error) { return s.store.NextPushAt(ctx) }

// handle decides, composes and sends one claimed push to its device (d,
// loaded when it was claimed; nil if removed since). Only database errors
// are returned; a failed send is retried later.
//
// Once it has begun, the push's reads, its post and the writing of the
// outcome go on when ctx ends (shutting down), so that a push posted is
// recorded as such rather than left claimed for another instance to post
// again when the claim runs out; the post is bounded by SendTimeout. A
// push not yet posted when ctx ends is given back untried instead.
func (s *Service) handle(ctx context.Context, m db.Mail, d *db.PushDevice) (bool, error) {
	run := ctx
	ctx = context.WithoutCancel(ctx)
	now := s.clock.Now()
	mark := func(status, why string) (bool, error) {
		return false, s.store.MarkMails(ctx, []int64{m.ID}, status, why, now)
	}
	if d == nil {
		return mark("skipped", "device removed")
	}
	r, err := s.store.Recipient(ctx, m.UserID)
	if errors.Is(err, db.ErrNotFound) || err == nil && d.UserID != m.UserID {
		return mark("skipped", "no such user, or the device is someone else's now")
	}
	if err != nil {
		return false, err
	}
	settings, err := s.store.PushSettingsOf(ctx, m.UserID)
	if err != nil {
		return false, err
	}
	if !settings.Wants(m.Kind) {
		return mark("skipped", "turned off")
	}
	out, err := s.compose(ctx, r, *d, m, now)
	if err != nil {
		return false, err
	}
	if !out.later.IsZero() {
		return false, s.store.PostponeMails(ctx, []int64{m.ID}, out.later)
	}
	if out.msg == nil {
		return mark("skipped", out.skip)
	}
	body, err := json.Marshal(out.msg.Payload)
	if err != nil {
		return false, err
	}
	if len(body) > MaxPayload {
		return mark("failed", fmt.Sprintf("payload of %d bytes", len(body)))
	}
	if run.Err() != nil || s.late(m) {
		return false, s.giveBack(ctx, m)
	}
	status, retryAfter, sendErr := s.send(ctx, *d, body, out.msg)
	switch {
	case sendErr == nil && status >= 200 && status < 300:
		if err := s.store.PushDelivered(ctx, d.ID, s.clock.Now()); err != nil {
			return false, err
		}
		return true, s.store.MarkMails(ctx, []int64{m.ID}, "sent", "", s.clock.Now())
	case status == http.StatusNotFound || status == http.StatusGone:
		// The browser unsubscribed or the subscription expired: the device
		// is forgotten with every push still waiting for it.
		s.log.Info("push device gone; forgotten", "device", d.ID, "user", d.UserID, "status", status)
		return false, s.store.ForgetPushEndpoint(ctx, d.ID)
	case sendErr != nil || status == http.StatusTooManyRequests || status >= 500:
		why := fmt.Sprintf("push service answered %d", status)
		if sendErr != nil {
			why = sendErr.Error()
		}
		return false, s.retry(ctx, m, *d, why, retryAfter, now)
	default:
		why := fmt.Sprintf("push service refused it: %d", status)
		if err := s.store.PushFailed(ctx, d.ID, why); err != nil {
			return false, err
		}
		return mark("failed", why)
	}
}

// send posts the encrypted push. It returns the service's status and its
// Retry-After; an error is a network failure.
func (s *Service) send(ctx context.Context, d db.PushDevice, body []byte, msg *message) (int, time.Duration, error) {
	ttl := max(int(msg.TTL/time.Second), 0)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.SendTimeout)
	defer cancel()
	resp, err := webpush.SendNotificationWithContext(ctx, body, &webpush.Subscription{Endpoint: d.Endpoint, Keys: webpush.Keys{P256dh: d.P256dh, Auth: d.Auth}},
		&webpush.Options{HTTPClient: s.client, Subscriber: subscriber(s.cfg.Subject), VAPIDPublicKey: s.cfg.Keys.Public, VAPIDPrivateKey: s.cfg.Keys.Private,
			TTL: ttl, Urgency: msg.Urgency, Topic: msg.Topic, RecordSize: RecordSize})
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, retryAfter(resp.Header.Get("Retry-After"), s.clock.Now()), nil
}

// subscriber is the VAPID subject as webpush-go wants it: it adds "mailto:"
// itself to anything that is not an https URL.
func subscriber(subject string) string {
	return strings.TrimPrefix(subject, "mailto:")
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if n, err := strconv.Atoi(h); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// retry puts a push back with a growing wait (or the service's
// Retry-After, if longer), giving up after MaxAttempts tries.
func (s *Service) retry(ctx context.Context, m db.Mail, d db.PushDevice, why string, after time.Duration, now time.Time) error {
	s.log.Warn("push not delivered; will retry", "push", m.ID, "device", d.ID, "attempt", m.Attempts, "err", why)
	if err := s.store.PushFailed(ctx, d.ID, why); err != nil {
		return err
	}
	if m.Attempts >= MaxAttempts {
		return s.store.MarkMails(ctx, []int64{m.ID}, "failed", why, now)
	}
	wait := min(FirstRetry<<(m.Attempts-1), MaxRetryWait)
	wait = max(wait, min(after, 24*time.Hour))
	return s.store.RetryMails(ctx, []int64{m.ID}, now.Add(wait), why)
}
