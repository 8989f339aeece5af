package games

import (
	"context"
	"encoding/json"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
)

// Tables are many games of one event started at once, their people chosen.
type Tables struct {
	// CreatorID is who the games are made by (the event's creator).
	CreatorID int64
	In        CreateInput
	// TournamentID is the event the games belong to.
	TournamentID int64
	// People holds each table's people in seat order.
	People [][]int64
}

// StartTables creates and starts the games of a round of an event inside
// the caller's transaction, all in a few statements (a round of a thousand
// players is a few hundred games): each is numbered, dealt from its own
// seed and started, and whoever decides first hears of it as for any game.
// It returns the games' ids, table by table.
func (s *Service) StartTables(ctx context.Context, tx *db.Tx, t Tables) ([]int64, error) {
	now := s.clock.Now()
	gs := make([]db.StartedGame, len(t.People))
	seatsOf := make([][]db.Seat, len(t.People))
	// A correspondence player on vacation when the round starts gets
	// their first decision's time from their return, as in any game.
	var away map[int64]time.Time
	if t.In.Pace == Correspondence {
		var all []int64
		for _, people := range t.People {
			all = append(all, people...)
		}
		var err error
		if away, err = tx.VacationsUntil(ctx, all, now); err != nil {
			return nil, err
		}
	}
	for i, people := range t.People {
		in := t.In
		in.Seats = len(people)
		if err := in.Validate().Err(); err != nil {
			return nil, err
		}
		opts, err := json.Marshal(in.Options())
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "could not encode the options")
		}
		code, err := randomCode()
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "could not make an invite code")
		}
		seed, err := randomSeed()
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "could not draw a seed")
		}
		tid := t.TournamentID
		g := db.Game{
			CreatorID: t.CreatorID, Status: db.StatusPlaying, Options: opts, Seats: len(people), Public: !in.Private, InviteCode: code,
			Ranked: in.Ranked, Pace: in.Pace, TurnSeconds: in.TurnSeconds, Seed: seed, CreatedAt: now, StartedAt: &now, UpdatedAt: now,
			TournamentID: &tid,
		}
		seats := make([]db.Seat, len(people))
		for k := range people {
			n, u := k, people[k]
			seats[k] = db.Seat{Seat: &n, UserID: &u}
			if until, ok := away[u]; ok {
				seats[k].VacationUntil = &until
			}
		}
		eg, err := rebuild(g, nil)
		if err != nil {
			return nil, err
		}
		st := s.nextState(g, seats, eg, now)
		g.Version, g.TurnSeat, g.TurnUserID, g.DueAt = st.Version, st.TurnSeat, st.TurnUserID, st.DueAt
		gs[i] = db.StartedGame{Game: g, People: people}
		seatsOf[i] = seats
	}
	ids, err := tx.CreateStartedGames(ctx, gs)
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		for _, u := range gs[i].People {
			tx.Notice(u, db.NoticeGameStart, t.TournamentID, id)
		}
	}
	if t.In.Pace == Correspondence {
		for i, id := range ids {
			g := gs[i].Game
			g.ID = id
			st := db.GameState{Version: g.Version, Status: db.StatusPlaying, TurnSeat: g.TurnSeat, TurnUserID: g.TurnUserID, DueAt: g.DueAt}
			if err := s.enqueueMails(ctx, tx, g, seatsOf[i], st, -1, now); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

// FinishHook is told of every game that ends, inside the transaction that
// ends it: the game as it ended, and its seats' placings by seat.
type FinishHook func(ctx context.Context, tx *db.Tx, st *State, placings []int, now time.Time) error

// OnFinish sets the hook told of every game that ends (a tournament counts
// its results there, exactly once).
func (s *Service) OnFinish(h FinishHook) { s.onFinish = h }
