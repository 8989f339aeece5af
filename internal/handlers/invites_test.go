package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// Challenges by name: a player at a private correspondence table invites
// two others by name; the invitation reaches the first by mail and on the
// start page, and she takes her seat from there; the second declines
// through the API; mistakes get clear answers; an invitation expires.
func TestInviteByName(t *testing.T) {
	smtp := apptest.NewSMTP(t)
	s := apptest.New(t, apptest.WithoutWorkers(), apptest.WithSMTP(smtp))
	host, ida, jon := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon")
	ctx := context.Background()
	if _, err := s.Store.VerifyEmail(ctx, ida.ID, "ida@example.com", time.Now()); err != nil {
		t.Fatal(err)
	}
	s.App.Notify.RunOutbox(ctx) // sign-up mail first
	_, g := host.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "correspondence", "turn_seconds": 86400, "private": true})
	id := int64(g["id"].(float64))
	path := fmt.Sprintf("/api/v1/games/%d/invites", id)

	for _, c := range []struct{ name, want string }{
		{"", "Write the name"}, {"Nobody", "no player called Nobody"}, {"Hal", "at this table already"},
	} {
		st, body := host.Do(http.MethodPost, path, map[string]any{"username": c.name})
		if st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), c.want) {
			t.Errorf("inviting %q: %d %v", c.name, st, body)
		}
	}
	if st, _ := jon.Do(http.MethodPost, path, map[string]any{"username": "Ida"}); st != http.StatusForbidden {
		t.Errorf("someone not at the table invites: %d", st)
	}
	for _, name := range []string{"Ida", "jon"} {
		if st, body := host.Do(http.MethodPost, path, map[string]any{"username": name}); st != http.StatusOK {
			t.Fatalf("invite %s: %d %v", name, st, body)
		}
	}
	if st, body := host.Do(http.MethodPost, path, map[string]any{"username": "Ida"}); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "invited already") {
		t.Errorf("inviting twice: %d %v", st, body)
	}

	// Ida hears of it by mail (a correspondence table) and on her start page.
	s.App.Notify.RunOutbox(ctx)
	if got := smtp.To("ida@example.com"); len(got) != 1 || !strings.Contains(got[0].Header("Subject"), fmt.Sprintf("game #%d", id)) {
		t.Errorf("mails to Ida: %d", len(got))
	}
	c := s.Client()
	c.Login("Ida", apptest.Password)
	home := c.Get("/")
	if !home.Has("invitations") || !strings.Contains(home.TestID("invitation"), "Hal invites you") {
		t.Fatalf("Ida's start page: %q", home.TestID("invitation"))
	}
	action, _ := home.Doc().Find(`[data-testid="invitation"] form`).First().Attr("action")
	res := c.PostForm(action, url.Values{})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != fmt.Sprintf("/games/%d", id) {
		t.Fatalf("accept: %d to %q", res.Status, res.Header.Get("Location"))
	}
	_, view := host.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", id), nil)
	if n := len(view["players"].([]any)); n != 2 {
		t.Errorf("%d players after Ida accepted, want 2", n)
	}
	if c.Get("/").Has("invitations") {
		t.Error("the answered invitation is still listed")
	}

	// Jon declines through the API; his answer shows in the lobby.
	_, inv := jon.Do(http.MethodGet, "/api/v1/invites", nil)
	list := inv["invitations"].([]any)
	if len(list) != 1 {
		t.Fatalf("Jon's invitations: %v", inv)
	}
	jid := int64(list[0].(map[string]any)["id"].(float64))
	if st, _ := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%d/accept", jid), nil); st != http.StatusNotFound {
		t.Errorf("Ida accepts Jon's invitation: %d", st)
	}
	if st, _ := jon.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%d/decline", jid), nil); st != http.StatusNoContent {
		t.Errorf("decline: %d", st)
	}
	hc := s.Client()
	hc.Login("Hal", apptest.Password)
	if got := hc.Get(fmt.Sprintf("/games/%d", id)).TestID("invited"); !strings.Contains(got, "Jon (declined)") || !strings.Contains(got, "Ida (accepted)") {
		t.Errorf("the lobby's invitations: %q", got)
	}
	// The same through the API, for the table's players only.
	_, tableInvites := host.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/invites", id), nil)
	states := map[string]any{}
	for _, i := range tableInvites["invitations"].([]any) {
		im := i.(map[string]any)
		states[im["username"].(string)] = im["state"]
	}
	if states["Ida"] != "accepted" || states["Jon"] != "declined" || len(states) != 2 {
		t.Errorf("the table's invitations through the API: %v", tableInvites)
	}
	outsider := s.APIFor("Out")
	if st, body := outsider.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d/invites", id), nil); st != http.StatusNotFound {
		t.Errorf("someone else asks for a private table's invitations: %d %v", st, body)
	}

	// From the lobby's form too, with the people Hal has played with offered.
	s.APIFor("Lou")
	if res := hc.PostForm(fmt.Sprintf("/games/%d/invites", id), url.Values{"username": {"Lou"}}); res.Status >= 400 {
		t.Errorf("invite from the lobby: %d", res.Status)
	}
	if got := hc.Get(fmt.Sprintf("/games/%d", id)).TestID("invited"); !strings.Contains(got, "Lou (waiting)") {
		t.Errorf("the lobby after inviting Lou: %q", got)
	}
	if sug := hc.Get("/invites/suggestions"); !strings.Contains(sug.Body, `value="Ida"`) {
		t.Errorf("suggestions: %s", sug.Body)
	}

	// An invitation expires (three days for correspondence).
	kim := s.APIFor("Kim")
	host.Do(http.MethodPost, path, map[string]any{"username": "Kim"})
	s.Clock.Advance(73 * time.Hour)
	_, inv = kim.Do(http.MethodGet, "/api/v1/invites", nil)
	if n := len(inv["invitations"].([]any)); n != 0 {
		t.Errorf("%d invitations after they expired", n)
	}
}

