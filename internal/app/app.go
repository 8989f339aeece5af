// Package app assembles the application from its parts: services over the
// store, the session store, the HTTP handlers and the background jobs. Both
// cmd/web and the tests build it here, so they run the same thing.
package app

import (
	"context"
	"crypto/rand"
	"crypto/sha512"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"nothanks/internal/accounts"
	"nothanks/internal/apistream"
	"nothanks/internal/archive"
	"nothanks/internal/background"
	"nothanks/internal/botaccounts"
	"nothanks/internal/chat"
	"nothanks/internal/clock"
	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/fairplay"
	"nothanks/internal/games"
	"nothanks/internal/handlers"
	"nothanks/internal/invites"
	"nothanks/internal/leavers"
	"nothanks/internal/links"
	"nothanks/internal/lists"
	"nothanks/internal/live"
	"nothanks/internal/metrics"
	"nothanks/internal/moderation"
	"nothanks/internal/notify"
	"nothanks/internal/people"
	"nothanks/internal/privacy"
	"nothanks/internal/push"
	"nothanks/internal/puzzleplay"
	"nothanks/internal/ranked"
	"nothanks/internal/rematch"
	"nothanks/internal/reviews"
	"nothanks/internal/session"
	"nothanks/internal/tournaments"
	"nothanks/internal/turns"
	"nothanks/internal/watch"
)

// Session lifetimes: a session unused for a week ends, and none lasts more
// than 30 days.
const (
	SessionIdle     = 7 * 24 * time.Hour
	SessionLifetime = 30 * 24 * time.Hour
)

// App is the assembled application.
type App struct {
	Handler http.Handler
	// APIStreams holds the API's streams open here.
	APIStreams *apistream.Registry
	Accounts   *accounts.Service
	Games      *games.Service
	Ranked     *ranked.Service
	Notify     *notify.Service
	// Push notifies people's devices through their push services.
	Push *push.Service
	// Watch serves the games' event streams of this instance.
	Watch *watch.Hub
	// Turns serves the per-person turn streams of this instance.
	Turns *turns.Hub
	// Reviews analyses finished games in the background and serves them.
	Reviews *reviews.Service
	// People follows and blocks; Chat is the table chat; Moderation the
	// admins' tools; Privacy exports and deletes accounts.
	People     *people.Service
	Chat       *chat.Service
	Moderation *moderation.Service
	Privacy    *privacy.Service
	// Leavers is leaving games, reliability, pauses and their appeals.
	Leavers *leavers.Service
	// FairPlay is the signals of collusion, reports, cases and marks.
	FairPlay *fairplay.Service
	// Archive is the games as text: downloads, imports and the open
	// database's monthly files.
	Archive *archive.Service
	// Puzzles mines finished games for puzzles, serves and rates them.
	Puzzles *puzzleplay.Service
	// NoPuzzleMining leaves puzzle mining out of the background work
	// (tests, which mine when they need puzzles).
	NoPuzzleMining bool
	// Lists tells the pages with lists of games that one changed.
	Lists *lists.Hub
	// Tournaments runs events; Feed streams their pages; TournamentDue
	// wakes their worker.
	Tournaments   *tournaments.Service
	Feed          *watch.Feed
	TournamentDue *live.Waker
	// Due wakes the due-move worker.
	Due     *live.Waker
	Store   *db.Store
	Metrics *metrics.Metrics
	// Workers runs the background workers that make due moves, form ranked
	// tables, send mail and clean up; tests that drive them step by step
	// turn them off.
	Workers bool
	cfg     config.Config
	clock   clock.Clock
	log     *slog.Logger
}

// WorkerConns is the pool's share for the background work: each of the
// eight loops (due moves, matcher, mail outbox, push outbox, presence of
// watchers, housekeeping, post-game analysis, the turn streams' resync)
// holds at most
// one connection at a time, and the event
// streams read changed games watch.MaxLoads at a time. Requests get the
// rest (DB_MAX_CONNS - WorkerConns at once), so neither side can starve
// the other. The LISTEN connection and the notifier's two connections are
// outside the pool.
const WorkerConns = 8 + watch.MaxLoads

