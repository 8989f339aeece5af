package views

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/a-h/templ"
	"html"
	"io"
	"nothanks/internal/i18n"
	"nothanks/static"
	"strconv"
	"strings"
)

// pageTitle is the page's title, "(Your turn) " first while a game waits
// for the player (the page script keeps it so).
func pageTitle(ctx context.Context, p Page) string {
	if p.User != nil && p.User.MyTurn > 0 {
		return tr(ctx, "(Your turn)") + " " + title(ctx, p.Title)
	}
	return title(ctx, p.Title)
}

// favicon is the site's icon, with a red mark while a game waits for the
// player.
func favicon(p Page) string {
	if p.User != nil && p.User.MyTurn > 0 {
		return static.Path("favicon-turn.svg")
	}
	return static.Path("favicon.svg")
}

// myTurnWords says the badge's count for screen readers: the games
// waiting for a decision and the invitations waiting for an answer.
func myTurnWords(ctx context.Context, turns, invites int) string {
	s := ""
	if turns > 0 {
		s += ", " + trn(ctx, "{{.Count}} game waiting for you", "{{.Count}} games waiting for you", turns)
	}
	if invites > 0 {
		s += ", " + trn(ctx, "{{.Count}} invitation", "{{.Count}} invitations", invites)
	}
	return s
}

// title is a page's title in the browser: the page's own (the handlers
// translate it), then the site's name.
func title(ctx context.Context, t string) string {
	if t == "" {
		return tr(ctx, "No Thanks!")
	}
	return t + " · " + tr(ctx, "No Thanks!")
}

