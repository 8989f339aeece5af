package engine

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// orderedSetup deals every round the deck 3..26 in order with 27..35 removed.
func orderedSetup(rounds, first int) Setup {
	s := Setup{FirstSeat: first}
	for range rounds {
		s.Deals = append(s.Deals, Deal{Removed: seq(27, 35), Deck: seq(3, 26)})
	}
	return s
}

func mustGame(t testing.TB, o Options, s Setup) *Game {
	t.Helper()
	g, err := NewFromSetup(o, s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustApply(t testing.TB, g *Game, actions ...Action) {
	t.Helper()
	for _, a := range actions {
		if err := g.Apply(a); err != nil {
			t.Fatalf("Apply(%+v): %v", a, err)
		}
	}
}

func TestNewRound(t *testing.T) {
	g := mustGame(t, DefaultOptions(4), orderedSetup(1, 2))
	if got, want := g.ActiveCard(), 3; got != want {
		t.Errorf("active card = %d, want %d (top of the deck)", got, want)
	}
	if got, want := g.DeckLeft(), 23; got != want {
		t.Errorf("deck left = %d, want %d", got, want)
	}
	if got, want := g.Turn(), 2; got != want {
		t.Errorf("turn = %d, want the first seat %d", got, want)
	}
	if g.Pot() != 0 || g.Version() != 0 || g.Finished() {
		t.Errorf("pot %d, version %d, finished %v; want a fresh game", g.Pot(), g.Version(), g.Finished())
	}
}

func TestPass(t *testing.T) {
	g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
	mustApply(t, g, Action{Seat: 0, Kind: Pass})
	if got, want := g.Tokens(0), 10; got != want {
		t.Errorf("tokens after a pass = %d, want %d", got, want)
	}
	if got, want := g.Pot(), 1; got != want {
		t.Errorf("pot = %d, want %d", got, want)
	}
	if got, want := g.Turn(), 1; got != want {
		t.Errorf("turn = %d, want the player on the left, %d", got, want)
	}
	mustApply(t, g, Action{Seat: 1, Kind: Pass}, Action{Seat: 2, Kind: Pass})
	if got, want := g.Turn(), 0; got != want {
		t.Errorf("turn = %d, want %d: play goes round the table", got, want)
	}
	if got, want := g.ActiveCard(), 3; got != want {
		t.Errorf("active card = %d, want %d: passing does not change it", got, want)
	}
}

func TestTakeCollectsPotAndDecidesAgain(t *testing.T) {
	g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
	mustApply(t, g, Action{Seat: 0, Kind: Pass}, Action{Seat: 1, Kind: Pass}, Action{Seat: 2, Kind: Take})
	if got, want := g.Cards(2), []int{3}; !slices.Equal(got, want) {
		t.Errorf("seat 2 cards = %v, want %v", got, want)
	}
	if got, want := g.Tokens(2), 13; got != want {
		t.Errorf("seat 2 tokens = %d, want %d (11 + the 2 on the card)", got, want)
	}
	if g.Pot() != 0 {
		t.Errorf("pot = %d, want 0", g.Pot())
	}
	if got, want := g.ActiveCard(), 4; got != want {
		t.Errorf("active card = %d, want the next card %d", got, want)
	}
	if got, want := g.Turn(), 2; got != want {
		t.Errorf("turn = %d, want %d: the taker decides again", got, want)
	}
	mustApply(t, g, Action{Seat: 2, Kind: Take}, Action{Seat: 2, Kind: Pass})
	if got, want := g.Turn(), 0; got != want {
		t.Errorf("turn = %d, want %d after the taker passes", got, want)
	}
}

func TestIllegalActions(t *testing.T) {
	noTokens := func(t *testing.T) *Game {
		// Seat 0 passes 11 times while the others take whatever comes.
		g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
		for range 11 {
			mustApply(t, g, Action{Seat: 0, Kind: Pass}, Action{Seat: 1, Kind: Take}, Action{Seat: 1, Kind: Pass}, Action{Seat: 2, Kind: Take}, Action{Seat: 2, Kind: Pass})
		}
		return g
	}
	finished := func(t *testing.T) *Game {
		g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
		for range DeckCards {
			mustApply(t, g, Action{Seat: 0, Kind: Take})
		}
		return g
	}
	fresh := func(t *testing.T) *Game { return mustGame(t, DefaultOptions(3), orderedSetup(1, 0)) }
	tests := []struct {
		name   string
		game   func(*testing.T) *Game
		action Action
		want   error
	}{
		{"ErrNotYourTurn", fresh, Action{Seat: 1, Kind: Take}, ErrNotYourTurn},
		{"ErrUnknownSeatNegative", fresh, Action{Seat: -1, Kind: Take}, ErrUnknownSeat},
		{"ErrUnknownSeatPastTable", fresh, Action{Seat: 3, Kind: Pass}, ErrUnknownSeat},
		{"ErrUnknownAction", fresh, Action{Seat: 0, Kind: "discard"}, ErrUnknownAction},
		{"ErrNoTokens", noTokens, Action{Seat: 0, Kind: Pass}, ErrNoTokens},
		{"ErrNoTigerWithoutVariant", fresh, Action{Seat: 0, Kind: LayTiger}, ErrNoTiger},
		{"ErrGameOver", finished, Action{Seat: 0, Kind: Take}, ErrGameOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.game(t)
			before := g.Clone()
			err := g.Apply(tt.action)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Apply(%+v) = %v, want %v", tt.action, err, tt.want)
			}
			var re *RuleError
			if !errors.As(err, &re) || re.Code == "" {
				t.Errorf("error %v is not a *RuleError with a code", err)
			}
			if !sameGame(g, before) {
				t.Errorf("a refused action changed the game")
			}
		})
	}
}

