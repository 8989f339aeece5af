package fairplay

// BenchmarkCollusionSimulation measures the collusion score on a simulated
// rated site played by the site's own bots:
//
//	go test -run '^$' -bench CollusionSimulation -benchtime 1x ./internal/fairplay/
//
// FAIRPLAY_SIM_GAMES (default 3000) is how many rated games to play and
// FAIRPLAY_SIM_PLAYOUTS (default 300) the analysis's playouts per decision
// (the site's background analysis uses analysis.Playouts, 2000, too slow
// for thousands of games here; fewer playouts mean a wider noise band, so
// fewer of a feeder's decisions count as losses at all, and the Feed part
// found here is a lower bound of what the site would see).
//
// The simulation, fixed seeds throughout:
//
//   - simAccounts accounts, each with one fixed bot (heuristic, rule,
//     auction rule), rated from rating.Start by rating.Update;
//   - each simulated minute one matcher round: those still waiting (for
//     less than simMaxWait) plus new arrivals up to a pool of 15 to 25,
//     each with a random set of accepted sizes and a join time in the last
//     minute, are matched by matching.Match exactly as the ranked queue
//     does. Every pair of the pool gets the pool's chance of two waiting
//     players sharing a table, Σ k(k−1) / n(n−1), added to Expected, as the
//     site records per seating pool (seating_pools);
//   - every table plays a standard four-round game (games.RankedRounds)
//     with the seats shuffled, as games.CreateRanked does;
//   - planted pairs (simPlanted) collude: they queue together (both in
//     the pool whenever one is, accepting the same sizes, their entries
//     as if they had waited long enough for their gaps to cover each
//     other), leave the queue together when only one was seated, and the
//     feeder plays as feederDecide says;
//   - besides the site's Expected, each pool is matched again with its
//     members' sizes and join times shuffled (matching.Permutations) to find the
//     matcher's own chance of seating each pair, ExpectedM: a proposed
//     Meet part (MeetM) scored alongside the current one, as is a feeding
//     z clustered by game (FeedG);
//   - every game is analysed (every seat judged) and Pairs feeds each
//     pair's Figures, in game order, after the pool records of its round;
//     Opens is checked after each game.
//
// Games are played in order on one goroutine (cheap bots: the ratings of
// each round depend on the last); the analyses, which change nothing that
// follows, run on GOMAXPROCS workers meanwhile, each game's seeded by its
// id, and the figures are summed in game order once all are done, so the
// result does not depend on the scheduling.

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nothanks/internal/analysis"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/matching"
	"nothanks/internal/rating"
)

const (
	simAccounts = 60
	// simPlanted pairs of accounts collude: accounts 2i+1 (the feeder)
	// and 2i+2 (fed) for i < simPlanted.
	simPlanted = 6
	// simMaxWait is how long a player waits in the queue before giving up.
	simMaxWait = 10 * time.Minute
	// simRounds of a ranked game.
	simRounds = engine.RecommendedRounds
)

// simSkills are the bots of the accounts, by kind.
var simSkills = []struct {
	name string
	bot  bot.Bot
}{
	{"heur", bot.HeuristicBot{}},
	{"rule", bot.RuleBot{}},
	{"auct", bot.RuleBot{Auction: true}},
}

