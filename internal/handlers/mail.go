package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/links"
	"nothanks/internal/views"
)

// signed checks a mailed link's signature and expiry; the error says what
// is wrong in words.
func (s *Server) signed(c echo.Context, purpose string) error {
	err := s.links.Verify(purpose, c.QueryParams(), s.clock.Now())
	switch {
	case errors.Is(err, links.ErrExpired):
		return apperr.E(apperr.Conflict, "This link has expired.")
	case err != nil:
		return apperr.E(apperr.NotFound, "This link is not valid: it may have been cut short by your mail program. Copy the whole link into the address bar.")
	}
	return nil
}

func queryInt(c echo.Context, name string) int64 {
	n, _ := strconv.ParseInt(c.QueryParam(name), 10, 64)
	return n
}

func (s *Server) verifyEmail(c echo.Context) error {
	if err := s.signed(c, "verify"); err != nil {
		return err
	}
	changed, err := s.accounts.VerifyEmail(c.Request().Context(), queryInt(c, "u"), c.QueryParam("e"))
	if err != nil {
		return err
	}
	if changed {
		s.setFlash(c, "ok", tr(c, "Your email address is now {{.Email}}.", "Email", c.QueryParam("e")))
	} else {
		s.setFlash(c, "ok", tr(c, "Your email address is confirmed. We will tell you when it is your turn."))
	}
	if currentUser(c) != nil {
		return redirect(c, "/settings#notifications")
	}
	return redirect(c, "/login")
}

func (s *Server) resendVerification(c echo.Context) error {
	if err := s.accounts.SendVerification(c.Request().Context(), currentUser(c).ID); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "A confirmation link is on its way to {{.Email}}.", "Email", currentUser(c).Email))
	return redirect(c, "/settings#notifications")
}

func (s *Server) forgotForm(c echo.Context) error {
	return render(c, http.StatusOK, views.ForgotPage(s.page(c, tr(c, "Forgot your password?")), views.Form{}, false))
}

func (s *Server) forgot(c echo.Context) error {
	email := c.FormValue("email")
	if err := s.accounts.RequestReset(c.Request().Context(), email); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		return render(c, statusOf(apperr.CodeOf(err)), views.ForgotPage(s.page(c, tr(c, "Forgot your password?")), formOf(c, map[string]string{"email": email}, err), false))
	}
	return render(c, http.StatusOK, views.ForgotPage(s.page(c, tr(c, "Forgot your password?")), views.Form{}, true))
}

func (s *Server) resetForm(c echo.Context) error {
	if err := s.signed(c, "reset"); err != nil {
		return err
	}
	if err := s.accounts.CheckReset(c.Request().Context(), queryInt(c, "r"), queryInt(c, "u"), c.QueryParam("h")); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ResetPage(s.page(c, tr(c, "Choose a new password")), views.Form{}, c.QueryParams().Encode()))
}

func (s *Server) reset(c echo.Context) error {
	if err := s.signed(c, "reset"); err != nil {
		return err
	}
	in := accounts.ResetInput{New: c.FormValue("new"), Confirm: c.FormValue("confirm")}
	err := s.accounts.ResetPassword(c.Request().Context(), queryInt(c, "r"), queryInt(c, "u"), c.QueryParam("h"), in)
	if err != nil {
		if len(apperr.FieldsOf(err)) == 0 {
			return err
		}
		return render(c, statusOf(apperr.CodeOf(err)), views.ResetPage(s.page(c, tr(c, "Choose a new password")), formOf(c, nil, err), c.QueryParams().Encode()))
	}
	s.setFlash(c, "ok", tr(c, "Your password is set. Log in with it."))
	return redirect(c, "/login")
}

var mailKindLabels = map[string]string{
	db.MailYourTurn: i18n.M("your turn"), db.MailReminder: i18n.M("reminder"), db.MailGameOver: i18n.M("game over"), db.MailTimedOut: i18n.M("your time ran out"),
	db.MailInvite: i18n.M("invitations"), db.MailTournamentStart: i18n.M("tournaments"), db.MailTournamentTable: i18n.M("tournaments"),
}

func (s *Server) unsubscribeForm(c echo.Context) error {
	if err := s.signed(c, "unsubscribe"); err != nil {
		return err
	}
	label, ok := mailKindLabels[c.QueryParam("k")]
	if !ok {
		return apperr.E(apperr.NotFound, "This link names no kind of mail we send.")
	}
	return render(c, http.StatusOK, views.UnsubscribePage(s.page(c, tr(c, "Unsubscribe")), tr(c, label), c.QueryParams().Encode(), false))
}

