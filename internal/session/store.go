// Package session is a gorilla/sessions store that keeps sessions in
// Postgres. The cookie carries only a random 256-bit id, signed with
// securecookie; the table keeps the id's SHA-256, the user and the values.
// Deleting the row ends the session wherever its cookie was copied to.
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"

	"nothanks/internal/clock"
	"nothanks/internal/db"
)

// UserKey is the session value holding the logged-in user's id (int64).
const UserKey = "user_id"

// Rows is what the store needs of the database.
type Rows interface {
	CreateSession(ctx context.Context, s db.Session) error
	SessionByHash(ctx context.Context, idHash []byte, now time.Time) (db.Session, error)
	UpdateSession(ctx context.Context, idHash []byte, userID *int64, data json.RawMessage, seen time.Time) error
	TouchSession(ctx context.Context, idHash []byte, seen time.Time) error
	DeleteSession(ctx context.Context, idHash []byte) error
}

// Config sets the cookie and the lifetimes.
type Config struct {
	// HashKey signs the cookie (at least 32 bytes).
	HashKey []byte
	// Secure marks the cookie Secure and names it with the __Host- prefix.
	Secure bool
	// Idle ends a session unused for this long.
	Idle time.Duration
	// Lifetime ends a session this long after it began, used or not.
	Lifetime time.Duration
}

// Store is the sessions.Store.
type Store struct {
	rows  Rows
	codec securecookie.Codec
	cfg   Config
	name  string
	clock clock.Clock
}

// New returns a store.
func New(rows Rows, cfg Config, clk clock.Clock) (*Store, error) {
	if len(cfg.HashKey) < 32 {
		return nil, errors.New("session: the hash key needs at least 32 bytes")
	}
	codec := securecookie.New(cfg.HashKey, nil)
	codec.MaxAge(int(cfg.Lifetime.Seconds()))
	name := "nt_session"
	if cfg.Secure {
		name = "__Host-nt_session"
	}
	return &Store{rows: rows, codec: codec, cfg: cfg, name: name, clock: clk}, nil
}

// Name is the cookie's name, to pass to Get.
func (s *Store) Name() string { return s.name }

// Options are the cookie's attributes, every one set explicitly: gorilla's
// defaults leave HttpOnly off and SameSite unset.
func (s *Store) options() *sessions.Options {
	return &sessions.Options{
		Path:     "/",
		MaxAge:   int(s.cfg.Lifetime.Seconds()),
		Secure:   s.cfg.Secure,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	}
}

// Get returns the request's session, cached per request by gorilla.
func (s *Store) Get(r *http.Request, name string) (*sessions.Session, error) {
	return sessions.GetRegistry(r).Get(s, name)
}

// New loads the session named by the request's cookie, or starts an empty
// one when there is none, or it is forged, expired or idle too long.
func (s *Store) New(r *http.Request, name string) (*sessions.Session, error) {
	sess := sessions.NewSession(s, name)
	sess.Options = s.options()
	sess.IsNew = true
	cookie, err := r.Cookie(name)
	if err != nil {
		return sess, nil
	}
	var id string
	if err := s.codec.Decode(name, cookie.Value, &id); err != nil {
		return sess, nil
	}
	now := s.clock.Now()
	hash := HashID(id)
	row, err := s.rows.SessionByHash(r.Context(), hash, now)
	if errors.Is(err, db.ErrNotFound) {
		return sess, nil
	}
	if err != nil {
		return sess, fmt.Errorf("session: load: %w", err)
	}
	if now.Sub(row.LastSeenAt) > s.cfg.Idle {
		if err := s.rows.DeleteSession(r.Context(), hash); err != nil {
			return sess, fmt.Errorf("session: end idle session: %w", err)
		}
		return sess, nil
	}
	if len(row.Data) > 0 {
		values := map[string]any{}
		if err := json.Unmarshal(row.Data, &values); err != nil {
			slog.Warn("session: unreadable data, starting afresh", "err", err)
		}
		for k, v := range values {
			sess.Values[k] = v
		}
	}
	if row.UserID != nil {
		sess.Values[UserKey] = *row.UserID
	}
	sess.ID = id
	sess.IsNew = false
	// Record use at most once a minute: a write per request is not needed
	// to enforce an idle limit counted in days.
	if now.Sub(row.LastSeenAt) > time.Minute {
		if err := s.rows.TouchSession(r.Context(), hash, now); err != nil {
			return sess, fmt.Errorf("session: touch: %w", err)
		}
	}
	return sess, nil
}

// Save stores the session and sets its cookie; a negative MaxAge deletes it.
// A session whose ID was cleared gets a new id (as at log-in, against
// fixation).
func (s *Store) Save(r *http.Request, w http.ResponseWriter, sess *sessions.Session) error {
	ctx := r.Context()
	if sess.Options.MaxAge < 0 {
		if sess.ID != "" {
			if err := s.rows.DeleteSession(ctx, HashID(sess.ID)); err != nil {
				return fmt.Errorf("session: delete: %w", err)
			}
		}
		http.SetCookie(w, sessions.NewCookie(sess.Name(), "", sess.Options))
		return nil
	}
	var userID *int64
	data := map[string]any{}
	for k, v := range sess.Values {
		key, ok := k.(string)
		if !ok {
			return fmt.Errorf("session: key %v is not a string", k)
		}
		if key == UserKey {
			id, ok := v.(int64)
			if !ok {
				return fmt.Errorf("session: %s is %T, not int64", UserKey, v)
			}
			userID = &id
			continue
		}
		data[key] = v
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("session: encode values: %w", err)
	}
	now := s.clock.Now()
	if sess.ID == "" {
		id, err := newID()
		if err != nil {
			return err
		}
		err = s.rows.CreateSession(ctx, db.Session{
			IDHash: HashID(id), UserID: userID, Data: raw, UserAgent: truncate(r.UserAgent(), 200),
			CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(s.cfg.Lifetime),
		})
		if err != nil {
			return fmt.Errorf("session: create: %w", err)
		}
		sess.ID = id
	} else if err := s.rows.UpdateSession(ctx, HashID(sess.ID), userID, raw, now); err != nil {
		return fmt.Errorf("session: update: %w", err)
	}
	encoded, err := s.codec.Encode(sess.Name(), sess.ID)
	if err != nil {
		return fmt.Errorf("session: sign cookie: %w", err)
	}
	http.SetCookie(w, sessions.NewCookie(sess.Name(), encoded, sess.Options))
	return nil
}

// Destroy deletes the session row of an id (at log-in, before a new id).
func (s *Store) Destroy(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	if err := s.rows.DeleteSession(ctx, HashID(id)); err != nil {
		return fmt.Errorf("session: destroy: %w", err)
	}
	return nil
}

// HashID is the form of a session id kept in the database.
func HashID(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

func newID() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("session: random id: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
