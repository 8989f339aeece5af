package games

import (
	"context"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// VacationDays is how many days of vacation a player has each year.
const VacationDays = 14

// VacationStatus is a player's vacation and what is left of the year's.
type VacationStatus struct {
	Until *time.Time // nil: not on vacation
	Left  int        // days left this year
}

func balance(v db.Vacation, now time.Time) (used int) {
	if v.Year != now.UTC().Year() {
		return 0
	}
	return v.DaysUsed
}

// Vacation tells a player where they stand.
func (s *Service) Vacation(ctx context.Context, userID int64) (VacationStatus, error) {
	v, err := s.store.VacationOf(ctx, userID)
	if err != nil {
		return VacationStatus{}, apperr.Wrap(err, apperr.Internal, "could not read the vacation")
	}
	now := s.clock.Now()
	st := VacationStatus{Left: VacationDays - balance(v, now)}
	if v.Until != nil && v.Until.After(now) {
		st.Until = v.Until
	}
	return st, nil
}

// StartVacation pauses a player's correspondence clocks for days days:
// every deadline now waiting for them moves that much later, and turns that
// come to them meanwhile start counting when they are back.
func (s *Service) StartVacation(ctx context.Context, userID int64, days int) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		v, err := tx.VacationForUpdate(ctx, userID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if v.Until != nil && v.Until.After(now) {
			return apperr.E(apperr.Conflict, "You are on vacation already until %s.", v.Until.UTC().Format("2006-01-02 15:04 MST"))
		}
		used := balance(v, now)
		if days < 1 || days > VacationDays-used {
			return (apperr.FieldErrors{"days": "You have " + plural(VacationDays-used, "day") + " of vacation left this year."}).Err()
		}
		until := now.Add(time.Duration(days) * 24 * time.Hour)
		if err := tx.SetVacation(ctx, userID, db.Vacation{Until: &until, Year: now.UTC().Year(), DaysUsed: used + days}); err != nil {
			return err
		}
		moved, err := tx.ShiftDeadlines(ctx, userID, until.Sub(now), now)
		if err != nil {
			return err
		}
		return deadlinesMoved(ctx, tx, moved, now)
	})
}

// EndVacation ends a vacation early; whole days not taken are given back.
func (s *Service) EndVacation(ctx context.Context, userID int64) error {
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		v, err := tx.VacationForUpdate(ctx, userID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		if v.Until == nil || !v.Until.After(now) {
			return apperr.E(apperr.Conflict, "You are not on vacation.")
		}
		left := v.Until.Sub(now)
		refund := int(left / (24 * time.Hour))
		if err := tx.SetVacation(ctx, userID, db.Vacation{Until: nil, Year: v.Year, DaysUsed: max(v.DaysUsed-refund, 0)}); err != nil {
			return err
		}
		moved, err := tx.ShiftDeadlines(ctx, userID, -left, now)
		if err != nil {
			return err
		}
		return deadlinesMoved(ctx, tx, moved, now)
	})
}

// deadlinesMoved makes the reminders follow deadlines that moved, and tells
// the tables.
func deadlinesMoved(ctx context.Context, tx *db.Tx, moved []db.Deadline, now time.Time) error {
	for _, d := range moved {
		at := ReminderAt(d.DueAt, d.TurnSeconds)
		if at.Before(now) {
			at = now
		}
		if err := tx.RescheduleReminder(ctx, d.GameID, d.Version, at); err != nil {
			return err
		}
		if err := tx.NotifyGame(ctx, d.GameID, -1); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}
