package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Game is a row of games.
type Game struct {
	ID          int64           `db:"id"`
	CreatorID   int64           `db:"creator_id"`
	Status      string          `db:"status"`
	Options     json.RawMessage `db:"options"`
	Seats       int             `db:"seats"`
	Public      bool            `db:"public"`
	InviteCode  string          `db:"invite_code"`
	Ranked      bool            `db:"ranked"`
	Pace        string          `db:"pace"`
	TurnSeconds int             `db:"turn_seconds"`
	Seed        int64           `db:"seed"`
	Version     int             `db:"version"`
	TurnSeat    *int            `db:"turn_seat"`
	TurnUserID  *int64          `db:"turn_user_id"`
	DueAt       *time.Time      `db:"due_at"`
	CreatedAt   time.Time       `db:"created_at"`
	StartedAt   *time.Time      `db:"started_at"`
	FinishedAt  *time.Time      `db:"finished_at"`
	UpdatedAt   time.Time       `db:"updated_at"`
	// TournamentID is the event the game is played in, if any.
	TournamentID *int64 `db:"tournament_id"`
	// MinReliability is the share of games finished, in percent, a
	// player needs to join the table (nil: no minimum).
	MinReliability *int `db:"min_reliability"`
	// Imported: the game came in as text (docs/notation.md), finished
	// and never rated; Setup (engine.Setup as JSON) holds its deals,
	// ImportTags the text's tags (notation.Header as JSON).
	Imported   bool   `db:"imported"`
	Setup      []byte `db:"setup"`
	ImportTags []byte `db:"import_tags"`
}

// Game statuses.
const (
	StatusOpen      = "open"
	StatusPlaying   = "playing"
	StatusFinished  = "finished"
	StatusCancelled = "cancelled"
)

const gameColumns = `g.id, g.creator_id, g.status, g.options, g.seats, g.public, g.invite_code, g.ranked, g.pace,
	g.turn_seconds, g.seed, g.version, g.turn_seat, g.turn_user_id, g.due_at, g.created_at, g.started_at,
	g.finished_at, g.updated_at, g.tournament_id, g.min_reliability, g.imported, g.setup, g.import_tags`

// Seat is a row of game_seats, with the player's name.
type Seat struct {
	ID       int64   `db:"id" json:"id"`
	GameID   int64   `db:"game_id" json:"game_id"`
	Seat     *int    `db:"seat" json:"seat"`
	UserID   *int64  `db:"user_id" json:"user_id"`
	Username *string `db:"username" json:"username"`
	BotLevel *string `db:"bot_level" json:"bot_level"`
	// BotNumber names a bot at its table ("Club bot 2"), kept into a
	// rematch.
	BotNumber *int      `db:"bot_number" json:"bot_number"`
	JoinedAt  time.Time `db:"joined_at" json:"joined_at"`
	Timeouts  int       `db:"timeouts" json:"timeouts"`
	Abandoned bool      `db:"abandoned" json:"abandoned"`
	Total     *int      `db:"total" json:"total"`
	Place     *int      `db:"place" json:"place"`
	// VacationUntil is the player's vacation, if they are on one.
	VacationUntil *time.Time `db:"vacation_until" json:"vacation_until"`
	// BotAccount: the seat's account is a bot account (docs/bots.md), not
	// a person's; a server bot's seat (BotLevel) is not an account.
	BotAccount bool `db:"bot_account" json:"bot_account"`
	// ImportName is the name an imported game's text gives the seat (no
	// account); ImportBot the bot the text says played it.
	ImportName *string `db:"import_name" json:"import_name"`
	ImportBot  *string `db:"import_bot" json:"import_bot"`
}

// Move is a row of moves.
type Move struct {
	GameID    int64     `db:"game_id" json:"game_id"`
	Seq       int       `db:"seq" json:"seq"`
	Round     int       `db:"round" json:"round"`
	Seat      int       `db:"seat" json:"seat"`
	Kind      string    `db:"kind" json:"kind"`
	Card      int       `db:"card" json:"card"`
	Pot       int       `db:"pot" json:"pot"`
	Timeout   bool      `db:"timeout" json:"timeout"`
	CreatedAt time.Time `db:"created_at" json:"created_at"`
}

