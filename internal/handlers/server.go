// Package handlers is the HTTP layer: Echo handlers for the HTML pages and
// the JSON API. Handlers are thin: they read and validate input, call one
// service, and render a view model. Every route is registered in routes.go.
//
// It must not hold SQL or game rules: those live in internal/db and
// internal/engine, reached through the services.
package handlers

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"nothanks/internal/apistream"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"nothanks/internal/accounts"
	"nothanks/internal/archive"
	"nothanks/internal/botaccounts"
	"nothanks/internal/chat"
	"nothanks/internal/clock"
	"nothanks/internal/config"
	"nothanks/internal/db"
	"nothanks/internal/fairplay"
	"nothanks/internal/games"
	"nothanks/internal/invites"
	"nothanks/internal/leavers"
	"nothanks/internal/links"
	"nothanks/internal/lists"
	"nothanks/internal/metrics"
	"nothanks/internal/moderation"
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

// Store is what the handlers ask of the database directly: health and how
// many watch a game. Everything else goes through the services.
type Store interface {
	Ping(ctx context.Context) error
	WatchedGames(ctx context.Context, gameIDs []int64, since time.Time) (map[int64]db.Watched, error)
	GameRatingChanges(ctx context.Context, gameID int64) ([]db.RatingChange, error)
}

// Deps is everything the handlers need.
type Deps struct {
	Config   config.Config
	Accounts *accounts.Service
	Sessions *session.Store
	Games    *games.Service
	Ranked   *ranked.Service
	Links    *links.Signer
	Watch    *watch.Hub
	// Turns feeds the per-person turn streams; nil serves none.
	Turns *turns.Hub
	// Lists tells list pages that their list changed; nil: they poll.
	Lists *lists.Hub
	// Tournaments runs events; Feed streams their pages.
	Tournaments *tournaments.Service
	Feed        *watch.Feed
	// Reviews serves post-game analyses.
	Reviews *reviews.Service
	// Rematch is "Play again" at finished tables.
	Rematch *rematch.Service
	// Invites are challenges by name.
	Invites *invites.Service
	// People follows and blocks; Chat is the table chat; Moderation is
	// the admins' tools; Privacy exports and deletes accounts.
	People *people.Service
	// Push keeps the devices notified through Web Push.
	Push *push.Service
	// APIStreams holds the API's streams open here (nil: a registry of
	// this server's own).
	APIStreams *apistream.Registry
	Chat       *chat.Service
	Moderation *moderation.Service
	Privacy    *privacy.Service
	DB         Store
	Clock      clock.Clock
	Log        *slog.Logger
	// Metrics records requests, moves and streams; nil records nothing.
	Metrics *metrics.Metrics
	// ActiveRequests is how many requests may work at once (the pool's
	// share for requests); 0: no limit.
	ActiveRequests int

	// Bots is bot accounts: the upgrade, their queue, limits and names.
	Bots *botaccounts.Service
	// Leavers is leaving games in play, reliability and pauses.
	Leavers *leavers.Service
	// FairPlay is reports, cases, marks and appeals.
	FairPlay *fairplay.Service
	// Archive is the games as text and the open database.
	Archive *archive.Service
	// Puzzles serves and rates the puzzles.
	Puzzles *puzzleplay.Service
}

// Server holds the handlers' dependencies.
type Server struct {
	cfg         config.Config
	accounts    *accounts.Service
	sessions    *session.Store
	games       *games.Service
	ranked      *ranked.Service
	links       *links.Signer
	hub         *watch.Hub
	turns       *turns.Hub
	lists       *lists.Hub
	tournaments *tournaments.Service
	feed        *watch.Feed
	reviews     *reviews.Service
	rematch     *rematch.Service
	invites     *invites.Service
	people      *people.Service
	push        *push.Service
	apiStreams  *apistream.Registry
	chat        *chat.Service
	mod         *moderation.Service
	privacy     *privacy.Service
	bots        *botaccounts.Service
	leavers     *leavers.Service
	fairplay    *fairplay.Service
	archive     *archive.Service
	puzzles     *puzzleplay.Service
	db          Store
	clock       clock.Clock
	log         *slog.Logger
	metrics     *metrics.Metrics
	// slots holds a token per request at work (see admit).
	slots chan struct{}
	// routeSet is "METHOD /route/:pattern" of every route, so that metrics
	// label an unknown path as such rather than by the path itself.
	routeSet map[string]bool
}

