// Package pushtest is the tests' Web Push service: an HTTP server that
// stands where a browser's push service (Mozilla's autopush, Google's FCM,
// Apple's web.push.apple.com) stands in production, refuses whatever a
// real one refuses, and then opens each accepted message as the browser
// would, so that a test can assert on the very bytes its service worker
// would be handed.
//
// A test makes a Device (a push subscription: endpoint, p256dh key and auth
// secret, as PushSubscription.toJSON() gives them) and hands it to the site
// as the browser's JavaScript would. Every POST the site then makes to the
// endpoint is checked against:
//
//   - RFC 8030 (delivery): POST, a TTL header, a valid Urgency and Topic if
//     present, a body of at most 4096 bytes;
//   - RFC 8292 (VAPID): an "Authorization: vapid t=<JWT>, k=<key>" header
//     whose ES256 JWT verifies with k and names the endpoint's origin as
//     aud, a sub that is a mailto: or https: URL, and an exp in the future
//     and at most 24 hours ahead;
//   - RFC 8188 and RFC 8291 (encryption): Content-Encoding aes128gcm, a
//     single record keyed to the device's own p256dh key and auth secret,
//     with valid padding.
//
// A request that fails any of these is answered 400 (401 or 403 for the
// VAPID checks, 405 for a method other than POST, 413 for a body too large)
// with the reason in the body, and the reason is kept: Rejections lists
// them, and a test asserts it is empty. An accepted message is answered
// 201 Created, as RFC 8030 says, and kept, decrypted, as a Push.
//
// The service is written from the RFCs alone, with the standard library:
// it does not import github.com/SherClockHolmes/webpush-go, the library the
// site sends with. A check built on the sender's own code would share its
// mistakes (the wrong aud, the wrong key derivation, a doubled "mailto:")
// and pass them; this one decrypts and verifies independently, and its own
// tests hold it to the RFCs' published examples.
//
// Failures a real service answers with can be programmed per device:
// FailNext (503 or 429, with Retry-After) and Gone (410), so that the
// site's retries and its forgetting of dead subscriptions can be tested;
// Hold keeps one request waiting, and Hang has the whole service stall;
// OnAccept runs a test's code between taking a message and answering.
package pushtest

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxBody is the largest body the service takes: RFC 8030 §7.2 has push
// services accept at least 4096 bytes of payload, and the common ones
// accept no more. A larger body is refused with 413.
const MaxBody = 4096

// MaxExpiry is how far ahead a VAPID JWT's exp may be (RFC 8292 §2).
const MaxExpiry = 24 * time.Hour

var b64 = base64.RawURLEncoding

// Device is a browser's push subscription: its endpoint and keys, as
// PushSubscription.toJSON() gives them to the site, and the private half
// the browser keeps to decrypt what is pushed to it.
type Device struct {
	Name     string
	Endpoint string // the server's URL + "/push/" + a random token
	P256dh   string // base64url (no padding) uncompressed P-256 public key, 65 bytes: getKey('p256dh')
	Auth     string // base64url (no padding) 16-byte authentication secret: getKey('auth')

	token  string
	origin string // scheme://host[:port] of Endpoint: the aud a JWT must name
	priv   *ecdh.PrivateKey
	auth   []byte
}

// Push is one message the service accepted.
type Push struct {
	Device     *Device
	Payload    []byte // the decrypted plaintext, padding removed
	TTL        int    // seconds, from the TTL header
	Urgency    string // the Urgency header; "" if absent
	Topic      string // the Topic header; "" if absent
	Subscriber string // the VAPID JWT's sub claim
	At         time.Time
}

// Server is the fake push service. Its methods are safe for concurrent use.
type Server struct {
	URL string // base URL of the service, as http://127.0.0.1:port

	srv *httptest.Server

	mu         sync.Mutex
	devices    map[string]*endpoint // by token
	pushes     []Push
	rejections []string
	changed    chan struct{} // closed, and replaced, whenever a push is accepted
	messages   int           // numbers the Location of accepted messages
	hung       chan struct{} // while not nil, every valid request waits for it (Hang)
}

// endpoint is the service's side of a device: its counters and the
// failures programmed for it.
type endpoint struct {
	dev       *Device
	requests  int
	failN     int
	failCode  int
	failAfter string
	gone      bool
	maxBody   int    // the most this device takes; MaxBody unless LimitBody lowered it
	appKey    []byte // the applicationServerKey it subscribed with; nil if none
	hold      *hold  // the next valid request waits for this, if set
	onAccept  func() // called once the next message is kept, before the answer (OnAccept)
}