func TestNoTokensMustTake(t *testing.T) {
	g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
	for range 11 {
		mustApply(t, g, Action{Seat: 0, Kind: Pass}, Action{Seat: 1, Kind: Take}, Action{Seat: 1, Kind: Pass}, Action{Seat: 2, Kind: Take}, Action{Seat: 2, Kind: Pass})
	}
	if got, want := g.Legal(0), []ActionKind{Take}; !slices.Equal(got, want) {
		t.Errorf("legal actions with no tokens = %v, want %v", got, want)
	}
	if got := g.Legal(1); got != nil {
		t.Errorf("legal actions out of turn = %v, want none", got)
	}
}

func TestRoundEndsWhenLastCardTaken(t *testing.T) {
	g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
	for range DeckCards - 1 {
		mustApply(t, g, Action{Seat: 0, Kind: Take})
	}
	if g.Finished() || g.DeckLeft() != 0 || g.ActiveCard() != 26 {
		t.Fatalf("before the last take: finished %v, deck %d, active %d", g.Finished(), g.DeckLeft(), g.ActiveCard())
	}
	mustApply(t, g, Action{Seat: 0, Kind: Pass}, Action{Seat: 1, Kind: Pass}, Action{Seat: 2, Kind: Take})
	if !g.Finished() {
		t.Fatal("the game is not over after the last card was taken")
	}
	res := g.Results()
	if len(res) != 1 {
		t.Fatalf("%d round results, want 1", len(res))
	}
	r := res[0]
	// Seat 0 holds 3..25 (one run, 3 points) and 10 tokens; seat 2 took 26 with 2 tokens.
	if got, want := r.Scores, []int{3 - 10, 0 - 10, 26 - 13}; !slices.Equal(got, want) {
		t.Errorf("scores = %v, want %v", got, want)
	}
	if got, want := r.Removed, seq(27, 35); !slices.Equal(got, want) {
		t.Errorf("removed cards revealed = %v, want %v", got, want)
	}
	if got, want := g.Turn(), -1; got != want {
		t.Errorf("turn after the game = %d, want %d", got, want)
	}
}

