package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Rated events and a mark for unfair play (docs/fair-play.md): the
// marked player is disqualified from the rated events they played in,
// and the events are scored again without them.

// EventsToDisqualify lists, in id order, the rated events a player takes
// part in that a mark takes them out of: those not yet over and those
// that started since since; cancelled events and those they were
// disqualified from already are left out.
func (t *Tx) EventsToDisqualify(ctx context.Context, userID int64, since time.Time) ([]int64, error) {
	var out []int64
	err := sel(ctx, t.tx, &out, `
		SELECT t.id FROM tournaments t JOIN tournament_players p ON p.tournament_id = t.id AND p.user_id = $1
		WHERE t.rated AND t.status <> 'cancelled' AND p.disqualified_by IS NULL
			AND (t.status IN ('upcoming', 'running') OR t.starts_at >= $2)
		ORDER BY t.id`, userID, since)
	if err != nil {
		return nil, fmt.Errorf("db: events to disqualify %d from: %w", userID, err)
	}
	return out, nil
}

// Disqualify takes a player out of an event's ranking by a decision.
func (t *Tx) Disqualify(ctx context.Context, tournamentID, userID, decisionID int64) error {
	return exec(ctx, t.tx, "disqualify", `UPDATE tournament_players SET disqualified_by = $3, place = NULL
		WHERE tournament_id = $1 AND user_id = $2`, tournamentID, userID, decisionID)
}

// Requalify puts back in their events' rankings the players a decision
// disqualified and returns those events, in id order.
func (t *Tx) Requalify(ctx context.Context, decisionID int64) ([]int64, error) {
	var out []int64
	err := sel(ctx, t.tx, &out, `UPDATE tournament_players SET disqualified_by = NULL WHERE disqualified_by = $1
		RETURNING tournament_id`, decisionID)
	if err != nil {
		return nil, fmt.Errorf("db: requalify by decision %d: %w", decisionID, err)
	}
	return out, nil
}

// SeatPlace is one seat's placing at a finished game of an event, as the
// game itself keeps it (never changed by a disqualification).
type SeatPlace struct {
	GameID int64 `db:"game_id"`
	UserID int64 `db:"user_id"`
	Place  int   `db:"place"`
}

// EventPlacings lists the placings of every seat at an event's finished
// games.
func (t *Tx) EventPlacings(ctx context.Context, tournamentID int64) ([]SeatPlace, error) {
	var out []SeatPlace
	err := sel(ctx, t.tx, &out, `
		SELECT s.game_id, s.user_id, s.place FROM tournament_games tg
		JOIN game_seats s ON s.game_id = tg.game_id
		WHERE tg.tournament_id = $1 AND tg.finished AND s.user_id IS NOT NULL AND s.place IS NOT NULL
		ORDER BY s.game_id, s.seat`, tournamentID)
	if err != nil {
		return nil, fmt.Errorf("db: placings of tournament %d: %w", tournamentID, err)
	}
	return out, nil
}

// RewriteResults stores results scored again: each row's place, points,
// counted points and first place, by id.
func (t *Tx) RewriteResults(ctx context.Context, rs []TournamentResult) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	ids, places, points, counted, won := make([]int64, n), make([]sql.NullInt64, n), make([]int64, n), make([]int64, n), make([]bool, n)
	for i, r := range rs {
		ids[i], points[i], counted[i], won[i] = r.ID, int64(r.Points), int64(r.Counted), r.Won
		if r.Place != nil {
			places[i] = sql.NullInt64{Int64: int64(*r.Place), Valid: true}
		}
	}
	return exec(ctx, t.tx, "rewrite results", `
		UPDATE tournament_results r SET place = v.place, points = v.points, counted = v.counted, won = v.won
		FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::bool[]) AS v (id, place, points, counted, won)
		WHERE r.id = v.id`, pq.Array(ids), pq.Array(places), pq.Array(points), pq.Array(counted), pq.Array(won))
}

// PlayerTotals are a player's totals in an event, as its results add up.
type PlayerTotals struct {
	UserID                    int64
	Points, Games, Wins, Byes int
	OnFire                    bool
}

// SetPlayerTotals replaces players' totals in an event.
func (t *Tx) SetPlayerTotals(ctx context.Context, tournamentID int64, ts []PlayerTotals) error {
	if len(ts) == 0 {
		return nil
	}
	n := len(ts)
	users, points, gamesN, wins, byes, fire := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]bool, n)
	for i, x := range ts {
		users[i], points[i], gamesN[i], wins[i], byes[i], fire[i] = x.UserID, int64(x.Points), int64(x.Games), int64(x.Wins), int64(x.Byes), x.OnFire
	}
	return exec(ctx, t.tx, "set player totals", `
		UPDATE tournament_players p SET points = v.points, games = v.games, wins = v.wins, byes = v.byes, on_fire = v.fire
		FROM unnest($2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[], $7::bool[]) AS v (user_id, points, games, wins, byes, fire)
		WHERE p.tournament_id = $1 AND p.user_id = v.user_id`,
		tournamentID, pq.Array(users), pq.Array(points), pq.Array(gamesN), pq.Array(wins), pq.Array(byes), pq.Array(fire))
}

// AnyDisqualified reports whether one of the users is disqualified from
// the event (a game of theirs that ends after the mark is scored without
// them).
func (t *Tx) AnyDisqualified(ctx context.Context, tournamentID int64, userIDs []int64) (bool, error) {
	var yes bool
	err := get(ctx, t.tx, &yes, `SELECT EXISTS (SELECT 1 FROM tournament_players
		WHERE tournament_id = $1 AND user_id = ANY($2) AND disqualified_by IS NOT NULL)`, tournamentID, pq.Array(userIDs))
	if err != nil {
		return false, fmt.Errorf("db: disqualified at a table of tournament %d: %w", tournamentID, err)
	}
	return yes, nil
}