// hold is a request kept waiting: arrived closes when it comes, release
// lets it be answered.
type hold struct {
	arrived, release chan struct{}
}

// New starts a push service on a loopback port. Close it when done.
func New() *Server {
	s := &Server{devices: map[string]*endpoint{}, changed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL
	return s
}

// Close shuts the service down.
func (s *Server) Close() { s.srv.Close() }

// NewDevice subscribes a new browser: a fresh P-256 key pair and auth
// secret, and an endpoint of its own on this service. Any VAPID key may
// push to it, as to a subscription made without an applicationServerKey.
func (s *Server) NewDevice(name string) *Device {
	return s.newDevice(name, nil)
}

// NewDeviceWithKey subscribes a browser as pushManager.subscribe does
// when given an applicationServerKey (base64url, the site's VAPID public
// key): the service then refuses, with 403, a push whose VAPID k is any
// other key (RFC 8292 §4.2), as real services do. It panics if the key is
// not a base64url uncompressed P-256 point: that is the test's mistake.
func (s *Server) NewDeviceWithKey(name, applicationServerKey string) *Device {
	k, err := b64.DecodeString(strings.TrimRight(applicationServerKey, "="))
	if err == nil {
		_, err = ecdh.P256().NewPublicKey(k)
	}
	if err != nil {
		panic(fmt.Sprintf("pushtest: applicationServerKey %q is not a base64url P-256 public key: %v", applicationServerKey, err))
	}
	return s.newDevice(name, k)
}

func (s *Server) newDevice(name string, appKey []byte) *Device {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	auth, tok := make([]byte, 16), make([]byte, 16)
	rand.Read(auth)
	rand.Read(tok)
	d := &Device{
		Name:   name,
		P256dh: b64.EncodeToString(priv.PublicKey().Bytes()),
		Auth:   b64.EncodeToString(auth),
		token:  b64.EncodeToString(tok),
		priv:   priv,
		auth:   auth,
	}
	d.Endpoint = s.URL + "/push/" + d.token
	u, _ := url.Parse(d.Endpoint)
	d.origin = u.Scheme + "://" + u.Host
	s.mu.Lock()
	s.devices[d.token] = &endpoint{dev: d, maxBody: MaxBody, appKey: appKey}
	s.mu.Unlock()
	return d
}

// Pushes returns the pushes accepted so far, in order of arrival.
func (s *Server) Pushes() []Push {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Push(nil), s.pushes...)
}

// PushesTo returns the pushes accepted for one device, in order.
func (s *Server) PushesTo(d *Device) []Push {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Push
	for _, p := range s.pushes {
		if p.Device == d {
			out = append(out, p)
		}
	}
	return out
}

// Wait waits until at least n pushes have been accepted in all, and
// returns them all; after timeout it returns those there are and an error.
func (s *Server) Wait(n int, timeout time.Duration) ([]Push, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got, changed, refused := len(s.pushes), s.changed, len(s.rejections)
		s.mu.Unlock()
		if got >= n {
			return s.Pushes(), nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return s.Pushes(), fmt.Errorf("pushtest: %d of %d pushes after %s (%d requests refused)", got, n, timeout, refused)
		}
	}
}

// Rejections returns every request refused for a protocol error, each as
// "device: status reason", in order. Programmed failures (FailNext, Gone)
// and requests to unknown endpoints are not protocol errors and are not
// listed.
func (s *Server) Rejections() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejections...)
}

// Requests returns how many requests reached the device's endpoint:
// accepted, refused, or answered with a programmed failure.
func (s *Server) Requests(d *Device) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.devices[d.token]; e != nil {
		return e.requests
	}
	return 0
}

// FailNext has the device's next n valid requests answered with status
// (503 or 429, say), with a Retry-After header if retryAfter is not empty.
// They are not recorded as pushes. A request that breaks the protocol is
// still refused for that, and does not use up one of the n.
func (s *Server) FailNext(d *Device, n int, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.mustEndpoint(d)
	e.failN, e.failCode, e.failAfter = n, status, retryAfter
}

// Gone has every later valid request to the device answered 410 Gone, as
// when the browser has unsubscribed or the subscription has expired.
func (s *Server) Gone(d *Device) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustEndpoint(d).gone = true
}

