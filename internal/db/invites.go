package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Invite is a row of invites, with the names a list shows.
type Invite struct {
	ID        int64     `db:"id"`
	GameID    int64     `db:"game_id"`
	FromUser  int64     `db:"from_user"`
	ToUser    int64     `db:"to_user"`
	Status    string    `db:"status"`
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
	FromName  string    `db:"from_name"`
	ToName    string    `db:"to_name"`
	Pace      string    `db:"pace"`
	Seats     int       `db:"seats"`
	Taken     int       `db:"taken"`
	// Public and InviteCode are the table's: a private table is reached
	// with its code.
	Public     bool   `db:"public"`
	InviteCode string `db:"invite_code"`
	// FromBot: the invitation comes from a bot account (docs/bots.md).
	FromBot bool `db:"from_bot"`
}

// TablePath is the address of the table an invitation is to (with its
// code for a private table, which the invitee may see).
func (i Invite) TablePath() string {
	if i.Public {
		return fmt.Sprintf("/games/%d", i.GameID)
	}
	return fmt.Sprintf("/games/%d?code=%s", i.GameID, i.InviteCode)
}

// ErrInvited is CreateInvite's error when the person is invited already.
var ErrInvited = errors.New("db: invited already")

const inviteColumns = `i.id, i.game_id, i.from_user, i.to_user, i.status, i.created_at, i.expires_at,
	f.username AS from_name, f.bot AS from_bot, t.username AS to_name, g.pace, g.seats, g.public, g.invite_code,
	(SELECT count(*) FROM game_seats s WHERE s.game_id = g.id) AS taken`

const inviteFrom = ` FROM invites i JOIN users f ON f.id = i.from_user JOIN users t ON t.id = i.to_user JOIN games g ON g.id = i.game_id`

// CreateInvite records an invitation and, for a correspondence game, its
// mail, together. Inviting someone again while an invitation stands gives
// ErrInvited; a declined or expired one is renewed.
func (s *Store) CreateInvite(ctx context.Context, gameID, from, to int64, now, expires time.Time, mail bool) (int64, error) {
	var id int64
	err := s.Tx(ctx, func(tx *Tx) error {
		err := get(ctx, tx.tx, &id, `
			INSERT INTO invites (game_id, from_user, to_user, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (game_id, to_user) DO UPDATE SET from_user = EXCLUDED.from_user, status = 'open',
				created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
			WHERE invites.status = 'declined' OR invites.expires_at <= EXCLUDED.created_at
			RETURNING id`, gameID, from, to, now, expires)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrInvited
		}
		if err != nil {
			return fmt.Errorf("db: create invite: %w", err)
		}
		tx.notes = append(tx.notes, note{InviteChannel, fmt.Sprint(to)})
		tx.NoticeAbout(to, NoticeInvitation, 0, gameID, id)
		if mail {
			return tx.EnqueueMail(ctx, Mail{UserID: to, Kind: MailInvite, GameID: &gameID, SendAfter: now, CreatedAt: now})
		}
		return nil
	})
	return id, err
}

// InviteChannel is the LISTEN/NOTIFY channel of a change to a person's
// invitations (one sent to them, or answered), payload the invitee's id.
const InviteChannel = "invite_changed"

// openInvite is the condition of an invitation waiting for an answer: open,
// unexpired, to a table still looking for players.
const openInvite = `i.status = 'open' AND i.expires_at > $2 AND EXISTS (SELECT 1 FROM games g WHERE g.id = i.game_id AND g.status = 'open')`

// InviteCounts counts the invitations waiting for each of some people's
// answer (people with none are left out).
func (s *Store) InviteCounts(ctx context.Context, userIDs []int64, now time.Time) (map[int64]int, error) {
	var rows []struct {
		UserID int64 `db:"to_user"`
		N      int   `db:"n"`
	}
	err := sel(ctx, s.DB, &rows, `SELECT i.to_user, count(*)::int AS n FROM invites i
		WHERE i.to_user = ANY($1) AND `+openInvite+` GROUP BY i.to_user`, pq.Array(userIDs), now)
	if err != nil {
		return nil, fmt.Errorf("db: invite counts: %w", err)
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.UserID] = r.N
	}
	return out, nil
}

