package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apistream"
	"nothanks/internal/apperr"
	"nothanks/internal/chat"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

// Chat is the HTML of one channel of a game's chat, for the streams.
func (r streamRenderer) Chat(ctx context.Context, gameID int64, l chat.Log, k watch.ChatKey) ([]byte, error) {
	ctx = r.s.withBotAccounts(i18n.With(ctx, i18n.Or(k.Lang)))
	var buf bytes.Buffer
	if err := views.ChatBody(chatView(gameID, k, l.Channel(k.Channel))).Render(ctx, &buf); err != nil {
		return nil, fmt.Errorf("render chat: %w", err)
	}
	return buf.Bytes(), nil
}

// chatView is a channel's messages as the views of k show them: a hidden
// message's text only in the moderators' view.
func chatView(gameID int64, k watch.ChatKey, ms []db.ChatMessage) views.ChatView {
	v := views.ChatView{GameID: gameID, Channel: k.Channel, Code: k.Code, Moderator: k.Moderator, Messages: make([]views.ChatLine, len(ms))}
	for i, m := range ms {
		v.Messages[i] = views.ChatLine{ID: m.ID, Author: m.Author, Hidden: m.HiddenAt != nil, Body: m.Body,
			At: m.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), Clock: m.CreatedAt.UTC().Format("15:04")}
		if m.HiddenAt != nil && !k.Moderator {
			v.Messages[i].Body = ""
		}
	}
	return v
}

// isModerator reports whether the viewer is an active moderator.
func isModerator(c echo.Context) bool {
	u := currentUser(c)
	return u != nil && u.Admin && u.Active()
}

// chatWhy says why a viewer cannot write in a game's chat ("" when they can).
func (s *Server) chatWhy(c echo.Context, status string) string {
	u := currentUser(c)
	switch {
	case u == nil:
		return tr(c, "Log in to write in this chat.")
	case u.Guest:
		return tr(c, "Guests cannot chat: register (it keeps your games) to talk at tables.")
	case u.Silenced(s.clock.Now()):
		return tr(c, "A moderator has silenced you in chat for now.")
	case status == db.StatusCancelled:
		return tr(c, "This game was cancelled: its chat is closed.")
	}
	return ""
}

// chatPanelOf builds the chat of a game for a viewer who may see it.
func (s *Server) chatPanelOf(c echo.Context, gameID int64, code string) (*views.ChatPanelView, error) {
	st, err := s.games.State(c.Request().Context(), gameID)
	if err != nil {
		return nil, err
	}
	viewer := viewerID(c)
	if !st.CanSee(viewer, code) {
		return nil, games.ErrNoGame
	}
	k := watch.ChatKeyFor(st, watch.Viewer{UserID: viewer, Code: code, Moderator: isModerator(c)})
	return s.chatPanel(c, gameID, k, st.Game.Status)
}

