package db

import (
	"context"
	"fmt"
	"time"
)

// Backlog is the work the background workers have not done yet, for
// monitoring.
type Backlog struct {
	// OutboxDepth counts mails not yet settled (pending or being sent).
	OutboxDepth int `db:"outbox_depth"`
	// OldestDueMail is the send time of the earliest mail that is due and
	// not sent; nil when none is.
	OldestDueMail *time.Time `db:"oldest_due_mail"`
	// OldestDueMove is the due time of the earliest playing game whose
	// move is due and not made; nil when none is.
	OldestDueMove *time.Time `db:"oldest_due_move"`
}

// Backlog reads the workers' backlog as of now, through the indexes on
// due times.
func (s *Store) Backlog(ctx context.Context, now time.Time) (Backlog, error) {
	var b Backlog
	err := get(ctx, s.DB, &b, `
		SELECT
			(SELECT count(*) FROM mail_outbox WHERE status IN ('pending', 'sending')) AS outbox_depth,
			(SELECT min(send_after) FROM mail_outbox WHERE status IN ('pending', 'sending') AND send_after <= $1) AS oldest_due_mail,
			(SELECT min(due_at) FROM games WHERE status = 'playing' AND due_at <= $1) AS oldest_due_move`, now)
	if err != nil {
		return Backlog{}, fmt.Errorf("db: backlog: %w", err)
	}
	return b, nil
}
