package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/lib/pq"
)

// Tournament kinds and statuses.
const (
	KindArena = "arena"
	KindSwiss = "swiss"

	TournamentUpcoming  = "upcoming"
	TournamentRunning   = "running"
	TournamentFinished  = "finished"
	TournamentCancelled = "cancelled"

	PlayerActive    = "active"
	PlayerPaused    = "paused"
	PlayerWithdrawn = "withdrawn"
)

// TournamentChannel is the LISTEN/NOTIFY channel of a tournament's
// changes (its standings, tables, status), payload "id:version": the
// tournament pages' streams on every instance listen to it.
const TournamentChannel = "tournament_changed"

// TournamentDueChannel wakes the tournament workers of every instance at
// a time, payload Unix milliseconds: players came free (a wave is due a
// moment later), a player joined, or a round ended (due now).
const TournamentDueChannel = "tournament_due"

// NoticeChannel carries a notice for one person's pages (their turn
// stream), payload "user:kind:tournament:game": a tournament starts, their
// table is ready.
const NoticeChannel = "player_notice"

// Tournament is a row of tournaments, with what its lists show.
type Tournament struct {
	ID                  int64           `db:"id"`
	Kind                string          `db:"kind"`
	Name                string          `db:"name"`
	Description         string          `db:"description"`
	DescriptionHiddenBy *int64          `db:"description_hidden_by"`
	CreatorID           *int64          `db:"creator_id"`
	ScheduleID          *int64          `db:"schedule_id"`
	Public              bool            `db:"public"`
	Code                string          `db:"code"`
	Rated               bool            `db:"rated"`
	TableSize           int             `db:"table_size"`
	Options             json.RawMessage `db:"options"`
	Pace                string          `db:"pace"`
	TurnSeconds         int             `db:"turn_seconds"`
	StartsAt            time.Time       `db:"starts_at"`
	Minutes             *int            `db:"minutes"`
	Rounds              *int            `db:"rounds"`
	Round               int             `db:"round"`
	MaxPlayers          int             `db:"max_players"`
	Status              string          `db:"status"`
	Version             int             `db:"version"`
	DueAt               *time.Time      `db:"due_at"`
	CreatedAt           time.Time       `db:"created_at"`
	StartedAt           *time.Time      `db:"started_at"`
	FinishedAt          *time.Time      `db:"finished_at"`
	// Players counts those who joined (withdrawn ones too).
	Players     int     `db:"players"`
	CreatorName *string `db:"creator_name"`
}

// EndsAt is when an arena stops seating players (zero for a Swiss event).
func (t Tournament) EndsAt() time.Time {
	if t.Minutes == nil {
		return time.Time{}
	}
	return t.StartsAt.Add(time.Duration(*t.Minutes) * time.Minute)
}

const tournamentColumns = `t.id, t.kind, t.name, t.description, t.description_hidden_by, t.creator_id, t.schedule_id, t.public, t.code,
	t.rated, t.table_size, t.options, t.pace, t.turn_seconds, t.starts_at, t.minutes, t.rounds, t.round, t.max_players, t.status,
	t.version, t.due_at, t.created_at, t.started_at, t.finished_at,
	(SELECT count(*) FROM tournament_players p WHERE p.tournament_id = t.id)::int AS players,
	(SELECT username FROM users WHERE id = t.creator_id) AS creator_name`

// TournamentPlayer is a row of tournament_players with the player's name.
type TournamentPlayer struct {
	TournamentID int64      `db:"tournament_id"`
	UserID       int64      `db:"user_id"`
	Username     string     `db:"username"`
	JoinedAt     time.Time  `db:"joined_at"`
	Status       string     `db:"status"`
	Rating       float64    `db:"rating"`
	GameID       *int64     `db:"game_id"`
	FreeSince    *time.Time `db:"free_since"`
	Points       int        `db:"points"`
	Games        int        `db:"games"`
	Wins         int        `db:"wins"`
	Byes         int        `db:"byes"`
	OnFire       bool       `db:"on_fire"`
	// DisqualifiedBy is the fair-play decision (a mark) that took the
	// player out of the event's ranking, nil for none.
	DisqualifiedBy *int64 `db:"disqualified_by"`
}

const playerColumns = `p.tournament_id, p.user_id, CASE WHEN u.deleted_at IS NOT NULL THEN '` + DeletedName + `' ELSE u.username END AS username,
	p.joined_at, p.status, p.rating, p.game_id, p.free_since, p.points, p.games, p.wins, p.byes, p.on_fire, p.disqualified_by`

