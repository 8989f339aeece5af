package tournaments

import (
	"context"
	"errors"
	"sort"

	"nothanks/internal/db"
	"nothanks/internal/pairing"
)

// Disqualified is the status of a player taken out of a rated event's
// ranking by a mark for unfair play (their Rank is 0).
const Disqualified = "disqualified"

// Standing is a player's line of the standings.
type Standing struct {
	Rank   int
	UserID int64
	Name   string
	Status string
	Rating float64
	Points pairing.Points
	Games  int
	Wins   int
	Byes   int
	// OnFire: the player's last two games were first places, so their
	// next game counts double (arena).
	OnFire bool
	// Buchholz is the Swiss tie-break: the sum of the opponents' scores.
	Buchholz pairing.Points
	// Results are the player's games (and byes) in the order they ended.
	Results []Result
	// GameID is the table they sit at now, 0 for none.
	GameID int64
}

// Result is one game (GameID 0: a bye) of a player as the standings show
// it.
type Result struct {
	GameID  int64
	Round   int
	Place   int
	Points  pairing.Points
	Counted pairing.Points
	Won     bool
}

// Doubled reports whether the result counted double (a streak).
func (r Result) Doubled() bool { return r.Counted != r.Points && r.Counted == 2*r.Points }

// Table is a game of an event.
type Table struct {
	GameID   int64
	Round    int
	Status   string
	Public   bool
	Code     string
	Users    []int64
	Names    []string
	Placings []int
}

// View is everything an event's page and the API show, read in four
// statements.
type View struct {
	T         db.Tournament
	Standings []Standing
	// ByRound are a Swiss event's standings after each round (index r-1).
	ByRound [][]Standing
	Tables  []Table
	// Featured is the running game whose players stand highest, 0 for none.
	Featured int64
}

// Shown is how many players' games a page's standings list: an arena's
// page reads only theirs, and its games in play, so that a big arena's page
// costs the same at its end as at its start.
const Shown = 100

// LoadPage reads an event for its page and its stream: a Swiss event whole
// (its rounds are few; the tie-break needs every table), an arena's
// players, its games in play and the games of the Shown best players.
func (s *Service) LoadPage(ctx context.Context, id int64) (*View, error) {
	t, err := s.store.Tournament(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil, ErrNoTournament
	}
	if err != nil {
		return nil, err
	}
	if t.Kind == db.KindSwiss {
		return s.Load(ctx, id)
	}
	ps, err := s.store.TournamentPlayers(ctx, id)
	if err != nil {
		return nil, err
	}
	top := arenaStandings(ps, nil)
	ids := make([]int64, 0, min(len(top), Shown))
	for i := 0; i < len(top) && i < Shown; i++ {
		ids = append(ids, top[i].UserID)
	}
	rs, err := s.store.ResultsOf(ctx, id, ids)
	if err != nil {
		return nil, err
	}
	tbs, err := s.store.PlayingTables(ctx, id)
	if err != nil {
		return nil, err
	}
	return Build(t, ps, rs, tbs), nil
}

// Load reads a whole event: every result and table (the API, the end of
// an event). The caller has checked that the viewer may see it.
func (s *Service) Load(ctx context.Context, id int64) (*View, error) {
	t, err := s.store.Tournament(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil, ErrNoTournament
	}
	if err != nil {
		return nil, err
	}
	ps, err := s.store.TournamentPlayers(ctx, id)
	if err != nil {
		return nil, err
	}
	rs, err := s.store.TournamentResults(ctx, id)
	if err != nil {
		return nil, err
	}
	tbs, err := s.store.TournamentTables(ctx, id)
	if err != nil {
		return nil, err
	}
	return Build(t, ps, rs, tbs), nil
}

// Build works out an event's standings, tables and featured game from its
// rows.
func Build(t db.Tournament, ps []db.TournamentPlayer, rs []db.TournamentResult, tbs []db.TournamentTable) *View {
	v := &View{T: t}
	for _, tb := range tbs {
		x := Table{GameID: tb.GameID, Round: tb.Round, Status: tb.Status, Public: tb.Public, Code: tb.Code, Users: tb.Users, Names: tb.Names}
		for _, p := range tb.Placings {
			x.Placings = append(x.Placings, int(p))
		}
		v.Tables = append(v.Tables, x)
	}
	if t.Kind == db.KindSwiss {
		last := t.Round
		for r := 1; r <= last; r++ {
			v.ByRound = append(v.ByRound, swissStandings(t, ps, rs, tbs, r))
		}
		v.Standings = swissStandings(t, ps, rs, tbs, last)
	} else {
		v.Standings = arenaStandings(ps, rs)
	}
	v.Featured = featured(v)
	return v
}

