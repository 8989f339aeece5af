package pushtest

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
)

func unb64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := b64.DecodeString(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return b
}

// The published examples are the independent check of the decryption:
// RFC 8291 Appendix A (the Web Push key derivation and a single record)
// and RFC 8188 §3.1 and §3.2 (the content coding; §3.2 has two records,
// the first padded, and the keyid "a1").
func TestRFCExamples(t *testing.T) {
	t.Run("RFC 8291 appendix A", func(t *testing.T) {
		ua, err := ecdh.P256().NewPrivateKey(unb64(t, "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"))
		if err != nil {
			t.Fatal(err)
		}
		if got := b64.EncodeToString(ua.PublicKey().Bytes()); got != "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4" {
			t.Fatalf("ua_public %s", got)
		}
		body := unb64(t, "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
		plain, records, err := decrypt(body, ua, unb64(t, "BTBZMqHH6r4Tts7J_aSIgg"))
		if err != nil || records != 1 || string(plain) != "When I grow up, I want to be a watermelon" {
			t.Fatalf("%q in %d records, %v", plain, records, err)
		}
		// Another auth secret, or another device's key: no message.
		if _, _, err := decrypt(body, ua, make([]byte, 16)); err == nil {
			t.Error("decrypted with the wrong auth secret")
		}
		other, _ := ecdh.P256().GenerateKey(rand.Reader)
		if _, _, err := decrypt(body, other, unb64(t, "BTBZMqHH6r4Tts7J_aSIgg")); err == nil {
			t.Error("decrypted with another device's key")
		}
	})
	for _, c := range []struct {
		name, ikm, body, keyid string
		rs, records            int
	}{
		{"RFC 8188 3.1", "yqdlZ-tYemfogSmv7Ws5PQ", "I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg", "", 4096, 1},
		{"RFC 8188 3.2", "BO3ZVPxUlnLORbVGMpbT1Q", "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA", "a1", 25, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			salt, rs, keyid, ct, err := parseHeader(unb64(t, c.body))
			if err != nil || rs != c.rs || string(keyid) != c.keyid {
				t.Fatalf("header: rs %d, keyid %q, %v", rs, keyid, err)
			}
			plain, records, err := openRecords(unb64(t, c.ikm), salt, rs, ct)
			if err != nil || records != c.records || string(plain) != "I am the walrus" {
				t.Fatalf("%q in %d records, %v", plain, records, err)
			}
			// A body cut short at a record boundary is caught: its last
			// record then ends with the non-last delimiter.
			if c.records > 1 {
				if _, _, err := openRecords(unb64(t, c.ikm), salt, rs, ct[:rs]); err == nil || !strings.Contains(err.Error(), "delimiter") {
					t.Errorf("truncated to one record: %v", err)
				}
			}
		})
	}
}

func TestDevice(t *testing.T) {
	s := New()
	defer s.Close()
	d, e := s.NewDevice("phone"), s.NewDevice("laptop")
	if !strings.HasPrefix(d.Endpoint, s.URL+"/push/") || d.Endpoint == e.Endpoint || d.Name != "phone" {
		t.Errorf("endpoints %q and %q on %q", d.Endpoint, e.Endpoint, s.URL)
	}
	if k := unb64(t, d.P256dh); len(k) != 65 || k[0] != 4 {
		t.Errorf("p256dh of %d bytes", len(k))
	}
	if a := unb64(t, d.Auth); len(a) != 16 {
		t.Errorf("auth of %d bytes", len(a))
	}
	if d.P256dh == e.P256dh || d.Auth == e.Auth {
		t.Error("two devices share keys")
	}
}

// vapidKeys are a site's VAPID key pair, as webpush.GenerateVAPIDKeys
// makes them.
func vapidKeys(t *testing.T) (private, public string) {
	t.Helper()
	private, public, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	return private, public
}