// TournamentResult is what one game (or a bye: GameID nil) gave a player.
type TournamentResult struct {
	ID           int64     `db:"id"`
	TournamentID int64     `db:"tournament_id"`
	UserID       int64     `db:"user_id"`
	GameID       *int64    `db:"game_id"`
	Round        int       `db:"round"`
	Place        *int      `db:"place"`
	Points       int       `db:"points"`
	Counted      int       `db:"counted"`
	Won          bool      `db:"won"`
	CreatedAt    time.Time `db:"created_at"`
}

// TournamentTable is a game of an event with its seats' people, in seat
// order, and their placings once it is over.
type TournamentTable struct {
	GameID   int64          `db:"game_id"`
	Round    int            `db:"round"`
	Status   string         `db:"status"`
	Public   bool           `db:"public"`
	Code     string         `db:"invite_code"`
	Users    pq.Int64Array  `db:"users"`
	Names    pq.StringArray `db:"names"`
	Placings pq.Int64Array  `db:"placings"`
}

// ErrJoined is JoinTournament's error for a player who joined already.
var ErrJoined = errors.New("db: joined already")

// CreateTournament inserts an event and returns its id.
func (t *Tx) CreateTournament(ctx context.Context, x Tournament) (int64, error) {
	var id int64
	err := get(ctx, t.tx, &id, `
		INSERT INTO tournaments (kind, name, description, creator_id, schedule_id, public, code, rated, table_size, options, pace,
			turn_seconds, starts_at, minutes, rounds, max_players, due_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text::jsonb, $11, $12, $13, $14, $15, $16, $13, $17)
		RETURNING id`,
		x.Kind, x.Name, x.Description, x.CreatorID, x.ScheduleID, x.Public, x.Code, x.Rated, x.TableSize, string(x.Options), x.Pace,
		x.TurnSeconds, x.StartsAt, x.Minutes, x.Rounds, x.MaxPlayers, x.CreatedAt)
	if uniqueViolation(err) == "tournaments_schedule_start" {
		return 0, ErrScheduled
	}
	if err != nil {
		return 0, fmt.Errorf("db: create tournament: %w", err)
	}
	return id, nil
}

// ErrScheduled is CreateTournament's error when a schedule's event at that
// start exists already (another instance created it).
var ErrScheduled = errors.New("db: scheduled already")

// UpdateTournament changes an upcoming event's rules.
func (t *Tx) UpdateTournament(ctx context.Context, x Tournament) error {
	if err := exec(ctx, t.tx, "update tournament", `
		UPDATE tournaments SET name = $2, description = $3, public = $4, table_size = $5, options = $6::text::jsonb, pace = $7,
			turn_seconds = $8, starts_at = $9, minutes = $10, rounds = $11, max_players = $12, due_at = $9, version = version + 1
		WHERE id = $1 AND status = 'upcoming'`,
		x.ID, x.Name, x.Description, x.Public, x.TableSize, string(x.Options), x.Pace, x.TurnSeconds, x.StartsAt, x.Minutes, x.Rounds, x.MaxPlayers); err != nil {
		return err
	}
	t.noteTournament(x.ID)
	return nil
}

// Tournament loads an event.
func (s *Store) Tournament(ctx context.Context, id int64) (Tournament, error) {
	var x Tournament
	if err := get(ctx, s.DB, &x, `SELECT `+tournamentColumns+` FROM tournaments t WHERE t.id = $1`, id); err != nil {
		return Tournament{}, fmt.Errorf("db: tournament %d: %w", id, notFound(err))
	}
	return x, nil
}

// TournamentForUpdate loads an event and locks its row until the
// transaction ends: its seating, its results and its players' changes are
// made one at a time.
func (t *Tx) TournamentForUpdate(ctx context.Context, id int64) (Tournament, error) {
	var x Tournament
	if err := get(ctx, t.tx, &x, `SELECT `+tournamentColumns+` FROM tournaments t WHERE t.id = $1 FOR UPDATE OF t`, id); err != nil {
		return Tournament{}, fmt.Errorf("db: lock tournament %d: %w", id, notFound(err))
	}
	return x, nil
}

