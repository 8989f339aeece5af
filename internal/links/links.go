// Package links signs and checks the links the site mails out: email
// verification, password reset, one-click unsubscribe and one-click moves.
// A link's query carries its facts and an HMAC-SHA256 over them; an "exp"
// parameter (Unix seconds) makes it expire. It imports the standard
// library only.
package links

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"strconv"
	"time"
)

// Signer signs links with one key.
type Signer struct {
	key []byte
}

// New returns a signer; the key must be at least 32 bytes.
func New(key []byte) (*Signer, error) {
	if len(key) < 32 {
		return nil, errors.New("links: the key needs at least 32 bytes")
	}
	return &Signer{key: key}, nil
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("links: the link is not valid")
	ErrExpired      = errors.New("links: the link has expired")
)

// Sign returns the query string of purpose's link with the values, signed.
func (s *Signer) Sign(purpose string, v url.Values) string {
	v = cloneValues(v)
	v.Del("sig")
	v.Set("sig", s.mac(purpose, v))
	return v.Encode()
}

// Verify checks a link's signature for purpose and, if it has one, its
// expiry at now.
func (s *Signer) Verify(purpose string, v url.Values, now time.Time) error {
	got := v.Get("sig")
	rest := cloneValues(v)
	rest.Del("sig")
	if !hmac.Equal([]byte(got), []byte(s.mac(purpose, rest))) {
		return ErrBadSignature
	}
	if exp := v.Get("exp"); exp != "" {
		t, err := strconv.ParseInt(exp, 10, 64)
		if err != nil {
			return ErrBadSignature
		}
		if now.Unix() > t {
			return ErrExpired
		}
	}
	return nil
}

func (s *Signer) mac(purpose string, v url.Values) string {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(v.Encode())) // Encode sorts by key: one canonical form
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
