package db

import (
	"context"
	"fmt"
	"time"
)

// APIToken is a row of api_tokens.
type APIToken struct {
	ID         int64      `db:"id"`
	UserID     int64      `db:"user_id"`
	Name       string     `db:"name"`
	CreatedAt  time.Time  `db:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
}

// CreateAPIToken stores a token's hash.
func (s *Store) CreateAPIToken(ctx context.Context, userID int64, name string, hash []byte, at time.Time) (int64, error) {
	var id int64
	err := get(ctx, s.DB, &id, `INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
		userID, name, hash, at)
	if err != nil {
		return 0, fmt.Errorf("db: create api token: %w", err)
	}
	return id, nil
}

// APITokens lists a user's live tokens, newest first.
func (s *Store) APITokens(ctx context.Context, userID int64) ([]APIToken, error) {
	var out []APIToken
	err := sel(ctx, s.DB, &out, `SELECT id, user_id, name, created_at, last_used_at FROM api_tokens
		WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: api tokens: %w", err)
	}
	return out, nil
}

// RevokeAPIToken revokes one of a user's tokens and returns its hash in
// hex ("" when there was no such live token). Every instance hears of it
// (TokenChannel) once it commits, so that none goes on trusting a cached
// check of that token.
func (s *Store) RevokeAPIToken(ctx context.Context, userID, id int64, at time.Time) (string, error) {
	var hashes []string
	err := sel(ctx, s.DB, &hashes, `
		WITH r AS (UPDATE api_tokens SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL
			RETURNING encode(token_hash, 'hex') AS h)
		SELECT h FROM r, LATERAL (SELECT pg_notify('`+TokenChannel+`', h)) n`, id, userID, at)
	if err != nil {
		return "", fmt.Errorf("db: revoke api token: %w", err)
	}
	if len(hashes) == 0 {
		return "", nil
	}
	return hashes[0], nil
}

// TokenChannel is the LISTEN/NOTIFY channel of revoked API tokens, payload
// the token's hash in hex.
const TokenChannel = "token_revoked"

// UserByAPIToken finds the user of a live token and records its use.
func (s *Store) UserByAPIToken(ctx context.Context, hash []byte, at time.Time) (User, error) {
	var u User
	err := get(ctx, s.DB, &u, `
		WITH t AS (UPDATE api_tokens SET last_used_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL RETURNING user_id)
		SELECT `+userColumns+` FROM users WHERE id = (SELECT user_id FROM t) AND disabled_at IS NULL AND deleted_at IS NULL`, hash, at)
	if err != nil {
		return User{}, fmt.Errorf("db: user by api token: %w", notFound(err))
	}
	return u, nil
}
