package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// playRandom plays legal random actions to the end of the game, checking
// nothing; it returns the number of actions.
func playRandom(g *Game, rng *rand.Rand) int {
	n := 0
	for !g.Finished() {
		legal := g.Legal(g.Turn())
		if err := g.Apply(Action{Seat: g.Turn(), Kind: legal[rng.IntN(len(legal))]}); err != nil {
			panic(err)
		}
		n++
	}
	return n
}

func randomOptions(rng *rand.Rand) Options {
	o := Options{Players: MinPlayers + rng.IntN(MaxPlayers-MinPlayers+1), Rounds: 1 + rng.IntN(3), Variant: Standard}
	if o.Players <= 5 {
		o.Variant = Variants[rng.IntN(len(Variants))]
	}
	o.OpenTokens = rng.IntN(4) == 0
	o.HiddenTiger = rng.IntN(4) == 0
	return o
}

// checkInvariants fails when the game breaks a rule that holds after every
// action: tokens are conserved within a round and every card is in exactly
// one place.
func checkInvariants(g *Game) error {
	if g.finished {
		if len(g.results) != g.opts.Rounds {
			return fmt.Errorf("finished with %d of %d rounds scored", len(g.results), g.opts.Rounds)
		}
		return nil
	}
	tokens := g.pot
	for _, p := range g.players {
		if p.tokens < 0 {
			return fmt.Errorf("a seat holds %d tokens", p.tokens)
		}
		tokens += p.tokens
	}
	if want := g.opts.Players * g.opts.StartingTokens(); tokens != want {
		return fmt.Errorf("tokens in play = %d, want %d", tokens, want)
	}
	var all CardSet
	count := 0
	place := func(cards ...int) {
		for _, c := range cards {
			all = all.With(c)
			count++
		}
	}
	for _, p := range g.players {
		place(p.cards.Cards()...)
	}
	place(g.active)
	place(g.deck...)
	place(g.setup.Deals[g.round].Removed...)
	if count != NumCards || all != SetOf(seq(MinCard, MaxCard)...) {
		return fmt.Errorf("cards are not each in one place: %d placed, set %v", count, all.Cards())
	}
	if g.turn < 0 || g.turn >= len(g.players) {
		return fmt.Errorf("turn %d is no seat", g.turn)
	}
	return nil
}

// checkProjection fails when a view shows what its viewer may not see.
func checkProjection(g *Game, viewer int) error {
	v := g.View(viewer)
	for i, s := range v.Seats {
		visible := i == viewer || g.opts.OpenTokens || g.finished
		if visible != (s.Tokens != nil) {
			return fmt.Errorf("viewer %d sees seat %d's tokens: %v, want %v", viewer, i, s.Tokens != nil, visible)
		}
		if s.Tokens != nil && *s.Tokens != g.players[i].tokens {
			return fmt.Errorf("seat %d shown with %d tokens, holds %d", i, *s.Tokens, g.players[i].tokens)
		}
	}
	if len(v.Results) != len(g.results) {
		return fmt.Errorf("view has %d results, game %d", len(v.Results), len(g.results))
	}
	return nil
}

func TestRandomGamesKeepInvariants(t *testing.T) {
	rng := newTestRand(2026)
	for i := range 3000 {
		o := randomOptions(rng)
		g, err := New(o, rng.Uint64())
		if err != nil {
			t.Fatal(err)
		}
		for steps := 0; !g.Finished(); steps++ {
			if steps > 10_000 {
				t.Fatalf("game %d (%+v) did not end in 10,000 actions", i, o)
			}
			legal := g.Legal(g.Turn())
			if len(legal) == 0 {
				t.Fatalf("game %d: seat %d to act has no legal action", i, g.Turn())
			}
			if err := g.Apply(Action{Seat: g.Turn(), Kind: legal[rng.IntN(len(legal))]}); err != nil {
				t.Fatalf("game %d: a legal action failed: %v", i, err)
			}
			if err := checkInvariants(g); err != nil {
				t.Fatalf("game %d (%+v) after %d actions: %v", i, o, steps+1, err)
			}
			if steps%7 == 0 {
				for viewer := Spectator; viewer < o.Players; viewer++ {
					if err := checkProjection(g, viewer); err != nil {
						t.Fatalf("game %d: %v", i, err)
					}
				}
			}
		}
	}
}

// TestViewDoesNotDependOnHiddenCards plays the same actions in two games
// whose deals differ only in the cards nobody has seen yet (the rest of the
// deck and the removed cards of the round in play). Every viewer must see
// exactly the same thing in both, byte for byte.
func TestViewDoesNotDependOnHiddenCards(t *testing.T) {
	rng := newTestRand(77)
	for i := range 300 {
		o := randomOptions(rng)
		o.Rounds = 1
		g, _ := New(o, rng.Uint64())
		stop := rng.IntN(60)
		for n := 0; n < stop && !g.Finished(); n++ {
			legal := g.Legal(g.Turn())
			_ = g.Apply(Action{Seat: g.Turn(), Kind: legal[rng.IntN(len(legal))]})
		}
		if g.Finished() {
			continue
		}
		// Shuffle the unseen cards into a new deal with the same visible past.
		deal := g.setup.Deals[0]
		turned := DeckCards - len(g.deck)
		unseen := append(slices.Clone(g.deck), deal.Removed...)
		var fixed []int
		for _, c := range o.Variant.FixedRemoved() {
			fixed = append(fixed, c)
			unseen = slices.DeleteFunc(unseen, func(x int) bool { return x == c })
		}
		rng.Shuffle(len(unseen), func(a, b int) { unseen[a], unseen[b] = unseen[b], unseen[a] })
		other := Deal{Deck: append(slices.Clone(deal.Deck[:turned]), unseen[:len(g.deck)]...)}
		other.Removed = append(fixed, unseen[len(g.deck):]...)
		var actions []Action
		for _, e := range g.Events() {
			if a, ok := e.Action(); ok {
				actions = append(actions, a)
			}
		}
		h, err := Replay(o, Setup{FirstSeat: g.setup.FirstSeat, Deals: []Deal{other}}, actions)
		if err != nil {
			t.Fatal(err)
		}
		for viewer := Spectator; viewer < o.Players; viewer++ {
			a, _ := json.Marshal(g.View(viewer))
			b, _ := json.Marshal(h.View(viewer))
			if string(a) != string(b) {
				t.Fatalf("game %d: viewer %d sees the hidden cards:\n%s\n%s", i, viewer, a, b)
			}
		}
	}
}

func TestViewOfOutsiderIsSpectator(t *testing.T) {
	g, _ := New(DefaultOptions(3), 3)
	if !reflect.DeepEqual(g.View(17), g.View(Spectator)) {
		t.Error("an unknown viewer does not get the spectator's view")
	}
	for _, s := range g.View(Spectator).Seats {
		if s.Tokens != nil {
			t.Errorf("a spectator sees seat %d's tokens", s.Seat)
		}
	}
}
