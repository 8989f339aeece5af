// Package notify sends the site's mail from the outbox: "your turn" (held
// back while the player is at the table, at most once per game in 12 hours,
// several games in one digest), reminders, "game over", "you were timed
// out", ranked matches, email verification and password resets.
//
// Rows are written to the outbox by the transaction that causes them; the
// worker here claims due rows with a lease (FOR UPDATE SKIP LOCKED), decides
// from the current state whether each is still worth sending, composes it,
// sends it and marks it. A worker that dies mid-way leaves its claim to run
// out, and another instance takes the rows over: nothing is lost. Each mail
// carries a Message-ID fixed by its outbox row.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"nothanks/internal/accounts"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/links"
	"nothanks/internal/views"
)

// Worker tuning.
const (
	Lease       = 2 * time.Minute // a claim's life: longer than any send
	MaxAttempts = 8
	TurnMailGap = 12 * time.Hour // at most one "your turn" per game in this time
	VerifyFor   = 72 * time.Hour
	ResetFor    = time.Hour
)

// Service composes and sends mail.
type Service struct {
	store  *db.Store
	games  *games.Service
	links  *links.Signer
	sender Sender
	base   *url.URL
	clock  clock.Clock
	log    *slog.Logger
}

// New returns the service.
func New(store *db.Store, g *games.Service, signer *links.Signer, sender Sender, base *url.URL, clk clock.Clock, log *slog.Logger) *Service {
	return &Service{store: store, games: g, links: signer, sender: sender, base: base, clock: clk, log: log}
}

// RunOutbox sends every due mail and returns how many mails went out.
func (s *Service) RunOutbox(ctx context.Context) (int, error) {
	sent := 0
	for ctx.Err() == nil {
		now := s.clock.Now()
		batch, err := s.store.ClaimMails(ctx, now, now.Add(Lease), 20)
		if err != nil {
			return sent, err
		}
		if len(batch) == 0 {
			return sent, nil
		}
		handled := map[int64]bool{}
		for _, m := range batch {
			if handled[m.ID] {
				continue
			}
			group := []db.Mail{m}
			if m.Kind == db.MailYourTurn {
				for _, o := range batch {
					if o.ID != m.ID && o.Kind == db.MailYourTurn && o.UserID == m.UserID {
						group = append(group, o)
					}
				}
			}
			for _, g := range group {
				handled[g.ID] = true
			}
			n, err := s.handle(ctx, group)
			if err != nil {
				return sent, err
			}
			sent += n
		}
	}
	return sent, ctx.Err()
}