// InvitesTo lists the open, unexpired invitations to a person.
func (s *Store) InvitesTo(ctx context.Context, userID int64, now time.Time) ([]Invite, error) {
	var out []Invite
	err := sel(ctx, s.DB, &out, `SELECT `+inviteColumns+inviteFrom+`
		WHERE i.to_user = $1 AND `+openInvite+`
		ORDER BY i.created_at DESC`, userID, now)
	if err != nil {
		return nil, fmt.Errorf("db: invites to %d: %w", userID, err)
	}
	return out, nil
}

// OpenInviteTo is a person's open, unexpired invitation to one game, nil
// when there is none (answered, expired, or its table no longer waits).
func (s *Store) OpenInviteTo(ctx context.Context, userID, gameID int64, now time.Time) (*Invite, error) {
	var out []Invite
	err := sel(ctx, s.DB, &out, `SELECT `+inviteColumns+inviteFrom+`
		WHERE i.to_user = $1 AND i.game_id = $3 AND `+openInvite+`
		ORDER BY i.created_at DESC LIMIT 1`, userID, now, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: invite of %d to game %d: %w", userID, gameID, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return &out[0], nil
}

// InvitesFor lists a game's invitations, newest first.
func (s *Store) InvitesFor(ctx context.Context, gameID int64) ([]Invite, error) {
	var out []Invite
	err := sel(ctx, s.DB, &out, `SELECT `+inviteColumns+inviteFrom+` WHERE i.game_id = $1 ORDER BY i.created_at DESC`, gameID)
	if err != nil {
		return nil, fmt.Errorf("db: invites for game %d: %w", gameID, err)
	}
	return out, nil
}

// InviteByID loads one invitation.
func (s *Store) InviteByID(ctx context.Context, id int64) (Invite, error) {
	var inv Invite
	err := get(ctx, s.DB, &inv, `SELECT `+inviteColumns+inviteFrom+` WHERE i.id = $1`, id)
	if err != nil {
		return Invite{}, fmt.Errorf("db: invite %d: %w", id, notFound(err))
	}
	return inv, nil
}

// AnswerInvite marks an open invitation accepted or declined; it reports
// false when it was not open.
func (s *Store) AnswerInvite(ctx context.Context, id int64, status string) (bool, error) {
	answered := false
	err := s.Tx(ctx, func(tx *Tx) error {
		var to []int64
		if err := sel(ctx, tx.tx, &to, `UPDATE invites SET status = $2 WHERE id = $1 AND status = 'open' RETURNING to_user`, id, status); err != nil {
			return fmt.Errorf("db: answer invite %d: %w", id, err)
		}
		if len(to) == 1 {
			answered = true
			tx.notes = append(tx.notes, note{InviteChannel, fmt.Sprint(to[0])})
		}
		return nil
	})
	return answered, err
}

// RecentOpponents lists the names of the people a player has played with
// lately, for suggestions when inviting.
func (s *Store) RecentOpponents(ctx context.Context, userID int64, limit int) ([]string, error) {
	var out []string
	err := sel(ctx, s.DB, &out, `
		SELECT u.username FROM (
			SELECT o.user_id, max(g.created_at) AS last
			FROM game_seats me JOIN game_seats o ON o.game_id = me.game_id AND o.user_id IS NOT NULL AND o.user_id <> me.user_id
			JOIN games g ON g.id = me.game_id
			WHERE me.user_id = $1 GROUP BY o.user_id) r
		JOIN users u ON u.id = r.user_id AND NOT u.guest
		ORDER BY r.last DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("db: recent opponents: %w", err)
	}
	return out, nil
}
