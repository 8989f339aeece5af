package db

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// User is a row of users.
type User struct {
	ID              int64      `db:"id"`
	Username        string     `db:"username"`
	Email           string     `db:"email"`
	PasswordHash    string     `db:"password_hash"`
	EmailVerifiedAt *time.Time `db:"email_verified_at"`
	CreatedAt       time.Time  `db:"created_at"`
}

// Errors of CreateUser and UpdateEmail when a unique value is taken.
var (
	ErrUsernameTaken = errors.New("db: username taken")
	ErrEmailTaken    = errors.New("db: email taken")
)

const userColumns = `id, username, email, password_hash, email_verified_at, created_at`

// CreateUser inserts a user; a name or email taken (ignoring case) gives
// ErrUsernameTaken or ErrEmailTaken.
func (s *Store) CreateUser(ctx context.Context, username, email, passwordHash string, now time.Time) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		INSERT INTO users (username, email, password_hash, created_at)
		VALUES ($1, $2, $3, $4)
		RETURNING `+userColumns, username, email, passwordHash, now)
	if err != nil {
		return User{}, fmt.Errorf("db: create user %q: %w", username, takenError(err))
	}
	return u, nil
}

func takenError(err error) error {
	switch uniqueViolation(err) {
	case "users_username_key":
		return ErrUsernameTaken
	case "users_email_key":
		return ErrEmailTaken
	}
	return err
}

// UserByID loads a user.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
	if err != nil {
		return User{}, fmt.Errorf("db: user %d: %w", id, notFound(err))
	}
	return u, nil
}

// UserByName loads a user by username, ignoring case.
func (s *Store) UserByName(ctx context.Context, name string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `SELECT `+userColumns+` FROM users WHERE lower(username) = lower($1)`, name)
	if err != nil {
		return User{}, fmt.Errorf("db: user %q: %w", name, notFound(err))
	}
	return u, nil
}

// UserByLogin loads a user by username or email, ignoring case.
func (s *Store) UserByLogin(ctx context.Context, login string) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, `
		SELECT `+userColumns+` FROM users
		WHERE lower(username) = lower($1) OR lower(email) = lower($1)
		LIMIT 1`, login)
	if err != nil {
		return User{}, fmt.Errorf("db: user by login: %w", notFound(err))
	}
	return u, nil
}

// UpdatePassword replaces a user's password hash.
func (s *Store) UpdatePassword(ctx context.Context, id int64, hash string) error {
	if _, err := s.DB.ExecContext(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, id, hash); err != nil {
		return fmt.Errorf("db: update password of user %d: %w", id, err)
	}
	return nil
}

// UpdateEmail replaces a user's email, which is then unverified.
func (s *Store) UpdateEmail(ctx context.Context, id int64, email string) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE users SET email = $2, email_verified_at = NULL WHERE id = $1`, id, email)
	if err != nil {
		return fmt.Errorf("db: update email of user %d: %w", id, takenError(err))
	}
	return nil
}