// New builds the application on an open, migrated store, sizing its pool
// to DB_MAX_CONNS.
func New(ctx context.Context, cfg config.Config, store *db.Store, clk clock.Clock, log *slog.Logger) (*App, error) {
	if cfg.DBMaxConns > 0 {
		store.SetMaxConns(cfg.DBMaxConns)
	}
	acc, err := accounts.New(store, store, store, store, clk)
	if err != nil {
		return nil, err
	}
	key, err := secretKey(ctx, cfg, store, "session_hash_key")
	if err != nil {
		return nil, err
	}
	sessions, err := session.New(store, session.Config{HashKey: key, Secure: cfg.Secure(), Idle: SessionIdle, Lifetime: SessionLifetime}, clk)
	if err != nil {
		return nil, err
	}
	g := games.New(store, clk, log)
	lv := leavers.New(store, g, clk)
	r := ranked.New(store, g, clk)
	linkKey, err := secretKey(ctx, cfg, store, "link_key")
	if err != nil {
		return nil, err
	}
	fpKey, err := secretKey(ctx, cfg, store, "fairplay_link_key")
	if err != nil {
		return nil, err
	}
	fp := fairplay.New(store, g, clk, log, fpKey, acc.ForgetToken)
	ar := archive.New(store, g, clk, log, cfg.BaseURL.String())
	r.Gate = func(ctx context.Context, u db.User) error {
		if err := lv.CheckRated(ctx, u); err != nil {
			return err
		}
		return fp.CheckRated(ctx, u)
	}
	signer, err := links.New(linkKey)
	if err != nil {
		return nil, err
	}
	var sender notify.Sender = notify.LogSender{Log: log}
	if cfg.SMTPURL != "" {
		if sender, err = notify.NewSMTPSender(cfg.SMTPURL, cfg.MailFrom); err != nil {
			return nil, err
		}
	}
	n := notify.New(store, g, signer, sender, cfg.BaseURL, clk, log)
	vapid, err := push.LoadKeys(ctx, cfg.PushPublicKey, cfg.PushPrivateKey, store)
	if err != nil {
		return nil, err
	}
	ps := push.New(store, g, push.Config{Keys: vapid, Subject: cfg.PushSubject, AllowLocal: cfg.PushAllowLocal}, clk, log)
	hub := watch.New(g.State, store, clk, log)
	tn := turns.New(store, clk.Now, log)
	ls := lists.New()
	tr := tournaments.New(store, g, clk, log)
	fp.SetEvents(tr)
	feed := watch.NewFeed(func(ctx context.Context, id int64) (int, any, error) {
		v, err := tr.LoadPage(ctx, id)
		if err != nil {
			return 0, nil, err
		}
		return v.T.Version, v, nil
	}, log)
	rv := reviews.New(store, g, clk, log)
	rv.Share, rv.Busy = cfg.AnalysisShare, func() bool { return g.PlayedWithin(PlayWindow) }
	pz := puzzleplay.New(store, g, clk, log)
	pz.Share, pz.Busy, pz.Batch = cfg.AnalysisShare, rv.Busy, PuzzleBatch
	rm := rematch.New(store, g, clk)
	iv := invites.New(store, g, clk)
	ch := chat.New(store, g, clk)
	pp := people.New(store, clk)
	md := moderation.New(store, clk, acc.ForgetToken)
	pv := privacy.New(store, acc, g, clk)
	m := metrics.New(store.DB.DB, store, clk.Now, log)
	streams := apistream.New(apistream.MaxPerToken, store, hub.Instance, clk.Now)
	// A token's cached check is dropped when it is revoked, its account
	// disabled or turned into a bot account: its streams here end if the
	// token no longer works (a bot account's go on).
	acc.OnRevoke(func(hash string) {
		if streams.Count(hash) > 0 {
			go recheckStreams(acc, streams, log, hash)
		}
	}, func() { go recheckStreams(acc, streams, log, streams.Tokens()...) })
	e := handlers.New(handlers.Deps{Config: cfg, Accounts: acc, Sessions: sessions, Games: g, Ranked: r, Links: signer, Watch: hub, Turns: tn, Lists: ls, Tournaments: tr, Feed: feed, Reviews: rv, Rematch: rm, Invites: iv, DB: store,
		People: pp, Push: ps, APIStreams: streams, Chat: ch, Moderation: md, Privacy: pv, Bots: botaccounts.New(store, r, acc.ForgetToken, clk), Leavers: lv, FairPlay: fp, Archive: ar, Puzzles: pz, Clock: clk, Log: log,
		Metrics: m, ActiveRequests: max(cfg.DBMaxConns-WorkerConns, 0)})
	return &App{Handler: e, APIStreams: streams, Accounts: acc, Games: g, Ranked: r, Notify: n, Push: ps, Watch: hub, Turns: tn, Lists: ls, Tournaments: tr, Feed: feed, TournamentDue: live.NewWaker(), Reviews: rv, People: pp, Chat: ch, Moderation: md, Privacy: pv, Leavers: lv, FairPlay: fp, Archive: ar, Puzzles: pz, Due: live.NewWaker(), Store: store, Metrics: m, Workers: true, cfg: cfg, clock: clk, log: log}, nil
}

