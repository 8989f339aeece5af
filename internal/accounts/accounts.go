// Package accounts is the use cases of user accounts: register, log in with
// throttling, change password and email. HTML handlers and the JSON API
// both call it. It imports the db package, never the web layers.
package accounts

import (
	"context"
	crand "crypto/rand"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
)

// Store is what the service needs of the database.
type Store interface {
	CreateUser(ctx context.Context, username, email, passwordHash string, now time.Time) (db.User, error)
	UserByID(ctx context.Context, id int64) (db.User, error)
	UserByName(ctx context.Context, name string) (db.User, error)
	UserByLogin(ctx context.Context, login string) (db.User, error)
	UpdatePassword(ctx context.Context, id int64, hash string) error
	UpdateEmail(ctx context.Context, id int64, email string) error
	SetPendingEmail(ctx context.Context, id int64, email string, now time.Time) error
	ResendPendingEmail(ctx context.Context, id int64, since, now time.Time) (bool, error)
	CancelPendingEmail(ctx context.Context, id int64) error
	SetTurnSound(ctx context.Context, id int64, on bool) error
	SetLanguage(ctx context.Context, id int64, lang string) error
	CreateGuest(ctx context.Context, username, placeholder string, now time.Time) (db.User, error)
	ConvertGuest(ctx context.Context, id int64, username, email, hash string) (db.User, error)
	DeleteGuestsBefore(ctx context.Context, before time.Time) (int64, error)
	ConfirmPendingEmail(ctx context.Context, id int64, email string, at time.Time) (bool, error)
	CountAttempt(ctx context.Context, key string, limit int, now, expired time.Time) (db.Attempt, error)
	UncountAttempt(ctx context.Context, a db.Attempt) error
	ClearAttempts(ctx context.Context, key string) error
	DeleteOldAttempts(ctx context.Context, before time.Time) error
}

// Limits on input.
const (
	MinUsername    = 3
	MaxUsername    = 20
	MinPassword    = 8
	MaxPassword    = 1024 // bytes; far above any real password, below a denial of service
	MaxEmailLength = 254
)

// Service is the accounts use cases.
type Service struct {
	store    Store
	sessions SessionStore
	tokens   TokenStore
	mail     MailStore
	clock    clock.Clock
	// dummyHash is checked when a log-in names no account, so that such a
	// log-in takes as long as a wrong password.
	dummyHash string
	// tokenCache holds API tokens checked lately.
	tokenCache tokenCache
	hooks      revokeHooks
}

// New returns the service.
func New(store Store, sessions SessionStore, tokens TokenStore, mail MailStore, clk clock.Clock) (*Service, error) {
	dummy, err := HashPassword("not a password of anyone")
	if err != nil {
		return nil, err
	}
	return &Service{store: store, sessions: sessions, tokens: tokens, mail: mail, clock: clk, dummyHash: dummy}, nil
}

// RegisterInput is the registration form.
type RegisterInput struct {
	Username string `form:"username" json:"username"`
	Email    string `form:"email" json:"email"`
	Password string `form:"password" json:"password"`
	Confirm  string `form:"confirm" json:"confirm"`
}

// Normalize trims the fields that may be trimmed (never the password).
func (in *RegisterInput) Normalize() {
	in.Username = strings.TrimSpace(in.Username)
	in.Email = strings.TrimSpace(in.Email)
}

// Validate checks the form without the database.
func (in RegisterInput) Validate() apperr.FieldErrors {
	f := apperr.FieldErrors{}
	if msg := checkUsername(in.Username); msg != "" {
		f.Add("username", msg)
	}
	if msg := checkEmail(in.Email); msg != "" {
		f.Add("email", msg)
	}
	if msg := checkPassword(in.Password); msg != "" {
		f.Add("password", msg)
	}
	if in.Confirm != in.Password {
		f.Add("confirm", "The two passwords differ.")
	}
	return f
}