// sendWebpush sends msg to d with the site's library.
func sendWebpush(t *testing.T, d *Device, msg []byte, o *webpush.Options) *http.Response {
	t.Helper()
	res, err := webpush.SendNotificationWithContext(context.Background(), msg,
		&webpush.Subscription{Endpoint: d.Endpoint, Keys: webpush.Keys{P256dh: d.P256dh, Auth: d.Auth}}, o)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func noRejections(t *testing.T, s *Server) {
	t.Helper()
	if r := s.Rejections(); len(r) > 0 {
		t.Fatalf("refused: %q", r)
	}
}

func TestWebpushGoMessageArrives(t *testing.T) {
	s := New()
	defer s.Close()
	d, other := s.NewDevice("phone"), s.NewDevice("laptop")
	priv, pub := vapidKeys(t)
	msg := []byte(`{"title":"Your turn in No Thanks! game #7","body":"Card 33 — ¿tomas o pasas?","url":"/games/7"}`)
	// webpush-go v1.4.0 puts "mailto:" in front of any subscriber that
	// does not start with "https:", so the address goes in bare (see
	// TestWebpushGoDoublesAMailtoSubscriber).
	res := sendWebpush(t, d, msg, &webpush.Options{Subscriber: "test@example.com", TTL: 60, Urgency: webpush.UrgencyHigh, Topic: "game-7",
		VAPIDPublicKey: pub, VAPIDPrivateKey: priv})
	if res.StatusCode != http.StatusCreated || !strings.HasPrefix(res.Header.Get("Location"), s.URL+"/message/") {
		t.Fatalf("%d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	noRejections(t, s)
	got, err := s.Wait(1, time.Second)
	if err != nil || len(got) != 1 {
		t.Fatalf("%d pushes, %v", len(got), err)
	}
	p := got[0]
	if p.Device != d || !bytes.Equal(p.Payload, msg) {
		t.Errorf("to %q: %q", p.Device.Name, p.Payload)
	}
	if p.TTL != 60 || p.Urgency != "high" || p.Topic != "game-7" || p.Subscriber != "mailto:test@example.com" {
		t.Errorf("TTL %d, Urgency %q, Topic %q, Subscriber %q", p.TTL, p.Urgency, p.Topic, p.Subscriber)
	}
	if time.Since(p.At) > time.Minute {
		t.Errorf("at %s", p.At)
	}
	if n := len(s.PushesTo(other)); n != 0 || s.Requests(d) != 1 || s.Requests(other) != 0 {
		t.Errorf("%d pushes to the other device; requests %d and %d", n, s.Requests(d), s.Requests(other))
	}

	// An https subject, no Urgency or Topic, a smaller record size, an
	// empty message.
	res = sendWebpush(t, other, nil, &webpush.Options{Subscriber: "https://nothanks.example/contact", TTL: 0, RecordSize: 1024,
		VAPIDPublicKey: pub, VAPIDPrivateKey: priv})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("second push: %d %q", res.StatusCode, s.Rejections())
	}
	q := s.PushesTo(other)
	if len(q) != 1 || len(q[0].Payload) != 0 || q[0].TTL != 0 || q[0].Urgency != "" || q[0].Topic != "" || q[0].Subscriber != "https://nothanks.example/contact" {
		t.Errorf("second push: %+v", q)
	}
	if n := len(s.Pushes()); n != 2 {
		t.Errorf("%d pushes in all", n)
	}
}

// webpush-go v1.4.0 turns a Subscriber "mailto:x" into the sub
// "mailto:mailto:x", which Apple's push service refuses (403
// BadJwtToken; webpush-go pull request #92). The service refuses it too,
// so that a sender passing a ready-made mailto: URL to the library is
// caught here and not in production.
func TestWebpushGoDoublesAMailtoSubscriber(t *testing.T) {
	s := New()
	defer s.Close()
	d := s.NewDevice("phone")
	priv, pub := vapidKeys(t)
	res := sendWebpush(t, d, []byte("hi"), &webpush.Options{Subscriber: "mailto:test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv})
	r := s.Rejections()
	if res.StatusCode != http.StatusUnauthorized || len(r) != 1 || !strings.Contains(r[0], `"mailto:mailto:test@example.com"`) {
		t.Fatalf("%d, %q", res.StatusCode, r)
	}
	if len(s.Pushes()) != 0 {
		t.Error("recorded")
	}
}

// A hand-built sender, written from the RFCs, to make each mistake one
// at a time.

// spec is one request to build: by default a valid push of "hello".
type spec struct {
	method  string
	url     string
	headers map[string]string // "" removes a header
	scheme  string
	k       *ecdsa.PrivateKey // whose public key is sent as k
	signer  *ecdsa.PrivateKey // who signs the JWT
	jwtHead map[string]any
	claims  map[string]any
	der     bool // an ASN.1 DER signature instead of r||s
	sealTo  *Device
	records [][]byte // each record's plaintext, delimiter and padding included
	rs      int
	body    []byte // sent as is if not nil
}

func newSpec(t *testing.T, d *Device) *spec {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(d.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return &spec{
		method:  http.MethodPost,
		url:     d.Endpoint,
		headers: map[string]string{"TTL": "60", "Urgency": "normal", "Topic": "turn-7", "Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream"},
		scheme:  "vapid",
		k:       key,
		signer:  key,
		jwtHead: map[string]any{"typ": "JWT", "alg": "ES256"},
		claims:  map[string]any{"aud": u.Scheme + "://" + u.Host, "exp": time.Now().Add(12 * time.Hour).Unix(), "sub": "mailto:test@example.com"},
		sealTo:  d,
		records: [][]byte{[]byte("hello\x02")},
		rs:      4096,
	}
}

func jsonPart(t *testing.T, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b64.EncodeToString(j)
}

// jwt signs an ES256 JWS (RFC 7515, RFC 7518 §3.4).
func (sp *spec) jwt(t *testing.T) string {
	t.Helper()
	signing := jsonPart(t, sp.jwtHead) + "." + jsonPart(t, sp.claims)
	digest := sha256.Sum256([]byte(signing))
	var sig []byte
	if sp.der {
		var err error
		if sig, err = ecdsa.SignASN1(rand.Reader, sp.signer, digest[:]); err != nil {
			t.Fatal(err)
		}
	} else {
		r, s, err := ecdsa.Sign(rand.Reader, sp.signer, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	}
	return signing + "." + b64.EncodeToString(sig)
}

// seal encrypts records to a device (RFC 8291 §3.4, RFC 8188 §2).
func seal(t *testing.T, to *Device, records [][]byte, rs int) []byte {
	t.Helper()
	uaPublic, auth := unb64(t, to.P256dh), unb64(t, to.Auth)
	ua, err := ecdh.P256().NewPublicKey(uaPublic)
	if err != nil {
		t.Fatal(err)
	}
	as, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := as.ECDH(ua)
	if err != nil {
		t.Fatal(err)
	}
	ikm, err := hkdf.Key(sha256.New, secret, auth, "WebPush: info\x00"+string(uaPublic)+string(as.PublicKey().Bytes()), 32)
	if err != nil {
		t.Fatal(err)
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	cek, _ := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	body := append(salt, 0, 0, 0, 0, 65)
	binary.BigEndian.PutUint32(body[16:20], uint32(rs))
	body = append(body, as.PublicKey().Bytes()...)
	for i, rec := range records {
		n := append([]byte(nil), nonce...)
		n[11] ^= byte(i)
		body = gcm.Seal(body, n, rec, nil)
	}
	return body
}

// do sends the request and returns its status and body.
func (sp *spec) do(t *testing.T) (int, string) {
	t.Helper()
	body := sp.body
	if body == nil {
		body = seal(t, sp.sealTo, sp.records, sp.rs)
	}
	req, err := http.NewRequest(sp.method, sp.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range sp.headers {
		if v != "" {
			req.Header.Set(name, v)
		}
	}
	k, err := sp.k.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", fmt.Sprintf("%s t=%s, k=%s", sp.scheme, sp.jwt(t), b64.EncodeToString(k)))
	if v, ok := sp.headers["Authorization"]; ok && v == "" {
		req.Header.Del("Authorization")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The hand-built sender is right: its valid push arrives, so each refusal
// below is for its one mistake.
func TestHandBuiltPushIsAccepted(t *testing.T) {
	s := New()
	defer s.Close()
	d := s.NewDevice("phone")
	sp := newSpec(t, d)
	if st, body := sp.do(t); st != http.StatusCreated {
		t.Fatalf("%d %s", st, body)
	}
	// Two records are valid RFC 8188 but not RFC 8291: refused below.
	// Padding, on the other hand, is fine.
	sp.records = [][]byte{append([]byte("padded"), 2, 0, 0, 0, 0, 0, 0, 0)}
	if st, body := sp.do(t); st != http.StatusCreated {
		t.Fatalf("padded: %d %s", st, body)
	}
	noRejections(t, s)
	p := s.PushesTo(d)
	if len(p) != 2 || string(p[0].Payload) != "hello" || string(p[1].Payload) != "padded" || p[0].Urgency != "normal" || p[0].Topic != "turn-7" {
		t.Fatalf("%+v", p)
	}
}

func TestRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		mod    func(t *testing.T, sp *spec, other *Device)
		status int
		says   string
	}{
		"JWT signed by a key other than k": {func(t *testing.T, sp *spec, _ *Device) {
			sp.signer, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		}, 401, "does not verify"},
		"expired JWT": {func(t *testing.T, sp *spec, _ *Device) {
			sp.claims["exp"] = time.Now().Add(-time.Minute).Unix()
		}, 401, "expired"},
		"JWT exp 48h ahead": {func(t *testing.T, sp *spec, _ *Device) {
			sp.claims["exp"] = time.Now().Add(48 * time.Hour).Unix()
		}, 401, "at most 24h"},
		"wrong aud": {func(t *testing.T, sp *spec, _ *Device) {
			sp.claims["aud"] = "https://push.example.com"
		}, 401, "aud"},
		"aud with a path": {func(t *testing.T, sp *spec, _ *Device) {
			sp.claims["aud"] = sp.claims["aud"].(string) + "/"
		}, 401, "aud"},
		"no exp": {func(t *testing.T, sp *spec, _ *Device) {
			delete(sp.claims, "exp")
		}, 401, "exp"},
		"sub without a scheme": {func(t *testing.T, sp *spec, _ *Device) {
			sp.claims["sub"] = "test@example.com"
		}, 401, "sub"},
		"sub mailto:mailto:": {func(t *testing.T, sp *spec, _ *Device) {
			sp.claims["sub"] = "mailto:mailto:test@example.com"
		}, 401, "sub"},
		"alg HS256": {func(t *testing.T, sp *spec, _ *Device) {
			sp.jwtHead["alg"] = "HS256"
		}, 401, "alg"},
		"DER signature": {func(t *testing.T, sp *spec, _ *Device) {
			sp.der = true
		}, 401, "r||s"},
		"WebPush scheme": {func(t *testing.T, sp *spec, _ *Device) {
			sp.scheme = "WebPush"
		}, 401, "scheme"},
		"no Authorization": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["Authorization"] = ""
		}, 401, "Authorization"},
		"encrypted to another device": {func(t *testing.T, sp *spec, other *Device) {
			sp.sealTo = other
		}, 400, "does not decrypt"},
		"no TTL": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["TTL"] = ""
		}, 400, "TTL"},
		"negative TTL": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["TTL"] = "-1"
		}, 400, "TTL"},
		"unknown Urgency": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["Urgency"] = "urgent"
		}, 400, "Urgency"},
		"Topic of 33 characters": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["Topic"] = strings.Repeat("a", 33)
		}, 400, "Topic"},
		"Topic with a dot": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["Topic"] = "turn.7"
		}, 400, "Topic"},
		"Content-Encoding aesgcm": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["Content-Encoding"] = "aesgcm"
		}, 400, "aesgcm"},
		"no Content-Encoding": {func(t *testing.T, sp *spec, _ *Device) {
			sp.headers["Content-Encoding"] = ""
		}, 400, "Content-Encoding"},
		"body of 4097 bytes": {func(t *testing.T, sp *spec, _ *Device) {
			sp.records = [][]byte{append(bytes.Repeat([]byte("x"), 4097-86-16-1), 2)}
			sp.rs = 8192
		}, 413, "at most 4096"},
		"two records": {func(t *testing.T, sp *spec, _ *Device) {
			sp.rs = 32
			sp.records = [][]byte{[]byte("0123456789abcde\x01"), []byte("fg\x02")}
		}, 400, "single record"},
		"last record with the non-last delimiter": {func(t *testing.T, sp *spec, _ *Device) {
			sp.records = [][]byte{[]byte("hello\x01\x00")}
		}, 400, "delimiter"},
		"record size below 18": {func(t *testing.T, sp *spec, _ *Device) {
			sp.rs = 17
		}, 400, "record size"},
		"truncated body": {func(t *testing.T, sp *spec, _ *Device) {
			sp.body = []byte("0123456789")
		}, 400, "shorter"},
		"GET": {func(t *testing.T, sp *spec, _ *Device) {
			sp.method = http.MethodGet
		}, 405, "POST"},
	} {
		t.Run(name, func(t *testing.T) {
			s := New()
			defer s.Close()
			d, other := s.NewDevice("phone"), s.NewDevice("laptop")
			sp := newSpec(t, d)
			c.mod(t, sp, other)
			st, body := sp.do(t)
			r := s.Rejections()
			if st != c.status || !strings.Contains(body, c.says) {
				t.Errorf("%d %q, want %d saying %q", st, body, c.status, c.says)
			}
			if len(r) != 1 || !strings.Contains(r[0], c.says) || !strings.HasPrefix(r[0], fmt.Sprintf("phone: %d ", c.status)) {
				t.Errorf("rejections %q", r)
			}
			if n := len(s.Pushes()); n != 0 || s.Requests(d) != 1 {
				t.Errorf("%d pushes recorded, %d requests", n, s.Requests(d))
			}
		})
	}
}