func itoa(n int) string { return strconv.Itoa(n) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

type csrfKey struct{}

// WithCSRF puts a request's CSRF token in the context it is drawn with, so
// that every form (CSRFInput) carries it. What a stream draws once for many
// viewers has none: its forms get the token from the page's script when
// they are sent without htmx (static/app.js).
func WithCSRF(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return context.WithValue(ctx, csrfKey{}, token)
}

func csrfOf(ctx context.Context) string {
	t, _ := ctx.Value(csrfKey{}).(string)
	return t
}

// csrfHeader is the hx-headers value that sends the CSRF token with every
// htmx request.
func csrfHeader(token string) string {
	if token == "" {
		return "{}"
	}
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

// ErrorTitle is the heading of an error page for a status.
func ErrorTitle(ctx context.Context, status int) string {
	switch status {
	case 400, 422:
		return tr(ctx, "That did not work")
	case 401:
		return tr(ctx, "Please log in")
	case 403:
		return tr(ctx, "Not allowed")
	case 404:
		return tr(ctx, "Not found")
	case 409:
		return tr(ctx, "Things moved on")
	case 413:
		return tr(ctx, "Too much at once")
	case 429:
		return tr(ctx, "Slow down")
	case 503:
		return tr(ctx, "Briefly unavailable")
	}
	return tr(ctx, "Something went wrong")
}

// Ordinal writes a placing in the reader's language: 1st, 2nd, 3rd, 11th
// in English; 1.º in Spanish; 1º in Italian.
func Ordinal(ctx context.Context, n int) string {
	return OrdinalIn(i18n.From(ctx), n)
}

// OrdinalIn is Ordinal in a given language.
func OrdinalIn(l i18n.Lang, n int) string {
	switch l {
	case i18n.Spanish:
		return strconv.Itoa(n) + ".º"
	case i18n.Italian:
		return strconv.Itoa(n) + "º"
	}
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func joinNames(ctx context.Context, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = PlayerName(ctx, n)
	}
	return strings.Join(out, ", ")
}

// PlayerName is a seat's name to show: a deleted account's seat is
// "deleted player" in the reader's language, and a bot's name ("Club bot
// 2") is its level's name in that language with its number. (A username
// has no spaces, so it cannot be taken for a bot's.)
func PlayerName(ctx context.Context, name string) string {
	if name == deletedName {
		return i18n.T(ctx, "deleted player")
	}
	for _, b := range BotNames {
		if name == b {
			return i18n.T(ctx, b)
		}
		if n, ok := strings.CutPrefix(name, b+" "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return i18n.T(ctx, b) + " " + n
		}
	}
	return name
}

// BotNames are the names of the bot levels (engine/bot's Level.Name),
// which PlayerName translates.
var BotNames = []string{i18n.M("Beginner bot"), i18n.M("Club bot"), i18n.M("Strong bot"), i18n.M("Expert bot")}

// deletedName is db.DeletedName (views do not import db).
const deletedName = "deleted player"

// describedBy links an input to its error, or else to its hint.
func describedBy(f Form, name, hint string) string {
	switch {
	case f.Err(name) != "":
		return "e-" + name
	case hint != "":
		return "h-" + name
	}
	return ""
}

// BoardDigest names a rendered board, so that a page can tell its event
// stream which board it already shows.
func BoardDigest(board []byte) string {
	sum := sha256.Sum256(board)
	return hex.EncodeToString(sum[:8])
}

// streamURL is a game's event stream, telling it which board the page shows.
func streamURL(t TableView) string {
	sep := "?"
	if t.Query != "" {
		sep = "&"
	}
	return fmt.Sprintf("/games/%d/events%s%sh=%s", t.GameID, t.Query, sep, t.Digest)
}

// activeCardLabel names the active card and its pot for screen readers.
func activeCardLabel(ctx context.Context, card, pot int) string {
	return tr(ctx, "Active card {{.Card}}, {{.Tokens}} on it", "Card", card, "Tokens", TokensOn(ctx, pot))
}

// TokensOn says a number of tokens: "no tokens", "1 token".
func TokensOn(ctx context.Context, n int) string {
	return TokensIn(i18n.From(ctx), n)
}

// TokensIn is TokensOn in a given language.
func TokensIn(l i18n.Lang, n int) string {
	if n == 0 {
		return i18n.In(l, "no tokens")
	}
	return i18n.NIn(l, "{{.Count}} token", "{{.Count}} tokens", n)
}

// hasAccuracy reports whether the analysis gave any player an accuracy.
func hasAccuracy(st []Standing) bool {
	for _, s := range st {
		if s.Accuracy != "" {
			return true
		}
	}
	return false
}

// tr translates a message into the language ctx renders in.
func tr(ctx context.Context, id string, kv ...any) string { return i18n.T(ctx, id, kv...) }

// trn translates a message with plural forms: trn(ctx, "{{.Count}} token",
// "{{.Count}} tokens", n).
func trn(ctx context.Context, one, other string, n int, kv ...any) string {
	return i18n.N(ctx, one, other, n, kv...)
}

// trh translates a sentence whose placeholders are markup: the sentence is
// escaped, each value is a component (or a string, escaped) put in its
// place. It keeps whole sentences for translators where a name is bold or
// a word is a link: trh(ctx, "Welcome back, {{.Name}}.", "Name", strong(n)).
func trh(ctx context.Context, id string, kv ...any) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		marks := make([]any, 0, len(kv))
		values := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			mark := fmt.Sprintf("\x00%d\x00", i/2)
			marks = append(marks, kv[i], mark)
			values[mark] = kv[i+1]
		}
		text := html.EscapeString(i18n.T(ctx, id, marks...))
		for len(text) > 0 {
			j := strings.IndexByte(text, 0)
			if j < 0 {
				_, err := io.WriteString(w, text)
				return err
			}
			if _, err := io.WriteString(w, text[:j]); err != nil {
				return err
			}
			k := strings.IndexByte(text[j+1:], 0)
			if k < 0 {
				return fmt.Errorf("views: bad placeholder in %q", id)
			}
			mark := text[j : j+k+2]
			text = text[j+k+2:]
			switch v := values[mark].(type) {
			case templ.Component:
				if err := v.Render(ctx, w); err != nil {
					return err
				}
			default:
				if _, err := io.WriteString(w, html.EscapeString(fmt.Sprint(v))); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// trnh is trh with plural forms: the count's placeholder {{.Count}} is
// drawn by count (a component) where the sentence puts it.
func trnh(ctx context.Context, one, other string, n int, count templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		const mark = "\x00c\x00"
		text := html.EscapeString(i18n.N(ctx, one, other, n, "Count", mark))
		before, after, found := strings.Cut(text, mark)
		if _, err := io.WriteString(w, before); err != nil {
			return err
		}
		if found {
			if err := count.Render(ctx, w); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, after)
		return err
	})
}

// jsMessages are the page script's words in the page's language, as JSON
// for the body's data-msgs (the script has no catalogue of its own). "{n}"
// stands for a number the script fills in.
func jsMessages(ctx context.Context) string {
	d, h, m, sec, spaced := i18n.Units(i18n.From(ctx))
	b, _ := json.Marshal(map[string]any{
		"copied":      tr(ctx, "Copied"),
		"timeUp":      tr(ctx, "time is up"),
		"yourTurn":    tr(ctx, "(Your turn)"),
		"notifyTitle": tr(ctx, "Your turn · No Thanks!"),
		"notifyBody":  tr(ctx, "Game #{{.ID}} waits for you.", "ID", "{n}"),
		"chatTitle":   tr(ctx, "New message at game #{{.ID}} · No Thanks!", "ID", "{n}"),
		"tStart":      tr(ctx, "A tournament you joined starts now."),
		"tTable":      tr(ctx, "Your table is ready: game #{{.ID}}.", "ID", "{n}"),
		"tBye":        tr(ctx, "You have a bye this round: its points are yours."),
		"tCancelled":  tr(ctx, "A tournament you joined was cancelled: too few players."),
		"tGo":         tr(ctx, "Open it"),
		"tableReady":  tr(ctx, "(Your table is ready)"),
		"waitingOne":  trn(ctx, "{{.Count}} game waiting for you", "{{.Count}} games waiting for you", 1, "Count", "{n}"),
		"waitingMany": trn(ctx, "{{.Count}} game waiting for you", "{{.Count}} games waiting for you", 2, "Count", "{n}"),
		"inviteOne":   trn(ctx, "{{.Count}} invitation", "{{.Count}} invitations", 1, "Count", "{n}"),
		"inviteMany":  trn(ctx, "{{.Count}} invitation", "{{.Count}} invitations", 2, "Count", "{n}"),
		"noNotify":    tr(ctx, "This browser has no notifications."),
		"allowed":     tr(ctx, "Allowed: you will be notified."),
		"blocked":     tr(ctx, "Blocked in this browser's site settings."),
		"pushAsking":  tr(ctx, "Asking the browser…"),
		"pushOn":      tr(ctx, "This device is notified."),
		"pushFailed":  tr(ctx, "This browser could not subscribe to notifications. Try again, or use another browser."),
		"units":       []string{d, h, m, sec},
		"spaced":      spaced,
	})
	return string(b)
}
