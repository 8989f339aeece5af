package tournaments

import (
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"nothanks/internal/db"
	"nothanks/internal/engine"
	"nothanks/internal/games"
	"nothanks/internal/pairing"
)

// Notice kinds a player's pages are told (the turn stream's "notice").
const (
	NoticeStart = "start" // the tournament starts
	NoticeTable = "table" // your table is ready
)

// WaveFull is how many tables' worth of free players seat a wave at once,
// without waiting WaveWait for more.
const WaveFull = 8

// RunDue moves on every event whose worker is due: it starts the events
// whose time has come, seats arena waves and Swiss rounds, and finishes
// events. Each event is claimed with FOR UPDATE SKIP LOCKED in its own
// transaction, so that several instances share the work and a player is
// seated once; a crash rolls the step back whole. It returns how many
// steps it made.
func (s *Service) RunDue(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		did := false
		err := s.store.Tx(ctx, func(tx *db.Tx) error {
			ids, err := tx.DueTournaments(ctx, s.clock.Now(), 1)
			if err != nil || len(ids) == 0 {
				return err
			}
			did = true
			return s.step(ctx, tx, ids[0])
		})
		if err != nil {
			return n, err
		}
		if !did {
			break
		}
		n++
	}
	if err := s.runSchedules(ctx); err != nil {
		return n, err
	}
	return n, ctx.Err()
}

// NextDue is when a worker should look again at the latest.
func (s *Service) NextDue(ctx context.Context) (*time.Time, error) {
	return s.store.NextTournamentDue(ctx)
}

// step moves one claimed event on.
func (s *Service) step(ctx context.Context, tx *db.Tx, id int64) error {
	t, err := tx.TournamentForUpdate(ctx, id)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	switch t.Status {
	case db.TournamentUpcoming:
		if now.Before(t.StartsAt) {
			return tx.SetTournamentStatus(ctx, id, t.Status, t.Round, &t.StartsAt, now)
		}
		return s.start(ctx, tx, t, now)
	case db.TournamentRunning:
		if t.Kind == db.KindArena {
			return s.arenaStep(ctx, tx, t, now)
		}
		return s.swissStep(ctx, tx, t, now)
	}
	return tx.SetTournamentStatus(ctx, id, t.Status, t.Round, nil, now)
}

// start begins an event: its players are told, and an arena seats its
// first wave, a Swiss event its first round. A Swiss event with fewer
// players than a table is cancelled.
func (s *Service) start(ctx context.Context, tx *db.Tx, t db.Tournament, now time.Time) error {
	ps, err := tx.TournamentPlayers(ctx, t.ID)
	if err != nil {
		return err
	}
	active := activePlayers(ps)
	tx.NoteTournamentList()
	if t.Kind == db.KindSwiss && len(active) < t.TableSize {
		for _, p := range active {
			tx.Notice(p.UserID, "cancelled", t.ID, 0)
		}
		return tx.SetTournamentStatus(ctx, t.ID, db.TournamentCancelled, 0, nil, now)
	}
	ids := make([]int64, len(active))
	for i, p := range active {
		tx.Notice(p.UserID, NoticeStart, t.ID, 0)
		ids[i] = p.UserID
	}
	if err := tx.EnqueueTournamentMails(ctx, db.MailTournamentStart, t.ID, ids, now.Add(startMailDelay(t)), now); err != nil {
		return err
	}
	t.Status = db.TournamentRunning
	if t.Kind == db.KindSwiss {
		return s.seatSwiss(ctx, tx, t, ps, 1, now)
	}
	if err := tx.SetTournamentStatus(ctx, t.ID, db.TournamentRunning, 0, &now, now); err != nil {
		return err
	}
	// Everyone is there at the start: the first wave waits for nobody. It
	// reads the free players as every wave does, so that a rated arena
	// leaves a player paused from rated play since joining waiting.
	return s.arenaSeat(ctx, tx, t, nil, now, true)
}

// startMailDelay is how long the "it starts" mail waits: a live event's
// player who is on the site by then is not mailed.
func startMailDelay(t db.Tournament) time.Duration {
	if t.Pace == games.Correspondence {
		return 0
	}
	return 2 * time.Minute
}

