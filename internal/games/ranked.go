package games

import (
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/rating"
)

// Ranked games formed by the queue follow the rules' recommendation: the
// standard game over four rounds.
const RankedRounds = engine.RecommendedRounds

// RankedTimer is the time for one decision in a queued ranked game.
func RankedTimer(pace string) int {
	if pace == Correspondence {
		return 24 * 3600
	}
	return 60
}

// CreateRanked creates and starts a ranked game for matched players, inside
// the matcher's transaction. Seats are drawn at random.
func (s *Service) CreateRanked(ctx context.Context, tx *db.Tx, userIDs []int64, pace string) (int64, error) {
	o := engine.Options{Players: len(userIDs), Rounds: RankedRounds, Variant: engine.Standard}
	if err := o.Validate(); err != nil {
		return 0, err
	}
	opts, err := json.Marshal(o)
	if err != nil {
		return 0, err
	}
	code, err := randomCode()
	if err != nil {
		return 0, err
	}
	seed, err := randomSeed()
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	id, err := tx.CreateGame(ctx, db.Game{
		CreatorID: userIDs[0], Options: opts, Seats: len(userIDs), Public: true, InviteCode: code,
		Ranked: true, Pace: pace, TurnSeconds: RankedTimer(pace), Seed: seed, CreatedAt: now,
	})
	if err != nil {
		return 0, err
	}
	order := append([]int64(nil), userIDs...)
	mrand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for i, u := range order {
		// Distinct join times keep the drawn order when seats are numbered.
		if err := tx.AddSeat(ctx, id, &u, nil, nil, now.Add(time.Duration(i)*time.Microsecond)); err != nil {
			return 0, err
		}
	}
	g, err := tx.GameForUpdate(ctx, id)
	if err != nil {
		return 0, err
	}
	if err := s.start(ctx, tx, g, now); err != nil {
		return 0, err
	}
	if pace == Correspondence {
		for _, u := range userIDs {
			if err := tx.EnqueueMail(ctx, db.Mail{UserID: u, Kind: db.MailRankedMatch, GameID: &id, SendAfter: now, CreatedAt: now}); err != nil {
				return 0, err
			}
		}
	}
	return id, nil
}

// rate updates the players' ratings when a ranked game ends, in the same
// transaction that finishes it. Every change is kept.
func (s *Service) rate(ctx context.Context, tx *db.Tx, g db.Game, seats []db.Seat, placings []int, now time.Time) error {
	var ids []int64
	for _, st := range seats {
		if st.UserID == nil {
			return apperr.E(apperr.Internal, "ranked game %d has a bot", g.ID)
		}
		ids = append(ids, *st.UserID)
	}
	rows, err := tx.RatingsForUpdate(ctx, ids)
	if err != nil {
		return err
	}
	byUser := map[int64]db.Rated{}
	for _, r := range rows {
		byUser[r.UserID] = r
	}
	players := make([]rating.Player, len(seats))
	for i, st := range seats {
		r := byUser[*st.UserID]
		players[i] = rating.Player{Rating: r.Rating, Games: r.Games, Placing: placings[*st.Seat]}
	}
	after := rating.Update(players)
	for i, st := range seats {
		err := tx.ApplyRatingChange(ctx, db.RatingChange{
			UserID: *st.UserID, GameID: g.ID, Before: players[i].Rating, After: after[i],
			Place: players[i].Placing, Players: len(seats), CreatedAt: now,
		})
		if err != nil {
			return fmt.Errorf("games: rate game %d: %w", g.ID, err)
		}
	}
	return nil
}