// A subscription made with an applicationServerKey takes pushes signed
// with that key only (RFC 8292 §4.2).
func TestNewDeviceWithKey(t *testing.T) {
	s := New()
	defer s.Close()
	priv, pub := vapidKeys(t)
	d := s.NewDeviceWithKey("phone", pub)
	otherPriv, otherPub := vapidKeys(t)
	res := sendWebpush(t, d, []byte("hi"), &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: otherPub, VAPIDPrivateKey: otherPriv})
	if r := s.Rejections(); res.StatusCode != http.StatusForbidden || len(r) != 1 || !strings.Contains(r[0], "applicationServerKey") {
		t.Fatalf("another key: %d %q", res.StatusCode, r)
	}
	res = sendWebpush(t, d, []byte("hi"), &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv})
	if res.StatusCode != http.StatusCreated || len(s.PushesTo(d)) != 1 {
		t.Fatalf("its key: %d", res.StatusCode)
	}
}

// webpush-go pads every message to its record size, 4096 by default: too
// much for a constrained device (Firefox for Android); a smaller record
// size gets through.
func TestLimitBody(t *testing.T) {
	s := New()
	defer s.Close()
	d := s.NewDevice("Firefox on Android")
	s.LimitBody(d, 3070)
	priv, pub := vapidKeys(t)
	o := &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	if res := sendWebpush(t, d, []byte("hi"), o); res.StatusCode != http.StatusRequestEntityTooLarge || len(s.Rejections()) != 1 {
		t.Fatalf("4096 bytes: %d %q", res.StatusCode, s.Rejections())
	}
	o.RecordSize = 3000
	if res := sendWebpush(t, d, []byte("hi"), o); res.StatusCode != http.StatusCreated || len(s.PushesTo(d)) != 1 {
		t.Fatalf("3000 bytes: %d %q", res.StatusCode, s.Rejections())
	}
}

