package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// MailStore is what mail-related account use cases need of the database.
type MailStore interface {
	EnqueueMail(ctx context.Context, m db.Mail) error
	VerifyEmail(ctx context.Context, userID int64, email string, at time.Time) (bool, error)
	CreatePasswordReset(ctx context.Context, userID int64, expires, now time.Time) error
	PasswordReset(ctx context.Context, id int64) (db.PasswordReset, error)
	UseReset(ctx context.Context, id int64, hash string, now time.Time) (bool, error)
	Recipient(ctx context.Context, userID int64) (db.Recipient, error)
	LastResetAt(ctx context.Context, userID int64) (*time.Time, error)
	SetMailSettings(ctx context.Context, userID int64, m db.MailSettings) error
	SetMailKind(ctx context.Context, userID int64, kind string, on bool) error
}

// ResetFor is how long a password reset link works; ResetEvery is how often
// an account may be sent one, so /forgot cannot flood an inbox.
const (
	ResetFor   = time.Hour
	ResetEvery = 10 * time.Minute
)

// SendVerification queues a mail with a link that verifies the user's
// current address.
func (s *Service) SendVerification(ctx context.Context, userID int64) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	if u.EmailVerifiedAt != nil {
		return apperr.E(apperr.Conflict, "Your email address is verified already.")
	}
	now := s.clock.Now()
	if err := s.mail.EnqueueMail(ctx, db.Mail{UserID: userID, Kind: db.MailVerifyEmail, SendAfter: now, CreatedAt: now}); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not queue the mail")
	}
	return nil
}

// VerifyEmail confirms an address from a checked link: the account's
// pending new address, which then replaces the old one, or its current
// address. It reports whether the address changed.
func (s *Service) VerifyEmail(ctx context.Context, userID int64, email string) (changed bool, err error) {
	now := s.clock.Now()
	changed, err = s.store.ConfirmPendingEmail(ctx, userID, email, now)
	if errors.Is(err, db.ErrEmailTaken) {
		return false, apperr.E(apperr.Conflict, "Another account uses %s now, so it cannot become yours. Your address is unchanged.", email)
	}
	if err != nil {
		return false, apperr.Wrap(err, apperr.Internal, "could not confirm the address")
	}
	if changed {
		return true, nil
	}
	ok, err := s.mail.VerifyEmail(ctx, userID, email, now)
	if err != nil {
		return false, apperr.Wrap(err, apperr.Internal, "could not verify the address")
	}
	if !ok {
		return false, apperr.E(apperr.Conflict, "This link is for an address the account no longer uses or no longer asks for.")
	}
	return false, nil
}

// RequestReset mails a password reset link to the account with that email,
// if there is one. The answer is the same either way.
func (s *Service) RequestReset(ctx context.Context, email string) error {
	email = strings.TrimSpace(email)
	if msg := checkEmail(email); msg != "" {
		return (apperr.FieldErrors{"email": msg}).Err()
	}
	u, err := s.store.UserByLogin(ctx, email)
	if errors.Is(err, db.ErrNotFound) || (err == nil && (!strings.EqualFold(u.Email, email) || u.Guest)) {
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not look up the account")
	}
	now := s.clock.Now()
	last, err := s.mail.LastResetAt(ctx, u.ID)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not look up the last reset")
	}
	if last != nil && now.Sub(*last) < ResetEvery {
		return nil // the same answer: the mail sent a moment ago still works
	}
	if err := s.mail.CreatePasswordReset(ctx, u.ID, now.Add(ResetFor), now); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not start the reset")
	}
	return nil
}

// ResetTag is the end of a password hash, carried by a reset link so that
// the link dies when the password changes.
func ResetTag(hash string) string {
	if len(hash) > 12 {
		return hash[len(hash)-12:]
	}
	return hash
}

// ErrResetGone answers a reset link that was used, expired or replaced.
var ErrResetGone = apperr.E(apperr.Conflict, "This reset link was used already or has expired. Ask for a new one.")

