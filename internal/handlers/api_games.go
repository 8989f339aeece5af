package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/accounts"
	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/i18n"
	"nothanks/internal/invites"
)

const ctxAPIUser = "api_user"

// apiAuth authenticates API requests by personal token:
// "Authorization: Bearer nt_...". Cookies are not looked at, so a browser
// cannot be made to call the API on its user's behalf.
func (s *Server) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, ok := bearerToken(c.Request())
		if !ok {
			// No credentials: the challenge alone (RFC 6750 §3.1).
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="nothanks"`)
			return accounts.ErrBadToken
		}
		u, err := s.accounts.UserByAPIToken(c.Request().Context(), token)
		if err != nil {
			if apperr.CodeOf(err) == apperr.Unauthorized {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="nothanks", error="invalid_token"`)
				return accounts.ErrUnknownToken
			}
			return err
		}
		c.Set(ctxAPIUser, &u)
		return next(c)
	}
}

// bearerToken is the token of a request's "Authorization: Bearer <token>"
// header; the scheme's case does not matter (RFC 9110 §11.1). ok is false
// without such a header.
func bearerToken(r *http.Request) (token string, ok bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(r.Header.Get(echo.HeaderAuthorization)), " ")
	token = strings.TrimSpace(token)
	if !found || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

func apiUser(c echo.Context) *db.User {
	u, _ := c.Get(ctxAPIUser).(*db.User)
	return u
}

// apiGame is a game in the API's lists.
type apiGame struct {
	ID          int64          `json:"id"`
	URL         string         `json:"url"`
	Status      string         `json:"status"`
	Options     engine.Options `json:"options"`
	Seats       int            `json:"seats"`
	Taken       int            `json:"taken"`
	Players     []string       `json:"players"`
	Public      bool           `json:"public"`
	Ranked      bool           `json:"ranked"`
	Pace        string         `json:"pace"`
	TurnSeconds int            `json:"turn_seconds"`
	YourTurn    bool           `json:"your_turn"`
	// UnreadChat: in your own list, the messages in the players' chat you
	// have not read (reading the table or its chat marks them read).
	UnreadChat int `json:"unread_chat"`
	// BotAccounts are the names among Players that are bot accounts'.
	BotAccounts []string `json:"bot_accounts"`
	// MinReliability: the share of games finished (percent) the table
	// asks of those who join, if it asks one.
	MinReliability *int `json:"min_reliability,omitempty"`
}

func (s *Server) apiGameOf(g db.GameSummary, userID int64) apiGame {
	var o engine.Options
	_ = jsonUnmarshal(g.Options, &o)
	return apiGame{
		ID: g.ID, URL: fmt.Sprintf("%s/games/%d", s.cfg.BaseURL, g.ID), Status: g.Status, Options: o, Seats: g.Seats,
		Taken: g.Taken, Players: games.SummaryNames(g), Public: g.Public, Ranked: g.Ranked, Pace: g.Pace, TurnSeconds: g.TurnSeconds,
		YourTurn:   g.Status == db.StatusPlaying && g.TurnUserID != nil && *g.TurnUserID == userID,
		UnreadChat: g.UnreadChat, BotAccounts: games.SummaryBotAccounts(g), MinReliability: g.MinReliability,
	}
}

// apiTable is one player's view of a game.
type apiTable struct {
	ID          int64          `json:"id"`
	URL         string         `json:"url"`
	Status      string         `json:"status"`
	Version     int            `json:"version"`
	Options     engine.Options `json:"options"`
	Public      bool           `json:"public"`
	Ranked      bool           `json:"ranked"`
	Pace        string         `json:"pace"`
	TurnSeconds int            `json:"turn_seconds"`
	Players     []apiPlayer    `json:"players"`
	// YourSeat is null for a spectator.
	YourSeat *int       `json:"your_seat"`
	YourTurn bool       `json:"your_turn"`
	Deadline *time.Time `json:"deadline,omitempty"`
	// View is the projection for you (null before the start): your own
	// tokens only, never the deck or the removed cards. Its events are the
	// last RecentEvents of the round in play; in the answer to a move,
	// those the move caused (the move and what followed it: the next card,
	// the end of a round); all of the game's with ?log=full.
	View *engine.View `json:"view"`
	// EventsOmitted counts the round's earlier events left out of view.events.
	EventsOmitted int `json:"events_omitted,omitempty"`
	// InviteCode and InviteURL: a private table's code, for the players
	// seated at it while it is open, to pass on to those they want at it
	// (POST /api/v1/games/{id}/join with {"code"}, or the address in a
	// browser), as its page shows them.
	InviteCode string `json:"invite_code,omitempty"`
	InviteURL  string `json:"invite_url,omitempty"`
	// MinReliability: the share of games finished (percent) the table
	// asks of those who join, if it asks one.
	MinReliability *int `json:"min_reliability,omitempty"`
}