// Round is a scored round.
type Round struct {
	GameID     int64           `db:"game_id"`
	Round      int             `db:"round"`
	Result     json.RawMessage `db:"result"`
	FinishedAt time.Time       `db:"finished_at"`
}

// CreateGame inserts a game and returns its id.
func (t *Tx) CreateGame(ctx context.Context, g Game) (int64, error) {
	var id int64
	err := get(ctx, t.tx, &id, `
		INSERT INTO games (creator_id, status, options, seats, public, invite_code, ranked, pace, turn_seconds, seed, created_at, updated_at, min_reliability)
		VALUES ($1, 'open', $2::text::jsonb, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11)
		RETURNING id`,
		g.CreatorID, g.Options, g.Seats, g.Public, g.InviteCode, g.Ranked, g.Pace, g.TurnSeconds, g.Seed, g.CreatedAt, g.MinReliability)
	if err != nil {
		return 0, fmt.Errorf("db: create game: %w", err)
	}
	t.noteLists(ListOpen)
	return id, nil
}

// StartedGame is a game made with its table chosen and started at once,
// for CreateStartedGames: the row as it is after the start, its seats'
// people in seat order.
type StartedGame struct {
	Game   Game
	People []int64
}

// CreateStartedGames inserts many started games and their seats in two
// statements (a tournament's round), and tells every instance of each once
// the transaction commits. It returns their ids in order.
func (t *Tx) CreateStartedGames(ctx context.Context, gs []StartedGame) ([]int64, error) {
	n := len(gs)
	var (
		creators, turnUsers, tournaments []sql.NullInt64
		options, codes, paces            = make([]string, n), make([]string, n), make([]string, n)
		seats, turnSeconds, versions     = make([]int64, n), make([]int64, n), make([]int64, n)
		turnSeats                        []sql.NullInt64
		publics, rankeds                 = make([]bool, n), make([]bool, n)
		seeds                            = make([]int64, n)
		dues                             []sql.NullTime
		created                          = make([]time.Time, n)
	)
	for i, x := range gs {
		g := x.Game
		creators = append(creators, sql.NullInt64{Int64: g.CreatorID, Valid: true})
		options[i], codes[i], paces[i] = string(g.Options), g.InviteCode, g.Pace
		seats[i], turnSeconds[i], versions[i] = int64(g.Seats), int64(g.TurnSeconds), int64(g.Version)
		publics[i], rankeds[i], seeds[i], created[i] = g.Public, g.Ranked, g.Seed, g.CreatedAt
		turnSeats = append(turnSeats, nullInt(g.TurnSeat))
		turnUsers = append(turnUsers, nullInt64(g.TurnUserID))
		tournaments = append(tournaments, nullInt64(g.TournamentID))
		d := sql.NullTime{}
		if g.DueAt != nil {
			d = sql.NullTime{Time: *g.DueAt, Valid: true}
		}
		dues = append(dues, d)
	}
	var rows []struct {
		ID   int64  `db:"id"`
		Code string `db:"invite_code"`
	}
	err := sel(ctx, t.tx, &rows, `
		INSERT INTO games (creator_id, status, options, seats, public, invite_code, ranked, pace, turn_seconds, seed, version,
			turn_seat, turn_user_id, due_at, created_at, started_at, updated_at, tournament_id)
		SELECT c, 'playing', o::jsonb, n, p, code, r, pace, ts, seed, v, tseat, tuser, due, at, at, at, tid
		FROM unnest($1::bigint[], $2::text[], $3::int[], $4::bool[], $5::text[], $6::bool[], $7::text[], $8::int[], $9::bigint[],
			$10::int[], $11::int[], $12::bigint[], $13::timestamptz[], $14::timestamptz[], $15::bigint[])
			AS x (c, o, n, p, code, r, pace, ts, seed, v, tseat, tuser, due, at, tid)
		RETURNING id, invite_code`,
		pq.Array(creators), pq.Array(options), pq.Array(seats), pq.Array(publics), pq.Array(codes), pq.Array(rankeds), pq.Array(paces),
		pq.Array(turnSeconds), pq.Array(seeds), pq.Array(versions), pq.Array(turnSeats), pq.Array(turnUsers), pq.Array(dues),
		pq.Array(created), pq.Array(tournaments))
	if err != nil {
		return nil, fmt.Errorf("db: create started games: %w", err)
	}
	byCode := make(map[string]int64, len(rows))
	for _, r := range rows {
		byCode[r.Code] = r.ID
	}
	ids := make([]int64, n)
	var seatGames, seatUsers, seatNumbers []int64
	var joined []time.Time
	for i, x := range gs {
		ids[i] = byCode[x.Game.InviteCode]
		for k, u := range x.People {
			seatGames = append(seatGames, ids[i])
			seatUsers = append(seatUsers, u)
			seatNumbers = append(seatNumbers, int64(k))
			joined = append(joined, x.Game.CreatedAt)
		}
		t.notes = append(t.notes, note{GameChannel, turnPayload(ids[i], x.Game.Version, x.Game.TurnUserID)})
	}
	if err := exec(ctx, t.tx, "create started seats", `
		INSERT INTO game_seats (game_id, seat, user_id, joined_at)
		SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::timestamptz[])`,
		pq.Array(seatGames), pq.Array(seatNumbers), pq.Array(seatUsers), pq.Array(joined)); err != nil {
		return nil, err
	}
	t.noteLists(ListLive)
	return ids, nil
}