// CheckReset tells whether a (signature-checked) reset link still works.
func (s *Service) CheckReset(ctx context.Context, resetID, userID int64, tag string) error {
	r, err := s.mail.PasswordReset(ctx, resetID)
	if errors.Is(err, db.ErrNotFound) {
		return ErrResetGone
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not load the reset")
	}
	u, err := s.User(ctx, userID)
	if err != nil {
		return ErrResetGone
	}
	if r.UserID != userID || r.UsedAt != nil || !r.ExpiresAt.After(s.clock.Now()) || ResetTag(u.PasswordHash) != tag {
		return ErrResetGone
	}
	return nil
}

// ResetInput is the new-password form of a reset.
type ResetInput struct {
	New     string `form:"new"`
	Confirm string `form:"confirm"`
}

// ResetPassword sets a new password through a reset link, once; every
// session of the account ends.
func (s *Service) ResetPassword(ctx context.Context, resetID, userID int64, tag string, in ResetInput) error {
	if err := s.CheckReset(ctx, resetID, userID, tag); err != nil {
		return err
	}
	hash, err := newPasswordHash(apperr.FieldErrors{}, in.New, in.Confirm)
	if err != nil {
		return err
	}
	ok, err := s.mail.UseReset(ctx, resetID, hash, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not set the password")
	}
	if !ok {
		return ErrResetGone
	}
	return nil
}

// MailSettings returns a user's mail choices.
func (s *Service) MailSettings(ctx context.Context, userID int64) (db.MailSettings, error) {
	r, err := s.mail.Recipient(ctx, userID)
	if err != nil {
		return db.MailSettings{}, apperr.Wrap(err, apperr.Internal, "could not load the settings")
	}
	return r.MailSettings, nil
}

// NotificationsInput is the mail settings form.
type NotificationsInput struct {
	YourTurn   bool   `form:"mail_your_turn"`
	Reminder   bool   `form:"mail_reminder"`
	GameOver   bool   `form:"mail_game_over"`
	TimedOut   bool   `form:"mail_timed_out"`
	Invite     bool   `form:"mail_invite"`
	Tournament bool   `form:"mail_tournament"`
	TurnDigest bool   `form:"turn_digest"`
	DigestHour int    `form:"digest_hour"`
	TimeZone   string `form:"time_zone"`
}

// SetMailSettings stores a user's mail choices.
func (s *Service) SetMailSettings(ctx context.Context, userID int64, in NotificationsInput) error {
	f := apperr.FieldErrors{}
	in.TimeZone = strings.TrimSpace(in.TimeZone)
	if _, err := time.LoadLocation(in.TimeZone); err != nil || in.TimeZone == "" || strings.EqualFold(in.TimeZone, "local") {
		f.Add("time_zone", "Use a time zone name such as Europe/Rome or America/New_York.")
	}
	if in.DigestHour < 0 || in.DigestHour > 23 {
		f.Add("digest_hour", "Choose an hour from 0 to 23.")
	}
	if err := f.Err(); err != nil {
		return err
	}
	err := s.mail.SetMailSettings(ctx, userID, db.MailSettings{
		TimeZone: in.TimeZone, YourTurn: in.YourTurn, Reminder: in.Reminder, GameOver: in.GameOver,
		TimedOut: in.TimedOut, Invite: in.Invite, Tournament: in.Tournament, TurnDigest: in.TurnDigest, DigestHour: in.DigestHour,
	})
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not save the settings")
	}
	return nil
}

// Unsubscribe turns off one kind of mail (from a checked link).
func (s *Service) Unsubscribe(ctx context.Context, userID int64, kind string) error {
	if err := s.mail.SetMailKind(ctx, userID, kind, false); err != nil {
		return apperr.E(apperr.Invalid, "This unsubscribe link names no kind of mail we send.")
	}
	return nil
}
