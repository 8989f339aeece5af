package push

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	webpush "github.com/SherClockHolmes/webpush-go"

	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/notify"
)

// Payload is what the service worker receives (JSON, encrypted): the
// notification's title and text in the person's language, the page a
// click opens (a path on the site) and the tag that makes a newer
// notification about the same thing replace an older one.
type Payload struct {
	Kind  string `json:"kind"`
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url"`
	Tag   string `json:"tag"`
	Lang  string `json:"lang"`
}

// message is a composed push with its delivery headers.
type message struct {
	Payload
	TTL     time.Duration
	Urgency webpush.Urgency
	// Topic makes the push service replace a waiting push of the same
	// topic to the device (RFC 8030 §5.4).
	Topic string
}

// outcome is what to do with a claimed push: send msg, skip it (why), or
// try again later.
type outcome struct {
	msg   *message
	skip  string
	later time.Time
}

func skip(why string) (outcome, error) { return outcome{skip: why}, nil }

// Waits and lives of pushes.
const (
	// MaxTTL is the longest a push service keeps a push (four weeks).
	MaxTTL = 28 * 24 * time.Hour
	// ChatPushGap is the least time between two chat pushes about one game
	// to one device: a lively chat makes one notification, not many.
	ChatPushGap = 10 * time.Minute
	// MaxBody bounds a notification's text.
	MaxBody = 400
)

// ttlUntil is a push's life up to a deadline (at least a minute).
func ttlUntil(due, now time.Time) time.Duration {
	return min(max(due.Sub(now), time.Minute), MaxTTL)
}

func tr(r db.Recipient, id string, kv ...any) string { return i18n.In(i18n.Or(r.Lang), id, kv...) }

// clip shortens a text to MaxBody characters.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= MaxBody {
		return s
	}
	rs := []rune(s)
	return string(rs[:MaxBody-1]) + "…"
}

func gamePath(id int64) string { return fmt.Sprintf("/games/%d", id) }

func onVacation(r db.Recipient, now time.Time) bool {
	return r.VacationUntil != nil && r.VacationUntil.After(now)
}