func checkUsername(name string) string {
	if strings.HasPrefix(strings.ToLower(name), "guest-") {
		return i18n.M("Names starting with “Guest-” are kept for guests.")
	}
	if strings.HasPrefix(strings.ToLower(name), db.DeletedPrefix) {
		return i18n.M("Names starting with “deleted-” are kept for deleted accounts.")
	}
	n := utf8.RuneCountInString(name)
	if n < MinUsername || n > MaxUsername {
		return i18n.M("A username has 3 to 20 characters.") // MinUsername, MaxUsername
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || (i > 0 && (r == '_' || r == '-'))
		if !ok {
			return i18n.M("Use letters, digits, _ and - only, starting with a letter or digit.")
		}
	}
	return ""
}

func checkEmail(email string) string {
	if email == "" {
		return i18n.M("Enter your email address.")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > MaxEmailLength || !strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
		return i18n.M("That does not look like an email address (name@example.com).")
	}
	return ""
}

func checkPassword(pw string) string {
	if utf8.RuneCountInString(pw) < MinPassword {
		return i18n.M("A password has at least 8 characters.") // MinPassword
	}
	if len(pw) > MaxPassword {
		return i18n.M("A password has at most 1024 bytes.") // MaxPassword
	}
	return ""
}

// Register creates an account.
func (s *Service) Register(ctx context.Context, in RegisterInput) (db.User, error) {
	in.Normalize()
	fields := in.Validate()
	if err := fields.Err(); err != nil {
		return db.User{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not hash the password")
	}
	u, err := s.store.CreateUser(ctx, in.Username, in.Email, hash, s.clock.Now())
	switch {
	case errors.Is(err, db.ErrUsernameTaken):
		fields.Add("username", "That username is taken.")
		return db.User{}, fields.Err()
	case errors.Is(err, db.ErrEmailTaken):
		fields.Add("email", "An account with that email exists already. Log in instead?")
		return db.User{}, fields.Err()
	case err != nil:
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not create the account")
	}
	// The account reads the site, and gets its mail, in the language it
	// registered in until its owner chooses another.
	if err := s.store.SetLanguage(ctx, u.ID, string(i18n.From(ctx))); err == nil {
		u.Lang = string(i18n.From(ctx))
	}
	// The account stands even if this fails: settings offer to send it again.
	_ = s.SendVerification(ctx, u.ID)
	return u, nil
}

// LoginInput is the log-in form.
type LoginInput struct {
	Login    string `form:"login" json:"login"`
	Password string `form:"password" json:"password"`
}

// ErrBadCredentials is the one answer to a wrong name or wrong password.
var ErrBadCredentials = apperr.E(apperr.Unauthorized, "Wrong username, email or password.")

// Login checks credentials. ip is the client's address for throttling. The
// answer, and the time it takes, are the same whether the account exists.
// The attempt is counted against the account and the IP before the
// password is hashed, so parallel guesses cannot outrun the limits.
func (s *Service) Login(ctx context.Context, in LoginInput, ip string) (db.User, error) {
	login := strings.TrimSpace(in.Login)
	// No account has a longer name or address, and such a name must not
	// become a throttle key (an index entry has a size limit).
	if login == "" || len(login) > MaxEmailLength || in.Password == "" || len(in.Password) > MaxPassword {
		return db.User{}, ErrBadCredentials
	}
	now := s.clock.Now()
	u, err := s.store.UserByLogin(ctx, login)
	found := err == nil
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not look up the account")
	}
	key := loginKey(login)
	if found {
		key = accountKey(u.ID)
	}
	// The address first: a client over its limit adds no rows for the
	// names it tries.
	fromIP, wait, err := s.countAttempt(ctx, now, ipKey(ip), MaxIPFailures)
	if err != nil {
		return db.User{}, err
	}
	if wait > 0 {
		return db.User{}, loginThrottled(wait)
	}
	account, wait, err := s.countAttempt(ctx, now, key, MaxAccountFailures)
	if err != nil || wait > 0 {
		s.uncount(ctx, fromIP)
		if err != nil {
			return db.User{}, err
		}
		return db.User{}, loginThrottled(wait)
	}
	if found && u.Guest {
		found = false // a guest has no password: no name of theirs logs in
	}
	hash := s.dummyHash
	if found {
		hash = u.PasswordHash
	}
	ok, err := CheckPassword(hash, in.Password)
	if err != nil {
		s.uncount(ctx, account)
		s.uncount(ctx, fromIP)
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not check the password")
	}
	if !ok || !found {
		return db.User{}, ErrBadCredentials
	}
	if !u.Active() {
		// Said only to whoever knows the password; the account comes
		// with it, so that a closed account can still read and appeal
		// the decision that closed it (docs/fair-play.md).
		if u.DeletedAt != nil {
			return db.User{}, ErrDisabled
		}
		return u, ErrDisabled
	}
	s.uncount(ctx, fromIP)
	if err := s.store.ClearAttempts(ctx, key); err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not clear failures")
	}
	return u, nil
}

