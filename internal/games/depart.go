package games

import (
	"context"

	"nothanks/internal/db"
)

// Depart takes a player away from every table before their account is
// deleted: they leave open tables (a table they created is cancelled), and
// in games in play their seat is abandoned, so the server plays it at once
// from then on, as it does for a player who let their time run out too
// often. Finished games keep their seat as it was.
func (s *Service) Depart(ctx context.Context, userID int64) error {
	gs, err := s.store.SeatedGames(ctx, userID)
	if err != nil {
		return err
	}
	for _, g := range gs {
		if g.Status == db.StatusOpen {
			if err := s.Leave(ctx, userID, g.ID); err != nil && err != ErrNoGame {
				return err
			}
			continue
		}
		err := s.store.Tx(ctx, func(tx *db.Tx) error {
			st, err := s.lock(ctx, tx, g.ID)
			if err != nil {
				return err
			}
			if st.eg == nil || st.eg.Finished() {
				return nil
			}
			mine := seatOf(st.Seats, userID)
			if mine == nil || mine.Seat == nil || mine.Abandoned {
				return nil
			}
			if err := tx.MarkAbandoned(ctx, g.ID, *mine.Seat); err != nil {
				return err
			}
			if st.eg.Turn() == *mine.Seat {
				if err := tx.DueNow(ctx, g.ID, s.clock.Now()); err != nil {
					return err
				}
			}
			s.cache.drop(g.ID)
			return tx.NotifyGame(ctx, g.ID, st.Game.Version)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
