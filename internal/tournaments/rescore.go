package tournaments

import (
	"context"
	"maps"
	"slices"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/pairing"
)

// A player marked for unfair play is disqualified from the rated events
// they played in (docs/fair-play.md, "Rated events"): their line stays
// on the page, unranked, and every table they sat at is scored again as
// if they had finished last there, so each player who finished below them
// moves up a place and takes that place's points, and nobody at the table
// loses anything. An arena's streaks follow from the new first places.
// The games' own placings are never changed, so undoing the mark scores
// the event again from them exactly as it first was.

// Disqualify takes a marked player out of the rated events they take part
// in (those not over yet, and those that started since since) by the
// decision, and scores each again, inside the decision's transaction.
func (s *Service) Disqualify(ctx context.Context, tx *db.Tx, userID, decisionID int64, since time.Time) error {
	ids, err := tx.EventsToDisqualify(ctx, userID, since)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.TournamentForUpdate(ctx, id); err != nil {
			return err
		}
		if err := tx.Disqualify(ctx, id, userID, decisionID); err != nil {
			return err
		}
		if err := s.rescore(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// Requalify puts back the players a decision disqualified (the mark was
// undone or overturned) and scores their events again.
func (s *Service) Requalify(ctx context.Context, tx *db.Tx, decisionID int64) error {
	ids, err := tx.Requalify(ctx, decisionID)
	if err != nil {
		return err
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if err := s.rescore(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// rescore scores an event again from its games' placings, its results,
// its players' totals and, once it is over, its final ranks.
func (s *Service) rescore(ctx context.Context, tx *db.Tx, id int64) error {
	t, err := tx.TournamentForUpdate(ctx, id)
	if err != nil {
		return err
	}
	ps, err := tx.TournamentPlayers(ctx, id)
	if err != nil {
		return err
	}
	rs, err := tx.TournamentResults(ctx, id)
	if err != nil {
		return err
	}
	seats, err := tx.EventPlacings(ctx, id)
	if err != nil {
		return err
	}
	out := map[int64]bool{}
	for _, p := range ps {
		if p.DisqualifiedBy != nil {
			out[p.UserID] = true
		}
	}
	changed, totals := Rescore(t.Kind, rs, seats, out)
	if err := tx.RewriteResults(ctx, changed); err != nil {
		return err
	}
	if err := tx.SetPlayerTotals(ctx, id, totals); err != nil {
		return err
	}
	if t.Status == db.TournamentFinished {
		ps, err := tx.TournamentPlayers(ctx, id)
		if err != nil {
			return err
		}
		if rs, err = tx.TournamentResults(ctx, id); err != nil {
			return err
		}
		tbs, err := tx.TournamentTables(ctx, id)
		if err != nil {
			return err
		}
		v := Build(t, ps, rs, tbs)
		var users []int64
		var places []int
		for _, st := range v.Standings {
			if st.Rank > 0 {
				users, places = append(users, st.UserID), append(places, st.Rank)
			}
		}
		if err := tx.SetPlaces(ctx, id, users, places); err != nil {
			return err
		}
	}
	tx.NoteTournamentList()
	return tx.TouchTournament(ctx, id)
}

// Rescore works an event's results out again from the placings of its
// finished games with the players in out counted last at every table
// they sat at (a table with none of them keeps the placings it was played
// to). It returns the results that changed and every player's totals as
// the results then add up: points counted (an arena's game doubled after
// two first places in a row, as when it was played), games, first places,
// byes and the streak. Results are taken in the order they came (rs as
// TournamentResults lists them); byes keep what they were worth.
func Rescore(kind string, rs []db.TournamentResult, seats []db.SeatPlace, out map[int64]bool) ([]db.TournamentResult, []db.PlayerTotals) {
	type placed struct {
		place  int
		points pairing.Points
		won    bool
	}
	byGame := map[int64][]db.SeatPlace{}
	for _, s := range seats {
		byGame[s.GameID] = append(byGame[s.GameID], s)
	}
	scored := map[[2]int64]placed{}
	for g, ss := range byGame {
		worst := 0
		for _, s := range ss {
			worst = max(worst, s.Place)
		}
		eff := make([]int, len(ss))
		for i, s := range ss {
			eff[i] = s.Place
			if out[s.UserID] {
				eff[i] = worst + 1
			}
		}
		eff = engine.Placings(eff) // numbered 1, 2, … again, ties sharing
		pts := pairing.PlacePoints(eff)
		for i, s := range ss {
			scored[[2]int64{g, s.UserID}] = placed{place: eff[i], points: pts[i], won: pairing.Won(eff, i)}
		}
	}
	var changed []db.TournamentResult
	totals := map[int64]*db.PlayerTotals{}
	var wonBefore = map[int64][]bool{} // each player's first places so far, in order
	for _, r := range rs {
		tot := totals[r.UserID]
		if tot == nil {
			tot = &db.PlayerTotals{UserID: r.UserID}
			totals[r.UserID] = tot
		}
		if r.GameID == nil {
			tot.Points += r.Counted
			tot.Byes++
			continue
		}
		x := r
		if p, ok := scored[[2]int64{*r.GameID, r.UserID}]; ok {
			place := p.place
			x.Place, x.Points, x.Won = &place, int(p.points), p.won
			x.Counted = x.Points
			prev := wonBefore[r.UserID]
			if kind == db.KindArena && len(prev) >= 2 && prev[len(prev)-1] && prev[len(prev)-2] {
				x.Counted = 2 * x.Points
			}
		}
		if x.Points != r.Points || x.Counted != r.Counted || x.Won != r.Won || !samePlace(x.Place, r.Place) {
			changed = append(changed, x)
		}
		wonBefore[r.UserID] = append(wonBefore[r.UserID], x.Won)
		tot.Points += x.Counted
		tot.Games++
		if x.Won {
			tot.Wins++
		}
	}
	var list []db.PlayerTotals
	for _, u := range slices.Sorted(maps.Keys(totals)) {
		tot := totals[u]
		w := wonBefore[u]
		tot.OnFire = kind == db.KindArena && len(w) >= 2 && w[len(w)-1] && w[len(w)-2]
		list = append(list, *tot)
	}
	return changed, list
}

func samePlace(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
