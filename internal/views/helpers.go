package views

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"nothanks/static"
	"strconv"
	"strings"
)

// pageTitle is the page's title, "(Your turn) " first while a game waits
// for the player (the page script keeps it so).
func pageTitle(p Page) string {
	if p.User != nil && p.User.MyTurn > 0 {
		return "(Your turn) " + title(p.Title)
	}
	return title(p.Title)
}

// favicon is the site's icon, with a red mark while a game waits for the
// player.
func favicon(p Page) string {
	if p.User != nil && p.User.MyTurn > 0 {
		return static.Path("favicon-turn.svg")
	}
	return static.Path("favicon.svg")
}

// myTurnWords says the badge's count for screen readers.
func myTurnWords(n int) string {
	if n == 0 {
		return ""
	}
	return ", " + Count(n, "game") + " waiting for you"
}

func title(t string) string {
	if t == "" {
		return "No Thanks!"
	}
	return t + " · No Thanks!"
}

func itoa(n int) string { return strconv.Itoa(n) }

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
func ErrorTitle(status int) string {
	switch status {
	case 400, 422:
		return "That did not work"
	case 401:
		return "Please log in"
	case 403:
		return "Not allowed"
	case 404:
		return "Not found"
	case 409:
		return "Things moved on"
	case 413:
		return "Too much at once"
	case 429:
		return "Slow down"
	case 503:
		return "Briefly unavailable"
	}
	return "Something went wrong"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count writes a count with its noun: "1 token", "3 tokens".
func Count(n int, word string) string {
	return strconv.Itoa(n) + " " + plural(n, word, word+"s")
}

// Ordinal writes a placing as 1st, 2nd, 3rd, 4th, 11th, 21st...
func Ordinal(n int) string {
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

func joinNames(names []string) string { return strings.Join(names, ", ") }

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
func activeCardLabel(card, pot int) string {
	return fmt.Sprintf("Active card %d, %s on it", card, TokensOn(pot))
}

// TokensOn says a number of tokens on a card: "no tokens", "1 token".
func TokensOn(n int) string {
	if n == 0 {
		return "no tokens"
	}
	return Count(n, "token")
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

// startNote says who may start a rematch without the others.
func startNote(r RematchView) string {
	if r.CanStartNow {
		return ", or when you start it with those who have"
	}
	return ""
}