// An invitation reaches the invitee's pages live: the "My games" badge
// counts it (with the words a screen reader says), the stream every page
// holds tells of it at once, My games lists it with Accept and Decline,
// and answering it takes it off the badge again.
func TestInvitationComesToTheBadgeLive(t *testing.T) {
	s := apptest.New(t)
	host, ida := s.APIFor("Hal"), s.APIFor("Ida")
	_, g := host.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	ic := loggedIn(t, s, ida)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	events := ic.Stream(ctx, "/my/events")
	if first := events.Next(t, "turn"); !strings.Contains(first, `"invites":0`) {
		t.Fatalf("first event: %s", first)
	}
	if page := ic.Get("/settings"); page.TestID("nav-my-turn") != "0" || page.TestID("nav-my-games") != "My games 0" {
		t.Errorf("the badge before: %q %q", page.TestID("nav-my-turn"), page.TestID("nav-my-games"))
	}

	if st, body := host.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", id), map[string]any{"username": "Ida"}); st != http.StatusOK {
		t.Fatalf("invite: %d %v", st, body)
	}
	if ev := events.Next(t, "turn"); !strings.Contains(ev, `"invites":1`) || !strings.Contains(ev, `"my_turn":0`) {
		t.Errorf("after the invitation the stream says %s", ev)
	}
	page := ic.Get("/settings")
	if page.TestID("nav-my-turn") != "1" || !strings.Contains(page.TestID("nav-my-games"), ", 1 invitation") {
		t.Errorf("the badge with an invitation: %q %q", page.TestID("nav-my-turn"), page.TestID("nav-my-games"))
	}
	mine := ic.Get("/my/games")
	if !strings.Contains(mine.TestID("invitation"), "Hal invites you") || !mine.Has("invitation-accept") {
		t.Errorf("My games does not list the invitation: %q", mine.TestID("invitations"))
	}

	_, invs := ida.Do(http.MethodGet, "/api/v1/invites", nil)
	inv := invs["invitations"].([]any)[0].(map[string]any)
	if st, _ := ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%d/decline", int64(inv["id"].(float64))), nil); st != http.StatusNoContent {
		t.Fatalf("decline: %d", st)
	}
	if ev := events.Next(t, "turn"); !strings.Contains(ev, `"invites":0`) {
		t.Errorf("after declining the stream says %s", ev)
	}
	if page := ic.Get("/settings"); page.TestID("nav-my-turn") != "0" {
		t.Errorf("the badge after declining: %q", page.TestID("nav-my-turn"))
	}

	// Invited again, and the table is cancelled: the badge hears of it at
	// once (the stream's context ends long before the 30-second pass).
	if st, body := host.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", id), map[string]any{"username": "Ida"}); st != http.StatusOK {
		t.Fatalf("invite again: %d %v", st, body)
	}
	if ev := events.Next(t, "turn"); !strings.Contains(ev, `"invites":1`) {
		t.Errorf("after the second invitation the stream says %s", ev)
	}
	if st, body := host.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/leave", id), nil); st != http.StatusOK {
		t.Fatalf("the host leaves: %d %v", st, body)
	}
	if ev := events.Next(t, "turn"); !strings.Contains(ev, `"invites":0`) {
		t.Errorf("after the table was cancelled the stream says %s", ev)
	}
}

