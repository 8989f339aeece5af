// Package invites is challenging someone by name: a player at an open
// table invites another player by their username (suggested from the
// people they played with lately); the invitee finds it on their start page
// (and in their mail for a correspondence game) and accepts, which seats
// them (a private table too), or declines. An invitation lasts an hour for
// a live game and three days for a correspondence game.
package invites

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
)

// How long an invitation stands.
const (
	LiveFor           = time.Hour
	CorrespondenceFor = 3 * 24 * time.Hour
)

// How many invitations an account may send in a window.
const (
	RateLimit  = 30
	RateWindow = time.Hour
)

// Store is what the service needs of the database.
type Store interface {
	UserByName(ctx context.Context, name string) (db.User, error)
	CreateInvite(ctx context.Context, gameID, from, to int64, now, expires time.Time, mail bool) (int64, error)
	InvitesTo(ctx context.Context, userID int64, now time.Time) ([]db.Invite, error)
	InvitesFor(ctx context.Context, gameID int64) ([]db.Invite, error)
	InviteByID(ctx context.Context, id int64) (db.Invite, error)
	AnswerInvite(ctx context.Context, id int64, status string) (bool, error)
	RecentOpponents(ctx context.Context, userID int64, limit int) ([]string, error)
	FollowedNames(ctx context.Context, userID int64, limit int) ([]string, error)
	RelationOf(ctx context.Context, me, other int64) (db.Relation, error)
	CountAttempt(ctx context.Context, key string, limit int, now, expired time.Time) (db.Attempt, error)
	UncountAttempt(ctx context.Context, a db.Attempt) error
}

// Service invites players by name.
type Service struct {
	store Store
	games *games.Service
	clock clock.Clock
}

// New makes the service.
func New(store Store, g *games.Service, clk clock.Clock) *Service {
	return &Service{store: store, games: g, clock: clk}
}

// Invite invites a player by name to an open table the inviter sits at.
func (s *Service) Invite(ctx context.Context, fromID, gameID int64, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return apperr.E(apperr.Invalid, "Write the name of the player to invite.")
	}
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return err
	}
	if _, seated := st.SeatOf(&fromID); !seated {
		return apperr.E(apperr.Forbidden, "Only players at this table can invite others to it.")
	}
	if st.Game.Status != db.StatusOpen {
		return apperr.E(apperr.Conflict, "The game has started: nobody can join it any more.")
	}
	if len(st.Seats) >= st.Game.Seats {
		return apperr.E(apperr.Conflict, "This table is full.")
	}
	to, err := s.invitee(ctx, fromID, name)
	if err != nil {
		return err
	}
	if _, seated := st.SeatOf(&to.ID); seated {
		return apperr.E(apperr.Invalid, "%s is at this table already.", to.Username)
	}
	if err := botAtRanked(to, st.Game.Ranked); err != nil {
		return err
	}
	now := s.clock.Now()
	// Invitations reach other people (by mail, too): an account sends at
	// most RateLimit an hour, counted in Postgres across instances.
	a, err := s.store.CountAttempt(ctx, "invite:"+strconv.FormatInt(fromID, 10), RateLimit, now, now.Add(-RateWindow))
	if err != nil {
		return err
	}
	if a.Count > RateLimit {
		wait := max(a.WindowFrom.Add(RateWindow).Sub(now), time.Minute)
		e := apperr.E(apperr.TooMany, "You have sent too many invitations: at most %d an hour. Try again in %d minutes.", RateLimit, int(wait.Round(time.Minute)/time.Minute))
		e.RetryAfter = wait
		return e
	}
	expires, mail := now.Add(LiveFor), false
	if st.Game.Pace == games.Correspondence {
		expires, mail = now.Add(CorrespondenceFor), true
	}
	_, err = s.store.CreateInvite(ctx, gameID, fromID, to.ID, now, expires, mail)
	if errors.Is(err, db.ErrInvited) {
		// Nothing was sent: the attempt does not count.
		if err := s.store.UncountAttempt(ctx, a); err != nil {
			return err
		}
		return apperr.E(apperr.Invalid, "%s is invited already.", to.Username)
	}
	return err
}

