package handlers

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/i18n"
	"nothanks/internal/moderation"
	"nothanks/internal/views"
)

// admin shows the moderators' page: open reports, and actions on an
// account by name.
func (s *Server) admin(c echo.Context) error {
	return s.renderAdmin(c, http.StatusOK, views.Form{})
}

func (s *Server) renderAdmin(c echo.Context, status int, f views.Form) error {
	ctx := c.Request().Context()
	rs, err := s.mod.Reports(ctx, *currentUser(c))
	if err != nil {
		return err
	}
	lang := i18n.From(ctx)
	now := s.clock.Now()
	v := views.AdminView{Form: f}
	for _, h := range moderation.Silences {
		label := trn(c, "Silence in chat for {{.Count}} hour", "Silence in chat for {{.Count}} hours", h)
		if h%24 == 0 {
			label = trn(c, "Silence in chat for {{.Count}} day", "Silence in chat for {{.Count}} days", h/24)
		}
		v.Silences = append(v.Silences, views.Choice{Value: strconv.Itoa(h), Label: label})
	}
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.MessageID
	}
	around, err := s.mod.Conversations(ctx, *currentUser(c), ids)
	if err != nil {
		return err
	}
	for _, r := range rs {
		row := views.ReportRow{MessageID: r.MessageID, GameID: r.GameID, GameURL: fmt.Sprintf("/games/%d", r.GameID), Author: r.Author,
			Body: r.Body, SaidAt: i18n.DateTime(lang, r.SaidAt), Hidden: r.HiddenAt != nil, Reports: r.Reports, Reasons: r.Reasons, Reporters: r.Reporters}
		if r.Channel == db.ChatPlayers {
			row.Channel = tr(c, "Players' chat")
		} else {
			row.Channel = tr(c, "Spectators' chat")
		}
		switch {
		case r.DisabledAt != nil:
			row.AuthorState = tr(c, "disabled")
		case r.Silenced != nil && now.Before(*r.Silenced):
			row.AuthorState = tr(c, "silenced")
		}
		for _, m := range around[r.MessageID] {
			row.Around = append(row.Around, views.ContextLine{Author: views.PlayerName(ctx, m.Author), Body: m.Body, Reported: m.ID == r.MessageID, Hidden: m.HiddenAt != nil})
		}
		v.Reports = append(v.Reports, row)
	}
	if v.Appeals, err = s.appealViews(ctx, *currentUser(c)); err != nil {
		return err
	}
	return render(c, status, views.AdminPage(s.page(c, tr(c, "Moderation")), v))
}

// modLog shows the moderation log.
func (s *Server) modLog(c echo.Context) error {
	ctx := c.Request().Context()
	es, err := s.mod.Log(ctx, *currentUser(c))
	if err != nil {
		return err
	}
	lang := i18n.From(ctx)
	var v views.ModLogView
	for _, e := range es {
		row := views.ModLogRow{At: i18n.DateTime(lang, e.CreatedAt), Action: s.actionName(c, e.Action), Note: e.Note}
		if e.AdminName != nil {
			row.Admin = *e.AdminName
		} else {
			row.Admin = tr(c, "command line")
		}
		if e.TargetName != nil {
			row.Target = *e.TargetName
		}
		if e.MessageID != nil {
			row.MessageID = *e.MessageID
		}
		if e.MessageBody != nil {
			row.Message, row.MessageHidden = *e.MessageBody, e.MessageHidden
		}
		v.Entries = append(v.Entries, row)
	}
	return render(c, http.StatusOK, views.ModLogPage(s.page(c, tr(c, "Moderation log")), v))
}