// compose decides whether a push is still worth sending, from the state
// now, and writes it. It tells only what the person may see at the table.
func (s *Service) compose(ctx context.Context, r db.Recipient, d db.PushDevice, m db.Mail, now time.Time) (outcome, error) {
	msg := &message{Payload: Payload{Kind: m.Kind, Lang: string(i18n.Or(r.Lang))}}
	switch m.Kind {
	case db.MailYourTurn, db.MailReminder:
		t, err := s.games.Table(ctx, &r.ID, *m.GameID, "")
		if err != nil || t.Game.Status != db.StatusPlaying || t.Game.TurnUserID == nil || *t.Game.TurnUserID != r.ID ||
			t.Game.DueAt == nil || m.GameVersion == nil || *m.GameVersion != t.Game.Version {
			return skip("decided already")
		}
		if m.Kind == db.MailReminder {
			if at := games.ReminderAt(*t.Game.DueAt, t.Game.TurnSeconds); at.After(now.Add(time.Minute)) {
				return outcome{later: at}, nil // the deadline moved later (a vacation)
			}
		}
		if onVacation(r, now) {
			return skip("on vacation")
		}
		if open, err := s.store.HasOpenStream(ctx, r.ID, t.Game.ID, now.Add(-games.WatchWindow)); err != nil || open {
			return outcome{skip: "at the table"}, err
		}
		msg.Title = tr(r, "Your turn in No Thanks! game #{{.ID}}", "ID", t.Game.ID)
		if m.Kind == db.MailReminder {
			msg.Title = tr(r, "Reminder: your turn in No Thanks! game #{{.ID}} ends {{.Time}}", "ID", t.Game.ID, "Time", notify.LocalTime(*t.Game.DueAt, r))
		}
		msg.Body = strings.Join(append(notify.Situation(r, t),
			tr(r, "Decide by {{.Time}}; after that the server decides for you.", "Time", notify.LocalTime(*t.Game.DueAt, r))), " ")
		msg.URL, msg.Tag = gamePath(t.Game.ID), fmt.Sprintf("game-%d", t.Game.ID)
		msg.TTL, msg.Urgency, msg.Topic = ttlUntil(*t.Game.DueAt, now), webpush.UrgencyHigh, fmt.Sprintf("turn-%d", t.Game.ID)
	case db.MailTimedOut:
		msg.Title = tr(r, "Your time ran out in No Thanks! game #{{.ID}}", "ID", *m.GameID)
		msg.Body = tr(r, "You did not decide in time, so the server decided for you, as a careful player would.")
		msg.URL, msg.Tag = gamePath(*m.GameID), fmt.Sprintf("game-%d", *m.GameID)
		msg.TTL, msg.Urgency = 24*time.Hour, webpush.UrgencyNormal
	case db.MailGameOver:
		t, err := s.games.Table(ctx, &r.ID, *m.GameID, "")
		if err != nil {
			return outcome{}, err
		}
		if t.View == nil || !t.View.Finished {
			return skip("not finished")
		}
		msg.Title = tr(r, "No Thanks! game #{{.ID}} is over", "ID", t.Game.ID)
		msg.Body = strings.Join(notify.Placings(r, t), " · ")
		msg.URL, msg.Tag = gamePath(t.Game.ID), fmt.Sprintf("game-%d", t.Game.ID)
		msg.TTL, msg.Urgency = 24*time.Hour, webpush.UrgencyLow
	case db.MailRankedMatch:
		g, err := s.store.Game(ctx, *m.GameID)
		if err != nil {
			return outcome{}, err
		}
		if g.Status != db.StatusPlaying {
			return skip("game over")
		}
		msg.Title = tr(r, "Your ranked No Thanks! game #{{.ID}} is ready", "ID", g.ID)
		msg.Body = tr(r, "The ranked queue found you a table: game #{{.ID}}.", "ID", g.ID)
		msg.URL, msg.Tag = gamePath(g.ID), fmt.Sprintf("game-%d", g.ID)
		msg.TTL, msg.Urgency = 10*time.Minute, webpush.UrgencyHigh
	case db.MailInvite:
		inv, err := s.store.OpenInviteTo(ctx, r.ID, *m.GameID, now)
		if err != nil {
			return outcome{}, err
		}
		if inv == nil {
			return skip("no longer waiting")
		}
		msg.Title = tr(r, "An invitation to No Thanks! game #{{.ID}}", "ID", inv.GameID)
		msg.Body = tr(r, "{{.From}} invites you to their table. Accept or decline it there.", "From", notify.AccountName(r, inv.FromName, inv.FromBot))
		msg.URL, msg.Tag = inv.TablePath(), fmt.Sprintf("invite-%d", inv.GameID)
		msg.TTL, msg.Urgency = ttlUntil(inv.ExpiresAt, now), webpush.UrgencyNormal
	case db.PushRematch:
		rm, err := s.store.RematchOf(ctx, *m.GameID)
		if err != nil {
			return outcome{}, err
		}
		if rm == nil || rm.NewGameID != nil || !now.Before(rm.ExpiresAt) || rm.OfferedBy == r.ID {
			return skip("no offer waits")
		}
		if _, answered := rm.Answers[r.ID]; answered {
			return skip("answered")
		}
		if open, err := s.store.HasOpenStream(ctx, r.ID, *m.GameID, now.Add(-games.WatchWindow)); err != nil || open {
			return outcome{skip: "at the table"}, err
		}
		by, err := s.store.UserByID(ctx, rm.OfferedBy)
		if err != nil {
			return outcome{}, err
		}
		msg.Title = tr(r, "{{.Name}} offers to play game #{{.ID}} again", "Name", notify.AccountName(r, by.Username, by.Bot), "ID", *m.GameID)
		msg.Body = tr(r, "Accept or decline at the table: the game starts when everyone has accepted.")
		msg.URL, msg.Tag = gamePath(*m.GameID), fmt.Sprintf("game-%d", *m.GameID)
		msg.TTL, msg.Urgency = ttlUntil(rm.ExpiresAt, now), webpush.UrgencyNormal
	case db.PushChat:
		return s.chat(ctx, r, d, m, msg, now)
	case db.MailTournamentStart, db.MailTournamentTable:
		return s.tournament(ctx, r, m, msg, now)
	case db.MailFairPlay:
		if m.FairplayID == nil {
			return skip("no decision")
		}
		d, err := s.store.DecisionByID(ctx, *m.FairplayID)
		if err != nil {
			return outcome{}, err
		}
		msg.Title, msg.Body = notify.FairPlaySubject(r, d), notify.FairPlayLine(r, d)
		msg.URL, msg.Tag = "/my/fairplay", fmt.Sprintf("fairplay-%d", d.ID)
		msg.TTL, msg.Urgency = 7*24*time.Hour, webpush.UrgencyNormal
	case db.MailReportHandled:
		if m.FairplayID == nil {
			return skip("no report")
		}
		rep, err := s.store.ReportByID(ctx, *m.FairplayID)
		if err != nil {
			return outcome{}, err
		}
		msg.Title, msg.Body = tr(r, "Your report was handled"), notify.ReportHandledLine(r, rep)
		msg.URL, msg.Tag = "/my/fairplay", fmt.Sprintf("report-%d", rep.ID)
		msg.TTL, msg.Urgency = 7*24*time.Hour, webpush.UrgencyLow
	case db.PushTest:
		msg.Title = tr(r, "Notifications work on this device")
		msg.Body = tr(r, "This is how No Thanks! tells you it is your turn when no page of the site is open.")
		msg.URL, msg.Tag = "/settings#devices", "test"
		msg.TTL, msg.Urgency = 5*time.Minute, webpush.UrgencyHigh
	default:
		return skip("unknown kind")
	}
	msg.Body = clip(msg.Body)
	return outcome{msg: msg}, nil
}