// User loads a user by id.
func (s *Service) User(ctx context.Context, id int64) (db.User, error) {
	u, err := s.store.UserByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) || (err == nil && !u.Active()) {
		return db.User{}, apperr.E(apperr.NotFound, "No such player.")
	}
	if err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not load the player")
	}
	return u, nil
}

// UserByName loads a user by username, ignoring case.
func (s *Service) UserByName(ctx context.Context, name string) (db.User, error) {
	u, err := s.store.UserByName(ctx, name)
	if errors.Is(err, db.ErrNotFound) || (err == nil && u.DeletedAt != nil) {
		return db.User{}, apperr.E(apperr.NotFound, "There is no player called %q.", name)
	}
	if err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not load the player")
	}
	return u, nil
}

// PasswordInput is the change-password form.
type PasswordInput struct {
	Current          string `form:"current" json:"current"`
	New              string `form:"new" json:"new"`
	Confirm          string `form:"confirm" json:"confirm"`
	EndOtherSessions bool   `form:"end_other_sessions" json:"end_other_sessions"`
}

// ErrDisabled answers the log-in of an account a moderator disabled.
var ErrDisabled = apperr.E(apperr.Forbidden, "This account has been disabled by a moderator.")

// VerifyPassword checks the password a form asks for before a grave step
// (deleting the account), throttled like the other settings forms; a wrong
// one is a field error on "password".
func (s *Service) VerifyPassword(ctx context.Context, u db.User, password string) error {
	if password == "" {
		return apperr.FieldErrors{"password": "Write your password to confirm."}.Err()
	}
	ok, err := s.checkCurrentPassword(ctx, u, password)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.FieldErrors{"password": "That is not your password."}.Err()
	}
	return nil
}

// ChangePassword sets a new password after checking the current one.
func (s *Service) ChangePassword(ctx context.Context, userID int64, in PasswordInput) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	f := apperr.FieldErrors{}
	if ok, err := s.checkCurrentPassword(ctx, u, in.Current); err != nil {
		return err
	} else if !ok {
		f.Add("current", "That is not your current password.")
	}
	hash, err := newPasswordHash(f, in.New, in.Confirm)
	if err != nil {
		return err
	}
	if err := s.store.UpdatePassword(ctx, userID, hash); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not save the password")
	}
	return nil
}

// EmailInput is the change-email form.
type EmailInput struct {
	Email    string `form:"email" json:"email"`
	Password string `form:"password" json:"password"`
}

