package apispec_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"nothanks/internal/apispec"
)

func TestTheDocumentLoads(t *testing.T) {
	d := apispec.Doc()
	if got, want := d.OpenAPI, "3.1.0"; got != want {
		t.Errorf("openapi %q, want %q", got, want)
	}
	if !d.IsOpenAPI31OrLater() {
		t.Error("not read as a 3.1 document")
	}
	if !json.Valid(apispec.JSON()) {
		t.Error("the served bytes are not JSON")
	}
	for path, item := range d.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" {
				t.Errorf("%s %s: no operationId or summary", method, path)
			}
		}
	}
}

// table is a Table as the server answers it, for a player at seat 0.
func table() map[string]any {
	return map[string]any{
		"id": 7, "url": "http://localhost/games/7", "status": "playing", "version": 3,
		"options": map[string]any{"players": 3, "rounds": 1, "variant": "standard", "open_tokens": false, "hidden_tiger": false},
		"public":  true, "ranked": false, "pace": "live", "turn_seconds": 60,
		"players": []any{
			map[string]any{"seat": 0, "name": "Ada", "bot_account": false},
			map[string]any{"seat": 1, "name": "heuristic bot", "bot": "heuristic", "bot_account": false},
			map[string]any{"seat": 2, "name": "Bea", "bot_account": true},
		},
		"your_seat": 0, "your_turn": true, "deadline": "2026-01-02T15:04:05.123456Z",
		"view": map[string]any{
			"viewer": 0, "version": 3, "round": 1, "finished": false, "starting_tokens": 11,
			"options":     map[string]any{"players": 3, "rounds": 1, "variant": "standard", "open_tokens": false, "hidden_tiger": false},
			"active_card": 27, "pot": 2, "deck_left": 20, "turn": 0,
			"seats": []any{
				map[string]any{"seat": 0, "cards": []any{}, "runs": nil, "card_points": 0, "tokens": 11},
				map[string]any{"seat": 1, "cards": []any{5, 6}, "runs": []any{[]any{5, 6}}, "card_points": 5, "tokens": nil},
				map[string]any{"seat": 2, "cards": []any{}, "runs": nil, "card_points": 0, "tokens": nil, "timeouts": 1},
			},
			"legal": []any{"take", "pass"}, "results": nil, "totals": []any{0, 0, 0},
			"events": []any{map[string]any{"seq": 0, "round": 1, "kind": "round_start", "seat": 0, "card": 27, "tokens": 0}},
		},
	}
}

func TestTheValidatorRefusesWrongAnswers(t *testing.T) {
	v, err := apispec.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	change := func(f func(m map[string]any)) map[string]any {
		m := table()
		f(m)
		return m
	}
	view := func(m map[string]any) map[string]any { return m["view"].(map[string]any) }
	errBody := map[string]any{"error": map[string]any{"code": "conflict", "message": "The table moved on."}}
	tests := []struct {
		name    string
		method  string
		path    string
		reqBody any
		status  int
		body    any
		wantErr string // "" for a valid exchange
	}{
		{"Valid", "GET", "/api/v1/games/7", nil, 200, table(), ""},
		{"ValidSpectator", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { m["your_seat"], m["your_turn"] = nil, false; view(m)["legal"] = nil }), ""},
		{"ValidBeforeTheStart", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { m["status"], m["view"] = "open", nil }), ""},
		{"ValidMove", "POST", "/api/v1/games/7/take", map[string]any{"version": 3}, 200, table(), ""},
		{"ValidRefusedMove", "POST", "/api/v1/games/7/take", map[string]any{"version": 2}, 409, errBody, ""},
		{"ValidRefusedRequest", "POST", "/api/v1/games/7/take", map[string]any{}, 422, map[string]any{"error": map[string]any{"code": "invalid", "message": "Send the version.", "fields": map[string]any{"version": "Send it."}}}, ""},
		{"ValidUnknownPath", "GET", "/api/v1/nothing", nil, 404, map[string]any{"error": map[string]any{"code": "not_found", "message": "There is nothing at this address."}}, ""},
		{"ValidBadToken", "GET", "/api/v1/games", nil, 401, map[string]any{"error": map[string]any{"code": "unauthorized", "message": "Unknown token."}}, ""},
		{"ValidNoContent", "DELETE", "/api/v1/tournaments/3", nil, 204, nil, ""},
		{"ErrVersionAsString", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { m["version"] = "3" }), "/version"},
		{"ErrMissingField", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { delete(m, "your_turn") }), "your_turn"},
		{"ErrRenamedField", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { m["yourTurn"] = m["your_turn"]; delete(m, "your_turn") }), "your_turn"},
		{"ErrExtraField", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { m["deck"] = []any{3, 4} }), "deck"},
		{"ErrHiddenTokensNotNull", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { view(m)["seats"].([]any)[1].(map[string]any)["tokens"] = "?" }), "tokens"},
		{"ErrUnknownStatus", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { m["status"] = "paused" }), "status"},
		{"ErrUnknownEvent", "GET", "/api/v1/games/7", nil, 200, change(func(m map[string]any) { view(m)["events"].([]any)[0].(map[string]any)["kind"] = "deal" }), "kind"},
		{"ErrUndescribedStatus", "GET", "/api/v1/games/7", nil, 418, errBody, "status"},
		{"ErrErrorWithoutCode", "GET", "/api/v1/games/7", nil, 404, map[string]any{"error": map[string]any{"message": "No."}}, "code"},
		{"ErrRequestRefusedButAccepted", "POST", "/api/v1/games/7/take", map[string]any{}, 200, table(), "request"},
		{"ErrUndescribedPath", "GET", "/api/v1/secret", nil, 200, map[string]any{}, "not in the description"},
		{"ErrUndescribedMethod", "PATCH", "/api/v1/games/7", nil, 200, table(), "not in the description"},
		{"ErrNullList", "GET", "/api/v1/games", nil, 200, map[string]any{"games": nil}, "games"},
		{"ErrMeWithoutBot", "GET", "/api/v1/me", nil, 200, map[string]any{"id": 1, "username": "Ada"}, "bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reqBody []byte
			req, _ := http.NewRequest(tt.method, "http://localhost"+tt.path, nil)
			if tt.reqBody != nil {
				reqBody, _ = json.Marshal(tt.reqBody)
				req.Header.Set("Content-Type", "application/json")
			}
			req.Header.Set("Authorization", "Bearer nt_test")
			var body []byte
			header := http.Header{}
			if tt.body != nil {
				body, _ = json.Marshal(tt.body)
				header.Set("Content-Type", "application/json")
			}
			err := v.Validate(req, reqBody, tt.status, header, body)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("accepted, want an error about %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error %q does not say %q", err, tt.wantErr)
			}
		})
	}
}