func (s *Server) actionName(c echo.Context, action string) string {
	switch action {
	case db.ModGrant:
		return tr(c, "made a moderator")
	case db.ModRevoke:
		return tr(c, "no longer a moderator")
	case db.ModHide:
		return tr(c, "hid a message")
	case db.ModUnhide:
		return tr(c, "showed a message again")
	case db.ModDismiss:
		return tr(c, "dismissed reports")
	case db.ModSilence:
		return tr(c, "silenced")
	case db.ModUnsilence:
		return tr(c, "lifted a silence")
	case db.ModDisable:
		return tr(c, "disabled the account")
	case db.ModEnable:
		return tr(c, "enabled the account")
	case db.ModHideEvent:
		return tr(c, "hid a tournament's description")
	case db.ModUnhideEvent:
		return tr(c, "showed a tournament's description again")
	case db.ModAppealForgiven:
		return tr(c, "forgave an abandoned game on appeal")
	case db.ModAppealUpheld:
		return tr(c, "upheld an abandoned game on appeal")
	case db.ModFairDismiss:
		return tr(c, "dismissed a fair-play case")
	case db.ModFairWarn:
		return tr(c, "warned for fair play")
	case db.ModFairMark:
		return tr(c, "marked for unfair play")
	case db.ModFairClose:
		return tr(c, "closed as a second account")
	case db.ModFairUndo:
		return tr(c, "undid a fair-play decision")
	case db.ModFairRefund:
		return tr(c, "gave back one game's points")
	case db.ModFairUpheld:
		return tr(c, "upheld a fair-play decision on appeal")
	case db.ModFairOverturned:
		return tr(c, "overturned a fair-play decision on appeal")
	}
	return action
}

// adminMessage hides a message, shows it again, or dismisses its reports.
func (s *Server) adminMessage(what string) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := messageID(c)
		if err != nil {
			return err
		}
		ctx, admin := c.Request().Context(), *currentUser(c)
		switch what {
		case "hide":
			err = s.mod.Hide(ctx, admin, id, true)
			if err == nil {
				s.setFlash(c, "ok", tr(c, "The message is hidden at its table and in its replay."))
			}
		case "unhide":
			err = s.mod.Hide(ctx, admin, id, false)
			if err == nil {
				s.setFlash(c, "ok", tr(c, "The message shows again at its table and in its replay."))
			}
		default:
			err = s.mod.Dismiss(ctx, admin, id)
			if err == nil {
				s.setFlash(c, "ok", tr(c, "The reports are dismissed."))
			}
		}
		if err != nil {
			return err
		}
		return redirect(c, adminBack(c))
	}
}

// adminBack is where an action taken away from the moderators' page (the
// report page of a message at its table) returns: the page's "back" field
// when it is a path on this site, else the moderators' page.
func adminBack(c echo.Context) string {
	if back := c.FormValue("back"); back != "" {
		return localPath(back)
	}
	return "/admin"
}

// adminUser silences, disables or enables the account of the path.
func (s *Server) adminUser(what string) echo.HandlerFunc {
	return func(c echo.Context) error {
		action := what
		if what == "silence" {
			action += ":" + c.FormValue("hours")
		} else if c.FormValue("on") == "false" {
			action = "enable"
		}
		return s.adminAct(c, c.Param("name"), action, c.FormValue("note"))
	}
}

// adminUsers acts on the account named in the page's form.
func (s *Server) adminUsers(c echo.Context) error {
	return s.adminAct(c, strings.TrimSpace(c.FormValue("name")), c.FormValue("action"), c.FormValue("note"))
}

func (s *Server) adminAct(c echo.Context, name, action, note string) error {
	ctx, admin := c.Request().Context(), *currentUser(c)
	var err error
	var done string
	switch {
	case strings.HasPrefix(action, "silence:"):
		hours, perr := strconv.Atoi(strings.TrimPrefix(action, "silence:"))
		if perr != nil {
			err = apperr.E(apperr.Invalid, "A silence lasts from 1 hour to a year.")
			break
		}
		err = s.mod.Silence(ctx, admin, name, hours, note)
		done = tr(c, "{{.Name}} is silenced in chat.", "Name", name)
		if hours == 0 {
			done = tr(c, "{{.Name}} may chat again.", "Name", name)
		}
	case action == "disable":
		err = s.mod.Disable(ctx, admin, name, true, note)
		done = tr(c, "{{.Name}}'s account is disabled: its sessions ended and its API tokens stopped working.", "Name", name)
	case action == "enable":
		err = s.mod.Disable(ctx, admin, name, false, note)
		done = tr(c, "{{.Name}}'s account is enabled again.", "Name", name)
	default:
		err = apperr.E(apperr.Invalid, "Choose an action.")
	}
	if err != nil {
		if code := apperr.CodeOf(err); code == apperr.Invalid || code == apperr.NotFound {
			f := views.Form{Values: map[string]string{"name": name, "note": note}, Error: messageOf(ctx, err)}
			return s.renderAdmin(c, statusOf(code), f)
		}
		return err
	}
	s.setFlash(c, "ok", done)
	return redirect(c, adminBack(c))
}
