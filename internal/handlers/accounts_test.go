package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"nothanks/internal/apptest"
)

func TestRegisterLogoutLogin(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	c.Register("Alice")
	home := c.Get("/")
	if got, want := home.TestID("nav-user"), "Alice"; got != want {
		t.Fatalf("nav user after register = %q, want %q", got, want)
	}
	if !strings.Contains(home.TestID("flash"), "Welcome, Alice") {
		t.Errorf("no welcome flash: %q", home.TestID("flash"))
	}
	if got := c.Get("/").TestID("flash"); got != "" {
		t.Errorf("the flash shows twice: %q", got)
	}
	res := c.PostForm("/logout", nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("logout status %d", res.Status)
	}
	if c.Get("/").Has("nav-user") {
		t.Fatal("still logged in after logout")
	}
	res = c.Login("alice@EXAMPLE.com", apptest.Password)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("login by email: status %d", res.Status)
	}
	if got := c.Get("/").TestID("nav-user"); got != "Alice" {
		t.Fatalf("nav user after login = %q", got)
	}
}

func TestRegisterValidation(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Taken")
	tests := []struct {
		name   string
		form   url.Values
		fields []string
	}{
		{"ErrEverythingEmpty", url.Values{}, []string{"username", "email", "password"}},
		{"ErrShortUsername", url.Values{"username": {"ab"}, "email": {"a@b.co"}, "password": {"12345678"}, "confirm": {"12345678"}}, []string{"username"}},
		{"ErrLongUsername", url.Values{"username": {strings.Repeat("a", 21)}, "email": {"a@b.co"}, "password": {"12345678"}, "confirm": {"12345678"}}, []string{"username"}},
		{"ErrUsernameSymbols", url.Values{"username": {"<script>"}, "email": {"a@b.co"}, "password": {"12345678"}, "confirm": {"12345678"}}, []string{"username"}},
		{"ErrUsernameTakenIgnoringCase", url.Values{"username": {"tAKEN"}, "email": {"new@b.co"}, "password": {"12345678"}, "confirm": {"12345678"}}, []string{"username"}},
		{"ErrEmailTaken", url.Values{"username": {"Other"}, "email": {"TAKEN@example.com"}, "password": {"12345678"}, "confirm": {"12345678"}}, []string{"email"}},
		{"ErrBadEmail", url.Values{"username": {"Bob"}, "email": {"bob at home"}, "password": {"12345678"}, "confirm": {"12345678"}}, []string{"email"}},
		{"ErrShortPassword", url.Values{"username": {"Bob"}, "email": {"b@b.co"}, "password": {"1234567"}, "confirm": {"1234567"}}, []string{"password"}},
		{"ErrConfirmDiffers", url.Values{"username": {"Bob"}, "email": {"b@b.co"}, "password": {"12345678"}, "confirm": {"12345679"}}, []string{"confirm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := s.Client().PostForm("/register", tt.form)
			if res.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.Status)
			}
			for _, f := range tt.fields {
				if res.TestID("error-"+f) == "" {
					t.Errorf("no error shown for %s", f)
				}
			}
			if got, want := res.Doc().Find(`[data-testid="input-username"]`).AttrOr("value", ""), tt.form.Get("username"); got != want {
				t.Errorf("username not kept: %q, want %q", got, want)
			}
			if strings.Contains(res.Body, "12345678") {
				t.Error("the password is echoed back in the page")
			}
		})
	}
}

