package handlers

import (
	"net/http"
	"net/http/httptest"
	"net/mail"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/engine"
	"nothanks/internal/games"
)

// bind decodes body into v as the handlers do (echo's binder), as a form
// or as JSON.
func bind(body []byte, asJSON bool, v any) error {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
	if asJSON {
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	} else {
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	}
	return echo.New().NewContext(req, httptest.NewRecorder()).Bind(v)
}

// FuzzCreateGameInput: whatever the new-game form or the API sends, the
// decoder does not panic, and input that passes validation makes a game
// the engine can deal, with a timer from the offered choices.
func FuzzCreateGameInput(f *testing.F) {
	f.Add([]byte("seats=4&rounds=1&variant=standard&pace=live&turn_seconds=60"), false)
	f.Add([]byte("seats=7&rounds=3&variant=tiger&hidden_tiger=true&pace=correspondence&turn_seconds=86400&open_tokens=on"), false)
	f.Add([]byte(`{"seats": 3, "pace": "live", "turn_seconds": 60}`), true)
	f.Add([]byte(`{"seats": 9999999999999999999, "rounds": -1, "variant": "\u0000"}`), true)
	f.Add([]byte(`{"seats": 5, "ranked": true, "private": true}`), true)
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		in := games.DefaultCreateInput()
		if err := bind(body, asJSON, &in); err != nil {
			return
		}
		if fields := in.Validate(); len(fields) > 0 {
			return
		}
		if err := in.Options().Validate(); err != nil {
			t.Fatalf("valid input %+v has invalid options: %v", in, err)
		}
		if !slices.Contains(games.LiveTimers, in.TurnSeconds) && !slices.Contains(games.CorrespondenceTimers, in.TurnSeconds) {
			t.Fatalf("valid input %+v has a timer not on offer", in)
		}
		if in.Ranked && in.Private {
			t.Fatalf("valid input %+v is ranked and private", in)
		}
		if _, err := engine.New(in.Options(), 1); err != nil {
			t.Fatalf("valid input %+v: the engine cannot deal: %v", in, err)
		}
	})
}

// FuzzAccountForms: the log-in and registration decoders do not panic, and
// a registration that passes validation has a name, an address and a
// password within the limits.
func FuzzAccountForms(f *testing.F) {
	f.Add([]byte("username=Alice&email=alice%40example.com&password=correct+horse&confirm=correct+horse&login=Alice"), false)
	f.Add([]byte(`{"username": "Bob", "email": "b@b.co", "password": "12345678", "confirm": "12345678", "login": "b@b.co"}`), true)
	f.Add([]byte("username=%E2%80%AEevil&email=%22a%22%40b.co&password=%00%00%00%00%00%00%00%00&confirm=%00%00%00%00%00%00%00%00"), false)
	f.Add([]byte(`{"username": ["x"], "password": 5}`), true)
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		var login accounts.LoginInput
		_ = bind(body, asJSON, &login)
		var in accounts.RegisterInput
		if err := bind(body, asJSON, &in); err != nil {
			return
		}
		in.Normalize()
		if fields := in.Validate(); len(fields) > 0 {
			return
		}
		if n := utf8.RuneCountInString(in.Username); n < accounts.MinUsername || n > accounts.MaxUsername {
			t.Fatalf("valid username %q has %d characters", in.Username, n)
		}
		for _, r := range in.Username {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				t.Fatalf("valid username %q has %q", in.Username, r)
			}
		}
		if a, err := mail.ParseAddress(in.Email); err != nil || a.Address != in.Email || len(in.Email) > accounts.MaxEmailLength {
			t.Fatalf("valid email %q: %v", in.Email, err)
		}
		if utf8.RuneCountInString(in.Password) < accounts.MinPassword || len(in.Password) > accounts.MaxPassword || in.Password != in.Confirm {
			t.Fatalf("valid password of %d bytes", len(in.Password))
		}
	})
}

// FuzzAPIActionBody: the API's action body decodes without panic, and a
// version, when present, is what was sent.
func FuzzAPIActionBody(f *testing.F) {
	f.Add([]byte(`{"version": 3}`))
	f.Add([]byte(`{"version": null, "code": "abc", "level": "strong"}`))
	f.Add([]byte(`{"version": 1e400}`))
	f.Add([]byte(`{"version": -9223372036854775809}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var b apiBody
		if err := bind(body, true, &b); err != nil {
			return
		}
		if b.Version != nil && *b.Version < 0 {
			// Accepted here; the game refuses it as stale.
			return
		}
	})
}

// FuzzLocalPath: a log-in's "next" never leads off the site, also as a
// browser reads a Location (dropping tabs and line breaks, taking a
// backslash for a slash).
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/", "/games/1?x=y", "//evil.example", "/\\evil.example", "/\t/evil.example", "https://evil.example", "/%2F/evil", " /x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := localPath(next)
		seen := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(got)
		if !strings.HasPrefix(seen, "/") || strings.HasPrefix(seen, "//") {
			t.Fatalf("localPath(%q) = %q, which a browser reads as %q", next, got, seen)
		}
	})
}