// chatPanel builds the chat beside a game's table: the channel of k, and
// the viewer's form and mute.
func (s *Server) chatPanel(c echo.Context, gameID int64, k watch.ChatKey, status string) (*views.ChatPanelView, error) {
	ctx := c.Request().Context()
	p := &views.ChatPanelView{Form: views.ChatFormView{GameID: gameID, Code: k.Code, Why: s.chatWhy(c, status)}}
	if u := currentUser(c); u != nil && !u.Guest {
		p.CanMute = true
		var err error
		if p.Muted, err = s.chat.Muted(ctx, u.ID, gameID); err != nil {
			return nil, err
		}
	}
	l, err := s.chat.Read(ctx, gameID)
	if err != nil {
		return nil, err
	}
	p.Log = chatView(gameID, k, l.Channel(k.Channel))
	if u := currentUser(c); u != nil && k.Channel == db.ChatPlayers && !p.Muted {
		// A player who sees the table has read its chat.
		if err := s.chat.Seen(ctx, u.ID, gameID, chat.LastOf(l.Players)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// readChat records that the player saw the table's chat up to a message
// (the page tells, when a message comes over the stream while it is in
// view).
func (s *Server) readChat(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	last, err := strconv.ParseInt(c.FormValue("last"), 10, 64)
	if err != nil || last <= 0 {
		return apperr.E(apperr.Invalid, "There is no such message.")
	}
	if err := s.chat.MarkRead(c.Request().Context(), currentUser(c).ID, id, last); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// chatFragment answers the polling fallback with the viewer's messages.
func (s *Server) chatFragment(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.chatPanelOf(c, id, c.QueryParam("code"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ChatBody(p.Log))
}

// postChat writes a message. From the page (htmx) it answers with a fresh
// form (or the refused message kept in it, with the reason) and the
// messages; without script it goes back to the game.
func (s *Server) postChat(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	code, text := c.FormValue("code"), c.FormValue("text")
	_, err = s.chat.Post(c.Request().Context(), *currentUser(c), id, code, text)
	if code := apperr.CodeOf(err); err != nil && code != apperr.Invalid && code != apperr.TooMany && code != apperr.Forbidden && code != apperr.Conflict {
		return err
	}
	back := fmt.Sprintf("/games/%d%s#chat", id, views.CodeQuery(code))
	if !isFragment(c) {
		if err != nil {
			s.setFlash(c, "error", messageOf(c.Request().Context(), err))
		}
		return redirect(c, back)
	}
	p, perr := s.chatPanelOf(c, id, code)
	if perr != nil {
		return perr
	}
	f := p.Form
	if err != nil {
		f.Value, f.Error = text, messageOf(c.Request().Context(), err)
	} else {
		f.Sent = true
	}
	return render(c, http.StatusOK, views.ChatPosted(f, p.Log))
}

// muteChat mutes or unmutes a game's chat for the viewer, and goes back.
func (s *Server) muteChat(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	muted := c.FormValue("muted") == "true"
	if err := s.chat.SetMuted(c.Request().Context(), currentUser(c).ID, id, muted); err != nil {
		return err
	}
	if muted {
		s.setFlash(c, "ok", tr(c, "You muted this game's chat."))
	} else {
		s.setFlash(c, "ok", tr(c, "This game's chat shows again."))
	}
	return redirect(c, fmt.Sprintf("/games/%d%s#chat", id, views.CodeQuery(c.FormValue("code"))))
}

func messageID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, chat.ErrNoMessage
	}
	return id, nil
}

// reportForm asks why a message is reported.
func (s *Server) reportForm(c echo.Context) error {
	return s.renderReport(c, http.StatusOK, c.QueryParam("code"), views.Form{})
}

func (s *Server) renderReport(c echo.Context, status int, code string, f views.Form) error {
	id, err := messageID(c)
	if err != nil {
		return err
	}
	m, err := s.chat.Message(c.Request().Context(), *currentUser(c), id, code)
	if err != nil {
		return err
	}
	v := views.ReportView{MessageID: m.ID, GameID: m.GameID, Author: views.PlayerName(c.Request().Context(), m.Author), Body: m.Body, Code: code, Form: f,
		Moderator: isModerator(c), Hidden: m.HiddenAt != nil}
	if m.Author != db.DeletedName {
		v.AuthorName = m.Author
	}
	return render(c, status, views.ReportPage(s.page(c, tr(c, "Report a message")), v))
}

// report sends a message to the moderators.
func (s *Server) report(c echo.Context) error {
	id, err := messageID(c)
	if err != nil {
		return err
	}
	code, reason := c.FormValue("code"), c.FormValue("reason")
	gameID, err := s.chat.Report(c.Request().Context(), *currentUser(c), id, code, reason)
	switch kind := apperr.CodeOf(err); {
	case err == nil:
		s.setFlash(c, "ok", tr(c, "Thank you: the moderators will look at this message."))
	case kind == apperr.Conflict || kind == apperr.Forbidden:
		s.setFlash(c, "info", messageOf(c.Request().Context(), err))
		if gameID == 0 {
			return redirect(c, "/")
		}
	case kind == apperr.Invalid:
		f := views.Form{Values: map[string]string{"reason": reason}, Errors: map[string]string{"reason": messageOf(c.Request().Context(), err)}}
		return s.renderReport(c, http.StatusUnprocessableEntity, code, f)
	default:
		return err
	}
	return redirect(c, fmt.Sprintf("/games/%d%s#chat", gameID, views.CodeQuery(code)))
}

// apiChatMessage is a message in the JSON API. A hidden message has no
// body, but for a moderator.
type apiChatMessage struct {
	ID     int64  `json:"id"`
	Author string `json:"author"`
	// BotAccount: the author is a bot account (docs/bots.md).
	BotAccount bool    `json:"bot_account"`
	Body       *string `json:"body,omitempty"`
	Hidden     bool    `json:"hidden,omitempty"`
	CreatedAt  string  `json:"created_at"`
}

// apiChatMessageOf is a message as the API gives it: a hidden message's
// text to a moderator only.
func apiChatMessageOf(m db.ChatMessage, moderator bool) apiChatMessage {
	a := apiChatMessage{ID: m.ID, Author: m.Author, BotAccount: m.AuthorBot, Hidden: m.HiddenAt != nil, CreatedAt: m.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")}
	if !a.Hidden || moderator {
		a.Body = &m.Body
	}
	return a
}

// chatLine is a game stream's line for a message of the chat its reader
// reads.
type chatLine struct {
	Type    string         `json:"type"`
	Channel string         `json:"channel"`
	Message apiChatMessage `json:"message"`
}

// ChatLine draws an API stream's line for a chat message.
func (r streamRenderer) ChatLine(m db.ChatMessage, moderator bool) ([]byte, error) {
	b, err := json.Marshal(chatLine{Type: apistream.LineChat, Channel: m.Channel, Message: apiChatMessageOf(m, moderator)})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// apiChat lists the messages of the chat the caller reads at a game.
func (s *Server) apiChat(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := apiUser(c)
	st, err := s.games.State(ctx, id)
	if err != nil {
		return err
	}
	code := c.QueryParam("code")
	if !st.CanSee(&u.ID, code) {
		return games.ErrNoGame
	}
	channel := chat.ChannelOf(st, &u.ID)
	l, err := s.chat.Read(ctx, id)
	if err != nil {
		return err
	}
	if channel == db.ChatPlayers {
		if err := s.chat.Seen(ctx, u.ID, id, chat.LastOf(l.Players)); err != nil {
			return err
		}
	}
	out := []apiChatMessage{}
	for _, m := range l.Channel(channel) {
		out = append(out, apiChatMessageOf(m, u.Admin && u.Active()))
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": channel, "messages": out})
}

// apiPostChat writes a message: {"text": "…"} (and "code" for a private
// game watched with its invite code).
func (s *Server) apiPostChat(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	var body struct {
		Text string `json:"text"`
		Code string `json:"code"`
	}
	if err := apiBind(c, &body, i18n.M("The body is not valid JSON.")); err != nil {
		return err
	}
	mid, err := s.chat.Post(c.Request().Context(), *apiUser(c), id, body.Code, body.Text)
	if err != nil {
		// What is wrong with a message is wrong with its text.
		return withField(c, err, "text", nil)
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": mid, "text": strings.TrimSpace(chat.Clean(body.Text))})
}