// Tournaments lists events of a status: upcoming ones soonest first, the
// others latest first. Private events are listed only to their players
// and their creator (viewer 0: nobody).
func (s *Store) Tournaments(ctx context.Context, status string, viewer int64, limit int) ([]Tournament, error) {
	order := "t.starts_at DESC, t.id DESC"
	if status == TournamentUpcoming {
		order = "t.starts_at, t.id"
	}
	var out []Tournament
	err := sel(ctx, s.DB, &out, `SELECT `+tournamentColumns+` FROM tournaments t
		WHERE t.status = $1 AND (t.public OR t.creator_id = $2 OR EXISTS (SELECT 1 FROM tournament_players p WHERE p.tournament_id = t.id AND p.user_id = $2))
		ORDER BY `+order+` LIMIT $3`, status, viewer, limit)
	if err != nil {
		return nil, fmt.Errorf("db: tournaments %s: %w", status, err)
	}
	return out, nil
}

// PlayedTournament is an event a person played, with their final rank.
type PlayedTournament struct {
	Tournament
	Place *int `db:"place"`
}

// UserTournaments lists the public events a person played (running or
// finished), latest first, with their final ranks.
func (s *Store) UserTournaments(ctx context.Context, userID int64, limit int) ([]PlayedTournament, error) {
	var out []PlayedTournament
	err := sel(ctx, s.DB, &out, `SELECT `+tournamentColumns+`, me.place FROM tournaments t
		JOIN tournament_players me ON me.tournament_id = t.id AND me.user_id = $1
		WHERE t.status IN ('running', 'finished') AND t.public
		ORDER BY t.starts_at DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: tournaments of %d: %w", userID, err)
	}
	return out, nil
}

// SetPlaces stores an event's final ranks.
func (t *Tx) SetPlaces(ctx context.Context, id int64, users []int64, places []int) error {
	ps := make([]int64, len(places))
	for i, p := range places {
		ps[i] = int64(p)
	}
	return exec(ctx, t.tx, "set places", `
		UPDATE tournament_players p SET place = v.place FROM unnest($2::bigint[], $3::int[]) AS v (user_id, place)
		WHERE p.tournament_id = $1 AND p.user_id = v.user_id`, id, pq.Array(users), pq.Array(ps))
}

// SetTournamentStatus moves an event on: its status, round, when the
// worker looks at it next, and when it started or finished. Every instance
// hears of the change.
func (t *Tx) SetTournamentStatus(ctx context.Context, id int64, status string, round int, due *time.Time, at time.Time) error {
	if err := exec(ctx, t.tx, "set tournament status", `
		UPDATE tournaments SET status = $2, round = $3, due_at = $4, version = version + 1,
			started_at = CASE WHEN $2 = 'running' THEN COALESCE(started_at, $5) ELSE started_at END,
			finished_at = CASE WHEN $2 IN ('finished', 'cancelled') THEN $5 ELSE finished_at END
		WHERE id = $1`, id, status, round, due, at); err != nil {
		return err
	}
	t.noteTournament(id)
	return nil
}

// SetTournamentDue sets when the worker looks at an event next (never
// later than it was due already) and tells every instance's worker when.
func (t *Tx) SetTournamentDue(ctx context.Context, id int64, at time.Time) error {
	if err := exec(ctx, t.tx, "set tournament due", `
		UPDATE tournaments SET due_at = LEAST(COALESCE(due_at, $2), $2) WHERE id = $1 AND status IN ('upcoming', 'running')`, id, at); err != nil {
		return err
	}
	t.notes = append(t.notes, note{TournamentDueChannel, strconv.FormatInt(at.UnixMilli(), 10)})
	return nil
}

// TouchTournament moves an event's version on (its standings or tables
// changed) and tells every instance.
func (t *Tx) TouchTournament(ctx context.Context, id int64) error {
	if err := exec(ctx, t.tx, "touch tournament", `UPDATE tournaments SET version = version + 1 WHERE id = $1`, id); err != nil {
		return err
	}
	t.noteTournament(id)
	return nil
}

// noteTournament tells the streams of every instance that an event
// changed; they read it again (the payload's version lets a late
// notification be told apart).
func (t *Tx) noteTournament(id int64) {
	n := note{TournamentChannel, strconv.FormatInt(id, 10)}
	for _, x := range t.notes {
		if x == n {
			return
		}
	}
	t.notes = append(t.notes, n)
}

// DueTournaments claims events whose worker is due, skipping those another
// instance holds: each is then handled by one instance at a time.
func (t *Tx) DueTournaments(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	var ids []int64
	err := sel(ctx, t.tx, &ids, `
		SELECT id FROM tournaments WHERE status IN ('upcoming', 'running') AND due_at <= $1
		ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("db: due tournaments: %w", err)
	}
	return ids, nil
}

