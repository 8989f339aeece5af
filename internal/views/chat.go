package views

import "net/url"

// ChatView is one channel of a game's chat as its readers see it.
type ChatView struct {
	GameID int64
	// Channel is "players" or "spectators".
	Channel  string
	Messages []ChatLine
	// Code is the invite code report links carry (private games).
	Code string
	// Moderator: the reader is a moderator, who sees a hidden message's
	// text (marked as hidden) and may show it again.
	Moderator bool
}

// ChatLine is one message.
type ChatLine struct {
	ID int64
	// Author is the writer's name (a deleted account's as PlayerName shows).
	Author string
	Hidden bool
	Body   string
	// At is when it was written (RFC 3339) and Clock the same as HH:MM in
	// UTC, which the page's script turns into the reader's local time.
	At    string
	Clock string
}

// ChatPanelView is the chat beside a table: its messages and the form to
// write, or why the viewer cannot.
type ChatPanelView struct {
	Log ChatView
	// Muted: the viewer muted this game's chat.
	Muted bool
	// CanMute: a logged-in viewer (muting is kept on the account).
	CanMute bool
	Form    ChatFormView
}

// ChatFormView is the form to write a message.
type ChatFormView struct {
	GameID int64
	Code   string
	// Why, when not empty, says why the viewer cannot write (and no form
	// shows): a visitor, a guest, a silenced account.
	Why   string
	Value string
	Error string
	// Sent: the last message went through (the form is empty again).
	Sent bool
}

// ReplayChatView is a finished game's chat under its replay.
type ReplayChatView struct {
	Players, Spectators ChatView
}

// ReportView is the page that reports a message.
type ReportView struct {
	MessageID int64
	GameID    int64
	Author    string
	Body      string
	Code      string
	Form      Form
	// Moderator: the reader may hide the message and silence its author
	// here, without a report.
	Moderator bool
	// AuthorName is the author's username, "" for a deleted account.
	AuthorName string
	// Hidden: a moderator hid the message (only moderators see it then).
	Hidden bool
}

// CodeQuery is "?code=…" for a private game's invite code, "" for none.
func CodeQuery(code string) string {
	if code == "" {
		return ""
	}
	return "?code=" + url.QueryEscape(code)
}