// ChangeEmail asks for a new email address after checking the password.
// When the account's address is confirmed, the new one waits (pending) until
// its owner confirms it from the link mailed to it, and the confirmed one
// stays in use for everything meanwhile (notifications, password reset,
// log-in), so a typo cannot lock the owner out. An address never confirmed
// is simply replaced: it reached nobody yet. It reports whether the change
// waits for confirmation.
func (s *Service) ChangeEmail(ctx context.Context, userID int64, in EmailInput) (pending bool, err error) {
	in.Email = strings.TrimSpace(in.Email)
	u, err := s.User(ctx, userID)
	if err != nil {
		return false, err
	}
	f := apperr.FieldErrors{}
	if msg := checkEmail(in.Email); msg != "" {
		f.Add("email", msg)
	} else if strings.EqualFold(in.Email, u.Email) {
		f.Add("email", "That is your address already.")
	}
	if ok, err := s.checkCurrentPassword(ctx, u, in.Password); err != nil {
		return false, err
	} else if !ok {
		f.Add("password", "That is not your password.")
	}
	if err := f.Err(); err != nil {
		return false, err
	}
	if u.EmailVerifiedAt == nil {
		err = s.store.UpdateEmail(ctx, userID, in.Email)
	} else {
		err = s.store.SetPendingEmail(ctx, userID, in.Email, s.clock.Now())
	}
	if errors.Is(err, db.ErrEmailTaken) {
		f.Add("email", "Another account uses that email.")
		return false, f.Err()
	}
	if err != nil {
		return false, apperr.Wrap(err, apperr.Internal, "could not save the email")
	}
	if u.EmailVerifiedAt == nil {
		return false, s.SendVerification(ctx, userID)
	}
	return true, nil
}

// ResendEvery is how often the confirmation of a pending address may be
// mailed again, so the form cannot flood somebody's inbox.
const ResendEvery = 5 * time.Minute

// ResendPendingEmail mails the confirmation link of the pending address
// again.
func (s *Service) ResendPendingEmail(ctx context.Context, userID int64) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	if u.PendingEmail == nil {
		return apperr.E(apperr.Conflict, "There is no new address waiting for confirmation.")
	}
	now := s.clock.Now()
	sent, err := s.store.ResendPendingEmail(ctx, userID, now.Add(-ResendEvery), now)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not queue the mail")
	}
	if !sent {
		return apperr.E(apperr.Conflict, "A confirmation link went to %s less than 5 minutes ago. Look for it there (and in the spam folder) before asking again.", *u.PendingEmail)
	}
	return nil
}

// CancelPendingEmail drops the new address waiting for confirmation; the
// links mailed to it stop working.
func (s *Service) CancelPendingEmail(ctx context.Context, userID int64) error {
	if err := s.store.CancelPendingEmail(ctx, userID); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not cancel the change")
	}
	return nil
}

// SessionStore is what the service needs to end sessions.
type SessionStore interface {
	DeleteOtherSessions(ctx context.Context, userID int64, keep []byte) (int64, error)
	CountSessions(ctx context.Context, userID int64, now time.Time) (int, error)
	DeleteExpiredSessions(ctx context.Context, now time.Time, idle time.Duration) (int64, error)
}

// EndOtherSessions logs a user out everywhere but the session keep (the
// hash of the current session id).
func (s *Service) EndOtherSessions(ctx context.Context, userID int64, keep []byte) (int64, error) {
	n, err := s.sessions.DeleteOtherSessions(ctx, userID, keep)
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not end the other sessions")
	}
	return n, nil
}

// OtherSessions counts a user's live sessions besides the current one.
func (s *Service) OtherSessions(ctx context.Context, userID int64, current []byte) (int, error) {
	n, err := s.sessions.CountSessions(ctx, userID, s.clock.Now())
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not count sessions")
	}
	if current != nil {
		n--
	}
	return max(n, 0), nil
}

// Cleanup deletes sessions past their lifetime or idle limit and throttle
// counters too old to count.
func (s *Service) Cleanup(ctx context.Context, idle time.Duration) error {
	now := s.clock.Now()
	if _, err := s.sessions.DeleteExpiredSessions(ctx, now, idle); err != nil {
		return err
	}
	return s.store.DeleteOldAttempts(ctx, now.Add(-FailureWindow))
}