func TestLongPasswordIsNotTruncated(t *testing.T) {
	s := apptest.New(t)
	pw := strings.Repeat("x", 80) + "END"
	res := s.Client().PostForm("/register", url.Values{"username": {"longpw"}, "email": {"l@example.com"}, "password": {pw}, "confirm": {pw}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("register with an 83-character password: %d", res.Status)
	}
	if got := s.Client().Login("longpw", strings.Repeat("x", 80)+"EN!").Status; got != http.StatusUnauthorized {
		t.Errorf("a password differing at character 83 logged in: %d", got)
	}
	if got := s.Client().Login("longpw", pw).Status; got != http.StatusSeeOther {
		t.Errorf("the right long password did not log in: %d", got)
	}
}

func TestLoginThrottling(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Victim")
	c := s.Client()
	var unknownBodies, knownBodies []string
	for i := range 5 {
		res := c.Login("Victim", "wrong password")
		if res.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d", i+1, res.Status)
		}
		knownBodies = append(knownBodies, res.TestID("form-error"))
		res = c.Login("nobody-here", "wrong password")
		unknownBodies = append(unknownBodies, res.TestID("form-error"))
	}
	if knownBodies[0] != unknownBodies[0] {
		t.Errorf("a wrong password says %q, an unknown name %q", knownBodies[0], unknownBodies[0])
	}
	known := c.Login("Victim", apptest.Password)
	unknown := c.Login("nobody-here", "whatever")
	if known.Status != http.StatusTooManyRequests || unknown.Status != http.StatusTooManyRequests {
		t.Fatalf("after 5 failures: %d and %d, want 429 for both", known.Status, unknown.Status)
	}
	if got, want := known.TestID("form-error"), "Too many failed log-ins. Try again in 15 minutes."; got != want {
		t.Errorf("throttled message = %q, want %q", got, want)
	}
	if known.TestID("form-error") != unknown.TestID("form-error") {
		t.Errorf("throttling tells accounts apart: %q vs %q", known.TestID("form-error"), unknown.TestID("form-error"))
	}
	// Another client (same IP here) is also held back for this account.
	if got := s.Client().Login("victim", apptest.Password).Status; got != http.StatusTooManyRequests {
		t.Errorf("the account lock does not hold for another client: %d", got)
	}
	s.Clock.Advance(15*60*1e9 + 1)
	if got := s.Client().Login("Victim", apptest.Password).Status; got != http.StatusSeeOther {
		t.Errorf("after the window the right password is refused: %d", got)
	}
}

func TestLoginThrottledPerIP(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	for i := range 30 {
		if res := c.Login("user"+string(rune('a'+i%26))+string(rune('a'+i/26)), "nope"); res.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, res.Status)
		}
	}
	s.Client().Register("Fresh")
	if got := c.Login("Fresh", apptest.Password).Status; got != http.StatusTooManyRequests {
		t.Errorf("after 30 failures from one IP: %d, want 429", got)
	}
}

func TestSessionCookie(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	c.Get("/")
	res := c.PostForm("/register", url.Values{"username": {"Cookie"}, "email": {"c@example.com"}, "password": {apptest.Password}, "confirm": {apptest.Password}})
	var cookie *http.Cookie
	for _, ck := range (&http.Response{Header: res.Header}).Cookies() {
		if ck.Name == "nt_session" {
			cookie = ck
		}
	}
	if cookie == nil {
		t.Fatal("no session cookie set at registration")
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != "/" || cookie.MaxAge <= 0 {
		t.Errorf("cookie attributes: HttpOnly %v SameSite %v Path %q MaxAge %d", cookie.HttpOnly, cookie.SameSite, cookie.Path, cookie.MaxAge)
	}
	if strings.Contains(cookie.Value, "Cookie") || len(cookie.Value) < 40 {
		t.Errorf("cookie value %q does not look like a signed random id", cookie.Value)
	}
}

func TestSecureCookiesUseHostPrefix(t *testing.T) {
	s := apptest.New(t, apptest.WithConfig(func(c *configAlias) { c.BaseURL, _ = url.Parse("https://nothanks.example") }))
	res := s.Client().Get("/")
	if !strings.Contains(res.Header.Get("Set-Cookie"), "__Host-csrf") {
		t.Errorf("CSRF cookie over https: %q", res.Header.Get("Set-Cookie"))
	}
	if !strings.Contains(res.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Error("no HSTS over https")
	}
}

func TestLogoutRevokesCopiedCookie(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	c.Register("Copycat")
	u, _ := url.Parse(s.URL)
	stolen := s.Client()
	stolen.HTTP.Jar.SetCookies(u, c.HTTP.Jar.Cookies(u))
	if got := stolen.Get("/").TestID("nav-user"); got != "Copycat" {
		t.Fatalf("copied cookie before logout: %q", got)
	}
	c.PostForm("/logout", nil)
	if stolen.Get("/").Has("nav-user") {
		t.Error("a copied cookie still works after logout")
	}
}

func TestNewSessionIDAtLogin(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Fixed")
	c := s.Client()
	c.Get("/")
	c.PostForm("/login", url.Values{"login": {"nobody"}, "password": {"x"}}) // a session may exist before log-in
	before := sessionCookie(t, c, s.URL)
	c.Login("Fixed", apptest.Password)
	after := sessionCookie(t, c, s.URL)
	if after == "" || after == before {
		t.Errorf("session id not renewed at log-in: before %q after %q", before, after)
	}
}

func sessionCookie(t *testing.T, c *apptest.Client, base string) string {
	u, _ := url.Parse(base)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == "nt_session" {
			return ck.Value
		}
	}
	return ""
}