// recheckStreams ends the API streams of those tokens that no longer
// work (revoked, or their account disabled or deleted).
func recheckStreams(acc *accounts.Service, streams *apistream.Registry, log *slog.Logger, tokens ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, t := range tokens {
		live, err := acc.TokenLive(ctx, t)
		if err != nil {
			log.Warn("check a streaming token", "err", err)
			return
		}
		if !live {
			streams.Revoked(t)
		}
	}
}

// PlayWindow is how recent a move on an instance must be for its
// background analysis to hold itself to config.AnalysisShare.
const PlayWindow = 2 * time.Second

// AnalysisEvery is how often an instance looks for finished games to
// analyse (it analyses them one after another, then waits again).
const AnalysisEvery = 3 * time.Second

// PuzzleBatch is how many finished games the search worker mines for
// puzzles before it looks again for games to analyse: the analysis of a
// game just finished goes first.
const PuzzleBatch = 4

// FairPlayEvery is how often an instance looks for finished rated games
// whose fair-play signals wait.
const FairPlayEvery = 5 * time.Second

// ArchiveEvery is how often an instance looks for months of the open
// database whose file is to be made (once a month is over, or again after
// an account was deleted).
const ArchiveEvery = 10 * time.Minute

// TurnsResyncEvery is how often an instance reads again which games wait
// for the people it streams turns to (a lost notification is mended then).
const TurnsResyncEvery = 30 * time.Second

// PresenceEvery is how often an instance writes who watches its games.
const PresenceEvery = 10 * time.Second

// Run runs the background jobs until ctx is done: the LISTEN connection
// that feeds the streams and wakes the due-move worker, the worker that
// makes due moves (bots, expired timers), the presence of watchers, and
// hourly housekeeping.
func (a *App) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(13)
	go func() {
		defer wg.Done()
		a.APIStreams.Run(ctx, a.log)
	}()
	handlers := live.Handlers{
		db.GameChannel: func(payload string) {
			a.Games.Noted(payload)
			if id, ok := live.GameID(payload); ok {
				a.Watch.Changed(id)
			}
			a.Turns.Changed(payload)
		},
		db.InviteChannel: func(payload string) {
			go func() {
				if err := a.Turns.InvitesChanged(ctx, payload); err != nil && ctx.Err() == nil {
					a.log.Warn("invitations changed", "err", err)
				}
			}()
		},
		db.DueChannel:   a.Due.AtPayload,
		db.TokenChannel: a.Accounts.ForgetToken,
		db.ListsChannel: a.Lists.Changed,
		db.TournamentChannel: func(payload string) {
			if id, err := strconv.ParseInt(payload, 10, 64); err == nil {
				a.Feed.Changed(id)
			}
		},
		db.TournamentDueChannel: a.TournamentDue.AtPayload,
		db.NoticeChannel:        a.Turns.Notice,
		db.ChatChannel: func(payload string) {
			if id, err := strconv.ParseInt(payload, 10, 64); err == nil {
				a.Watch.ChatChanged(id)
			}
		},
	}
	caughtUp := func() {
		a.Watch.ChangedAll()
		a.Lists.ChangedAll()
		a.Feed.ChangedAll()
		a.TournamentDue.Now()
		go func() {
			if err := a.Turns.Resync(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("resync turns", "err", err)
			}
		}()
		a.Due.Now()
		a.Accounts.ForgetAllTokens()
		a.Games.ForgetKept()
	}
	go func() {
		defer wg.Done()
		a.Watch.Run(ctx, PresenceEvery)
	}()
	go func() {
		defer wg.Done()
		a.Turns.Run(ctx, TurnsResyncEvery)
	}()
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if err := live.Listen(ctx, a.cfg.DatabaseURL, handlers, caughtUp, a.log); err != nil {
				a.log.Error("listen for game changes", "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.runDue(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.housekeeping(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.runMatcher(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.runTournaments(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.runOutbox(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			background.Every(ctx, AnalysisEvery, a.log, "search worker", a.RunSearches)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.runPush(ctx)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.FairPlay.Run(ctx, FairPlayEvery)
		}
	}()
	go func() {
		defer wg.Done()
		if a.Workers {
			a.Archive.Run(ctx, ArchiveEvery)
		}
	}()
	wg.Wait()
}