func TestFailNextThenSuccess(t *testing.T) {
	s := New()
	defer s.Close()
	d := s.NewDevice("phone")
	priv, pub := vapidKeys(t)
	o := &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	s.FailNext(d, 1, http.StatusServiceUnavailable, "2")
	res := sendWebpush(t, d, []byte("one"), o)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "2" || len(s.Pushes()) != 0 || s.Requests(d) != 1 {
		t.Fatalf("%d, Retry-After %q, %d pushes, %d requests", res.StatusCode, res.Header.Get("Retry-After"), len(s.Pushes()), s.Requests(d))
	}
	res = sendWebpush(t, d, []byte("two"), o)
	if p := s.PushesTo(d); res.StatusCode != http.StatusCreated || len(p) != 1 || string(p[0].Payload) != "two" || s.Requests(d) != 2 {
		t.Fatalf("after the 503: %d, %+v", res.StatusCode, p)
	}
	// Two 429s without Retry-After, then through again.
	s.FailNext(d, 2, http.StatusTooManyRequests, "")
	for i := range 2 {
		if res := sendWebpush(t, d, []byte("x"), o); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "" {
			t.Fatalf("429 #%d: %d %q", i, res.StatusCode, res.Header.Get("Retry-After"))
		}
	}
	if res := sendWebpush(t, d, []byte("three"), o); res.StatusCode != http.StatusCreated || len(s.PushesTo(d)) != 2 || s.Requests(d) != 5 {
		t.Fatalf("after the 429s: %d, %d requests", res.StatusCode, s.Requests(d))
	}
	noRejections(t, s)
}