// New builds the Echo server with its middleware and routes.
func New(d Deps) *echo.Echo {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	s := &Server{cfg: d.Config, accounts: d.Accounts, sessions: d.Sessions, games: d.Games, ranked: d.Ranked, links: d.Links, hub: d.Watch, turns: d.Turns, lists: d.Lists, tournaments: d.Tournaments, feed: d.Feed, reviews: d.Reviews, rematch: d.Rematch, invites: d.Invites, people: d.People, push: d.Push, apiStreams: d.APIStreams, chat: d.Chat, mod: d.Moderation, privacy: d.Privacy, db: d.DB, clock: d.Clock, log: d.Log, metrics: d.Metrics}
	if s.apiStreams == nil {
		s.apiStreams = apistream.New(apistream.MaxPerToken, nil, "", d.Clock.Now)
	}
	d.Watch.SetRenderer(streamRenderer{s})
	d.Watch.SetChat(d.Chat.Read)
	if d.Feed != nil {
		d.Feed.SetRenderer(s.renderTournamentFeed)
	}
	if d.ActiveRequests > 0 {
		s.slots = make(chan struct{}, d.ActiveRequests)
	}
	s.bots = d.Bots
	s.leavers = d.Leavers
	s.fairplay = d.FairPlay
	s.archive = d.Archive
	s.puzzles = d.Puzzles
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = ipExtractor(d.Config.TrustedProxies)
	e.HTTPErrorHandler = s.handleError
	e.Use(
		middleware.RecoverWithConfig(middleware.RecoverConfig{
			DisablePrintStack: true,
			LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
				s.log.Error("panic", "err", err, "path", c.Request().URL.Path, "stack", string(stack))
				return err
			},
		}),
		compress,
		s.observe,
		s.requestLogger(),
		middleware.SecureWithConfig(securityHeaders()),
		hsts(d.Config.Secure()),
		// A game imported in the notation may be up to 1 MiB of text
		// (archive.MaxImportBytes); every other body is small.
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "256K", Skipper: isImport}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "1100K", Skipper: func(c echo.Context) bool { return !isImport(c) }}),
		s.readBody,
		s.language,
		middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
			Timeout: d.Config.RequestTimeout,
			Skipper: isStream,
		}),
		s.admit,
		// The user is known before the CSRF check, so that a refused
		// form's error page still shows the member's menu.
		s.loadUser,
		s.markBotAccounts,
		s.csrf(),
	)
	s.routes(e)
	s.routeSet = map[string]bool{}
	for _, r := range e.Routes() {
		s.routeSet[r.Method+" "+r.Path] = true
	}
	return e
}

// ipExtractor trusts X-Forwarded-For only from the configured proxies;
// without any, the peer address is the client.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// securityHeaders: a CSP that allows no inline script, no plugins, no <base>
// and no framing.
func securityHeaders() middleware.SecureConfig {
	cfg := middleware.SecureConfig{
		XSSProtection:      "0",
		ContentTypeNosniff: "nosniff",
		XFrameOptions:      "DENY",
		ReferrerPolicy:     "same-origin",
		ContentSecurityPolicy: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
	}
	return cfg
}

// hsts sends Strict-Transport-Security when the site is served over https.
// Echo's Secure middleware sends it only for requests that arrive over TLS
// or say so in X-Forwarded-Proto; BASE_URL is the truth here, since TLS is
// often ended at a proxy.
func hsts(secure bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if secure {
				c.Response().Header().Set(echo.HeaderStrictTransportSecurity, "max-age=31536000; includeSubDomains")
			}
			return next(c)
		}
	}
}

func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURIPath: true, LogMethod: true, LogLatency: true, LogRemoteIP: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			s.log.LogAttrs(c.Request().Context(), level, "request",
				slog.String("method", v.Method), slog.String("path", v.URIPath), slog.Int("status", v.Status),
				slog.Duration("took", v.Latency), slog.String("ip", v.RemoteIP))
			return nil
		},
	})
}

// isStream marks the long-lived routes (server-sent events), which must not
// get a request deadline.
// isImport is a request bringing a game in as text.
func isImport(c echo.Context) bool {
	p := c.Request().URL.Path
	return p == "/import" || p == "/api/v1/imports"
}

func isStream(c echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasSuffix(p, "/events") || strings.HasSuffix(p, "/stream") || c.Request().Header.Get("Accept") == "text/event-stream"
}

// ListenAndServe is not here: cmd/web owns the http.Server so it can shut it
// down gracefully. Handler returns the Echo instance as an http.Handler.
var _ http.Handler = (*echo.Echo)(nil)