// Hold has the device's next valid request wait, unanswered, until
// release is called (or its sender goes away): arrived closes when it
// comes. It is not recorded as a push and is answered 503 when released,
// as a push service that failed before taking the message would. It lets
// a test kill a sender in the middle of a send.
func (s *Server) Hold(d *Device) (arrived <-chan struct{}, release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &hold{arrived: make(chan struct{}), release: make(chan struct{})}
	s.mustEndpoint(d).hold = h
	var once sync.Once
	return h.arrived, func() { once.Do(func() { close(h.release) }) }
}

// Hang has the whole service stop answering, as a push service that
// takes the connection and then stalls: every later valid request, to any
// of its devices, waits unanswered until release is called or its sender
// gives up, and is then answered 503 and not recorded as a push (Requests
// counts it). After release the service answers as before. It lets a test
// show that a hung service holds up only its own devices.
func (s *Server) Hang() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := make(chan struct{})
	s.hung = h
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.hung == h {
				s.hung = nil
			}
			s.mu.Unlock()
			close(h)
		})
	}
}

// OnAccept has f called when the device's next message has been accepted
// and kept as a push, before it is answered 201: a test can end the
// sender's context right then, after the push service has taken the
// message and before the sender knows.
func (s *Server) OnAccept(d *Device, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustEndpoint(d).onAccept = f
}

// LimitBody has the device refuse, with 413, a body longer than n bytes,
// as a constrained device does: Firefox for Android's subscriptions go
// through autopush's bridge to FCM, which takes about 3070 bytes, so a
// sender that pads every message to 4096 bytes never reaches them. Such a
// refusal is listed in Rejections.
func (s *Server) LimitBody(d *Device, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustEndpoint(d).maxBody = n
}

func (s *Server) mustEndpoint(d *Device) *endpoint {
	e := s.devices[d.token]
	if e == nil || e.dev != d {
		panic(fmt.Sprintf("pushtest: device %q is not one of this server's", d.Name))
	}
	return e
}

// refusal is a request refused for a protocol error.
type refusal struct {
	status int
	reason string
}

func refuse(status int, format string, args ...any) *refusal {
	return &refusal{status, fmt.Sprintf(format, args...)}
}

// serveHTTP is the push service: a message to an endpoint is checked,
// then answered with a programmed failure if there is one, else decrypted
// and kept.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.URL.Path, "/push/")
	s.mu.Lock()
	e := s.devices[token]
	if !ok || e == nil {
		s.mu.Unlock()
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	}
	e.requests++
	maxBody, appKey := e.maxBody, e.appKey
	s.mu.Unlock()

	p, ref := check(r, e.dev, maxBody, appKey, time.Now())
	if ref != nil {
		s.mu.Lock()
		s.rejections = append(s.rejections, fmt.Sprintf("%s: %d %s", e.dev.Name, ref.status, ref.reason))
		s.mu.Unlock()
		if ref.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", http.MethodPost)
		}
		if ref.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", "vapid")
		}
		http.Error(w, ref.reason, ref.status)
		return
	}

	s.mu.Lock()
	if h := e.hold; h != nil {
		e.hold = nil
		s.mu.Unlock()
		close(h.arrived)
		stall(w, r, h.release)
		return
	}
	if h := s.hung; h != nil {
		s.mu.Unlock()
		stall(w, r, h)
		return
	}
	switch {
	case e.gone:
		s.mu.Unlock()
		http.Error(w, "subscription gone", http.StatusGone)
	case e.failN > 0:
		e.failN--
		code, after := e.failCode, e.failAfter
		s.mu.Unlock()
		if after != "" {
			w.Header().Set("Retry-After", after)
		}
		http.Error(w, http.StatusText(code), code)
	default:
		s.messages++
		n := s.messages
		p.At = time.Now()
		s.pushes = append(s.pushes, p)
		close(s.changed)
		s.changed = make(chan struct{})
		f := e.onAccept
		e.onAccept = nil
		s.mu.Unlock()
		if f != nil {
			f()
		}
		w.Header().Set("Location", fmt.Sprintf("%s/message/%d", s.URL, n))
		w.WriteHeader(http.StatusCreated)
	}
}

// stall keeps a request unanswered until release closes or its sender
// goes away, then answers 503, as a push service that failed before
// taking the message would (Hold, Hang).
func stall(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
	select {
	case <-release:
	case <-r.Context().Done():
	}
	http.Error(w, http.StatusText(http.StatusServiceUnavailable), http.StatusServiceUnavailable)
}

// urgencies are RFC 8030 §5.3's.
var urgencies = map[string]bool{"very-low": true, "low": true, "normal": true, "high": true}

