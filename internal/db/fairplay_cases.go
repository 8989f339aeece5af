package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// PlayerReport is a row of player_reports with the names it concerns.
type PlayerReport struct {
	ID           int64      `db:"id"`
	ReporterID   int64      `db:"reporter_id"`
	ReporterName string     `db:"reporter_name"`
	TargetID     int64      `db:"target_id"`
	TargetName   string     `db:"target_name"`
	GameID       *int64     `db:"game_id"`
	Reason       string     `db:"reason"`
	Note         string     `db:"note"`
	CaseID       int64      `db:"case_id"`
	CreatedAt    time.Time  `db:"created_at"`
	HandledAt    *time.Time `db:"handled_at"`
	Outcome      *string    `db:"outcome"`
}

// ReportsSince counts a reporter's reports since a time.
func (s *Store) ReportsSince(ctx context.Context, reporterID int64, since time.Time) (int, error) {
	var n int
	if err := get(ctx, s.DB, &n, `SELECT count(*) FROM player_reports WHERE reporter_id = $1 AND created_at >= $2`, reporterID, since); err != nil {
		return 0, fmt.Errorf("db: count reports: %w", err)
	}
	return n, nil
}

// FileReport stores a report in the open report case about its target
// (opening one), whose score is ReportWeight per distinct reporter; it
// returns ErrDuplicate when the reporter has an open report of the
// target already.
func (s *Store) FileReport(ctx context.Context, r PlayerReport, weight float64, now time.Time) (int64, error) {
	var id int64
	err := s.Tx(ctx, func(tx *Tx) error {
		var caseID int64
		err := get(ctx, tx.tx, &caseID, `
			INSERT INTO fairplay_cases (user_id, source, opened_at, updated_at) VALUES ($1, 'report', $2, $2)
			ON CONFLICT (user_id, coalesce(partner_id, 0)) WHERE status = 'open' DO UPDATE SET updated_at = EXCLUDED.updated_at
			RETURNING id`, r.TargetID, now)
		if err != nil {
			return fmt.Errorf("db: open report case: %w", err)
		}
		err = get(ctx, tx.tx, &id, `
			INSERT INTO player_reports (reporter_id, target_id, game_id, reason, note, case_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, r.ReporterID, r.TargetID, r.GameID, r.Reason, r.Note, caseID, now)
		if uniqueViolation(err) == "player_reports_one_open" {
			return ErrDuplicate
		}
		if err != nil {
			return fmt.Errorf("db: file report: %w", err)
		}
		return exec(ctx, tx.tx, "score report case", `
			UPDATE fairplay_cases SET score = $2 * (SELECT count(DISTINCT reporter_id) FROM player_reports WHERE case_id = $1 AND handled_at IS NULL)
			WHERE id = $1`, caseID, weight)
	})
	return id, err
}

// ReportsBy lists a member's reports, newest first.
func (s *Store) ReportsBy(ctx context.Context, reporterID int64, limit int) ([]PlayerReport, error) {
	return s.reports(ctx, `r.reporter_id = $1 ORDER BY r.created_at DESC, r.id DESC LIMIT $2`, reporterID, limit)
}

// ReportsOfCase lists a case's reports, oldest first.
func (s *Store) ReportsOfCase(ctx context.Context, caseID int64) ([]PlayerReport, error) {
	return s.reports(ctx, `r.case_id = $1 ORDER BY r.created_at, r.id LIMIT $2`, caseID, 500)
}

func (s *Store) reports(ctx context.Context, where string, args ...any) ([]PlayerReport, error) {
	var out []PlayerReport
	err := sel(ctx, s.DB, &out, `
		SELECT r.id, r.reporter_id, ur.username AS reporter_name, r.target_id, ut.username AS target_name, r.game_id,
			r.reason, r.note, r.case_id, r.created_at, r.handled_at, r.outcome
		FROM player_reports r JOIN users ur ON ur.id = r.reporter_id JOIN users ut ON ut.id = r.target_id
		WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("db: reports: %w", err)
	}
	return out, nil
}

// FairCase is a row of fairplay_cases with the names it concerns.
type FairCase struct {
	ID          int64      `db:"id"`
	UserID      int64      `db:"user_id"`
	UserName    string     `db:"user_name"`
	PartnerID   *int64     `db:"partner_id"`
	PartnerName *string    `db:"partner_name"`
	Source      string     `db:"source"`
	Score       float64    `db:"score"`
	Status      string     `db:"status"`
	OpenedAt    time.Time  `db:"opened_at"`
	UpdatedAt   time.Time  `db:"updated_at"`
	ClosedAt    *time.Time `db:"closed_at"`
	Reports     int        `db:"reports"`
}

const caseColumns = `c.id, c.user_id, u.username AS user_name, c.partner_id, p.username AS partner_name, c.source, c.score, c.status,
	c.opened_at, c.updated_at, c.closed_at, (SELECT count(*) FROM player_reports r WHERE r.case_id = c.id) AS reports
	FROM fairplay_cases c JOIN users u ON u.id = c.user_id LEFT JOIN users p ON p.id = c.partner_id`

// OpenCases lists the open cases, strongest first.
func (s *Store) OpenCases(ctx context.Context, limit int) ([]FairCase, error) {
	var out []FairCase
	if err := sel(ctx, s.DB, &out, `SELECT `+caseColumns+` WHERE c.status = 'open' ORDER BY c.score DESC, c.opened_at, c.id LIMIT $1`, limit); err != nil {
		return nil, fmt.Errorf("db: open cases: %w", err)
	}
	return out, nil
}

// CaseByID loads a case.
func (s *Store) CaseByID(ctx context.Context, id int64) (FairCase, error) {
	var c FairCase
	if err := get(ctx, s.DB, &c, `SELECT `+caseColumns+` WHERE c.id = $1`, id); err != nil {
		return c, fmt.Errorf("db: case %d: %w", id, notFound(err))
	}
	return c, nil
}

// PairGameEvidence is one rated game of a pair, for the case page: the
// game, both places, and the pair's figures from it.
type PairGameEvidence struct {
	GameID     int64     `db:"game_id"`
	FinishedAt time.Time `db:"finished_at"`
	Players    int       `db:"players"`
	PlaceA     int       `db:"place_a"`
	PlaceB     int       `db:"place_b"`
	FromRest   float64   `db:"from_rest"`
	BFromA     float64   `db:"b_from_a"`
	AFromB     float64   `db:"a_from_b"`
	FeedsAB    int       `db:"feeds_ab"`
	FeedsBA    int       `db:"feeds_ba"`
}

// PairGamesOf lists a pair's finished rated games together, newest first.
func (s *Store) PairGamesOf(ctx context.Context, a, b int64, limit int) ([]PairGameEvidence, error) {
	if a > b {
		a, b = b, a
	}
	var out []PairGameEvidence
	err := sel(ctx, s.DB, &out, `
		SELECT pg.game_id, g.finished_at, g.seats AS players, sa.place AS place_a, sb.place AS place_b,
			pg.from_rest, pg.b_from_a, pg.a_from_b, pg.feeds_ab, pg.feeds_ba
		FROM pair_games pg JOIN games g ON g.id = pg.game_id AND g.status = 'finished'
		JOIN game_seats sa ON sa.game_id = pg.game_id AND sa.user_id = pg.user_a
		JOIN game_seats sb ON sb.game_id = pg.game_id AND sb.user_id = pg.user_b
		WHERE pg.user_a = $1 AND pg.user_b = $2 ORDER BY g.finished_at DESC, pg.game_id DESC LIMIT $3`, a, b, limit)
	if err != nil {
		return nil, fmt.Errorf("db: pair games: %w", err)
	}
	return out, nil
}

// StrongestPairs lists an account's pairs by score, for a case about it.
func (s *Store) StrongestPairs(ctx context.Context, userID int64, limit int) ([]PairSignal, error) {
	var out []PairSignal
	err := sel(ctx, s.DB, &out, `
		SELECT p.*, ua.username AS name_a, ub.username AS name_b FROM pair_signals p
		JOIN users ua ON ua.id = p.user_a JOIN users ub ON ub.id = p.user_b
		WHERE p.user_a = $1 OR p.user_b = $1 ORDER BY p.score DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: strongest pairs: %w", err)
	}
	return out, nil
}

// FairDecision is a row of fairplay_decisions with names.
type FairDecision struct {
	ID          int64      `db:"id"`
	CaseID      int64      `db:"case_id"`
	UserID      int64      `db:"user_id"`
	UserName    string     `db:"user_name"`
	Action      string     `db:"action"`
	Reason      string     `db:"reason"`
	DecidedBy   *int64     `db:"decided_by"`
	DecidedName *string    `db:"decided_name"`
	DecidedAt   time.Time  `db:"decided_at"`
	UndoneAt    *time.Time `db:"undone_at"`
	UndoReason  *string    `db:"undo_reason"`
	Appeal      *string    `db:"appeal"`
	AppealedAt  *time.Time `db:"appealed_at"`
	Answer      *string    `db:"answer"`
	AnswerNote  *string    `db:"answer_note"`
	AnsweredBy  *int64     `db:"answered_by"`
	AnsweredAt  *time.Time `db:"answered_at"`
	// Refunded is the points given back to others by this decision.
	Refunded float64 `db:"refunded"`
}

const decisionColumns = `d.id, d.case_id, d.user_id, u.username AS user_name, d.action, d.reason, d.decided_by, m.username AS decided_name,
	d.decided_at, d.undone_at, d.undo_reason, d.appeal, d.appealed_at, d.answer, d.answer_note, d.answered_by, d.answered_at,
	(SELECT coalesce(sum(points), 0) FROM rating_refunds r WHERE r.decision_id = d.id AND r.undone_at IS NULL) AS refunded
	FROM fairplay_decisions d JOIN users u ON u.id = d.user_id LEFT JOIN users m ON m.id = d.decided_by`

// DecisionsOfCase lists a case's decisions, oldest first.
func (s *Store) DecisionsOfCase(ctx context.Context, caseID int64) ([]FairDecision, error) {
	var out []FairDecision
	if err := sel(ctx, s.DB, &out, `SELECT `+decisionColumns+` WHERE d.case_id = $1 ORDER BY d.decided_at, d.id`, caseID); err != nil {
		return nil, fmt.Errorf("db: decisions of case: %w", err)
	}
	return out, nil
}

// DecisionsAbout lists the warnings, marks and closings of an account
// (what it may see and appeal), newest first.
func (s *Store) DecisionsAbout(ctx context.Context, userID int64) ([]FairDecision, error) {
	var out []FairDecision
	if err := sel(ctx, s.DB, &out, `SELECT `+decisionColumns+` WHERE d.user_id = $1 AND d.action <> 'dismiss' ORDER BY d.decided_at DESC, d.id DESC`, userID); err != nil {
		return nil, fmt.Errorf("db: decisions about: %w", err)
	}
	return out, nil
}

// PendingAppeals lists the appeals waiting for an answer, oldest first.
func (s *Store) PendingAppeals(ctx context.Context, limit int) ([]FairDecision, error) {
	var out []FairDecision
	if err := sel(ctx, s.DB, &out, `SELECT `+decisionColumns+` WHERE d.appealed_at IS NOT NULL AND d.answered_at IS NULL AND d.undone_at IS NULL ORDER BY d.appealed_at LIMIT $1`, limit); err != nil {
		return nil, fmt.Errorf("db: pending appeals: %w", err)
	}
	return out, nil
}

// DecisionByID loads a decision.
func (s *Store) DecisionByID(ctx context.Context, id int64) (FairDecision, error) {
	var d FairDecision
	if err := get(ctx, s.DB, &d, `SELECT `+decisionColumns+` WHERE d.id = $1`, id); err != nil {
		return d, fmt.Errorf("db: decision %d: %w", id, notFound(err))
	}
	return d, nil
}

// RatedSeat is one seat of a rated game with what its rating change was
// made of, for refunds.
type RatedSeat struct {
	GameID int64   `db:"game_id"`
	UserID int64   `db:"user_id"`
	Before float64 `db:"before"`
	Games  int     `db:"games"`
	Place  int     `db:"place"`
	N      int     `db:"players"`
}

// RatedSeatsWith lists every seat of the rated games the account played
// since a time (its own seats included), by game.
func (s *Store) RatedSeatsWith(ctx context.Context, userID int64, gameID *int64, since time.Time) ([]RatedSeat, error) {
	var out []RatedSeat
	err := sel(ctx, s.DB, &out, `
		SELECT rc.game_id, rc.user_id, rc.before, rc.place, rc.players,
			(SELECT count(*) FROM (SELECT 1 FROM rating_changes o WHERE o.user_id = rc.user_id AND (o.created_at, o.id) < (rc.created_at, rc.id) LIMIT 20) x) AS games
		FROM rating_changes rc
		WHERE rc.game_id IN (SELECT game_id FROM rating_changes WHERE user_id = $1 AND created_at >= $2 AND ($3::bigint IS NULL OR game_id = $3))
		ORDER BY rc.game_id, rc.user_id`, userID, since, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: rated seats: %w", err)
	}
	return out, nil
}

// Refund is a row of rating_refunds.
type Refund struct {
	ID         int64      `db:"id"`
	DecisionID int64      `db:"decision_id"`
	UserID     int64      `db:"user_id"`
	MarkedID   int64      `db:"marked_id"`
	MarkedName string     `db:"marked_name"`
	GameID     int64      `db:"game_id"`
	Points     float64    `db:"points"`
	CreatedAt  time.Time  `db:"created_at"`
	UndoneAt   *time.Time `db:"undone_at"`
}

// RefundsOf lists the refunds an account received (undone ones too).
func (s *Store) RefundsOf(ctx context.Context, userID int64) ([]Refund, error) {
	var out []Refund
	err := sel(ctx, s.DB, &out, `
		SELECT r.id, r.decision_id, r.user_id, r.marked_id, u.username AS marked_name, r.game_id, r.points, r.created_at, r.undone_at
		FROM rating_refunds r JOIN users u ON u.id = r.marked_id WHERE r.user_id = $1 ORDER BY r.created_at, r.id`, userID)
	if err != nil {
		return nil, fmt.Errorf("db: refunds: %w", err)
	}
	return out, nil
}

// Decide records a moderator's decision on a case in one transaction:
// the decision; for a mark the account's marked_at and the refunds (each
// added to its victim's rating; ErrDuplicate when one of them was given
// already); for a closing the account disabled (its sessions and tokens
// ended); the log line; the reports of the case answered with outcome
// and, when close is set, the case closed. It returns the decision's id
// and the revoked tokens' hashes.
//
// marked, when set, is called in the transaction after a mark is stored
// (the rated events' standings scored again without the player).
func (s *Store) Decide(ctx context.Context, d FairDecision, refunds []Refund, closeCase bool, outcome string, at time.Time, marked func(tx *Tx, decisionID int64) error) (int64, []string, error) {
	var id int64
	var revoked []string
	err := s.Tx(ctx, func(tx *Tx) error {
		var status string
		if err := get(ctx, tx.tx, &status, `SELECT status FROM fairplay_cases WHERE id = $1 FOR UPDATE`, d.CaseID); err != nil {
			return fmt.Errorf("db: lock case: %w", notFound(err))
		}
		if status != "open" {
			return ErrClosed
		}
		if err := get(ctx, tx.tx, &id, `
			INSERT INTO fairplay_decisions (case_id, user_id, action, reason, decided_by, decided_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, d.CaseID, d.UserID, d.Action, d.Reason, d.DecidedBy, at); err != nil {
			return fmt.Errorf("db: decide: %w", err)
		}
		action := map[string]string{"dismiss": ModFairDismiss, "warn": ModFairWarn, "mark": ModFairMark, "close": ModFairClose}[d.Action]
		if d.Action != "dismiss" {
			if err := mailFair(ctx, tx, MailFairPlay, d.UserID, id, at); err != nil {
				return err
			}
		}
		switch d.Action {
		case "mark":
			var ok bool
			if err := get(ctx, tx.tx, &ok, `UPDATE users SET marked_at = $2, marked_by_decision = $3 WHERE id = $1 AND marked_at IS NULL RETURNING true`, d.UserID, at, id); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					return ErrMarked
				}
				return fmt.Errorf("db: mark: %w", err)
			}
			if err := exec(ctx, tx.tx, "leave queue", `DELETE FROM ranked_queue WHERE user_id = $1 AND game_id IS NULL`, d.UserID); err != nil {
				return err
			}
			// A game refunded already (by a moderator's refund of that
			// game) is left as it is.
			for _, r := range refunds {
				r.DecisionID = id
				if err := addRefundIfNew(ctx, tx, r, at); err != nil {
					return err
				}
			}
			if marked != nil {
				if err := marked(tx, id); err != nil {
					return err
				}
			}
		case "close":
			if err := exec(ctx, tx.tx, "close account", `UPDATE users SET disabled_at = $2 WHERE id = $1`, d.UserID, at); err != nil {
				return err
			}
			var err error
			if revoked, err = endAccess(ctx, tx, d.UserID, at); err != nil {
				return err
			}
		}
		if err := logFair(ctx, tx, d.DecidedBy, action, d.UserID, d.CaseID, d.Reason, at); err != nil {
			return err
		}
		if closeCase {
			return closeFairCase(ctx, tx, d.CaseID, d.DecidedBy, outcome, at)
		}
		return nil
	})
	return id, revoked, err
}