func TestSeveralRounds(t *testing.T) {
	o := Options{Players: 3, Rounds: 3, Variant: Standard}
	g := mustGame(t, o, orderedSetup(3, 1))
	var totals [3]int
	for round := 1; round <= 3; round++ {
		if got := g.Round(); got != round {
			t.Fatalf("round = %d, want %d", got, round)
		}
		if got, want := g.Turn(), (1+round-1)%3; got != want {
			t.Errorf("round %d starts with seat %d, want %d (the next seat each round)", round, got, want)
		}
		for s := range 3 {
			if g.Tokens(s) != 11 || len(g.Cards(s)) != 0 {
				t.Errorf("round %d seat %d starts with %d tokens and %v; want 11 and no cards", round, s, g.Tokens(s), g.Cards(s))
			}
		}
		starter := g.Turn()
		mustApply(t, g, Action{Seat: starter, Kind: Pass})
		for range DeckCards {
			mustApply(t, g, Action{Seat: g.Turn(), Kind: Take})
		}
		r := g.Results()[round-1]
		for s := range 3 {
			totals[s] += r.Scores[s]
		}
	}
	if !g.Finished() {
		t.Fatal("not finished after 3 rounds")
	}
	if got := g.Totals(); !slices.Equal(got, totals[:]) {
		t.Errorf("totals = %v, want the sum of round scores %v", got, totals)
	}
}

func TestPlacings(t *testing.T) {
	tests := []struct {
		name   string
		totals []int
		want   []int
	}{
		{"Distinct", []int{30, 10, 20}, []int{3, 1, 2}},
		{"TieForFirstThenSecond", []int{21, 21, 30}, []int{1, 1, 2}},
		{"TieForSecond", []int{5, 9, 9, 12}, []int{1, 2, 2, 3}},
		{"AllEqual", []int{-4, -4, -4}, []int{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Placings(tt.totals); !slices.Equal(got, tt.want) {
				t.Errorf("Placings(%v) = %v, want %v", tt.totals, got, tt.want)
			}
		})
	}
}

func TestPlacingsAbandoned(t *testing.T) {
	tests := []struct {
		name      string
		totals    []int
		abandoned []bool
		want      []int
	}{
		{"NobodyLeft", []int{30, 10, 20}, []bool{false, false, false}, []int{3, 1, 2}},
		{"AbandonedPlacesLastDespiteBestScore", []int{-5, 10, 20}, []bool{true, false, false}, []int{3, 1, 2}},
		{"TwoAbandonedShareLast", []int{-5, 10, -9}, []bool{true, false, true}, []int{2, 1, 2}},
		{"AfterATieAmongThoseWhoStayed", []int{217, 140, 140, 42}, []bool{false, false, false, true}, []int{2, 1, 1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlacingsAbandoned(tt.totals, tt.abandoned); !slices.Equal(got, tt.want) {
				t.Errorf("PlacingsAbandoned(%v, %v) = %v, want %v", tt.totals, tt.abandoned, got, tt.want)
			}
		})
	}
}

// A player whose time ran out three times has abandoned the game: the view
// says so, and they place last although their total is the lowest.
func TestThreeTimeoutsPlaceLast(t *testing.T) {
	g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
	// Seat 0 takes 3, 4, 5 by timeouts (a run worth 3 points), seats 1 and
	// 2 then take every other card.
	for range MaxTimeouts {
		mustApply(t, g, Action{Seat: 0, Kind: Take, Timeout: true})
	}
	if v := g.View(1); !v.Seats[0].Abandoned || v.Seats[0].Timeouts != MaxTimeouts || v.Seats[1].Abandoned {
		t.Fatalf("after %d timeouts the view says abandoned %v (%d timeouts)", MaxTimeouts, v.Seats[0].Abandoned, v.Seats[0].Timeouts)
	}
	mustApply(t, g, Action{Seat: 0, Kind: Pass})
	for !g.Finished() {
		mustApply(t, g, Action{Seat: g.Turn(), Kind: Take})
	}
	// Seat 0: 3..5 = 3 points, 11-1 = 10 tokens: -7. Seat 1 took 6 with a
	// token and then 7..26: 6 points, 12 tokens: -6. Seat 2: nothing, 11
	// tokens: -11.
	if got, want := g.Totals(), []int{3 - 10, 6 - 12, 0 - 11}; !slices.Equal(got, want) {
		t.Fatalf("totals = %v, want %v", got, want)
	}
	want := []int{3, 2, 1}
	if got := g.Placings(); !slices.Equal(got, want) {
		t.Errorf("placings = %v, want %v", got, want)
	}
	for viewer := Spectator; viewer < 3; viewer++ {
		if got := g.View(viewer).Placings; !slices.Equal(got, want) {
			t.Errorf("view %d placings = %v, want %v", viewer, got, want)
		}
	}
}

