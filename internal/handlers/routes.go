package handlers

import (
	"github.com/labstack/echo/v4"

	"nothanks/internal/engine"
)

// routes registers every route of the site.
func (s *Server) routes(e *echo.Echo) {
	e.GET("/healthz", s.healthz)
	e.GET("/static/:name", s.asset)
	e.GET("/favicon.ico", s.favicon)

	e.GET("/", s.home)
	e.GET("/rules", s.rules)
	e.GET("/docs/:name", s.doc)
	e.GET("/register", s.registerForm)
	e.POST("/register", s.register)
	e.GET("/login", s.loginForm)
	e.POST("/login", s.login)
	e.POST("/logout", s.logout)
	e.GET("/u/:name", s.profile)

	e.GET("/games", s.openGames)
	e.GET("/watch", s.watch)
	e.GET("/games/:id", s.showGame)
	e.GET("/games/:id/board", s.boardFragment)
	e.GET("/games/:id/events", s.gameEvents)
	e.GET("/games/:id/replay", s.replay)
	e.GET("/games/:id/record", s.record)
	e.GET("/join/:code", s.joinByInvite)
	e.GET("/ladder", s.ladder)
	e.GET("/verify-email", s.verifyEmail)
	e.GET("/forgot", s.forgotForm)
	e.POST("/forgot", s.forgot)
	e.GET("/reset", s.resetForm)
	e.POST("/reset", s.reset)
	e.GET("/unsubscribe", s.unsubscribeForm)
	e.POST("/unsubscribe", s.unsubscribe)
	e.GET("/m", s.moveLink)
	e.POST("/m", s.move)

	// Routes for logged-in users only. (Not an Echo group with an empty
	// prefix: that would run requireUser for every unknown path too.)
	e.GET("/settings", s.settings, requireUser)
	e.POST("/settings/password", s.changePassword, requireUser)
	e.POST("/settings/email", s.changeEmail, requireUser)
	e.POST("/settings/tokens", s.createToken, requireUser)
	e.POST("/settings/verify", s.resendVerification, requireUser)
	e.POST("/settings/notifications", s.saveNotifications, requireUser)
	e.POST("/settings/vacation", s.startVacation, requireUser)
	e.POST("/settings/vacation/end", s.endVacation, requireUser)
	e.POST("/settings/tokens/:id/revoke", s.revokeToken, requireUser)
	e.GET("/my/games", s.myGames, requireUser)
	e.GET("/ranked", s.queuePage, requireUser)
	e.GET("/ranked/status", s.queueStatus, requireUser)
	e.POST("/ranked", s.joinQueue, requireUser)
	e.POST("/ranked/leave", s.leaveQueue, requireUser)
	e.GET("/games/new", s.newGame, requireUser)
	e.POST("/games", s.createGame, requireUser)
	e.POST("/games/:id/join", s.lobbyAction(s.joinGame), requireUser)
	e.POST("/games/:id/leave", s.lobbyAction(s.leaveGame), requireUser)
	e.POST("/games/:id/start", s.lobbyAction(s.startGame), requireUser)
	e.POST("/games/:id/bots", s.lobbyAction(s.addBot), requireUser)
	e.POST("/games/:id/bots/:seat/remove", s.lobbyAction(s.removeBot), requireUser)
	e.POST("/games/:id/take", s.act(engine.Take), requireUser)
	e.POST("/games/:id/pass", s.act(engine.Pass), requireUser)
	e.POST("/games/:id/tiger", s.act(engine.LayTiger), requireUser)

	// The JSON API, authenticated by personal token (docs/api.md).
	api := e.Group("/api/v1", s.apiAuth)
	api.GET("/me", s.apiMe)
	api.GET("/games", s.apiOpenGames)
	api.GET("/games/mine", s.apiMyGames)
	api.POST("/games", s.apiCreateGame)
	api.GET("/games/:id", s.apiGetGame)
	api.GET("/games/:id/record", s.apiRecord)
	api.POST("/games/:id/join", s.apiDo(apiLobby(func(c echo.Context, u, id int64, b apiBody) error {
		return s.games.Join(c.Request().Context(), u, id, b.Code)
	})))
	api.POST("/games/:id/leave", s.apiDo(apiLobby(func(c echo.Context, u, id int64, _ apiBody) error { return s.games.Leave(c.Request().Context(), u, id) })))
	api.POST("/games/:id/start", s.apiDo(apiLobby(func(c echo.Context, u, id int64, _ apiBody) error { return s.games.Start(c.Request().Context(), u, id) })))
	api.POST("/games/:id/bots", s.apiDo(apiLobby(func(c echo.Context, u, id int64, b apiBody) error {
		return s.games.AddBot(c.Request().Context(), u, id, b.Level)
	})))
	api.POST("/games/:id/take", s.apiAct(engine.Take))
	api.POST("/games/:id/pass", s.apiAct(engine.Pass))
	api.POST("/games/:id/tiger", s.apiAct(engine.LayTiger))
	api.GET("/queue", s.apiQueueStatus)
	api.POST("/queue", s.apiJoinQueue)
	api.DELETE("/queue", s.apiLeaveQueue)
	api.GET("/ladder", s.apiLadder)
}
