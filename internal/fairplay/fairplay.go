// Package fairplay is what the site does about unfair play at a rated
// multiplayer table (docs/fair-play.md): the signals of collusion for
// every pair of accounts that met in rated games, worked out in the
// background after each finished rated game (claimed from Postgres, once
// however many instances run) from the rating changes, the seating pools
// and the analysis search's judgement of each decision; accounts linked
// by a shared device or network; members' reports of a player; the
// moderators' cases, strongest first, with their evidence; decisions
// (dismiss, warn, mark for unfair play with its refunds, close a second
// account), each in the moderation log and undoable; and the player's
// appeal, judged by another moderator. The score itself is signals.go,
// the refund refund.go; neither knows of SQL.
package fairplay

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/rating"
)

// Service is fair play's use cases.
type Service struct {
	store   *db.Store
	clock   clock.Clock
	log     *slog.Logger
	linkKey []byte
	forget  func(tokenHash string)
	events  Events
}

// Events are the rated events a mark disqualifies a player from
// (tournaments.Service): inside the decision's transaction, Disqualify
// takes the player out of the rated events they played since since and
// scores them again; Requalify, when the mark is undone or overturned,
// puts them back.
type Events interface {
	Disqualify(ctx context.Context, tx *db.Tx, userID, decisionID int64, since time.Time) error
	Requalify(ctx context.Context, tx *db.Tx, decisionID int64) error
}

// SetEvents gives the service the events a mark disqualifies from.
func (s *Service) SetEvents(e Events) { s.events = e }

// marked and unmarked are the decision's effects on rated events.
func (s *Service) marked(ctx context.Context, userID int64, now time.Time) func(*db.Tx, int64) error {
	if s.events == nil {
		return nil
	}
	return func(tx *db.Tx, decisionID int64) error {
		return s.events.Disqualify(ctx, tx, userID, decisionID, now.AddDate(0, 0, -RefundWindowDays))
	}
}

func (s *Service) unmarked(ctx context.Context) func(*db.Tx, int64) error {
	if s.events == nil {
		return nil
	}
	return func(tx *db.Tx, decisionID int64) error { return s.events.Requalify(ctx, tx, decisionID) }
}

// New returns the service and makes the games service ask it before
// seating a person in rated play (a marked account may not). linkKey
// keys the hashes of devices and networks; forget drops a revoked API
// token from this instance's cache.
func New(store *db.Store, g *games.Service, clk clock.Clock, log *slog.Logger, linkKey []byte, forget func(string)) *Service {
	s := &Service{store: store, clock: clk, log: log, linkKey: linkKey, forget: forget}
	g.OnRatedSeat(s.gate)
	return s
}

// ErrMarked refuses rated play to an account marked for unfair play.
var ErrMarked = apperr.E(apperr.Forbidden, "Your account is marked for unfair play, so it cannot play rated games. See Fair play in your settings to read the decision and appeal it.")

func (s *Service) gate(ctx context.Context, tx *db.Tx, userID int64) error {
	marked, err := tx.IsMarked(ctx, userID)
	if err != nil {
		return err
	}
	if marked {
		return ErrMarked
	}
	return nil
}

// CheckRated refuses rated play (the queue, a rated event) to a marked
// account.
func (s *Service) CheckRated(_ context.Context, u db.User) error {
	if u.MarkedAt != nil {
		return ErrMarked
	}
	return nil
}

// The worker's lease and patience: a job waits for its game's analysis
// up to AnalysisWait, then goes without it.
const (
	Lease        = 2 * time.Minute
	AnalysisWait = time.Hour
	MaxAttempts  = 5
	// LinkRetention is how long a device or network is kept after it was
	// last seen.
	LinkRetention = 90 * 24 * time.Hour
)

// RunOnce works out the signals of the games waiting, one at a time,
// until none is ready or ctx ends, and returns how many it did.
func (s *Service) RunOnce(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		id, ok, err := s.store.ClaimFairplayJob(ctx, s.clock.Now(), Lease, AnalysisWait, MaxAttempts)
		if err != nil || !ok {
			return n, err
		}
		if err := s.Process(ctx, id); err != nil {
			s.log.Warn("fair-play signals failed", "game", id, "err", err)
			if ferr := s.store.FailFairplayJob(ctx, id, err.Error()); ferr != nil {
				return n, ferr
			}
			continue
		}
		n++
	}
	return n, ctx.Err()
}

