package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// TokenStore is what API tokens need of the database.
type TokenStore interface {
	CreateAPIToken(ctx context.Context, userID int64, name string, hash []byte, at time.Time) (int64, error)
	APITokens(ctx context.Context, userID int64) ([]db.APIToken, error)
	RevokeAPIToken(ctx context.Context, userID, id int64, at time.Time) (bool, error)
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

// RevokeAPIToken ends one of a user's tokens.
func (s *Service) RevokeAPIToken(ctx context.Context, userID, id int64) error {
	ok, err := s.tokens.RevokeAPIToken(ctx, userID, id, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not revoke the token")
	}
	if !ok {
		return apperr.E(apperr.NotFound, "No such token.")
	}
	return nil
}

// ErrBadToken answers a missing, unknown or revoked API token.
var ErrBadToken = apperr.E(apperr.Unauthorized, "Send a valid personal API token as 'Authorization: Bearer <token>' (create one on the settings page).")

// UserByAPIToken authenticates an API request.
func (s *Service) UserByAPIToken(ctx context.Context, token string) (db.User, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 100 {
		return db.User{}, ErrBadToken
	}
	u, err := s.tokens.UserByAPIToken(ctx, hashToken(token), s.clock.Now())
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, ErrBadToken
	}
	if err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not check the token")
	}
	return u, nil
}

func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}
