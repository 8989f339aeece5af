package pushtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// verifyVAPID checks an Authorization header as RFC 8292 has a push
// service check it, for a message to an endpoint of the given origin:
//
//	Authorization: vapid t=<JWT>, k=<base64url uncompressed P-256 key>
//
// The JWT (RFC 7519) is a JWS compact serialisation signed with ES256:
// its signature is the raw 64 bytes r||s (RFC 7518 §3.4), not DER, over
// the ASCII of "header.claims", and it must verify with k. Its claims must
// name the origin as aud, exp at most 24 hours ahead and not past, and a
// sub that is a mailto: or https: URL. It returns sub and k.
func verifyVAPID(header, origin string, now time.Time) (sub string, key []byte, err error) {
	if header == "" {
		return "", nil, errors.New("no Authorization header: a push needs VAPID (RFC 8292)")
	}
	scheme, rest, _ := strings.Cut(strings.TrimSpace(header), " ")
	switch {
	case strings.EqualFold(scheme, "vapid"):
	case strings.EqualFold(scheme, "WebPush"), strings.EqualFold(scheme, "Bearer"):
		return "", nil, fmt.Errorf("the Authorization scheme %q is the drafts' (with Crypto-Key p256ecdsa=); RFC 8292 uses \"vapid t=..., k=...\"", scheme)
	default:
		return "", nil, fmt.Errorf("the Authorization scheme %q is not vapid (RFC 8292 §3)", scheme)
	}

	// The auth-params, in any order, each once.
	params := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return "", nil, fmt.Errorf("the Authorization parameter %q is not name=value", part)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		if _, dup := params[name]; dup {
			return "", nil, fmt.Errorf("the Authorization parameter %s given twice", name)
		}
		params[name] = value
	}
	token, k := params["t"], params["k"]
	if token == "" || k == "" {
		return "", nil, errors.New("the Authorization vapid needs both t= (the JWT) and k= (the public key) (RFC 8292 §3)")
	}

	// k: the key the JWT is signed with.
	key, err = b64.DecodeString(k)
	if err != nil {
		return "", nil, fmt.Errorf("VAPID k is not base64url without padding: %v", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), key)
	if err != nil {
		return "", nil, fmt.Errorf("VAPID k is not an uncompressed P-256 public key (65 bytes, 0x04 first; got %d bytes): %v", len(key), err)
	}

	// The JWT's header and signature.
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", nil, fmt.Errorf("VAPID t is not a JWT: %d dot-separated parts, not 3", len(parts))
	}
	var hdr map[string]any
	if err := decodeJSONPart(parts[0], &hdr); err != nil {
		return "", nil, fmt.Errorf("JWT header: %v", err)
	}
	if alg, _ := hdr["alg"].(string); alg != "ES256" {
		return "", nil, fmt.Errorf("JWT alg %v; VAPID signs with ES256 (RFC 8292 §2)", hdr["alg"])
	}
	if typ, present := hdr["typ"]; present {
		if s, _ := typ.(string); !strings.EqualFold(s, "JWT") {
			return "", nil, fmt.Errorf("JWT typ %v is not JWT", typ)
		}
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return "", nil, fmt.Errorf("JWT signature is not base64url without padding: %v", err)
	}
	if len(sig) != 64 {
		return "", nil, fmt.Errorf("JWT signature of %d bytes; ES256 is r||s, 64 bytes (RFC 7518 §3.4; not DER)", len(sig))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return "", nil, errors.New("JWT signature does not verify with the VAPID key k")
	}

	// The claims.
	var claims map[string]any
	if err := decodeJSONPart(parts[1], &claims); err != nil {
		return "", nil, fmt.Errorf("JWT claims: %v", err)
	}
	aud, ok := claims["aud"].(string)
	switch {
	case !ok:
		return "", nil, fmt.Errorf("JWT aud %v is not a string (RFC 8292 §2)", claims["aud"])
	case aud != origin:
		return "", nil, fmt.Errorf("JWT aud %q is not the endpoint's origin %q (RFC 8292 §2)", aud, origin)
	}
	num, ok := claims["exp"].(json.Number)
	if !ok {
		return "", nil, fmt.Errorf("JWT exp %v is not a NumericDate (RFC 8292 §2 requires exp)", claims["exp"])
	}
	secs, err := num.Float64()
	if err != nil || math.IsInf(secs, 0) || secs > 1e15 || secs < -1e15 {
		return "", nil, fmt.Errorf("JWT exp %v is not a NumericDate", num)
	}
	whole, frac := math.Modf(secs)
	exp := time.Unix(int64(whole), int64(frac*1e9))
	switch {
	case !exp.After(now):
		return "", nil, fmt.Errorf("JWT expired: exp %s is %s ago", exp.UTC().Format(time.RFC3339), now.Sub(exp).Round(time.Second))
	case exp.Sub(now) > MaxExpiry:
		return "", nil, fmt.Errorf("JWT exp %s is %s ahead; at most 24h is allowed (RFC 8292 §2)", exp.UTC().Format(time.RFC3339), exp.Sub(now).Round(time.Second))
	}
	sub, _ = claims["sub"].(string)
	if err := checkSubject(sub); err != nil {
		return "", nil, err
	}
	return sub, key, nil
}

// decodeJSONPart decodes a base64url JSON object of a JWT, numbers kept
// as json.Number.
func decodeJSONPart(part string, v any) error {
	raw, err := b64.DecodeString(part)
	if err != nil {
		return fmt.Errorf("not base64url without padding: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// checkSubject checks the JWT's sub: RFC 8292 §2.1 has it be a mailto:
// or https: URI by which the push service can reach the sender. A mailto:
// must be followed by one plain address: "mailto:mailto:a@b", which a
// sender makes when it prefixes a subject that already has the scheme,
// is refused by Apple's service (403 BadJwtToken) and so is refused here.
func checkSubject(sub string) error {
	if rest, ok := strings.CutPrefix(sub, "mailto:"); ok {
		a, err := mail.ParseAddress(rest)
		if err != nil || a.Name != "" || a.Address != rest {
			return fmt.Errorf("JWT sub %q is not \"mailto:\" and one e-mail address (RFC 8292 §2.1)", sub)
		}
		return nil
	}
	if strings.HasPrefix(sub, "https:") {
		u, err := url.Parse(sub)
		if err != nil || u.Host == "" {
			return fmt.Errorf("JWT sub %q is not an https URL (RFC 8292 §2.1)", sub)
		}
		return nil
	}
	return fmt.Errorf("JWT sub %q is neither a mailto: nor an https: URL (RFC 8292 §2.1)", sub)
}