// NextTournamentDue is the earliest time a tournament worker is due.
func (s *Store) NextTournamentDue(ctx context.Context) (*time.Time, error) {
	var at *time.Time
	if err := get(ctx, s.DB, &at, `SELECT min(due_at) FROM tournaments WHERE status IN ('upcoming', 'running')`); err != nil {
		return nil, fmt.Errorf("db: next tournament due: %w", err)
	}
	return at, nil
}

// JoinTournament adds a player (ErrJoined if they are in already).
func (t *Tx) JoinTournament(ctx context.Context, id, userID int64, rating float64, freeSince *time.Time, at time.Time) error {
	_, err := t.tx.ExecContext(ctx, `
		INSERT INTO tournament_players (tournament_id, user_id, joined_at, rating, free_since) VALUES ($1, $2, $3, $4, $5)`,
		id, userID, at, rating, freeSince)
	if uniqueViolation(err) != "" {
		return ErrJoined
	}
	if err != nil {
		return fmt.Errorf("db: join tournament %d: %w", id, err)
	}
	return nil
}

// TournamentPlayerOf loads one player of an event (not locked).
func (s *Store) TournamentPlayerOf(ctx context.Context, id, userID int64) (TournamentPlayer, error) {
	var p TournamentPlayer
	err := get(ctx, s.DB, &p, `SELECT `+playerColumns+` FROM tournament_players p JOIN users u ON u.id = p.user_id
		WHERE p.tournament_id = $1 AND p.user_id = $2`, id, userID)
	if err != nil {
		return TournamentPlayer{}, fmt.Errorf("db: tournament %d player %d: %w", id, userID, notFound(err))
	}
	return p, nil
}

// LeaveTournament takes a player out of an event that has not started.
func (t *Tx) LeaveTournament(ctx context.Context, id, userID int64) error {
	return exec(ctx, t.tx, "leave tournament", `DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2`, id, userID)
}

// Rating is a person's rating now.
func (t *Tx) Rating(ctx context.Context, userID int64) (float64, error) {
	var r float64
	if err := get(ctx, t.tx, &r, `SELECT rating FROM users WHERE id = $1`, userID); err != nil {
		return 0, fmt.Errorf("db: rating of %d: %w", userID, notFound(err))
	}
	return r, nil
}

// NoteTournamentList tells the Tournaments pages, once the transaction
// commits, that their lists changed.
func (t *Tx) NoteTournamentList() { t.noteLists(ListTournaments) }

// TournamentPlayer loads one player of an event (ErrNotFound: not in it).
func (t *Tx) TournamentPlayer(ctx context.Context, id, userID int64) (TournamentPlayer, error) {
	var p TournamentPlayer
	err := get(ctx, t.tx, &p, `SELECT `+playerColumns+` FROM tournament_players p JOIN users u ON u.id = p.user_id
		WHERE p.tournament_id = $1 AND p.user_id = $2 FOR UPDATE OF p`, id, userID)
	if err != nil {
		return TournamentPlayer{}, fmt.Errorf("db: tournament %d player %d: %w", id, userID, notFound(err))
	}
	return p, nil
}

// SetPlayerStatus pauses, brings back or withdraws a player; a player
// brought back who is free waits from now.
func (t *Tx) SetPlayerStatus(ctx context.Context, id, userID int64, status string, at time.Time) error {
	return exec(ctx, t.tx, "set player status", `
		UPDATE tournament_players SET status = $3,
			free_since = CASE WHEN $3 = 'active' AND game_id IS NULL THEN $4 ELSE free_since END
		WHERE tournament_id = $1 AND user_id = $2`, id, userID, status, at)
}

// TournamentPlayers lists an event's players.
func (s *Store) TournamentPlayers(ctx context.Context, id int64) ([]TournamentPlayer, error) {
	return tournamentPlayers(ctx, s.DB, id)
}

// TournamentPlayers lists an event's players inside the transaction.
func (t *Tx) TournamentPlayers(ctx context.Context, id int64) ([]TournamentPlayer, error) {
	return tournamentPlayers(ctx, t.tx, id)
}