// Creating a table with players to invite: the names typed on the form
// (commas or spaces between them) are invited at once; a name that cannot
// be invited keeps the form as typed, with the reason by the names, and
// creates nothing; a profile's "Invite to a game" opens the form with the
// name in; the JSON API takes the names as "invite".
func TestCreateATableInvitingByName(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	hal, ida, jon, kim := s.APIFor("Hal"), s.APIFor("Ida"), s.APIFor("Jon"), s.APIFor("Kim")
	hc := loggedIn(t, s, hal)
	ctx := context.Background()
	countGames := func() int {
		var n int
		if err := s.Store.DB.Get(&n, `SELECT count(*) FROM games`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	invitations := func(p *apptest.API) []string {
		_, body := p.Do(http.MethodGet, "/api/v1/invites", nil)
		var out []string
		for _, i := range body["invitations"].([]any) {
			im := i.(map[string]any)
			out = append(out, fmt.Sprintf("%s:%d", im["from"], int64(im["game_id"].(float64))))
		}
		return out
	}

	// From Ida's profile.
	profile := hc.Get("/u/Ida")
	link, ok := profile.Doc().Find(`[data-testid="profile-invite"]`).Attr("href")
	if !ok || link != "/games/new?invite=Ida" {
		t.Fatalf("the profile's invite link: %q", link)
	}
	// And from the Following list.
	if _, err := s.App.People.Follow(ctx, hal.ID, "Ida"); err != nil {
		t.Fatal(err)
	}
	if l, _ := hc.Get("/following").Doc().Find(`[data-testid="followed-invite"]`).Attr("href"); l != link {
		t.Errorf("the Following list's invite link: %q", l)
	}
	form := hc.Get(link)
	if v, _ := form.Doc().Find(`[data-testid="input-invite"]`).Attr("value"); v != "Ida" {
		t.Errorf("the form's names: %q", v)
	}

	// Refused names: each answered, the form kept, nothing created.
	if _, err := s.App.People.Block(ctx, kim.ID, "Hal"); err != nil {
		t.Fatal(err)
	}
	before := countGames()
	for _, c := range []struct{ names, seats, want string }{
		{"Ida, Nobody", "4", "There is no player called Nobody."},
		{"Ida Hal", "4", "You sit at your table already: invite the others."},
		{"Kim", "4", "Kim does not accept invitations from you."},
		{"Ida, Jon, Kim", "3", "A table of 3 seats has room for 2 invited players."},
	} {
		res := hc.PostForm("/games", url.Values{"seats": {c.seats}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"correspondence"}, "turn_seconds": {"86400"}, "invite": {c.names}})
		if res.Status != http.StatusUnprocessableEntity || res.TestID("error-invite") != c.want {
			t.Errorf("inviting %q: %d %q, want %q", c.names, res.Status, res.TestID("error-invite"), c.want)
		}
		if v, _ := res.Doc().Find(`[data-testid="input-invite"]`).Attr("value"); v != c.names {
			t.Errorf("the names typed became %q", v)
		}
		if _, checked := res.Doc().Find(`[data-testid="pace-correspondence"]`).Attr("checked"); !checked {
			t.Errorf("the pace chosen was lost")
		}
	}
	// Both mistakes at once: the options' and the names'.
	res := hc.PostForm("/games", url.Values{"seats": {"9"}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "invite": {"Nobody"}})
	if res.Status != http.StatusUnprocessableEntity || res.TestID("error-invite") == "" || res.TestID("error-seats") == "" {
		t.Errorf("two mistakes: %d, names %q, seats %q", res.Status, res.TestID("error-invite"), res.TestID("error-seats"))
	}
	if n := countGames(); n != before {
		t.Fatalf("%d tables created by refused forms", n-before)
	}

	// Accepted: the table and both invitations, said on the lobby.
	res = hc.PostForm("/games", url.Values{"seats": {"4"}, "rounds": {"1"}, "variant": {"standard"}, "pace": {"live"}, "turn_seconds": {"60"}, "invite": {" ida  jon,ida "}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", res.Status, res.TestID("error-invite"))
	}
	lobby := hc.Follow(res)
	if !strings.Contains(lobby.Body, "Ida, Jon are invited") {
		t.Errorf("the lobby does not say who was invited: %q", lobby.TestID("flash"))
	}
	var id int64
	fmt.Sscanf(res.Header.Get("Location"), "/games/%d", &id)
	for _, p := range []*apptest.API{ida, jon} {
		if got := invitations(p); len(got) != 1 || got[0] != fmt.Sprintf("Hal:%d", id) {
			t.Errorf("%s's invitations: %v", p.Name, got)
		}
	}

	// The API: names as a list; a refused one is a 422 with the reason.
	st, body := hal.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60, "invite": []string{"Nobody"}})
	if st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "There is no player called Nobody.") {
		t.Errorf("API, a bad name: %d %v", st, body)
	}
	st, body = hal.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60, "invite": []string{"Jon"}})
	if st != http.StatusCreated {
		t.Fatalf("API create with an invitation: %d %v", st, body)
	}
	if got := invitations(jon); len(got) != 2 || got[0] != fmt.Sprintf("Hal:%d", int64(body["id"].(float64))) {
		t.Errorf("Jon's invitations after the API's: %v", got)
	}
	// Kim blocks Hal: no invite link on her profile for him.
	if hc.Get("/u/Kim").Has("profile-invite") {
		t.Error("the profile of someone who blocks you offers to invite them")
	}
}

