package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// TokenStore is what API tokens need of the database.
type TokenStore interface {
	CreateAPIToken(ctx context.Context, userID int64, name string, hash []byte, at time.Time) (int64, error)
	APITokens(ctx context.Context, userID int64) ([]db.APIToken, error)
	RevokeAPIToken(ctx context.Context, userID, id int64, at time.Time) (string, error)
	UserByAPIToken(ctx context.Context, hash []byte, at time.Time) (db.User, error)
}

// tokenPrefix marks the site's API tokens, so a leaked one is recognisable.
const tokenPrefix = "nt_"

// MaxTokens is how many live API tokens a user may hold.
const MaxTokens = 20

// CreateAPIToken makes a personal API token; the token itself is returned
// once and only its hash is kept.
func (s *Service) CreateAPIToken(ctx context.Context, userID int64, name string) (string, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 1 || n > 60 {
		return "", (apperr.FieldErrors{"name": "Give the token a name of 1 to 60 characters, such as the program that will use it."}).Err()
	}
	existing, err := s.tokens.APITokens(ctx, userID)
	if err != nil {
		return "", apperr.Wrap(err, apperr.Internal, "could not list tokens")
	}
	if len(existing) >= MaxTokens {
		return "", (apperr.FieldErrors{"name": "You have 20 tokens already: revoke one you no longer use."}).Err()
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", apperr.Wrap(err, apperr.Internal, "could not make a token")
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	if _, err := s.tokens.CreateAPIToken(ctx, userID, name, hashToken(token), s.clock.Now()); err != nil {
		return "", apperr.Wrap(err, apperr.Internal, "could not store the token")
	}
	return token, nil
}

// APITokens lists a user's live tokens.
func (s *Service) APITokens(ctx context.Context, userID int64) ([]db.APIToken, error) {
	ts, err := s.tokens.APITokens(ctx, userID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not list tokens")
	}
	return ts, nil
}

// RevokeAPIToken ends one of a user's tokens, on every instance at once.
func (s *Service) RevokeAPIToken(ctx context.Context, userID, id int64) error {
	hash, err := s.tokens.RevokeAPIToken(ctx, userID, id, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not revoke the token")
	}
	if hash == "" {
		return apperr.E(apperr.NotFound, "No such token.")
	}
	s.ForgetToken(hash) // here at once; the other instances when they hear
	return nil
}

// ErrBadToken answers a missing, unknown or revoked API token.
var ErrBadToken = apperr.E(apperr.Unauthorized, "Send a valid personal API token as 'Authorization: Bearer <token>' (create one on the settings page).")

// ErrUnknownToken answers a bearer token that is not (or no longer) an
// account's: mistyped, revoked, or its account closed.
var ErrUnknownToken = apperr.E(apperr.Unauthorized, "This token is not valid: it was revoked or mistyped, or its account is closed. Create a new one on the settings page.")

// UserByAPIToken authenticates an API request. A token checked in the
// database is trusted from memory for TokenCacheFor (so that an API request
// costs no query of its own); revoking it anywhere makes every instance
// forget it at once (ForgetToken, from the token channel).
func (s *Service) UserByAPIToken(ctx context.Context, token string) (db.User, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 100 {
		return db.User{}, ErrBadToken
	}
	hash := hashToken(token)
	now := s.clock.Now()
	if u, ok := s.tokenCache.get(hash, now); ok {
		return u, nil
	}
	u, err := s.tokens.UserByAPIToken(ctx, hash, now)
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, ErrBadToken
	}
	if err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not check the token")
	}
	s.tokenCache.put(hash, u, now.Add(TokenCacheFor))
	return u, nil
}

// TokenCacheFor is how long a checked API token is trusted from memory;
// its last use is recorded once in that time.
const TokenCacheFor = 5 * time.Minute

// ForgetToken drops a revoked token (its hash in hex, as the token channel
// carries it) from this instance's memory.
func (s *Service) ForgetToken(hashHex string) {
	if h, err := hex.DecodeString(hashHex); err == nil {
		s.tokenCache.drop(h)
	}
	s.hooks.mu.Lock()
	fs := s.hooks.revoked
	s.hooks.mu.Unlock()
	for _, f := range fs {
		f(hashHex)
	}
}

// ForgetAllTokens empties this instance's memory of checked tokens (after
// the listener lost its connection and may have missed revocations).
func (s *Service) ForgetAllTokens() {
	s.tokenCache.clear()
	s.hooks.mu.Lock()
	fs := s.hooks.all
	s.hooks.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// OnRevoke calls revoked with a token's hash (hex) when this instance hears
// that it was revoked, and all when revocations may have been missed (what
// holds a token open, such as an API stream, then checks it again).
func (s *Service) OnRevoke(revoked func(hashHex string), all func()) {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	s.hooks.revoked = append(s.hooks.revoked, revoked)
	s.hooks.all = append(s.hooks.all, all)
}

// revokeHooks are the OnRevoke callbacks.
type revokeHooks struct {
	mu      sync.Mutex
	revoked []func(string)
	all     []func()
}

// TokenLive reports whether a token (its hash in hex) is still live: not
// revoked, its account neither disabled nor deleted.
func (s *Service) TokenLive(ctx context.Context, hashHex string) (bool, error) {
	h, err := hex.DecodeString(hashHex)
	if err != nil {
		return false, nil
	}
	_, err = s.tokens.UserByAPIToken(ctx, h, s.clock.Now())
	if errors.Is(err, db.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// TokenHash is a token's hash in hex, as revocations name it.
func TokenHash(token string) string { return hex.EncodeToString(hashToken(token)) }

// tokenCache remembers checked tokens by hash.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]cachedToken
}

type cachedToken struct {
	user  db.User
	until time.Time
}

// maxCachedTokens bounds the memory; past it the cache starts afresh.
const maxCachedTokens = 100_000

func (c *tokenCache) get(hash []byte, now time.Time) (db.User, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.m[string(hash)]
	if !ok || !now.Before(t.until) {
		return db.User{}, false
	}
	return t.user, true
}

func (c *tokenCache) put(hash []byte, u db.User, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedTokens {
		c.m = map[string]cachedToken{}
	}
	c.m[string(hash)] = cachedToken{user: u, until: until}
}

func (c *tokenCache) drop(hash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, string(hash))
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}
