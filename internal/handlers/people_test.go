package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
)

// Follow and block: Ann follows Bob from his profile and sees him online
// with his game to watch, and his name first among her invitation
// suggestions; once Bob blocks her, her follow is gone and she can no
// longer invite him, chat at his table, join his private table or follow
// him again; unblocked, she can invite him again.
func TestFollowAndBlock(t *testing.T) {
	s := apptest.New(t)
	ann, bob, cyd := s.APIFor("Ann"), s.APIFor("Bob"), s.APIFor("Cyd")
	ac, bc := loggedIn(t, s, ann), loggedIn(t, s, bob)

	if got := ac.Get("/following").TestID("following-empty"); !strings.Contains(got, "You follow nobody yet") {
		t.Errorf("an empty Following page: %q", got)
	}
	profile := ac.Get("/u/Bob")
	if profile.TestID("follow") != "Follow" || profile.TestID("block") != "Block" {
		t.Fatalf("Bob's profile buttons: %q %q", profile.TestID("follow"), profile.TestID("block"))
	}
	if ac.Get("/u/Ann").Has("follow") || s.Client().Get("/u/Bob").Has("follow") {
		t.Error("follow buttons on one's own profile, or for a visitor")
	}
	res := ac.PostForm("/u/Bob/follow", url.Values{"on": {"true"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/u/Bob" {
		t.Fatalf("follow: %d %q", res.Status, res.Header.Get("Location"))
	}
	if p := ac.Follow(res); p.TestID("follow") != "Unfollow" || !strings.Contains(p.Body, "You follow Bob.") {
		t.Errorf("after following: %q", p.TestID("follow"))
	}
	// Bob (logged in just now) is online, in a public game Ann can watch.
	id := startedGame(t, bob, cyd, s.APIFor("Dia"))
	f := ac.Get("/following")
	if f.TestID("followed-name") != "Bob" || !f.Has("online") || f.TestID("followed-game") != fmt.Sprintf("Game #%d", id) {
		t.Errorf("Following: %q online %v game %q", f.TestID("followed-name"), f.Has("online"), f.TestID("followed-game"))
	}
	s.Clock.Advance(10 * time.Minute)
	if ac.Get("/following").Has("online") {
		t.Error("Bob shows online ten minutes after his last request")
	}
	// Follows come first among the suggestions when inviting.
	_, g := ann.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60, "private": true})
	mine := int64(g["id"].(float64))
	if sug := ac.Get("/invites/suggestions"); !strings.Contains(sug.Body, `value="Bob"`) {
		t.Errorf("suggestions: %s", sug.Body)
	}
	for _, c := range []struct{ name, want string }{{"", "No such player"}, {"Ann", "That is you"}, {"Zzz", "No such player"}} {
		res := ac.PostForm("/following", url.Values{"name": {c.name}})
		if res.Status < 400 || !strings.Contains(res.TestID("error-follow"), c.want) {
			t.Errorf("follow %q: %d %q", c.name, res.Status, res.TestID("error-follow"))
		}
	}
	if res := ac.PostForm("/following", url.Values{"name": {"cyd"}}); res.Status != http.StatusSeeOther {
		t.Errorf("follow Cy by name: %d", res.Status)
	}

	// Bob blocks Ann.
	res = bc.PostForm("/u/Ann/block", url.Values{"on": {"true"}})
	if p := bc.Follow(res); p.TestID("block") != "Unblock" || !strings.Contains(p.Body, "You block Ann") {
		t.Errorf("after blocking: %q", p.TestID("block"))
	}
	if got := ac.Get("/following").Doc().Find(`[data-testid="followed-name"]`).Text(); got != "Cyd" {
		t.Errorf("after Bob blocked Ann she follows %q, want Cyd only", got)
	}
	if st, body := ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", mine), map[string]any{"username": "Bob"}); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "Bob does not accept invitations from you") {
		t.Errorf("Ann invites Bob: %d %v", st, body)
	}
	if st, body := ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/chat", id), map[string]any{"text": "hello Bob"}); st != http.StatusForbidden || !strings.Contains(fmt.Sprint(body), "a player here has blocked you") {
		t.Errorf("Ann chats at Bob's table: %d %v", st, body)
	}
	if res := ac.PostForm("/u/Bob/follow", url.Values{"on": {"true"}}); !strings.Contains(ac.Follow(res).Body, "You cannot follow Bob") {
		t.Error("Ann follows Bob again")
	}
	if got := bc.Get("/following").TestID("blocked"); !strings.Contains(got, "Ann") {
		t.Errorf("Bob's blocked list: %q", got)
	}
	_, pg := bob.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 3, "rounds": 1, "pace": "live", "turn_seconds": 60, "private": true})
	private := int64(pg["id"].(float64))
	invite := bc.Get(fmt.Sprintf("/games/%d", private)).TestID("invite-url")
	code := invite[strings.LastIndex(invite, "/")+1:]
	if !strings.Contains(invite, "/join/") {
		t.Fatalf("no invite link: %q", invite)
	}
	if res := ac.Get("/join/" + code); res.Status != http.StatusOK {
		t.Errorf("Ann opens the invite link: %d", res.Status)
	}
	if st, body := ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", private), map[string]any{"code": code}); st != http.StatusForbidden || !strings.Contains(fmt.Sprint(body), "cannot join this table") {
		t.Errorf("Ann joins Bob's private table: %d %v", st, body)
	}
	if st, _ := cyd.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", private), map[string]any{"code": code}); st != http.StatusOK {
		t.Errorf("Cyd joins with the code: %d", st)
	}

	// Unblocked, Ann may invite him again.
	bc.PostForm("/u/Ann/block", url.Values{"on": {"false"}, "next": {"/following"}})
	if got := bc.Get("/following"); !got.Has("blocked-empty") {
		t.Error("Ann is still blocked")
	}
	if st, body := ann.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/invites", mine), map[string]any{"username": "Bob"}); st != http.StatusOK {
		t.Errorf("Ann invites Bob after the unblock: %d %v", st, body)
	}

	// The same through the API.
	if st, _ := ann.Raw(http.MethodPut, "/api/v1/following/bob", nil); st != http.StatusNoContent {
		t.Errorf("PUT following: %d", st)
	}
	if st, _ := ann.Raw(http.MethodPut, "/api/v1/blocks/Nobody", nil); st != http.StatusNotFound {
		t.Errorf("blocking nobody: %d", st)
	}
	if st, body := ann.Do(http.MethodPut, "/api/v1/following/Ann", nil); st != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(body), "That is you") {
		t.Errorf("following oneself: %d %v", st, body)
	}
	cyd.Raw(http.MethodPut, "/api/v1/blocks/Ann", nil)
	_, list := ann.Do(http.MethodGet, "/api/v1/following", nil)
	if fmt.Sprint(list["following"]) != fmt.Sprintf("[map[games:[%d] online:true username:Bob]]", id) {
		t.Errorf("Ann's following through the API: %v", list)
	}
	if _, list := cyd.Do(http.MethodGet, "/api/v1/following", nil); fmt.Sprint(list["blocked"]) != "[Ann]" {
		t.Errorf("Cyd's blocks through the API: %v", list)
	}
	ann.Raw(http.MethodDelete, "/api/v1/following/Bob", nil)
	if _, list := ann.Do(http.MethodGet, "/api/v1/following", nil); fmt.Sprint(list["following"]) != "[]" {
		t.Errorf("after DELETE: %v", list)
	}
}

