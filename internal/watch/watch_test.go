package watch

import (
	"testing"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
)

func TestMailboxKeepsTheNewestBoardAndDropsAClientThatFallsBehind(t *testing.T) {
	s := &Sub{queue: queue{Wake: make(chan struct{}, 1)}}
	s.deliver(Frame{Kind: "board", Digest: "v1"})
	s.deliver(Frame{Kind: "watchers", Digest: "w1"})
	s.deliver(Frame{Kind: "chat", Digest: "c1"})
	s.deliver(Frame{Kind: "board", Digest: "v2"}) // replaces v1, never waits
	s.deliver(Frame{Kind: "chat", Digest: "c2"})  // the whole chat again: replaces c1
	frames, dropped := s.Take()
	if dropped || len(frames) != 3 || frames[0].Digest != "w1" || frames[1].Digest != "v2" || frames[2].Digest != "c2" {
		t.Fatalf("frames %+v, dropped %v; want the count, board v2 and chat c2", frames, dropped)
	}
	if _, dropped := s.Take(); dropped {
		t.Fatal("an empty mailbox reads as dropped")
	}
	// Events that do not replace each other pile up; past MaxPending the
	// client is dropped rather than waited on.
	for i := range MaxPending + 1 {
		s.deliver(Frame{Kind: "turn", Digest: string(rune('a' + i%26))})
	}
	if _, dropped := s.Take(); !dropped {
		t.Error("a client more than MaxPending events behind is not dropped")
	}
	select {
	case <-s.Wake:
	default:
		t.Error("delivery did not wake the stream")
	}
}

func TestKeyFor(t *testing.T) {
	ann, ben, cat := int64(1), int64(2), int64(3)
	seat := func(n int, user int64) db.Seat { return db.Seat{Seat: &n, UserID: &user} }
	open := &games.State{Game: db.Game{Status: db.StatusOpen, CreatorID: ann, Public: true}, Seats: []db.Seat{{UserID: &ann}, {UserID: &ben}}}
	playing := &games.State{Game: db.Game{Status: db.StatusPlaying, CreatorID: ann, InviteCode: "c0de"}, Seats: []db.Seat{seat(0, ann), seat(1, ben)}}
	tests := []struct {
		name string
		st   *games.State
		v    Viewer
		want Key
	}{
		{"LobbyVisitor", open, Viewer{}, Key{Seat: engine.Spectator, Role: Visitor}},
		{"LobbyMember", open, Viewer{UserID: &cat}, Key{Seat: engine.Spectator, Role: Member}},
		{"LobbySeated", open, Viewer{UserID: &ben}, Key{Seat: engine.Spectator, Role: Seated}},
		{"LobbyCreator", open, Viewer{UserID: &ann}, Key{Seat: engine.Spectator, Role: Creator}},
		{"PlayerBySeat", playing, Viewer{UserID: &ben, Lang: "es"}, Key{Seat: 1, Lang: "es"}},
		{"PrivateSpectatorKeepsTheCode", playing, Viewer{UserID: &cat, Code: "c0de"}, Key{Seat: engine.Spectator, Code: "c0de"}},
		{"VisitorAndMemberShareAView", playing, Viewer{Code: "c0de"}, Key{Seat: engine.Spectator, Code: "c0de"}},
		{"PlayerNeedsNoCode", playing, Viewer{UserID: &ann, Code: "c0de"}, Key{Seat: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KeyFor(tt.st, tt.v); got != tt.want {
				t.Errorf("KeyFor = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestEventBytesPrefixesEveryLine(t *testing.T) {
	got := string(EventBytes("board", []byte("<a>\n<b>")))
	if want := "event: board\ndata: <a>\ndata: <b>\n\n"; got != want {
		t.Errorf("EventBytes = %q, want %q", got, want)
	}
}

// An API stream's lines each carry the events since the one before, so
// none replaces another; a reader that falls MaxPending lines behind is
// dropped (it resumes from its last version) rather than waited on.
func TestAPILinesNeverReplaceEachOther(t *testing.T) {
	s := &Sub{queue: queue{Wake: make(chan struct{}, 1)}}
	s.deliver(Frame{Kind: KindGameLine, Digest: "v1"})
	s.deliver(Frame{Kind: KindGameLine, Digest: "v2"})
	frames, dropped := s.Take()
	if dropped || len(frames) != 2 || frames[0].Digest != "v1" || frames[1].Digest != "v2" {
		t.Fatalf("frames %+v, dropped %v; want v1 then v2", frames, dropped)
	}
	for i := range MaxPending + 1 {
		s.deliver(Frame{Kind: KindGameLine, Digest: string(rune('a' + i%26))})
	}
	if _, dropped := s.Take(); !dropped {
		t.Error("a reader more than MaxPending lines behind is not dropped")
	}
}