// Errors of decisions.
var (
	ErrClosed = errors.New("db: case closed")
	ErrMarked = errors.New("db: marked already")
)

func closeFairCase(ctx context.Context, tx *Tx, caseID int64, by *int64, outcome string, at time.Time) error {
	if err := exec(ctx, tx.tx, "close case", `UPDATE fairplay_cases SET status = 'closed', closed_at = $2, closed_by = $3, updated_at = $2 WHERE id = $1`, caseID, at, by); err != nil {
		return err
	}
	var handled []struct {
		ID         int64 `db:"id"`
		ReporterID int64 `db:"reporter_id"`
	}
	if err := sel(ctx, tx.tx, &handled, `UPDATE player_reports SET handled_at = $2, outcome = $3 WHERE case_id = $1 AND handled_at IS NULL
		RETURNING id, reporter_id`, caseID, at, outcome); err != nil {
		return fmt.Errorf("db: answer reports: %w", err)
	}
	for _, r := range handled {
		if err := mailFair(ctx, tx, MailReportHandled, r.ReporterID, r.ID, at); err != nil {
			return err
		}
	}
	return nil
}

// mailFair tells a person of a fair-play decision or a handled report,
// by mail and push, through the outbox.
func mailFair(ctx context.Context, tx *Tx, kind string, userID, id int64, at time.Time) error {
	return enqueue(ctx, tx.tx, Mail{UserID: userID, Kind: kind, FairplayID: &id, SendAfter: at, CreatedAt: at})
}