// Run works out waiting signals every period, and forgets old devices and
// networks, until ctx ends.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	lastSweep := time.Time{}
	for {
		if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("fair-play worker", "err", err)
		}
		if now := s.clock.Now(); now.Sub(lastSweep) > time.Hour {
			if err := s.store.ForgetLinks(ctx, now.Add(-LinkRetention)); err != nil && ctx.Err() == nil {
				s.log.Warn("forget old devices", "err", err)
			}
			lastSweep = now
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Facts turns a stored game into the signals' facts.
func Facts(g db.FairGame) (GameFacts, error) {
	f := GameFacts{GameID: g.ID, Players: g.Players}
	for _, st := range g.Seats {
		f.Seats = append(f.Seats, SeatFacts{UserID: st.UserID, Seat: st.Seat, Before: st.Before, Games: st.Games, Place: st.Place})
	}
	if len(g.Decisions) > 0 && string(g.Decisions) != "null" {
		if err := json.Unmarshal(g.Decisions, &f.Decisions); err != nil {
			return f, fmt.Errorf("fairplay: read the analysis of game %d: %w", g.ID, err)
		}
	}
	return f, nil
}

// Process adds one finished rated game's signals: each pair's figures
// from it, each pair's sums and score again, and a case for a pair whose
// score crosses the threshold, in one transaction that also ends the job
// (a second worker's copy rolls back).
func (s *Service) Process(ctx context.Context, gameID int64) error {
	g, err := s.store.FairGameOf(ctx, gameID)
	if err != nil {
		return err
	}
	f, err := Facts(g)
	if err != nil {
		return err
	}
	pairs := Pairs(f)
	now := s.clock.Now()
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		ok, err := tx.FinishFairplayJob(ctx, gameID, now)
		if err != nil || !ok {
			return err
		}
		rows := make([]db.PairGameRow, len(pairs))
		for i, p := range pairs {
			rows[i] = rowOf(p)
		}
		if err := tx.AddPairGames(ctx, rows, now); err != nil {
			return err
		}
		for _, p := range pairs {
			sum, err := tx.SumPair(ctx, p.A, p.B)
			if err != nil {
				return err
			}
			figs := FiguresOf(sum)
			sum.Score = figs.Score().Total
			if err := tx.SavePairSignal(ctx, sum, now); err != nil {
				return err
			}
			if figs.Opens() {
				if _, err := tx.OpenSignalCase(ctx, p.A, p.B, sum.Score, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// rowOf is a pair's figures from one game as they are stored.
func rowOf(p PairGame) db.PairGameRow {
	return db.PairGameRow{UserA: p.A, UserB: p.B, GameID: p.GameID, FromRest: p.FromRest, FromRestVar: p.FromRestVar,
		BFromA: p.BFromA, AFromB: p.AFromB, FeedAB: p.FeedAB, FeedABSq: p.FeedABSq, FeedsAB: p.FeedsAB, JudgedA: p.JudgedA,
		FeedBA: p.FeedBA, FeedBASq: p.FeedBASq, FeedsBA: p.FeedsBA, JudgedB: p.JudgedB}
}

// FiguresOf turns a stored pair into the score's figures.
func FiguresOf(p db.PairSignal) Figures {
	return Figures{Games: p.Games, Expected: p.Expected, FromRest: p.FromRest, FromRestVar: p.FromRestVar,
		BFromA: p.BFromA, AFromB: p.AFromB, FeedAB: p.FeedAB, FeedABSq: p.FeedABSq, FeedsAB: p.FeedsAB, JudgedA: p.JudgedA,
		FeedBA: p.FeedBA, FeedBASq: p.FeedBASq, FeedsBA: p.FeedsBA, JudgedB: p.JudgedB, Device: p.Device, Network: p.Network}
}

// Seen records the device and network an account logs in from: the
// device by its random cookie, the network by the address's /24 (IPv4)
// or /48 (IPv6), each kept only as a keyed hash.
func (s *Service) Seen(ctx context.Context, userID int64, device, addr string) error {
	now := s.clock.Now()
	if device != "" {
		if err := s.store.SeeAccount(ctx, userID, "device", s.hash("device", device), now); err != nil {
			return err
		}
	}
	if n := networkOf(addr); n != "" {
		if err := s.store.SeeAccount(ctx, userID, "network", s.hash("network", n), now); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) hash(kind, v string) []byte {
	m := hmac.New(sha256.New, s.linkKey)
	m.Write([]byte(kind + "\x00" + v))
	return m.Sum(nil)
}

// networkOf is an address's network: its /24 for IPv4, /48 for IPv6 (""
// for none or a loopback address).
func networkOf(addr string) string {
	ip := net.ParseIP(addr)
	if ip == nil || ip.IsLoopback() {
		return ""
	}
	if v4 := ip.To4(); v4 != nil {
		return v4.Mask(net.CIDRMask(24, 32)).String() + "/24"
	}
	return ip.Mask(net.CIDRMask(48, 128)).String() + "/48"
}

// Reasons a player can be reported for.
var Reasons = []string{"feeding", "second_account", "leaving", "abuse"}

// Report limits: at most ReportsPerHour and ReportsPerDay by one member;
// each distinct reporter adds ReportWeight to the case's score.
const (
	ReportsPerHour = 5
	ReportsPerDay  = 20
	ReportWeight   = 2.0
	MaxText        = 2000
)

// ReportInput is a report as a member files it.
type ReportInput struct {
	Target string `form:"target" json:"player"`
	GameID int64  `form:"game" json:"game_id"`
	Reason string `form:"reason" json:"reason"`
	Note   string `form:"note" json:"note"`
}

// Report files a member's report of a player, about a game they played
// together when one is named. It refuses reporting oneself, an unknown
// reason, a game the two did not share, a second open report of the same
// player and more than the limits allow.
func (s *Service) Report(ctx context.Context, reporter db.User, in ReportInput) (int64, error) {
	if reporter.Guest || !reporter.Active() {
		return 0, apperr.E(apperr.Forbidden, "Only members can report a player.")
	}
	fe := apperr.FieldErrors{}
	in.Note = strings.TrimSpace(in.Note)
	if !slices.Contains(Reasons, in.Reason) {
		fe.Add("reason", "Choose what the report is about.")
	}
	if utf8.RuneCountInString(in.Note) > MaxText {
		fe.Add("note", "Keep it under 2,000 characters.")
	}
	if err := fe.Err(); err != nil {
		return 0, err
	}
	target, err := s.store.UserByName(ctx, strings.TrimSpace(in.Target))
	if errors.Is(err, db.ErrNotFound) || (err == nil && (target.DeletedAt != nil || target.Guest)) {
		return 0, apperr.E(apperr.NotFound, "There is no player called %s.", in.Target)
	}
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not load the player")
	}
	if target.ID == reporter.ID {
		return 0, apperr.E(apperr.Invalid, "You cannot report yourself.")
	}
	var gameID *int64
	if in.GameID != 0 {
		both, err := s.store.BothSeated(ctx, in.GameID, reporter.ID, target.ID)
		if err != nil {
			return 0, apperr.Wrap(err, apperr.Internal, "could not read the game")
		}
		if !both {
			return 0, apperr.E(apperr.Invalid, "You can report a player about a game only if you both played in it.")
		}
		gameID = &in.GameID
	}
	now := s.clock.Now()
	for _, l := range []struct {
		n     int
		since time.Duration
		msg   string
	}{{ReportsPerHour, time.Hour, "You have sent %d reports in the last hour; please wait before sending more."}, {ReportsPerDay, 24 * time.Hour, "You have sent %d reports today; please wait before sending more."}} {
		n, err := s.store.ReportsSince(ctx, reporter.ID, now.Add(-l.since))
		if err != nil {
			return 0, apperr.Wrap(err, apperr.Internal, "could not count your reports")
		}
		if n >= l.n {
			return 0, apperr.E(apperr.TooMany, l.msg, n)
		}
	}
	id, err := s.store.FileReport(ctx, db.PlayerReport{ReporterID: reporter.ID, TargetID: target.ID, GameID: gameID, Reason: in.Reason, Note: in.Note}, ReportWeight, now)
	if errors.Is(err, db.ErrDuplicate) {
		return 0, apperr.E(apperr.Conflict, "You have reported %s already; the moderators have not finished with that report yet.", target.Username)
	}
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not file the report")
	}
	return id, nil
}

// ErrNotAdmin answers anyone but a moderator.
var ErrNotAdmin = apperr.E(apperr.Forbidden, "Only moderators may do that.")

func check(admin db.User) error {
	if !admin.Admin || !admin.Active() {
		return ErrNotAdmin
	}
	return nil
}

// Queue is the moderators' queue: the open cases, strongest first, and
// the appeals waiting for an answer.
type Queue struct {
	Cases   []db.FairCase
	Appeals []db.FairDecision
}

// Queue lists the open cases and pending appeals.
func (s *Service) Queue(ctx context.Context, admin db.User) (Queue, error) {
	if err := check(admin); err != nil {
		return Queue{}, err
	}
	cs, err := s.store.OpenCases(ctx, 200)
	if err != nil {
		return Queue{}, apperr.Wrap(err, apperr.Internal, "could not read the cases")
	}
	as, err := s.store.PendingAppeals(ctx, 200)
	if err != nil {
		return Queue{}, apperr.Wrap(err, apperr.Internal, "could not read the appeals")
	}
	return Queue{Cases: cs, Appeals: as}, nil
}

// PairView is a pair's figures with its score's parts.
type PairView struct {
	Signal db.PairSignal
	Score  Score
	Games  []db.PairGameEvidence
	// A and B are each account's accuracy, as the analysis judged it, in
	// rated games with the other and in its other rated games.
	A, B db.PlayWith
}

// CaseView is a case with its evidence.
type CaseView struct {
	Case      db.FairCase
	Reports   []db.PlayerReport
	Decisions []db.FairDecision
	// Pairs are the pair of a signal's case, or the strongest pairs of the
	// account a report is about.
	Pairs []PairView
	// Linked are the accounts sharing a device or network with the case's
	// account (and, for a pair, its partner).
	Linked, PartnerLinked []db.LinkedAccount
	// Accounts are the accounts a decision can be about.
	Accounts []db.User
	// Self: the moderator is one of the case's accounts (they may read but
	// not act).
	Self bool
}

// EvidenceGames is how many games of a pair a case page lists.
const EvidenceGames = 50

// Case loads a case and its evidence. Only finished games are evidence,
// so nothing of a game in play (its hidden tokens) can show.
func (s *Service) Case(ctx context.Context, admin db.User, id int64) (CaseView, error) {
	if err := check(admin); err != nil {
		return CaseView{}, err
	}
	c, err := s.store.CaseByID(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return CaseView{}, apperr.E(apperr.NotFound, "There is no such case.")
	}
	if err != nil {
		return CaseView{}, apperr.Wrap(err, apperr.Internal, "could not read the case")
	}
	v := CaseView{Case: c, Self: c.UserID == admin.ID || (c.PartnerID != nil && *c.PartnerID == admin.ID)}
	fail := func(err error) (CaseView, error) {
		return CaseView{}, apperr.Wrap(err, apperr.Internal, "could not read the case")
	}
	if v.Reports, err = s.store.ReportsOfCase(ctx, id); err != nil {
		return fail(err)
	}
	if v.Decisions, err = s.store.DecisionsOfCase(ctx, id); err != nil {
		return fail(err)
	}
	var signals []db.PairSignal
	if c.PartnerID != nil {
		p, err := s.store.PairSignalOf(ctx, c.UserID, *c.PartnerID)
		if err != nil && !errors.Is(err, db.ErrNotFound) {
			return fail(err)
		}
		if err == nil {
			signals = append(signals, p)
		}
	} else if signals, err = s.store.StrongestPairs(ctx, c.UserID, 5); err != nil {
		return fail(err)
	}
	for _, p := range signals {
		gs, err := s.store.PairGamesOf(ctx, p.UserA, p.UserB, EvidenceGames)
		if err != nil {
			return fail(err)
		}
		play, err := s.store.PlayWithAndWithout(ctx, p.UserA, p.UserB)
		if err != nil {
			return fail(err)
		}
		v.Pairs = append(v.Pairs, PairView{Signal: p, Score: FiguresOf(p).Score(), Games: gs, A: play[p.UserA], B: play[p.UserB]})
	}
	if v.Linked, err = s.store.LinkedAccounts(ctx, c.UserID); err != nil {
		return fail(err)
	}
	u, err := s.store.UserByID(ctx, c.UserID)
	if err != nil {
		return fail(err)
	}
	v.Accounts = append(v.Accounts, u)
	if c.PartnerID != nil {
		if v.PartnerLinked, err = s.store.LinkedAccounts(ctx, *c.PartnerID); err != nil {
			return fail(err)
		}
		p, err := s.store.UserByID(ctx, *c.PartnerID)
		if err != nil {
			return fail(err)
		}
		v.Accounts = append(v.Accounts, p)
	}
	return v, nil
}

// Actions a moderator can decide.
var Actions = []string{"dismiss", "warn", "mark", "close"}

// DecideInput is a moderator's decision on a case.
type DecideInput struct {
	Account string `form:"account" json:"account"`
	Action  string `form:"action" json:"action"`
	Reason  string `form:"reason" json:"reason"`
	// Close closes the case with the decision (a dismissal always does).
	Close bool `form:"close" json:"close"`
}

// caseFor loads an open case a moderator may act on, and the account an
// action names (one of the case's).
func (s *Service) caseFor(ctx context.Context, admin db.User, caseID int64, account string) (db.FairCase, db.User, error) {
	if err := check(admin); err != nil {
		return db.FairCase{}, db.User{}, err
	}
	c, err := s.store.CaseByID(ctx, caseID)
	if errors.Is(err, db.ErrNotFound) {
		return c, db.User{}, apperr.E(apperr.NotFound, "There is no such case.")
	}
	if err != nil {
		return c, db.User{}, apperr.Wrap(err, apperr.Internal, "could not read the case")
	}
	if c.UserID == admin.ID || (c.PartnerID != nil && *c.PartnerID == admin.ID) {
		return c, db.User{}, apperr.E(apperr.Forbidden, "This case is about your own account: another moderator must decide it.")
	}
	if c.Status != "open" {
		return c, db.User{}, apperr.E(apperr.Conflict, "This case is closed already.")
	}
	id := c.UserID
	if account != "" && c.PartnerName != nil && strings.EqualFold(account, *c.PartnerName) {
		id = *c.PartnerID
	} else if account != "" && !strings.EqualFold(account, c.UserName) {
		return c, db.User{}, apperr.E(apperr.Invalid, "%s is not an account of this case.", account)
	}
	u, err := s.store.UserByID(ctx, id)
	if err != nil {
		return c, db.User{}, apperr.Wrap(err, apperr.Internal, "could not load the player")
	}
	return c, u, nil
}

func reasonOf(r string) (string, error) {
	r = strings.TrimSpace(r)
	fe := apperr.FieldErrors{}
	switch {
	case r == "":
		fe.Add("reason", "Say why: the player reads it.")
	case utf8.RuneCountInString(r) > MaxText:
		fe.Add("reason", "Keep it under 2,000 characters.")
	}
	return r, fe.Err()
}

// Decide records a moderator's decision on a case: dismiss (the case is
// closed, nothing held against anyone), warn (the player sees it), mark
// for unfair play (off the ladder, no rated play, and the points others
// lost to the account in rated games of the last RefundWindowDays given
// back), or close a second account. It is logged with its reason; the
// case's reporters learn how it ended once it is closed.
func (s *Service) Decide(ctx context.Context, admin db.User, caseID int64, in DecideInput) error {
	c, u, err := s.caseFor(ctx, admin, caseID, in.Account)
	if err != nil {
		return err
	}
	if !slices.Contains(Actions, in.Action) {
		return apperr.FieldErrors{"action": "Choose what to do."}.Err()
	}
	reason, err := reasonOf(in.Reason)
	if err != nil {
		return err
	}
	if in.Action == "mark" && u.MarkedAt != nil {
		return apperr.E(apperr.Conflict, "%s is marked already.", u.Username)
	}
	if in.Action == "close" && u.DisabledAt != nil {
		return apperr.E(apperr.Conflict, "%s is closed already.", u.Username)
	}
	now := s.clock.Now()
	var refunds []db.Refund
	if in.Action == "mark" {
		if refunds, err = s.refundsOf(ctx, u.ID, nil, now); err != nil {
			return err
		}
	}
	closeCase := in.Close || in.Action == "dismiss"
	outcome := map[string]string{"dismiss": "dismissed", "warn": "warned", "mark": "marked", "close": "closed"}[in.Action]
	_, revoked, err := s.store.Decide(ctx, db.FairDecision{CaseID: c.ID, UserID: u.ID, Action: in.Action, Reason: reason, DecidedBy: &admin.ID}, refunds, closeCase, outcome, now, s.marked(ctx, u.ID, now))
	switch {
	case errors.Is(err, db.ErrClosed):
		return apperr.E(apperr.Conflict, "This case is closed already.")
	case errors.Is(err, db.ErrMarked):
		return apperr.E(apperr.Conflict, "%s is marked already.", u.Username)
	case errors.Is(err, db.ErrDuplicate):
		return apperr.E(apperr.Conflict, "Some of these points were given back already.")
	case err != nil:
		return apperr.Wrap(err, apperr.Internal, "could not record the decision")
	}
	for _, h := range revoked {
		if s.forget != nil {
			s.forget(h)
		}
	}
	return nil
}

// refundsOf works out what the victims of an account lost to it in its
// rated games since RefundWindowDays ago (or in one game).
func (s *Service) refundsOf(ctx context.Context, marked int64, gameID *int64, now time.Time) ([]db.Refund, error) {
	seats, err := s.store.RatedSeatsWith(ctx, marked, gameID, now.AddDate(0, 0, -RefundWindowDays))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the rated games")
	}
	byGame := map[int64][]db.RatedSeat{}
	var order []int64
	for _, st := range seats {
		if _, ok := byGame[st.GameID]; !ok {
			order = append(order, st.GameID)
		}
		byGame[st.GameID] = append(byGame[st.GameID], st)
	}
	var out []db.Refund
	for _, g := range order {
		var m *db.RatedSeat
		for i := range byGame[g] {
			if byGame[g][i].UserID == marked {
				m = &byGame[g][i]
			}
		}
		if m == nil {
			continue
		}
		mp := rating.Player{Rating: m.Before, Games: m.Games, Placing: m.Place}
		for _, v := range byGame[g] {
			if v.UserID == marked {
				continue
			}
			pts := Refund(rating.Player{Rating: v.Before, Games: v.Games, Placing: v.Place}, mp, v.N)
			if pts > 0 {
				out = append(out, db.Refund{UserID: v.UserID, MarkedID: marked, GameID: g, Points: pts})
			}
		}
	}
	return out, nil
}

// RefundGame gives back what the other players of one rated game lost to
// an account of a case, without marking it; a second refund of the same
// game is refused.
func (s *Service) RefundGame(ctx context.Context, admin db.User, caseID int64, account string, gameID int64, reason string) error {
	c, u, err := s.caseFor(ctx, admin, caseID, account)
	if err != nil {
		return err
	}
	if reason, err = reasonOf(reason); err != nil {
		return err
	}
	refunds, err := s.refundsOf(ctx, u.ID, &gameID, s.clock.Now())
	if err != nil {
		return err
	}
	if len(refunds) == 0 {
		return apperr.E(apperr.Invalid, "No one lost points to %s in game #%d within the last %d days.", u.Username, gameID, RefundWindowDays)
	}
	err = s.store.RefundGame(ctx, db.FairDecision{CaseID: c.ID, UserID: u.ID, Reason: reason, DecidedBy: &admin.ID}, refunds, s.clock.Now())
	if errors.Is(err, db.ErrDuplicate) {
		return apperr.E(apperr.Conflict, "The points of game #%d were given back already.", gameID)
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not give the points back")
	}
	return nil
}

// Undo undoes a decision (a mark's refunds taken back, a closed account
// opened again), logged with why.
func (s *Service) Undo(ctx context.Context, admin db.User, decisionID int64, why string) error {
	if err := check(admin); err != nil {
		return err
	}
	d, err := s.store.DecisionByID(ctx, decisionID)
	if errors.Is(err, db.ErrNotFound) {
		return apperr.E(apperr.NotFound, "There is no such decision.")
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not read the decision")
	}
	if d.UserID == admin.ID {
		return apperr.E(apperr.Forbidden, "This decision is about your own account: another moderator must undo it.")
	}
	if why, err = reasonOf(why); err != nil {
		return err
	}
	ok, err := s.store.Undo(ctx, decisionID, &admin.ID, why, db.ModFairUndo, s.clock.Now(), s.unmarked(ctx))
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not undo the decision")
	}
	if !ok {
		return apperr.E(apperr.Conflict, "This decision was undone already.")
	}
	return nil
}

// AnswerAppeal answers an appeal: upheld keeps the decision, overturned
// undoes it. The moderator who decided may not judge its appeal.
func (s *Service) AnswerAppeal(ctx context.Context, admin db.User, decisionID int64, overturn bool, note string) error {
	if err := check(admin); err != nil {
		return err
	}
	d, err := s.store.DecisionByID(ctx, decisionID)
	if errors.Is(err, db.ErrNotFound) {
		return apperr.E(apperr.NotFound, "There is no such decision.")
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not read the decision")
	}
	if d.DecidedBy != nil && *d.DecidedBy == admin.ID {
		return apperr.E(apperr.Forbidden, "You took this decision: another moderator must judge its appeal.")
	}
	if d.UserID == admin.ID {
		return apperr.E(apperr.Forbidden, "This decision is about your own account: another moderator must judge its appeal.")
	}
	if note, err = reasonOf(note); err != nil {
		return err
	}
	ok, err := s.store.AnswerDecisionAppeal(ctx, decisionID, admin.ID, overturn, note, s.clock.Now(), s.unmarked(ctx))
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not answer the appeal")
	}
	if !ok {
		return apperr.E(apperr.Conflict, "This appeal was answered already, or there is none.")
	}
	return nil
}

// Mine is what fair play holds about a member: the decisions about them,
// their reports and how they ended, and the points given back to them.
type Mine struct {
	Decisions []db.FairDecision
	Reports   []db.PlayerReport
	Refunds   []db.Refund
}

// Mine loads a member's fair-play page.
func (s *Service) Mine(ctx context.Context, u db.User) (Mine, error) {
	var m Mine
	var err error
	if m.Decisions, err = s.store.DecisionsAbout(ctx, u.ID); err != nil {
		return m, apperr.Wrap(err, apperr.Internal, "could not read the decisions")
	}
	if m.Reports, err = s.store.ReportsBy(ctx, u.ID, 100); err != nil {
		return m, apperr.Wrap(err, apperr.Internal, "could not read your reports")
	}
	if m.Refunds, err = s.store.RefundsOf(ctx, u.ID); err != nil {
		return m, apperr.Wrap(err, apperr.Internal, "could not read the refunds")
	}
	return m, nil
}

// ClosedAccount is an account closed by a fair-play decision that still
// holds, for its owner to read and appeal without logging in: the
// account and the decisions about it. ErrNotFound when the account is not
// closed so (open, deleted, or disabled by a moderator for another reason).
func (s *Service) ClosedAccount(ctx context.Context, userID int64) (db.User, []db.FairDecision, error) {
	u, err := s.store.UserByID(ctx, userID)
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, nil, apperr.E(apperr.NotFound, "There is no closed account to appeal for: log in again.")
	}
	if err != nil {
		return db.User{}, nil, apperr.Wrap(err, apperr.Internal, "could not read the account")
	}
	ds, err := s.store.DecisionsAbout(ctx, u.ID)
	if err != nil {
		return db.User{}, nil, apperr.Wrap(err, apperr.Internal, "could not read the decisions")
	}
	closed := false
	for _, d := range ds {
		closed = closed || (d.Action == "close" && d.UndoneAt == nil)
	}
	if u.DeletedAt != nil || u.DisabledAt == nil || !closed {
		return db.User{}, nil, apperr.E(apperr.NotFound, "There is no closed account to appeal for: log in again.")
	}
	return u, ds, nil
}