// Account deletion and export: Zed downloads his data, then deletes his
// account: a wrong password changes nothing; then his sessions and token
// end, his name is free of him, mail to him stops, his open table is
// cancelled and the server plays his seat in the game in play, while the
// finished game still renders with his seat as "deleted player" and the
// other players' results as they were.
func TestDeleteAccountAndExport(t *testing.T) {
	s := apptest.New(t)
	zed, amy := s.APIFor("Zed"), s.APIFor("Amy")
	finished, names := finishWithBot(t, s, zed, amy)
	ctx := context.Background()
	zc := loggedIn(t, s, zed)
	zc.PostForm(fmt.Sprintf("/games/%d/chat", finished), url.Values{"text": {"well played"}})
	// A game in play, and an open table of his.
	bo := s.APIFor("Bob")
	playing := startedGame(t, amy, zed, bo)
	_, og := zed.Do(http.MethodPost, "/api/v1/games", map[string]any{"seats": 4, "rounds": 1, "pace": "live", "turn_seconds": 60})
	open := int64(og["id"].(float64))
	amy.Do(http.MethodPost, fmt.Sprintf("/api/v1/games/%d/join", open), nil)
	// A ranked game too, played out: its rating changes must survive.
	ranked := rankedGame(t, []*apptest.API{zed, amy, bo})
	playOut(t, s, ranked, []*apptest.API{zed, amy, bo}, nil)
	changes, err := s.Store.GameRatingChanges(ctx, ranked)
	if err != nil || len(changes) != 3 {
		t.Fatalf("rating changes of the ranked game: %d (%v)", len(changes), err)
	}
	amyHistory, err := s.Store.RatingHistory(ctx, amy.ID)
	if err != nil {
		t.Fatal(err)
	}
	amyFinished := s.Client()
	amyFinished.Login("Amy", apptest.Password)
	// The finished game's analysis (a background job) adds the players'
	// accuracy to the standings: wait for it, so that the standings taken
	// before the deletion are the ones to compare with after.
	for deadline := time.Now().Add(60 * time.Second); ; {
		if rep, err := s.App.Reviews.ReportOf(ctx, finished); err != nil {
			t.Fatal(err)
		} else if rep != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the finished game was not analysed")
		}
		if _, err := s.App.Reviews.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := amyFinished.Get(fmt.Sprintf("/games/%d", finished))
	beforeStandings := before.TestID("standings")

	// The export: a JSON file with his games, his message, his account.
	res := zc.Get("/settings/export")
	if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v", res.Status, res.Header)
	}
	var x struct {
		Account struct{ Username, Email string }
		Games   []struct {
			ID     int64
			Status string
		}
		Chat []struct {
			GameID int64 `json:"game_id"`
			Body   string
		} `json:"chat_messages"`
	}
	if err := json.Unmarshal([]byte(res.Body), &x); err != nil {
		t.Fatal(err)
	}
	if x.Account.Username != "Zed" || x.Account.Email != "zed@example.com" || len(x.Games) != 4 || len(x.Chat) != 1 || x.Chat[0].Body != "well played" || x.Chat[0].GameID != finished {
		t.Errorf("export: %+v", x)
	}
	if st, body := zed.Do(http.MethodGet, "/api/v1/me/export", nil); st != http.StatusOK || body["account"].(map[string]any)["username"] != "Zed" {
		t.Errorf("API export: %d", st)
	}

	// A wrong password: nothing happens.
	res = zc.PostForm("/settings/delete", url.Values{"password": {"wrong one"}})
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.TestID("error-password"), "not your password") {
		t.Fatalf("wrong password: %d %q", res.Status, res.TestID("error-password"))
	}
	if res := zc.PostForm("/settings/delete", url.Values{}); !strings.Contains(res.TestID("error-password"), "Write your password") {
		t.Errorf("no password: %q", res.TestID("error-password"))
	}
	if st, _ := zed.Do(http.MethodGet, "/api/v1/me", nil); st != http.StatusOK {
		t.Fatalf("the account went on a wrong password: %d", st)
	}

	deletedAt := s.Clock.Now()
	res = zc.PostForm("/settings/delete", url.Values{"password": {apptest.Password}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("delete: %d %q", res.Status, res.Header.Get("Location"))
	}
	if home := zc.Follow(res); !strings.Contains(home.Body, "Your account is deleted") || home.Has("nav-user") {
		t.Error("no goodbye, or still logged in")
	}
	if res := zc.Get("/settings"); res.Status != http.StatusSeeOther {
		t.Errorf("the session lives on: %d", res.Status)
	}
	if st, _ := zed.Do(http.MethodGet, "/api/v1/me", nil); st != http.StatusUnauthorized {
		t.Errorf("the token lives on: %d", st)
	}
	for _, login := range []string{"Zed", "zed@example.com"} {
		if res := s.Client().Login(login, apptest.Password); res.Status == http.StatusSeeOther {
			t.Errorf("logging in as %s still works", login)
		}
	}
	if res := s.Client().Get("/u/Zed"); res.Status != http.StatusNotFound {
		t.Errorf("his profile: %d", res.Status)
	}
	if res := s.Client().Get(fmt.Sprintf("/u/deleted-%d", zed.ID)); res.Status != http.StatusNotFound {
		t.Errorf("the deleted account's profile: %d", res.Status)
	}
	if res := s.Client().PostForm("/register", url.Values{"username": {fmt.Sprintf("deleted-%d", zed.ID+1)}, "email": {"x@example.com"}, "password": {apptest.Password}, "confirm": {apptest.Password}}); !strings.Contains(res.TestID("error-username"), "kept for deleted accounts") {
		t.Errorf("registering a deleted- name: %q", res.TestID("error-username"))
	}
	// The name is free for someone new.
	s.Client().Register("Zed")

	// The finished game renders, his seat as "deleted player", the result
	// as it was; the replay and its chat too.
	after := amyFinished.Get(fmt.Sprintf("/games/%d", finished))
	if after.Status != http.StatusOK || !strings.Contains(after.TestID("seats"), "deleted player") || strings.Contains(after.TestID("seats"), "Zed") {
		t.Errorf("the finished game after the deletion: %d %q (seats were %v)", after.Status, after.TestID("seats"), names)
	}
	if got := after.TestID("standings"); got != strings.ReplaceAll(beforeStandings, "Zed", "deleted player") {
		t.Errorf("standings changed:\n%s\nwas\n%s", got, beforeStandings)
	}
	replay := amyFinished.Get(fmt.Sprintf("/games/%d/replay", finished))
	if replay.Status != http.StatusOK || !strings.Contains(replay.TestID("replay-chat-players"), "deleted player") || !strings.Contains(replay.TestID("replay-chat-players"), "well played") {
		t.Errorf("the replay's chat: %d %q", replay.Status, replay.TestID("replay-chat-players"))
	}
	if mg := amyFinished.Get("/my/games"); !strings.Contains(mg.Body, "deleted player") {
		t.Error("Amy's game list does not name the deleted seat")
	}
	// Ratings: the game's changes and Amy's history are as they were, and
	// the ladder does not list him.
	if after, err := s.Store.GameRatingChanges(ctx, ranked); err != nil || fmt.Sprint(after) != fmt.Sprint(changes) {
		t.Errorf("the ranked game's rating changes after the deletion: %v (%v), were %v", after, err, changes)
	}
	if after, err := s.Store.RatingHistory(ctx, amy.ID); err != nil || fmt.Sprint(after) != fmt.Sprint(amyHistory) {
		t.Errorf("Amy's rating history changed: %v (%v)", after, err)
	}
	if _, ladder := amy.Do(http.MethodGet, "/api/v1/ladder", nil); strings.Contains(fmt.Sprint(ladder), "deleted-") || strings.Contains(fmt.Sprint(ladder), "Zed") {
		t.Errorf("the ladder lists the deleted account: %v", ladder)
	}
	if !strings.Contains(amyFinished.Get(fmt.Sprintf("/games/%d", ranked)).TestID("standings"), "deleted player") {
		t.Error("the ranked game's standings do not show the deleted seat")
	}
	// His open table is cancelled; in the game in play the server moves
	// for him.
	if _, v := amy.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", open), nil); v["status"] != "cancelled" {
		t.Errorf("his open table: %v", v["status"])
	}
	playOut(t, s, playing, []*apptest.API{amy, bo}, nil)
	if _, v := amy.Do(http.MethodGet, fmt.Sprintf("/api/v1/games/%d", playing), nil); v["status"] != "finished" {
		t.Errorf("the game in play: %v", v["status"])
	}
	// Nothing more is mailed to him.
	if _, err := s.App.Notify.RunOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := s.Store.MailsTo(ctx, zed.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if !m.CreatedAt.Before(deletedAt) && m.Status != "skipped" {
			t.Errorf("a %s mail after the deletion is %s", m.Kind, m.Status)
		}
	}
}