func TestChangePasswordEndsOtherSessions(t *testing.T) {
	s := apptest.New(t)
	a := s.Client().Register("Mover")
	b := s.Client()
	if b.Login("Mover", apptest.Password).Status != http.StatusSeeOther {
		t.Fatal("second login failed")
	}
	res := a.PostForm("/settings/password", url.Values{"current": {"wrong"}, "new": {"short"}, "confirm": {"other"}})
	if res.Status != http.StatusUnprocessableEntity || res.TestID("error-current") == "" || res.TestID("error-new") == "" || res.TestID("error-confirm") == "" {
		t.Fatalf("bad change: status %d, errors %q %q %q", res.Status, res.TestID("error-current"), res.TestID("error-new"), res.TestID("error-confirm"))
	}
	res = a.PostForm("/settings/password", url.Values{"current": {apptest.Password}, "new": {"a new password"}, "confirm": {"a new password"}, "end_other_sessions": {"true"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("change: %d %s", res.Status, res.Body)
	}
	if got := a.Follow(res).TestID("flash"); !strings.Contains(got, "1 other session was logged out") {
		t.Errorf("flash = %q", got)
	}
	if b.Get("/").Has("nav-user") {
		t.Error("the other session survived the password change")
	}
	if !a.Get("/").Has("nav-user") {
		t.Error("the session that changed the password was logged out")
	}
	if s.Client().Login("Mover", "a new password").Status != http.StatusSeeOther {
		t.Error("the new password does not log in")
	}
}

func TestChangeEmail(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Other")
	a := s.Client().Register("Mailer")
	res := a.PostForm("/settings/email", url.Values{"email": {"other@example.com"}, "password": {apptest.Password}})
	if res.Status != http.StatusUnprocessableEntity || res.TestID("error-email") == "" {
		t.Fatalf("taken email: %d %q", res.Status, res.TestID("error-email"))
	}
	res = a.PostForm("/settings/email", url.Values{"email": {"new@example.com"}, "password": {"wrong"}})
	if res.Status != http.StatusUnprocessableEntity || res.TestID("error-password") == "" {
		t.Fatalf("wrong password: %d", res.Status)
	}
	res = a.PostForm("/settings/email", url.Values{"email": {"new@example.com"}, "password": {apptest.Password}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("change: %d", res.Status)
	}
	if got := a.Get("/settings").TestID("current-email"); got != "new@example.com" {
		t.Errorf("email now %q", got)
	}
}

func TestSettingsNeedLogin(t *testing.T) {
	s := apptest.New(t)
	res := s.Client().Get("/settings")
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=%2Fsettings" {
		t.Errorf("visitor at /settings: %d to %q", res.Status, res.Header.Get("Location"))
	}
	c := s.Client()
	c.Register("Back")
	c.PostForm("/logout", nil)
	res = c.PostForm("/login", url.Values{"login": {"Back"}, "password": {apptest.Password}, "next": {"/settings"}})
	if got := res.Header.Get("Location"); got != "/settings" {
		t.Errorf("after log-in, sent to %q, want /settings", got)
	}
	res = c.PostForm("/login", url.Values{"login": {"Back"}, "password": {apptest.Password}, "next": {"//evil.example/"}})
	if got := res.Header.Get("Location"); got != "/" {
		t.Errorf("next=//evil.example sent the user to %q", got)
	}
}

func TestProfile(t *testing.T) {
	s := apptest.New(t)
	s.Client().Register("Shown")
	res := s.Client().Get("/u/shown")
	if res.Status != http.StatusOK || res.TestID("profile-name") != "Shown" {
		t.Errorf("profile: %d %q", res.Status, res.TestID("profile-name"))
	}
	if res := s.Client().Get("/u/nobody"); res.Status != http.StatusNotFound || !res.Has("error-page") {
		t.Errorf("unknown profile: %d", res.Status)
	}
}