// Appeal is a player's one appeal of a decision about them.
func (s *Service) Appeal(ctx context.Context, u db.User, decisionID int64, text string) error {
	text = strings.TrimSpace(text)
	fe := apperr.FieldErrors{}
	switch {
	case text == "":
		fe.Add("appeal", "Say why the decision is wrong.")
	case utf8.RuneCountInString(text) > MaxText:
		fe.Add("appeal", "Keep it under 2,000 characters.")
	}
	if err := fe.Err(); err != nil {
		return err
	}
	err := s.store.AppealDecision(ctx, decisionID, u.ID, text, s.clock.Now())
	switch {
	case errors.Is(err, db.ErrDuplicate):
		return apperr.E(apperr.Conflict, "You have appealed this decision already; a decision is appealed once.")
	case errors.Is(err, db.ErrNotFound):
		return apperr.E(apperr.NotFound, "There is no such decision about you.")
	case err != nil:
		return apperr.Wrap(err, apperr.Internal, "could not send the appeal")
	}
	return nil
}

// DecisionCase is the case a decision belongs to.
func (s *Service) DecisionCase(ctx context.Context, decisionID int64) (int64, error) {
	d, err := s.store.DecisionByID(ctx, decisionID)
	if errors.Is(err, db.ErrNotFound) {
		return 0, apperr.E(apperr.NotFound, "There is no such decision.")
	}
	if err != nil {
		return 0, apperr.Wrap(err, apperr.Internal, "could not read the decision")
	}
	return d.CaseID, nil
}