// check does all that a push service checks of a message, and decrypts
// it as the device would.
func check(r *http.Request, d *Device, maxBody int, appKey []byte, now time.Time) (Push, *refusal) {
	p := Push{Device: d}
	if r.Method != http.MethodPost {
		return p, refuse(http.StatusMethodNotAllowed, "method %s: a push message is a POST (RFC 8030 §5)", r.Method)
	}

	// RFC 8030 §5.2: TTL = 1*DIGIT, required.
	ttl, ref := single(r, "TTL")
	if ref != nil {
		return p, ref
	}
	switch {
	case ttl == "":
		return p, refuse(http.StatusBadRequest, "no TTL header (RFC 8030 §5.2 requires it)")
	case strings.Trim(ttl, "0123456789") != "":
		return p, refuse(http.StatusBadRequest, "TTL %q is not a whole number of seconds >= 0", ttl)
	}
	if n, err := strconv.Atoi(ttl); err == nil {
		p.TTL = n
	} else {
		p.TTL = int(^uint32(0) >> 1) // absurdly long: the service keeps it as long as it likes
	}

	// RFC 8030 §5.3: Urgency, optional.
	if p.Urgency, ref = single(r, "Urgency"); ref != nil {
		return p, ref
	}
	if _, present := r.Header["Urgency"]; present && !urgencies[p.Urgency] {
		return p, refuse(http.StatusBadRequest, "Urgency %q is not very-low, low, normal or high (RFC 8030 §5.3)", p.Urgency)
	}

	// RFC 8030 §5.4: Topic, optional, at most 32 base64url characters.
	if p.Topic, ref = single(r, "Topic"); ref != nil {
		return p, ref
	}
	if _, present := r.Header["Topic"]; present {
		if p.Topic == "" || len(p.Topic) > 32 || strings.Trim(p.Topic, base64URLAlphabet) != "" {
			return p, refuse(http.StatusBadRequest, "Topic %q is not 1 to 32 characters of the base64url alphabet (RFC 8030 §5.4)", p.Topic)
		}
	}

	// RFC 8292: VAPID.
	auth, ref := single(r, "Authorization")
	if ref != nil {
		return p, ref
	}
	sub, key, err := verifyVAPID(auth, d.origin, now)
	if err != nil {
		return p, refuse(http.StatusUnauthorized, "%v", err)
	}
	if appKey != nil && string(key) != string(appKey) {
		return p, refuse(http.StatusForbidden, "VAPID key k=%s is not the applicationServerKey the device subscribed with (%s) (RFC 8292 §4.2)",
			b64.EncodeToString(key), b64.EncodeToString(appKey))
	}
	p.Subscriber = sub

	// RFC 8188 / RFC 8291: the encrypted body.
	enc, ref := single(r, "Content-Encoding")
	if ref != nil {
		return p, ref
	}
	switch enc = strings.TrimSpace(enc); {
	case strings.EqualFold(enc, "aes128gcm"):
	case strings.EqualFold(enc, "aesgcm"):
		return p, refuse(http.StatusBadRequest, "Content-Encoding aesgcm is the drafts' scheme; RFC 8291 uses aes128gcm")
	case enc == "":
		return p, refuse(http.StatusBadRequest, "no Content-Encoding: a push message's body is aes128gcm (RFC 8291)")
	default:
		return p, refuse(http.StatusBadRequest, "Content-Encoding %q is not aes128gcm (RFC 8291)", enc)
	}
	if r.ContentLength > int64(maxBody) {
		return p, refuse(http.StatusRequestEntityTooLarge, "body of %d bytes; this service takes at most %d", r.ContentLength, maxBody)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(maxBody)+1))
	if err != nil {
		return p, refuse(http.StatusBadRequest, "reading the body: %v", err)
	}
	if len(body) > maxBody {
		return p, refuse(http.StatusRequestEntityTooLarge, "body of more than %d bytes; this service takes at most %d", maxBody, maxBody)
	}
	plain, records, err := decrypt(body, d.priv, d.auth)
	if err != nil {
		return p, refuse(http.StatusBadRequest, "body does not decrypt as the device would: %v", err)
	}
	if records != 1 {
		return p, refuse(http.StatusBadRequest, "body is %d records; a push message is a single record (RFC 8291 §4)", records)
	}
	p.Payload = plain
	return p, nil
}

const base64URLAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// single returns a header that must not be repeated; "" if absent.
func single(r *http.Request, name string) (string, *refusal) {
	v := r.Header.Values(name)
	switch len(v) {
	case 0:
		return "", nil
	case 1:
		return v[0], nil
	}
	return "", refuse(http.StatusBadRequest, "%d %s headers; at most one is allowed", len(v), name)
}
