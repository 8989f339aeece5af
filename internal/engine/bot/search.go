package bot

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"nothanks/internal/engine"
)

// Budget is what a search may spend on one decision: it stops at whichever
// limit comes first. Without Time the search is reproducible: the same view
// and the same rng state give the same decision.
type Budget struct {
	// Iterations caps the playouts; 0 leaves only Time.
	Iterations int
	// Time caps the wall-clock time; 0 leaves only Iterations.
	Time time.Duration
}

// The budgets of the search levels. StrongBudget keeps a decision under
// 50 ms on one core of a small server; the iteration caps only stop a fast
// machine from searching longer than it needs.
var (
	StrongBudget = Budget{Iterations: 50_000, Time: 35 * time.Millisecond}
	ExpertBudget = Budget{Iterations: 500_000, Time: 350 * time.Millisecond}
)

// minIterations is searched even when the time is up, so that a loaded
// machine still gets a decision from the search rather than a guess.
const minIterations = 64

func (b Budget) unlimited() bool { return b.Iterations <= 0 && b.Time <= 0 }

// SearchBot searches the auction of the active card: who takes it, and at
// what pot. Every playout deals the unseen cards at random into the deck
// (all a perfect-memory player does not know is the order of the deck and
// which cards are out), draws for every other seat a way of playing by how
// well each explains the seat's decisions so far (see inferModels), plays
// the auction with the root seat choosing by UCB1 at each of its turns,
// and once the card is taken plays the round out, the root seat by the
// sharp rule and the others by their models. A seat's reward is its share
// of the game's win given the totals of earlier rounds, with a little of
// its margin over the table (see outcome).
//
// The tree stops at the next card turned up: a tree of action histories
// would merge positions with different cards on the table, where the rules,
// which read the table, play well.
type SearchBot struct {
	Budget Budget
}

// NewSearchBot returns a search bot spending budget on a decision.
func NewSearchBot(budget Budget) SearchBot {
	if budget.unlimited() {
		budget = StrongBudget
	}
	return SearchBot{Budget: budget}
}

func (b SearchBot) Decide(v engine.View, rng *rand.Rand) engine.ActionKind {
	if len(v.Legal) == 1 {
		return v.Legal[0]
	}
	if slices.Contains(v.Legal, engine.LayTiger) {
		return engine.LayTiger
	}
	s := newSearch(v, b.Budget, false)
	s.run(orSeeded(rng, v))
	take, pass := s.rootValues()
	if best(take, pass) == pass && pass != take {
		return engine.Pass
	}
	return engine.Take
}

const (
	actTake = 0
	actPass = 1
	noAct   = 2
	// explore is UCB1's exploration constant for rewards in [0, 1].
	explore = 1.0
	// trustVisits is how many playouts an action needs before the search
	// trusts its mean enough to pick the better of two by it.
	trustVisits = 16
)

// sums adds up the root seat's results over playouts.
type sums struct {
	n                 float64
	reward, win, diff float64
	win2, diff2       float64 // sums of squares, for standard errors
	// points and score are the root seat's own card points and score
	// (card points less tokens) of the round, for Estimate only: the
	// search never chooses by them.
	points, score   float64
	points2, score2 float64
}

// own is the root seat's own result of a finished round.
type own struct {
	points, score float64
}

// ownResult is seat's card points (a held or laid Tiger counted as the
// totals count it) and score of the finished round.
func (r *round) ownResult(seat int) own {
	cards := r.cards[seat]
	if r.tiger[seat] {
		if c := engine.TigerCard(cards); c != 0 {
			cards = cards.With(c)
		}
	}
	p := cards.Points()
	return own{points: float64(p), score: float64(p - r.tokens[seat])}
}

func (s *sums) add(o *outcome, seat int, me own) {
	s.n++
	s.reward += o.reward[seat]
	s.win += o.win[seat]
	s.diff += o.diff[seat]
	s.win2 += o.win[seat] * o.win[seat]
	s.diff2 += o.diff[seat] * o.diff[seat]
	s.points += me.points
	s.score += me.score
	s.points2 += me.points * me.points
	s.score2 += me.score * me.score
}

