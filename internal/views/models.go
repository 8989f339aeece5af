// Package views renders pages and fragments with templ. Components take
// display-shaped view models and never query anything; handlers build the
// models. Key elements carry data-testid for tests.
package views

// Page is what every full page needs besides its content.
type Page struct {
	Title string
	// User is the logged-in player, nil for a visitor.
	User *NavUser
	// CSRF is the token for forms (for clients that send no Sec-Fetch-Site).
	CSRF  string
	Flash *Flash
	// Canonical path of the page, to mark the current nav link.
	Path string
	// Here is the page's path and query, where the language switch comes
	// back to.
	Here string
	// TurnsInGameStream: the page's game stream also carries the player's
	// turn events, so the page opens no stream of its own for them (a
	// browser holds only 6 connections to a site over HTTP/1.1).
	TurnsInGameStream bool
	// Lists is the list of games the page shows ("open", "live"; "" for
	// none), which its stream tells it of when it changes.
	Lists string
	// Tournament is the event the page is about (its own page, or a game
	// of it), 0 for none: a "your table is ready" notice of that event
	// takes the player to their table.
	Tournament int64
	// Bare: a page kept in the browser's cache (the offline page), which
	// knows nothing of who looks at it, so its menu offers no "Log in"
	// to a member and its footer no language forms without a token.
	Bare bool
}

// NavUser is the logged-in player as the navigation shows them.
type NavUser struct {
	Name string
	// MyTurn counts the games waiting for them.
	MyTurn int
	// Invites counts the invitations waiting for their answer.
	Invites int
	// TurnSound: play a short sound when a game comes to them.
	TurnSound bool
	// Guest: playing bots without an account yet.
	Guest bool
	// Admin: a moderator.
	Admin bool
}

// Flash is a one-time message shown at the top of a page.
type Flash struct {
	Kind    string // info, ok or error
	Message string
}

// Form is the state of a submitted form: values to show again, errors per
// field and an error for the whole form.
type Form struct {
	Values map[string]string
	Errors map[string]string
	Error  string
}

// Value returns a field's value to show again.
func (f Form) Value(name string) string { return f.Values[name] }

// Err returns a field's error, "" when the field is fine.
func (f Form) Err(name string) string { return f.Errors[name] }