func nullInt(p *int) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*p), Valid: true}
}

func nullInt64(p *int64) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *p, Valid: true}
}

// GameForUpdate loads a game and locks its row until the transaction ends,
// so that actions on one game are applied one at a time.
func (t *Tx) GameForUpdate(ctx context.Context, id int64) (Game, error) {
	var g Game
	if err := get(ctx, t.tx, &g, `SELECT `+gameColumns+` FROM games g WHERE g.id = $1 FOR UPDATE`, id); err != nil {
		return Game{}, fmt.Errorf("db: lock game %d: %w", id, notFound(err))
	}
	return g, nil
}

// Game loads a game.
func (s *Store) Game(ctx context.Context, id int64) (Game, error) {
	var g Game
	if err := get(ctx, s.DB, &g, `SELECT `+gameColumns+` FROM games g WHERE g.id = $1`, id); err != nil {
		return Game{}, fmt.Errorf("db: game %d: %w", id, notFound(err))
	}
	return g, nil
}

// GameByInvite loads a game by its invite code.
func (s *Store) GameByInvite(ctx context.Context, code string) (Game, error) {
	var g Game
	if err := get(ctx, s.DB, &g, `SELECT `+gameColumns+` FROM games g WHERE g.invite_code = $1`, code); err != nil {
		return Game{}, fmt.Errorf("db: game by invite: %w", notFound(err))
	}
	return g, nil
}

const seatColumns = `s.id, s.game_id, s.seat, s.user_id, u.username, s.bot_level, s.bot_number, s.joined_at, s.timeouts, s.abandoned, s.total, s.place, u.vacation_until, COALESCE(u.bot, false) AS bot_account, s.import_name, s.import_bot`

func seats(ctx context.Context, q queryer, gameID int64) ([]Seat, error) {
	var out []Seat
	err := sel(ctx, q, &out, `
		SELECT `+seatColumns+`
		FROM game_seats s LEFT JOIN users u ON u.id = s.user_id
		WHERE s.game_id = $1
		ORDER BY s.seat NULLS LAST, s.joined_at, s.id`, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: seats of game %d: %w", gameID, err)
	}
	return out, nil
}

// Seats lists a game's seats in seat order (before the start, join order).
func (s *Store) Seats(ctx context.Context, gameID int64) ([]Seat, error) {
	return seats(ctx, s.DB, gameID)
}

// Seats lists a game's seats inside the transaction.
func (t *Tx) Seats(ctx context.Context, gameID int64) ([]Seat, error) {
	return seats(ctx, t.tx, gameID)
}

