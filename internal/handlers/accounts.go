package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/session"
	"nothanks/internal/views"
)

func (s *Server) registerForm(c echo.Context) error {
	if u := currentUser(c); u != nil && !u.Guest {
		return redirect(c, "/")
	}
	return render(c, http.StatusOK, views.RegisterPage(s.page(c, tr(c, "Register")), views.Form{}))
}

func (s *Server) register(c echo.Context) error {
	var in accounts.RegisterInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	var u db.User
	var err error
	if cur := currentUser(c); cur != nil && cur.Guest {
		u, err = s.accounts.RegisterGuest(c.Request().Context(), cur.ID, in)
	} else {
		u, err = s.accounts.Register(c.Request().Context(), in)
	}
	if err != nil {
		if code := apperr.CodeOf(err); code == apperr.Internal {
			return err
		}
		f := formOf(c, map[string]string{"username": in.Username, "email": in.Email}, err)
		return render(c, statusOf(apperr.CodeOf(err)), views.RegisterPage(s.page(c, tr(c, "Register")), f))
	}
	if err := s.startSession(c, u); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "Welcome, {{.Name}}! Your account is ready.", "Name", u.Username))
	return redirect(c, "/")
}

func (s *Server) loginForm(c echo.Context) error {
	next := localPath(c.QueryParam("next"))
	if currentUser(c) != nil {
		return redirect(c, next)
	}
	return render(c, http.StatusOK, views.LoginPage(s.page(c, tr(c, "Log in")), views.Form{}, next))
}

func (s *Server) login(c echo.Context) error {
	var in accounts.LoginInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	next := localPath(c.FormValue("next"))
	u, err := s.accounts.Login(c.Request().Context(), in, c.RealIP())
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return err
		}
		if errors.Is(err, accounts.ErrDisabled) && u.ID != 0 {
			// Closed as a second account: the decision and its appeal.
			if _, _, cerr := s.fairplay.ClosedAccount(c.Request().Context(), u.ID); cerr == nil {
				if err := s.startClosedSession(c, u); err != nil {
					return err
				}
				return redirect(c, "/closed-account")
			}
		}
		f := views.Form{Values: map[string]string{"login": in.Login}, Error: messageOf(c.Request().Context(), err)}
		return render(c, statusOf(apperr.CodeOf(err)), views.LoginPage(s.page(c, tr(c, "Log in")), f, next))
	}
	if err := s.startSession(c, u); err != nil {
		return err
	}
	return redirect(c, next)
}

// startSession logs u in under a new session id: the old session, if any,
// is deleted, so an id planted before log-in is worth nothing after.
func (s *Server) startSession(c echo.Context, u db.User) error {
	return s.newSession(c, map[string]any{session.UserKey: u.ID}, func() {
		c.Set(ctxUser, &u)
		s.seen(c, u)
	})
}

// newSession replaces the request's session with a new one under a new
// id holding only values; then, before it is saved, runs then (nil: none).
func (s *Server) newSession(c echo.Context, values map[string]any, then func()) error {
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil {
		return err
	}
	if err := s.sessions.Destroy(c.Request().Context(), sess.ID); err != nil {
		return err
	}
	sess.ID = ""
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	for k, v := range values {
		sess.Values[k] = v
	}
	if then != nil {
		then()
	}
	return sess.Save(c.Request(), c.Response())
}

// deviceCookie is a long-lived random id of the browser, kept so that
// accounts logging in from one device can be linked for fair play
// (docs/fair-play.md); only its keyed hash is stored.
const deviceCookie = "device"

// seen records the device and network of a log-in for fair play; a
// failure is logged, never in the way of logging in.
func (s *Server) seen(c echo.Context, u db.User) {
	if s.fairplay == nil || u.Guest {
		return
	}
	id := ""
	if ck, err := c.Cookie(deviceCookie); err == nil && len(ck.Value) == 32 {
		id = ck.Value
	} else {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return
		}
		id = hex.EncodeToString(b)
		c.SetCookie(&http.Cookie{Name: deviceCookie, Value: id, Path: "/", MaxAge: 2 * 365 * 24 * 3600,
			HttpOnly: true, Secure: s.cfg.Secure(), SameSite: http.SameSiteLaxMode})
	}
	if err := s.fairplay.Seen(c.Request().Context(), u.ID, id, c.RealIP()); err != nil {
		s.log.Warn("record the device of a log-in", "err", err)
	}
}

// endSession logs this session out (its row is deleted, so a copy of the
// cookie is worth nothing either) and sends the browser to the log-in page,
// which says why. The message rides in a fresh session that holds no user.
func (s *Server) endSession(c echo.Context, msg string) error {
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil {
		return err
	}
	if err := s.sessions.Destroy(c.Request().Context(), sess.ID); err != nil {
		return err
	}
	sess.ID = ""
	for k := range sess.Values {
		delete(sess.Values, k)
	}
	sess.Values[flashKey] = "error|" + msg
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	c.Set(ctxUser, nil)
	return redirect(c, "/login?next=%2Fsettings")
}