// value is the root seat's expected result of a line of play.
type value struct {
	n, reward, win, diff float64
	points, score        float64
}

func (s *sums) mean() value {
	if s.n == 0 {
		return value{}
	}
	return value{n: s.n, reward: s.reward / s.n, win: s.win / s.n, diff: s.diff / s.n,
		points: s.points / s.n, score: s.score / s.n}
}

// link is the root seat's decision the k-th time the active card comes to
// it (k = 0 at the root).
type link struct {
	take sums
	pass sums // every playout that passed here
	away sums // those of them in which another seat took the card
}

type search struct {
	root   round
	seat   int
	budget Budget
	// even splits the root's playouts evenly between its actions, so that
	// both are estimated alike (Evaluate); otherwise UCB1 decides.
	even  bool
	chain []link
	// models is how likely each way of playing is of each other seat.
	models [engine.MaxPlayers]modelBelief
	// side holds the other seats' decisions in the auction, by the number
	// of passes since the root, for seats that search (modelSearch).
	side []sideNode
	// seatWin sums every seat's win over the playouts that began with
	// taking (0) and passing (1) at the root, seatN counts them
	// (Estimate.Seats).
	seatWin [2][engine.MaxPlayers]float64
	seatN   [2]float64
}

func newSearch(v engine.View, budget Budget, even bool) *search {
	if budget.unlimited() {
		budget = StrongBudget
	}
	r := roundFromView(v)
	return &search{root: r, seat: r.turn, budget: budget, even: even, chain: make([]link, 1, 16), models: inferModels(v)}
}

// orSeeded is rng, or when there is none a source seeded by the view's
// version, so that a caller without one still gets a decision.
func orSeeded(rng *rand.Rand, v engine.View) *rand.Rand {
	if rng != nil {
		return rng
	}
	return rand.New(rand.NewPCG(uint64(v.Version), uint64(v.Viewer)))
}

// run plays playouts until the budget is spent.
func (s *search) run(rng *rand.Rand) {
	start := time.Now()
	limit := s.budget.Iterations
	if limit <= 0 {
		limit = math.MaxInt
	}
	for i := 0; i < limit; i++ {
		if s.budget.Time > 0 && i >= minIterations && i%32 == 0 && time.Since(start) >= s.budget.Time {
			return
		}
		s.playout(rng, i)
	}
}

// playout plays the auction of the active card, the root seat choosing at
// its links and the others by the models drawn for them, then plays the
// round out.
func (s *search) playout(rng *rand.Rand, i int) {
	r := s.root
	r.deal(rng)
	for j := range r.n {
		if j != s.seat {
			r.model[j] = s.models[j].draw(rng)
		}
	}
	r.model[s.seat] = selfModel
	var path [engine.BoxTokens + 1]uint8 // the root seat's action at each of its links
	steps := 0
	var side [engine.BoxTokens + 1]uint8 // the others' actions, by passes since the root
	passes := 0
	for !r.done {
		if r.turn != s.seat {
			take := r.tokens[r.turn] == 0
			if !take {
				if r.model[r.turn] == modelSearch {
					for passes >= len(s.side) {
						s.side = append(s.side, sideNode{})
					}
					take = s.side[passes].choose(&r) == actTake
				} else {
					take = r.policyTake()
				}
			}
			side[passes] = actPass
			if take {
				side[passes] = actTake
				passes++
				r.take()
				break
			}
			passes++
			r.pass()
			continue
		}
		side[passes] = noAct
		passes++
		l := &s.chain[steps]
		act := actTake
		switch {
		case r.tokens[r.turn] == 0:
		case steps == 0 && s.even:
			act = i & 1
		default:
			act = l.choose(&r)
		}
		path[steps] = uint8(act)
		steps++
		if act == actTake {
			r.take()
			break
		}
		fresh := l.pass.n == 0
		r.pass()
		if steps == len(s.chain) {
			s.chain = append(s.chain, link{})
		}
		if fresh {
			break
		}
	}
	for !r.done {
		if r.policyTake() {
			r.take()
		} else {
			r.pass()
		}
	}
	o := r.outcome()
	me := r.ownResult(s.seat)
	if steps > 0 {
		first := path[0]
		s.seatN[first]++
		for j := range s.root.n {
			s.seatWin[first][j] += o.win[j]
		}
	}
	for k := range passes {
		if side[k] != noAct && k < len(s.side) {
			s.side[k].add(int(side[k]), o.reward[(s.root.turn+k)%s.root.n])
		}
	}
	for d := range steps {
		l := &s.chain[d]
		if path[d] == actTake {
			l.take.add(&o, s.seat, me)
			continue
		}
		l.pass.add(&o, s.seat, me)
		if d == steps-1 {
			l.away.add(&o, s.seat, me)
		}
	}
}

