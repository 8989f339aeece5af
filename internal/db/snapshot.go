package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Snapshot is a game row with its seats and the moves after a given
// version, read by one statement, so that the three always agree: the moves
// end exactly at the row's version.
type Snapshot struct {
	Game  Game
	Seats []Seat
	// Moves are the moves with MovesAfter < seq <= Game.Version, in order.
	Moves      []Move
	MovesAfter int
}

type snapshotRow struct {
	Game
	SeatsJSON []byte `db:"seats_json"`
	MovesJSON []byte `db:"moves_json"`
}

// snapshotQuery reads the row, its seats and the moves after $2 up to the
// row's version. As one statement it sees one snapshot of the database.
const snapshotQuery = `SELECT ` + gameColumns + `,
	(SELECT COALESCE(json_agg(json_build_object(
			'id', s.id, 'game_id', s.game_id, 'seat', s.seat, 'user_id', s.user_id, 'username', u.username,
			'bot_level', s.bot_level, 'bot_number', s.bot_number, 'joined_at', s.joined_at, 'timeouts', s.timeouts, 'abandoned', s.abandoned,
			'total', s.total, 'place', s.place, 'vacation_until', u.vacation_until, 'bot_account', COALESCE(u.bot, false),
			'import_name', s.import_name, 'import_bot', s.import_bot)
		ORDER BY s.seat NULLS LAST, s.joined_at, s.id), '[]')
	 FROM game_seats s
	 -- OFFSET 0 keeps this a lookup by key per seat (a handful), never a scan of users.
	 LEFT JOIN LATERAL (SELECT username, vacation_until, bot FROM users WHERE id = s.user_id OFFSET 0) u ON true
	 WHERE s.game_id = g.id) AS seats_json,
	(SELECT COALESCE(json_agg(json_build_object(
			'seq', m.seq, 'round', m.round, 'seat', m.seat, 'kind', m.kind, 'card', m.card, 'pot', m.pot,
			'timeout', m.timeout, 'created_at', m.created_at) ORDER BY m.seq), '[]')
	 FROM moves m WHERE m.game_id = g.id AND m.seq > $2 AND m.seq <= g.version) AS moves_json
	FROM games g WHERE g.id = $1`

func (r snapshotRow) decode(after int) (Snapshot, error) {
	s := Snapshot{Game: r.Game, MovesAfter: after}
	if err := json.Unmarshal(r.SeatsJSON, &s.Seats); err != nil {
		return Snapshot{}, fmt.Errorf("db: decode seats of game %d: %w", r.ID, err)
	}
	if err := json.Unmarshal(r.MovesJSON, &s.Moves); err != nil {
		return Snapshot{}, fmt.Errorf("db: decode moves of game %d: %w", r.ID, err)
	}
	for i := range s.Moves {
		s.Moves[i].GameID = r.ID
	}
	return s, nil
}

// complete reports whether the moves reach the row's version.
func (s Snapshot) complete() bool {
	return s.Game.Version-s.MovesAfter == len(s.Moves)
}

// GameSnapshot reads a game, its seats and its moves after movesAfter (the
// version a cached replay already holds; 0 for all) in one statement.
func (s *Store) GameSnapshot(ctx context.Context, id int64, movesAfter int) (Snapshot, error) {
	var row snapshotRow
	stmt, err := s.hot.prepare(ctx, s.DB, snapshotQuery)
	if err != nil {
		return Snapshot{}, err
	}
	if err := stmt.GetContext(ctx, &row, id, movesAfter); err != nil {
		return Snapshot{}, fmt.Errorf("db: snapshot of game %d: %w", id, notFound(err))
	}
	return row.decode(movesAfter)
}

// LockGameSnapshot locks a started game's row until the transaction ends
// and reads it with its seats and the moves after movesAfter. Usually that
// is one statement. When another transaction holds the row, it waits for
// the lock first and then reads, so that what it reads includes what that
// transaction wrote (a single locking statement reads from before it).
// A transaction that committed just before the lock is caught by the moves
// falling short of the row's version: in a started game every change to the
// seats comes with a move. Lobby changes, which add seats without a move,
// lock with GameForUpdate and read the seats after it.
func (t *Tx) LockGameSnapshot(ctx context.Context, id int64, movesAfter int) (Snapshot, error) {
	var row snapshotRow
	st, err := t.stmt(ctx, snapshotQuery+` FOR UPDATE OF g SKIP LOCKED`)
	if err != nil {
		return Snapshot{}, err
	}
	err = st.GetContext(ctx, &row, id, movesAfter)
	if err == nil {
		snap, err := row.decode(movesAfter)
		if err != nil || snap.complete() {
			return snap, err
		}
		// The row moved on between this statement's snapshot and its lock;
		// the lock is held now, so a fresh read is whole.
	} else if !errors.Is(notFound(err), ErrNotFound) {
		return Snapshot{}, fmt.Errorf("db: lock game %d: %w", id, err)
	} else if _, err := t.GameForUpdate(ctx, id); err != nil {
		return Snapshot{}, err
	}
	if err := get(ctx, t.tx, &row, snapshotQuery, id, movesAfter); err != nil {
		return Snapshot{}, fmt.Errorf("db: snapshot of locked game %d: %w", id, notFound(err))
	}
	snap, err := row.decode(movesAfter)
	if err == nil && !snap.complete() {
		return Snapshot{}, fmt.Errorf("db: game %d at version %d has %d moves after %d", id, snap.Game.Version, len(snap.Moves), movesAfter)
	}
	return snap, err
}