func ids(ms []db.Mail) []int64 {
	out := make([]int64, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// handle decides, composes and sends one claimed mail (or a group of
// "your turn" rows of one user). Only database errors are returned; a
// failed send is retried later.
func (s *Service) handle(ctx context.Context, group []db.Mail) (int, error) {
	m := group[0]
	now := s.clock.Now()
	skip := func(ms []db.Mail, why string) (int, error) {
		return 0, s.store.MarkMails(ctx, ids(ms), "skipped", why, now)
	}
	r, err := s.store.Recipient(ctx, m.UserID)
	if errors.Is(err, db.ErrNotFound) && m.Kind == db.MailFairPlay {
		// A closed account is still told of the decision about it.
		r, err = s.store.ClosedRecipient(ctx, m.UserID)
	}
	if errors.Is(err, db.ErrNotFound) {
		return skip(group, "no such user")
	}
	if err != nil {
		return 0, err
	}
	if m.Kind != db.MailVerifyEmail && m.Kind != db.MailConfirmEmail && m.Kind != db.MailPasswordReset {
		if r.EmailVerifiedAt == nil {
			return skip(group, "email not verified")
		}
		if !wanted(r.MailSettings, m.Kind) {
			return skip(group, "turned off")
		}
	}
	var msg *Message
	var carried []db.Mail
	switch m.Kind {
	case db.MailYourTurn:
		msg, carried, err = s.yourTurn(ctx, r, group, now)
	case db.MailReminder:
		msg, err = s.reminder(ctx, r, m, now)
	case db.MailGameOver:
		msg, err = s.gameOver(ctx, r, m)
	case db.MailTimedOut:
		msg, err = s.timedOut(ctx, r, m)
	case db.MailRankedMatch:
		msg, err = s.rankedMatch(ctx, r, m)
	case db.MailInvite:
		msg, err = s.invite(ctx, r, m, now)
	case db.MailTournamentStart:
		msg, err = s.tournamentStart(ctx, r, m)
	case db.MailTournamentTable:
		msg, err = s.tournamentTable(ctx, r, m)
	case db.MailFairPlay:
		msg, err = s.fairPlay(ctx, r, m)
	case db.MailReportHandled:
		msg, err = s.reportHandled(ctx, r, m)
	case db.MailVerifyEmail:
		if r.EmailVerifiedAt != nil {
			return skip(group, "verified already")
		}
		msg, err = s.verifyEmail(r, now)
	case db.MailConfirmEmail:
		if r.PendingEmail == nil {
			return skip(group, "no new address waiting")
		}
		msg, err = s.confirmEmail(r, *r.PendingEmail, now)
	case db.MailPasswordReset:
		msg, err = s.passwordReset(ctx, r, m)
	default:
		return skip(group, "unknown kind")
	}
	if err != nil {
		return 0, err
	}
	if m.Kind != db.MailYourTurn {
		carried = group
	}
	if msg == nil {
		return 0, nil // the kind's handler marked the rows
	}
	if msg.To == "" {
		msg.To = r.Email
	}
	msg.MessageID = fmt.Sprintf("outbox-%d@%s", carried[0].ID, s.base.Hostname()) // the sender adds <>
	if err := s.sender.Send(ctx, *msg); err != nil {
		return 0, s.retry(ctx, carried, err, now)
	}
	return 1, s.store.MarkMails(ctx, ids(carried), "sent", "", s.clock.Now())
}

// retry puts mails back with a growing wait: 1, 2, 4 … minutes, giving up
// after MaxAttempts tries.
func (s *Service) retry(ctx context.Context, ms []db.Mail, sendErr error, now time.Time) error {
	s.log.Warn("mail not sent; will retry", "mails", ids(ms), "attempt", ms[0].Attempts, "err", sendErr)
	if ms[0].Attempts >= MaxAttempts {
		return s.store.MarkMails(ctx, ids(ms), "failed", sendErr.Error(), now)
	}
	wait := time.Minute << (ms[0].Attempts - 1)
	return s.store.RetryMails(ctx, ids(ms), now.Add(wait), sendErr.Error())
}

func wanted(m db.MailSettings, kind string) bool {
	switch kind {
	case db.MailYourTurn:
		return m.YourTurn
	case db.MailReminder:
		return m.Reminder
	case db.MailGameOver:
		return m.GameOver
	case db.MailTimedOut:
		return m.TimedOut
	case db.MailInvite:
		return m.Invite
	case db.MailTournamentStart, db.MailTournamentTable:
		return m.Tournament
	}
	return true
}

func onVacation(r db.Recipient, now time.Time) bool {
	return r.VacationUntil != nil && r.VacationUntil.After(now)
}

// digestTimes returns the last and next digest instants of a user.
func digestTimes(m db.MailSettings, now time.Time) (last, next time.Time) {
	loc, err := time.LoadLocation(m.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	l := now.In(loc)
	last = time.Date(l.Year(), l.Month(), l.Day(), m.DigestHour, 0, 0, 0, loc)
	if last.After(l) {
		last = last.AddDate(0, 0, -1)
	}
	return last, last.AddDate(0, 0, 1)
}

// PushGrace is how long a "your turn" mail waits after a push about the
// same decision reached one of the player's devices: the mail goes only
// if the player has not opened the game by then.
const PushGrace = 30 * time.Minute

// laterMail is a mail put off until at.
type laterMail struct {
	mail db.Mail
	at   time.Time
}

// waitingGame is a game a "your turn" mail may name.
type waitingGame struct {
	table *games.Table
	mail  db.Mail
	// unread counts the players' chat messages they have not read there.
	unread int
}

// MailedChat is how many of a game's unread chat messages a turn mail
// quotes (the newest).
const MailedChat = 5

// chatSince quotes, for a turn mail, what the other players wrote at the
// table since the player last looked: the newest MailedChat messages, and
// how many there are in all.
func (s *Service) chatSince(ctx context.Context, r db.Recipient, gameID int64) (string, []views.MailQuote, int, error) {
	ms, total, err := s.store.UnreadChat(ctx, r.ID, gameID, MailedChat)
	if err != nil || total == 0 {
		return "", nil, 0, err
	}
	heading := trn(r, "New in the players' chat since you last looked:", "New in the players' chat since you last looked ({{.Count}} messages, the last {{.Shown}} below):", total, "Shown", len(ms))
	qs := make([]views.MailQuote, len(ms))
	for i, m := range ms {
		author := m.Author
		if author == db.DeletedName {
			author = tr(r, db.DeletedName)
		}
		qs[i] = views.MailQuote{Author: author, Body: m.Body}
	}
	return heading, qs, total, nil
}

// yourTurn sends one mail for every game that waits for the player: a
// single game's mail with move links, or a digest of several.
func (s *Service) yourTurn(ctx context.Context, r db.Recipient, group []db.Mail, now time.Time) (*Message, []db.Mail, error) {
	more, err := s.store.ClaimPendingOfKind(ctx, r.ID, db.MailYourTurn, now.Add(Lease))
	if err != nil {
		return nil, nil, err
	}
	group = append(group, more...)
	if onVacation(r, now) {
		return nil, nil, s.store.MarkMails(ctx, ids(group), "skipped", "on vacation", now)
	}
	var send []waitingGame
	var skipped, postponed []db.Mail
	seen := map[int64]bool{}
	last, next := digestTimes(r.MailSettings, now)
	var notYet []db.Mail
	var later []laterMail
	for _, m := range group {
		// Claimed with a due one but not due itself: a turn this fresh may
		// be played at the table within the wait, so it is not mailed yet.
		if m.SendAfter.After(now) {
			notYet = append(notYet, m)
			continue
		}
		if m.GameID == nil || seen[*m.GameID] {
			skipped = append(skipped, m)
			continue
		}
		// Only the decision the mail was written for: once the player has
		// acted, a later turn has a mail of its own.
		t, err := s.games.Table(ctx, &r.ID, *m.GameID, "")
		if err != nil || t.Game.Status != db.StatusPlaying || t.Game.TurnUserID == nil || *t.Game.TurnUserID != r.ID ||
			(m.GameVersion != nil && *m.GameVersion != t.Game.Version) {
			skipped = append(skipped, m)
			continue
		}
		if open, err := s.store.HasOpenStream(ctx, r.ID, *m.GameID, now.Add(-time.Minute)); err != nil {
			return nil, nil, err
		} else if open {
			skipped = append(skipped, m)
			continue
		}
		// A push goes first: the mail waits PushGrace after it was
		// delivered, and is not sent if the player opened the game since.
		if m.GameVersion != nil {
			pushed, waiting, err := s.store.TurnPushes(ctx, r.ID, *m.GameID, *m.GameVersion)
			if err != nil {
				return nil, nil, err
			}
			switch {
			case waiting:
				later = append(later, laterMail{m, now.Add(time.Minute)})
				continue
			case pushed != nil && now.Before(pushed.Add(PushGrace)):
				later = append(later, laterMail{m, pushed.Add(PushGrace)})
				continue
			case pushed != nil:
				if opened, err := s.store.HasOpenStream(ctx, r.ID, *m.GameID, *pushed); err != nil {
					return nil, nil, err
				} else if opened {
					skipped = append(skipped, m)
					continue
				}
			}
		}
		if recent, err := s.store.SentTurnMailSince(ctx, r.ID, *m.GameID, now.Add(-TurnMailGap)); err != nil {
			return nil, nil, err
		} else if recent {
			skipped = append(skipped, m)
			continue
		}
		if r.TurnDigest && m.CreatedAt.After(last) {
			postponed = append(postponed, m)
			continue
		}
		seen[*m.GameID] = true
		send = append(send, waitingGame{table: t, mail: m})
	}
	if len(skipped) > 0 {
		if err := s.store.MarkMails(ctx, ids(skipped), "skipped", "not waiting, at the table, or mailed lately", now); err != nil {
			return nil, nil, err
		}
	}
	if len(notYet) > 0 {
		if err := s.store.ReleaseMails(ctx, ids(notYet)); err != nil {
			return nil, nil, err
		}
	}
	if len(postponed) > 0 {
		if err := s.store.PostponeMails(ctx, ids(postponed), next); err != nil {
			return nil, nil, err
		}
	}
	for _, l := range later {
		if err := s.store.PostponeMails(ctx, []int64{l.mail.ID}, l.at); err != nil {
			return nil, nil, err
		}
	}
	if len(send) == 0 {
		return nil, nil, nil
	}
	carried := make([]db.Mail, len(send))
	for i, w := range send {
		carried[i] = w.mail
	}
	if len(send) == 1 {
		t := send[0].table
		heading, said, _, err := s.chatSince(ctx, r, t.Game.ID)
		if err != nil {
			return nil, nil, err
		}
		return s.turnMail(r, t, db.MailYourTurn, tr(r, "Your turn in No Thanks! game #{{.ID}}", "ID", t.Game.ID), heading, said), carried, nil
	}
	for i := range send {
		_, _, n, err := s.chatSince(ctx, r, send[i].table.Game.ID)
		if err != nil {
			return nil, nil, err
		}
		send[i].unread = n
	}
	return s.digestMail(r, send), carried, nil
}

func (s *Service) url(path string) string { return s.base.String() + path }

func (s *Service) gameURL(id int64) string { return s.url(fmt.Sprintf("/games/%d", id)) }

// unsubscribeURL is the signed one-click link that turns off kind.
func (s *Service) unsubscribeURL(userID int64, kind string) string {
	return s.url("/unsubscribe?" + s.links.Sign("unsubscribe", url.Values{"u": {strconv.FormatInt(userID, 10)}, "k": {kind}}))
}

// MoveURL is the signed link that makes a move for a player once, on the
// version of the game the mail described, until the deadline.
func (s *Service) MoveURL(userID, gameID int64, version int, kind engine.ActionKind, until time.Time) string {
	return s.url("/m?" + s.links.Sign("move", url.Values{
		"u": {strconv.FormatInt(userID, 10)}, "g": {strconv.FormatInt(gameID, 10)},
		"v": {strconv.Itoa(version)}, "k": {string(kind)}, "exp": {strconv.FormatInt(until.Unix(), 10)},
	}))
}

// LocalTime writes a deadline in the recipient's zone and language (the
// pushes say times as the mail does).
func LocalTime(t time.Time, r db.Recipient) string { return localTime(t, r) }

// Situation describes the table for the player, as their mail and their
// pushes do: only what the player may see.
func Situation(r db.Recipient, t *games.Table) []string { return situation(r, t) }

// localTime writes a deadline in the recipient's zone and language.
func localTime(t time.Time, r db.Recipient) string {
	loc, err := time.LoadLocation(r.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	return i18n.DateTime(lang(r), t.In(loc))
}

// lang is the language of the recipient's mail.
func lang(r db.Recipient) i18n.Lang { return i18n.Or(r.Lang) }

// tr translates a message into the recipient's language.
func tr(r db.Recipient, id string, kv ...any) string { return i18n.In(lang(r), id, kv...) }

// trn translates a message with plural forms into the recipient's language.
func trn(r db.Recipient, one, other string, n int, kv ...any) string {
	return i18n.NIn(lang(r), one, other, n, kv...)
}

// situation describes the table for the player.
func situation(r db.Recipient, t *games.Table) []string {
	v := t.View
	lines := []string{tr(r, "Round {{.Round}} of {{.Rounds}}. The active card is {{.Card}} with {{.Tokens}} on it; {{.Deck}} left in the deck.",
		"Round", v.Round, "Rounds", v.Options.Rounds, "Card", v.ActiveCard, "Tokens", views.TokensIn(lang(r), v.Pot),
		"Deck", trn(r, "{{.Count}} card", "{{.Count}} cards", v.DeckLeft))}
	if t.ViewerSeat >= 0 {
		me := v.Seats[t.ViewerSeat]
		cards := tr(r, "no cards yet")
		if len(me.Runs) > 0 {
			var runs []string
			for _, run := range me.Runs {
				var cs []string
				for _, c := range run {
					cs = append(cs, strconv.Itoa(c))
				}
				runs = append(runs, strings.Join(cs, "-"))
			}
			cards = strings.Join(runs, ", ")
		}
		lines = append(lines, tr(r, "You hold {{.Tokens}} and {{.Cards}} ({{.Points}} card points).", "Tokens", views.TokensIn(lang(r), *me.Tokens), "Cards", cards, "Points", me.CardPoints))
	}
	return lines
}

// turnMail tells a player a game waits for them; kind and subject say
// whether it is the first notice or the reminder; said quotes the chat they
// have not read, under saidHeading.
func (s *Service) turnMail(r db.Recipient, t *games.Table, kind, subject, saidHeading string, said []views.MailQuote) *Message {
	g := t.Game
	v := mailView{
		Heading:     tr(r, "Your turn in game #{{.ID}}", "ID", g.ID),
		Lines:       append([]string{tr(r, "It is your turn against {{.Names}}.", "Names", strings.Join(others(r, t, r.ID), ", "))}, situation(r, t)...),
		SaidHeading: saidHeading,
		Said:        said,
	}
	if g.DueAt != nil {
		v.Lines = append(v.Lines, tr(r, "Decide by {{.Time}}; after that the server decides for you.", "Time", localTime(*g.DueAt, r)))
	}
	v.Actions = append(v.Actions, mailLink{tr(r, "Open the table"), s.gameURL(g.ID)})
	if g.DueAt != nil {
		for _, k := range t.View.Legal {
			label := map[engine.ActionKind]string{engine.Take: tr(r, "Take {{.Card}}", "Card", t.View.ActiveCard), engine.Pass: tr(r, "No thanks!")}[k]
			if label != "" {
				v.Actions = append(v.Actions, mailLink{label, s.MoveURL(r.ID, g.ID, g.Version, k, *g.DueAt)})
			}
		}
		v.Note = tr(r, "The Take and No thanks! links act once, for this position only; if the table has moved on they show you the table instead.")
	}
	return s.message(r, kind, subject, v)
}

func (s *Service) digestMail(r db.Recipient, ws []waitingGame) *Message {
	v := mailView{Heading: trn(r, "{{.Count}} game is waiting for you", "{{.Count}} games are waiting for you", len(ws))}
	for _, w := range ws {
		g := w.table.Game
		args := []any{"ID", g.ID, "Names", strings.Join(others(r, w.table, r.ID), ", "), "Card", w.table.View.ActiveCard, "Tokens", views.TokensIn(lang(r), w.table.View.Pot)}
		line := tr(r, "Game #{{.ID}} against {{.Names}}: {{.Card}} with {{.Tokens}} on it", args...)
		if g.DueAt != nil {
			line = tr(r, "Game #{{.ID}} against {{.Names}}: {{.Card}} with {{.Tokens}} on it, decide by {{.Time}}", append(args, "Time", localTime(*g.DueAt, r))...)
		}
		if w.unread > 0 {
			line += " · " + trn(r, "{{.Count}} new message", "{{.Count}} new messages", w.unread)
		}
		v.Items = append(v.Items, mailLink{line, s.gameURL(g.ID)})
	}
	v.Actions = append(v.Actions, mailLink{tr(r, "See all my games"), s.url("/my/games")})
	return s.message(r, db.MailYourTurn, trn(r, "{{.Count}} No Thanks! game is waiting for you", "{{.Count}} No Thanks! games are waiting for you", len(ws)), v)
}

func others(r db.Recipient, t *games.Table, me int64) []string {
	var out []string
	for _, st := range t.Seats {
		if st.UserID == nil || *st.UserID != me {
			out = append(out, AccountName(r, games.Name(st), st.BotAccount))
		}
	}
	return out
}

// seatName is a seat's name in the recipient's language (a bot's level, a
// deleted account).
func seatName(r db.Recipient, name string) string {
	return views.PlayerName(i18n.With(context.Background(), lang(r)), name)
}

// SeatName is a seat's name as the recipient reads it (a bot's and a
// deleted player's in their language), in mail and in pushes.
func SeatName(r db.Recipient, name string) string { return seatName(r, name) }

// AccountName is SeatName marked "(bot)" for a bot account (docs/bots.md),
// in mail and in pushes.
func AccountName(r db.Recipient, name string, botAccount bool) string {
	if botAccount {
		return tr(r, "{{.Name}} (bot)", "Name", seatName(r, name))
	}
	return seatName(r, name)
}

// Placings lists a finished table's places, first to last, in the
// recipient's language ("1st: Ann, 12 points"), in mail and in pushes.
func Placings(r db.Recipient, t *games.Table) []string {
	names := t.SeatNames()
	var lines []string
	for place := 1; place <= len(names); place++ {
		for i := range names {
			if t.View.Placings[i] == place {
				lines = append(lines, trn(r, "{{.Place}}: {{.Name}}, {{.Count}} point", "{{.Place}}: {{.Name}}, {{.Count}} points", t.View.Totals[i], "Place", views.OrdinalIn(lang(r), place), "Name", AccountName(r, names[i], t.Seats[i].BotAccount)))
			}
		}
	}
	return lines
}

func (s *Service) reminder(ctx context.Context, r db.Recipient, m db.Mail, now time.Time) (*Message, error) {
	skip := func(why string) (*Message, error) {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", why, now)
	}
	t, err := s.games.Table(ctx, &r.ID, *m.GameID, "")
	if err != nil || t.Game.Status != db.StatusPlaying || m.GameVersion == nil || t.Game.Version != *m.GameVersion ||
		t.Game.TurnUserID == nil || *t.Game.TurnUserID != r.ID || t.Game.DueAt == nil {
		return skip("decided already")
	}
	// The reminder follows the deadline: one that moved later (a vacation)
	// puts the reminder off with it.
	if at := games.ReminderAt(*t.Game.DueAt, t.Game.TurnSeconds); at.After(now.Add(time.Minute)) {
		return nil, s.store.PostponeMails(ctx, []int64{m.ID}, at)
	}
	if onVacation(r, now) {
		return skip("on vacation")
	}
	if open, err := s.store.HasOpenStream(ctx, r.ID, t.Game.ID, now.Add(-time.Minute)); err != nil {
		return nil, err
	} else if open {
		return skip("at the table")
	}
	subject := tr(r, "Reminder: your turn in No Thanks! game #{{.ID}} ends {{.Time}}", "ID", t.Game.ID, "Time", localTime(*t.Game.DueAt, r))
	heading, said, _, err := s.chatSince(ctx, r, t.Game.ID)
	if err != nil {
		return nil, err
	}
	return s.turnMail(r, t, db.MailReminder, subject, heading, said), nil
}

func (s *Service) gameOver(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	t, err := s.games.Table(ctx, &r.ID, *m.GameID, "")
	if err != nil {
		return nil, err
	}
	v := mailView{Heading: tr(r, "Game #{{.ID}} is over", "ID", t.Game.ID)}
	if t.View != nil && t.View.Finished {
		v.Lines = Placings(r, t)
	}
	v.Actions = []mailLink{{tr(r, "See the final table"), s.gameURL(t.Game.ID)}, {tr(r, "Replay it"), s.url(fmt.Sprintf("/games/%d/replay", t.Game.ID))}}
	return s.message(r, db.MailGameOver, tr(r, "No Thanks! game #{{.ID}} is over", "ID", t.Game.ID), v), nil
}

func (s *Service) timedOut(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	v := mailView{
		Heading: tr(r, "Your time ran out in game #{{.ID}}", "ID", *m.GameID),
		Lines: []string{
			tr(r, "You did not decide in time, so the server decided for you, as a careful player would."),
			tr(r, "After {{.Count}} timeouts in one game a bot plays your seat to the end, and in a ranked game you place last.", "Count", games.MaxTimeouts),
		},
		Actions: []mailLink{{tr(r, "Back to the table"), s.gameURL(*m.GameID)}},
	}
	return s.message(r, db.MailTimedOut, tr(r, "Your time ran out in No Thanks! game #{{.ID}}", "ID", *m.GameID), v), nil
}

func (s *Service) rankedMatch(_ context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	v := mailView{
		Heading: tr(r, "Your ranked game is ready"),
		Lines:   []string{tr(r, "The ranked queue found you a table: game #{{.ID}}.", "ID", *m.GameID)},
		Actions: []mailLink{{tr(r, "Go to the game"), s.gameURL(*m.GameID)}},
	}
	return s.message(r, "", tr(r, "Your ranked No Thanks! game #{{.ID}} is ready", "ID", *m.GameID), v), nil
}

// invite tells a player someone invited them to a correspondence table.
// invite mails an invitation that still waits for an answer, naming who
// sent it; one answered, expired or whose table started is not mailed.
func (s *Service) invite(ctx context.Context, r db.Recipient, m db.Mail, now time.Time) (*Message, error) {
	inv, err := s.store.OpenInviteTo(ctx, r.ID, *m.GameID, now)
	if err != nil {
		return nil, err
	}
	if inv == nil {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "no longer waiting", now)
	}
	v := mailView{
		Heading: tr(r, "You are invited to a game"),
		Lines:   []string{tr(r, "Hello {{.Name}}. {{.From}} invites you to their correspondence table, game #{{.ID}}.", "Name", r.Username, "From", AccountName(r, inv.FromName, inv.FromBot), "ID", *m.GameID), tr(r, "Accept or decline it at the table; the invitation stands for three days.")},
		Actions: []mailLink{{tr(r, "Open the table"), s.url(inv.TablePath())}},
	}
	return s.message(r, db.MailInvite, tr(r, "An invitation to No Thanks! game #{{.ID}}", "ID", *m.GameID), v), nil
}

// tournamentStart tells a player that an event they joined has started:
// at once for a correspondence event, and for a live one only when they
// have not been on the site since it started.
func (s *Service) tournamentStart(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	now := s.clock.Now()
	skip := func(why string) (*Message, error) {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", why, now)
	}
	t, err := s.store.Tournament(ctx, *m.TournamentID)
	if err != nil {
		return nil, err
	}
	if t.Status != db.TournamentRunning {
		return skip("not running")
	}
	if t.Pace != games.Correspondence && t.StartedAt != nil {
		seen, err := s.store.SeenSince(ctx, r.ID, *t.StartedAt)
		if err != nil {
			return nil, err
		}
		if seen {
			return skip("on the site since the start")
		}
	}
	link := s.url(fmt.Sprintf("/tournaments/%d", t.ID))
	lines := []string{tr(r, "Hello {{.Name}}. The tournament {{.Tournament}} you joined has started.", "Name", r.Username, "Tournament", t.Name)}
	if t.Pace == games.Correspondence {
		lines = append(lines, tr(r, "Your first table is ready; each round's table comes by mail too."))
	} else {
		lines = append(lines, tr(r, "Open its page to be seated: players who are there are seated as soon as others are free."))
	}
	v := mailView{Heading: tr(r, "Your tournament has started"), Lines: lines, Actions: []mailLink{{tr(r, "Go to the tournament"), link}}}
	return s.message(r, db.MailTournamentStart, tr(r, "The No Thanks! tournament {{.Tournament}} has started", "Tournament", t.Name), v), nil
}

// tournamentTable tells a correspondence event's player their table of a
// round is ready, unless the game is over or they have it open already.
func (s *Service) tournamentTable(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	now := s.clock.Now()
	skip := func(why string) (*Message, error) {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", why, now)
	}
	t, err := s.store.Tournament(ctx, *m.TournamentID)
	if err != nil {
		return nil, err
	}
	g, err := s.store.Game(ctx, *m.GameID)
	if err != nil {
		return nil, err
	}
	if g.Status != db.StatusPlaying {
		return skip("game over")
	}
	if open, err := s.store.HasOpenStream(ctx, r.ID, g.ID, m.CreatedAt); err != nil {
		return nil, err
	} else if open {
		return skip("at the table")
	}
	v := mailView{
		Heading: tr(r, "Your table is ready"),
		Lines: []string{
			tr(r, "Hello {{.Name}}. Round {{.Round}} of the tournament {{.Tournament}} has begun: your table is game #{{.ID}}.", "Name", r.Username, "Round", t.Round, "Tournament", t.Name, "ID", g.ID),
			tr(r, "Each decision has {{.Time}}; when it runs out, the server moves for you.", "Time", i18n.Duration(lang(r), time.Duration(g.TurnSeconds)*time.Second)),
		},
		Actions: []mailLink{{tr(r, "Go to your table"), s.gameURL(g.ID)}, {tr(r, "See the standings"), s.url(fmt.Sprintf("/tournaments/%d", t.ID))}},
	}
	return s.message(r, db.MailTournamentTable, tr(r, "Your table in {{.Tournament}} is ready: game #{{.ID}}", "Tournament", t.Name, "ID", g.ID), v), nil
}

// VerifyURL is the signed link that verifies an address for a user.
func (s *Service) VerifyURL(userID int64, email string, now time.Time) string {
	return s.url("/verify-email?" + s.links.Sign("verify", url.Values{
		"u": {strconv.FormatInt(userID, 10)}, "e": {email}, "exp": {strconv.FormatInt(now.Add(VerifyFor).Unix(), 10)},
	}))
}

func (s *Service) verifyEmail(r db.Recipient, now time.Time) (*Message, error) {
	v := mailView{
		Heading: tr(r, "Confirm your email address"),
		Lines:   []string{tr(r, "Hello {{.Name}}. Confirm that this address is yours, and we will tell you here when it is your turn.", "Name", r.Username), tr(r, "The link works for 3 days.")},
		Actions: []mailLink{{tr(r, "Confirm {{.Email}}", "Email", r.Email), s.VerifyURL(r.ID, r.Email, now)}},
		Note:    tr(r, "If you did not create an account on No Thanks!, ignore this mail."),
	}
	m := s.message(r, "", tr(r, "Confirm your email for No Thanks!"), v)
	return m, nil
}

// confirmEmail is the mail to a new address, asking its owner to confirm
// it before it replaces the account's address.
func (s *Service) confirmEmail(r db.Recipient, email string, now time.Time) (*Message, error) {
	v := mailView{
		Heading: tr(r, "Confirm your new email address"),
		Lines: []string{
			tr(r, "Hello {{.Name}}. You asked to use this address for your No Thanks! account instead of {{.Email}}.", "Name", r.Username, "Email", r.Email),
			tr(r, "Until you confirm it, mail keeps going to the old address. The link works for 3 days."),
		},
		Actions: []mailLink{{tr(r, "Confirm {{.Email}}", "Email", email), s.VerifyURL(r.ID, email, now)}},
		Note:    tr(r, "If you did not ask for this, ignore this mail: nothing changes."),
	}
	m := s.message(r, "", tr(r, "Confirm your new email for No Thanks!"), v)
	m.To = email
	return m, nil
}

// ResetURL is the signed link of a password reset; it names the reset row
// (used once) and the current password hash, so it dies with a new password.
func (s *Service) ResetURL(resetID int64, r db.Recipient, expires time.Time) string {
	return s.url("/reset?" + s.links.Sign("reset", url.Values{
		"r": {strconv.FormatInt(resetID, 10)}, "u": {strconv.FormatInt(r.ID, 10)},
		"h": {accounts.ResetTag(r.PasswordHash)}, "exp": {strconv.FormatInt(expires.Unix(), 10)},
	}))
}

func (s *Service) passwordReset(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	now := s.clock.Now()
	if m.ResetID == nil {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "no reset", now)
	}
	reset, err := s.store.PasswordReset(ctx, *m.ResetID)
	if err != nil || reset.UsedAt != nil || !reset.ExpiresAt.After(now) {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "reset used or expired", now)
	}
	v := mailView{
		Heading: tr(r, "Choose a new password"),
		Lines:   []string{tr(r, "Hello {{.Name}}. Someone, hopefully you, asked to reset your password.", "Name", r.Username), tr(r, "The link works once, for one hour.")},
		Actions: []mailLink{{tr(r, "Choose a new password"), s.ResetURL(reset.ID, r, reset.ExpiresAt)}},
		Note:    tr(r, "If you did not ask for this, ignore this mail: your password stays as it is."),
	}
	return s.message(r, "", tr(r, "Reset your No Thanks! password"), v), nil
}

// FairPlaySubject and FairPlayLine say what a fair-play decision about
// the reader is now (as decided, undone, or answered on appeal), for
// mails and pushes.
func FairPlaySubject(r db.Recipient, d db.FairDecision) string {
	switch {
	case d.Answer != nil:
		return tr(r, "Your fair-play appeal is answered")
	case d.UndoneAt != nil:
		return tr(r, "A fair-play decision about you was undone")
	}
	switch d.Action {
	case "warn":
		return tr(r, "A fair-play warning from the moderators")
	case "mark":
		return tr(r, "Your account is marked for unfair play")
	case "close":
		return tr(r, "Your account was closed as a second account")
	}
	return tr(r, "Rating points of one of your games were given back to the other players")
}

// FairPlayLine is the decision's reason or the appeal's answer.
func FairPlayLine(r db.Recipient, d db.FairDecision) string {
	switch {
	case d.Answer != nil && *d.Answer == "overturned":
		return tr(r, "Your appeal was accepted and the decision overturned.") + " " + deref(d.AnswerNote)
	case d.Answer != nil:
		return tr(r, "Another moderator read your appeal and the decision stands.") + " " + deref(d.AnswerNote)
	case d.UndoneAt != nil:
		return tr(r, "It no longer holds.") + " " + deref(d.UndoReason)
	}
	return tr(r, "The moderators' reason: {{.Reason}}", "Reason", d.Reason)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ReportHandledLine says how a report of the reader's ended.
func ReportHandledLine(r db.Recipient, rep db.PlayerReport) string {
	switch deref(rep.Outcome) {
	case "dismissed":
		return tr(r, "The moderators looked at your report of {{.Name}} and found no unfair play.", "Name", rep.TargetName)
	case "warned":
		return tr(r, "The moderators looked at your report of {{.Name}} and warned the player.", "Name", rep.TargetName)
	case "marked":
		return tr(r, "The moderators looked at your report of {{.Name}}: the player is marked for unfair play, and the points others lost to them are given back.", "Name", rep.TargetName)
	case "closed":
		return tr(r, "The moderators looked at your report of {{.Name}} and closed the account.", "Name", rep.TargetName)
	}
	return tr(r, "The moderators looked at your report of {{.Name}}.", "Name", rep.TargetName)
}

// fairPlay mails a decision about the reader as it stands now.
func (s *Service) fairPlay(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	if m.FairplayID == nil {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "no decision", s.clock.Now())
	}
	d, err := s.store.DecisionByID(ctx, *m.FairplayID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "no such decision", s.clock.Now())
	}
	if err != nil {
		return nil, err
	}
	lines := []string{FairPlayLine(r, d)}
	switch {
	case d.Answer != nil || d.UndoneAt != nil || d.AppealedAt != nil:
	case r.Disabled:
		lines = append(lines, tr(r, "You may appeal it once: log in with this account's password, which opens its fair-play page; another moderator judges the appeal."))
	default:
		lines = append(lines, tr(r, "You may appeal it once, on your fair-play page; another moderator judges the appeal."))
	}
	page := mailLink{tr(r, "Your fair-play page"), s.url("/my/fairplay")}
	if r.Disabled {
		// A closed account reads it (and appeals) by logging in.
		page = mailLink{tr(r, "Log in to read it"), s.url("/login")}
	}
	v := mailView{Heading: FairPlaySubject(r, d), Lines: lines, Actions: []mailLink{page}}
	return s.message(r, "", FairPlaySubject(r, d), v), nil
}

// reportHandled tells a reporter how their report ended.
func (s *Service) reportHandled(ctx context.Context, r db.Recipient, m db.Mail) (*Message, error) {
	if m.FairplayID == nil {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "no report", s.clock.Now())
	}
	rep, err := s.store.ReportByID(ctx, *m.FairplayID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, s.store.MarkMails(ctx, []int64{m.ID}, "skipped", "no such report", s.clock.Now())
	}
	if err != nil {
		return nil, err
	}
	v := mailView{Heading: tr(r, "Your report was handled"), Lines: []string{ReportHandledLine(r, rep), tr(r, "Thank you for helping keep the tables fair.")},
		Actions: []mailLink{{tr(r, "Your fair-play page"), s.url("/my/fairplay")}}}
	return s.message(r, "", tr(r, "Your No Thanks! report was handled"), v), nil
}