// Invitations reach other people's pages and mail, so an account sends at
// most 30 an hour (counted in Postgres); one refused as already standing
// does not count; the limit is answered with when to try again.
func TestInvitationsAreRateLimited(t *testing.T) {
	s := apptest.New(t, apptest.WithoutWorkers())
	hal, ida := s.APIFor("Hal"), s.APIFor("Ida")
	s.APIFor("Jon")
	s.APIFor("Kim")
	s.APIFor("Lee")
	_, g := hal.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60})
	id := int64(g["id"].(float64))
	path := fmt.Sprintf("/api/v1/games/%d/invites", id)
	invite := func(name string) (int, map[string]any) {
		return hal.Do(http.MethodPost, path, map[string]any{"username": name})
	}
	for n := 1; n <= 28; n++ {
		if st, body := invite("Ida"); st != http.StatusOK {
			t.Fatalf("invitation %d: %d %v", n, st, body)
		}
		_, invs := ida.Do(http.MethodGet, "/api/v1/invites", nil)
		inv := invs["invitations"].([]any)[0].(map[string]any)
		ida.Do(http.MethodPost, fmt.Sprintf("/api/v1/invites/%d/decline", int64(inv["id"].(float64))), nil)
	}
	if st, body := invite("Jon"); st != http.StatusOK { // the 29th
		t.Fatalf("29th: %d %v", st, body)
	}
	if st, body := invite("Jon"); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "invited already") {
		t.Fatalf("Jon again: %d %v", st, body)
	}
	if st, body := invite("Kim"); st != http.StatusOK { // the 30th: the repeat did not count
		t.Fatalf("30th: %d %v", st, body)
	}
	st, body := invite("Lee")
	if st != http.StatusTooManyRequests || !strings.Contains(fmt.Sprint(body), "at most 30 an hour. Try again in 60 minutes.") {
		t.Fatalf("31st: %d %v", st, body)
	}
	s.Clock.Advance(61 * time.Minute)
	if st, body := invite("Lee"); st != http.StatusOK {
		t.Errorf("an hour later: %d %v", st, body)
	}
}