func moves(ctx context.Context, q queryer, gameID int64) ([]Move, error) {
	var out []Move
	err := sel(ctx, q, &out, `
		SELECT game_id, seq, round, seat, kind, card, pot, timeout, created_at
		FROM moves WHERE game_id = $1 ORDER BY seq`, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: moves of game %d: %w", gameID, err)
	}
	return out, nil
}

// Moves lists a game's moves in order.
func (s *Store) Moves(ctx context.Context, gameID int64) ([]Move, error) {
	return moves(ctx, s.DB, gameID)
}

// Moves lists a game's moves inside the transaction.
func (t *Tx) Moves(ctx context.Context, gameID int64) ([]Move, error) {
	return moves(ctx, t.tx, gameID)
}

// Rounds lists a game's scored rounds.
func (s *Store) Rounds(ctx context.Context, gameID int64) ([]Round, error) {
	var out []Round
	if err := sel(ctx, s.DB, &out, `SELECT game_id, round, result, finished_at FROM rounds WHERE game_id = $1 ORDER BY round`, gameID); err != nil {
		return nil, fmt.Errorf("db: rounds of game %d: %w", gameID, err)
	}
	return out, nil
}

// AddSeat seats a user (userID set) or a bot (botLevel set) in an open game.
// A bot is given botNumber, or when nil the next number at the table. A
// user already seated gives ErrAlreadySeated. The caller holds the game's
// row lock (bots are numbered one at a time).
func (t *Tx) AddSeat(ctx context.Context, gameID int64, userID *int64, botLevel *string, botNumber *int, at time.Time) error {
	_, err := t.tx.ExecContext(ctx, `
		INSERT INTO game_seats (game_id, user_id, bot_level, bot_number, joined_at)
		VALUES ($1, $2, $3::text, CASE WHEN $3::text IS NOT NULL THEN
			COALESCE($4::int, (SELECT COALESCE(max(bot_number), 0) + 1 FROM game_seats WHERE game_id = $1)) END, $5)`,
		gameID, userID, botLevel, botNumber, at)
	if uniqueViolation(err) != "" {
		return ErrAlreadySeated
	}
	if err != nil {
		return fmt.Errorf("db: add seat to game %d: %w", gameID, err)
	}
	t.noteLists(ListOpen)
	return nil
}

// ErrAlreadySeated is returned when a user joins a game twice.
var ErrAlreadySeated = fmt.Errorf("db: already seated")

// RemoveSeat takes a user's seat away from an open game; it reports
// whether there was one.
func (t *Tx) RemoveSeat(ctx context.Context, gameID, userID int64) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM game_seats WHERE game_id = $1 AND user_id = $2`, gameID, userID)
	if err != nil {
		return false, fmt.Errorf("db: remove seat: %w", err)
	}
	n, _ := res.RowsAffected()
	t.noteLists(ListOpen)
	return n > 0, nil
}

// RemoveBotSeat takes a bot's seat away from an open game.
func (t *Tx) RemoveBotSeat(ctx context.Context, gameID, seatID int64) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM game_seats WHERE game_id = $1 AND id = $2 AND bot_level IS NOT NULL`, gameID, seatID)
	if err != nil {
		return false, fmt.Errorf("db: remove bot seat: %w", err)
	}
	n, _ := res.RowsAffected()
	t.noteLists(ListOpen)
	return n > 0, nil
}

// NumberSeats gives seats their numbers 0..n-1 in the order they were taken.
func (t *Tx) NumberSeats(ctx context.Context, gameID int64) error {
	return exec(ctx, t.tx, "number seats", `
		UPDATE game_seats s SET seat = n.seat
		FROM (SELECT id, row_number() OVER (ORDER BY joined_at, id) - 1 AS seat FROM game_seats WHERE game_id = $1) n
		WHERE s.id = n.id`, gameID)
}

// StartGame marks a game as playing.
func (t *Tx) StartGame(ctx context.Context, gameID int64, seats int, at time.Time) error {
	if err := exec(ctx, t.tx, "start game", `
		UPDATE games SET status = 'playing', seats = $2, options = jsonb_set(options, '{players}', to_jsonb($2::int)),
			started_at = $3, updated_at = $3
		WHERE id = $1`, gameID, seats, at); err != nil {
		return err
	}
	t.noteLists(ListOpen, ListLive)
	return t.noteInvitees(ctx, gameID)
}

