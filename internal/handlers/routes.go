package handlers

import "github.com/labstack/echo/v4"

// routes registers every route of the site.
func (s *Server) routes(e *echo.Echo) {
	e.GET("/healthz", s.healthz)
	e.GET("/static/:name", s.asset)
	e.GET("/favicon.ico", s.favicon)

	e.GET("/", s.home)
	e.GET("/rules", s.rules)
	e.GET("/register", s.registerForm)
	e.POST("/register", s.register)
	e.GET("/login", s.loginForm)
	e.POST("/login", s.login)
	e.POST("/logout", s.logout)
	e.GET("/u/:name", s.profile)

	// Routes for logged-in users only. (Not an Echo group with an empty
	// prefix: that would run requireUser for every unknown path too.)
	e.GET("/settings", s.settings, requireUser)
	e.POST("/settings/password", s.changePassword, requireUser)
	e.POST("/settings/email", s.changeEmail, requireUser)
}
