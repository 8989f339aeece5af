package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"nothanks/internal/apispec"
)

// apiHTTP keeps connections alive across API calls (benchmarks make many).
var apiHTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// API is a JSON API client holding a personal token.
type API struct {
	s     *Server
	t     testing.TB
	Token string
	Name  string
	ID    int64
	// Game is a game id a test may keep with the client.
	Game int64
}

// APIFor registers a user (through the HTML form) and makes them a token.
func (s *Server) APIFor(name string) *API {
	s.t.Helper()
	s.Client().Register(name)
	u, err := s.Store.UserByName(context.Background(), name)
	if err != nil {
		s.t.Fatal(err)
	}
	token, err := s.App.Accounts.CreateAPIToken(context.Background(), u.ID, "tests")
	if err != nil {
		s.t.Fatal(err)
	}
	return &API{s: s, t: s.t, Token: token, Name: name, ID: u.ID}
}

// Do sends a JSON request and decodes the JSON answer into a map.
func (a *API) Do(method, path string, body any) (int, map[string]any) {
	a.t.Helper()
	status, raw := a.Raw(method, path, body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			a.t.Fatalf("%s %s: %d, not JSON: %s", method, path, status, raw)
		}
	}
	return status, out
}

// Raw sends a JSON request and returns the answer's bytes. Every
// exchange under /api/v1 is checked against the API's description
// (internal/apispec): a request or an answer that is not as described
// fails the test.
func (a *API) Raw(method, path string, body any) (int, []byte) {
	a.t.Helper()
	var r io.Reader
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.s.URL+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	res, err := apiHTTP.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a.checkSpec(req, b, res, raw)
	return res.StatusCode, raw
}

// The API's description, read once for all the tests of a package.
var (
	specOnce sync.Once
	spec     *apispec.Validator
	specErr  error
	// specErrors counts each test's mismatches.
	specErrors sync.Map
)

// maxSpecErrors is how many mismatches a test shows.
const maxSpecErrors = 3

// checkSpec fails the test when an exchange under /api/v1 is not as the
// API's description says. Benchmarks are not checked: they measure the
// server.
func (a *API) checkSpec(req *http.Request, reqBody []byte, res *http.Response, body []byte) {
	a.t.Helper()
	if _, bench := a.t.(*testing.B); bench || !strings.HasPrefix(req.URL.Path, "/api/v1/") {
		return
	}
	specOnce.Do(func() { spec, specErr = apispec.NewValidator() })
	if specErr != nil {
		a.t.Fatal(specErr)
	}
	if err := spec.Validate(req, reqBody, res.StatusCode, res.Header, body); err != nil {
		// A few are enough to see what is wrong; a game played out
		// would say the same a hundred times.
		n, _ := specErrors.LoadOrStore(a.t, new(atomic.Int32))
		switch k := n.(*atomic.Int32).Add(1); {
		case k == maxSpecErrors+1:
			a.t.Errorf("more exchanges not as internal/apispec/openapi.json says: not shown")
			return
		case k > maxSpecErrors:
			return
		}
		a.t.Errorf("%s %s: %d, not as internal/apispec/openapi.json says: %s\nbody: %s", req.Method, req.URL.RequestURI(), res.StatusCode, clip(err.Error(), 1500), clip(string(body), 1500))
	}
}

// clip shortens s to at most n bytes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// NewAPI is a client for an existing token.
func NewAPI(s *Server, token string) *API { return &API{s: s, t: s.t, Token: token} }

// PlayOut plays games to their end through the API: each player takes
// when the pot holds two tokens or they must, else says No thanks!.
func PlayOut(t testing.TB, players []*API, gameIDs ...int64) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	left := append([]int64(nil), gameIDs...)
	for len(left) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("games %v did not end", left)
		}
		var still []int64
		for _, g := range left {
			done := false
			for _, p := range players {
				_, v := p.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", g), nil)
				if v["status"] == "finished" {
					done = true
					break
				}
				if v["your_turn"] != true {
					continue
				}
				vv := v["view"].(map[string]any)
				action := "pass"
				if vv["pot"].(float64) >= 2 || !strings.Contains(fmt.Sprint(vv["legal"]), "pass") {
					action = "take"
				}
				p.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/%s", g, action), map[string]any{"version": v["version"]})
			}
			if !done {
				still = append(still, g)
			}
		}
		left = still
	}
}