func activePlayers(ps []db.TournamentPlayer) []db.TournamentPlayer {
	var out []db.TournamentPlayer
	for _, p := range ps {
		if p.Status == db.PlayerActive && p.DisqualifiedBy == nil {
			out = append(out, p)
		}
	}
	return out
}

// arenaStep seats a wave of an arena's free players, or ends the arena
// once its time is over and its last games are done.
func (s *Service) arenaStep(ctx context.Context, tx *db.Tx, t db.Tournament, now time.Time) error {
	return s.arenaSeat(ctx, tx, t, nil, now, false)
}

// arenaSeat is arenaStep with the players when they are read already (nil:
// read them); atOnce seats a wave without waiting for more players to come
// free.
func (s *Service) arenaSeat(ctx context.Context, tx *db.Tx, t db.Tournament, ps []db.TournamentPlayer, now time.Time, atOnce bool) error {
	ends := t.EndsAt()
	if !now.Before(ends) {
		left, err := tx.RunningTournamentGames(ctx, t.ID)
		if err != nil {
			return err
		}
		if left > 0 {
			// The last game to end makes the event due again.
			return tx.SetTournamentStatus(ctx, t.ID, t.Status, t.Round, nil, now)
		}
		return s.finish(ctx, tx, t, t.Round, now)
	}
	if ps == nil {
		var err error
		if ps, err = tx.FreePlayers(ctx, t.ID, t.Rated, now); err != nil {
			return err
		}
	}
	var free []pairing.Free
	var oldest time.Time
	for _, p := range ps {
		if p.Status != db.PlayerActive || p.GameID != nil || p.FreeSince == nil {
			continue
		}
		free = append(free, pairing.Free{ID: p.UserID, Points: pairing.Points(p.Points), Rating: p.Rating, Since: p.FreeSince.UnixMicro()})
		if oldest.IsZero() || p.FreeSince.Before(oldest) {
			oldest = *p.FreeSince
		}
	}
	next := ends
	if len(free) >= t.TableSize {
		if wait := oldest.Add(s.WaveWait); !atOnce && now.Before(wait) && len(free) < WaveFull*t.TableSize {
			// Wait a moment for more players to come free.
			next = wait
		} else {
			tables, waiting := pairing.ArenaWave(free, t.TableSize)
			if err := s.seat(ctx, tx, t, t.Round+1, tables, now); err != nil {
				return err
			}
			t.Round++
			if len(waiting) >= t.TableSize {
				next = now
			}
		}
	}
	return tx.SetTournamentStatus(ctx, t.ID, t.Status, t.Round, &next, now)
}

// finish ends an event and keeps its players' final ranks.
func (s *Service) finish(ctx context.Context, tx *db.Tx, t db.Tournament, round int, now time.Time) error {
	t.Round = round
	ps, err := tx.TournamentPlayers(ctx, t.ID)
	if err != nil {
		return err
	}
	rs, err := tx.TournamentResults(ctx, t.ID)
	if err != nil {
		return err
	}
	tbs, err := tx.TournamentTables(ctx, t.ID)
	if err != nil {
		return err
	}
	v := Build(t, ps, rs, tbs)
	users, places := make([]int64, len(v.Standings)), make([]int, len(v.Standings))
	for i, st := range v.Standings {
		users[i], places[i] = st.UserID, st.Rank
	}
	if err := tx.SetPlaces(ctx, t.ID, users, places); err != nil {
		return err
	}
	tx.NoteTournamentList()
	return tx.SetTournamentStatus(ctx, t.ID, db.TournamentFinished, round, nil, now)
}