// CancelGame marks an open game cancelled (its last player left).
func (t *Tx) CancelGame(ctx context.Context, gameID int64, at time.Time) error {
	if err := exec(ctx, t.tx, "cancel game", `UPDATE games SET status = 'cancelled', updated_at = $2 WHERE id = $1`, gameID, at); err != nil {
		return err
	}
	t.noteLists(ListOpen)
	return t.noteInvitees(ctx, gameID)
}

// noteInvitees tells the people with an open invitation to a table that
// no longer looks for players that their invitations changed (their badge
// stops counting it once this commits).
func (t *Tx) noteInvitees(ctx context.Context, gameID int64) error {
	var to []int64
	if err := sel(ctx, t.tx, &to, `SELECT to_user FROM invites WHERE game_id = $1 AND status = 'open'`, gameID); err != nil {
		return fmt.Errorf("db: invitees of game %d: %w", gameID, err)
	}
	for _, u := range to {
		t.notes = append(t.notes, note{InviteChannel, fmt.Sprint(u)})
	}
	return nil
}

// GameState is what changes in a game row with each move.
type GameState struct {
	Version    int
	Status     string
	TurnSeat   *int
	TurnUserID *int64
	DueAt      *time.Time
	FinishedAt *time.Time
	UpdatedAt  time.Time
}

// SetGameState stores a game's new state, provided its version is still
// prev; it reports false when another action got there first.
func (t *Tx) SetGameState(ctx context.Context, gameID int64, prev int, st GameState) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `
		UPDATE games SET version = $3, status = $4, turn_seat = $5, turn_user_id = $6, due_at = $7,
			finished_at = COALESCE($8, finished_at), updated_at = $9
		WHERE id = $1 AND version = $2`,
		gameID, prev, st.Version, st.Status, st.TurnSeat, st.TurnUserID, st.DueAt, st.FinishedAt, st.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("db: set state of game %d: %w", gameID, err)
	}
	n, _ := res.RowsAffected()
	if n == 1 && st.Status == StatusFinished {
		t.noteLists(ListLive)
	}
	return n == 1, nil
}

// MoveWrite is everything one move changes in a game's rows.
type MoveWrite struct {
	Move Move
	// Round is the round the move ended, scored; nil when it ended none.
	Round *Round
	// Prev is the version the move was made on.
	Prev  int
	State GameState
	// WakeDue, when set, wakes the due-move workers for a machine's move
	// at that time (a bot or an abandoned seat is next).
	WakeDue *time.Time
}

// RecordMove writes a move in one statement: the game row's new state,
// provided its version is still w.Prev, and only then the move into the
// log and the round it ended; once the transaction commits, every instance
// is told. It reports false when the version had moved on.
func (t *Tx) RecordMove(ctx context.Context, w MoveWrite) (bool, error) {
	stmt, err := t.stmt(ctx, recordMoveQuery)
	if err != nil {
		return false, err
	}
	ok, err := recordMove(ctx, stmt, w)
	if ok && err == nil {
		t.notes = append(t.notes, w.notes()...)
	}
	return ok, err
}

// RecordMove writes a move like Tx.RecordMove, as a transaction of its own
// (one round trip): the game row's version is the check that nobody moved
// since w.Prev, so no lock is held while the move is decided. Every
// instance is told once it has committed.
func (s *Store) RecordMove(ctx context.Context, w MoveWrite) (bool, error) {
	stmt, err := s.hot.prepare(ctx, s.DB, recordMoveQuery)
	if err != nil {
		return false, err
	}
	ok, err := recordMove(ctx, stmt, w)
	if ok && err == nil {
		s.notify(w.notes())
	}
	return ok, err
}

