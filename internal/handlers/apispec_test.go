package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"nothanks/internal/apispec"
	"nothanks/internal/apptest"
)

// TestTheDescriptionHasEveryRoute holds the API's description to the
// routes the server has: every route under /api/v1 is described, and
// every operation described is a route.
func TestTheDescriptionHasEveryRoute(t *testing.T) {
	s := apptest.New(t)
	e, ok := s.App.Handler.(*echo.Echo)
	if !ok {
		t.Fatalf("the app's handler is a %T, not Echo", s.App.Handler)
	}
	param := regexp.MustCompile(`:(\w+)`)
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	routes := map[string]bool{}
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v1/") || !slices.Contains(methods, r.Method) {
			continue
		}
		routes[r.Method+" "+param.ReplaceAllString(r.Path, "{$1}")] = true
	}
	described := map[string]bool{}
	for path, item := range apispec.Doc().Paths.Map() {
		for method := range item.Operations() {
			described[method+" "+path] = true
		}
	}
	for r := range routes {
		if !described[r] {
			t.Errorf("%s: a route the description does not have (internal/apispec/openapi.json)", r)
		}
	}
	for d := range described {
		if !routes[d] {
			t.Errorf("%s: described, but no such route", d)
		}
	}
	if len(routes) < 40 {
		t.Errorf("only %d routes under /api/v1: are they still registered there?", len(routes))
	}
}

func TestTheDescriptionIsServed(t *testing.T) {
	s := apptest.New(t)
	c := s.Client()
	t.Run("Public", func(t *testing.T) {
		res := c.Get("/api/v1/openapi.json")
		if res.Status != http.StatusOK {
			t.Fatalf("GET /api/v1/openapi.json without a token: %d", res.Status)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("content type %q", ct)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(res.Body), &doc); err != nil || doc["openapi"] != "3.1.0" {
			t.Errorf("not the 3.1 document: %v %v", err, doc["openapi"])
		}
		etag := res.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag")
		}
		req, _ := http.NewRequest(http.MethodGet, c.URL()+"/api/v1/openapi.json", nil)
		req.Header.Set("If-None-Match", etag)
		if got := c.Do(req); got.Status != http.StatusNotModified || got.Body != "" {
			t.Errorf("asked again with its ETag: %d, %d bytes", got.Status, len(got.Body))
		}
	})
	t.Run("ThroughTheAPIClient", func(t *testing.T) {
		// The API's own client, whose exchanges are checked against the
		// description, with a token and without.
		for _, a := range []*apptest.API{s.APIFor("Reader"), apptest.NewAPI(s, "")} {
			if status, _ := a.Raw(http.MethodGet, "/api/v1/openapi.json", nil); status != http.StatusOK {
				t.Errorf("token %q: %d", a.Token, status)
			}
		}
	})
	t.Run("Reference", func(t *testing.T) {
		res := c.Get("/docs/api-reference")
		if res.Status != http.StatusOK {
			t.Fatalf("GET /docs/api-reference: %d", res.Status)
		}
		doc := res.Doc()
		ops := 0
		for _, item := range apispec.Doc().Paths.Map() {
			ops += len(item.Operations())
		}
		if got := doc.Find(`[data-testid="api-operation"]`).Length(); got != ops {
			t.Errorf("%d operations on the page, %d in the description", got, ops)
		}
		var paths []string
		doc.Find(`[data-testid="api-operation"]`).Each(func(_ int, op *goquery.Selection) {
			paths = append(paths, op.Find(`[data-testid="api-method"]`).Text()+" "+op.Find(`[data-testid="api-path"]`).Text())
		})
		if !slices.Contains(paths, "POST /api/v1/games/{id}/take") {
			t.Errorf("no take among %v", paths)
		}
		table := doc.Find(`#schema-Table [data-testid="api-fields"]`).Text()
		for _, field := range []string{"your_seat", "view", "events_omitted", "integer or null"} {
			if !strings.Contains(table, field) {
				t.Errorf("the Table schema does not show %q", field)
			}
		}
		if got := res.TestID("doc-in-english"); got != "" {
			t.Errorf("an English reader is told the page is in English: %q", got)
		}
	})
}

