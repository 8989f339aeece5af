// Package botaccounts is the use cases of bot accounts (docs/bots.md): a
// member turns a new account into a bot account, for good; a bot account
// plays through the API only (casual games with people who choose to play
// it, ranked games among bots from the bot queue), within limits of its
// own: games at once and moves a minute, counted in Postgres so that they
// hold across server instances. It also tells the pages which names are
// bot accounts, so that they can be marked wherever they are shown.
//
// It stands between the handlers and the db and ranked packages; it knows
// nothing of HTTP or HTML.
package botaccounts

import (
	"context"
	"strconv"
	"sync"
	"time"

	"nothanks/internal/apperr"
	"nothanks/internal/clock"
	"nothanks/internal/db"
	"nothanks/internal/ranked"
)

// Limits of a bot account.
const (
	// MaxGames is how many games a bot account may have at once: tables
	// waiting for players or in play, and a place in the bot queue.
	MaxGames = 10
	// MaxMoves is how many moves (take, pass, tiger) a bot account may send
	// in MovesWindow, across its games.
	MaxMoves    = 60
	MovesWindow = time.Minute
	// GamesRetry is the Retry-After of the games limit: it lifts when a
	// game ends, which nothing here can foretell.
	GamesRetry = time.Minute
)

// NamesFresh is how long the list of bot names is kept before it is read
// again. An account becomes a bot before it ever sits at a table, so a page
// of another instance that has not heard of it yet has no seat of it to
// mark.
const NamesFresh = 10 * time.Second

// Store is what the service needs of the database.
type Store interface {
	MakeBot(ctx context.Context, userID int64, at time.Time) (db.BotRefusal, []string, error)
	BotNames(ctx context.Context) ([]string, error)
	GamesAtOnce(ctx context.Context, userID int64) (int, error)
	CountAttempt(ctx context.Context, key string, limit int, now, expired time.Time) (db.Attempt, error)
}

// Service is the bot account use cases.
type Service struct {
	store  Store
	ranked *ranked.Service
	clock  clock.Clock
	names  nameCache
	// forgetToken drops a token's cached check (its hash in hex) from
	// this instance's memory, where the account is kept as it was.
	forgetToken func(hashHex string)
}

// New returns the service.
func New(store Store, r *ranked.Service, forgetToken func(hashHex string), clk clock.Clock) *Service {
	return &Service{store: store, ranked: r, forgetToken: forgetToken, clock: clk}
}

// ErrPlaysByAPI is the answer to a bot account that tries to play through
// the site's pages.
var ErrPlaysByAPI = apperr.E(apperr.Forbidden, "Bot accounts play through the API (see /docs/bots).")

// Upgrade turns a member's new account into a bot account, for good. An
// account that ever sat at a table, waits in the ranked queue or entered a
// tournament stays a person's, as does a guest's; the answer says why.
func (s *Service) Upgrade(ctx context.Context, u db.User) error {
	refusal, tokens, err := s.store.MakeBot(ctx, u.ID, s.clock.Now())
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not make the account a bot account")
	}
	switch refusal {
	case "":
		for _, h := range tokens {
			s.forgetToken(h)
		}
		s.names.forget()
		return nil
	case db.BotAlready:
		return apperr.E(apperr.Conflict, "This account is a bot account already.")
	case db.BotGuest:
		return apperr.E(apperr.Conflict, "A guest account cannot become a bot account: register a new account for your bot.")
	case db.BotClosed:
		return apperr.E(apperr.Conflict, "This account is closed.")
	case db.BotPlayed:
		return apperr.E(apperr.Conflict, "This account has played games, so it stays a person's account: register a new account for your bot.")
	case db.BotQueued:
		return apperr.E(apperr.Conflict, "This account waits in the ranked queue, so it stays a person's account: register a new account for your bot.")
	case db.BotTournaments:
		return apperr.E(apperr.Conflict, "This account has entered tournaments, so it stays a person's account: register a new account for your bot.")
	}
	return apperr.E(apperr.Internal, "unknown refusal %q", refusal)
}

// CheckGames refuses a bot account one more game when it has MaxGames at
// once; people have no such limit. The count is read before the game is
// made, not in its transaction: requests a bot sends at the same moment
// may each pass it.
func (s *Service) CheckGames(ctx context.Context, u db.User) error {
	if !u.Bot {
		return nil
	}
	n, err := s.store.GamesAtOnce(ctx, u.ID)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not count the games")
	}
	if n >= MaxGames {
		e := apperr.E(apperr.TooMany, "A bot account plays at most %d games at once (tables waiting for players, games in play and the bot queue). Finish one first.", MaxGames)
		e.RetryAfter = GamesRetry
		return e
	}
	return nil
}

// CountMove counts a move a bot account sends, and refuses it past MaxMoves
// in a window of MovesWindow that starts at the first move counted in it;
// people have no such limit. Every move sent counts, made or refused.
func (s *Service) CountMove(ctx context.Context, u db.User) error {
	if !u.Bot {
		return nil
	}
	now := s.clock.Now()
	a, err := s.store.CountAttempt(ctx, "bot-moves:"+strconv.FormatInt(u.ID, 10), MaxMoves, now, now.Add(-MovesWindow))
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not count the move")
	}
	if a.Count > MaxMoves {
		wait := max(a.WindowFrom.Add(MovesWindow).Sub(now), time.Second)
		e := apperr.E(apperr.TooMany, "A bot account makes at most %d moves a minute. Wait %d s.", MaxMoves, int((wait+time.Second-1)/time.Second))
		e.RetryAfter = wait
		return e
	}
	return nil
}

// ErrNotABot answers a person who asks for the bot queue.
var ErrNotABot = ranked.ErrPersonInBotQueue

// JoinQueue puts a bot account in the bot queue (or changes its choice),
// within its games at once.
func (s *Service) JoinQueue(ctx context.Context, u db.User, in ranked.QueueInput) error {
	if !u.Bot {
		return ErrNotABot
	}
	st, err := s.ranked.Status(ctx, u.ID, ranked.Bots)
	if err != nil {
		return err
	}
	// Changing the choice while waiting is not one more game.
	if !st.Queued || st.GameID != 0 {
		if err := s.CheckGames(ctx, u); err != nil {
			return err
		}
	}
	return s.ranked.Join(ctx, u.ID, ranked.Bots, in)
}

// Names tells which names are bot accounts', for the pages to mark them.
// It reads them at most every NamesFresh; when they cannot be read, the
// last ones read serve (none before the first read) until the next try,
// NamesFresh later.
func (s *Service) Names(ctx context.Context) Names {
	return s.names.get(ctx, s.clock.Now(), s.store.BotNames)
}

// Names is a set of bot account names.
type Names map[string]bool

// Has reports whether name is a bot account's.
func (n Names) Has(name string) bool { return n[name] }

// nameCache keeps the bot names read last.
type nameCache struct {
	mu    sync.Mutex
	names Names
	at    time.Time
}

func (c *nameCache) get(ctx context.Context, now time.Time, load func(context.Context) ([]string, error)) Names {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names != nil && now.Sub(c.at) < NamesFresh && !now.Before(c.at) {
		return c.names
	}
	list, err := load(ctx)
	if err != nil {
		if c.names == nil {
			c.names = Names{}
		}
		c.at = now
		return c.names
	}
	names := make(Names, len(list))
	for _, n := range list {
		names[n] = true
	}
	c.names, c.at = names, now
	return names
}

// forget makes the next get read the names again (this instance made a
// bot account).
func (c *nameCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = nil
}