// Refunds lists the points given back to an account, for its rating
// history.
func (s *Service) Refunds(ctx context.Context, userID int64) ([]db.Refund, error) {
	rs, err := s.store.RefundsOf(ctx, userID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the refunds")
	}
	return rs, nil
}

// RebuildBatch is how many games a rebuild reads at once.
const RebuildBatch = 2000

// Rebuild works every pair's signals out again from all stored finished
// rated games (after a change of the formula): the pairs' figures are
// emptied, each game's added in batches, every pair summed and scored in
// one pass, and a case opened for each pair over the threshold. It
// returns how many games and pairs it read. Cases, reports and decisions
// are kept; the worker may run meanwhile (a game it adds twice counts
// once).
func (s *Service) Rebuild(ctx context.Context) (games, pairs int, err error) {
	if err := s.store.ClearSignals(ctx); err != nil {
		return 0, 0, err
	}
	now := s.clock.Now()
	var after int64
	for {
		ids, err := s.store.RatedGameIDs(ctx, after, RebuildBatch)
		if err != nil {
			return games, 0, err
		}
		if len(ids) == 0 {
			break
		}
		after = ids[len(ids)-1]
		gs, err := s.store.FairGamesOf(ctx, ids)
		if err != nil {
			return games, 0, err
		}
		var rows []db.PairGameRow
		for _, id := range ids {
			g := gs[id]
			if g == nil {
				continue
			}
			f, err := Facts(*g)
			if err != nil {
				s.log.Warn("rebuild: game left out", "game", id, "err", err)
				continue
			}
			for _, p := range Pairs(f) {
				rows = append(rows, rowOf(p))
			}
			games++
		}
		if err := s.store.AddPairGamesBulk(ctx, rows, now); err != nil {
			return games, 0, err
		}
	}
	sums, err := s.store.SumAllPairs(ctx, now)
	if err != nil {
		return games, 0, err
	}
	as, bs, scores := make([]int64, len(sums)), make([]int64, len(sums)), make([]float64, len(sums))
	for i, p := range sums {
		f := FiguresOf(p)
		as[i], bs[i], scores[i] = p.UserA, p.UserB, f.Score().Total
		if f.Opens() {
			if err := s.store.OpenSignalCaseNow(ctx, p.UserA, p.UserB, scores[i], now); err != nil {
				return games, len(sums), err
			}
		}
	}
	return games, len(sums), s.store.SetScores(ctx, as, bs, scores)
}
