package puzzles

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nothanks/internal/analysis"
	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

// deal is a round whose deck starts with first and goes on with the other
// cards lowest first; the last nine of those are removed. A nil first is
// the ascending deck.
func deal(first []int) engine.Deal {
	var others []int
	for c := engine.MinCard; c <= engine.MaxCard; c++ {
		if !slices.Contains(first, c) {
			others = append(others, c)
		}
	}
	k := engine.DeckCards - len(first)
	d := engine.Deal{Deck: append(slices.Clone(first), others[:k]...), Removed: slices.Clone(others[k:])}
	slices.Sort(d.Removed)
	return d
}

// script plays moves ('t' takes, 'p' passes, spaces ignored), each by the
// seat on turn, from a setup, and returns the game with every seat
// judged.
func script(t *testing.T, o engine.Options, s engine.Setup, moves string) (analysis.Game, *engine.Game) {
	t.Helper()
	eg, err := engine.NewFromSetup(o, s)
	if err != nil {
		t.Fatal(err)
	}
	g := analysis.Game{ID: 42, Options: o, Setup: s, Judge: slices.Repeat([]bool{true}, o.Players)}
	for i, m := range strings.ReplaceAll(moves, " ", "") {
		a := engine.Action{Seat: eg.Turn(), Kind: engine.Pass}
		if m == 't' {
			a.Kind = engine.Take
		}
		if err := eg.Apply(a); err != nil {
			t.Fatalf("move %d (%c): %v", i, m, err)
		}
		g.Actions = append(g.Actions, a)
	}
	return g, eg
}

func oneRound(n int) engine.Options { return engine.DefaultOptions(n) }

func find(ps []Puzzle, move int) (Puzzle, Step, bool) {
	for _, p := range ps {
		for _, s := range p.Line {
			if s.Move == move {
				return p, s, true
			}
		}
	}
	return Puzzle{}, Step{}, false
}

// bridgeGame is a one-round, three-player game built so that its last two
// decisions are certain, worked out by hand:
//
//   - 35 goes round: seats 0, 1 and 2 pass ten times each, seats 0 and 1
//     once more (both out of tokens), and seat 2 takes 35 with 32 tokens
//     (33 in hand).
//   - Seat 2 passes 3 (32 left); seat 0, without tokens, must take it
//     (1 token). Seat 0 passes 30 (0 left); seat 1 must take it (1 token).
//     Seat 1 passes 4 (0 left), seat 2 passes (31 left); seat 0 must take
//     4 with 2 tokens on it.
//   - Seat 0 takes 5 to 20, 22 and 23 with nothing on them: it holds 3 to
//     20, 22 and 23 (card points 3 + 22 = 25) and 2 tokens. Seat 1 holds
//     30 and no tokens, seat 2 holds 35 and 31 tokens (score 4).
//   - 21 is turned up with one card left in the deck (34). Taking joins
//     seat 0's runs: 3 card points. Passing hands it to seat 1, who must
//     take it, and seat 0 (25 card points or more) loses to seat 2 (4)
//     whatever comes: its win share is exactly 0. Taking wins unless seat
//     0 then takes a high last card.
//   - 34, the last card: passing, seat 1 must take it and the round ends:
//     seat 0 scores 3 card points less 1 token = 2, seat 1 63, seat 2 4:
//     a sure win (1), card points 3, score 2. Taking: 37 card points less
//     2 tokens = 35, seat 2 wins: win 0, card points 37, score 35.
func bridgeGame(t *testing.T) (g analysis.Game, at21, at34 int) {
	deck := []int{35, 3, 30, 4}
	for c := 5; c <= 20; c++ {
		deck = append(deck, c)
	}
	deck = append(deck, 22, 23, 21, 34)
	d := deal(deck)
	if !slices.Equal(d.Removed, []int{24, 25, 26, 27, 28, 29, 31, 32, 33}) {
		t.Fatalf("removed %v", d.Removed)
	}
	moves := strings.Repeat("ppp", 10) + "pp t" + // 35 to seat 2
		" pt" + // 3: seat 2 passes, seat 0 must take
		" pt" + // 30: seat 0 passes, seat 1 must take
		" ppt" + // 4: seats 1 and 2 pass, seat 0 must take
		" " + strings.Repeat("t", 18) + // 5..20, 22, 23
		" t" + // 21
		" pt" // 34: seat 0 passes, seat 1 must take
	g, eg := script(t, oneRound(3), engine.Setup{FirstSeat: 0, Deals: []engine.Deal{d}}, moves)
	if !eg.Finished() {
		t.Fatal("the game is not over")
	}
	if got, want := eg.Totals(), []int{2, 63, 4}; !slices.Equal(got, want) {
		t.Fatalf("totals %v, want %v", got, want)
	}
	g.Judge = []bool{true, false, false}
	at34 = len(g.Actions) - 2
	return g, at34 - 1, at34
}

