// Package apperr is the application's error type: every error a service
// returns to a handler carries a code, a message fit for the user and, for
// bad input, the fields at fault. Handlers map codes to HTTP status in one
// place. It imports the standard library only.
package apperr

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Code classifies an error for the user and for HTTP.
type Code string

const (
	Invalid      Code = "invalid"      // bad input; Fields says where
	Unauthorized Code = "unauthorized" // not logged in, or wrong credentials
	Forbidden    Code = "forbidden"    // logged in, but not allowed
	NotFound     Code = "not_found"    // no such thing
	Conflict     Code = "conflict"     // the state moved on (stale or repeated action)
	TooMany      Code = "too_many"     // throttled
	Paused       Code = "paused"       // held out of something until a time (Until says when)
	Internal     Code = "internal"     // our fault; logged, never shown in detail
)

// Error is an error with a code and a user-facing message.
type Error struct {
	Code    Code
	Message string
	// Fields maps form field names to what is wrong with each.
	Fields map[string]string
	// Err is the underlying cause, if any (logged, not shown).
	Err error
	// Format and Args are Message before it was filled in, for the
	// handlers to translate the format and fill it in the reader's
	// language.
	Format string
	Args   []any
	// RetryAfter, for a TooMany error, is when trying again may succeed (0:
	// not said); HTTP answers send it as Retry-After.
	RetryAfter time.Duration
	// Until, for a Paused error, is when the pause ends.
	Until time.Time
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// E makes an error with a code and message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// Wrap makes an error with a code and message around a cause.
func Wrap(err error, code Code, msg string) *Error {
	return &Error{Code: code, Message: msg, Err: err, Format: msg}
}

// FieldErrors collects what is wrong with each field of a form.
type FieldErrors map[string]string

// Add records the first problem of a field.
func (f FieldErrors) Add(field, msg string) {
	if _, ok := f[field]; !ok {
		f[field] = msg
	}
}

// Err returns an Invalid error for the fields, or nil when there are none.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: Invalid, Message: "Please correct the marked fields.", Fields: f}
}

// CodeOf returns the code of err, Internal for an error without one.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// MessageOf returns the user-facing message of err.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != Internal {
		return e.Message
	}
	return InternalMessage
}

// Sub is a message given as another's argument (a parser's finding in
// "Line %d: %s"), translated with it: MessageIn translates its format too.
type Sub struct {
	Format string
	Args   []any
}

func (s Sub) String() string {
	if len(s.Args) == 0 {
		return s.Format
	}
	return fmt.Sprintf(s.Format, s.Args...)
}

// InternalMessage is what the user reads of an Internal error.
const InternalMessage = "Something went wrong on our side. Please try again."

// Translator translates a printf format and fills it in (the i18n package
// provides one per language).
type Translator func(format string, args ...any) string

// MessageIn returns the user-facing message of err through tr.
func MessageIn(err error, tr Translator) string {
	var e *Error
	if errors.As(err, &e) && e.Code != Internal {
		if e.Format == "" {
			return tr(e.Message)
		}
		args := e.Args
		for i, a := range e.Args {
			if sub, ok := a.(Sub); ok {
				if &args[0] == &e.Args[0] {
					args = slices.Clone(e.Args)
				}
				args[i] = tr(sub.Format, sub.Args...)
			}
		}
		return tr(e.Format, args...)
	}
	return tr(InternalMessage)
}

// FieldsIn returns the field errors of err, each message through tr.
func FieldsIn(err error, tr Translator) map[string]string {
	f := FieldsOf(err)
	if f == nil {
		return nil
	}
	out := make(map[string]string, len(f))
	for k, v := range f {
		out[k] = tr(v)
	}
	return out
}

// RetryAfterOf returns how long err says to wait before trying again (0:
// it does not say).
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// UntilOf returns when the pause err tells of ends (zero: none).
func UntilOf(err error) time.Time {
	var e *Error
	if errors.As(err, &e) && e.Code == Paused {
		return e.Until
	}
	return time.Time{}
}

// FieldsOf returns the field errors of err, if any.
func FieldsOf(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}