// plantedKinds are the feeder's and the fed account's kinds of each
// planted pair (indices into simSkills); the honest accounts take the
// kinds in turn after them.
var plantedKinds = [simPlanted][2]int{{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {2, 0}}

type simAccount struct {
	id      int64
	kind    int
	rating  float64
	games   int
	partner int64 // the other account of a planted pair (0: honest)
	feeder  bool  // the planted pair's feeder
	waiting bool
	joined  time.Time
	sizes   []int
}

// simGame is one rated game as played, waiting for its analysis.
type simGame struct {
	id    int64
	round int
	game  analysis.Game
	seats []SeatFacts
	pairs []PairGame // filled by the analysis worker
	// devs are the feeder's moves that left its bot's choice (by rule,
	// 1 or 2), fed the fed account's seat; the worker fills judged.
	devs   []simDev
	judged [simPlanted][3]devJudged
}

type simDev struct{ move, rule, fed, pair int }

// devJudged is how the analysis saw a rule's feeding moves: how many,
// how many it judged a loss beyond noise, their summed loss and gift to
// the fed seat.
type devJudged struct {
	n, lost    int
	loss, gift float64
}

// simPool is one matcher round's seating pool.
type simPool struct {
	members []int64
	chance  float64
	games   []*simGame
	// chanceM is the matcher's own chance of seating each pair together.
	chanceM map[[2]int64]float64
}

// feederDecide is the planted feeder's policy. The feeder plays its own
// bot, except at a table with its partner (the fed account, seat fed):
//
//  1. when the active card is adjacent (±1) to a card the fed seat holds
//     and the bot would take it, the feeder passes instead (if it has a
//     token), leaving the card and its growing pot to the fed player;
//  2. when the fed seat has no Pass tokens left (counted from the public
//     log, as bot.Tokens does), sits next after the feeder (the card comes
//     to it next) and the card is not adjacent to its cards, and the bot
//     would pass, the feeder takes the card instead, sparing the fed
//     player a card it could not refuse.
//
// The fed player plays its bot honestly.
// It returns the action and the rule that chose it (0: the bot's own).
func feederDecide(b bot.Bot, v engine.View, fed int, rng *rand.Rand) (engine.ActionKind, int) {
	kind := b.Decide(v, rng)
	if len(v.Legal) < 2 {
		return kind, 0
	}
	card := v.ActiveCard
	cards := engine.SetOf(v.Seats[fed].Cards...)
	adjacent := cards.Has(card-1) || cards.Has(card+1)
	switch {
	case adjacent && kind == engine.Take && slices.Contains(v.Legal, engine.Pass):
		return engine.Pass, 1
	case !adjacent && kind == engine.Pass && fed == (v.Viewer+1)%len(v.Seats) && bot.Tokens(v)[fed] == 0:
		return engine.Take, 2
	}
	return kind, 0
}

// pairTrack is what the benchmark follows of one pair.
type pairTrack struct {
	fig Figures
	// expectedM is the sum of the matcher's own chances (matching.Permutations),
	// the site's Expected; expectedPool the pools' average chance.
	expectedM, expectedPool float64
	// gAB and the rest sum each game's feeding (PairGame.FeedAB, FeedBA)
	// and its square: the feeding z clustered by game (FeedG).
	gAB, gAB2, gBA, gBA2 float64
	// firstFlag is the games together when Opens first held (0: never).
	firstFlag int
	// maxAll is the largest score (each part and each variant apart) over
	// the games from MinGames on; max30 the same up to 30 games together.
	maxAll, max30 variantScores
	at30          Score
	has30         bool
}

// feedG is the feeding part clustered by game.
func (t *pairTrack) feedG() float64 {
	return round2(max(0, zOf(t.gAB, t.gAB2), zOf(t.gBA, t.gBA2)))
}

// Variants of the formula scored from the same parts, to choose weights:
// the current Total, and alternatives. MeetM is the meeting part against
// the matcher's own chance of seating the pair together (see
// matching.Permutations) instead of the pool's average chance; FeedG the
// feeding z with each game's sum as one value (Σ_games / √Σ_games²)
// instead of each decision, so that the decisions of one game, which are
// not independent, count as one draw.
const (
	vTotal    = iota // Meet + Feed + 0.5 Flow (Score().Total)
	vNoMeet          // Feed + 0.5 Flow
	vMeet2           // min(Meet, 2) + Feed + 0.5 Flow
	vFeed            // Feed alone
	vMeetMFF         // MeetM + Feed + 0.5 Flow
	vMeetM2FF        // min(MeetM, 2) + Feed + 0.5 Flow
	vMeetMGF         // MeetM + FeedG + 0.5 Flow
	vParts           // then Meet, Flow, Feed, MeetM, FeedG apart
)

var variantNames = []string{"current Meet+Feed+0.5Flow", "Feed+0.5Flow (no Meet)", "min(Meet,2)+Feed+0.5Flow", "Feed alone",
	"MeetM+Feed+0.5Flow", "min(MeetM,2)+Feed+0.5Flow", "MeetM+FeedG+0.5Flow"}

type variantScores [vParts + 5]float64

func variantsOf(s Score, meetM, feedG float64) variantScores {
	ff := s.Feed + FlowWeight*s.Flow
	return variantScores{
		s.Total,
		ff,
		min(s.Meet, 2) + ff,
		s.Feed,
		meetM + ff,
		min(meetM, 2) + ff,
		meetM + feedG + FlowWeight*s.Flow,
		s.Meet, s.Flow, s.Feed, meetM, feedG,
	}
}

func (v *variantScores) maxWith(o variantScores) {
	for i := range v {
		v[i] = max(v[i], o[i])
	}
}

func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return def
}

