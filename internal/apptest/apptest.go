// Package apptest runs the whole application in a test: a fresh migrated
// database, the app as cmd/web builds it, an httptest server, and clients
// with cookie jars that fill in forms the way a non-browser client must
// (echoing the CSRF token). Only tests import it.
package apptest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"nothanks/internal/app"
	"nothanks/internal/clock"
	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/db/dbtest"
)

// BotDelay is the bots' pause in test servers: short, so games move on.
const BotDelay = 20 * time.Millisecond

// Server is a running application.
type Server struct {
	hs    *httptest.Server
	URL   string
	App   *app.App
	Store *db.Store
	DBURL string
	Clock *clock.Offset
	t     testing.TB
}

// Option changes a test server.
type Option func(*options)

type options struct {
	cfg      config.Config
	noWorker bool
}

// WithConfig changes the server's configuration.
func WithConfig(f func(*config.Config)) Option { return func(o *options) { f(&o.cfg) } }

// WithoutWorkers runs the server without its background workers, so a test
// makes due moves (Games.RunDue) and ranked tables (Ranked.RunMatcher)
// itself, step by step.
func WithoutWorkers() Option { return func(o *options) { o.noWorker = true } }

// New starts the application on a fresh database.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	store, dbURL := dbtest.NewWithURL(t)
	return NewOn(t, store, dbURL, opts...)
}

// NewOn starts another instance of the application on an existing database.
func NewOn(t testing.TB, store *db.Store, dbURL string, opts ...Option) *Server {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		if k == "DATABASE_URL" {
			return dbURL
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	o := options{cfg: cfg}
	for _, opt := range opts {
		opt(&o)
	}
	cfg = o.cfg
	clk := &clock.Offset{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, store, clk, log)
	if err != nil {
		t.Fatal(err)
	}
	a.Games.BotDelay = BotDelay
	// Tests mine puzzles with a lighter search (a fifth of the playouts):
	// each finished game would otherwise cost most of a second of the
	// test machine's CPU. The defaults are measured in docs/puzzles.md.
	a.Puzzles.Config.Screen, a.Puzzles.Config.Playouts = 100, 400
	// Nor do the workers mine: a test that needs puzzles mines them
	// itself (App.Puzzles.RunOnce).
	a.NoPuzzleMining = true
	a.Workers = !o.noWorker
	hs := httptest.NewUnstartedServer(a.Handler)
	hs.Config.RegisterOnShutdown(a.Shutdown)
	hs.Start()
	go a.Run(ctx)
	t.Cleanup(func() {
		cancel()
		a.Shutdown()
		hs.Close()
	})
	return &Server{hs: hs, URL: hs.URL, App: a, Store: store, DBURL: dbURL, Clock: clk, t: t}
}

// Down takes the server off the network, as a server that went away: its
// listener closes and every connection is cut; the application and its
// database stay, for Up.
func (s *Server) Down() {
	s.t.Helper()
	s.hs.CloseClientConnections()
	if err := s.hs.Listener.Close(); err != nil {
		s.t.Fatal(err)
	}
}

// Up brings the server back on the same address after Down.
func (s *Server) Up() {
	s.t.Helper()
	l, err := net.Listen("tcp", s.hs.Listener.Addr().String())
	if err != nil {
		s.t.Fatal(err)
	}
	s.hs.Listener = l
	go func() { _ = s.hs.Config.Serve(l) }()
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Client is a user agent with its own cookie jar.
type Client struct {
	s    *Server
	t    testing.TB
	HTTP *http.Client
}

// Client returns a new client with an empty cookie jar. It does not follow
// redirects, so tests see them.
func (s *Server) Client() *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{s: s, t: s.t, HTTP: &http.Client{
		Jar:           jar,
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Response is a read response.
type Response struct {
	Status int
	Header http.Header
	Body   string
	t      testing.TB
}

// Doc parses the body as HTML.
func (r *Response) Doc() *goquery.Document {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
	if err != nil {
		r.t.Fatal(err)
	}
	return doc
}

// TestID returns the trimmed text of the element with data-testid=id.
func (r *Response) TestID(id string) string {
	return strings.TrimSpace(r.Doc().Find(`[data-testid="` + id + `"]`).First().Text())
}

// Has reports whether an element with data-testid=id is present.
func (r *Response) Has(id string) bool {
	return r.Doc().Find(`[data-testid="`+id+`"]`).Length() > 0
}

// Do sends a request and reads the whole response.
func (c *Client) Do(req *http.Request) *Response {
	c.t.Helper()
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: string(body), t: c.t}
}

// URL is the address of the server the client talks to.
func (c *Client) URL() string { return c.s.URL }

// Get fetches a path.
func (c *Client) Get(path string) *Response {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.s.URL+path, nil)
	return c.Do(req)
}

// Follow fetches path and follows redirects, returning the last response.
func (c *Client) Follow(res *Response) *Response {
	c.t.Helper()
	for range 10 {
		loc := res.Header.Get("Location")
		if loc == "" {
			loc = res.Header.Get("HX-Redirect")
		}
		if loc == "" {
			return res
		}
		res = c.Get(loc)
	}
	c.t.Fatal("too many redirects")
	return nil
}

// CSRFToken returns the token from the CSRF cookie, fetching the home page
// first if the jar has none yet.
func (c *Client) CSRFToken() string {
	c.t.Helper()
	u, _ := url.Parse(c.s.URL)
	for range 2 {
		for _, ck := range c.HTTP.Jar.Cookies(u) {
			if ck.Name == "_csrf" {
				return ck.Value
			}
		}
		c.Get("/")
	}
	c.t.Fatal("no CSRF cookie")
	return ""
}

// PostForm posts a form with the CSRF token, as a plain (non-browser) client.
func (c *Client) PostForm(path string, values url.Values) *Response {
	c.t.Helper()
	if values == nil {
		values = url.Values{}
	}
	values.Set("_csrf", c.CSRFToken())
	req, _ := http.NewRequest(http.MethodPost, c.s.URL+path, strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// Register creates an account and leaves the client logged in as it.
func (c *Client) Register(name string) *Client {
	c.t.Helper()
	res := c.PostForm("/register", url.Values{
		"username": {name}, "email": {strings.ToLower(name) + "@example.com"},
		"password": {Password}, "confirm": {Password},
	})
	if res.Status != http.StatusSeeOther {
		c.t.Fatalf("register %s: status %d: %s", name, res.Status, res.Body)
	}
	return c
}

// Password is the password Register gives every account.
const Password = "correct horse battery"

// Login logs the client in.
func (c *Client) Login(login, password string) *Response {
	c.t.Helper()
	return c.PostForm("/login", url.Values{"login": {login}, "password": {password}})
}
