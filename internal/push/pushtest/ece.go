package pushtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// The aes128gcm content coding (RFC 8188) begins with a header:
//
//	salt (16) || rs (4, big-endian) || idlen (1) || keyid (idlen)
//
// and RFC 8291 puts the sender's ephemeral P-256 public key, uncompressed
// (65 bytes), in keyid.
const (
	saltLen   = 16
	headerLen = saltLen + 4 + 1 // before keyid
	keyLen    = 65              // an uncompressed P-256 point
	tagLen    = 16              // AES-GCM's
)

// decrypt opens a push message's body as the browser that owns priv and
// auth would (RFC 8291 §3.4 and RFC 8188 §2): the key derivation from the
// ECDH secret and the auth secret, then the records. It returns the
// plaintext and the number of records.
func decrypt(body []byte, priv *ecdh.PrivateKey, auth []byte) ([]byte, int, error) {
	salt, rs, keyid, ciphertext, err := parseHeader(body)
	if err != nil {
		return nil, 0, err
	}
	if len(keyid) != keyLen {
		return nil, 0, fmt.Errorf("keyid of %d bytes; RFC 8291 §4 puts the sender's %d-byte public key there", len(keyid), keyLen)
	}
	asPublic, err := ecdh.P256().NewPublicKey(keyid)
	if err != nil {
		return nil, 0, fmt.Errorf("keyid is not an uncompressed P-256 public key: %v", err)
	}
	ikm, err := webPushIKM(priv, asPublic, auth)
	if err != nil {
		return nil, 0, err
	}
	return openRecords(ikm, salt, rs, ciphertext)
}

// parseHeader splits an aes128gcm body into its header fields and the
// records that follow.
func parseHeader(body []byte) (salt []byte, rs int, keyid, ciphertext []byte, err error) {
	if len(body) < headerLen {
		return nil, 0, nil, nil, fmt.Errorf("body of %d bytes is shorter than an aes128gcm header (%d)", len(body), headerLen)
	}
	salt = body[:saltLen]
	rs = int(binary.BigEndian.Uint32(body[saltLen : saltLen+4]))
	idlen := int(body[saltLen+4])
	if len(body) < headerLen+idlen {
		return nil, 0, nil, nil, fmt.Errorf("body of %d bytes ends inside the header's %d-byte keyid", len(body), idlen)
	}
	if rs <= tagLen+1 {
		return nil, 0, nil, nil, fmt.Errorf("record size %d; it must be at least %d (RFC 8188 §2.1)", rs, tagLen+2)
	}
	return salt, rs, body[headerLen : headerLen+idlen], body[headerLen+idlen:], nil
}

// webPushIKM is RFC 8291 §3.3-3.4's input keying material for the content
// coding:
//
//	ecdh_secret = ECDH(ua_private, as_public)
//	PRK_key     = HKDF-Extract(salt=auth_secret, IKM=ecdh_secret)
//	key_info    = "WebPush: info" || 0x00 || ua_public || as_public
//	IKM         = HKDF-Expand(PRK_key, key_info, 32)
func webPushIKM(ua *ecdh.PrivateKey, as *ecdh.PublicKey, auth []byte) ([]byte, error) {
	secret, err := ua.ECDH(as)
	if err != nil {
		return nil, fmt.Errorf("ECDH with the sender's key: %v", err)
	}
	prkKey, err := hkdf.Extract(sha256.New, secret, auth)
	if err != nil {
		return nil, err
	}
	info := "WebPush: info\x00" + string(ua.PublicKey().Bytes()) + string(as.Bytes())
	return hkdf.Expand(sha256.New, prkKey, info, 32)
}

// openRecords decrypts the records of an aes128gcm body (RFC 8188 §2):
//
//	PRK   = HKDF-Extract(salt, IKM)
//	CEK   = HKDF-Expand(PRK, "Content-Encoding: aes128gcm" || 0x00, 16)
//	NONCE = HKDF-Expand(PRK, "Content-Encoding: nonce" || 0x00, 12)
//
// Record i (from 0) is the next rs bytes, the last one possibly shorter,
// sealed with AES-128-GCM under CEK and NONCE XOR i (i as a 96-bit
// big-endian integer). Its plaintext is the data, a delimiter (2 for the
// last record, 1 for the others) and zero or more zero bytes of padding.
func openRecords(ikm, salt []byte, rs int, ciphertext []byte) ([]byte, int, error) {
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, 0, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, 0, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, 0, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, 0, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, 0, err
	}
	if len(ciphertext) == 0 {
		return nil, 0, errors.New("no records after the header")
	}

	var out []byte
	seq := 0
	for off := 0; off < len(ciphertext); off += rs {
		end := min(off+rs, len(ciphertext))
		record, last := ciphertext[off:end], end == len(ciphertext)
		if len(record) < tagLen+1 {
			return nil, 0, fmt.Errorf("record %d of %d bytes is too short for a tag and a delimiter", seq, len(record))
		}
		n := make([]byte, len(nonce))
		copy(n, nonce)
		for i := range 8 {
			n[len(n)-1-i] ^= byte(uint64(seq) >> (8 * i))
		}
		plain, err := gcm.Open(nil, n, record, nil)
		if err != nil {
			return nil, 0, fmt.Errorf("record %d fails AES-GCM authentication: encrypted to other keys, or altered", seq)
		}
		i := len(plain) - 1
		for i >= 0 && plain[i] == 0 {
			i--
		}
		want := byte(1)
		if last {
			want = 2
		}
		switch {
		case i < 0:
			return nil, 0, fmt.Errorf("record %d has no padding delimiter, only zeros", seq)
		case plain[i] != want:
			return nil, 0, fmt.Errorf("record %d ends with delimiter %#x, want %#x for a %s record (RFC 8188 §2)", seq, plain[i], want, map[bool]string{true: "last", false: "non-last"}[last])
		}
		out = append(out, plain[:i]...)
		seq++
	}
	return out, seq, nil
}