// TestTheDescriptionHoldsForTheRarerAnswers makes the exchanges the other
// API tests do not, so that the description is held to them too (the API
// client checks every exchange against it).
func TestTheDescriptionHoldsForTheRarerAnswers(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Ada", "Bea")
	ada, bea, cid := ps[0], ps[1], s.APIFor("Cid")
	event := createEvent(t, s, ada, map[string]any{"kind": "arena", "name": "Described cup", "table_size": 3, "minutes": 30})
	_, g := ada.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "pace": "live", "turn_seconds": 60})
	game := fmt.Sprintf("/api/v1/games/%d", int64(g["id"].(float64)))
	rules := map[string]any{"kind": "arena", "name": "Changed cup", "table_size": 3, "minutes": 60, "game_rounds": 1, "variant": "standard",
		"pace": "live", "turn_seconds": 60, "max_players": 12, "starts_at": s.Clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	tournament := fmt.Sprintf("/api/v1/tournaments/%d", event)
	tests := []struct {
		name         string
		api          *apptest.API
		method, path string
		body         any
		status       int
	}{
		{"ListTournaments", ada, http.MethodGet, "/api/v1/tournaments", nil, http.StatusOK},
		{"ChangeATournament", ada, http.MethodPut, tournament, rules, http.StatusOK},
		{"ErrChangeAnotherOnesTournament", bea, http.MethodPut, tournament, rules, http.StatusForbidden},
		{"CancelATournament", ada, http.MethodDelete, tournament, nil, http.StatusNoContent},
		{"SpectatorsView", cid, http.MethodGet, game, nil, http.StatusOK},
		{"JoinATable", bea, http.MethodPost, game + "/join", nil, http.StatusOK},
		{"SeatABot", ada, http.MethodPost, game + "/bots", map[string]any{"level": "heuristic"}, http.StatusOK},
		{"StartTheGame", ada, http.MethodPost, game + "/start", nil, http.StatusOK},
		{"ErrStartItAgain", ada, http.MethodPost, game + "/start", nil, http.StatusConflict},
		{"NoRematchInPlay", bea, http.MethodGet, game + "/rematch", nil, http.StatusOK},
		{"FullLog", ada, http.MethodGet, game + "?log=full", nil, http.StatusOK},
		{"ErrMoveWithoutABody", cid, http.MethodPost, game + "/take", nil, http.StatusUnprocessableEntity},
		{"ErrNotAGameID", ada, http.MethodGet, "/api/v1/games/first", nil, http.StatusNotFound},
		{"ErrNoSuchMethod", ada, http.MethodPatch, game, nil, http.StatusMethodNotAllowed},
		{"Block", ada, http.MethodPut, "/api/v1/blocks/Cid", nil, http.StatusNoContent},
		{"Unblock", ada, http.MethodDelete, "/api/v1/blocks/Cid", nil, http.StatusNoContent},
		{"ErrBotQueueForAPerson", cid, http.MethodDelete, "/api/v1/bot/queue", nil, http.StatusForbidden},
		{"BotLadder", cid, http.MethodGet, "/api/v1/ladder?pool=bots", nil, http.StatusOK},
		{"PeoplesLadder", cid, http.MethodGet, "/api/v1/ladder?pool=people", nil, http.StatusOK},
		{"ErrUnknownPool", cid, http.MethodGet, "/api/v1/ladder?pool=robots", nil, http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if status, body := tt.api.Raw(tt.method, tt.path, tt.body); status != tt.status {
				t.Errorf("%s %s: %d %s, want %d", tt.method, tt.path, status, body, tt.status)
			}
		})
	}
}