func recordMove(ctx context.Context, stmt *sqlx.Stmt, w MoveWrite) (bool, error) {
	m, st := w.Move, w.State
	var roundNo *int
	var result *string
	if w.Round != nil {
		roundNo = &w.Round.Round
		r := string(w.Round.Result)
		result = &r
	}
	var n int
	err := stmt.GetContext(ctx, &n,
		m.GameID, w.Prev, st.Version, st.Status, st.TurnSeat, st.TurnUserID, st.DueAt, st.FinishedAt, st.UpdatedAt,
		m.Round, m.Seat, m.Kind, m.Card, m.Pot, m.Timeout, roundNo, result)
	if err != nil {
		return false, fmt.Errorf("db: record move %d of game %d: %w", m.Seq, m.GameID, err)
	}
	return n == 1, nil
}

func (w MoveWrite) notes() []note {
	ns := []note{{GameChannel, turnPayload(w.Move.GameID, w.State.Version, w.State.TurnUserID)}}
	if w.WakeDue != nil {
		ns = append(ns, note{DueChannel, strconv.FormatInt(w.WakeDue.UnixMilli(), 10)})
	}
	if w.State.Status == StatusFinished {
		ns = append(ns, note{ListsChannel, ListLive})
	}
	return ns
}

// recordMoveQuery moves the game row on from $2 and, only if it did, writes
// the move and the round it ended.
const recordMoveQuery = `
		WITH g AS (
			UPDATE games SET version = $3, status = $4, turn_seat = $5, turn_user_id = $6, due_at = $7,
				finished_at = COALESCE($8, finished_at), updated_at = $9
			WHERE id = $1 AND version = $2
			RETURNING id
		), m AS (
			INSERT INTO moves (game_id, seq, round, seat, kind, card, pot, timeout, created_at)
			SELECT id, $3, $10, $11, $12, $13, $14, $15, $9 FROM g
		), r AS (
			INSERT INTO rounds (game_id, round, result, finished_at)
			SELECT id, $16::int, $17::text::jsonb, $9 FROM g WHERE $16::int IS NOT NULL
		)
		SELECT count(*) FROM g`

// SetSeatResults stores every seat's final total and placing, by seat.
func (t *Tx) SetSeatResults(ctx context.Context, gameID int64, totals, placings, decisions []int) error {
	seats := make([]int, len(totals))
	for i := range seats {
		seats[i] = i
	}
	return exec(ctx, t.tx, "set seat results", `
		UPDATE game_seats s SET total = v.total, place = v.place, decisions = v.decisions
		FROM unnest($2::int[], $3::int[], $4::int[], $5::int[]) AS v(seat, total, place, decisions)
		WHERE s.game_id = $1 AND s.seat = v.seat`, gameID, pq.Array(seats), pq.Array(totals), pq.Array(placings), pq.Array(decisions))
}

// AddTimeout counts a timeout against a seat and returns the new count.
func (t *Tx) AddTimeout(ctx context.Context, gameID int64, seat int) (int, error) {
	var n int
	err := get(ctx, t.tx, &n, `UPDATE game_seats SET timeouts = timeouts + 1 WHERE game_id = $1 AND seat = $2 RETURNING timeouts`, gameID, seat)
	if err != nil {
		return 0, fmt.Errorf("db: add timeout: %w", err)
	}
	return n, nil
}

// MarkLeft records that a seat's player left the game (and so abandoned
// it).
func (t *Tx) MarkLeft(ctx context.Context, gameID int64, seat int, at time.Time) error {
	return exec(ctx, t.tx, "mark left", `UPDATE game_seats SET abandoned = true, left_at = $3 WHERE game_id = $1 AND seat = $2`, gameID, seat, at)
}

// MarkAbandoned records that a seat's player abandoned the game.
func (t *Tx) MarkAbandoned(ctx context.Context, gameID int64, seat int) error {
	return exec(ctx, t.tx, "mark abandoned", `UPDATE game_seats SET abandoned = true WHERE game_id = $1 AND seat = $2`, gameID, seat)
}

