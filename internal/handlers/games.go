package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/invites"
	"nothanks/internal/lists"
	"nothanks/internal/views"
	"nothanks/internal/watch"
)

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// gameID reads the :id path parameter.
func gameID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.E(apperr.NotFound, "There is no such game.")
	}
	return id, nil
}

func viewerID(c echo.Context) *int64 {
	if u := currentUser(c); u != nil {
		return &u.ID
	}
	return nil
}

func (s *Server) openGames(c echo.Context) error {
	gs, err := s.games.OpenGames(c.Request().Context())
	if err != nil {
		return err
	}
	p := s.page(c, tr(c, "Open games"))
	p.Lists = lists.Open
	rows := gameRows(c.Request().Context(), gs, 0)
	s.fillRowReliability(c.Request().Context(), rows, gs)
	return render(c, http.StatusOK, views.OpenGamesPage(p, rows))
}

func (s *Server) watch(c echo.Context) error {
	gs, err := s.games.LiveGames(c.Request().Context())
	if err != nil {
		return err
	}
	p := s.page(c, tr(c, "Watch"))
	p.Lists = lists.Live
	return render(c, http.StatusOK, views.WatchPage(p, gameRows(c.Request().Context(), gs, 0)))
}

func (s *Server) myGames(c echo.Context) error {
	u := currentUser(c)
	gs, err := s.games.MyGames(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	return render(c, http.StatusOK, views.MyGamesPage(s.page(c, tr(c, "My games")), s.invitations(ctx, u.ID), gameRows(ctx, gs, u.ID)))
}

// newGameView is the create-game form with in's options and the names to
// invite as typed; err's field errors are shown, and inviteErr's message on
// the names.
func newGameView(c echo.Context, in games.CreateInput, invite string, err, inviteErr error) views.NewGameView {
	ctx := c.Request().Context()
	v := views.NewGameView{Pace: in.Pace, TurnSeconds: strconv.Itoa(in.TurnSeconds)}
	values := map[string]string{
		"seats": strconv.Itoa(in.Seats), "rounds": strconv.Itoa(in.Rounds), "variant": in.Variant,
		"open_tokens": strconv.FormatBool(in.OpenTokens), "hidden_tiger": strconv.FormatBool(in.HiddenTiger),
		"private": strconv.FormatBool(in.Private), "ranked": strconv.FormatBool(in.Ranked), "invite": invite,
		"min_reliability": strconv.Itoa(in.MinReliability),
	}
	v.Form = formOf(c, values, err)
	if inviteErr != nil {
		if v.Form.Errors == nil {
			v.Form.Errors = map[string]string{}
		}
		v.Form.Errors["invite"] = messageOf(ctx, inviteErr)
	}
	for n := engine.MinPlayers; n <= engine.MaxPlayers; n++ {
		v.Seats = append(v.Seats, views.Choice{Value: strconv.Itoa(n), Label: i18n.N(ctx, "{{.Count}} player", "{{.Count}} players", n)})
	}
	for n := engine.MinRounds; n <= engine.MaxRounds; n++ {
		label := i18n.N(ctx, "{{.Count}} round", "{{.Count}} rounds", n)
		if n == engine.RecommendedRounds {
			label = i18n.T(ctx, "{{.Rounds}} (recommended)", "Rounds", label)
		}
		v.Rounds = append(v.Rounds, views.Choice{Value: strconv.Itoa(n), Label: label})
	}
	for _, va := range engine.Variants {
		v.Variants = append(v.Variants, views.Choice{Value: string(va), Label: variantLabel(ctx, va)})
	}
	for _, sec := range games.LiveTimers {
		v.LiveTimers = append(v.LiveTimers, views.Choice{Value: strconv.Itoa(sec), Label: durationLabel(ctx, sec)})
	}
	for _, sec := range games.CorrespondenceTimers {
		v.CorrTimers = append(v.CorrTimers, views.Choice{Value: strconv.Itoa(sec), Label: durationLabel(ctx, sec)})
	}
	v.MinShares = append(v.MinShares, views.Choice{Value: "0", Label: i18n.T(ctx, "Anyone")})
	for _, p := range []int{50, 60, 70, 80, 90, 95} {
		v.MinShares = append(v.MinShares, views.Choice{Value: strconv.Itoa(p), Label: i18n.T(ctx, "At least {{.Percent}}%", "Percent", p)})
	}
	return v
}

// newGame is the create-game form; ?invite=NAME fills in a player to
// invite (the profile's "Invite to a game").
func (s *Server) newGame(c echo.Context) error {
	invite := strings.Join(invites.Names(c.QueryParam("invite")), ", ")
	return render(c, http.StatusOK, views.NewGamePage(s.page(c, tr(c, "Create a game")), newGameView(c, games.DefaultCreateInput(), invite, nil, nil)))
}

// createGame creates a table and invites the players named on the form;
// a name that cannot be invited keeps the form, with nothing created.
func (s *Server) createGame(c echo.Context) error {
	var in games.CreateInput
	if err := c.Bind(&in); err != nil {
		return apperr.E(apperr.Invalid, "The form could not be read.")
	}
	ctx, u := c.Request().Context(), currentUser(c)
	invite := c.FormValue("invite")
	t, err := s.invites.CreateTable(ctx, u.ID, in, invites.Names(invite))
	if err != nil && apperr.CodeOf(err) == apperr.Internal {
		return err
	}
	if err != nil || t.ID == 0 {
		status := statusOf(apperr.CodeOf(errors.Join(err, t.Refused)))
		return render(c, status, views.NewGamePage(s.page(c, tr(c, "Create a game")), newGameView(c, in, invite, err, t.Refused)))
	}
	switch {
	case t.Refused != nil:
		// The table stands; a name refused since the check is said.
		s.setFlash(c, "error", messageOf(ctx, t.Refused))
	case len(t.Invited) > 0:
		s.setFlash(c, "ok", trn(c, "{{.Names}} is invited: the invitation waits on their start page.", "{{.Names}} are invited: the invitation waits on their start pages.", len(t.Invited), "Names", strings.Join(t.Invited, ", ")))
	}
	return redirect(c, fmt.Sprintf("/games/%d", t.ID))
}

// board loads a game in one read and builds the viewer's view model.
func (s *Server) board(c echo.Context, id int64, code, notice string) (views.TableView, error) {
	st, err := s.games.State(c.Request().Context(), id)
	if err != nil {
		return views.TableView{}, err
	}
	return s.boardOf(c, st, code, notice)
}

// boardOf builds the viewer's view model of a state they may see.
func (s *Server) boardOf(c echo.Context, st *games.State, code, notice string) (views.TableView, error) {
	viewer := viewerID(c)
	if !st.CanSee(viewer, code) {
		return views.TableView{}, games.ErrNoGame
	}
	v := s.boardView(c.Request().Context(), st, watch.KeyFor(st, watch.Viewer{UserID: viewer, Code: code}))
	v.Notice = notice
	return v, nil
}

func (s *Server) showGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	v, err := s.board(c, id, c.QueryParam("code"), "")
	if err != nil {
		return err
	}
	return s.renderGamePage(c, http.StatusOK, v, nil)
}