// unsubscribe is the one-click unsubscribe (RFC 8058): mail programs POST
// to the link itself, from anywhere, so the signature is the only check.
func (s *Server) unsubscribe(c echo.Context) error {
	if err := s.signed(c, "unsubscribe"); err != nil {
		return err
	}
	kind := c.QueryParam("k")
	if err := s.accounts.Unsubscribe(c.Request().Context(), queryInt(c, "u"), kind); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.UnsubscribePage(s.page(c, tr(c, "Unsubscribed")), tr(c, mailKindLabels[kind]), "", true))
}

// moveLink shows what a mailed move link will do: one press confirms, so
// that mail scanners that open links make no move.
func (s *Server) moveLink(c echo.Context) error {
	if err := s.signed(c, "move"); err != nil {
		return s.staleMove(c, err)
	}
	if err := s.botLink(c); err != nil {
		return err
	}
	gameID := queryInt(c, "g")
	kind := engine.ActionKind(c.QueryParam("k"))
	label := map[engine.ActionKind]string{engine.Take: tr(c, "Take the card"), engine.Pass: tr(c, "No thanks!")}[kind]
	if label == "" {
		return apperr.E(apperr.NotFound, "This link names no move.")
	}
	version, _ := strconv.Atoi(c.QueryParam("v"))
	summary := tr(c, "The table has moved on since the mail was sent: pressing shows it as it is now.")
	if st, err := s.games.State(c.Request().Context(), gameID); err == nil && st.Game.Version == version && st.Started() {
		// Only what the whole table sees: the active card and its pot.
		v := st.Engine().View(engine.Spectator)
		ctx := c.Request().Context()
		summary = tr(c, "The active card is {{.Card}}, with {{.Tokens}} on it. The card stays yours to decide on until the deadline.", "Card", v.ActiveCard, "Tokens", views.TokensOn(ctx, v.Pot))
		if kind == engine.Take {
			label = tr(c, "Take {{.Card}} and {{.Tokens}}", "Card", v.ActiveCard, "Tokens", views.TokensOn(ctx, v.Pot))
		} else {
			label = tr(c, "No thanks! to {{.Card}}: put a token on it", "Card", v.ActiveCard)
		}
	} else if err != nil && !errors.Is(err, games.ErrNoGame) {
		return err
	}
	return render(c, http.StatusOK, views.MoveLinkPage(s.page(c, tr(c, "Game #{{.ID}}", "ID", gameID)), views.MoveLinkView{
		Query: c.QueryParams().Encode(), GameID: gameID, Label: label, Summary: summary,
	}))
}

// move makes a mailed move once, for the version the mail described; a
// stale or expired link shows the table as it is, with why.
func (s *Server) move(c echo.Context) error {
	if err := s.signed(c, "move"); err != nil {
		return s.staleMove(c, err)
	}
	if err := s.botLink(c); err != nil {
		return err
	}
	userID, gameID := queryInt(c, "u"), queryInt(c, "g")
	version, _ := strconv.Atoi(c.QueryParam("v"))
	_, err := s.games.Act(c.Request().Context(), userID, gameID, version, engine.ActionKind(c.QueryParam("k")))
	if err != nil {
		return s.staleMove(c, err)
	}
	s.setFlash(c, "ok", tr(c, "Your move is made."))
	return redirect(c, fmt.Sprintf("/games/%d", gameID))
}

// staleMove shows the current table (the mail's recipient's view when they
// are logged in) with the reason the link did not act.
func (s *Server) staleMove(c echo.Context, err error) error {
	gameID := queryInt(c, "g")
	code := apperr.CodeOf(err)
	if code == apperr.Internal || gameID == 0 {
		return err
	}
	why := messageOf(c.Request().Context(), err)
	if code == apperr.Conflict {
		why = tr(c, "This link no longer acts: {{.Reason}}", "Reason", why)
	}
	v, berr := s.board(c, gameID, "", "")
	if berr != nil {
		return err
	}
	// Above the board, not in it: the board is the stream's to replace.
	// Shown in this answer, whether or not the browser has a session.
	return s.renderGamePage(c, http.StatusConflict, v, &views.Flash{Kind: "error", Message: why})
}