// RunSearches is the work of the strong search in the background, one
// worker so that together it keeps to ANALYSIS_SHARE of a core while
// people play: the analysis of every finished game waiting, then puzzles
// from a few finished games, again while there is work.
func (a *App) RunSearches(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := a.Reviews.RunOnce(ctx)
		if err != nil {
			return total + n, err
		}
		m := 0
		if !a.NoPuzzleMining {
			m, err = a.Puzzles.RunOnce(ctx)
		}
		if err != nil {
			return total + n + m, err
		}
		total += n + m
		if n == 0 && m == 0 {
			break
		}
	}
	return total, ctx.Err()
}

// runDue makes due moves when the earliest due time comes. It learns of a
// bot's coming move from the due channel (with its time: no database work
// unless it is earlier than planned), and looks at the earliest due time
// itself at least every 5 seconds, which finds players' deadlines (never
// nearer than 15 seconds) and games left due while every instance was down.
func (a *App) runDue(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := a.Games.Sweep(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("due moves", "err", err)
		}
		var planned time.Time
		if next, err := a.Store.NextDue(ctx); err == nil && next != nil {
			planned = *next
		}
		a.Due.Wait(ctx, planned, 5*time.Second, a.clock.Now)
	}
}

// runTournaments moves events on when they are due: it learns of players
// come free and rounds ended from the tournament channel, and looks at the
// earliest due time itself at least every 5 seconds (an event's start, an
// arena's end, events left due while every instance was down).
func (a *App) runTournaments(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := a.Tournaments.RunDue(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("tournaments", "err", err)
		}
		var planned time.Time
		if next, err := a.Tournaments.NextDue(ctx); err == nil && next != nil {
			planned = *next
		}
		a.TournamentDue.Wait(ctx, planned, 5*time.Second, a.clock.Now)
	}
}

// runMatcher forms ranked tables every two seconds; one instance at a time
// does it (the others find the advisory lock taken and skip the round).
func (a *App) runMatcher(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ids, err := a.Ranked.RunMatcher(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("ranked matcher", "err", err)
		} else if len(ids) > 0 {
			a.log.Info("ranked tables formed", "games", ids)
		}
	}
}

// runOutbox sends due mail every few seconds.
func (a *App) runOutbox(ctx context.Context) {
	if a.cfg.SMTPURL == "" {
		a.log.Info("SMTP_URL is unset: mails are written to the log instead of being sent")
	}
	t := time.NewTicker(3 * time.Second)
	defer t.Stop()
	for {
		if _, err := a.Notify.RunOutbox(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("mail outbox", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runPush sends due pushes every push.PollEvery.
func (a *App) runPush(ctx context.Context) {
	t := time.NewTicker(push.PollEvery)
	defer t.Stop()
	for {
		if _, err := a.Push.RunOutbox(ctx); err != nil && ctx.Err() == nil {
			a.log.Error("push outbox", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (a *App) housekeeping(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := a.Accounts.Cleanup(ctx, SessionIdle); err != nil && ctx.Err() == nil {
			a.log.Warn("housekeeping", "err", err)
		}
		if err := a.Store.DeleteStalePresence(ctx, a.clock.Now().Add(-time.Hour)); err != nil && ctx.Err() == nil {
			a.log.Warn("housekeeping", "err", err)
		}
		if _, err := a.Accounts.DeleteStaleGuests(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("housekeeping", "err", err)
		}
		// Settled mail is kept a month for support questions, then dropped.
		if err := a.Store.DeleteOldMail(ctx, a.clock.Now().Add(-30*24*time.Hour)); err != nil && ctx.Err() == nil {
			a.log.Warn("housekeeping", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Shutdown tells long-lived streams to close, so that the HTTP server's
// graceful shutdown does not wait on them.
func (a *App) Shutdown() { a.Watch.Close() }

// secretKey derives a signing key (session cookies, mailed links) from
// SESSION_SECRET, or, when it is unset, uses a key generated once and kept
// in the database so that every instance and every restart signs alike.
func secretKey(ctx context.Context, cfg config.Config, store *db.Store, name string) ([]byte, error) {
	if cfg.SessionSecret != "" {
		sum := sha512.Sum512([]byte("nothanks " + name + "\x00" + cfg.SessionSecret))
		return sum[:], nil
	}
	return store.Secret(ctx, name, func() ([]byte, error) {
		b := make([]byte, 64)
		_, err := rand.Read(b)
		return b, err
	})
}