func tournamentPlayers(ctx context.Context, q queryer, id int64) ([]TournamentPlayer, error) {
	var out []TournamentPlayer
	err := sel(ctx, q, &out, `SELECT `+playerColumns+` FROM tournament_players p JOIN users u ON u.id = p.user_id
		WHERE p.tournament_id = $1 ORDER BY p.joined_at, p.user_id`, id)
	if err != nil {
		return nil, fmt.Errorf("db: players of tournament %d: %w", id, err)
	}
	return out, nil
}

// FreePlayers lists an event's active players who sit at no table (their
// points, rating and since when they wait), without their names: what a
// wave needs. In a rated event a player paused from rated play at now
// (docs/fair-play.md) is left waiting.
func (t *Tx) FreePlayers(ctx context.Context, id int64, rated bool, now time.Time) ([]TournamentPlayer, error) {
	var out []TournamentPlayer
	err := sel(ctx, t.tx, &out, `SELECT p.tournament_id, p.user_id, p.status, p.rating, p.free_since, p.points
		FROM tournament_players p WHERE p.tournament_id = $1 AND p.status = 'active' AND p.game_id IS NULL AND p.disqualified_by IS NULL
			AND NOT ($2 AND `+pausedUser("p.user_id", "$3")+`)`, id, rated, now)
	if err != nil {
		return nil, fmt.Errorf("db: free players of tournament %d: %w", id, err)
	}
	return out, nil
}

// Seating is a player taken to a table (or given a bye, GameID nil).
type Seating struct {
	UserID int64
	GameID int64
}

// SeatPlayers records that players sit at their new tables: they are no
// longer free.
func (t *Tx) SeatPlayers(ctx context.Context, id int64, ss []Seating) error {
	users := make([]int64, len(ss))
	games := make([]int64, len(ss))
	for i, s := range ss {
		users[i], games[i] = s.UserID, s.GameID
	}
	return exec(ctx, t.tx, "seat players", `
		UPDATE tournament_players p SET game_id = v.game_id, free_since = NULL
		FROM unnest($2::bigint[], $3::bigint[]) AS v (user_id, game_id)
		WHERE p.tournament_id = $1 AND p.user_id = v.user_id`, id, pq.Array(users), pq.Array(games))
}

// AddTournamentGames records an event's new games of a round.
func (t *Tx) AddTournamentGames(ctx context.Context, id int64, round int, gameIDs []int64) error {
	return exec(ctx, t.tx, "add tournament games", `
		INSERT INTO tournament_games (game_id, tournament_id, round) SELECT g, $1, $2 FROM unnest($3::bigint[]) AS g`,
		id, round, pq.Array(gameIDs))
}

