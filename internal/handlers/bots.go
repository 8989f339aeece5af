package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/botaccounts"
	"nothanks/internal/i18n"
	"nothanks/internal/ranked"
	"nothanks/internal/views"
)

// Bot accounts (docs/bots.md): the upgrade (API and Settings), the bot
// queue, the guards that keep bot accounts off the pages that play and
// within their limits in the API, and the mark on their names.

// notForBots guards the pages that play (join, leave or start a table,
// moves, the ranked queue, invitations, rematches, tournaments): a bot
// account logged in with a session reads pages and manages its settings
// and tokens, but plays through the API only.
func (s *Server) notForBots(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u != nil && u.Bot {
			return botaccounts.ErrPlaysByAPI
		}
		return next(c)
	}
}

// botGames guards the API's routes that add a game to a bot account's
// (create, join, accept an invitation or a rematch): at most
// botaccounts.MaxGames at once, then 429.
func (s *Server) botGames(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := apiUser(c); u != nil && u.Bot {
			if err := s.bots.CheckGames(c.Request().Context(), *u); err != nil {
				return err
			}
		}
		return next(c)
	}
}

// botMoves counts a bot account's moves through the API: at most
// botaccounts.MaxMoves a minute, then 429.
func (s *Server) botMoves(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := apiUser(c); u != nil && u.Bot {
			if err := s.bots.CountMove(c.Request().Context(), *u); err != nil {
				return err
			}
		}
		return next(c)
	}
}

// botLink refuses a mailed one-click move (/m) of a bot account, which
// names its player in the link rather than in a session.
func (s *Server) botLink(c echo.Context) error {
	u, err := s.accounts.User(c.Request().Context(), queryInt(c, "u"))
	if err == nil && u.Bot {
		return botaccounts.ErrPlaysByAPI
	}
	return nil
}

// markBotAccounts tells the pages' views which names are bot accounts', so
// that they mark them wherever they show one.
func (s *Server) markBotAccounts(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := c.Request().URL.Path; !strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/static/") {
			c.SetRequest(c.Request().WithContext(s.withBotAccounts(c.Request().Context())))
		}
		return next(c)
	}
}

// withBotAccounts is ctx knowing the bot accounts' names, for views.
func (s *Server) withBotAccounts(ctx context.Context) context.Context {
	if s.bots == nil {
		return ctx
	}
	return views.WithBotAccounts(ctx, s.bots.Names(ctx).Has)
}

// apiBotUpgrade makes the caller's account a bot account, for good:
// POST /api/v1/bot/account/upgrade (as lichess). 200 {"ok": true, "bot":
// true}; 409 with the reason when the account may not become one.
func (s *Server) apiBotUpgrade(c echo.Context) error {
	if err := s.bots.Upgrade(c.Request().Context(), *apiUser(c)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true, "bot": true})
}

// The bot queue: as the ranked queue, for bot accounts only.

func (s *Server) apiBotQueueStatus(c echo.Context) error {
	if !apiUser(c).Bot {
		return botaccounts.ErrNotABot
	}
	return s.apiPoolStatus(c, ranked.Bots)
}

func (s *Server) apiBotQueueJoin(c echo.Context) error {
	var in ranked.QueueInput
	if err := apiBind(c, &in, i18n.M("The body is not valid JSON: send {\"sizes\": [3, 4], \"pace\": \"live\"}.")); err != nil {
		return err
	}
	if err := s.bots.JoinQueue(c.Request().Context(), *apiUser(c), in); err != nil {
		return err
	}
	return s.apiPoolStatus(c, ranked.Bots)
}

func (s *Server) apiBotQueueLeave(c echo.Context) error {
	if !apiUser(c).Bot {
		return botaccounts.ErrNotABot
	}
	if err := s.ranked.Leave(c.Request().Context(), apiUser(c).ID); err != nil {
		return err
	}
	return s.apiPoolStatus(c, ranked.Bots)
}

// upgradeBot is the settings page's upgrade: the box "I understand this
// cannot be undone" ticked, the account becomes a bot account.
func (s *Server) upgradeBot(c echo.Context) error {
	u := currentUser(c)
	err := (apperr.FieldErrors{"understand": i18n.M("Tick the box to say you understand that this cannot be undone.")}).Err()
	if c.FormValue("understand") == "true" {
		err = s.bots.Upgrade(c.Request().Context(), *u)
	}
	if err != nil {
		return s.settingsRefused(c, err, nil, func(v *views.SettingsView, f views.Form) { v.Bot.Form = f })
	}
	s.setFlash(c, "ok", tr(c, "This account is a bot account now. Create an API token below for your program: it plays through the API."))
	return redirect(c, "/settings#bot")
}