func (s *Server) logout(c echo.Context) error {
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil {
		return err
	}
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return redirect(c, "/")
}

func (s *Server) settingsView(c echo.Context) (views.SettingsView, error) {
	u := currentUser(c)
	ctx := c.Request().Context()
	others, err := s.accounts.OtherSessions(ctx, u.ID, s.sessionHash(c))
	if err != nil {
		return views.SettingsView{}, err
	}
	n, err := s.notificationsView(c, nil, nil)
	if err != nil {
		return views.SettingsView{}, err
	}
	devices, err := s.devicesView(c)
	if err != nil {
		return views.SettingsView{}, err
	}
	return views.SettingsView{
		Username: u.Username, Email: u.Email, EmailVerified: u.EmailVerifiedAt != nil, PendingEmail: deref(u.PendingEmail), TurnSound: u.TurnSound,
		OtherSessions: others, Notifications: n, Devices: devices, Bot: views.BotAccountView{Bot: u.Bot},
	}, nil
}

func (s *Server) sessionHash(c echo.Context) []byte {
	sess, err := s.sessions.Get(c.Request(), s.sessions.Name())
	if err != nil || sess.ID == "" {
		return nil
	}
	return session.HashID(sess.ID)
}

func (s *Server) settings(c echo.Context) error {
	v, err := s.settingsView(c)
	if err != nil {
		return err
	}
	return s.settingsWithTokens(c, http.StatusOK, v)
}

func (s *Server) changePassword(c echo.Context) error {
	var in accounts.PasswordInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	u := currentUser(c)
	ctx := c.Request().Context()
	if err := s.accounts.ChangePassword(ctx, u.ID, in); err != nil {
		if errors.Is(err, accounts.ErrReauthExhausted) {
			return s.endSession(c, messageOf(c.Request().Context(), err))
		}
		return s.settingsRefused(c, err, nil, func(v *views.SettingsView, f views.Form) { v.Password = f })
	}
	msg := tr(c, "Your password is changed.")
	if in.EndOtherSessions {
		n, err := s.accounts.EndOtherSessions(ctx, u.ID, s.sessionHash(c))
		if err != nil {
			return err
		}
		msg = trn(c, "Your password is changed. {{.Count}} other session was logged out.", "Your password is changed. {{.Count}} other sessions were logged out.", int(n))
	}
	s.setFlash(c, "ok", msg)
	return redirect(c, "/settings")
}

func (s *Server) changeEmail(c echo.Context) error {
	var in accounts.EmailInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	u := currentUser(c)
	pending, err := s.accounts.ChangeEmail(c.Request().Context(), u.ID, in)
	if err != nil {
		if errors.Is(err, accounts.ErrReauthExhausted) {
			return s.endSession(c, messageOf(c.Request().Context(), err))
		}
		return s.settingsRefused(c, err, map[string]string{"email": in.Email}, func(v *views.SettingsView, f views.Form) { v.EmailForm = f })
	}
	if pending {
		s.setFlash(c, "ok", tr(c, "A confirmation link is on its way to {{.New}}. Your address stays {{.Old}} until you press it.", "New", strings.TrimSpace(in.Email), "Old", u.Email))
	} else {
		s.setFlash(c, "ok", tr(c, "Your email address is changed. A confirmation link is on its way to it."))
	}
	return redirect(c, "/settings#email")
}

func (s *Server) saveTurnAlerts(c echo.Context) error {
	on := c.FormValue("turn_sound") == "on"
	if err := s.accounts.SetTurnSound(c.Request().Context(), currentUser(c).ID, on); err != nil {
		return err
	}
	if on {
		s.setFlash(c, "ok", tr(c, "A short sound will play when a game comes to you."))
	} else {
		s.setFlash(c, "ok", tr(c, "No sound will play when a game comes to you."))
	}
	return redirect(c, "/settings#alerts")
}

func (s *Server) resendEmailChange(c echo.Context) error {
	if err := s.accounts.ResendPendingEmail(c.Request().Context(), currentUser(c).ID); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The confirmation link is on its way again."))
	return redirect(c, "/settings#email")
}

func (s *Server) cancelEmailChange(c echo.Context) error {
	u := currentUser(c)
	if err := s.accounts.CancelPendingEmail(c.Request().Context(), u.ID); err != nil {
		return err
	}
	s.setFlash(c, "ok", tr(c, "The change is cancelled. Your address stays {{.Email}}.", "Email", u.Email))
	return redirect(c, "/settings#email")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