func TestMineFindsTheCertainAnswers(t *testing.T) {
	g, at21, at34 := bridgeGame(t)
	v, err := View(g, at21)
	if err != nil {
		t.Fatal(err)
	}
	if v.ActiveCard != 21 || v.DeckLeft != 1 || *v.Seats[0].Tokens != 2 || bot.Tokens(v)[1] != 0 {
		t.Fatalf("the position before 21: card %d, deck %d, tokens %d, seat 1 %d", v.ActiveCard, v.DeckLeft, *v.Seats[0].Tokens, bot.Tokens(v)[1])
	}
	ps, err := Mine(g, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p21, s21, ok := find(ps, at21)
	if !ok {
		t.Fatalf("taking 21 is no puzzle (%d puzzles)", len(ps))
	}
	if s21.Best != engine.Take || s21.Pass.Win != 0 || s21.Take.Win < 0.8 || s21.Margin < 0.8 {
		t.Errorf("21: best %s, take %.4f pass %.4f, margin %.4f", s21.Best, s21.Take.Win, s21.Pass.Win, s21.Margin)
	}
	p34, s34, ok := find(ps, at34)
	if !ok {
		t.Fatal("passing 34 is no puzzle")
	}
	t.Run("ExactEstimatesOfTheLastCard", func(t *testing.T) {
		got := [2]Option{s34.Take, s34.Pass}
		want := [2]Option{{Win: 0, CardPoints: 37, Score: 35}, {Win: 1, CardPoints: 3, Score: 2}}
		if got != want || s34.Best != engine.Pass || s34.Margin != 1 {
			t.Errorf("34: best %s margin %v, take/pass %+v, want %+v", s34.Best, s34.Margin, got, want)
		}
	})
	t.Run("OneLine", func(t *testing.T) {
		// The game took 21, the best action, and 34 followed at once: the
		// same puzzle, the card turned up as the reply.
		if p21.Move != p34.Move {
			t.Fatalf("21 starts or is in the puzzle of move %d, 34 in that of move %d", p21.Move, p34.Move)
		}
		i := slices.IndexFunc(p21.Line, func(s Step) bool { return s.Move == at21 })
		if i+1 >= len(p21.Line) || p21.Line[i+1].Move != at34 {
			t.Fatalf("line %v", moves(p21.Line))
		}
		r := p21.Line[i].Replies
		if len(r) != 1 || r[0].Kind != engine.EventFlip || r[0].Card != 34 {
			t.Errorf("replies after taking 21: %+v", r)
		}
		if last := p21.Line[len(p21.Line)-1]; last.Move != at34 || last.Replies != nil {
			t.Errorf("the line goes on after 34: %v", moves(p21.Line))
		}
	})
	t.Run("Themes", func(t *testing.T) {
		if p21.Move == at21 && !slices.Equal(p21.Themes, []string{ThemeRun, ThemeBridge, ThemeLastCards, ThemeFewTokens}) {
			t.Errorf("themes of 21: %v", p21.Themes)
		}
	})
}

func moves(line []Step) []int {
	var out []int
	for _, s := range line {
		out = append(out, s.Move)
	}
	return out
}

// Taking 35 with nothing on it, first thing in a one-round game with 11
// tokens in hand, gives 35 card points for nothing: passing is certainly
// right, whatever the game's player did.
func TestPassingOnTheFirst35IsAPuzzle(t *testing.T) {
	for _, played := range []string{"p", "t"} {
		t.Run("Played"+played, func(t *testing.T) {
			g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal([]int{35})}}, played)
			ps, err := Mine(g, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 {
				t.Fatalf("%d puzzles", len(ps))
			}
			p := ps[0]
			if p.Move != 0 || p.Best != engine.Pass || p.Card != 35 || p.Margin < DefaultMargin || len(p.Line) != 1 {
				t.Errorf("puzzle %+v", p)
			}
			if p.Line[0].Played != g.Actions[0].Kind {
				t.Errorf("played %s, the game %s", p.Line[0].Played, g.Actions[0].Kind)
			}
			// Passing leaves 35 to the others: the seat expects fewer
			// card points than the 35 taking gives at least.
			if p.Take.CardPoints < 35 || p.Pass.CardPoints >= p.Take.CardPoints {
				t.Errorf("card points: take %v, pass %v", p.Take.CardPoints, p.Pass.CardPoints)
			}
			if !slices.Equal(p.Themes, []string{}) || !p.Obvious {
				t.Errorf("themes %v, obvious %v", p.Themes, p.Obvious)
			}
		})
	}
}