// A player who leaves has abandoned the game at once, whether or not it is
// their turn: the log says so with the active card and its pot, they
// place last although their total would win, the decisions the server
// makes for them afterwards are not theirs, and they cannot leave twice.
func TestLeavePlacesLast(t *testing.T) {
	g := mustGame(t, DefaultOptions(3), orderedSetup(1, 0))
	// Seat 0 passes on 3 (pot 1); seat 2 leaves while seat 1 is to decide.
	mustApply(t, g, Action{Seat: 0, Kind: Pass})
	v0 := g.Version()
	mustApply(t, g, Action{Seat: 2, Kind: Leave})
	if g.Version() != v0+1 || g.Turn() != 1 {
		t.Fatalf("after the leave: version %d (want %d), turn %d (want 1)", g.Version(), v0+1, g.Turn())
	}
	if e := g.Events()[len(g.Events())-1]; e.Kind != EventLeave || e.Seat != 2 || e.Card != 3 || e.Tokens != 1 {
		t.Errorf("the log's last event is %+v, want seat 2 leaving with 3 and a pot of 1", e)
	}
	if v := g.View(Spectator); !v.Seats[2].Abandoned || v.Seats[2].Timeouts != 0 || v.Seats[1].Abandoned {
		t.Errorf("the view after the leave: %+v", v.Seats)
	}
	for _, a := range []Action{{Seat: 2, Kind: Leave}, {Seat: 2, Kind: Leave, Timeout: true}} {
		if err := g.Apply(a); !errors.Is(err, ErrLeft) {
			t.Errorf("leaving twice: %v, want ErrLeft", err)
		}
	}
	if err := g.Apply(Action{Seat: 7, Kind: Leave}); !errors.Is(err, ErrUnknownSeat) {
		t.Errorf("an unknown seat leaves: %v", err)
	}
	// Seat 1 takes 3 with its token and passes on 4; the server, for
	// seat 2, takes 4 and then every card left (a taker decides again).
	mustApply(t, g, Action{Seat: 1, Kind: Take}, Action{Seat: 1, Kind: Pass})
	for !g.Finished() {
		mustApply(t, g, Action{Seat: g.Turn(), Kind: Take})
	}
	// Seat 0: no card, 10 tokens: -10. Seat 1: 3, with 11 + 1 - 1 = 11
	// tokens: -8. Seat 2: the run 4..26 (4 points) and 11 + 1 = 12 tokens:
	// -8.
	if got, want := g.Totals(), []int{-10, 3 - 11, 4 - 12}; !slices.Equal(got, want) {
		t.Fatalf("totals = %v, want %v", got, want)
	}
	// Without the leave seats 1 and 2 would share second place; seat 2
	// places last.
	if got, want := g.Placings(), []int{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("placings = %v, want %v", got, want)
	}
	// Decisions: seat 0 one (its pass), seat 1 two, seat 2 none (every
	// action of its seat after the leave was the server's).
	if got, want := []int{g.Decisions(0), g.Decisions(1), g.Decisions(2)}, []int{1, 2, 0}; !slices.Equal(got, want) {
		t.Errorf("decisions = %v, want %v", got, want)
	}
	if err := g.Apply(Action{Seat: 0, Kind: Leave}); !errors.Is(err, ErrGameOver) {
		t.Errorf("leaving a finished game: %v, want ErrGameOver", err)
	}
	// Replayed from its actions, the game is the same.
	var actions []Action
	for _, e := range g.Events() {
		if a, ok := e.Action(); ok {
			actions = append(actions, a)
		}
	}
	r, err := Replay(DefaultOptions(3), orderedSetup(1, 0), actions)
	if err != nil || !slices.Equal(r.Placings(), g.Placings()) || !r.Left(2) || r.Decisions(1) != 2 {
		t.Errorf("replay: %v, placings %v", err, r.Placings())
	}
}