// seat starts a round's tables (their seats in a random order) and tells
// each seated player their table is ready.
func (s *Service) seat(ctx context.Context, tx *db.Tx, t db.Tournament, round int, tables [][]int64, now time.Time) error {
	if len(tables) == 0 {
		return nil
	}
	for _, tb := range tables {
		mrand.Shuffle(len(tb), func(i, j int) { tb[i], tb[j] = tb[j], tb[i] })
	}
	in := InputOf(t).GameInput()
	creator := tables[0][0]
	if t.CreatorID != nil {
		creator = *t.CreatorID
	}
	ids, err := s.games.StartTables(ctx, tx, games.Tables{CreatorID: creator, In: in, TournamentID: t.ID, People: tables})
	if err != nil {
		return fmt.Errorf("tournaments: seat round %d of %d: %w", round, t.ID, err)
	}
	var seated []db.Seating
	for i, tb := range tables {
		for _, u := range tb {
			seated = append(seated, db.Seating{UserID: u, GameID: ids[i]})
			tx.Notice(u, NoticeTable, t.ID, ids[i])
			if t.Pace == games.Correspondence {
				if err := tx.EnqueueMail(ctx, db.Mail{UserID: u, Kind: db.MailTournamentTable, TournamentID: &t.ID, GameID: &ids[i], SendAfter: now, CreatedAt: now}); err != nil {
					return err
				}
			}
		}
	}
	if err := tx.SeatPlayers(ctx, t.ID, seated); err != nil {
		return err
	}
	return tx.AddTournamentGames(ctx, t.ID, round, ids)
}

// swissStep seats the next round once every table of the last one has
// finished, or ends the event after its last round.
func (s *Service) swissStep(ctx context.Context, tx *db.Tx, t db.Tournament, now time.Time) error {
	left, err := tx.RunningTournamentGames(ctx, t.ID)
	if err != nil {
		return err
	}
	if left > 0 {
		return tx.SetTournamentStatus(ctx, t.ID, t.Status, t.Round, nil, now)
	}
	if t.Round >= *t.Rounds {
		return s.finish(ctx, tx, t, t.Round, now)
	}
	ps, err := tx.TournamentPlayers(ctx, t.ID)
	if err != nil {
		return err
	}
	return s.seatSwiss(ctx, tx, t, ps, t.Round+1, now)
}

// seatSwiss seats a Swiss round: tables by score with the fewest repeated
// meetings, byes (worth the mean of a table's points) to the leftovers.
// When fewer active players are left than a table, the event ends.
func (s *Service) seatSwiss(ctx context.Context, tx *db.Tx, t db.Tournament, ps []db.TournamentPlayer, round int, now time.Time) error {
	active := activePlayers(ps)
	if len(active) < t.TableSize {
		return s.finish(ctx, tx, t, round-1, now)
	}
	tables, err := tx.TournamentTables(ctx, t.ID)
	if err != nil {
		return err
	}
	met := map[int64]map[int64]int{}
	for _, tb := range tables {
		for _, a := range tb.Users {
			for _, b := range tb.Users {
				if a != b {
					if met[a] == nil {
						met[a] = map[int64]int{}
					}
					met[a][b]++
				}
			}
		}
	}
	es := make([]pairing.Entrant, len(active))
	for i, p := range active {
		es[i] = pairing.Entrant{ID: p.UserID, Score: pairing.Points(p.Points), Rating: p.Rating, Byes: p.Byes, Met: met[p.UserID]}
	}
	seated, byes := pairing.SwissRound(es, t.TableSize)
	if err := s.seat(ctx, tx, t, round, seated, now); err != nil {
		return err
	}
	bye := pairing.ByePoints(t.TableSize)
	var rs []db.TournamentResult
	var scores []db.PlayerScore
	for _, u := range byes {
		rs = append(rs, db.TournamentResult{TournamentID: t.ID, UserID: u, Round: round, Points: int(bye), Counted: int(bye), CreatedAt: now})
		scores = append(scores, db.PlayerScore{UserID: u, Points: int(bye), Byes: 1})
		tx.Notice(u, "bye", t.ID, 0)
	}
	if err := tx.AddResults(ctx, rs); err != nil {
		return err
	}
	if err := tx.AddPlayerScores(ctx, t.ID, scores); err != nil {
		return err
	}
	return tx.SetTournamentStatus(ctx, t.ID, db.TournamentRunning, round, nil, now)
}