// newPasswordHash checks a new password and its confirmation, adding to the
// form's other errors, and hashes it.
func newPasswordHash(f apperr.FieldErrors, password, confirm string) (string, error) {
	if msg := checkPassword(password); msg != "" {
		f.Add("new", msg)
	}
	if confirm != password {
		f.Add("confirm", "The two passwords differ.")
	}
	if err := f.Err(); err != nil {
		return "", err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return "", apperr.Wrap(err, apperr.Internal, "could not hash the password")
	}
	return hash, nil
}

// SetTurnSound turns the short sound of a turn coming on or off.
func (s *Service) SetTurnSound(ctx context.Context, userID int64, on bool) error {
	if err := s.store.SetTurnSound(ctx, userID, on); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not save the setting")
	}
	return nil
}

// SetLanguage saves the language a person reads the site and their mail in.
func (s *Service) SetLanguage(ctx context.Context, userID int64, lang string) error {
	l, ok := i18n.Parse(lang)
	if !ok {
		return apperr.E(apperr.Invalid, "Choose English, Spanish or Italian.")
	}
	if err := s.store.SetLanguage(ctx, userID, string(l)); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not save the setting")
	}
	return nil
}

// GuestFor is how long a guest account lasts unless its player registers.
const GuestFor = 7 * 24 * time.Hour

// PlayAsGuest makes a guest account: a made-up name ("Guest-k4z9qa"), no
// address, no password. Its player can register later and keep its games.
func (s *Service) PlayAsGuest(ctx context.Context) (db.User, error) {
	for range 5 {
		tag, err := randomTag()
		if err != nil {
			return db.User{}, apperr.Wrap(err, apperr.Internal, "could not make a guest name")
		}
		u, err := s.store.CreateGuest(ctx, "Guest-"+tag, "guest-"+tag+"@guests.invalid", s.clock.Now())
		if errors.Is(err, db.ErrUsernameTaken) || errors.Is(err, db.ErrEmailTaken) {
			continue
		}
		if err != nil {
			return db.User{}, apperr.Wrap(err, apperr.Internal, "could not make a guest")
		}
		return u, nil
	}
	return db.User{}, apperr.E(apperr.Internal, "could not find a free guest name")
}

// RegisterGuest makes a guest's account an ordinary one with the name,
// address and password they choose; their games stay theirs.
func (s *Service) RegisterGuest(ctx context.Context, guestID int64, in RegisterInput) (db.User, error) {
	in.Normalize()
	fields := in.Validate()
	if err := fields.Err(); err != nil {
		return db.User{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not hash the password")
	}
	u, err := s.store.ConvertGuest(ctx, guestID, in.Username, in.Email, hash)
	switch {
	case errors.Is(err, db.ErrUsernameTaken):
		fields.Add("username", "That username is taken.")
		return db.User{}, fields.Err()
	case errors.Is(err, db.ErrEmailTaken):
		fields.Add("email", "An account with that email exists already. Log in instead?")
		return db.User{}, fields.Err()
	case errors.Is(err, db.ErrNotFound):
		return db.User{}, apperr.E(apperr.Conflict, "This account is registered already.")
	case err != nil:
		return db.User{}, apperr.Wrap(err, apperr.Internal, "could not register the account")
	}
	_ = s.SendVerification(ctx, u.ID)
	return u, nil
}

// DeleteStaleGuests deletes the guest accounts older than GuestFor, with
// their games.
func (s *Service) DeleteStaleGuests(ctx context.Context) (int64, error) {
	return s.store.DeleteGuestsBefore(ctx, s.clock.Now().Add(-GuestFor))
}

// randomTag is six random digits and letters for a guest's name.
func randomTag() (string, error) {
	const alphabet = "23456789abcdefghjkmnpqrstuvwxyz"
	b := make([]byte, 6)
	if _, err := crand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}
