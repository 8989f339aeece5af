package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// A private event's code reaches its creator and players through the API,
// as the page shows it to them: the creator reads it from the create
// answer and the lists, passes it on, and a player who was not invited
// joins with it. Nobody else gets it, and a public event has none.
func TestAPIPrivateTournamentCode(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	ps := verified(t, s, "Hosta", "Guesto", "Other")
	host, friend, other := ps[0], ps[1], ps[2]

	in := map[string]any{"kind": "swiss", "name": "Club night", "table_size": 3, "rounds": 3, "private": true}
	for k, v := range map[string]any{"game_rounds": 1, "variant": "standard", "pace": "live", "turn_seconds": 60, "max_players": 100,
		"starts_at": s.Clock.Now().Add(5 * time.Minute).UTC().Format(time.RFC3339)} {
		in[k] = v
	}
	st, res := host.Do(http.MethodPost, "/api/v1/tournaments", in)
	if st != http.StatusCreated {
		t.Fatalf("create a private event: %d %v", st, res)
	}
	ev := res["tournament"].(map[string]any)
	id := int64(ev["id"].(float64))
	var stored string
	if err := s.Store.DB.Get(&stored, `SELECT code FROM tournaments WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	code, _ := ev["invite_code"].(string)
	wantURL := fmt.Sprintf("/tournaments/%d?code=%s", id, stored)
	if got, _ := ev["invite_url"].(string); code != stored || !strings.HasSuffix(got, wantURL) {
		t.Fatalf("the create answer's code and link: %q %q, want %q and …%s", code, got, stored, wantURL)
	}

	// The creator finds it in the lists (without having joined), with
	// its code; another member neither sees it listed nor reads it.
	listed := func(p *apptest.API) map[string]any {
		t.Helper()
		st, l := p.Do(http.MethodGet, "/api/v1/tournaments", nil)
		if st != http.StatusOK {
			t.Fatalf("lists: %d %v", st, l)
		}
		for _, x := range l["upcoming"].([]any) {
			if e := x.(map[string]any); int64(e["id"].(float64)) == id {
				return e
			}
		}
		return nil
	}
	if e := listed(host); e == nil || e["invite_code"] != stored {
		t.Errorf("the creator's list: %v, want the event with its code", e)
	}
	if e := listed(friend); e != nil {
		t.Errorf("a member who is not in it sees the private event listed: %v", e)
	}
	if st, res := friend.Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d", id), nil); st != http.StatusNotFound {
		t.Errorf("a private event read without its code: %d %v", st, res)
	}

	// The friend, given the code, reads the event and joins; as a player
	// they get the code back to pass on.
	if st, res := friend.Do(http.MethodGet, fmt.Sprintf("/api/v1/tournaments/%d?code=%s", id, code), nil); st != http.StatusOK {
		t.Fatalf("the event read with its code: %d %v", st, res)
	}
	st, res = friend.Do(http.MethodPost, fmt.Sprintf("/api/v1/tournaments/%d/join", id), map[string]any{"code": code})
	if st != http.StatusOK || res["tournament"].(map[string]any)["invite_code"] != stored {
		t.Fatalf("join with the code: %d %v", st, res)
	}
	if e := eventOf(t, friend, id)["tournament"].(map[string]any); e["invite_code"] != stored {
		t.Errorf("a player reads the event without its code: %v", e)
	}
	if e := listed(friend); e == nil || e["invite_code"] != stored {
		t.Errorf("a player's list: %v, want the event with its code", e)
	}
	if e := listed(other); e != nil {
		t.Errorf("a third member sees the private event listed: %v", e)
	}

	// A public event carries no code anywhere.
	pub := createEvent(t, s, host, map[string]any{"kind": "arena", "name": "Open arena", "table_size": 3, "minutes": 20})
	for _, p := range []*apptest.API{host, other} {
		if e := eventOf(t, p, pub)["tournament"].(map[string]any); e["invite_code"] != nil || e["invite_url"] != nil {
			t.Errorf("a public event read by %s carries a code: %v", p.Name, e)
		}
	}
}