func (s *Server) notificationsView(c echo.Context, form *views.Form, vacation *views.Form) (views.NotificationsView, error) {
	u := currentUser(c)
	ctx := c.Request().Context()
	n := views.NotificationsView{Verified: u.EmailVerifiedAt != nil, Zones: timeZones}
	for h := 0; h < 24; h++ {
		n.Hours = append(n.Hours, views.Choice{Value: strconv.Itoa(h), Label: fmt.Sprintf("%02d:00", h)})
	}
	if form != nil {
		n.Form = *form
	} else {
		m, err := s.accounts.MailSettings(ctx, u.ID)
		if err != nil {
			return n, err
		}
		n.Form = views.Form{Values: map[string]string{
			"mail_your_turn": strconv.FormatBool(m.YourTurn), "mail_reminder": strconv.FormatBool(m.Reminder),
			"mail_game_over": strconv.FormatBool(m.GameOver), "mail_timed_out": strconv.FormatBool(m.TimedOut),
			"mail_invite": strconv.FormatBool(m.Invite), "mail_tournament": strconv.FormatBool(m.Tournament), "turn_digest": strconv.FormatBool(m.TurnDigest), "digest_hour": strconv.Itoa(m.DigestHour), "time_zone": m.TimeZone,
		}}
	}
	if vacation != nil {
		n.Vacation = *vacation
	}
	vs, err := s.games.Vacation(ctx, u.ID)
	if err != nil {
		return n, err
	}
	n.DaysLeft = vs.Left
	if vs.Until != nil {
		n.OnVacation = i18n.DateTime(i18n.From(c.Request().Context()), vs.Until.UTC())
	}
	return n, nil
}

// timeZones offered in the settings (any IANA name is accepted).
var timeZones = []string{
	"UTC", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Madrid", "Europe/Paris", "Europe/Rome", "Europe/Berlin",
	"Europe/Amsterdam", "Europe/Zurich", "Europe/Vienna", "Europe/Warsaw", "Europe/Athens", "Europe/Helsinki", "Europe/Moscow",
	"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Mexico_City", "America/Bogota",
	"America/Buenos_Aires", "America/Sao_Paulo", "America/Toronto", "Asia/Tokyo", "Asia/Seoul", "Asia/Shanghai", "Asia/Kolkata",
	"Asia/Singapore", "Australia/Sydney", "Pacific/Auckland", "Africa/Johannesburg",
}

func (s *Server) settingsWith(c echo.Context, status int, edit func(*views.SettingsView) error) error {
	v, err := s.settingsView(c)
	if err != nil {
		return err
	}
	if err := edit(&v); err != nil {
		return err
	}
	return s.settingsWithTokens(c, status, v)
}

func (s *Server) saveNotifications(c echo.Context) error {
	var in accounts.NotificationsInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	if err := s.accounts.SetMailSettings(c.Request().Context(), currentUser(c).ID, in); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		f := formOf(c, map[string]string{
			"mail_your_turn": strconv.FormatBool(in.YourTurn), "mail_reminder": strconv.FormatBool(in.Reminder),
			"mail_game_over": strconv.FormatBool(in.GameOver), "mail_timed_out": strconv.FormatBool(in.TimedOut),
			"mail_invite": strconv.FormatBool(in.Invite), "mail_tournament": strconv.FormatBool(in.Tournament), "turn_digest": strconv.FormatBool(in.TurnDigest), "digest_hour": strconv.Itoa(in.DigestHour), "time_zone": in.TimeZone,
		}, err)
		return s.settingsWith(c, statusOf(apperr.CodeOf(err)), func(v *views.SettingsView) error {
			n, err := s.notificationsView(c, &f, nil)
			v.Notifications = n
			return err
		})
	}
	s.setFlash(c, "ok", tr(c, "Your notification settings are saved."))
	return redirect(c, "/settings#notifications")
}

func (s *Server) startVacation(c echo.Context) error {
	days, err := strconv.Atoi(c.FormValue("days"))
	if err != nil {
		days = 0
	}
	if err := s.games.StartVacation(c.Request().Context(), currentUser(c).ID, days); err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		f := formOf(c, map[string]string{"days": c.FormValue("days")}, err)
		if len(f.Errors) == 0 {
			f.Errors = map[string]string{"days": messageOf(c.Request().Context(), err)}
		}
		return s.settingsWith(c, statusOf(apperr.CodeOf(err)), func(v *views.SettingsView) error {
			n, err := s.notificationsView(c, nil, &f)
			v.Notifications = n
			return err
		})
	}
	s.setFlash(c, "ok", trn(c, "Enjoy your day away: your correspondence clocks are paused.", "Enjoy your {{.Count}} days away: your correspondence clocks are paused.", days))
	return redirect(c, "/settings#vacation")
}

func (s *Server) endVacation(c echo.Context) error {
	if err := s.games.EndVacation(c.Request().Context(), currentUser(c).ID); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "Welcome back: your clocks run again, and unused whole days are yours again."))
	return redirect(c, "/settings#vacation")
}
