package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Rematch is an offer to play a finished game's table again.
type Rematch struct {
	GameID    int64     `db:"game_id"`
	OfferedBy int64     `db:"offered_by"`
	NewGameID *int64    `db:"new_game_id"`
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
	// Answers maps each person who answered to whether they accepted.
	Answers map[int64]bool `db:"-"`
}

// RematchForUpdate locks and loads a game's rematch offer (nil when there
// is none).
func (t *Tx) RematchForUpdate(ctx context.Context, gameID int64) (*Rematch, error) {
	return rematchOf(ctx, t.tx, gameID, " FOR UPDATE")
}

// RematchOf loads a game's rematch offer (nil when there is none).
func (s *Store) RematchOf(ctx context.Context, gameID int64) (*Rematch, error) {
	return rematchOf(ctx, s.DB, gameID, "")
}

func rematchOf(ctx context.Context, q queryer, gameID int64, lock string) (*Rematch, error) {
	var r Rematch
	err := get(ctx, q, &r, `SELECT game_id, offered_by, new_game_id, created_at, expires_at FROM rematches WHERE game_id = $1`+lock, gameID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("db: rematch of game %d: %w", gameID, err)
	}
	var answers []struct {
		UserID   int64 `db:"user_id"`
		Accepted bool  `db:"accepted"`
	}
	if err := sel(ctx, q, &answers, `SELECT user_id, accepted FROM rematch_answers WHERE game_id = $1`, gameID); err != nil {
		return nil, fmt.Errorf("db: rematch answers of game %d: %w", gameID, err)
	}
	r.Answers = map[int64]bool{}
	for _, a := range answers {
		r.Answers[a.UserID] = a.Accepted
	}
	return &r, nil
}

// OfferRematch makes (or, when the last one expired, makes anew) a
// game's rematch offer.
func (t *Tx) OfferRematch(ctx context.Context, gameID, userID int64, now, expires time.Time) error {
	if err := exec(ctx, t.tx, "clear rematch", `DELETE FROM rematches WHERE game_id = $1`, gameID); err != nil {
		return err
	}
	return exec(ctx, t.tx, "offer rematch", `
		INSERT INTO rematches (game_id, offered_by, created_at, expires_at) VALUES ($1, $2, $3, $4)`, gameID, userID, now, expires)
}

// AnswerRematch records a person's answer to a rematch offer.
func (t *Tx) AnswerRematch(ctx context.Context, gameID, userID int64, accepted bool, now time.Time) error {
	return exec(ctx, t.tx, "answer rematch", `
		INSERT INTO rematch_answers (game_id, user_id, accepted, answered_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (game_id, user_id) DO UPDATE SET accepted = EXCLUDED.accepted, answered_at = EXCLUDED.answered_at`,
		gameID, userID, accepted, now)
}

// SetRematchGame records the game a rematch became.
func (t *Tx) SetRematchGame(ctx context.Context, gameID, newGameID int64) error {
	return exec(ctx, t.tx, "set rematch game", `UPDATE rematches SET new_game_id = $2 WHERE game_id = $1`, gameID, newGameID)
}