func TestGone(t *testing.T) {
	s := New()
	defer s.Close()
	d, other := s.NewDevice("phone"), s.NewDevice("laptop")
	priv, pub := vapidKeys(t)
	o := &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	s.Gone(d)
	for i := range 3 {
		if res := sendWebpush(t, d, []byte("hi"), o); res.StatusCode != http.StatusGone {
			t.Fatalf("#%d: %d", i, res.StatusCode)
		}
	}
	if len(s.Pushes()) != 0 || s.Requests(d) != 3 {
		t.Errorf("%d pushes, %d requests", len(s.Pushes()), s.Requests(d))
	}
	if res := sendWebpush(t, other, []byte("hi"), o); res.StatusCode != http.StatusCreated {
		t.Errorf("another device: %d", res.StatusCode)
	}
	noRejections(t, s)
}

func TestUnknownPath(t *testing.T) {
	s := New()
	defer s.Close()
	d := s.NewDevice("phone")
	priv, pub := vapidKeys(t)
	o := &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	for _, path := range []string{"/push/nobody", "/push/", "/", "/elsewhere"} {
		unknown := &Device{Name: "unknown", Endpoint: s.URL + path, P256dh: d.P256dh, Auth: d.Auth}
		if res := sendWebpush(t, unknown, []byte("hi"), o); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
	if len(s.Pushes()) != 0 || s.Requests(d) != 0 {
		t.Error("a push to an unknown endpoint was counted")
	}
	noRejections(t, s)
}

// Pushes sent at once are all kept; Wait returns when there are enough,
// or says how many came.
func TestConcurrentPushesAndWait(t *testing.T) {
	s := New()
	defer s.Close()
	priv, pub := vapidKeys(t)
	o := &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	devices := []*Device{s.NewDevice("a"), s.NewDevice("b"), s.NewDevice("c")}
	var wg sync.WaitGroup
	for _, d := range devices {
		for i := range 4 {
			wg.Go(func() {
				msg := []byte(fmt.Sprintf("%s-%d", d.Name, i))
				res, err := webpush.SendNotificationWithContext(context.Background(), msg,
					&webpush.Subscription{Endpoint: d.Endpoint, Keys: webpush.Keys{P256dh: d.P256dh, Auth: d.Auth}}, o)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
			})
		}
	}
	got, err := s.Wait(12, 10*time.Second)
	if err != nil || len(got) != 12 {
		t.Fatalf("%d pushes, %v", len(got), err)
	}
	wg.Wait()
	for _, d := range devices {
		if p := s.PushesTo(d); len(p) != 4 || s.Requests(d) != 4 {
			t.Errorf("%s: %d pushes, %d requests", d.Name, len(p), s.Requests(d))
		}
		for _, p := range s.PushesTo(d) {
			if !strings.HasPrefix(string(p.Payload), d.Name+"-") {
				t.Errorf("%s got %q", d.Name, p.Payload)
			}
		}
	}
	noRejections(t, s)
	if _, err := s.Wait(13, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "12 of 13") {
		t.Errorf("Wait for one too many: %v", err)
	}
}

// A hung service answers no device until released, and then answers as
// before; what it held is not recorded as a push.
func TestHang(t *testing.T) {
	s := New()
	defer s.Close()
	a, b := s.NewDevice("phone"), s.NewDevice("laptop")
	priv, pub := vapidKeys(t)
	release := s.Hang()
	defer release()
	impatient := &http.Client{Timeout: 200 * time.Millisecond}
	o := &webpush.Options{HTTPClient: impatient, Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	for _, d := range []*Device{a, b} {
		res, err := webpush.SendNotificationWithContext(context.Background(), []byte("hi"),
			&webpush.Subscription{Endpoint: d.Endpoint, Keys: webpush.Keys{P256dh: d.P256dh, Auth: d.Auth}}, o)
		if err == nil {
			res.Body.Close()
			t.Fatalf("%s: answered %d while hung", d.Name, res.StatusCode)
		}
		if s.Requests(d) != 1 {
			t.Errorf("%s: %d requests, want 1", d.Name, s.Requests(d))
		}
	}
	release()
	o.HTTPClient = nil
	if res := sendWebpush(t, a, []byte("again"), o); res.StatusCode != http.StatusCreated {
		t.Fatalf("after release: %d", res.StatusCode)
	}
	if p := s.Pushes(); len(p) != 1 || string(p[0].Payload) != "again" {
		t.Errorf("pushes %+v, want only the one after release", p)
	}
	noRejections(t, s)
}

// OnAccept runs between keeping a message and answering it: the message
// is there when it runs, and the answer is still 201; it runs once.
func TestOnAccept(t *testing.T) {
	s := New()
	defer s.Close()
	d := s.NewDevice("phone")
	priv, pub := vapidKeys(t)
	o := &webpush.Options{Subscriber: "test@example.com", TTL: 60, VAPIDPublicKey: pub, VAPIDPrivateKey: priv}
	kept := make(chan int, 2) // the pushes kept at each call
	s.OnAccept(d, func() { kept <- len(s.PushesTo(d)) })
	for i := range 2 {
		if res := sendWebpush(t, d, []byte("hi"), o); res.StatusCode != http.StatusCreated {
			t.Fatalf("#%d: %d", i, res.StatusCode)
		}
	}
	close(kept)
	var calls []int
	for n := range kept {
		calls = append(calls, n)
	}
	if len(calls) != 1 || calls[0] != 1 || len(s.PushesTo(d)) != 2 {
		t.Errorf("calls with %v pushes kept, want one with 1; %d pushes in all", calls, len(s.PushesTo(d)))
	}
	noRejections(t, s)
}