func TestVariantDeals(t *testing.T) {
	tests := []struct {
		variant Variant
		fixed   []int
	}{
		{Standard, nil},
		{Amigo, []int{10, 20, 30}},
		{AmigoHigh, []int{10, 19, 28}},
		{Tactical, []int{10, 20, 30}},
	}
	for _, tt := range tests {
		t.Run(string(tt.variant), func(t *testing.T) {
			o := Options{Players: 4, Rounds: 10, Variant: tt.variant}
			s := SetupFromSeed(o, 99)
			randomSeen := map[int]bool{}
			for _, d := range s.Deals {
				if err := d.check(tt.variant); err != nil {
					t.Fatal(err)
				}
				for _, c := range tt.fixed {
					if !slices.Contains(d.Removed, c) {
						t.Errorf("card %d not removed in %v", c, d.Removed)
					}
				}
				for _, c := range d.Removed {
					if !slices.Contains(tt.fixed, c) {
						randomSeen[c] = true
					}
				}
			}
			if len(randomSeen) < 10 {
				t.Errorf("only %d distinct cards removed at random over 10 rounds", len(randomSeen))
			}
		})
	}
}

func TestSeedIsDeterministic(t *testing.T) {
	o := Options{Players: 5, Rounds: 4, Variant: Standard}
	a, b := SetupFromSeed(o, 42), SetupFromSeed(o, 42)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave two setups")
	}
	if c := SetupFromSeed(o, 43); reflect.DeepEqual(a, c) {
		t.Error("two seeds gave the same setup")
	}
	firsts := map[int]bool{}
	for seed := range uint64(200) {
		firsts[SetupFromSeed(o, seed).FirstSeat] = true
	}
	if len(firsts) != 5 {
		t.Errorf("first seats drawn over 200 seeds: %v, want all 5", firsts)
	}
}

func TestNewFromSetupRejectsBadDeals(t *testing.T) {
	o := DefaultOptions(3)
	good := orderedSetup(1, 0)
	dup := orderedSetup(1, 0)
	dup.Deals[0].Deck = slices.Clone(dup.Deals[0].Deck)
	dup.Deals[0].Deck[5] = 3
	short := orderedSetup(1, 0)
	short.Deals[0].Deck = short.Deals[0].Deck[:20]
	amigo := Options{Players: 3, Rounds: 1, Variant: Amigo}
	for name, tc := range map[string]struct {
		o Options
		s Setup
	}{
		"ErrDuplicateCard":   {o, dup},
		"ErrShortDeck":       {o, short},
		"ErrFirstSeat":       {o, Setup{FirstSeat: 3, Deals: good.Deals}},
		"ErrDealsPerRound":   {Options{Players: 3, Rounds: 2, Variant: Standard}, good},
		"ErrAmigoFixedCards": {amigo, good},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewFromSetup(tc.o, tc.s); err == nil {
				t.Error("NewFromSetup accepted a bad setup")
			}
		})
	}
}

func TestReplay(t *testing.T) {
	o := Options{Players: 4, Rounds: 2, Variant: Amigo}
	g, err := New(o, 5)
	if err != nil {
		t.Fatal(err)
	}
	playRandom(g, newTestRand(5))
	var actions []Action
	for _, e := range g.Events() {
		if a, ok := e.Action(); ok {
			actions = append(actions, a)
		}
	}
	r, err := Replay(o, SetupFromSeed(o, 5), actions)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.View(Spectator), g.View(Spectator)) || !reflect.DeepEqual(r.Results(), g.Results()) {
		t.Error("replaying the event log does not give the same game")
	}
	if _, err := Replay(o, SetupFromSeed(o, 5), append([]Action{{Seat: 9, Kind: Take}}, actions...)); err == nil {
		t.Error("Replay accepted an illegal first action")
	}
}

// sameGame compares two games' states, leaving out which of them lent its
// event log's spare room to a clone (Clone's bookkeeping, not the game).
func sameGame(a, b *Game) bool {
	x, y := *a, *b
	x.tail, y.tail = nil, nil
	return reflect.DeepEqual(&x, &y)
}