// DueGames locks up to limit playing games whose due time has passed,
// skipping games another instance holds, so each is handled once.
func (t *Tx) DueGames(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	var ids []int64
	err := sel(ctx, t.tx, &ids, `
		SELECT id FROM games
		WHERE status = 'playing' AND due_at <= $1
		ORDER BY due_at
		LIMIT $2
		FOR UPDATE SKIP LOCKED`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("db: due games: %w", err)
	}
	return ids, nil
}

// NextDue returns the earliest due time of a playing game, if any.
func (s *Store) NextDue(ctx context.Context) (*time.Time, error) {
	var t *time.Time
	if err := get(ctx, s.DB, &t, `SELECT min(due_at) FROM games WHERE status = 'playing'`); err != nil {
		return nil, fmt.Errorf("db: next due: %w", err)
	}
	return t, nil
}

// GameSummary is a game as the lists show it.
type GameSummary struct {
	Game
	// Players are the names of the seats' people ("" for a bot), and
	// BotLevels and BotNumbers the seats' bots ("" and 0 for a person).
	Players    pq.StringArray `db:"players"`
	BotLevels  pq.StringArray `db:"bot_levels"`
	BotNumbers pq.Int64Array  `db:"bot_numbers"`
	Taken      int            `db:"taken"`
	TurnName   *string        `db:"turn_name"`
	MySeat     *int           `db:"my_seat"`
	MyPlacing  *int           `db:"my_placing"`
	Watchers   int            `db:"watchers"`
	// UnreadChat counts the messages in the players' chat the person has
	// not seen (their own list of games only).
	UnreadChat int `db:"unread_chat"`
	// BotAccounts marks the seats of bot accounts (docs/bots.md), in the
	// order of Players.
	BotAccounts pq.BoolArray `db:"bot_accounts"`
	// UserIDs are the seats' accounts in the order of Players (0 for a
	// bot of the server's).
	UserIDs pq.Int64Array `db:"user_ids"`
}

const summaryColumns = gameColumns + `,
	ARRAY(SELECT COALESCE(CASE WHEN u.deleted_at IS NOT NULL THEN '` + DeletedName + `' ELSE u.username END, '') FROM game_seats s LEFT JOIN users u ON u.id = s.user_id
	      WHERE s.game_id = g.id ORDER BY s.seat NULLS LAST, s.joined_at, s.id) AS players,
	ARRAY(SELECT COALESCE(s.bot_level, '') FROM game_seats s WHERE s.game_id = g.id ORDER BY s.seat NULLS LAST, s.joined_at, s.id) AS bot_levels,
	ARRAY(SELECT COALESCE(s.bot_number, 0) FROM game_seats s WHERE s.game_id = g.id ORDER BY s.seat NULLS LAST, s.joined_at, s.id) AS bot_numbers,
	ARRAY(SELECT COALESCE(u.bot, false) FROM game_seats s LEFT JOIN users u ON u.id = s.user_id
	      WHERE s.game_id = g.id ORDER BY s.seat NULLS LAST, s.joined_at, s.id) AS bot_accounts,
	ARRAY(SELECT COALESCE(s.user_id, 0) FROM game_seats s WHERE s.game_id = g.id ORDER BY s.seat NULLS LAST, s.joined_at, s.id) AS user_ids,
	(SELECT count(*) FROM game_seats s WHERE s.game_id = g.id) AS taken,
	(SELECT username FROM users WHERE id = g.turn_user_id) AS turn_name`

