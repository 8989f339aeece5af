// Package ranked is the use cases of the ladder: the ranked queue and its
// matcher, the ladder itself and a player's rated record. Ratings change in
// the games service, in the transaction that finishes a ranked game.
package ranked

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/games"
	"nothanks/internal/matching"
	"nothanks/internal/rating"
	"nothanks/internal/reliability"
)

// Service is the ladder use cases.
type Service struct {
	store *db.Store
	games *games.Service
	clock clock.Clock
	// Gate refuses the queue to a person not allowed rated play now (the
	// leavers' pauses); nil: everyone may queue.
	Gate func(ctx context.Context, u db.User) error
}

// New returns the service.
func New(store *db.Store, g *games.Service, clk clock.Clock) *Service {
	return &Service{store: store, games: g, clock: clk}
}

// QueueInput is the join-the-queue form.
type QueueInput struct {
	Sizes []int  `form:"sizes" json:"sizes"`
	Pace  string `form:"pace" json:"pace"`
}

// Validate checks the form.
func (in QueueInput) Validate() apperr.FieldErrors {
	f := apperr.FieldErrors{}
	if len(in.Sizes) == 0 {
		f.Add("sizes", "Choose at least one table size.")
	}
	for _, n := range in.Sizes {
		if !slices.Contains(matching.Sizes, n) {
			f.Add("sizes", "Ranked tables have 3, 4 or 5 players.")
		}
	}
	if in.Pace != games.Live && in.Pace != games.Correspondence {
		f.Add("pace", "Choose live or correspondence.")
	}
	return f
}

// Pool is whom a queued player waits for: people wait for people in the
// ranked queue, bot accounts for bots in the bot queue (docs/bots.md). The
// matcher never forms a table across pools, so a person never meets a bot
// account in a rated game.
type Pool string

// The pools.
const (
	People Pool = db.PoolPeople
	Bots   Pool = db.PoolBots
)

// PoolOf is the pool a user may queue in.
func PoolOf(u db.User) Pool {
	if u.Bot {
		return Bots
	}
	return People
}

// Refusals of a queue that is not the player's.
var (
	ErrBotInPeoplesQueue = games.ErrBotRanked
	ErrPersonInBotQueue  = apperr.E(apperr.Forbidden, "The bot queue is for bot accounts; people play ranked in the ranked queue.")
)

// Join puts a player in a pool of the queue (or changes their choice): a
// person in People, a bot account in Bots.
func (s *Service) Join(ctx context.Context, userID int64, pool Pool, in QueueInput) error {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not load the player")
	}
	if PoolOf(u) != pool {
		if u.Bot {
			return ErrBotInPeoplesQueue
		}
		return ErrPersonInBotQueue
	}
	if err := in.Validate().Err(); err != nil {
		return err
	}
	if s.Gate != nil {
		if err := s.Gate(ctx, u); err != nil {
			return err
		}
	}
	sizes := make([]int64, 0, len(in.Sizes))
	for _, n := range in.Sizes {
		if !slices.Contains(sizes, int64(n)) {
			sizes = append(sizes, int64(n))
		}
	}
	slices.Sort(sizes)
	if err := s.store.JoinQueue(ctx, userID, string(pool), sizes, in.Pace, s.clock.Now()); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not join the queue")
	}
	return nil
}

// Leave takes a player out of the queue.
func (s *Service) Leave(ctx context.Context, userID int64) error {
	if err := s.store.LeaveQueue(ctx, userID); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not leave the queue")
	}
	return nil
}

// Status is a player's place in the queue.
type Status struct {
	Queued  bool
	Sizes   []int
	Pace    string
	Since   time.Time
	Gap     float64
	GameID  int64 // set once matched
	Waiting map[string]int
}

// Status tells a player where they stand, with the players waiting in a
// pool.
func (s *Service) Status(ctx context.Context, userID int64, pool Pool) (Status, error) {
	waiting, err := s.store.CountWaiting(ctx, string(pool))
	if err != nil {
		return Status{}, apperr.Wrap(err, apperr.Internal, "could not count the queue")
	}
	st := Status{Waiting: waiting}
	e, err := s.store.QueueEntryOf(ctx, userID)
	if errors.Is(err, db.ErrNotFound) {
		return st, nil
	}
	if err != nil {
		return Status{}, apperr.Wrap(err, apperr.Internal, "could not read the queue")
	}
	st.Queued, st.Pace, st.Since = true, e.Pace, e.JoinedAt
	for _, n := range e.Sizes {
		st.Sizes = append(st.Sizes, int(n))
	}
	st.Gap = entry(e).Gap(s.clock.Now())
	if e.GameID != nil {
		st.GameID = *e.GameID
	}
	return st, nil
}

// Collect is called when a matched player has been sent to their game: the
// queue row has done its work.
func (s *Service) Collect(ctx context.Context, userID int64) error { return s.Leave(ctx, userID) }

func entry(e db.QueueEntry) matching.Entry {
	share := reliability.QueueShare(reliability.Figure{Games: e.RelGames, Kept: e.RelKept})
	m := matching.Entry{UserID: e.UserID, Rating: e.Rating, Pace: e.Pace, JoinedAt: e.JoinedAt, Reliability: share}
	for _, n := range e.Sizes {
		m.Sizes = append(m.Sizes, int(n))
	}
	return m
}