// A decision that cannot change who wins is no puzzle, however bad one of
// its actions looks. In round 1 seat 2 takes the first twelve cards (78
// card points, 10 tokens: 68), passes the thirteenth, seat 0 passes and
// seat 1 takes the rest (99 card points, 13 tokens: 86); seat 0 ends the
// round on -10. Round 2, the last, opens with 35 for seat 0, 78 points
// ahead: it wins whether it takes 35 or not.
func TestADecidedGameHasNoPuzzle(t *testing.T) {
	removed := []int{4, 7, 10, 13, 16, 19, 22, 25, 28}
	var deck []int
	for c := engine.MinCard; c <= engine.MaxCard; c++ {
		if !slices.Contains(removed, c) {
			deck = append(deck, c)
		}
	}
	o := engine.Options{Players: 3, Rounds: 2, Variant: engine.Standard}
	s := engine.Setup{FirstSeat: 2, Deals: []engine.Deal{{Removed: removed, Deck: deck}, deal([]int{35})}}
	g, eg := script(t, o, s, strings.Repeat("t", 12)+" ppt "+strings.Repeat("t", 11)+" p")
	if got, want := eg.Totals(), []int{-10, 86, 68}; !slices.Equal(got, want) {
		t.Fatalf("totals after round 1: %v, want %v", got, want)
	}
	move := len(g.Actions) - 1
	g.Judge = []bool{true, false, false}
	ps, err := Mine(g, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if p, _, ok := find(ps, move); ok {
		t.Errorf("the won game's 35 is a puzzle: %+v", p)
	}
	v, _ := View(g, move)
	c := DefaultConfig()
	vd := searchVerdict(v, c, func(k int) *rand.Rand { return rngFor(g.ID, seedSalt, move, k) })
	if vd.clear || math.Abs(vd.take.Win-vd.pass.Win) >= c.Margin {
		t.Errorf("take %.4f, pass %.4f: clear %v", vd.take.Win, vd.pass.Win, vd.clear)
	}
}

func TestMiningIsReproducible(t *testing.T) {
	o := engine.Options{Players: 4, Rounds: 1, Variant: engine.Standard}
	g := playGame(t, 9, o, []bot.Bot{bot.RandomBot{}, bot.HeuristicBot{}, bot.RuleBot{}, bot.HeuristicBot{}}, rand.New(rand.NewPCG(9, 9)))
	c := DefaultConfig()
	c.Playouts = 600
	a, err := Mine(g, c)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Mine(g, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 {
		t.Fatal("no puzzles in a game with a random bot")
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two minings of one game differ")
	}
	for _, p := range a {
		for _, s := range p.Line {
			if s.Margin < c.Margin {
				t.Errorf("move %d: margin %v below %v", s.Move, s.Margin, c.Margin)
			}
			if win := map[engine.ActionKind]float64{engine.Take: s.Take.Win, engine.Pass: s.Pass.Win}; win[s.Best] <= win[other(s.Best)] {
				t.Errorf("move %d: best %s but take %v pass %v", s.Move, s.Best, s.Take.Win, s.Pass.Win)
			}
		}
	}
}

func other(k engine.ActionKind) engine.ActionKind {
	if k == engine.Take {
		return engine.Pass
	}
	return engine.Take
}

// The view a puzzle is served from shows the solver's own tokens only, and
// nothing of the deck's order or the removed cards of the round in play:
// dealing the unseen cards of that round otherwise gives the same bytes.
func TestTheViewHidesWhatTheSeatCannotSee(t *testing.T) {
	o := engine.Options{Players: 3, Rounds: 2, Variant: engine.Standard}
	g := playGame(t, 5, o, []bot.Bot{bot.RandomBot{}, bot.HeuristicBot{}, bot.RuleBot{}}, rand.New(rand.NewPCG(5, 5)))
	c := DefaultConfig()
	c.Playouts = 500
	ps, err := Mine(g, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no puzzles")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range ps {
		for _, s := range p.Line {
			v, err := View(g, s.Move)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(v)
			var doc struct {
				Viewer int `json:"viewer"`
				Seats  []struct {
					Tokens *int `json:"tokens"`
				} `json:"seats"`
				Results []json.RawMessage `json:"results"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			for i, seat := range doc.Seats {
				if (seat.Tokens != nil) != (i == p.Seat) {
					t.Errorf("move %d: seat %d's tokens shown: %v", s.Move, i, seat.Tokens != nil)
				}
			}
			if doc.Viewer != p.Seat || len(doc.Results) != v.Round-1 || bytes.Contains(raw, []byte(`"deck"`)) {
				t.Errorf("move %d: viewer %d, %d results in round %d", s.Move, doc.Viewer, len(doc.Results), v.Round)
			}
			// Deal the round's unseen cards again.
			setup := engine.Setup{FirstSeat: g.Setup.FirstSeat, Deals: slices.Clone(g.Setup.Deals)}
			d := setup.Deals[v.Round-1]
			shown := engine.DeckCards - v.DeckLeft
			unseen := append(slices.Clone(d.Deck[shown:]), d.Removed...)
			rng.Shuffle(len(unseen), func(i, j int) { unseen[i], unseen[j] = unseen[j], unseen[i] })
			nd := engine.Deal{Deck: append(slices.Clone(d.Deck[:shown]), unseen[:v.DeckLeft]...), Removed: slices.Clone(unseen[v.DeckLeft:])}
			slices.Sort(nd.Removed)
			setup.Deals[v.Round-1] = nd
			v2, err := View(analysis.Game{ID: g.ID, Options: o, Setup: setup, Actions: g.Actions}, s.Move)
			if err != nil {
				t.Fatal(err)
			}
			raw2, _ := json.Marshal(v2)
			if !bytes.Equal(raw, raw2) {
				t.Errorf("move %d: the view changes with the unseen cards", s.Move)
			}
		}
	}
	t.Run("OpenTokensShowsThemAll", func(t *testing.T) {
		o := oneRound(3)
		o.OpenTokens = true
		g, _ := script(t, o, engine.Setup{Deals: []engine.Deal{deal(nil)}}, "pp")
		v, _ := View(g, 1)
		for i, s := range v.Seats {
			if s.Tokens == nil {
				t.Errorf("seat %d's tokens hidden in an open-tokens game", i)
			}
		}
	})
	t.Run("ErrNoSuchMove", func(t *testing.T) {
		for _, m := range []int{-1, len(g.Actions)} {
			if _, err := View(g, m); err == nil {
				t.Errorf("move %d: no error", m)
			}
		}
	})
}

// stubMine mines g with every screen passed and the verdicts given by
// judge, for the line's walk alone.
func stubMine(t *testing.T, g analysis.Game, maxSteps int, judge func(move int) verdict) []Puzzle {
	t.Helper()
	m, err := newMiner(g, Config{MaxSteps: maxSteps})
	if err != nil {
		t.Fatal(err)
	}
	m.screen = func(int, engine.View) bool { return true }
	m.judge = func(move int, _ engine.View) verdict { return judge(move) }
	return m.mine()
}

func lines(ps []Puzzle) [][]int {
	var out [][]int
	for _, p := range ps {
		out = append(out, moves(p.Line))
	}
	return out
}

func TestLines(t *testing.T) {
	played := func(g analysis.Game, seat int) func(int) verdict {
		return func(move int) verdict {
			a := g.Actions[move]
			return verdict{clear: a.Seat == seat, best: a.Kind}
		}
	}
	t.Run("TakesFollowUpToMaxSteps", func(t *testing.T) {
		g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal(nil)}}, "ttttt")
		ps := stubMine(t, g, 3, played(g, 0))
		if got, want := lines(ps), [][]int{{0, 1, 2}, {3, 4}}; !reflect.DeepEqual(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
		if r := ps[0].Line[0].Replies; len(r) != 1 || r[0].Kind != engine.EventFlip || r[0].Card != 4 {
			t.Errorf("replies to taking 3: %+v", r)
		}
	})
	t.Run("PassComesBackRound", func(t *testing.T) {
		g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal([]int{35})}}, "pppt")
		ps := stubMine(t, g, 3, played(g, 0))
		if got, want := lines(ps), [][]int{{0, 3}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("lines %v, want %v", got, want)
		}
		r := ps[0].Line[0].Replies
		if len(r) != 2 || r[0].Seat != 1 || r[1].Seat != 2 || r[0].Kind != engine.EventPass || r[1].Kind != engine.EventPass {
			t.Errorf("replies %+v", r)
		}
		if s := ps[0].Line[1]; s.Card != 35 || s.Pot != 3 || s.Tokens != 10 {
			t.Errorf("second step: card %d pot %d tokens %d", s.Card, s.Pot, s.Tokens)
		}
	})
	t.Run("PassTakenByAnotherEndsTheLine", func(t *testing.T) {
		// Seat 0 passes 35, seat 1 takes it and passes 3, seat 2 passes,
		// seat 0 takes 3.
		g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal([]int{35, 3})}}, "pt ppt")
		if got, want := lines(stubMine(t, g, 3, played(g, 0))), [][]int{{0}, {4}}; !reflect.DeepEqual(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
	})
	t.Run("StopsWhereTheGameWentWrong", func(t *testing.T) {
		g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal(nil)}}, "ttt")
		judge := func(move int) verdict {
			if move == 1 {
				return verdict{clear: true, best: engine.Pass}
			}
			return verdict{clear: true, best: engine.Take}
		}
		if got, want := lines(stubMine(t, g, 3, judge)), [][]int{{0, 1}, {2}}; !reflect.DeepEqual(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
	})
	t.Run("StopsAtAnUnclearStep", func(t *testing.T) {
		g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal(nil)}}, "ttt")
		judge := func(move int) verdict { return verdict{clear: move != 1, best: engine.Take} }
		if got, want := lines(stubMine(t, g, 3, judge)), [][]int{{0}, {2}}; !reflect.DeepEqual(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
	})
	t.Run("StopsAtTheEndOfARound", func(t *testing.T) {
		// Seat 0 passes the first card; seat 1 takes all 24 cards, the
		// last of round 1, and opens round 2 (seat 0 + 1).
		o := engine.Options{Players: 3, Rounds: 2, Variant: engine.Standard}
		s := engine.Setup{FirstSeat: 0, Deals: []engine.Deal{deal(nil), deal(nil)}}
		g, eg := script(t, o, s, "p"+strings.Repeat("t", 24)+" ttt")
		if eg.Round() != 2 {
			t.Fatalf("round %d", eg.Round())
		}
		got := lines(stubMine(t, g, 10, played(g, 1)))
		want := [][]int{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, {21, 22, 23, 24}, {25, 26, 27}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
	})
	t.Run("SkipsWhatIsNoDecision", func(t *testing.T) {
		// Timeouts and the decisions of seats not judged start no line.
		g, _ := script(t, oneRound(3), engine.Setup{Deals: []engine.Deal{deal(nil)}}, "ptt")
		g.Actions[2].Timeout = true
		g.Judge = []bool{true, false, true}
		all := func(move int) verdict { return verdict{clear: true, best: g.Actions[move].Kind} }
		if got, want := lines(stubMine(t, g, 3, all)), [][]int{{0}}; !reflect.DeepEqual(got, want) {
			t.Errorf("lines %v, want %v", got, want)
		}
	})
}

func TestConfigDefaults(t *testing.T) {
	if got := (Config{}).withDefaults(); got != DefaultConfig() {
		t.Errorf("zero config %+v, want %+v", got, DefaultConfig())
	}
	c := Config{Playouts: 100}.withDefaults()
	if c.Playouts != 100 || c.Searches != DefaultSearches {
		t.Errorf("%+v", c)
	}
}