// logShown says how much of the log an answer carries.
type logShown int

const (
	logRecent logShown = iota // the last RecentEvents of the round
	logMove                   // what the move just made caused
	logFull                   // the whole game's log
)

func logParam(c echo.Context, otherwise logShown) logShown {
	if c.QueryParam("log") == "full" {
		return logFull
	}
	return otherwise
}

type apiPlayer struct {
	Seat *int   `json:"seat"`
	Name string `json:"name"`
	Bot  string `json:"bot,omitempty"`
	// BotAccount: the player is a bot account (docs/bots.md); Bot is a
	// bot of the server's.
	BotAccount bool `json:"bot_account"`
}

// RecentEvents is how much of the round's log an API answer carries by
// default, so that answers do not grow with the game; ?log=full asks for
// the whole game's log.
const RecentEvents = 40

func (s *Server) apiTableOf(t *games.Table, log logShown) apiTable {
	g := t.Game
	out := apiTable{
		ID: g.ID, URL: fmt.Sprintf("%s/games/%d", s.cfg.BaseURL, g.ID), Status: g.Status, Version: g.Version,
		Options: t.Options, Public: g.Public, Ranked: g.Ranked, Pace: g.Pace, TurnSeconds: g.TurnSeconds, View: t.View,
	}
	if t.View != nil {
		v := *t.View
		n := len(v.Events)
		switch log {
		case logFull:
			v.Events = t.Log()
		case logMove:
			// The move is the game's last action; what follows it in the
			// log is what it caused (the next card, the end of a round and
			// the start of the next).
			full := t.Log()
			from := len(full)
			for from > 0 {
				from--
				if _, ok := full[from].Action(); ok {
					break
				}
			}
			v.Events = full[from:]
			inRound := 0
			for _, e := range v.Events {
				if e.Round == v.Round {
					inRound++
				}
			}
			out.EventsOmitted = max(n-inRound, 0)
		default:
			if n > RecentEvents {
				out.EventsOmitted = n - RecentEvents
				v.Events = v.Events[n-RecentEvents:]
			}
		}
		out.View = &v
	}
	for _, st := range t.Seats {
		p := apiPlayer{Seat: st.Seat, Name: games.Name(st), BotAccount: st.BotAccount}
		if st.BotLevel != nil {
			p.Bot = *st.BotLevel
		}
		out.Players = append(out.Players, p)
	}
	if t.ViewerSeat != engine.Spectator {
		seat := t.ViewerSeat
		out.YourSeat = &seat
		// A seat its player abandoned is the bot's to play: not their turn.
		out.YourTurn = t.View != nil && t.View.Turn == seat && !t.View.Seats[seat].Abandoned
	}
	if out.YourTurn && g.DueAt != nil {
		out.Deadline = g.DueAt
	}
	if !g.Public && t.Seated && g.Status == db.StatusOpen {
		out.InviteCode, out.InviteURL = g.InviteCode, s.cfg.BaseURL.String()+"/join/"+g.InviteCode
	}
	out.MinReliability = g.MinReliability
	return out
}

func (s *Server) apiMe(c echo.Context) error {
	u := apiUser(c)
	return c.JSON(http.StatusOK, map[string]any{"id": u.ID, "username": u.Username, "bot": u.Bot})
}

func (s *Server) apiOpenGames(c echo.Context) error {
	gs, err := s.games.OpenGames(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]apiGame, len(gs))
	for i, g := range gs {
		out[i] = s.apiGameOf(g, apiUser(c).ID)
	}
	return c.JSON(http.StatusOK, map[string]any{"games": out})
}

