package handlers_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nothanks/internal/apptest"
	"nothanks/internal/config"
)

type configAlias = config.Config

func TestCSRF(t *testing.T) {
	s := apptest.New(t)
	form := func() url.Values {
		return url.Values{"username": {"Csrf"}, "email": {"csrf@example.com"}, "password": {apptest.Password}, "confirm": {apptest.Password}}
	}
	post := func(c *apptest.Client, values url.Values, header map[string]string) *apptest.Response {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/register", strings.NewReader(values.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return c.Do(req)
	}
	t.Run("ErrPlainClientWithoutToken", func(t *testing.T) {
		if got := post(s.Client(), form(), nil).Status; got != http.StatusBadRequest && got != http.StatusForbidden {
			t.Errorf("status %d, want refusal", got)
		}
	})
	t.Run("ErrPlainClientWrongToken", func(t *testing.T) {
		c := s.Client()
		c.CSRFToken()
		v := form()
		v.Set("_csrf", "forged")
		if got := post(c, v, nil).Status; got != http.StatusForbidden {
			t.Errorf("status %d, want 403", got)
		}
	})
	t.Run("ErrBrowserCrossSite", func(t *testing.T) {
		res := post(s.Client(), form(), map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
		if res.Status != http.StatusForbidden || !res.Has("error-page") {
			t.Errorf("status %d, want 403 with an error page", res.Status)
		}
	})
	t.Run("BrowserSameOriginNeedsNoToken", func(t *testing.T) {
		if got := post(s.Client(), form(), map[string]string{"Sec-Fetch-Site": "same-origin"}).Status; got != http.StatusSeeOther {
			t.Errorf("status %d, want 303", got)
		}
	})
	t.Run("PlainClientWithToken", func(t *testing.T) {
		c := s.Client()
		v := form()
		v.Set("username", "Csrf2")
		v.Set("email", "csrf2@example.com")
		v.Set("_csrf", c.CSRFToken())
		if got := post(c, v, nil).Status; got != http.StatusSeeOther {
			t.Errorf("status %d, want 303", got)
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	s := apptest.New(t)
	res := s.Client().Get("/")
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP allows inline code: %q", csp)
	}
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
	if res.Header.Get("Strict-Transport-Security") != "" {
		t.Error("HSTS sent over plain http")
	}
	if strings.Contains(res.Body, "<script>") || strings.Contains(res.Body, " onclick=") {
		t.Error("the page has inline script")
	}
}

func TestHealthz(t *testing.T) {
	s := apptest.New(t)
	if res := s.Client().Get("/healthz"); res.Status != http.StatusOK {
		t.Errorf("healthz with the database up: %d", res.Status)
	}
	s.Store.Close()
	if res := s.Client().Get("/healthz"); res.Status != http.StatusServiceUnavailable {
		t.Errorf("healthz with the database closed: %d", res.Status)
	}
}

func TestStaticAssetsAreHashedAndCached(t *testing.T) {
	s := apptest.New(t)
	doc := s.Client().Get("/").Doc()
	src, ok := doc.Find(`script[src*="htmx.min"]`).Attr("src")
	if !ok {
		t.Fatal("no htmx script on the page")
	}
	res := s.Client().Get(src)
	if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("%s: %d, Cache-Control %q", src, res.Status, res.Header.Get("Cache-Control"))
	}
	if res := s.Client().Get("/static/htmx.min.js"); res.Status != http.StatusNotFound {
		t.Errorf("unhashed asset name: %d, want 404", res.Status)
	}
}

func TestBodyLimit(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	res := c.PostForm("/login", url.Values{"login": {strings.Repeat("a", 300<<10)}})
	if res.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 300 KiB form: %d, want 413", res.Status)
	}
}

func TestNotFoundPage(t *testing.T) {
	s := apptest.New(t)
	res := s.Client().Get("/no/such/page")
	if res.Status != http.StatusNotFound || !res.Has("error-page") {
		t.Errorf("unknown path: %d, error page %v", res.Status, res.Has("error-page"))
	}
}

func TestDocsAreServed(t *testing.T) {
	s := apptest.New(t)
	res := s.Client().Get("/docs/api")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "Authorization: Bearer") {
		t.Errorf("/docs/api: %d", res.Status)
	}
	if res := s.Client().Get("/docs/..%2Fgo.mod"); res.Status != http.StatusNotFound {
		t.Errorf("a path outside docs: %d", res.Status)
	}
}

// /docs lists the documents, and every link between them leads to a page
// of the site (the repository's "bots.md" becomes "/docs/bots"), to the
// heading it names; none points at a Markdown file.
func TestDocsLinkToEachOther(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	c := s.Client()
	index := c.Get("/docs")
	if index.Status != http.StatusOK || !index.Has("doc-index") {
		t.Fatalf("/docs: %d", index.Status)
	}
	href := regexp.MustCompile(`href="([^"]*)"`)
	var pages []string
	for _, m := range href.FindAllStringSubmatch(index.Body, -1) {
		if strings.HasPrefix(m[1], "/docs/") && !slices.Contains(pages, m[1]) {
			pages = append(pages, m[1])
		}
	}
	// Every .md file of docs/ but the operators' notes, and the reference.
	if want := []string{"/docs/api", "/docs/bots", "/docs/push", "/docs/rules", "/docs/api-reference"}; !func() bool {
		for _, w := range want {
			if !slices.Contains(pages, w) {
				return false
			}
		}
		return len(pages) == 19
	}() {
		t.Errorf("/docs lists %v", pages)
	}
	bodies := map[string]string{}
	for _, p := range pages {
		res := c.Get(p)
		if res.Status != http.StatusOK {
			t.Errorf("%s: %d", p, res.Status)
		}
		bodies[p] = res.Body
	}
	checked := 0
	for p, body := range bodies {
		for _, m := range href.FindAllStringSubmatch(body, -1) {
			link := html.UnescapeString(m[1])
			if strings.Contains(link, ".md") {
				t.Errorf("%s links to %s", p, link)
			}
			to, frag, _ := strings.Cut(link, "#")
			target, ok := bodies[to]
			if !ok {
				continue
			}
			checked++
			if frag != "" && !strings.Contains(target, `id="`+frag+`"`) {
				t.Errorf("%s links to %s, which has no heading %q", p, link, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d links between the documents", checked)
	}
}

func TestForwardedForIsIgnoredWithoutTrustedProxies(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	// A client cannot escape the per-IP limit by claiming other addresses.
	for i := range 30 {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/login", strings.NewReader(url.Values{"login": {"ghost" + strconv.Itoa(i)}, "password": {"nope"}, "_csrf": {c.CSRFToken()}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", "203.0.113."+strconv.Itoa(i))
		c.Do(req)
	}
	if got := c.Login("anyone", "whatever").Status; got != http.StatusTooManyRequests {
		t.Errorf("after 30 failures with forged X-Forwarded-For: %d, want 429", got)
	}
}