// FinishTournamentGame marks an event's game finished; it reports false
// when it was already (its results count once).
func (t *Tx) FinishTournamentGame(ctx context.Context, gameID int64) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `UPDATE tournament_games SET finished = true WHERE game_id = $1 AND NOT finished`, gameID)
	if err != nil {
		return false, fmt.Errorf("db: finish tournament game %d: %w", gameID, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RunningTournamentGames counts an event's games not finished.
func (t *Tx) RunningTournamentGames(ctx context.Context, id int64) (int, error) {
	var n int
	if err := get(ctx, t.tx, &n, `SELECT count(*) FROM tournament_games WHERE tournament_id = $1 AND NOT finished`, id); err != nil {
		return 0, fmt.Errorf("db: running games of tournament %d: %w", id, err)
	}
	return n, nil
}

// AddResults writes results (each once: a repeat is left out).
func (t *Tx) AddResults(ctx context.Context, rs []TournamentResult) error {
	for _, r := range rs {
		if err := exec(ctx, t.tx, "add tournament result", `
			INSERT INTO tournament_results (tournament_id, user_id, game_id, round, place, points, counted, won, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
			r.TournamentID, r.UserID, r.GameID, r.Round, r.Place, r.Points, r.Counted, r.Won, r.CreatedAt); err != nil {
			return err
		}
	}
	return nil
}

// LastResults reads the last n results of each of some players of an
// event, newest first.
func (t *Tx) LastResults(ctx context.Context, id int64, userIDs []int64, n int) (map[int64][]TournamentResult, error) {
	var rows []TournamentResult
	err := sel(ctx, t.tx, &rows, `
		SELECT r.id, r.tournament_id, r.user_id, r.game_id, r.round, r.place, r.points, r.counted, r.won, r.created_at
		FROM unnest($2::bigint[]) AS u (id)
		JOIN LATERAL (SELECT * FROM tournament_results x WHERE x.tournament_id = $1 AND x.user_id = u.id ORDER BY x.id DESC LIMIT $3) r ON true`,
		id, pq.Array(userIDs), n)
	if err != nil {
		return nil, fmt.Errorf("db: last results: %w", err)
	}
	out := map[int64][]TournamentResult{}
	for _, r := range rows {
		out[r.UserID] = append(out[r.UserID], r)
	}
	return out, nil
}

// PlayerScore is what a result adds to a player: points, games, first
// places and byes to add, the streak mark when it changes (nil: kept), a
// new status ("": kept), and whether they left their table (free from
// FreeSince when they are active, nil: not waiting).
type PlayerScore struct {
	UserID              int64
	Points, Games, Wins int
	Byes                int
	OnFire              *bool
	Status              string
	LeaveTable          bool
	FreeSince           *time.Time
}

// AddPlayerScores adds results to players' totals in one statement.
func (t *Tx) AddPlayerScores(ctx context.Context, id int64, ps []PlayerScore) error {
	if len(ps) == 0 {
		return nil
	}
	n := len(ps)
	users, points, gamesN, wins, byes := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	fire, statuses, leave := make([]sql.NullBool, n), make([]string, n), make([]bool, n)
	free := make([]sql.NullTime, n)
	for i, p := range ps {
		users[i], points[i], gamesN[i], wins[i], byes[i] = p.UserID, int64(p.Points), int64(p.Games), int64(p.Wins), int64(p.Byes)
		if p.OnFire != nil {
			fire[i] = sql.NullBool{Bool: *p.OnFire, Valid: true}
		}
		statuses[i], leave[i] = p.Status, p.LeaveTable
		if p.FreeSince != nil {
			free[i] = sql.NullTime{Time: *p.FreeSince, Valid: true}
		}
	}
	return exec(ctx, t.tx, "add player scores", `
		UPDATE tournament_players p SET points = p.points + v.points, games = p.games + v.games, wins = p.wins + v.wins,
			byes = p.byes + v.byes, on_fire = COALESCE(v.fire, p.on_fire), status = COALESCE(NULLIF(v.status, ''), p.status),
			game_id = CASE WHEN v.leave THEN NULL ELSE p.game_id END,
			free_since = CASE WHEN v.leave THEN
				CASE WHEN COALESCE(NULLIF(v.status, ''), p.status) = 'active' THEN v.free END ELSE p.free_since END
		FROM unnest($2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[], $7::bool[], $8::text[], $9::bool[], $10::timestamptz[])
			AS v (user_id, points, games, wins, byes, fire, status, leave, free)
		WHERE p.tournament_id = $1 AND p.user_id = v.user_id`,
		id, pq.Array(users), pq.Array(points), pq.Array(gamesN), pq.Array(wins), pq.Array(byes), pq.Array(fire), pq.Array(statuses),
		pq.Array(leave), pq.Array(free))
}

// TournamentGameRound is the round (or wave) a game of an event belongs to.
func (t *Tx) TournamentGameRound(ctx context.Context, gameID int64) (int, error) {
	var r int
	if err := get(ctx, t.tx, &r, `SELECT round FROM tournament_games WHERE game_id = $1`, gameID); err != nil {
		return 0, fmt.Errorf("db: round of game %d: %w", gameID, notFound(err))
	}
	return r, nil
}

// TournamentResults lists an event's results in the order they came.
func (s *Store) TournamentResults(ctx context.Context, id int64) ([]TournamentResult, error) {
	return tournamentResults(ctx, s.DB, id)
}

// TournamentResults lists an event's results inside the transaction.
func (t *Tx) TournamentResults(ctx context.Context, id int64) ([]TournamentResult, error) {
	return tournamentResults(ctx, t.tx, id)
}

func tournamentResults(ctx context.Context, q queryer, id int64) ([]TournamentResult, error) {
	var out []TournamentResult
	err := sel(ctx, q, &out, `
		SELECT id, tournament_id, user_id, game_id, round, place, points, counted, won, created_at
		FROM tournament_results WHERE tournament_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("db: results of tournament %d: %w", id, err)
	}
	return out, nil
}

const tableColumns = `tg.game_id, tg.round, g.status, g.public, g.invite_code,
	ARRAY(SELECT s.user_id FROM game_seats s WHERE s.game_id = g.id ORDER BY s.seat) AS users,
	ARRAY(SELECT CASE WHEN u.deleted_at IS NOT NULL THEN '` + DeletedName + `' ELSE u.username END
	      FROM game_seats s JOIN users u ON u.id = s.user_id WHERE s.game_id = g.id ORDER BY s.seat) AS names,
	ARRAY(SELECT COALESCE(s.place, 0) FROM game_seats s WHERE s.game_id = g.id ORDER BY s.seat) AS placings`

// TournamentTables lists an event's games, latest round first.
func (s *Store) TournamentTables(ctx context.Context, id int64) ([]TournamentTable, error) {
	return tournamentTables(ctx, s.DB, id)
}

// PlayingTables lists an event's games in play.
func (s *Store) PlayingTables(ctx context.Context, id int64) ([]TournamentTable, error) {
	var out []TournamentTable
	err := sel(ctx, s.DB, &out, `SELECT `+tableColumns+` FROM tournament_games tg JOIN games g ON g.id = tg.game_id
		WHERE tg.tournament_id = $1 AND NOT tg.finished ORDER BY tg.round DESC, tg.game_id`, id)
	if err != nil {
		return nil, fmt.Errorf("db: tables in play of tournament %d: %w", id, err)
	}
	return out, nil
}

// ResultsOf lists some players' results of an event in the order they came.
func (s *Store) ResultsOf(ctx context.Context, id int64, userIDs []int64) ([]TournamentResult, error) {
	var out []TournamentResult
	err := sel(ctx, s.DB, &out, `
		SELECT id, tournament_id, user_id, game_id, round, place, points, counted, won, created_at
		FROM tournament_results WHERE tournament_id = $1 AND user_id = ANY($2) ORDER BY id`, id, pq.Array(userIDs))
	if err != nil {
		return nil, fmt.Errorf("db: results of tournament %d: %w", id, err)
	}
	return out, nil
}

// TournamentTables lists an event's games inside the transaction.
func (t *Tx) TournamentTables(ctx context.Context, id int64) ([]TournamentTable, error) {
	return tournamentTables(ctx, t.tx, id)
}

func tournamentTables(ctx context.Context, q queryer, id int64) ([]TournamentTable, error) {
	var out []TournamentTable
	err := sel(ctx, q, &out, `SELECT `+tableColumns+` FROM tournament_games tg JOIN games g ON g.id = tg.game_id
		WHERE tg.tournament_id = $1 ORDER BY tg.round DESC, tg.game_id`, id)
	if err != nil {
		return nil, fmt.Errorf("db: tables of tournament %d: %w", id, err)
	}
	return out, nil
}

// HideTournamentDescription hides (or shows again) an event's description,
// logged.
func (s *Store) HideTournamentDescription(ctx context.Context, admin, id int64, hide bool, at time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		var by *int64
		action := ModUnhideEvent
		if hide {
			by, action = &admin, ModHideEvent
		}
		var creator *int64
		err := get(ctx, tx.tx, &creator, `UPDATE tournaments SET description_hidden_by = $2, version = version + 1
			WHERE id = $1 AND (description_hidden_by IS NOT NULL) <> $3 RETURNING creator_id`, id, by, hide)
		if errors.Is(err, sql.ErrNoRows) {
			var exists bool
			if err := get(ctx, tx.tx, &exists, `SELECT EXISTS (SELECT 1 FROM tournaments WHERE id = $1)`, id); err != nil {
				return err
			}
			if !exists {
				return fmt.Errorf("db: hide tournament %d: %w", id, ErrNotFound)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("db: hide tournament %d: %w", id, err)
		}
		tx.noteTournament(id)
		return logModeration(ctx, tx, &admin, action, creator, nil, "tournament #"+strconv.FormatInt(id, 10), at)
	})
}

// TournamentSchedule is a row of tournament_schedules.
type TournamentSchedule struct {
	ID          int64           `db:"id"`
	CreatedBy   *int64          `db:"created_by"`
	Kind        string          `db:"kind"`
	Name        string          `db:"name"`
	Description string          `db:"description"`
	TableSize   int             `db:"table_size"`
	Options     json.RawMessage `db:"options"`
	Pace        string          `db:"pace"`
	TurnSeconds int             `db:"turn_seconds"`
	Minutes     *int            `db:"minutes"`
	Rounds      *int            `db:"rounds"`
	MaxPlayers  int             `db:"max_players"`
	Rated       bool            `db:"rated"`
	EveryHours  int             `db:"every_hours"`
	NextAt      time.Time       `db:"next_at"`
	Active      bool            `db:"active"`
	CreatedAt   time.Time       `db:"created_at"`
}

const scheduleColumns = `id, created_by, kind, name, description, table_size, options, pace, turn_seconds, minutes, rounds, max_players,
	rated, every_hours, next_at, active, created_at`

// CreateSchedule stores a recurring event.
func (s *Store) CreateSchedule(ctx context.Context, x TournamentSchedule) (int64, error) {
	var id int64
	err := get(ctx, s.DB, &id, `
		INSERT INTO tournament_schedules (created_by, kind, name, description, table_size, options, pace, turn_seconds, minutes, rounds,
			max_players, rated, every_hours, next_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
		x.CreatedBy, x.Kind, x.Name, x.Description, x.TableSize, string(x.Options), x.Pace, x.TurnSeconds, x.Minutes, x.Rounds,
		x.MaxPlayers, x.Rated, x.EveryHours, x.NextAt, x.CreatedAt)
	if err != nil {
		return 0, fmt.Errorf("db: create schedule: %w", err)
	}
	return id, nil
}

// Schedules lists the recurring events.
func (s *Store) Schedules(ctx context.Context) ([]TournamentSchedule, error) {
	var out []TournamentSchedule
	if err := sel(ctx, s.DB, &out, `SELECT `+scheduleColumns+` FROM tournament_schedules ORDER BY active DESC, next_at`); err != nil {
		return nil, fmt.Errorf("db: schedules: %w", err)
	}
	return out, nil
}

// SetScheduleActive starts or stops a recurring event.
func (s *Store) SetScheduleActive(ctx context.Context, id int64, active bool) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE tournament_schedules SET active = $2 WHERE id = $1`, id, active)
	if err != nil {
		return false, fmt.Errorf("db: set schedule %d: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// DueSchedules claims the active schedules whose next event should be
// created by now (lead before its start), skipping those another instance
// holds.
func (t *Tx) DueSchedules(ctx context.Context, now time.Time) ([]TournamentSchedule, error) {
	var out []TournamentSchedule
	err := sel(ctx, t.tx, &out, `SELECT `+scheduleColumns+` FROM tournament_schedules
		WHERE active AND next_at - make_interval(hours => every_hours) <= $1
		ORDER BY next_at FOR UPDATE SKIP LOCKED`, now)
	if err != nil {
		return nil, fmt.Errorf("db: due schedules: %w", err)
	}
	return out, nil
}

// SetScheduleNext moves a schedule on to its next start.
func (t *Tx) SetScheduleNext(ctx context.Context, id int64, next time.Time) error {
	return exec(ctx, t.tx, "set schedule next", `UPDATE tournament_schedules SET next_at = $2 WHERE id = $1`, id, next)
}

// Notice tells one person's pages something, once the transaction
// commits: a tournament starts, their table is ready.
func (t *Tx) Notice(userID int64, kind string, tournamentID, gameID int64) {
	t.notes = append(t.notes, note{NoticeChannel, fmt.Sprintf("%d:%s:%d:%d", userID, kind, tournamentID, gameID)})
}

// The notices for the API's event streams (the pages learn of these
// from their own streams).
const (
	NoticeGameStart    = "game_start"
	NoticeGameEnd      = "game_end"
	NoticeInvitation   = "invitation"
	NoticeRematchOffer = "rematch_offer"
)

// NoticeAbout is Notice with the id of what it is about (an invitation).
func (t *Tx) NoticeAbout(userID int64, kind string, tournamentID, gameID, id int64) {
	t.notes = append(t.notes, note{NoticeChannel, fmt.Sprintf("%d:%s:%d:%d:%d", userID, kind, tournamentID, gameID, id)})
}

// TVGame is the public game in play whose people are rated highest (their
// mean rating), 0 when none is played.
func (s *Store) TVGame(ctx context.Context, except int64) (int64, error) {
	var id int64
	err := get(ctx, s.DB, &id, `
		SELECT g.id FROM games g JOIN game_seats s ON s.game_id = g.id JOIN users u ON u.id = s.user_id
		WHERE g.status = 'playing' AND g.public AND g.id <> $1
		GROUP BY g.id ORDER BY avg(u.rating) DESC, g.started_at DESC LIMIT 1`, except)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("db: tv game: %w", err)
	}
	return id, nil
}
