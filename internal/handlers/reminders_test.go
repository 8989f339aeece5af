package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"nothanks/internal/apptest"
	"nothanks/internal/games"
)

// reminders counts the reminder mails a player has received.
func (m *mailSetup) reminders(p *apptest.API) int {
	n := 0
	for _, r := range m.smtp.To(addr(p)) {
		if strings.HasPrefix(r.Header("Subject"), "Reminder") {
			n++
		}
	}
	return n
}

// The reminder comes when a fifth of the time for a decision is left, and
// it follows the deadline whenever a vacation moves it (docs/correspondence.md).
// The game gives a day a decision, so the reminder is due 4 h 48 m before
// the deadline.
func TestReminderFollowsTheDeadline(t *testing.T) {
	const fifth = 86400 / 5 * time.Second

	t.Run("VacationStartedOnMyTurn", func(t *testing.T) {
		m := newMailSetup(t)
		me := m.pass(t, m.game) // my turn: 24 h to decide
		m.s.Clock.Advance(12 * time.Hour)
		m.send(t)
		c := m.s.Client()
		c.Login(me.Name, apptest.Password)
		// 12 h left; a 3-day vacation makes it 84 h.
		if res := c.PostForm("/settings/vacation", url.Values{"days": {"3"}}); res.Status != http.StatusSeeOther {
			t.Fatalf("start vacation: %d", res.Status)
		}
		deadline := m.s.Clock.Now().Add(84 * time.Hour)
		// No reminder at the old time (7 h 12 m from now), during the vacation.
		m.s.Clock.Advance(8 * time.Hour)
		m.send(t)
		if n := m.reminders(me); n != 0 {
			t.Fatalf("%d reminders during the vacation", n)
		}
		// Just before 4 h 48 m before the new deadline: nothing yet.
		m.s.Clock.Advance(deadline.Add(-fifth - time.Minute).Sub(m.s.Clock.Now()))
		m.send(t)
		if n := m.reminders(me); n != 0 {
			t.Fatalf("%d reminders before their time", n)
		}
		m.s.Clock.Advance(2 * time.Minute)
		m.send(t)
		if n := m.reminders(me); n != 1 {
			t.Fatalf("%d reminders 4 h 48 m before the new deadline, want 1", n)
		}
	})

	t.Run("VacationEndedEarly", func(t *testing.T) {
		m := newMailSetup(t)
		// Learn the order of play: first, second, third, then first again.
		first, _ := m.mover(t, m.game)
		m.pass(t, m.game)
		m.pass(t, m.game)
		c := m.s.Client()
		c.Login(first.Name, apptest.Password)
		if res := c.PostForm("/settings/vacation", url.Values{"days": {"3"}}); res.Status != http.StatusSeeOther {
			t.Fatalf("start vacation: %d", res.Status)
		}
		// The decision reaches the first player during the vacation: its
		// clock starts when they are back, 3 days from now.
		if next := m.pass(t, m.game); next != first {
			t.Fatalf("the turn went to %s, not %s", next.Name, first.Name)
		}
		// They come back at once: the deadline is now + 24 h, the reminder
		// 19 h 12 m from now, not about three days away.
		if res := c.PostForm("/settings/vacation/end", nil); res.Status != http.StatusSeeOther {
			t.Fatalf("end vacation: %d", res.Status)
		}
		deadline := m.s.Clock.Now().Add(24 * time.Hour)
		m.s.Clock.Advance(deadline.Add(-fifth - time.Minute).Sub(m.s.Clock.Now()))
		m.send(t)
		if n := m.reminders(first); n != 0 {
			t.Fatalf("%d reminders before their time", n)
		}
		m.s.Clock.Advance(2 * time.Minute)
		m.send(t)
		if n := m.reminders(first); n != 1 {
			t.Fatalf("%d reminders 4 h 48 m before the deadline after an early return, want 1", n)
		}
	})
}

// A "your turn" mail waits two minutes, so that a player at the table is not
// mailed; a digest of several games must not carry a turn younger than that.
func TestDigestLeavesFreshTurnsWaiting(t *testing.T) {
	m := newMailSetup(t)
	second := m.newGame(t)
	target := m.players[1]
	bringTurn := func(game int64) {
		t.Helper()
		for range 6 {
			if p, _ := m.mover(t, game); p == target {
				return
			}
			m.pass(t, game)
		}
		t.Fatalf("could not bring the turn to %s in game %d", target.Name, game)
	}
	bringTurn(m.game)
	bringTurn(second)
	m.s.Clock.Advance(games.YourTurnDelay + time.Second)
	// In the second game the turn goes round the table and comes back: it
	// is seconds old when the outbox runs.
	for range 3 {
		m.pass(t, second)
	}
	if p, _ := m.mover(t, second); p != target {
		t.Fatalf("the turn in game %d is not %s's", second, target.Name)
	}
	m.send(t)
	turnMails := func() []apptest.Received {
		var out []apptest.Received
		for _, r := range m.smtp.To(addr(target)) {
			if subj := r.Header("Subject"); strings.Contains(subj, "waiting") || strings.Contains(subj, "Your turn") {
				out = append(out, r)
			}
		}
		return out
	}
	got := turnMails()
	if len(got) != 1 || got[0].Header("Subject") != fmt.Sprintf("Your turn in No Thanks! game #%d", m.game) {
		var subjects []string
		for _, r := range got {
			subjects = append(subjects, r.Header("Subject"))
		}
		t.Fatalf("turn mails when the second turn is seconds old: %q, want only game #%d's", subjects, m.game)
	}
	// Two minutes on, the second game's turn is mailed in its own right.
	m.s.Clock.Advance(games.YourTurnDelay)
	m.send(t)
	got = turnMails()
	if len(got) != 2 || got[1].Header("Subject") != fmt.Sprintf("Your turn in No Thanks! game #%d", second) {
		t.Fatalf("%d turn mails after the wait, want the second game's too", len(got))
	}
}