// choose picks the action of the root seat at this link: each action once
// (its own rule's choice first), then by UCB1.
func (l *link) choose(r *round) int {
	switch {
	case l.take.n == 0 && l.pass.n == 0:
		if r.policyTake() {
			return actTake
		}
		return actPass
	case l.take.n == 0:
		return actTake
	case l.pass.n == 0:
		return actPass
	}
	logTotal := math.Log(l.take.n + l.pass.n)
	if ucb(&l.pass, logTotal) > ucb(&l.take, logTotal) {
		return actPass
	}
	return actTake
}

// sideNode is another seat's decision in the auction of the active card.
type sideNode struct {
	n, reward [2]float64
}

func (nd *sideNode) add(act int, reward float64) {
	nd.n[act]++
	nd.reward[act] += reward
}

// choose picks by UCB1 on the seat's own reward, each action once first
// (its sharp rule's choice first).
func (nd *sideNode) choose(r *round) int {
	switch {
	case nd.n[actTake] == 0 && nd.n[actPass] == 0:
		if sharpRule.take(r) {
			return actTake
		}
		return actPass
	case nd.n[actTake] == 0:
		return actTake
	case nd.n[actPass] == 0:
		return actPass
	}
	logTotal := math.Log(nd.n[0] + nd.n[1])
	u := func(a int) float64 { return nd.reward[a]/nd.n[a] + explore*math.Sqrt(logTotal/nd.n[a]) }
	if u(actPass) > u(actTake) {
		return actPass
	}
	return actTake
}

func ucb(s *sums, logTotal float64) float64 {
	return s.reward/s.n + explore*math.Sqrt(logTotal/s.n)
}

// rootValues is the root seat's expected result of taking and of passing,
// each followed by its best play. A pass is worth what the playouts in
// which another seat took the card gave, and for those in which the card
// came back, what the best action at the next link is worth; averaging
// every playout instead would charge a pass with the search's own
// exploration further down the chain, and so lean towards taking.
func (s *search) rootValues() (take, pass value) {
	var next value // value of the link after the one in hand
	for k := len(s.chain) - 1; k >= 0; k-- {
		l := &s.chain[k]
		take = l.take.mean()
		pass = l.away.mean()
		if back := l.pass.n - l.away.n; back > 0 && next.n > 0 {
			w := l.away.n / l.pass.n
			pass = value{
				n:      l.pass.n,
				reward: w*pass.reward + (1-w)*next.reward,
				win:    w*pass.win + (1-w)*next.win,
				diff:   w*pass.diff + (1-w)*next.diff,
				points: w*pass.points + (1-w)*next.points,
				score:  w*pass.score + (1-w)*next.score,
			}
		} else if back > 0 {
			pass = l.pass.mean()
		}
		next = best(take, pass)
	}
	return take, pass
}

// best is the better of two values when both are well measured, else the
// better measured one (the other has had too few playouts to tell).
func best(a, b value) value {
	if a.n >= trustVisits && b.n >= trustVisits {
		if a.reward >= b.reward {
			return a
		}
		return b
	}
	if a.n >= b.n {
		return a
	}
	return b
}