func TestStreamLines(t *testing.T) {
	game, _ := json.Marshal(map[string]any{"type": "game", "game": table()})
	tests := []struct {
		name, path, line string
		ok               bool
	}{
		{"Game", "/api/v1/games/7/stream", string(game), true},
		{"GameResumed", "/api/v1/games/7/stream?version=3", string(game), true},
		{"Ping", "/api/v1/games/7/stream", `{"type":"ping"}` + "\n", true},
		{"End", "/api/v1/games/7/stream", `{"type":"end","reason":"revoked"}`, true},
		{"YourTurn", "/api/v1/stream/events", `{"type":"your_turn","game_id":7,"version":3}`, true},
		{"Invitation", "/api/v1/stream/events", `{"type":"invitation","game_id":7,"invitation_id":2}`, true},
		{"TournamentTable", "/api/v1/stream/events", `{"type":"tournament_table","tournament_id":1,"game_id":9}`, true},
		{"RematchOffer", "/api/v1/stream/events", `{"type":"rematch_offer","game_id":7}`, true},
		{"ErrGameInEvents", "/api/v1/stream/events", string(game), false},
		{"ErrUnknownType", "/api/v1/stream/events", `{"type":"hello"}`, false},
		{"ErrEndWithoutReason", "/api/v1/games/7/stream", `{"type":"end"}`, false},
		{"ErrUnknownReason", "/api/v1/games/7/stream", `{"type":"end","reason":"bored"}`, false},
		{"ErrVersionAsString", "/api/v1/stream/events", `{"type":"your_turn","game_id":7,"version":"3"}`, false},
		{"ErrNoGame", "/api/v1/stream/events", `{"type":"your_turn","version":3}`, false},
		{"ErrBadTable", "/api/v1/games/7/stream", `{"type":"game","game":{"id":7}}`, false},
		{"ErrTwoLines", "/api/v1/games/7/stream", `{"type":"ping"}` + "\n" + `{"type":"ping"}`, false},
		{"ErrNotJSON", "/api/v1/games/7/stream", `ping`, false},
		{"ErrNotAStream", "/api/v1/games/7", `{"type":"ping"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := apispec.ValidateLine(tt.path, []byte(tt.line))
			if tt.ok && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tt.ok && err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestAStreamIsCheckedLineByLine(t *testing.T) {
	v, err := apispec.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://localhost/api/v1/stream/events", nil)
	header := http.Header{"Content-Type": {apispec.NDJSON}}
	good := []byte(`{"type":"game_start","game_id":7}` + "\n" + `{"type":"ping"}` + "\n")
	if err := v.Validate(req, nil, 200, header, good); err != nil {
		t.Errorf("refused: %v", err)
	}
	bad := append(bytes.Clone(good), []byte(`{"type":"game_start"}`+"\n")...)
	if err := v.Validate(req, nil, 200, header, bad); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a bad third line: %v", err)
	}
}
