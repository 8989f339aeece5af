package db

import (
	"context"
	"fmt"
	"time"
)

// BotRefusal says why an account may not become a bot account ("" when it
// became one).
type BotRefusal string

// Reasons an account stays a person's.
const (
	BotAlready     BotRefusal = "already"
	BotGuest       BotRefusal = "guest"
	BotClosed      BotRefusal = "closed"
	BotPlayed      BotRefusal = "played"
	BotQueued      BotRefusal = "queued"
	BotTournaments BotRefusal = "tournaments"
)

// botEligibility is what decides whether an account may become a bot.
type botEligibility struct {
	Bot         bool `db:"bot"`
	Guest       bool `db:"guest"`
	Closed      bool `db:"closed"`
	Seats       bool `db:"seats"`
	Queued      bool `db:"queued"`
	Tournaments bool `db:"tournaments"`
}

// MakeBot turns an account into a bot account for good, unless it is one
// already, is a guest's or closed, or has ever sat at a table, waited in
// the ranked queue or entered a tournament; then it says why and changes
// nothing. The user's row is locked while it looks. Every instance hears
// of the account's live API tokens (TokenChannel), so that none goes on
// answering them with the account as it was; their hashes (hex) are
// returned for this instance to forget at once.
func (s *Store) MakeBot(ctx context.Context, userID int64, at time.Time) (BotRefusal, []string, error) {
	var refusal BotRefusal
	var hashes []string
	err := s.Tx(ctx, func(tx *Tx) error {
		var e botEligibility
		err := get(ctx, tx.tx, &e, `
			SELECT u.bot, u.guest, (u.disabled_at IS NOT NULL OR u.deleted_at IS NOT NULL) AS closed,
				EXISTS (SELECT 1 FROM game_seats WHERE user_id = u.id) AS seats,
				EXISTS (SELECT 1 FROM ranked_queue WHERE user_id = u.id) AS queued,
				EXISTS (SELECT 1 FROM tournament_players WHERE user_id = u.id) AS tournaments
			FROM users u WHERE u.id = $1 FOR UPDATE OF u`, userID)
		if err != nil {
			return fmt.Errorf("db: bot eligibility of user %d: %w", userID, notFound(err))
		}
		switch {
		case e.Bot:
			refusal = BotAlready
		case e.Guest:
			refusal = BotGuest
		case e.Closed:
			refusal = BotClosed
		case e.Seats:
			refusal = BotPlayed
		case e.Queued:
			refusal = BotQueued
		case e.Tournaments:
			refusal = BotTournaments
		default:
			if err := exec(ctx, tx.tx, "make bot", `UPDATE users SET bot = true, bot_since = $2 WHERE id = $1`, userID, at); err != nil {
				return err
			}
			if err := sel(ctx, tx.tx, &hashes, `SELECT encode(token_hash, 'hex') FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
				return fmt.Errorf("db: tokens of user %d: %w", userID, err)
			}
			for _, h := range hashes {
				tx.notes = append(tx.notes, note{TokenChannel, h})
			}
		}
		return nil
	})
	return refusal, hashes, err
}

// IsBot reports whether an account is a bot account.
func (t *Tx) IsBot(ctx context.Context, userID int64) (bool, error) {
	var bot bool
	if err := get(ctx, t.tx, &bot, `SELECT bot FROM users WHERE id = $1`, userID); err != nil {
		return false, fmt.Errorf("db: is user %d a bot: %w", userID, notFound(err))
	}
	return bot, nil
}

// BotNames lists the names of the bot accounts in use, for the pages to
// mark them.
func (s *Store) BotNames(ctx context.Context) ([]string, error) {
	var out []string
	if err := sel(ctx, s.DB, &out, `SELECT username FROM users WHERE bot AND deleted_at IS NULL`); err != nil {
		return nil, fmt.Errorf("db: bot names: %w", err)
	}
	return out, nil
}

// GamesAtOnce counts an account's games waiting for players or in play,
// and its place in the ranked queue while it waits there (a game to come).
func (s *Store) GamesAtOnce(ctx context.Context, userID int64) (int, error) {
	var n int
	err := get(ctx, s.DB, &n, `
		SELECT (SELECT count(*) FROM game_seats s JOIN games g ON g.id = s.game_id
		        WHERE s.user_id = $1 AND g.status IN ('open', 'playing'))
		     + (SELECT count(*) FROM ranked_queue WHERE user_id = $1 AND game_id IS NULL)`, userID)
	if err != nil {
		return 0, fmt.Errorf("db: games at once of user %d: %w", userID, err)
	}
	return n, nil
}