// resultsOf groups results by player, upTo a round (0: all).
func resultsOf(rs []db.TournamentResult, upTo int) map[int64][]Result {
	out := map[int64][]Result{}
	for _, r := range rs {
		if upTo > 0 && r.Round > upTo {
			continue
		}
		x := Result{Round: r.Round, Points: pairing.Points(r.Points), Counted: pairing.Points(r.Counted), Won: r.Won}
		if r.GameID != nil {
			x.GameID = *r.GameID
		}
		if r.Place != nil {
			x.Place = *r.Place
		}
		out[r.UserID] = append(out[r.UserID], x)
	}
	return out
}

func arenaStandings(ps []db.TournamentPlayer, rs []db.TournamentResult) []Standing {
	byUser := resultsOf(rs, 0)
	var entries []pairing.ArenaEntry
	lines := map[int64]Standing{}
	var out, disqualified []Standing
	for _, p := range ps {
		l := line(p, byUser[p.UserID])
		if p.DisqualifiedBy != nil {
			disqualified = append(disqualified, l)
			continue
		}
		entries = append(entries, pairing.ArenaEntry{ID: p.UserID, Total: pairing.Points(p.Points), Games: p.Games, Wins: p.Wins, OnFire: p.OnFire, Rating: p.Rating})
		lines[p.UserID] = l
	}
	for _, st := range pairing.RankArena(entries) {
		l := lines[st.ID]
		l.Rank = st.Rank
		out = append(out, l)
	}
	return append(out, disqualified...)
}

func line(p db.TournamentPlayer, results []Result) Standing {
	l := Standing{UserID: p.UserID, Name: p.Username, Status: p.Status, Rating: p.Rating, Points: pairing.Points(p.Points),
		Games: p.Games, Wins: p.Wins, Byes: p.Byes, OnFire: p.OnFire, Results: results}
	if p.DisqualifiedBy != nil {
		// Out of the ranking: the page shows the line unranked.
		l.Status = Disqualified
	}
	if p.GameID != nil {
		l.GameID = *p.GameID
	}
	return l
}

// swissStandings are the standings after round r: scores, wins and byes
// counted from the results of rounds 1 to r, opponents from their tables.
func swissStandings(t db.Tournament, ps []db.TournamentPlayer, rs []db.TournamentResult, tbs []db.TournamentTable, r int) []Standing {
	byUser := resultsOf(rs, r)
	opponents := map[int64][]int64{}
	for _, tb := range tbs {
		if tb.Round > r {
			continue
		}
		for _, a := range tb.Users {
			for _, b := range tb.Users {
				if a != b {
					opponents[a] = append(opponents[a], b)
				}
			}
		}
	}
	var entries []pairing.SwissEntry
	lines := map[int64]Standing{}
	var disqualified []Standing
	for _, p := range ps {
		var score pairing.Points
		wins, byes, games := 0, 0, 0
		for _, x := range byUser[p.UserID] {
			score += x.Counted
			if x.GameID == 0 {
				byes++
				continue
			}
			games++
			if x.Won {
				wins++
			}
		}
		l := line(p, byUser[p.UserID])
		l.Points, l.Games, l.Wins, l.Byes, l.OnFire = score, games, wins, byes, false
		if r != t.Round {
			l.GameID = 0
		}
		if p.DisqualifiedBy != nil {
			disqualified = append(disqualified, l)
			continue
		}
		entries = append(entries, pairing.SwissEntry{ID: p.UserID, Score: score, Opponents: opponents[p.UserID], Byes: byes, Wins: wins, Rating: p.Rating})
		lines[p.UserID] = l
	}
	order, buchholz := pairing.RankSwiss(entries, t.TableSize)
	var out []Standing
	for _, st := range order {
		l := lines[st.ID]
		l.Rank, l.Buchholz = st.Rank, buchholz[st.ID]
		out = append(out, l)
	}
	return append(out, disqualified...)
}

// featured is the running table whose best player stands highest.
func featured(v *View) int64 {
	rank := map[int64]int{}
	for i, s := range v.Standings {
		rank[s.UserID] = i
	}
	best, bestRank := int64(0), len(v.Standings)+1
	var running []Table
	for _, tb := range v.Tables {
		if tb.Status == db.StatusPlaying {
			running = append(running, tb)
		}
	}
	sort.SliceStable(running, func(i, j int) bool { return running[i].GameID < running[j].GameID })
	for _, tb := range running {
		for _, u := range tb.Users {
			if r, ok := rank[u]; ok && r < bestRank {
				best, bestRank = tb.GameID, r
			}
		}
	}
	return best
}

// Player is a person's line in the view, nil when they are not in it.
func (v *View) Player(userID int64) *Standing {
	for i := range v.Standings {
		if v.Standings[i].UserID == userID {
			return &v.Standings[i]
		}
	}
	return nil
}

// Round are the tables of a round (or an arena's wave).
func (v *View) Round(r int) []Table {
	var out []Table
	for _, tb := range v.Tables {
		if tb.Round == r {
			out = append(out, tb)
		}
	}
	return out
}