// renderGamePage renders a game's page, telling its stream which board the
// page already shows. A message given here is shown above the board in this
// very answer (the visitor may have no session to carry a flash).
func (s *Server) renderGamePage(c echo.Context, status int, v views.TableView, message *views.Flash) error {
	var buf bytes.Buffer
	if err := views.Board(v).Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	v.Digest = views.BoardDigest(buf.Bytes())
	if v.Status == db.StatusPlaying {
		v.Watchers = s.watchers(c.Request().Context(), v.GameID)
	}
	// The chat of the board's viewer: no second read of the game.
	channel := db.ChatSpectators
	if v.Seated {
		channel = db.ChatPlayers
	}
	chat, err := s.chatPanel(c, v.GameID, watch.ChatKey{Channel: channel, Code: v.Code, Moderator: isModerator(c)}, v.Status)
	if err != nil {
		return err
	}
	if u := currentUser(c); u != nil && v.Status == db.StatusOpen && !v.Seated {
		v.Invitation = s.invitationTo(c.Request().Context(), u.ID, v.GameID)
	}
	p := s.page(c, tr(c, "Game #{{.ID}}", "ID", v.GameID))
	p.TurnsInGameStream = true
	p.Tournament = v.TournamentID
	if message != nil {
		p.Flash = message
	}
	return render(c, status, views.GamePage(p, v, chat))
}

// joinByInvite opens a private game's lobby from its invite link.
func (s *Server) joinByInvite(c echo.Context) error {
	g, err := s.games.GameByInvite(c.Request().Context(), c.Param("code"))
	if err != nil {
		return err
	}
	v, err := s.board(c, g, c.Param("code"), "")
	if err != nil {
		return err
	}
	return s.renderGamePage(c, http.StatusOK, v, nil)
}

// boardFragment answers the polling fallback: 204 when the viewer's version
// is current, else the board.
func (s *Server) boardFragment(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	v, err := s.board(c, id, c.QueryParam("code"), "")
	if err != nil {
		return err
	}
	// Unchanged: same version and status (a start keeps version 0). The
	// lobby has no version of its own, so it is always sent.
	if seen, err := strconv.Atoi(c.QueryParam("v")); err == nil && seen == v.Version && c.QueryParam("s") == v.Status && v.Status != db.StatusOpen {
		return c.NoContent(http.StatusNoContent)
	}
	return render(c, http.StatusOK, views.Board(v))
}

