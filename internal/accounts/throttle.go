package accounts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// Throttling of password checks: attempts counted over a window that starts
// at a key's first failure, per account (or per name tried, for names that
// match no account) and per client IP at log-in, and per account on the
// settings forms that ask for the current password.
//
// An attempt is counted before the password is hashed, in one statement, so
// that N parallel guesses cost at most the limit; an attempt whose password
// was right is given back (the account's count is cleared), so that good
// log-ins never use up an IP's allowance.
const (
	FailureWindow      = 15 * time.Minute
	MaxAccountFailures = 5
	MaxIPFailures      = 30
	// MaxReauthFailures is how many wrong current passwords the settings
	// forms take in a window; the failure that reaches it ends the session
	// that made it.
	MaxReauthFailures = 5
)

// ErrReauthExhausted marks the error of the wrong current password that
// used up an account's allowance on the settings forms: the handler then
// ends that session (whoever holds it does not know the password).
var ErrReauthExhausted = errors.New("accounts: too many wrong current passwords")

// Throttle keys. A name that matches no account is counted under the name,
// so that it is answered exactly like an account.
func accountKey(id int64) string   { return fmt.Sprintf("user:%d", id) }
func loginKey(login string) string { return "login:" + strings.ToLower(login) }
func ipKey(ip string) string       { return "ip:" + ip }
func reauthKey(id int64) string    { return fmt.Sprintf("reauth:%d", id) }

// waitMinutes is a lock's remaining time in whole minutes, rounded up.
func waitMinutes(wait time.Duration) int {
	// Postgres keeps microseconds, so the wait may be a hair over whole minutes.
	return max(int(math.Ceil(wait.Round(time.Second).Minutes())), 1)
}

// countAttempt counts an attempt against key; past limit it counts nothing
// and says how long the key is locked.
func (s *Service) countAttempt(ctx context.Context, now time.Time, key string, limit int) (db.Attempt, time.Duration, error) {
	a, err := s.store.CountAttempt(ctx, key, limit, now, now.Add(-FailureWindow))
	if err != nil {
		return db.Attempt{}, 0, apperr.Wrap(err, apperr.Internal, "could not count the attempt")
	}
	if a.Count > limit {
		return db.Attempt{}, a.WindowFrom.Add(FailureWindow).Sub(now), nil
	}
	return a, 0, nil
}

// uncount gives an attempt back; a failure to do so only leaves the count
// one higher until the window ends.
func (s *Service) uncount(ctx context.Context, a db.Attempt) {
	if a.Key == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = s.store.UncountAttempt(ctx, a)
}

func loginThrottled(wait time.Duration) error {
	if n := waitMinutes(wait); n > 1 {
		return apperr.E(apperr.TooMany, "Too many failed log-ins. Try again in %d minutes.", n)
	}
	return apperr.E(apperr.TooMany, "Too many failed log-ins. Try again in a minute.")
}

func reauthThrottled(wait time.Duration) error {
	if n := waitMinutes(wait); n > 1 {
		return apperr.E(apperr.TooMany, "Too many wrong passwords. Try again in %d minutes.", n)
	}
	return apperr.E(apperr.TooMany, "Too many wrong passwords. Try again in a minute.")
}

func reauthExhausted(wait time.Duration) error {
	e := apperr.E(apperr.TooMany, "You were logged out after too many wrong passwords on the settings page. Log in again; the settings take your password again in a minute.")
	if n := waitMinutes(wait); n > 1 {
		e = apperr.E(apperr.TooMany, "You were logged out after too many wrong passwords on the settings page. Log in again; the settings take your password again in %d minutes.", n)
	}
	e.Err = ErrReauthExhausted
	return e
}

// checkCurrentPassword checks the password a settings form asks for,
// throttled per account. The failure that uses up the account's allowance
// returns ErrReauthExhausted (inside an apperr.TooMany): the session that
// made it is to end. Attempts after that, from any session, are refused
// unchecked until the window ends, without ending their session (the owner,
// logged in again, is told to wait rather than thrown out again).
func (s *Service) checkCurrentPassword(ctx context.Context, u db.User, password string) (bool, error) {
	now := s.clock.Now()
	key := reauthKey(u.ID)
	a, wait, err := s.countAttempt(ctx, now, key, MaxReauthFailures)
	if err != nil {
		return false, err
	}
	if wait > 0 {
		return false, reauthThrottled(wait)
	}
	ok, err := CheckPassword(u.PasswordHash, password)
	if err != nil {
		s.uncount(ctx, a)
		return false, apperr.Wrap(err, apperr.Internal, "could not check the password")
	}
	if ok {
		if err := s.store.ClearAttempts(ctx, key); err != nil {
			return false, apperr.Wrap(err, apperr.Internal, "could not clear attempts")
		}
		return true, nil
	}
	if a.Count >= MaxReauthFailures {
		return false, reauthExhausted(a.WindowFrom.Add(FailureWindow).Sub(now))
	}
	return false, nil
}
