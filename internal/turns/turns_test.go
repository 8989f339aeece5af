package turns

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"nothanks/internal/db"
)

type fakeStore struct {
	rows    []db.TurnGame
	invites map[int64]int
	// inviteReads counts InviteCounts calls.
	inviteReads int
}

func (f *fakeStore) InviteCounts(_ context.Context, ids []int64, _ time.Time) (map[int64]int, error) {
	f.inviteReads++
	out := map[int64]int{}
	for _, id := range ids {
		if n := f.invites[id]; n > 0 {
			out[id] = n
		}
	}
	return out, nil
}

func (f *fakeStore) TurnGames(_ context.Context, ids []int64) ([]db.TurnGame, error) {
	var out []db.TurnGame
	for _, r := range f.rows {
		if slices.Contains(ids, r.UserID) {
			out = append(out, r)
		}
	}
	return out, nil
}

func latest(t *testing.T, s *Sub, want int, games ...int64) {
	t.Helper()
	select {
	case u := <-s.C:
		if u.MyTurn != want || !slices.Equal(u.Games, games) {
			t.Fatalf("update %+v, want %d %v", u, want, games)
		}
	default:
		t.Fatalf("no update, want %d %v", want, games)
	}
}

func quiet(t *testing.T, s *Sub) {
	t.Helper()
	select {
	case u := <-s.C:
		t.Fatalf("unexpected update %+v", u)
	default:
	}
}

func TestTurnsFollowNotifications(t *testing.T) {
	store := &fakeStore{rows: []db.TurnGame{{UserID: 7, GameID: 1, Version: 3}}}
	h := New(store, time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)))
	a, first, err := h.Subscribe(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if first.MyTurn != 1 || !slices.Equal(first.Games, []int64{1}) {
		t.Fatalf("first = %+v", first)
	}
	b, _, _ := h.Subscribe(context.Background(), 7) // a second page of the same person

	h.Changed("1:4:7") // took the card; decides again: same count, no news
	quiet(t, a)
	h.Changed("1:5:8") // passed: it is someone else's
	latest(t, a, 0)
	latest(t, b, 0)
	h.Changed("1:4:7") // a late notification of an older version
	quiet(t, a)
	h.Changed("2:1:7") // a new game comes to them
	latest(t, a, 1, 2)
	h.Changed("1:9:7") // and the first comes back
	latest(t, a, 2, 1, 2)
	h.Changed("2:1") // a payload without a turn says nothing of turns
	h.Changed("2:x:7")
	quiet(t, a)
	h.Changed("2:2:0") // over, or a bot's turn
	latest(t, a, 1, 1)

	// A resync makes the database the truth (a lost notification mended).
	store.rows = []db.TurnGame{{UserID: 7, GameID: 1, Version: 9}, {UserID: 7, GameID: 5, Version: 2}}
	if err := h.Resync(context.Background()); err != nil {
		t.Fatal(err)
	}
	latest(t, a, 2, 1, 5)

	h.Unsubscribe(a)
	h.Unsubscribe(b)
	if h.Open() != 0 || len(h.byGame) != 0 {
		t.Errorf("after the last page closed: %d people, %d games indexed", h.Open(), len(h.byGame))
	}
}

// Invitations: the count comes with the first update, an invitation's
// notification reads the invitee's count again only when they have a page
// open here, and a resync mends a lost one (or an expired invitation).
func TestInvitationsFollowTheirNotifications(t *testing.T) {
	store := &fakeStore{invites: map[int64]int{7: 1}}
	h := New(store, time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	a, first, err := h.Subscribe(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if first.Invites != 1 || first.MyTurn != 0 {
		t.Fatalf("first = %+v", first)
	}
	store.invites[7] = 2
	if err := h.InvitesChanged(ctx, "7"); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-a.C:
		if u.Invites != 2 {
			t.Fatalf("after an invitation: %+v", u)
		}
	default:
		t.Fatal("no update after an invitation")
	}
	if err := h.InvitesChanged(ctx, "7"); err != nil { // nothing new
		t.Fatal(err)
	}
	quiet(t, a)
	reads := store.inviteReads
	if err := h.InvitesChanged(ctx, "8"); err != nil { // nobody here
		t.Fatal(err)
	}
	if err := h.InvitesChanged(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if store.inviteReads != reads {
		t.Errorf("%d reads for people with no page here", store.inviteReads-reads)
	}
	store.invites[7] = 0 // answered elsewhere, the notification lost
	if err := h.Resync(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-a.C:
		if u.Invites != 0 {
			t.Fatalf("after a resync: %+v", u)
		}
	default:
		t.Fatal("no update after a resync")
	}
}

// An API stream hears of every decision (the same player deciding again
// after taking a card is a new version) and of every notice; a page
// hears only when the games waiting change, and only the notices it
// shows.
func TestAPISubscriptionsHearEveryDecisionAndNotice(t *testing.T) {
	h := New(&fakeStore{}, time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)))
	page, _, _ := h.Subscribe(context.Background(), 7)
	api, first, _ := h.SubscribeAPI(context.Background(), 7)
	if first.MyTurn != 0 {
		t.Fatalf("first %+v", first)
	}
	h.Changed("5:3:7")
	latest(t, page, 1, 5)
	latest(t, api, 1, 5)
	h.Changed("5:4:7") // took the card, decides again
	quiet(t, page)
	select {
	case u := <-api.C:
		if u.Versions[5] != 4 {
			t.Errorf("the API stream's update %+v, want game 5 at version 4", u)
		}
	default:
		t.Fatal("the API stream did not hear of the new decision")
	}
	h.Notice("7:game_start:0:9")
	h.Notice("7:invitation:0:9:12")
	h.Notice("7:table:3:9")
	got := func(s *Sub) []Notice {
		var out []Notice
		for {
			select {
			case n := <-s.N:
				out = append(out, n)
			default:
				return out
			}
		}
	}
	if ns := got(page); len(ns) != 1 || ns[0].Kind != "table" {
		t.Errorf("the page's notices %+v, want only the tournament's table", ns)
	}
	want := []Notice{{Kind: "game_start", Game: 9}, {Kind: "invitation", Game: 9, ID: 12}, {Kind: "table", Tournament: 3, Game: 9}}
	if ns := got(api); !slices.Equal(ns, want) {
		t.Errorf("the API stream's notices %+v, want %+v", ns, want)
	}
	// An API stream that falls MaxAPINotices behind is dropped rather
	// than losing one.
	for range MaxAPINotices + 1 {
		h.Notice("7:game_end:0:9")
	}
	select {
	case <-api.Dropped():
	default:
		t.Error("an API stream far behind is not dropped")
	}
}

// A game that starts with someone's decision (version 0) is theirs at
// once, not at the next resync.
func TestAGameStartingWithYourDecisionIsYoursAtOnce(t *testing.T) {
	h := New(&fakeStore{}, time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)))
	page, _, _ := h.Subscribe(context.Background(), 7)
	h.Changed("5:0:7")
	latest(t, page, 1, 5)
}