func BenchmarkCollusionSimulation(b *testing.B) {
	target := envInt("FAIRPLAY_SIM_GAMES", 3000)
	playouts := envInt("FAIRPLAY_SIM_PLAYOUTS", 300)
	var res simResult
	for b.Loop() {
		res = simulate(b, target, playouts)
	}
	res.report(b, playouts)
}

type simResult struct {
	games, rounds          int
	poolSum, chanceSum     float64
	plantedPools, together []int // per planted pair
	devs                   [simPlanted][3]devJudged
	pairs                  map[[2]int64]*pairTrack
	accounts               []*simAccount
	elapsed                time.Duration
}

func simulate(b *testing.B, target, playouts int) simResult {
	start := time.Now()
	rng := rand.New(rand.NewPCG(20261202, 1))
	accounts := make([]*simAccount, simAccounts)
	byID := map[int64]*simAccount{}
	for i := range accounts {
		a := &simAccount{id: int64(i + 1), rating: rating.Start}
		if p := i / 2; p < simPlanted {
			a.kind = plantedKinds[p][i%2]
			a.feeder = i%2 == 0
			a.partner = int64(i + 2 - 2*(i%2))
		} else {
			a.kind = (i - 2*simPlanted) % len(simSkills)
		}
		accounts[i] = a
		byID[a.id] = a
	}

	// The analyses run meanwhile on every core.
	jobs := make(chan *simGame, 256)
	var wg sync.WaitGroup
	var failed sync.Once
	var failure error
	workers := runtime.GOMAXPROCS(0)
	var done int64
	var doneMu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range jobs {
				rep, err := analysis.Analyse(g.game, playouts)
				if err != nil {
					failed.Do(func() { failure = err })
					continue
				}
				g.pairs = Pairs(GameFacts{GameID: g.id, Players: len(g.seats), Seats: g.seats, Decisions: rep.Decisions})
				for _, dv := range g.devs {
					j := &g.judged[dv.pair][dv.rule]
					j.n++
					for _, d := range rep.Decisions {
						if d.Move == dv.move && d.Loss > 0 {
							j.lost++
							j.loss += d.Loss
							j.gift += d.Gift(dv.fed)
						}
					}
				}
				g.game.Actions = nil
				doneMu.Lock()
				done++
				if done%250 == 0 {
					fmt.Fprintf(os.Stderr, "fairplay sim: %d games analysed, %s\n", done, time.Since(start).Round(time.Second))
				}
				doneMu.Unlock()
			}
		}()
	}

	var pools []*simPool
	res := simResult{plantedPools: make([]int, simPlanted), together: make([]int, simPlanted), accounts: accounts}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	var gameID int64
	for round := 0; int(gameID) < target; round++ {
		now = now.Add(time.Minute)
		// Those who waited too long give up.
		for _, a := range accounts {
			if a.waiting && now.Sub(a.joined) >= simMaxWait {
				a.waiting = false
			}
		}
		// New arrivals fill the pool to 15..25; a planted pair arrives
		// together, accepting the same sizes, its entries as if they had
		// waited long enough for their gaps to cover each other (a patient
		// pair: the matcher seats them together as often as it can).
		size := 15 + rng.IntN(11)
		var pool []*simAccount
		for _, a := range accounts {
			if a.waiting {
				pool = append(pool, a)
			}
		}
		idle := make([]*simAccount, 0, len(accounts))
		for _, a := range accounts {
			if !a.waiting {
				idle = append(idle, a)
			}
		}
		rng.Shuffle(len(idle), func(i, j int) { idle[i], idle[j] = idle[j], idle[i] })
		for _, a := range idle {
			if len(pool) >= size {
				break
			}
			if a.waiting {
				continue // came with its partner
			}
			a.waiting, a.sizes = true, randomSizes(rng)
			a.joined = now.Add(-time.Duration(rng.IntN(60)) * time.Second)
			pool = append(pool, a)
			if a.partner != 0 {
				p := byID[a.partner]
				p.waiting, p.sizes = true, a.sizes
				gap := math.Abs(a.rating - p.rating)
				if need := (gap - matching.BaseGap) / matching.GapPerMinute; need > 0 {
					if early := now.Add(-time.Duration((need + 0.2) * float64(time.Minute))); early.Before(a.joined) {
						a.joined = early
					}
				}
				p.joined = a.joined
				pool = append(pool, p)
			}
		}
		entries := make([]matching.Entry, len(pool))
		for i, a := range pool {
			entries[i] = matching.Entry{UserID: a.id, Rating: a.rating, Sizes: a.sizes, Pace: "live", JoinedAt: a.joined, Reliability: 100}
		}
		tables := matching.Match(entries, now)
		sp := &simPool{}
		for _, a := range pool {
			sp.members = append(sp.members, a.id)
		}
		slices.Sort(sp.members)
		n := len(pool)
		k2 := 0
		for _, t := range tables {
			k := len(t.Players)
			k2 += k * (k - 1)
		}
		if n > 1 {
			sp.chance = float64(k2) / float64(n*(n-1))
		}
		sp.chanceM = permutedChances(entries, now, round)
		res.poolSum += float64(n)
		res.chanceSum += sp.chance
		pools = append(pools, sp)
		for p := range simPlanted {
			if byID[int64(2*p+1)].waiting {
				res.plantedPools[p]++
			}
		}
		for ti, t := range tables {
			gameID++
			g := playTable(b, gameID, round, ti, t, byID)
			sp.games = append(sp.games, g)
			for _, s := range g.seats {
				byID[s.UserID].waiting = false
			}
			jobs <- g
		}
		// A planted account whose partner was seated elsewhere leaves the
		// queue too: they queue again together.
		for _, a := range accounts {
			if a.waiting && a.partner != 0 && !byID[a.partner].waiting {
				a.waiting = false
			}
		}
		res.rounds++
	}
	close(jobs)
	wg.Wait()
	if failure != nil {
		b.Fatal(failure)
	}
	res.games = int(gameID)

	// The figures, in game order.
	res.pairs = map[[2]int64]*pairTrack{}
	track := func(a, b int64) *pairTrack {
		k := [2]int64{min(a, b), max(a, b)}
		t := res.pairs[k]
		if t == nil {
			t = &pairTrack{}
			res.pairs[k] = t
		}
		return t
	}
	for _, sp := range pools {
		for i, a := range sp.members {
			for _, c := range sp.members[i+1:] {
				track(a, c).expectedPool += sp.chance
			}
		}
		for _, k := range slices.SortedFunc(maps.Keys(sp.chanceM), func(x, y [2]int64) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) }) {
			t := track(k[0], k[1])
			t.expectedM += sp.chanceM[k]
			t.fig.Expected += sp.chanceM[k] // what the site sums (matching.PairChances)
		}
		for _, g := range sp.games {
			for i := range simPlanted {
				for rule := range 3 {
					d, j := &res.devs[i][rule], g.judged[i][rule]
					d.n, d.lost, d.loss, d.gift = d.n+j.n, d.lost+j.lost, d.loss+j.loss, d.gift+j.gift
				}
			}
			for _, p := range g.pairs {
				t := track(p.A, p.B)
				t.fig.Add(p)
				t.gAB, t.gAB2, t.gBA, t.gBA2 = t.gAB+p.FeedAB, t.gAB2+p.FeedAB*p.FeedAB, t.gBA+p.FeedBA, t.gBA2+p.FeedBA*p.FeedBA
				if i := plantedIndex(p.A, p.B); i >= 0 {
					res.together[i]++
				}
				s := t.fig.Score()
				if t.fig.Games >= MinGames {
					v := variantsOf(s, meetOf(t.fig.Games, t.expectedM), t.feedG())
					t.maxAll.maxWith(v)
					if t.fig.Games <= 30 {
						t.max30.maxWith(v)
					}
				}
				if t.fig.Games == 30 {
					t.at30, t.has30 = s, true
				}
				if t.firstFlag == 0 && t.fig.Opens() {
					t.firstFlag = t.fig.Games
				}
			}
		}
	}
	res.elapsed = time.Since(start)
	return res
}

