// Package push notifies a person's devices through their browsers' push
// services (Web Push: RFC 8030 delivery, RFC 8291 aes128gcm encryption,
// RFC 8292 VAPID), so that a correspondence player with no page of the
// site open still learns that a game waits for them.
//
// A push is a row of the outbox, as a mail is: the transaction of the
// event writes one row per device of the person (channel 'push'), and the
// worker here claims due rows with a lease (FOR UPDATE SKIP LOCKED),
// decides from the current state whether each is still worth sending,
// composes it in the person's language and posts it with
// github.com/SherClockHolmes/webpush-go. Posts go out concurrently, a few
// at a time and one at a time to each push service, each bounded by a
// timeout well inside the lease, so that a service that hangs holds up
// only its own devices. A 429 or 5xx is retried with backoff (Retry-After
// honoured), a 404 or 410 forgets the device, and a worker that dies
// leaves its claim to run out for another instance.
package push

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
)

// Keys is the site's VAPID key pair, base64url without padding: the
// public key is the browsers' applicationServerKey, the private one signs
// each push's JWT.
type Keys struct {
	Public  string
	Private string
}

// SecretStore keeps a secret generated once (db.Store.Secret).
type SecretStore interface {
	Secret(ctx context.Context, name string, generate func() ([]byte, error)) ([]byte, error)
}

var b64 = base64.RawURLEncoding

// LoadKeys returns the key pair given in the environment (checked: the
// public key must be the private key's), or else the pair generated once
// and kept in the database, so that every instance and every restart signs
// alike and the browsers' subscriptions stay valid.
func LoadKeys(ctx context.Context, public, private string, secrets SecretStore) (Keys, error) {
	if private != "" {
		raw, err := decodeKey(private)
		if err != nil {
			return Keys{}, fmt.Errorf("push: PUSH_VAPID_PRIVATE_KEY is not a base64url P-256 private key: %w", err)
		}
		k, err := ecdh.P256().NewPrivateKey(raw)
		if err != nil {
			return Keys{}, fmt.Errorf("push: PUSH_VAPID_PRIVATE_KEY is not a P-256 private key: %w", err)
		}
		pub := b64.EncodeToString(k.PublicKey().Bytes())
		if given, err := decodeKey(public); err != nil || b64.EncodeToString(given) != pub {
			return Keys{}, errors.New("push: PUSH_VAPID_PUBLIC_KEY is not the public half of PUSH_VAPID_PRIVATE_KEY")
		}
		return Keys{Public: pub, Private: b64.EncodeToString(raw)}, nil
	}
	raw, err := secrets.Secret(ctx, "vapid_private_key", func() ([]byte, error) {
		k, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		return k.Bytes(), nil
	})
	if err != nil {
		return Keys{}, err
	}
	k, err := ecdh.P256().NewPrivateKey(raw)
	if err != nil {
		return Keys{}, fmt.Errorf("push: the stored VAPID key: %w", err)
	}
	return Keys{Public: b64.EncodeToString(k.PublicKey().Bytes()), Private: b64.EncodeToString(raw)}, nil
}

// decodeKey reads base64url with or without padding.
func decodeKey(s string) ([]byte, error) {
	return b64.DecodeString(strings.TrimRight(strings.TrimSpace(s), "="))
}

// Config is what the service needs from the server's settings.
type Config struct {
	Keys Keys
	// Subject is the VAPID "sub": a mailto: or https: address.
	Subject string
	// AllowLocal lets devices name endpoints on loopback and private
	// addresses, over http (development and tests).
	AllowLocal bool
	// Senders bounds the pushes claimed at once on this instance, posting
	// or waiting for their push service (and so the posts in flight);
	// Senders (8) when zero.
	Senders int
	// SendTimeout bounds one post; SendTimeout when zero, and never more,
	// since the lease is sized for it (tests lower it).
	SendTimeout time.Duration
}

// Service keeps devices and sends pushes.
type Service struct {
	store  *db.Store
	games  *games.Service
	cfg    Config
	client *http.Client
	clock  clock.Clock
	log    *slog.Logger
	// slots holds a token for each claimed push not yet done (at most
	// Senders), and lanes the claimed pushes waiting for their push
	// service.
	slots chan struct{}
	lanes lanes
}

// New returns the service.
func New(store *db.Store, g *games.Service, cfg Config, clk clock.Clock, log *slog.Logger) *Service {
	if cfg.Senders <= 0 {
		cfg.Senders = Senders
	}
	if cfg.SendTimeout <= 0 || cfg.SendTimeout > SendTimeout {
		cfg.SendTimeout = SendTimeout
	}
	return &Service{store: store, games: g, cfg: cfg, client: newClient(cfg.AllowLocal, cfg.SendTimeout), clock: clk, log: log,
		slots: make(chan struct{}, cfg.Senders), lanes: lanes{queue: map[string][]*waiter{}}}
}

// PublicKey is the applicationServerKey the browsers subscribe with.
func (s *Service) PublicKey() string { return s.cfg.Keys.Public }