func (s *Server) apiMyGames(c echo.Context) error {
	u := apiUser(c)
	gs, err := s.games.MyGames(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	out := make([]apiGame, len(gs))
	for i, g := range gs {
		out[i] = s.apiGameOf(g, u.ID)
	}
	return c.JSON(http.StatusOK, map[string]any{"games": out})
}

// apiCreateInput is a new game's options and, optionally, the names of
// players to invite to it.
type apiCreateInput struct {
	games.CreateInput
	Invite []string `json:"invite"`
}

func (s *Server) apiCreateGame(c echo.Context) error {
	in := apiCreateInput{CreateInput: games.DefaultCreateInput()}
	if err := apiBind(c, &in, i18n.M("The body is not a JSON object of game options.")); err != nil {
		return err
	}
	t, err := s.invites.CreateTable(c.Request().Context(), apiUser(c).ID, in.CreateInput, invites.Names(strings.Join(in.Invite, ",")))
	if t.ID == 0 && t.Refused != nil && (err == nil || apperr.CodeOf(err) == apperr.Invalid) {
		// The refused name is answered in fields as "invite", beside
		// the options' own mistakes, so that all come at once.
		return withField(c, t.Refused, "invite", apperr.FieldsOf(err))
	}
	if err != nil {
		return err
	}
	// An invitation refused once the table exists (the hourly limit)
	// leaves the table: it is answered as created.
	return s.apiShow(c, t.ID, http.StatusCreated)
}

// withField answers a refusal of bad input (Invalid) in the error's fields
// too, under field, beside others: with no others its message stays the
// answer's, else the answer says to correct the fields. Other errors are
// returned as they are.
func withField(c echo.Context, refused error, field string, others map[string]string) error {
	var e *apperr.Error
	if !errors.As(refused, &e) || e.Code != apperr.Invalid {
		return refused
	}
	f := apperr.FieldErrors{}
	for k, v := range others {
		f[k] = v
	}
	f[field] = messageOf(c.Request().Context(), refused)
	if len(f) > 1 {
		return f.Err()
	}
	out := *e
	out.Fields = f
	return &out
}

func (s *Server) apiShow(c echo.Context, id int64, status int) error {
	u := apiUser(c)
	t, err := s.games.Table(c.Request().Context(), &u.ID, id, "")
	if err != nil {
		return err
	}
	return c.JSON(status, s.apiTableOf(t, logParam(c, logRecent)))
}

func (s *Server) apiGetGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	return s.apiShow(c, id, http.StatusOK)
}

type apiBody struct {
	Version *int   `json:"version"`
	Code    string `json:"code"`
	Level   string `json:"level"`
	// Abandon confirms leaving a game in play (POST …/leave).
	Abandon bool `json:"abandon"`
}

// apiDo runs a lobby or table use case and answers with the caller's view:
// the game as the use case left it when it returns it (a move), else read
// again.
func (s *Server) apiDo(do func(c echo.Context, userID, gameID int64, body apiBody) (*games.State, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := gameID(c)
		if err != nil {
			return err
		}
		var body apiBody
		if c.Request().ContentLength != 0 {
			if err := apiBind(c, &body, i18n.M("The body is not valid JSON.")); err != nil {
				return err
			}
		}
		u := apiUser(c)
		after, err := do(c, u.ID, id, body)
		if err != nil {
			return err
		}
		if after == nil {
			return s.apiShow(c, id, http.StatusOK)
		}
		t, err := after.Table(&u.ID, "")
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, s.apiTableOf(t, logParam(c, logMove)))
	}
}

// apiLobby adapts a lobby use case, which returns no state, to apiDo.
func apiLobby(do func(c echo.Context, userID, gameID int64, body apiBody) error) func(echo.Context, int64, int64, apiBody) (*games.State, error) {
	return func(c echo.Context, u, id int64, b apiBody) (*games.State, error) { return nil, do(c, u, id, b) }
}

func (s *Server) apiAct(kind engine.ActionKind) echo.HandlerFunc {
	return s.apiDo(func(c echo.Context, userID, id int64, b apiBody) (*games.State, error) {
		if b.Version == nil || *b.Version < 0 {
			return nil, (apperr.FieldErrors{"version": "Send the version of the game you saw, as {\"version\": N}."}).Err()
		}
		after, err := s.games.Act(c.Request().Context(), userID, id, *b.Version, kind)
		if apperr.CodeOf(err) == apperr.Conflict {
			// A move refused because the game is not where the caller
			// thought (a stale version, not its turn, not started or
			// over) comes with the caller's view as it is now ("here is
			// the table as it is now"), so that no read is needed.
			if t, terr := s.games.Table(c.Request().Context(), &userID, id, ""); terr == nil {
				view := s.apiTableOf(t, logParam(c, logRecent))
				return nil, withGame{err, &view}
			}
		}
		return after, err
	})
}

// withGame is an API error answered with the caller's view of the game
// beside it ("game"): a refused move's 409.
type withGame struct {
	error
	game *apiTable
}

func (w withGame) Unwrap() error { return w.error }

func (s *Server) apiRecord(c echo.Context) error { return s.record(c) }