// permutedChances matches the pool again matching.Permutations times with the
// members' sizes and join times shuffled among them and returns, for each
// pair seated together at least once, the share of the matchings that did.
func permutedChances(entries []matching.Entry, now time.Time, round int) map[[2]int64]float64 {
	return matching.PairChances(entries, now, rand.New(rand.NewPCG(uint64(round)+7, 77)))
}

// meetOf is the meeting part for games together when expected: what
// Score computes from Figures.Expected.
func meetOf(games int, expected float64) float64 {
	if expected <= 0 {
		return 0
	}
	return round2(min(MeetCap, -math.Log10(PoissonTail(games, expected))))
}

// plantedIndex is the planted pair a < b are, or -1.
func plantedIndex(a, b int64) int {
	if a%2 == 1 && b == a+1 && (a-1)/2 < simPlanted {
		return int((a - 1) / 2)
	}
	return -1
}

// randomSizes is a random non-empty set of accepted table sizes.
func randomSizes(rng *rand.Rand) []int {
	var sizes []int
	for _, s := range matching.Sizes {
		if rng.IntN(2) == 0 {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		sizes = []int{matching.Sizes[rng.IntN(len(matching.Sizes))]}
	}
	return sizes
}

// playTable plays one table's game and rates it.
func playTable(b *testing.B, id int64, round, table int, t matching.Table, byID map[int64]*simAccount) *simGame {
	rng := rand.New(rand.NewPCG(uint64(round)+1, uint64(table)+1000))
	seated := make([]*simAccount, len(t.Players))
	for i, p := range t.Players {
		seated[i] = byID[p.UserID]
	}
	rng.Shuffle(len(seated), func(i, j int) { seated[i], seated[j] = seated[j], seated[i] })
	n := len(seated)
	o := engine.Options{Players: n, Rounds: simRounds, Variant: engine.Standard}
	setup := engine.SetupFromSeed(o, rng.Uint64())
	eg, err := engine.NewFromSetup(o, setup)
	if err != nil {
		b.Fatal(err)
	}
	g := &simGame{id: id, round: round}
	seatOf := map[int64]int{}
	for i, a := range seated {
		seatOf[a.id] = i
	}
	var actions []engine.Action
	for !eg.Finished() {
		seat := eg.Turn()
		a := seated[seat]
		v := eg.View(seat)
		bt := simSkills[a.kind].bot
		var kind engine.ActionKind
		if fed, ok := seatOf[a.partner]; ok && a.feeder {
			var rule int
			kind, rule = feederDecide(bt, v, fed, rng)
			if rule > 0 {
				g.devs = append(g.devs, simDev{move: len(actions), rule: rule, fed: fed, pair: int((a.id - 1) / 2)})
			}
		} else {
			kind = bt.Decide(v, rng)
		}
		act := engine.Action{Seat: seat, Kind: kind}
		if err := eg.Apply(act); err != nil {
			b.Fatal(err)
		}
		actions = append(actions, act)
	}
	places := eg.Placings()
	players := make([]rating.Player, n)
	for i, a := range seated {
		players[i] = rating.Player{Rating: a.rating, Games: a.games, Placing: places[i]}
		g.seats = append(g.seats, SeatFacts{UserID: a.id, Seat: i, Before: a.rating, Games: a.games, Place: places[i]})
	}
	after := rating.Update(players)
	for i, a := range seated {
		a.rating = after[i]
		a.games++
	}
	judge := make([]bool, n)
	for i := range judge {
		judge[i] = true
	}
	g.game = analysis.Game{ID: id, Options: o, Setup: setup, Actions: actions, Judge: judge}
	return g
}

// quantile is the q-quantile of sorted xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

func (r simResult) report(b *testing.B, playouts int) {
	var out strings.Builder
	pf := func(format string, args ...any) { fmt.Fprintf(&out, format, args...) }
	planted := func(k [2]int64) bool { return plantedIndex(k[0], k[1]) >= 0 }
	colluder := func(id int64) bool { return id <= 2*simPlanted }

	pf("\n== collusion simulation: %d games in %d matcher rounds, %d accounts, %d planted pairs, %d playouts a decision, %s ==\n",
		r.games, r.rounds, simAccounts, simPlanted, playouts, r.elapsed.Round(time.Second))
	pf("mean pool %.1f waiting, mean chance two of them share a table %.3f\n", r.poolSum/float64(r.rounds), r.chanceSum/float64(r.rounds))
	byKind := make([][]float64, len(simSkills))
	for _, a := range r.accounts {
		if !colluder(a.id) {
			byKind[a.kind] = append(byKind[a.kind], a.rating)
		}
	}
	for k, rs := range byKind {
		slices.Sort(rs)
		pf("honest %s ratings: min %.0f median %.0f max %.0f\n", simSkills[k].name, rs[0], quantile(rs, 0.5), rs[len(rs)-1])
	}

	// Honest pairs (neither account planted) and mixed ones (one planted
	// account with someone not its partner).
	type group struct {
		name                string
		min                 int
		tracks              []*pairTrack
		flagged             int
		flaggedGamesAtFirst []int
	}
	groups := []*group{{name: "honest, ≥20 together", min: 20}, {name: "honest, 5-19 together", min: 5}, {name: "mixed (one colluder), ≥20", min: 20}}
	var planteds []*pairTrack
	var plantedKeys [][2]int64
	keys := make([][2]int64, 0, len(r.pairs))
	for k := range r.pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]int64) int {
		if x[0] != y[0] {
			return int(x[0] - y[0])
		}
		return int(x[1] - y[1])
	})
	for _, k := range keys {
		t := r.pairs[k]
		var g *group
		switch {
		case planted(k):
			planteds = append(planteds, t)
			plantedKeys = append(plantedKeys, k)
			continue
		case colluder(k[0]) || colluder(k[1]):
			if t.fig.Games >= 20 {
				g = groups[2]
			}
		case t.fig.Games >= 20:
			g = groups[0]
		case t.fig.Games >= 5:
			g = groups[1]
		}
		if g == nil {
			continue
		}
		g.tracks = append(g.tracks, t)
		if t.firstFlag > 0 {
			g.flagged++
			g.flaggedGamesAtFirst = append(g.flaggedGamesAtFirst, t.firstFlag)
		}
	}
	honest := groups[0]
	pf("\npairs, ever flagged at Threshold %.1f (MinGames %d):\n", Threshold, MinGames)
	for _, g := range groups {
		pf("  %-28s %4d pairs, %3d flagged (%.2f%%), games together at first flag %v\n", g.name, len(g.tracks), g.flagged,
			100*float64(g.flagged)/float64(max(len(g.tracks), 1)), g.flaggedGamesAtFirst)
	}
	var together, ratio, ratioM []float64
	for _, t := range honest.tracks {
		together = append(together, float64(t.fig.Games))
		ratio = append(ratio, float64(t.fig.Games)/t.expectedPool)
		ratioM = append(ratioM, float64(t.fig.Games)/t.expectedM)
	}
	slices.Sort(together)
	slices.Sort(ratio)
	slices.Sort(ratioM)
	if len(together) > 0 {
		pf("  honest ≥20 pairs' games together: median %.0f, max %.0f; games / Expected: median %.2f, p90 %.2f; games / ExpectedM: median %.2f, p90 %.2f\n",
			quantile(together, 0.5), together[len(together)-1], quantile(ratio, 0.5), quantile(ratio, 0.9), quantile(ratioM, 0.5), quantile(ratioM, 0.9))
	}

	pf("\nplanted pairs (feeder first):\n")
	pf("  %-12s %-11s %6s %6s %8s %9s %6s %9s | at 30 together: %5s %5s %5s %6s | final %s\n", "pair", "kinds", "pools", "games", "expected", "expectedM", "flag@", "ratings", "Meet", "Flow", "Feed", "Total", "Meet/Flow/Feed/Total, MeetM")
	within30 := 0
	for i, t := range planteds {
		k := plantedKeys[i]
		p := int((k[0] - 1) / 2)
		flag := "never"
		if t.firstFlag > 0 {
			flag = strconv.Itoa(t.firstFlag)
			if t.firstFlag <= 30 {
				within30++
			}
		}
		at := "  (fewer than 30 together)"
		if t.has30 {
			s := t.at30
			at = fmt.Sprintf("%5.2f %5.2f %5.2f %6.2f", s.Meet, s.Flow, s.Feed, s.Total)
		}
		f := t.fig.Score()
		ra, rb := r.accounts[k[0]-1].rating, r.accounts[k[1]-1].rating
		pf("  %3d feeds %-3d %-4s>%-6s %6d %6d %8.2f %9.2f %6s %4.0f/%-4.0f | %s | %.2f/%.2f/%.2f/%.2f, %.2f (feeds %d of %d judged)\n",
			k[0], k[1], simSkills[plantedKinds[p][0]].name, simSkills[plantedKinds[p][1]].name, r.plantedPools[p], t.fig.Games,
			t.expectedPool, t.expectedM, flag, ra, rb, at, f.Meet, f.Flow, f.Feed, f.Total, meetOf(t.fig.Games, t.expectedM), t.fig.FeedsAB, t.fig.JudgedA)
	}
	pf("  planted flagged within 30 games together: %d of %d\n", within30, len(planteds))
	pf("  the feeders' moves off their bot, as the analysis judged them (all games):\n")
	for i := range simPlanted {
		for rule := 1; rule <= 2; rule++ {
			d := r.devs[i][rule]
			if d.n == 0 {
				continue
			}
			pf("    pair %d rule %d: %4d moves, %4d (%.0f%%) judged a loss beyond noise, mean loss %.3f, mean gift to the fed seat %.3f\n",
				i+1, rule, d.n, d.lost, 100*float64(d.lost)/float64(d.n), d.loss/float64(max(d.lost, 1)), d.gift/float64(max(d.lost, 1)))
		}
	}

	// Calibration of the parts at the end, unclipped: each direction's
	// feeding z (by decision and by game) and the flow z of the honest
	// pairs.
	meanSD := func(xs []float64) (float64, float64) {
		var m, v float64
		for _, x := range xs {
			m += x
		}
		m /= float64(max(len(xs), 1))
		for _, x := range xs {
			v += (x - m) * (x - m)
		}
		return m, math.Sqrt(v / float64(max(len(xs)-1, 1)))
	}
	pf("\nhonest pairs at their last game, unclipped z (a calibrated z has mean 0 and sd 1):\n")
	for _, g := range groups[:2] {
		var feedZ, feedGZ, flowZ []float64
		for _, t := range g.tracks {
			f := t.fig
			feedZ = append(feedZ, zOf(f.FeedAB, f.FeedABSq), zOf(f.FeedBA, f.FeedBASq))
			feedGZ = append(feedGZ, zOf(t.gAB, t.gAB2), zOf(t.gBA, t.gBA2))
			if f.FromRestVar > 0 {
				flowZ = append(flowZ, f.FromRest/math.Sqrt(f.FromRestVar))
			}
		}
		fm, fs := meanSD(feedZ)
		gm, gs := meanSD(feedGZ)
		wm, ws := meanSD(flowZ)
		pf("  %-28s feeding z by decision (each direction) mean %.2f sd %.2f; by game mean %.2f sd %.2f; flow z mean %.2f sd %.2f\n", g.name, fm, fs, gm, gs, wm, ws)
	}

	// The distributions, part by part.
	partNames := []string{"Total", "Meet", "Flow", "Feed", "MeetM", "FeedG"}
	partIdx := []int{vTotal, vParts, vParts + 1, vParts + 2, vParts + 3, vParts + 4}
	pf("\nhonest ≥20 pairs' maximum over their games (from MinGames on), and planted pairs' maximum up to 30 together:\n")
	pf("  %-6s %7s %7s %7s %7s %7s %7s | planted: %s\n", "part", "p50", "p90", "p99", "p99.5", "max", "n", "min / median / max")
	for i, name := range partNames {
		var xs, ps []float64
		for _, t := range honest.tracks {
			xs = append(xs, t.maxAll[partIdx[i]])
		}
		for _, t := range planteds {
			ps = append(ps, t.max30[partIdx[i]])
		}
		slices.Sort(xs)
		slices.Sort(ps)
		pf("  %-6s %7.2f %7.2f %7.2f %7.2f %7.2f %7d | %.2f / %.2f / %.2f\n", name, quantile(xs, 0.5), quantile(xs, 0.9), quantile(xs, 0.99), quantile(xs, 0.995),
			quantile(xs, 1), len(xs), quantile(ps, 0), quantile(ps, 0.5), quantile(ps, 1))
		b.ReportMetric(quantile(xs, 0.995), "honest-max"+name+"-p99.5")
	}
	pf("  (the parts' maxima are taken apart, not at the game of the Total's maximum)\n")

	// Thresholds for each formula: honest ≥20 pairs that would ever be
	// flagged, planted pairs flagged by 30 games together.
	pf("\nthreshold sweep (honest ≥20 pairs ever flagged / honest 5-19 ever flagged / mixed ≥20 ever flagged / planted flagged by 30 together):\n")
	thresholds := []float64{3, 4, 5, 5.5, 6, 7, 8, 9, 10, 12}
	pf("  %-28s", "formula \\ threshold")
	for _, th := range thresholds {
		pf(" %13g", th)
	}
	pf("\n")
	for v, name := range variantNames {
		pf("  %-28s", name)
		for _, th := range thresholds {
			h, h5, hm, p := 0, 0, 0, 0
			for _, t := range honest.tracks {
				if t.maxAll[v] >= th {
					h++
				}
			}
			for _, t := range groups[1].tracks {
				if t.maxAll[v] >= th {
					h5++
				}
			}
			for _, t := range groups[2].tracks {
				if t.maxAll[v] >= th {
					hm++
				}
			}
			for _, t := range planteds {
				if t.max30[v] >= th {
					p++
				}
			}
			pf(" %13s", fmt.Sprintf("%d/%d/%d/%d", h, h5, hm, p))
		}
		pf("\n")
	}
	pf("  (honest ≥20 pairs: %d; honest 5-19 pairs: %d; mixed ≥20 pairs: %d; planted pairs: %d)\n", len(honest.tracks), len(groups[1].tracks), len(groups[2].tracks), len(planteds))
	// The benchmark's log keeps ten lines only: the table goes to the
	// standard output whole, the log gets the summary.
	fmt.Print(out.String())
	b.Logf("%d games: %d of %d honest pairs with 20+ games together flagged; %d of %d planted pairs flagged within 30 games together (table above)",
		r.games, honest.flagged, len(honest.tracks), within30, len(planteds))

	b.ReportMetric(float64(r.games), "games")
	b.ReportMetric(float64(len(honest.tracks)), "honest-pairs-20+")
	b.ReportMetric(float64(honest.flagged), "honest-flagged")
	b.ReportMetric(float64(honest.flagged)/float64(max(len(honest.tracks), 1)), "honest-flag-rate")
	b.ReportMetric(float64(within30), "planted-flagged-by-30")
	b.ReportMetric(float64(len(planteds)), "planted-pairs")
}
