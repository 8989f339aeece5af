package handlers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/i18n"
	"nothanks/internal/pairing"
	"nothanks/internal/tournaments"
)

// API: tournaments.

type apiTournament struct {
	ID          int64          `json:"id"`
	URL         string         `json:"url"`
	Kind        string         `json:"kind"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Status      string         `json:"status"`
	Rated       bool           `json:"rated"`
	Public      bool           `json:"public"`
	TableSize   int            `json:"table_size"`
	Options     engine.Options `json:"options"`
	Pace        string         `json:"pace"`
	TurnSeconds int            `json:"turn_seconds"`
	StartsAt    time.Time      `json:"starts_at"`
	EndsAt      *time.Time     `json:"ends_at,omitempty"`
	Minutes     *int           `json:"minutes,omitempty"`
	Rounds      *int           `json:"rounds,omitempty"`
	Round       int            `json:"round"`
	Players     int            `json:"players"`
	MaxPlayers  int            `json:"max_players"`
	Version     int            `json:"version"`
	// InviteCode and InviteURL: a private event's code and the address
	// that carries it, for those who may see the event (its creator, its
	// players, whoever came with the code), as its page shows them; every
	// event an answer holds is one its reader may see.
	InviteCode string `json:"invite_code,omitempty"`
	InviteURL  string `json:"invite_url,omitempty"`
}

func (s *Server) apiTournamentOf(t db.Tournament) apiTournament {
	a := apiTournament{ID: t.ID, URL: s.cfg.BaseURL.String() + tournamentURL(t.ID, ""), Kind: t.Kind, Name: t.Name, Status: t.Status,
		Rated: t.Rated, Public: t.Public, TableSize: t.TableSize, Options: tournaments.OptionsOf(t), Pace: t.Pace, TurnSeconds: t.TurnSeconds,
		StartsAt: t.StartsAt.UTC(), Minutes: t.Minutes, Rounds: t.Rounds, Round: t.Round, Players: t.Players, MaxPlayers: t.MaxPlayers, Version: t.Version}
	if t.DescriptionHiddenBy == nil {
		a.Description = t.Description
	}
	if !t.Public && t.Code != "" {
		a.InviteCode, a.InviteURL = t.Code, s.cfg.BaseURL.String()+tournamentURL(t.ID, t.Code)
	}
	if t.Minutes != nil {
		e := t.EndsAt().UTC()
		a.EndsAt = &e
	}
	return a
}

func (s *Server) apiTournaments(c echo.Context) error {
	l, err := s.tournaments.List(c.Request().Context(), apiUser(c).ID)
	if err != nil {
		return err
	}
	out := map[string][]apiTournament{"upcoming": {}, "running": {}, "finished": {}}
	for _, t := range l.Upcoming {
		out["upcoming"] = append(out["upcoming"], s.apiTournamentOf(t))
	}
	for _, t := range l.Running {
		out["running"] = append(out["running"], s.apiTournamentOf(t))
	}
	for _, t := range l.Finished {
		out["finished"] = append(out["finished"], s.apiTournamentOf(t))
	}
	return c.JSON(http.StatusOK, out)
}

// apiTournamentBody is a created or changed event: the rules as in the
// form, the start as RFC 3339.
func apiTournamentBody(c echo.Context) (tournaments.Input, error) {
	var in tournaments.Input
	err := apiBind(c, &in, i18n.M("The body is not valid JSON, or starts_at is not an RFC 3339 time."))
	return in, err
}

func (s *Server) apiCreateTournament(c echo.Context) error {
	in, err := apiTournamentBody(c)
	if err != nil {
		return err
	}
	id, err := s.tournaments.Create(c.Request().Context(), *apiUser(c), in)
	if err != nil {
		return err
	}
	return s.apiShowTournament(c, id, http.StatusCreated)
}

func (s *Server) apiEditTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	in, err := apiTournamentBody(c)
	if err != nil {
		return err
	}
	if err := s.tournaments.Edit(c.Request().Context(), *apiUser(c), id, in); err != nil {
		return err
	}
	return s.apiShowTournament(c, id, http.StatusOK)
}

func (s *Server) apiGetTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	return s.apiShowTournament(c, id, http.StatusOK)
}

type apiStanding struct {
	Rank     int         `json:"rank"`
	Username string      `json:"username"`
	Points   float64     `json:"points"`
	Games    int         `json:"games"`
	Wins     int         `json:"wins"`
	Byes     int         `json:"byes,omitempty"`
	OnFire   bool        `json:"on_fire,omitempty"`
	Buchholz *float64    `json:"buchholz,omitempty"`
	Status   string      `json:"status"`
	GameID   *int64      `json:"game_id,omitempty"`
	Results  []apiResult `json:"results"`
}

type apiResult struct {
	GameID  *int64  `json:"game_id"`
	Round   int     `json:"round"`
	Place   int     `json:"place,omitempty"`
	Points  float64 `json:"points"`
	Counted float64 `json:"counted"`
	Won     bool    `json:"won,omitempty"`
}

type apiEventTable struct {
	GameID   int64    `json:"game_id"`
	Round    int      `json:"round"`
	Status   string   `json:"status"`
	Players  []string `json:"players"`
	Placings []int    `json:"placings,omitempty"`
}

func half(p pairing.Points) float64 { return float64(p) / 2 }

// apiShowTournament answers an event as the token's owner may see it: its
// rules, their part, the standings (after ?round=N of a Swiss event), the
// tables and the featured game.
func (s *Server) apiShowTournament(c echo.Context, id int64, status int) error {
	ctx := c.Request().Context()
	u := apiUser(c)
	if _, err := s.tournaments.Get(ctx, &u.ID, id, c.QueryParam("code")); err != nil {
		return err
	}
	tv, err := s.tournaments.Load(ctx, id)
	if err != nil {
		return err
	}
	standings := tv.Standings
	if r, err := strconv.Atoi(c.QueryParam("round")); err == nil && r >= 1 && r <= len(tv.ByRound) {
		standings = tv.ByRound[r-1]
	}
	out := map[string]any{"tournament": s.apiTournamentOf(tv.T)}
	list := []apiStanding{}
	for _, st := range standings {
		a := apiStanding{Rank: st.Rank, Username: st.Name, Points: half(st.Points), Games: st.Games, Wins: st.Wins, Byes: st.Byes, OnFire: st.OnFire, Status: st.Status, Results: []apiResult{}}
		if tv.T.Kind == db.KindSwiss {
			b := half(st.Buchholz)
			a.Buchholz = &b
		}
		if st.GameID != 0 {
			g := st.GameID
			a.GameID = &g
		}
		for _, r := range st.Results {
			x := apiResult{Round: r.Round, Place: r.Place, Points: half(r.Points), Counted: half(r.Counted), Won: r.Won}
			if r.GameID != 0 {
				g := r.GameID
				x.GameID = &g
			}
			a.Results = append(a.Results, x)
		}
		list = append(list, a)
		if me := st.UserID; me == u.ID {
			out["you"] = a
		}
	}
	out["standings"] = list
	tables := []apiEventTable{}
	for _, tb := range tv.Tables {
		tables = append(tables, apiEventTable{GameID: tb.GameID, Round: tb.Round, Status: tb.Status, Players: tb.Names, Placings: tb.Placings})
	}
	out["tables"] = tables
	if tv.Featured != 0 {
		out["featured_game_id"] = tv.Featured
	}
	return c.JSON(status, out)
}

// apiTournamentDo runs a player's action and answers the event's rules
// and the player's part (not the standings: an answer that costs the same
// at an event's end as at its start).
func (s *Server) apiTournamentDo(do func(c echo.Context, u db.User, id int64) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := tournamentID(c)
		if err != nil {
			return err
		}
		u := apiUser(c)
		if err := do(c, *u, id); err != nil {
			return err
		}
		ctx := c.Request().Context()
		t, err := s.tournaments.Get(ctx, &u.ID, id, "")
		if err != nil {
			return err
		}
		out := map[string]any{"tournament": s.apiTournamentOf(t)}
		if p, err := s.tournaments.Me(ctx, u.ID, id); err == nil {
			out["you"] = apiMeOf(p)
		}
		return c.JSON(http.StatusOK, out)
	}
}

// apiMeOf is a player's part in an event.
func apiMeOf(p db.TournamentPlayer) map[string]any {
	return map[string]any{"status": p.Status, "points": float64(p.Points) / 2, "games": p.Games, "wins": p.Wins, "byes": p.Byes, "on_fire": p.OnFire, "game_id": p.GameID}
}

// apiTournamentMe answers the token owner's part in an event alone: their
// status, points and the table they sit at (a cheap read for clients that
// ask often).
func (s *Server) apiTournamentMe(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	p, err := s.tournaments.Me(c.Request().Context(), apiUser(c).ID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiMeOf(p))
}

func (s *Server) apiCancelTournament(c echo.Context) error {
	id, err := tournamentID(c)
	if err != nil {
		return err
	}
	if err := s.tournaments.Cancel(c.Request().Context(), *apiUser(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