// ReportByID loads a report.
func (s *Store) ReportByID(ctx context.Context, id int64) (PlayerReport, error) {
	rs, err := s.reports(ctx, `r.id = $1 LIMIT $2`, id, 1)
	if err != nil {
		return PlayerReport{}, err
	}
	if len(rs) == 0 {
		return PlayerReport{}, fmt.Errorf("db: report %d: %w", id, ErrNotFound)
	}
	return rs[0], nil
}

func addRefund(ctx context.Context, tx *Tx, r Refund, at time.Time) error {
	err := exec(ctx, tx.tx, "refund", `
		INSERT INTO rating_refunds (decision_id, user_id, marked_id, game_id, points, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		r.DecisionID, r.UserID, r.MarkedID, r.GameID, r.Points, at)
	if uniqueViolation(errors.Unwrap(err)) == "rating_refunds_once" || uniqueViolation(err) == "rating_refunds_once" {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	return exec(ctx, tx.tx, "refund rating", `UPDATE users SET rating = rating + $2 WHERE id = $1`, r.UserID, r.Points)
}

// addRefundIfNew is addRefund for a refund not given yet; one given
// already is left out.
func addRefundIfNew(ctx context.Context, tx *Tx, r Refund, at time.Time) error {
	var ids []int64
	if err := sel(ctx, tx.tx, &ids, `
		INSERT INTO rating_refunds (decision_id, user_id, marked_id, game_id, points, created_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (user_id, marked_id, game_id) WHERE undone_at IS NULL DO NOTHING RETURNING id`,
		r.DecisionID, r.UserID, r.MarkedID, r.GameID, r.Points, at); err != nil {
		return fmt.Errorf("db: refund: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	return exec(ctx, tx.tx, "refund rating", `UPDATE users SET rating = rating + $2 WHERE id = $1`, r.UserID, r.Points)
}

// RefundGame gives back one game's points to the victims of an account in
// a case, logged; ErrDuplicate when any of them was given back already.
func (s *Store) RefundGame(ctx context.Context, d FairDecision, refunds []Refund, at time.Time) error {
	return s.Tx(ctx, func(tx *Tx) error {
		var id int64
		if err := get(ctx, tx.tx, &id, `
			INSERT INTO fairplay_decisions (case_id, user_id, action, reason, decided_by, decided_at)
			VALUES ($1, $2, 'refund', $3, $4, $5) RETURNING id`, d.CaseID, d.UserID, d.Reason, d.DecidedBy, at); err != nil {
			return fmt.Errorf("db: refund decision: %w", err)
		}
		for _, r := range refunds {
			r.DecisionID = id
			if err := addRefund(ctx, tx, r, at); err != nil {
				return err
			}
		}
		if err := mailFair(ctx, tx, MailFairPlay, d.UserID, id, at); err != nil {
			return err
		}
		return logFair(ctx, tx, d.DecidedBy, ModFairRefund, d.UserID, d.CaseID, d.Reason, at)
	})
}

// Undo undoes a decision: a mark's refunds are taken back and the mark
// lifted, a closed account opened again; logged with why. It reports
// false when the decision was undone already.
//
// unmarked, when set, is called in the transaction after a mark is
// lifted (the rated events scored again with the player back).
func (s *Store) Undo(ctx context.Context, decisionID int64, by *int64, why, action string, at time.Time, unmarked func(tx *Tx, decisionID int64) error) (bool, error) {
	done := false
	err := s.Tx(ctx, func(tx *Tx) error {
		var d struct {
			UserID int64  `db:"user_id"`
			CaseID int64  `db:"case_id"`
			Action string `db:"action"`
		}
		err := get(ctx, tx.tx, &d, `UPDATE fairplay_decisions SET undone_at = $2, undone_by = $3, undo_reason = $4
			WHERE id = $1 AND undone_at IS NULL RETURNING user_id, case_id, action`, decisionID, at, by, why)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("db: undo: %w", err)
		}
		done = true
		if err := undoEffects(ctx, tx, decisionID, d.UserID, d.Action, at, unmarked); err != nil {
			return err
		}
		if d.Action != "dismiss" {
			if err := mailFair(ctx, tx, MailFairPlay, d.UserID, decisionID, at); err != nil {
				return err
			}
		}
		return logFair(ctx, tx, by, action, d.UserID, d.CaseID, why, at)
	})
	return done, err
}

func undoEffects(ctx context.Context, tx *Tx, decisionID, userID int64, action string, at time.Time, unmarked func(tx *Tx, decisionID int64) error) error {
	var refunds []Refund
	if err := sel(ctx, tx.tx, &refunds, `UPDATE rating_refunds SET undone_at = $2 WHERE decision_id = $1 AND undone_at IS NULL
		RETURNING id, decision_id, user_id, marked_id, '' AS marked_name, game_id, points, created_at, undone_at`, decisionID, at); err != nil {
		return fmt.Errorf("db: undo refunds: %w", err)
	}
	for _, r := range refunds {
		if err := exec(ctx, tx.tx, "take back refund", `UPDATE users SET rating = rating - $2 WHERE id = $1`, r.UserID, r.Points); err != nil {
			return err
		}
	}
	switch action {
	case "mark":
		if err := exec(ctx, tx.tx, "lift mark", `UPDATE users SET marked_at = NULL, marked_by_decision = NULL WHERE id = $1 AND marked_by_decision = $2`, userID, decisionID); err != nil {
			return err
		}
		if unmarked != nil {
			return unmarked(tx, decisionID)
		}
	case "close":
		return exec(ctx, tx.tx, "reopen account", `UPDATE users SET disabled_at = NULL WHERE id = $1`, userID)
	}
	return nil
}

// AppealDecision stores an account's appeal of a decision about it (once);
// ErrDuplicate when it appealed already, ErrNotFound when the decision is
// not its own or no longer holds.
func (s *Store) AppealDecision(ctx context.Context, decisionID, userID int64, text string, at time.Time) error {
	var ok bool
	err := get(ctx, s.DB, &ok, `UPDATE fairplay_decisions SET appeal = $3, appealed_at = $4
		WHERE id = $1 AND user_id = $2 AND action <> 'dismiss' AND undone_at IS NULL AND appealed_at IS NULL RETURNING true`, decisionID, userID, text, at)
	if errors.Is(err, sql.ErrNoRows) {
		var appealed bool
		if err := get(ctx, s.DB, &appealed, `SELECT appealed_at IS NOT NULL FROM fairplay_decisions WHERE id = $1 AND user_id = $2 AND undone_at IS NULL`, decisionID, userID); err != nil {
			return fmt.Errorf("db: appeal: %w", notFound(err))
		}
		if appealed {
			return ErrDuplicate
		}
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("db: appeal: %w", err)
	}
	return nil
}

// AnswerDecisionAppeal records a moderator's answer to an appeal: upheld keeps
// the decision, overturned undoes it (as Undo does); logged. It reports
// false when the appeal was answered already.
// unmarked is as for Undo.
func (s *Store) AnswerDecisionAppeal(ctx context.Context, decisionID, by int64, overturn bool, note string, at time.Time, unmarked func(tx *Tx, decisionID int64) error) (bool, error) {
	done := false
	err := s.Tx(ctx, func(tx *Tx) error {
		answer, action := "upheld", ModFairUpheld
		if overturn {
			answer, action = "overturned", ModFairOverturned
		}
		var d struct {
			UserID int64  `db:"user_id"`
			CaseID int64  `db:"case_id"`
			Action string `db:"action"`
		}
		err := get(ctx, tx.tx, &d, `UPDATE fairplay_decisions SET answer = $2, answer_note = $3, answered_by = $4, answered_at = $5
			WHERE id = $1 AND appealed_at IS NOT NULL AND answered_at IS NULL AND undone_at IS NULL RETURNING user_id, case_id, action`,
			decisionID, answer, note, by, at)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("db: answer appeal: %w", err)
		}
		done = true
		if overturn {
			if err := exec(ctx, tx.tx, "overturn", `UPDATE fairplay_decisions SET undone_at = $2, undone_by = $3, undo_reason = $4 WHERE id = $1`, decisionID, at, by, note); err != nil {
				return err
			}
			if err := undoEffects(ctx, tx, decisionID, d.UserID, d.Action, at, unmarked); err != nil {
				return err
			}
		}
		if err := mailFair(ctx, tx, MailFairPlay, d.UserID, decisionID, at); err != nil {
			return err
		}
		return logFair(ctx, tx, &by, action, d.UserID, d.CaseID, note, at)
	})
	return done, err
}

func logFair(ctx context.Context, tx *Tx, admin *int64, action string, target, caseID int64, note string, at time.Time) error {
	return exec(ctx, tx.tx, "log fair play", `
		INSERT INTO moderation_log (admin_id, action, target_user, case_id, note, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		admin, action, target, caseID, note, at)
}

// MarkedAmong returns which of some accounts are marked for unfair play.
func (s *Store) MarkedAmong(ctx context.Context, userIDs []int64) (map[int64]bool, error) {
	var ids []int64
	if err := sel(ctx, s.DB, &ids, `SELECT id FROM users WHERE id = ANY($1) AND marked_at IS NOT NULL`, pq.Array(userIDs)); err != nil {
		return nil, fmt.Errorf("db: marked: %w", err)
	}
	out := map[int64]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// IsMarked reports whether an account is marked, inside a transaction.
func (t *Tx) IsMarked(ctx context.Context, userID int64) (bool, error) {
	var marked bool
	if err := get(ctx, t.tx, &marked, `SELECT marked_at IS NOT NULL FROM users WHERE id = $1`, userID); err != nil {
		return false, fmt.Errorf("db: is marked: %w", notFound(err))
	}
	return marked, nil
}

// BothSeated reports whether two accounts played in a game.
func (s *Store) BothSeated(ctx context.Context, gameID, a, b int64) (bool, error) {
	var n int
	if err := get(ctx, s.DB, &n, `SELECT count(DISTINCT user_id) FROM game_seats WHERE game_id = $1 AND user_id IN ($2, $3)`, gameID, a, b); err != nil {
		return false, fmt.Errorf("db: both seated: %w", err)
	}
	return n == 2, nil
}

// PlayWith is one account's play, as the analysis judged it, in rated
// games with another account and in its other rated games: mean accuracy
// (weighted by decisions judged) and games.
type PlayWith struct {
	UserID       int64   `db:"user_id"`
	WithAcc      float64 `db:"with_acc"`
	WithGames    int     `db:"with_games"`
	WithoutAcc   float64 `db:"without_acc"`
	WithoutGames int     `db:"without_games"`
}

// PlayWithAndWithout compares each of a pair's accounts' analysed rated
// games with the other against their analysed rated games without it.
func (s *Store) PlayWithAndWithout(ctx context.Context, a, b int64) (map[int64]PlayWith, error) {
	var rows []PlayWith
	err := sel(ctx, s.DB, &rows, `
		SELECT x.user_id,
			coalesce(sum(x.accuracy * x.decisions) FILTER (WHERE x.together) / nullif(sum(x.decisions) FILTER (WHERE x.together), 0), 0) AS with_acc,
			count(*) FILTER (WHERE x.together) AS with_games,
			coalesce(sum(x.accuracy * x.decisions) FILTER (WHERE NOT x.together) / nullif(sum(x.decisions) FILTER (WHERE NOT x.together), 0), 0) AS without_acc,
			count(*) FILTER (WHERE NOT x.together) AS without_games
		FROM (
			SELECT aa.user_id, aa.accuracy::float8 AS accuracy, aa.decisions,
				EXISTS (SELECT 1 FROM game_seats o WHERE o.game_id = aa.game_id
					AND o.user_id = CASE WHEN aa.user_id = $1 THEN $2::bigint ELSE $1::bigint END) AS together
			FROM analysis_accuracy aa JOIN games g ON g.id = aa.game_id AND g.ranked AND g.status = 'finished'
			WHERE aa.user_id IN ($1, $2) AND aa.decisions > 0
		) x GROUP BY x.user_id`, a, b)
	if err != nil {
		return nil, fmt.Errorf("db: play with and without: %w", err)
	}
	out := map[int64]PlayWith{}
	for _, r := range rows {
		out[r.UserID] = r
	}
	return out, nil
}