// gameFinished counts an event's game, inside the transaction that ends
// it (so exactly once): each player's placing points (doubled on an arena
// streak), and the player is free again (an arena seats them in the next
// wave; a Swiss event's next round starts when its last table ends). A
// player who missed the table (let every decision of theirs run out, or
// abandoned) is paused in an arena and withdrawn from a Swiss event.
func (s *Service) gameFinished(ctx context.Context, tx *db.Tx, st *games.State, placings []int, now time.Time) error {
	id := *st.Game.TournamentID
	t, err := tx.TournamentForUpdate(ctx, id)
	if err != nil {
		return err
	}
	fresh, err := tx.FinishTournamentGame(ctx, st.Game.ID)
	if err != nil || !fresh {
		return err
	}
	pts := pairing.PlacePoints(placings)
	var users []int64
	for _, seat := range st.Seats {
		if seat.UserID != nil {
			users = append(users, *seat.UserID)
		}
	}
	last, err := tx.LastResults(ctx, id, users, 2)
	if err != nil {
		return err
	}
	round := 0
	if r, err := tx.TournamentGameRound(ctx, st.Game.ID); err == nil {
		round = r
	} else {
		return err
	}
	arenaOpen := t.Kind == db.KindArena && t.Status == db.TournamentRunning && now.Before(t.EndsAt())
	missed := missedSeats(st)
	var rs []db.TournamentResult
	var scores []db.PlayerScore
	for _, seat := range st.Seats {
		if seat.UserID == nil || seat.Seat == nil {
			continue
		}
		u, n := *seat.UserID, *seat.Seat
		p, won := int(pts[n]), pairing.Won(placings, n)
		counted := p
		prev := last[u] // newest first
		streak := len(prev) >= 2 && prev[0].Won && prev[1].Won
		if t.Kind == db.KindArena && streak {
			counted = 2 * p
		}
		place := placings[n]
		gameID := st.Game.ID
		rs = append(rs, db.TournamentResult{TournamentID: id, UserID: u, GameID: &gameID, Round: round, Place: &place, Points: p, Counted: counted, Won: won, CreatedAt: now})
		sc := db.PlayerScore{UserID: u, Points: counted, Games: 1, LeaveTable: true}
		if won {
			sc.Wins = 1
		}
		onFire := t.Kind == db.KindArena && won && len(prev) >= 1 && prev[0].Won
		sc.OnFire = &onFire
		if missed[n] {
			status := db.PlayerPaused
			if t.Kind == db.KindSwiss {
				status = db.PlayerWithdrawn
			}
			sc.Status = status
		}
		if arenaOpen {
			sc.FreeSince = &now
		}
		scores = append(scores, sc)
	}
	if err := tx.AddResults(ctx, rs); err != nil {
		return err
	}
	if err := tx.AddPlayerScores(ctx, id, scores); err != nil {
		return err
	}
	// A table a disqualified player sat at (a game that was in play when
	// they were marked) is scored without them, like the rest.
	if dq, err := tx.AnyDisqualified(ctx, id, users); err != nil {
		return err
	} else if dq {
		if err := s.rescore(ctx, tx, id); err != nil {
			return err
		}
	}
	if err := tx.TouchTournament(ctx, id); err != nil {
		return err
	}
	switch {
	case arenaOpen:
		return tx.SetTournamentDue(ctx, id, now.Add(s.WaveWait))
	case t.Status == db.TournamentRunning:
		// A Swiss round, or an arena whose time is over, may be done.
		return tx.SetTournamentDue(ctx, id, now)
	}
	return nil
}

// missedSeats are the seats whose player missed the table: they abandoned
// it, or every decision of theirs ran out.
func missedSeats(st *games.State) map[int]bool {
	decided, ranOut := map[int]int{}, map[int]int{}
	for _, e := range st.Engine().Events() {
		if a, ok := e.Action(); ok {
			decided[a.Seat]++
			if a.Timeout {
				ranOut[a.Seat]++
			}
		}
	}
	out := map[int]bool{}
	for _, seat := range st.Seats {
		if seat.Seat == nil {
			continue
		}
		n := *seat.Seat
		out[n] = seat.Abandoned || st.Engine().Abandoned(n) || (decided[n] > 0 && decided[n] == ranOut[n])
	}
	return out
}