// newClient is the client that posts to push services. An endpoint is a
// URL a person gave, so unless local addresses are allowed the client
// refuses to connect to loopback, private, link-local or unspecified
// addresses, checked at connection time (a name that resolves to such an
// address later is refused too).
func newClient(allowLocal bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowLocal {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !public(ip) {
				return fmt.Errorf("push: refusing to connect to %s: not a public address", host)
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = dialer.DialContext
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func public(ip net.IP) bool {
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast())
}

// Subscription is what a browser's PushSubscription.toJSON() gives; an
// app may name its device too.
type Subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	// ExpirationTime is when the push service will end the subscription
	// (milliseconds since 1970, null for never), as toJSON() gives it:
	// accepted so that the browser's object can be sent as it is, not
	// kept (a push after it is answered 404 or 410 and the device is
	// forgotten then).
	ExpirationTime *float64 `json:"expirationTime,omitempty"`
	// Name, when given, names the device rather than its user agent.
	Name string `json:"name,omitempty"`
}

// MaxDeviceName bounds a device's name, in characters.
const MaxDeviceName = 40

// MaxEndpoint bounds an endpoint URL's length.
const MaxEndpoint = 2048

// Check refuses a subscription that cannot be a browser's: an endpoint
// that is not an https URL (http on a local address only when allowed),
// keys that are not a P-256 public key and a 16-byte secret.
func (s *Service) Check(sub Subscription) error {
	u, err := url.Parse(sub.Endpoint)
	if sub.Endpoint == "" || len(sub.Endpoint) > MaxEndpoint || err != nil || u.Host == "" || u.User != nil {
		return apperr.E(apperr.Invalid, "This device's push address is not a URL. Try again, or use another browser.")
	}
	local := false
	if ip := net.ParseIP(u.Hostname()); ip != nil && !public(ip) || u.Hostname() == "localhost" {
		local = true
	}
	switch {
	case local && !s.cfg.AllowLocal:
		return apperr.E(apperr.Invalid, "This device's push address is on a private network; the server only posts to public push services.")
	case u.Scheme != "https" && !(u.Scheme == "http" && local && s.cfg.AllowLocal):
		return apperr.E(apperr.Invalid, "This device's push address must be an https URL.")
	}
	p, err := decodeKey(sub.Keys.P256dh)
	if err == nil {
		_, err = ecdh.P256().NewPublicKey(p)
	}
	if err != nil {
		return apperr.E(apperr.Invalid, "This device's push key is not a P-256 public key. Try again, or use another browser.")
	}
	if a, err := decodeKey(sub.Keys.Auth); err != nil || len(a) != 16 {
		return apperr.E(apperr.Invalid, "This device's push secret is not 16 bytes. Try again, or use another browser.")
	}
	return nil
}

// Subscribe stores a device of a person, named after its user agent.
func (s *Service) Subscribe(ctx context.Context, userID int64, sub Subscription, userAgent string) (db.PushDevice, error) {
	if err := s.Check(sub); err != nil {
		return db.PushDevice{}, err
	}
	name := DeviceName(userAgent)
	if sub.Name != "" {
		n, err := deviceName(sub.Name)
		if err != nil {
			return db.PushDevice{}, err
		}
		name = n
	}
	d, ok, err := s.store.AddPushDevice(ctx, db.PushDevice{UserID: userID, Endpoint: sub.Endpoint, P256dh: sub.Keys.P256dh, Auth: sub.Keys.Auth,
		Name: name, CreatedAt: s.clock.Now()}, sub.Name != "")
	if err != nil {
		return db.PushDevice{}, err
	}
	if !ok {
		return db.PushDevice{}, apperr.E(apperr.Conflict, "You have %d devices notified already: remove one first.", db.MaxPushDevices)
	}
	return d, nil
}

// deviceName checks a name a person gives a device: 1 to MaxDeviceName
// characters on one line, spaces around it dropped.
func deviceName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || utf8.RuneCountInString(n) > MaxDeviceName || !utf8.ValidString(n) || strings.IndexFunc(n, unicode.IsControl) >= 0 {
		return "", apperr.E(apperr.Invalid, "A device's name is 1 to %d characters on one line.", MaxDeviceName)
	}
	return n, nil
}

// Rename names a device of a person.
func (s *Service) Rename(ctx context.Context, userID, id int64, name string) (db.PushDevice, error) {
	n, err := deviceName(name)
	if err != nil {
		return db.PushDevice{}, err
	}
	d, err := s.store.RenamePushDevice(ctx, userID, id, n)
	if errors.Is(err, db.ErrNotFound) {
		return d, apperr.E(apperr.NotFound, "You have no such device: it was removed already.")
	}
	return d, err
}

// Devices lists a person's devices.
func (s *Service) Devices(ctx context.Context, userID int64) ([]db.PushDevice, error) {
	return s.store.PushDevices(ctx, userID)
}

// Remove forgets a device of a person.
func (s *Service) Remove(ctx context.Context, userID, id int64) error {
	ok, err := s.store.RemovePushDevice(ctx, userID, id)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.E(apperr.NotFound, "You have no such device: it was removed already.")
	}
	return nil
}

// Test sends a test notification to a device of a person.
func (s *Service) Test(ctx context.Context, userID, id int64) error {
	d, err := s.store.PushDevice(ctx, id)
	if errors.Is(err, db.ErrNotFound) || err == nil && d.UserID != userID {
		return apperr.E(apperr.NotFound, "You have no such device: it was removed already.")
	}
	if err != nil {
		return err
	}
	return s.store.EnqueueDevicePush(ctx, userID, id, db.PushTest, s.clock.Now())
}

// Settings loads the kinds of push a person wants.
func (s *Service) Settings(ctx context.Context, userID int64) (db.PushSettings, error) {
	return s.store.PushSettingsOf(ctx, userID)
}

// SetSettings stores them.
func (s *Service) SetSettings(ctx context.Context, userID int64, p db.PushSettings) error {
	return s.store.SetPushSettings(ctx, userID, p)
}