// OpenGames lists public games waiting for players, newest first.
func (s *Store) OpenGames(ctx context.Context, limit int) ([]GameSummary, error) {
	var out []GameSummary
	err := sel(ctx, s.DB, &out, `SELECT `+summaryColumns+`, NULL::int AS my_seat, NULL::int AS my_placing, 0 AS watchers
		FROM games g WHERE g.status = 'open' AND g.public ORDER BY g.created_at DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("db: open games: %w", err)
	}
	return out, nil
}

// LiveGames lists public games in play, most recently active first, with
// the number of people watching each (streams seen since seenSince).
func (s *Store) LiveGames(ctx context.Context, seenSince time.Time, limit int) ([]GameSummary, error) {
	var out []GameSummary
	err := sel(ctx, s.DB, &out, `SELECT `+summaryColumns+`, NULL::int AS my_seat, NULL::int AS my_placing,
		(SELECT COALESCE(sum(p.streams), 0) FROM stream_presence p WHERE p.game_id = g.id AND p.seen_at > $1
		  AND (p.user_id = 0 OR NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.user_id = p.user_id))) AS watchers
		FROM games g WHERE g.status = 'playing' AND g.public ORDER BY g.updated_at DESC LIMIT $2`, seenSince, limit)
	if err != nil {
		return nil, fmt.Errorf("db: live games: %w", err)
	}
	return out, nil
}

// UserGames lists the games a user sits in (not cancelled): those waiting
// for them first, then the rest in play or open, then finished ones.
func (s *Store) UserGames(ctx context.Context, userID int64, limit int) ([]GameSummary, error) {
	var out []GameSummary
	err := sel(ctx, s.DB, &out, `SELECT `+summaryColumns+`, my.seat AS my_seat, my.place AS my_placing, 0 AS watchers,
			(SELECT count(*) FROM chat_messages c WHERE `+unreadChat("c", "$1", "g.id")+`)::int AS unread_chat
		FROM games g JOIN game_seats my ON my.game_id = g.id AND my.user_id = $1
		WHERE g.status <> 'cancelled'
		ORDER BY (g.status = 'playing' AND g.turn_user_id = $1) DESC,
		         (g.status = 'finished'),
		         g.due_at NULLS LAST, g.updated_at DESC
		LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: games of user %d: %w", userID, err)
	}
	return out, nil
}

// Waiting is what waits for a person: games for their decision and
// invitations for their answer.
type Waiting struct {
	Turns   int `db:"turns"`
	Invites int `db:"invites"`
}

// WaitingFor counts the games waiting for a user's decision and the
// invitations waiting for their answer, in one read.
func (s *Store) WaitingFor(ctx context.Context, userID int64, now time.Time) (Waiting, error) {
	var w Waiting
	if err := get(ctx, s.DB, &w, `SELECT
		(SELECT count(*) FROM games WHERE status = 'playing' AND turn_user_id = $1)::int AS turns,
		(SELECT count(*) FROM invites i WHERE i.to_user = $1 AND `+openInvite+`)::int AS invites`, userID, now); err != nil {
		return Waiting{}, fmt.Errorf("db: waiting for %d: %w", userID, err)
	}
	return w, nil
}

// TurnGame is a game waiting for a person's decision, at the version it
// came to them.
type TurnGame struct {
	UserID  int64 `db:"turn_user_id"`
	GameID  int64 `db:"id"`
	Version int   `db:"version"`
}

// TurnGames lists the games waiting for each of the users' decisions
// (games being played whose turn is theirs; bots' turns are nobody's).
func (s *Store) TurnGames(ctx context.Context, userIDs []int64) ([]TurnGame, error) {
	var out []TurnGame
	err := s.DB.SelectContext(ctx, &out, `
		SELECT turn_user_id, id, version FROM games
		WHERE status = 'playing' AND turn_user_id = ANY($1)`, pq.Array(userIDs))
	if err != nil {
		return nil, fmt.Errorf("db: turn games: %w", err)
	}
	return out, nil
}

// SeatedGames lists the open and playing games a user sits in.
func (s *Store) SeatedGames(ctx context.Context, userID int64) ([]Game, error) {
	var out []Game
	err := sel(ctx, s.DB, &out, `SELECT `+gameColumns+` FROM games g JOIN game_seats s ON s.game_id = g.id AND s.user_id = $1
		WHERE g.status IN ('open', 'playing') ORDER BY g.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: seated games of %d: %w", userID, err)
	}
	return out, nil
}

// DueNow makes a playing game's next move due at at (a seat whose player
// left is played by the server) and wakes the workers once committed.
func (t *Tx) DueNow(ctx context.Context, gameID int64, at time.Time) error {
	if err := exec(ctx, t.tx, "due now", `UPDATE games SET due_at = $2, turn_user_id = NULL WHERE id = $1 AND status = 'playing'`, gameID, at); err != nil {
		return err
	}
	return t.NotifyDue(ctx, at)
}
