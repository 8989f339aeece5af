package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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

// Raw sends a JSON request and returns the answer's bytes.
func (a *API) Raw(method, path string, body any) (int, []byte) {
	a.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
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
	return res.StatusCode, raw
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