// Names splits what someone typed into the names to invite: commas,
// semicolons or spaces between them (usernames have none), each name once.
func Names(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) }) {
		if k := strings.ToLower(n); !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

// Check tells, before a table of seats seats exists, whether its creator
// may invite each of names to it, and returns their usernames as spelled
// on their accounts: the first name that may not be invited is answered
// (Invalid), and nothing should be created.
func (s *Service) Check(ctx context.Context, fromID int64, names []string, seats int, ranked bool) ([]string, error) {
	if seats >= 2 && len(names) > seats-1 {
		return nil, apperr.E(apperr.Invalid, "A table of %d seats has room for %d invited players.", seats, seats-1)
	}
	var out []string
	for _, name := range names {
		to, err := s.invitee(ctx, fromID, name)
		if err != nil {
			return nil, err
		}
		if to.ID == fromID {
			return nil, apperr.E(apperr.Invalid, "You sit at your table already: invite the others.")
		}
		if err := botAtRanked(to, ranked); err != nil {
			return nil, err
		}
		out = append(out, to.Username)
	}
	return out, nil
}

// botAtRanked refuses to invite a bot account to a ranked table: ranked
// tables made by hand are people's (bots play ranked from the bot queue),
// so the bot could not take the seat.
func botAtRanked(to db.User, ranked bool) error {
	if ranked && to.Bot {
		return apperr.E(apperr.Invalid, "%s is a bot account, and bots cannot play ranked games with people: make the table casual to invite it.", to.Username)
	}
	return nil
}

// invitee finds the account a name invites: a registered, active player
// who does not block the inviter.
func (s *Service) invitee(ctx context.Context, fromID int64, name string) (db.User, error) {
	to, err := s.store.UserByName(ctx, name)
	if errors.Is(err, db.ErrNotFound) || (err == nil && (to.Guest || !to.Active())) {
		return db.User{}, apperr.E(apperr.Invalid, "There is no player called %s.", name)
	}
	if err != nil {
		return db.User{}, err
	}
	rel, err := s.store.RelationOf(ctx, fromID, to.ID)
	if err != nil {
		return db.User{}, err
	}
	if rel.BlockedBy {
		return db.User{}, apperr.E(apperr.Invalid, "%s does not accept invitations from you.", to.Username)
	}
	return to, nil
}

// Table is a table created with invitations: its id (0 when a name was
// refused before it was made), who was invited, and the reason a name was
// refused.
type Table struct {
	ID      int64
	Invited []string
	Refused error
}

// CreateTable checks the names, creates the table and invites them. A name
// that may not be invited is answered in Refused and nothing is created;
// the options' own mistakes come as the error, with Refused too, so both
// are answered at once. An invitation refused once the table exists (too
// many sent lately, a block made meanwhile) leaves the table, with its
// reason in Refused.
func (s *Service) CreateTable(ctx context.Context, fromID int64, in games.CreateInput, names []string) (Table, error) {
	optionsErr := in.Validate().Err()
	names, err := s.Check(ctx, fromID, names, in.Seats, in.Ranked)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			return Table{}, err
		}
		return Table{Refused: err}, optionsErr
	}
	if optionsErr != nil {
		return Table{}, optionsErr
	}
	t := Table{}
	if t.ID, err = s.games.Create(ctx, fromID, in); err != nil {
		return Table{}, err
	}
	for _, n := range names {
		if err := s.Invite(ctx, fromID, t.ID, n); err != nil {
			if apperr.CodeOf(err) == apperr.Internal {
				return t, err
			}
			t.Refused = err
			continue
		}
		t.Invited = append(t.Invited, n)
	}
	return t, nil
}

// Pending lists the invitations waiting for a player's answer.
func (s *Service) Pending(ctx context.Context, userID int64) ([]db.Invite, error) {
	return s.store.InvitesTo(ctx, userID, s.clock.Now())
}

// Of lists a game's invitations (for its lobby).
func (s *Service) Of(ctx context.Context, gameID int64) ([]db.Invite, error) {
	return s.store.InvitesFor(ctx, gameID)
}

// ForPlayer lists a table's invitations for one of its players (only they
// see whom the table invited).
func (s *Service) ForPlayer(ctx context.Context, userID, gameID int64) ([]db.Invite, error) {
	st, err := s.games.State(ctx, gameID)
	if err != nil {
		return nil, err
	}
	if _, seated := st.SeatOf(&userID); !seated {
		if !st.CanSee(&userID, "") {
			return nil, games.ErrNoGame
		}
		return nil, apperr.E(apperr.Forbidden, "Only players at this table see whom it invited.")
	}
	return s.store.InvitesFor(ctx, gameID)
}

// State is how an invitation stands at now: waiting, accepted, declined or
// expired.
func State(inv db.Invite, now time.Time) string {
	switch {
	case inv.Status != "open":
		return inv.Status
	case !now.Before(inv.ExpiresAt):
		return "expired"
	}
	return "waiting"
}

// Suggestions are names to offer when a player invites someone: the
// people they follow, then those they played with lately.
func (s *Service) Suggestions(ctx context.Context, userID int64) ([]string, error) {
	followed, err := s.store.FollowedNames(ctx, userID, 50)
	if err != nil {
		return nil, err
	}
	recent, err := s.store.RecentOpponents(ctx, userID, 20)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range append(followed, recent...) {
		if k := strings.ToLower(n); !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// Accept takes the invitation's seat; it returns the game's id.
func (s *Service) Accept(ctx context.Context, userID, inviteID int64) (int64, error) {
	inv, err := s.open(ctx, userID, inviteID)
	if err != nil {
		return 0, err
	}
	st, err := s.games.State(ctx, inv.GameID)
	if err != nil {
		return 0, err
	}
	if err := s.games.JoinInvited(ctx, userID, inv.GameID, st.Game.InviteCode); err != nil {
		return 0, err
	}
	if _, err := s.store.AnswerInvite(ctx, inviteID, "accepted"); err != nil {
		return 0, err
	}
	return inv.GameID, nil
}

// Decline turns an invitation down.
func (s *Service) Decline(ctx context.Context, userID, inviteID int64) error {
	if _, err := s.open(ctx, userID, inviteID); err != nil {
		return err
	}
	_, err := s.store.AnswerInvite(ctx, inviteID, "declined")
	return err
}

// open loads an invitation to the player that still stands.
func (s *Service) open(ctx context.Context, userID, inviteID int64) (db.Invite, error) {
	inv, err := s.store.InviteByID(ctx, inviteID)
	if errors.Is(err, db.ErrNotFound) || (err == nil && inv.ToUser != userID) {
		return db.Invite{}, apperr.E(apperr.NotFound, "There is no such invitation.")
	}
	if err != nil {
		return db.Invite{}, err
	}
	if inv.Status != "open" {
		return db.Invite{}, apperr.E(apperr.Conflict, "You have answered this invitation already.")
	}
	if !s.clock.Now().Before(inv.ExpiresAt) {
		return db.Invite{}, apperr.E(apperr.Conflict, "This invitation has expired.")
	}
	return inv, nil
}
