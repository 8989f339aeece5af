package bot

import (
	"math"
	"math/rand/v2"
	"slices"

	"nothanks/internal/engine"
)

// DefaultIterations is the strong bot's search effort per decision.
const DefaultIterations = 3000

// SearchBot is information-set Monte Carlo tree search (single observer):
// every iteration deals the cards the bot cannot see (the rest of the deck
// among the unseen cards) at random, walks one shared tree of action
// histories choosing by UCB1 for whichever seat is to act, plays the round
// out with a noisy heuristic, and credits each seat with its own result.
// Token counts need no guessing: a perfect memory counts them from the log.
type SearchBot struct {
	Iterations int
}

// NewSearchBot returns a search bot spending the given iterations a decision.
func NewSearchBot(iterations int) SearchBot { return SearchBot{Iterations: max(iterations, 1)} }

func (b SearchBot) Decide(v engine.View, rng *rand.Rand) engine.ActionKind {
	if len(v.Legal) == 1 {
		return v.Legal[0]
	}
	if slices.Contains(v.Legal, engine.LayTiger) {
		return engine.LayTiger
	}
	root, unseen := simFromView(v)
	t := tree{nodes: make([]node, 1, b.Iterations+1)}
	for range b.Iterations {
		s := root
		s.deal(unseen, rng)
		t.iterate(&s, rng)
	}
	if t.nodes[0].visits[actTake] >= t.nodes[0].visits[actPass] {
		return engine.Take
	}
	return engine.Pass
}

const (
	actTake = 0
	actPass = 1
	// explore is UCB1's exploration constant for rewards in [0, 1].
	explore = 0.7
)

type node struct {
	child  [2]int32 // index of the node after each action; 0 when not yet made
	visits [2]int32
	reward [2]float64 // summed rewards of the seat that acts here
}

type tree struct {
	nodes []node
	path  []step
}

type step struct {
	node, act, seat int
}

func (t *tree) iterate(s *sim, rng *rand.Rand) {
	t.path = t.path[:0]
	idx := 0
	for !s.done {
		nd := &t.nodes[idx]
		canPass := s.tokens[s.turn] > 0
		act := actTake
		switch {
		case nd.visits[actTake] == 0:
		case canPass && nd.visits[actPass] == 0:
			act = actPass
		case canPass:
			n := float64(nd.visits[0] + nd.visits[1])
			if ucb(nd, actPass, n) > ucb(nd, actTake, n) {
				act = actPass
			}
		}
		t.path = append(t.path, step{idx, act, s.turn})
		fresh := nd.visits[act] == 0
		s.apply(act)
		if nd.child[act] == 0 {
			t.nodes = append(t.nodes, node{})
			t.nodes[idx].child[act] = int32(len(t.nodes) - 1)
		}
		idx = int(t.nodes[idx].child[act])
		if fresh {
			break
		}
	}
	s.playout(rng)
	rewards := s.rewards()
	for _, st := range t.path {
		nd := &t.nodes[st.node]
		nd.visits[st.act]++
		nd.reward[st.act] += rewards[st.seat]
	}
}

func ucb(nd *node, act int, total float64) float64 {
	n := float64(nd.visits[act])
	return nd.reward[act]/n + explore*math.Sqrt(math.Log(total)/n)
}

// sim is a round in play as one determinization sees it.
type sim struct {
	n       int
	cards   [engine.MaxPlayers]engine.CardSet
	tokens  [engine.MaxPlayers]int
	prior   [engine.MaxPlayers]int // totals of the scored rounds
	tiger   [engine.MaxPlayers]bool
	deck    [engine.DeckCards]int
	deckLen int
	next    int
	active  int
	pot     int
	turn    int
	done    bool
}

// simFromView builds the known part of the round and lists the unseen cards.
func simFromView(v engine.View) (sim, []int) {
	s := sim{n: len(v.Seats), active: v.ActiveCard, pot: v.Pot, turn: v.Turn, deckLen: v.DeckLeft}
	tokens := Tokens(v)
	for i, seat := range v.Seats {
		s.cards[i] = engine.SetOf(seat.Cards...)
		s.tokens[i] = tokens[i]
		s.prior[i] = v.Totals[i]
		s.tiger[i] = seat.TigerHeld || seat.TigerPlayed
	}
	seen := v.Seen()
	var unseen []int
	for c := engine.MinCard; c <= engine.MaxCard; c++ {
		if !seen.Has(c) {
			unseen = append(unseen, c)
		}
	}
	return s, unseen
}

// deal fills the deck with a random ordered pick of the unseen cards.
func (s *sim) deal(unseen []int, rng *rand.Rand) {
	var pool [engine.NumCards]int
	n := copy(pool[:], unseen)
	for i := range s.deckLen {
		j := i + rng.IntN(n-i)
		pool[i], pool[j] = pool[j], pool[i]
		s.deck[i] = pool[i]
	}
	s.next = 0
}

func (s *sim) apply(act int) {
	if act == actPass {
		s.tokens[s.turn]--
		s.pot++
		s.turn++
		if s.turn == s.n {
			s.turn = 0
		}
		return
	}
	s.cards[s.turn] = s.cards[s.turn].With(s.active)
	s.tokens[s.turn] += s.pot
	s.pot = 0
	if s.next == s.deckLen {
		s.done = true
		return
	}
	s.active = s.deck[s.next]
	s.next++
}

// playout ends the round with the heuristic's rule, loosened or tightened
// at random so that no two playouts are alike.
func (s *sim) playout(rng *rand.Rand) {
	for !s.done {
		noise := int(rng.Uint32()%5) - 2
		if takeByRule(s.cards[s.turn], s.tokens[s.turn], s.active, s.pot, noise) {
			s.apply(actTake)
		} else {
			s.apply(actPass)
		}
	}
}

// rewards scores the finished round for every seat in [0, 1]: mostly
// whether the seat now leads the game (shared on a tie), partly by how far
// its total is below the others' mean, so that losing less also counts.
func (s *sim) rewards() [engine.MaxPlayers]float64 {
	var totals [engine.MaxPlayers]int
	best, sum := math.MaxInt, 0
	for i := range s.n {
		cards := s.cards[i]
		if s.tiger[i] {
			if c := engine.TigerCard(cards); c != 0 {
				cards = cards.With(c)
			}
		}
		totals[i] = s.prior[i] + cards.Points() - s.tokens[i]
		best = min(best, totals[i])
		sum += totals[i]
	}
	leaders := 0
	for i := range s.n {
		if totals[i] == best {
			leaders++
		}
	}
	var out [engine.MaxPlayers]float64
	for i := range s.n {
		win := 0.0
		if totals[i] == best {
			win = 1 / float64(leaders)
		}
		othersMean := float64(sum-totals[i]) / float64(s.n-1)
		margin := 0.5 + (othersMean-float64(totals[i]))/80
		margin = min(max(margin, 0), 1)
		out[i] = 0.6*win + 0.4*margin
	}
	return out
}