// RunMatcher forms tables from the waiting players and creates their ranked
// games, all in one transaction. Only one instance matches at a time (an
// advisory lock); the others skip the round. It returns the games created.
func (s *Service) RunMatcher(ctx context.Context) ([]int64, error) {
	var created []int64
	err := s.store.Tx(ctx, func(tx *db.Tx) error {
		ok, err := tx.LockMatcher(ctx)
		if err != nil || !ok {
			return err
		}
		rows, err := tx.WaitingForUpdate(ctx, s.clock.Now())
		if err != nil {
			return err
		}
		pools := map[string][]matching.Entry{}
		for _, r := range rows {
			pools[r.Pool] = append(pools[r.Pool], entry(r))
		}
		now := s.clock.Now()
		var tables []matching.Table
		for _, pool := range []Pool{People, Bots} {
			formed := matching.Match(pools[string(pool)], now)
			if err := recordPool(ctx, tx, pools[string(pool)], formed, now); err != nil {
				return err
			}
			tables = append(tables, formed...)
		}
		for _, t := range tables {
			ids := make([]int64, len(t.Players))
			for i, p := range t.Players {
				ids[i] = p.UserID
			}
			gameID, err := s.games.CreateRanked(ctx, tx, ids, t.Pace)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := tx.MarkMatched(ctx, id, gameID, now); err != nil {
					return err
				}
			}
			created = append(created, gameID)
		}
		return nil
	})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not match players")
	}
	return created, nil
}

// recordPool stores, for the fair-play signals, who was waiting when
// tables were formed, the average chance that two of them share a table
// (Σ k(k−1) over the tables formed, over n(n−1) for n waiting), and each
// pair's own chance by the matcher (matching.PairChances), which the
// signals expect their meetings from.
func recordPool(ctx context.Context, tx *db.Tx, waiting []matching.Entry, formed []matching.Table, now time.Time) error {
	n := len(waiting)
	if len(formed) == 0 || n < 2 {
		return nil
	}
	pairs := 0
	for _, t := range formed {
		k := len(t.Players)
		pairs += k * (k - 1)
	}
	members := make([]int64, n)
	for i, e := range waiting {
		members[i] = e.UserID
	}
	chances := matching.PairChances(waiting, now, rand.New(rand.NewPCG(uint64(now.UnixNano()), uint64(n))))
	return tx.RecordSeatingPool(ctx, members, float64(pairs)/float64(n*(n-1)), chances, now)
}

// PageSize is the ladder's page length.
const PageSize = 50

// Ladder is one page of the ladder and the provisional players.
type Ladder struct {
	Rows        []db.LadderRow
	Provisional []db.LadderRow
	Page, Pages int
	// MyRank is the viewer's rank (0: not on the ladder); MyPage its page.
	MyRank, MyPage int
}

// Ladder returns a page of a pool's ladder (the people's, or the bots')
// for a viewer (nil: a visitor), whose rank is given in their own ladder.
func (s *Service) Ladder(ctx context.Context, pool Pool, page int, viewer *db.User) (Ladder, error) {
	bots := pool == Bots
	total, err := s.store.CountLadder(ctx, bots, rating.Provisional)
	if err != nil {
		return Ladder{}, apperr.Wrap(err, apperr.Internal, "could not count the ladder")
	}
	l := Ladder{Pages: max((total+PageSize-1)/PageSize, 1)}
	l.Page = min(max(page, 1), l.Pages)
	if l.Rows, err = s.store.Ladder(ctx, bots, rating.Provisional, PageSize, (l.Page-1)*PageSize); err != nil {
		return Ladder{}, apperr.Wrap(err, apperr.Internal, "could not load the ladder")
	}
	if l.Provisional, err = s.store.Provisional(ctx, bots, rating.Provisional, 200); err != nil {
		return Ladder{}, apperr.Wrap(err, apperr.Internal, "could not load provisional players")
	}
	if viewer != nil && PoolOf(*viewer) == pool {
		if l.MyRank, err = s.store.RankOf(ctx, viewer.ID, rating.Provisional); err != nil {
			return Ladder{}, apperr.Wrap(err, apperr.Internal, "could not find your rank")
		}
		if l.MyRank > 0 {
			l.MyPage = (l.MyRank-1)/PageSize + 1
		}
	}
	return l, nil
}

// Profile is a player's rated record.
type Profile struct {
	User    db.User
	Rating  float64
	Games   int
	Wins    int
	Rank    int
	History []db.RatingChange
	Recent  []db.PlayedGame
	BySize  []db.SizeRecord
}

// Profile loads a player's public record.
func (s *Service) Profile(ctx context.Context, u db.User) (Profile, error) {
	p := Profile{User: u}
	var err error
	if p.Rank, err = s.store.RankOf(ctx, u.ID, rating.Provisional); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "could not load the rank")
	}
	if p.History, err = s.store.RatingHistory(ctx, u.ID); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "could not load the history")
	}
	if p.Recent, err = s.store.RecentGames(ctx, u.ID, 20); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "could not load recent games")
	}
	if p.BySize, err = s.store.RecordBySize(ctx, u.ID); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "could not load the record")
	}
	// The rating now: the last change and any refund since (docs/fair-play.md).
	p.Rating = rating.Start
	if n := len(p.History); n > 0 {
		p.Rating = u.Rating
	}
	p.Games = len(p.History)
	for _, h := range p.History {
		if h.Place == 1 {
			p.Wins++
		}
	}
	return p, nil
}
