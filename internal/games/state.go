package games

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"nothanks/internal/apperr"
	"nothanks/internal/db"
	"nothanks/internal/engine"
)

// State is a game as of one version: its row, its seats and, once it has
// started, the engine's state, read together so that they always agree.
// A State is never changed once made; the event streams share one among
// every viewer of a game and project it for each.
type State struct {
	Game    db.Game
	Seats   []db.Seat
	Options engine.Options
	// eg is nil before the start. It may be shared with the cache: read it,
	// never change it (clone first).
	eg *engine.Game
}

// Started reports whether the game has an engine state (it is being played
// or is over).
func (st *State) Started() bool { return st.eg != nil }

// Engine is the engine state (nil before the start), for reading only.
func (st *State) Engine() *engine.Game { return st.eg }

// SeatOf returns the seat number of a user at this table: engine.Spectator
// when they hold none (or have not been given a number yet), and whether
// they are at the table at all.
func (st *State) SeatOf(userID *int64) (seat int, seated bool) {
	if userID == nil {
		return engine.Spectator, false
	}
	me := seatOf(st.Seats, *userID)
	if me == nil {
		return engine.Spectator, false
	}
	if me.Seat == nil {
		return engine.Spectator, true
	}
	return *me.Seat, true
}

// CanSee reports whether a viewer may see the game: a public game anyone,
// a private one its players and whoever holds its invite code.
func (st *State) CanSee(userID *int64, code string) bool {
	if st.Game.Public || (code != "" && code == st.Game.InviteCode) {
		return true
	}
	_, seated := st.SeatOf(userID)
	return seated
}

// Table projects the state for a viewer (nil: a visitor). To anyone who
// may not see a private game, it does not exist.
func (st *State) Table(viewerID *int64, code string) (*Table, error) {
	if !st.CanSee(viewerID, code) {
		return nil, ErrNoGame
	}
	seat, seated := st.SeatOf(viewerID)
	return st.TableFor(seat, seated), nil
}

// TableFor projects the state for a seat (or engine.Spectator); seated says
// whether the viewer sits at the table (before the start too). Access is
// the caller's to check.
func (st *State) TableFor(seat int, seated bool) *Table {
	t := &Table{Game: st.Game, Options: st.Options, Seats: st.Seats, ViewerSeat: seat, Seated: seated, eg: st.eg}
	if st.eg != nil {
		v := st.eg.View(seat)
		t.View = &v
	}
	return t
}

// load reads a game in one statement and brings its engine state up to the
// row's version, from the cache and the moves since the cached version.
func (s *Service) load(ctx context.Context, gameID int64) (*State, error) {
	base := s.cache.get(gameID)
	snap, err := s.store.GameSnapshot(ctx, gameID, versionOf(base))
	if errors.Is(err, db.ErrNotFound) {
		return nil, ErrNoGame
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not load the game")
	}
	if snap.Game.Version < versionOf(base) {
		// The cache is ahead of the row: only possible if the row was
		// rewound by hand. Start again from the whole log.
		s.cache.drop(gameID)
		return s.load(ctx, gameID)
	}
	st, err := s.stateOf(snap, base)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not rebuild the game")
	}
	return st, nil
}

// lock locks a started game's row for the transaction and loads it like
// load. The engine state may be shared with the cache: clone it to change.
func (s *Service) lock(ctx context.Context, tx *db.Tx, gameID int64) (*State, error) {
	base := s.cache.get(gameID)
	snap, err := tx.LockGameSnapshot(ctx, gameID, versionOf(base))
	if errors.Is(err, db.ErrNotFound) {
		return nil, ErrNoGame
	}
	if err != nil {
		return nil, err
	}
	if snap.Game.Version < versionOf(base) {
		s.cache.drop(gameID)
		base = nil
		if snap, err = tx.LockGameSnapshot(ctx, gameID, 0); err != nil {
			return nil, err
		}
	}
	return s.stateOf(snap, base)
}

func versionOf(eg *engine.Game) int {
	if eg == nil {
		return 0
	}
	return eg.Version()
}

// stateOf builds the state a snapshot describes, from base (the engine
// state at snap.MovesAfter, or nil) and the snapshot's moves. The engine
// state it makes is of committed moves, so it goes into the cache at once.
func (s *Service) stateOf(snap db.Snapshot, base *engine.Game) (*State, error) {
	o, err := options(snap.Game)
	if err != nil {
		return nil, err
	}
	st := &State{Game: snap.Game, Seats: snap.Seats, Options: o}
	if snap.Game.Status != db.StatusPlaying && snap.Game.Status != db.StatusFinished {
		return st, nil
	}
	eg := base
	switch {
	case eg == nil:
		if eg, err = rebuild(snap.Game, snap.Moves); err != nil {
			return nil, err
		}
	case len(snap.Moves) > 0:
		eg = eg.Clone()
		if err := applyMoves(eg, snap.Moves); err != nil {
			return nil, fmt.Errorf("games: catch up game %d: %w", snap.Game.ID, err)
		}
	}
	if eg.Version() != snap.Game.Version {
		return nil, fmt.Errorf("games: game %d rebuilt at version %d, its row says %d", snap.Game.ID, eg.Version(), snap.Game.Version)
	}
	s.cache.put(snap.Game.ID, eg)
	st.eg = eg
	return st, nil
}

// rebuild replays a started game's move log over the deals of its seed.
func rebuild(g db.Game, moves []db.Move) (*engine.Game, error) {
	_, eg, err := Replay(g, moves)
	return eg, err
}

// Replay is a game rebuilt from its row and moves: its options, and the
// engine's game after the moves (from the imported deals or the seed).
func Replay(g db.Game, moves []db.Move) (engine.Options, *engine.Game, error) {
	o, err := options(g)
	if err != nil {
		return o, nil, err
	}
	setup, err := SetupOf(g, o)
	if err != nil {
		return o, nil, err
	}
	eg, err := engine.NewFromSetup(o, setup)
	if err != nil {
		return o, nil, fmt.Errorf("games: rebuild game %d: %w", g.ID, err)
	}
	if err := applyMoves(eg, moves); err != nil {
		return o, nil, fmt.Errorf("games: rebuild game %d: %w", g.ID, err)
	}
	return o, eg, nil
}

// SetupOf is the game's deals: those an imported game's text showed, or
// those drawn from the seed.
func SetupOf(g db.Game, o engine.Options) (engine.Setup, error) {
	if !g.Imported {
		return engine.SetupFromSeed(o, uint64(g.Seed)), nil
	}
	var setup engine.Setup
	if err := json.Unmarshal(g.Setup, &setup); err != nil {
		return engine.Setup{}, fmt.Errorf("games: the deals of imported game %d: %w", g.ID, err)
	}
	return setup, nil
}

func applyMoves(eg *engine.Game, moves []db.Move) error {
	for _, m := range moves {
		if err := eg.Apply(engine.Action{Seat: m.Seat, Kind: engine.ActionKind(m.Kind), Timeout: m.Timeout}); err != nil {
			return fmt.Errorf("move %d (%s by seat %d): %w", m.Seq, m.Kind, m.Seat, err)
		}
	}
	return nil
}