// afterChange answers a lobby or table action: the fresh board for htmx
// (with the refusal's message, if any), a redirect for a plain form. after
// is the game as the action left it, when the action returns it (a move):
// the answer is drawn from it, not read again.
func (s *Server) afterChange(c echo.Context, id int64, code string, after *games.State, actErr error) error {
	status := http.StatusOK
	notice := ""
	if actErr != nil {
		switch apperr.CodeOf(actErr) {
		case apperr.Internal, apperr.NotFound, apperr.Unauthorized:
			return actErr
		}
		status, notice = statusOf(apperr.CodeOf(actErr)), messageOf(c.Request().Context(), actErr)
	}
	if !isFragment(c) {
		if notice != "" {
			s.setFlash(c, "error", notice)
		}
		return redirect(c, fmt.Sprintf("/games/%d", id))
	}
	var v views.TableView
	var err error
	if after != nil {
		v, err = s.boardOf(c, after, code, notice)
	} else {
		v, err = s.board(c, id, code, notice)
	}
	if err != nil {
		return err
	}
	return render(c, status, views.Board(v))
}

func (s *Server) lobbyAction(do func(c echo.Context, userID, gameID int64) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := gameID(c)
		if err != nil {
			return err
		}
		return s.afterChange(c, id, c.FormValue("code"), nil, do(c, currentUser(c).ID, id))
	}
}

func (s *Server) joinGame(c echo.Context, userID, id int64) error {
	return s.games.Join(c.Request().Context(), userID, id, c.FormValue("code"))
}

// leaveGame leaves an open table; at a game in play it is the
// confirmation that leaves (abandonGame), so a plain form sent there goes
// to that page.
func (s *Server) leaveGame(c echo.Context, userID, id int64) error {
	err := s.games.Leave(c.Request().Context(), userID, id)
	if apperr.CodeOf(err) == apperr.Conflict {
		if st, serr := s.games.State(c.Request().Context(), id); serr == nil && st.Game.Status == db.StatusPlaying {
			return games.CanAbandon(st, userID)
		}
	}
	return err
}

func (s *Server) startGame(c echo.Context, userID, id int64) error {
	return s.games.Start(c.Request().Context(), userID, id)
}

func (s *Server) addBot(c echo.Context, userID, id int64) error {
	return s.games.AddBot(c.Request().Context(), userID, id, c.FormValue("level"))
}

func (s *Server) removeBot(c echo.Context, userID, id int64) error {
	seatID, err := strconv.ParseInt(c.Param("seat"), 10, 64)
	if err != nil {
		return apperr.E(apperr.NotFound, "That bot is not at this table.")
	}
	return s.games.RemoveBot(c.Request().Context(), userID, id, seatID)
}

// act handles Take, No thanks! and the Tiger, for the version the player saw.
func (s *Server) act(kind engine.ActionKind) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := gameID(c)
		if err != nil {
			return err
		}
		version, err := strconv.Atoi(c.FormValue("version"))
		if err != nil {
			return s.afterChange(c, id, "", nil, apperr.E(apperr.Invalid, "The move did not say which table it was made on; reload the page."))
		}
		after, err := s.games.Act(c.Request().Context(), currentUser(c).ID, id, version, kind)
		return s.afterChange(c, id, "", after, err)
	}
}

func (s *Server) replay(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	step, _ := strconv.Atoi(c.QueryParam("step"))
	t, steps, roundStarts, err := s.games.ReplayStep(c.Request().Context(), viewerID(c), id, step)
	if err != nil {
		return err
	}
	step = min(max(step, 0), steps)
	v := views.TableView{GameID: id, Status: db.StatusPlaying, Summary: summary(c.Request().Context(), t.Options), Pace: paceLabel(c.Request().Context(), t.Game.Pace, t.Game.TurnSeconds), MyTokens: -1}
	if step == steps {
		v.Status = db.StatusFinished
	}
	v = fillTable(c.Request().Context(), v, t, t.View, db.Game{ID: id}, s.clock.Now())
	v.ReplayURL = ""
	r := views.ReplayView{GameID: id, Step: step, Steps: steps, Table: v, RoundStarts: roundStarts, CSRF: csrfToken(c)}
	r.Analysis = s.analysisView(c, id, step)
	s.markLog(c, &r, t.View.Events)
	events := t.View.Events
	for i := len(events) - 1; i >= 0; i-- {
		if _, ok := events[i].Action(); ok {
			r.Last = eventText(c.Request().Context(), events[i], localNames(c.Request().Context(), t.SeatNames()))
			break
		}
	}
	if !isFragment(c) {
		l, err := s.chat.Read(c.Request().Context(), id)
		if err != nil {
			return err
		}
		code, mod := c.QueryParam("code"), isModerator(c)
		r.Chat = &views.ReplayChatView{
			Players:    chatView(id, watch.ChatKey{Channel: db.ChatPlayers, Code: code, Moderator: mod}, l.Players),
			Spectators: chatView(id, watch.ChatKey{Channel: db.ChatSpectators, Code: code, Moderator: mod}, l.Spectators),
		}
	}
	return render(c, http.StatusOK, views.ReplayPage(s.page(c, tr(c, "Replay of game #{{.ID}}", "ID", id)), r))
}

// record serves a finished game's record as JSON.
func (s *Server) record(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	viewer := viewerID(c)
	if u := apiUser(c); u != nil {
		viewer = &u.ID
	}
	r, _, err := s.games.Record(c.Request().Context(), viewer, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}