// chat pushes the newest unread messages of a game's players' chat to a
// player who is not at the table: once for a burst of messages (the
// newest row carries them) and at most once per ChatPushGap.
func (s *Service) chat(ctx context.Context, r db.Recipient, d db.PushDevice, m db.Mail, msg *message, now time.Time) (outcome, error) {
	gameID := *m.GameID
	if later, err := s.store.LaterChatPush(ctx, m.ID, d.ID, gameID); err != nil || later {
		return outcome{skip: "a later push carries it"}, err
	}
	if open, err := s.store.HasOpenStream(ctx, r.ID, gameID, now.Add(-games.WatchWindow)); err != nil || open {
		return outcome{skip: "at the table"}, err
	}
	if last, err := s.store.LastPushSent(ctx, d.ID, gameID, db.PushChat); err != nil {
		return outcome{}, err
	} else if last != nil && now.Sub(*last) < ChatPushGap {
		return outcome{later: last.Add(ChatPushGap)}, nil
	}
	said, total, err := s.store.UnreadChat(ctx, r.ID, gameID, 3)
	if err != nil {
		return outcome{}, err
	}
	if total == 0 {
		return skip("read already")
	}
	var lines []string
	for _, c := range said {
		lines = append(lines, notify.SeatName(r, c.Author)+": "+c.Body)
	}
	msg.Title = i18n.NIn(i18n.Or(r.Lang), "{{.Count}} new message at game #{{.ID}}", "{{.Count}} new messages at game #{{.ID}}", total, "ID", gameID)
	msg.Body = clip(strings.Join(lines, "\n"))
	msg.URL, msg.Tag = gamePath(gameID), fmt.Sprintf("chat-%d", gameID)
	msg.TTL, msg.Urgency, msg.Topic = time.Hour, webpush.UrgencyNormal, fmt.Sprintf("chat-%d", gameID)
	return outcome{msg: msg}, nil
}

// tournament pushes "the tournament started" (to a live event's player
// only when they have not been on the site since the start) and "your
// table is ready" (unless they sit at it already).
func (s *Service) tournament(ctx context.Context, r db.Recipient, m db.Mail, msg *message, now time.Time) (outcome, error) {
	t, err := s.store.Tournament(ctx, *m.TournamentID)
	if errors.Is(err, db.ErrNotFound) {
		return skip("no such tournament")
	}
	if err != nil {
		return outcome{}, err
	}
	if t.Status != db.TournamentRunning {
		return skip("not running")
	}
	msg.Tag = fmt.Sprintf("tournament-%d", t.ID)
	msg.Urgency = webpush.UrgencyHigh
	if m.Kind == db.MailTournamentStart {
		if t.Pace != games.Correspondence && t.StartedAt != nil {
			if seen, err := s.store.SeenSince(ctx, r.ID, *t.StartedAt); err != nil || seen {
				return outcome{skip: "on the site since the start"}, err
			}
		}
		msg.Title = tr(r, "The No Thanks! tournament {{.Tournament}} has started", "Tournament", t.Name)
		msg.Body = tr(r, "Open its page to be seated: players who are there are seated as soon as others are free.")
		msg.TTL = 10 * time.Minute
		if t.Pace == games.Correspondence {
			msg.Body = tr(r, "Your first table is ready; each round's table comes by mail too.")
			msg.TTL = 24 * time.Hour
		}
		msg.URL = fmt.Sprintf("/tournaments/%d", t.ID)
		return outcome{msg: msg}, nil
	}
	g, err := s.store.Game(ctx, *m.GameID)
	if err != nil {
		return outcome{}, err
	}
	if g.Status != db.StatusPlaying {
		return skip("game over")
	}
	if open, err := s.store.HasOpenStream(ctx, r.ID, g.ID, m.CreatedAt); err != nil || open {
		return outcome{skip: "at the table"}, err
	}
	msg.Title = tr(r, "Your table in {{.Tournament}} is ready: game #{{.ID}}", "Tournament", t.Name, "ID", g.ID)
	msg.Body = tr(r, "Each decision has {{.Time}}; when it runs out, the server moves for you.", "Time", i18n.Duration(i18n.Or(r.Lang), time.Duration(g.TurnSeconds)*time.Second))
	msg.URL = gamePath(g.ID)
	msg.TTL = time.Hour
	if g.DueAt != nil {
		msg.TTL = ttlUntil(*g.DueAt, now)
	}
	return outcome{msg: msg}, nil
}