// runSchedules creates the next event of every recurring event whose time
// to be created has come (one period ahead of its start), and moves the
// schedule on; a start missed while the site was down is skipped.
func (s *Service) runSchedules(ctx context.Context) error {
	now := s.clock.Now()
	return s.store.Tx(ctx, func(tx *db.Tx) error {
		due, err := tx.DueSchedules(ctx, now)
		if err != nil {
			return err
		}
		for _, sc := range due {
			every := time.Duration(sc.EveryHours) * time.Hour
			next := sc.NextAt
			for next.Before(now.Add(time.Minute)) {
				next = next.Add(every)
			}
			if next.Add(-every).After(now) {
				// Caught up past a downtime: created on a later pass.
				if err := tx.SetScheduleNext(ctx, sc.ID, next); err != nil {
					return err
				}
				continue
			}
			code, err := newCode()
			if err != nil {
				return err
			}
			x := db.Tournament{Kind: sc.Kind, Name: sc.Name, Description: sc.Description, ScheduleID: &sc.ID, CreatorID: sc.CreatedBy,
				Public: true, Code: code, Rated: sc.Rated, TableSize: sc.TableSize, Options: sc.Options, Pace: sc.Pace,
				TurnSeconds: sc.TurnSeconds, StartsAt: next, Minutes: sc.Minutes, Rounds: sc.Rounds, MaxPlayers: sc.MaxPlayers, CreatedAt: now}
			if _, err := tx.CreateTournament(ctx, x); err != nil && err != db.ErrScheduled {
				return err
			}
			tx.NoteTournamentList()
			if err := tx.SetScheduleNext(ctx, sc.ID, next.Add(every)); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScheduleInput is a recurring event: an event's rules (its start the
// first event's), and how often it comes again.
type ScheduleInput struct {
	Input
	EveryHours int `form:"every_hours" json:"every_hours"`
}

// EveryChoices are the periods a schedule may have, in hours.
var EveryChoices = []int{1, 2, 6, 24, 7 * 24}

// Schedule makes a recurring event (a moderator's).
func (s *Service) Schedule(ctx context.Context, admin db.User, in ScheduleInput) (int64, error) {
	if !admin.Admin || !admin.Active() {
		return 0, errNotModerator
	}
	f := in.Validate(s.clock.Now(), true)
	if !slices.Contains(EveryChoices, in.EveryHours) {
		f.Add("every_hours", "Choose how often it comes again.")
	}
	if err := f.Err(); err != nil {
		return 0, err
	}
	x, err := in.row()
	if err != nil {
		return 0, err
	}
	return s.store.CreateSchedule(ctx, db.TournamentSchedule{CreatedBy: &admin.ID, Kind: x.Kind, Name: x.Name, Description: x.Description,
		TableSize: x.TableSize, Options: x.Options, Pace: x.Pace, TurnSeconds: x.TurnSeconds, Minutes: x.Minutes, Rounds: x.Rounds,
		MaxPlayers: x.MaxPlayers, Rated: x.Rated, EveryHours: in.EveryHours, NextAt: in.StartsAt, CreatedAt: s.clock.Now()})
}

// Schedules lists the recurring events (for moderators).
func (s *Service) Schedules(ctx context.Context, admin db.User) ([]db.TournamentSchedule, error) {
	if !admin.Admin || !admin.Active() {
		return nil, errNotModerator
	}
	return s.store.Schedules(ctx)
}

// SetScheduleActive stops a recurring event or starts it again.
func (s *Service) SetScheduleActive(ctx context.Context, admin db.User, id int64, active bool) error {
	if !admin.Admin || !admin.Active() {
		return errNotModerator
	}
	ok, err := s.store.SetScheduleActive(ctx, id, active)
	if err == nil && !ok {
		return errNoSchedule
	}
	return err
}

// OptionsOf decodes an event's game options.
func OptionsOf(t db.Tournament) engine.Options {
	var o engine.Options
	_ = json.Unmarshal(t.Options, &o)
	o.Players = t.TableSize
	return o
}
