package notation

import (
	"errors"
	"io"
	"strings"
	"testing"

	"nothanks/internal/engine"
)

// The hand game's lines: tags 1-18, a blank line 19, the round header 20,
// the cards 21-44 (33 on 21, 3 on 22, ..., 10 on 28, ..., 23 on 44), the
// removed cards 45 and the score lines 46-48.

// setLine replaces line n (from 1) of text.
func setLine(text string, n int, line string) string {
	lines := strings.Split(text, "\n")
	lines[n-1] = line
	return strings.Join(lines, "\n")
}

// insertLine puts a line after line n.
func insertLine(text string, n int, line string) string {
	lines := strings.Split(text, "\n")
	lines = append(lines[:n], append([]string{line}, lines[n:]...)...)
	return strings.Join(lines, "\n")
}

// dropLines removes lines from to to (from 1, both included).
func dropLines(text string, from, to int) string {
	lines := strings.Split(text, "\n")
	return strings.Join(append(lines[:from-1], lines[to:]...), "\n")
}

// firstLines keeps the first n lines.
func firstLines(text string, n int) string {
	return strings.Join(strings.Split(text, "\n")[:n], "\n") + "\n"
}

func TestParseRefuses(t *testing.T) {
	twoRounds := setLine(handGame, 6, `[Rounds "2"]`)
	allPass := "33: " + strings.Repeat("A- B- C- ", 11) + "A- B+34"
	tests := []struct {
		name string
		text string
		opts ParseOptions
		line int
		msg  string
		is   error // the engine's error behind it, if any
	}{
		// The text.
		{"ErrEmpty", "\n# nothing\n", ParseOptions{}, 0, "the text is empty: it holds no game", nil},
		{"ErrOver1MiB", strings.Repeat("# a comment line of the notation\n", MaxText/32), ParseOptions{}, 0, "the file is over 1 MiB", nil},
		{"ErrLineOver4KiB", setLine(handGame, 21, "33: A- B- C- A- B+4 #"+strings.Repeat("x", MaxLine)), ParseOptions{}, 21, "the line is over 4 KiB", nil},
		{"ErrSecondGame", handGame + "\n" + handGame, ParseOptions{}, 50, "a second game starts here (a tag after the moves), but the text should hold one game", nil},
		{"ErrNotANotationLine", insertLine(handGame, 20, "hello world"), ParseOptions{}, 21, `"hello world" is not a line of the notation: a line is a round header (round 1, A starts), a card (27: A- B- C+2), the removed cards (removed 3 8 …) or a score (score A: …)`, nil},

		// The tags.
		{"ErrTagForm", setLine(handGame, 4, `[Event Sunday]`), ParseOptions{}, 4, `a tag line is written [Name "value"]`, nil},
		{"ErrTagUnclosedQuote", setLine(handGame, 4, `[Event "Sunday]`), ParseOptions{}, 4, "the Event tag's value has no closing quote", nil},
		{"ErrTagUnescapedQuote", setLine(handGame, 12, `[SeatA "Ayo "the" best"]`), ParseOptions{}, 12, "the SeatA tag has no closing ]", nil},
		{"ErrTagBadEscape", setLine(handGame, 12, `[SeatA "A\yo"]`), ParseOptions{}, 12, `in the SeatA tag's value a backslash comes only before " or \ (\" and \\)`, nil},
		{"ErrTwoTagsOnALine", setLine(handGame, 4, `[Event "Sunday"] [Table "3"]`), ParseOptions{}, 4, "the Event tag's line goes on after its ]: one tag a line", nil},
		{"ErrDuplicateTag", insertLine(handGame, 1, `[Site "again"]`), ParseOptions{}, 2, "the Site tag is given twice (line 1 and here)", nil},
		{"ErrPlayersMissing", dropLines(handGame, 7, 7), ParseOptions{}, 1, `the Players tag is missing: it gives the number of players, as in [Players "4"]`, nil},
		{"ErrPlayersNine", setLine(handGame, 7, `[Players "9"]`), ParseOptions{}, 7, "a game has 3 to 7 players, not 9", &engine.OptionsError{}},
		{"ErrPlayersNotANumber", setLine(handGame, 7, `[Players "three"]`), ParseOptions{}, 7, `the Players tag is a whole number, not "three"`, nil},
		{"ErrRoundsEleven", setLine(handGame, 6, `[Rounds "11"]`), ParseOptions{}, 6, "a game has 1 to 10 rounds, not 11", &engine.OptionsError{}},
		{"ErrUnknownVariant", setLine(handGame, 5, `[Variant "foo"]`), ParseOptions{}, 5, `unknown variant "foo": the variants are standard, amigo, amigo-high and tactical`, &engine.OptionsError{}},
		{"ErrVariantForFewerPlayers", setLine(setLine(handGame, 5, `[Variant "amigo"]`), 7, `[Players "6"]`), ParseOptions{}, 5, "the Amigo (10, 20, 30 out) variant is for 3 to 5 players", &engine.OptionsError{}},
		{"ErrYesOrNo", setLine(handGame, 8, `[OpenTokens "maybe"]`), ParseOptions{}, 8, `the OpenTokens tag is yes or no, not "maybe"`, nil},
		{"ErrDate", setLine(handGame, 3, `[Date "7 Dec 2026"]`), ParseOptions{}, 3, `the Date tag is a day written 2026-12-07, not "7 Dec 2026"`, nil},
		{"ErrPace", setLine(handGame, 11, `[Pace "blitz"]`), ParseOptions{}, 11, `the Pace tag is live or correspondence, not "blitz"`, nil},
		{"ErrRating", setLine(handGame, 13, `[RatingA "high"]`), ParseOptions{}, 13, `the RatingA tag is a whole number, not "high"`, nil},
		{"ErrSeatTagBeyondPlayers", insertLine(handGame, 16, `[SeatD "Dee"]`), ParseOptions{}, 17, "the SeatD tag names seat D, but a table of 3 players has seats A to C", nil},
		{"ErrSeatMissing", dropLines(handGame, 14, 14), ParseOptions{}, 1, "the SeatB tag is missing: every seat needs its player's name", nil},
		{"ErrSeatEmpty", setLine(handGame, 14, `[SeatB ""]`), ParseOptions{}, 14, "the SeatB tag is empty: give the player's name", nil},
		{"ErrResultForm", setLine(handGame, 17, `[Result "53, 63, 64"]`), ParseOptions{}, 17, `the Result tag gives every seat's total in seat order, as in [Result "A 12, B 30, C -3"]`, nil},
		{"ErrResultWrong", setLine(handGame, 17, `[Result "A 53, B 63, C 65"]`), ParseOptions{}, 17, "C's total is 64, not 65 (Result)", nil},
		{"ErrNoMoves", firstLines(handGame, 18), ParseOptions{}, 18, "the game has no moves: round 1 is missing (round 1, A starts)", nil},

		// The rounds.
		{"ErrCardBeforeFirstRound", dropLines(handGame, 20, 20), ParseOptions{}, 20, "card 33 comes before the first round's header (round 1, A starts)", nil},
		{"ErrRoundHeaderForm", setLine(handGame, 20, "round one, A starts"), ParseOptions{}, 20, "a round header is written round 2, B starts", nil},
		{"ErrFirstSeatBeyondPlayers", setLine(handGame, 20, "round 1, D starts"), ParseOptions{}, 20, "there is no seat D at a table of 3 players (A to C)", nil},
		{"ErrWrongStartingSeat", twoRounds + "\nround 2, C starts\n", ParseOptions{}, 50, "round 2 starts with B, the seat after A who started round 1, not with C", nil},
		{"ErrRoundSkipped", twoRounds + "\nround 3, C starts\n", ParseOptions{}, 50, "the next round is round 2, not round 3", nil},
		{"ErrRoundBeyondRoundsTag", handGame + "\nround 2, B starts\n", ParseOptions{}, 50, "the game has 1 round (the Rounds tag), so there is no round 2", nil},
		{"ErrRoundMissing", twoRounds, ParseOptions{}, 48, "the game stops after round 1, but the Rounds tag gives it 2: round 2 is missing", nil},
		{"ErrRoundTooShort", dropLines(twoRounds, 44, 48) + "\nround 2, B starts\n", ParseOptions{}, 45, "round 1 turns up only 23 cards before round 2 starts: every round turns up 24", nil},
		{"ErrGameStops", firstLines(handGame, 40), ParseOptions{}, 40, "the game stops in round 1 before its last card is taken", nil},
		{"ErrGameStopsBeforeATake", setLine(firstLines(handGame, 21), 21, "33: A- B-"), ParseOptions{}, 21, "the game stops in round 1 before its last card is taken", nil},
		{"ErrResultOfAGameInPlay", firstLines(handGame, 40), ParseOptions{Partial: true}, 17, "the Result tag gives the final totals, but the game is not over", nil},

		// The cards.
		{"ErrCardLineForm", setLine(handGame, 22, "3 B+0"), ParseOptions{}, 22, "a card line is written 27: A- B- C+2 (the card, a colon, the decisions on it)", nil},
		{"ErrCardOutOfRange", setLine(handGame, 22, "36: B+0"), ParseOptions{}, 22, "there is no card 36: the cards are 3 to 35", nil},
		{"ErrCardTurnedUpTwice", setLine(handGame, 22, "33: B+0"), ParseOptions{}, 22, "card 33 is turned up twice in round 1 (line 21 and here)", nil},
		{"ErrCardFixedRemoved", setLine(handGame, 5, `[Variant "amigo"]`), ParseOptions{}, 28, "the amigo variant removes card 10, so it is never turned up", nil},
		{"ErrTooManyCards", insertLine(handGame, 44, "4: C+0"), ParseOptions{}, 45, "round 1 has turned up its 24 cards already, so card 4 is one too many", nil},
		{"ErrCardNeverTaken", setLine(handGame, 21, "33: A- B- C- A-"), ParseOptions{}, 21, "nobody takes card 33, yet the game goes on at line 22", nil},
		{"ErrCardAfterScores", insertLine(handGame, 46, "4: C+0"), ParseOptions{}, 47, "card 4 comes after round 1's removed cards or scores, which come after its last card", nil},

		// The decisions.
		{"ErrDecisionForm", setLine(handGame, 21, "33: A- B? C- A- B+4"), ParseOptions{}, 21, `"B?" is not a decision: write A- for a pass, A+3 for a take of the card with 3 tokens, A^ for laying the Tiger, A! for leaving the game, and add * when the server decided as time ran out`, nil},
		{"ErrDecisionSeatBeyondPlayers", setLine(handGame, 22, "3: D+0"), ParseOptions{}, 22, "there is no seat D at a table of 3 players (A to C)", nil},
		{"ErrNotYourTurn", setLine(handGame, 21, "33: A- C- B- A- B+4"), ParseOptions{}, 21, "C may not pass now: it is B's turn", engine.ErrNotYourTurn},
		{"ErrTakeOutOfTurn", setLine(handGame, 22, "3: C+0"), ParseOptions{}, 22, "C may not take card 3 now: it is B's turn", engine.ErrNotYourTurn},
		{"ErrNoTokens", setLine(handGame, 21, allPass), ParseOptions{}, 21, "A may not pass: A has no tokens left, so must take card 33", engine.ErrNoTokens},
		{"ErrPotDiffers", setLine(handGame, 21, "33: A- B- C- A- B+3"), ParseOptions{}, 21, "B takes card 33 with 4 tokens on it, not 3", nil},
		{"ErrTakeOutOfTurnWithAWrongPot", setLine(handGame, 21, "33: A- B- A+5"), ParseOptions{}, 21, "A may not take card 33 now: it is C's turn", engine.ErrNotYourTurn},
		{"ErrDecisionAfterTake", setLine(handGame, 21, "33: A- B- C- A- B+4 B-"), ParseOptions{}, 21, "B takes card 33, so nothing more happens on it: B- belongs on the next card's line", nil},
		{"ErrTigerWithoutTheVariant", setLine(handGame, 21, "33: A^ A- B- C- A- B+4"), ParseOptions{}, 21, "A may not lay the Tiger: the game is played without the Hidden Tiger", engine.ErrNoTiger},
		{"ErrTigerTwice", setLine(setLine(handGame, 9, `[HiddenTiger "yes"]`), 21, "33: A^ A- B- C- A^ A- B+4"), ParseOptions{}, 21, "A may not lay the Tiger: A has laid it already this round", engine.ErrTigerPlayed},
		{"ErrLeaveTwice", setLine(handGame, 21, "33: A! A- B- C- A! A- B+4"), ParseOptions{}, 21, "A may not leave: A has left the game already", engine.ErrLeft},
		{"ErrLeaveTimedOut", setLine(handGame, 21, "33: A!* A- B- C- A- B+4"), ParseOptions{}, 21, `"A!*" is not a decision: write A- for a pass, A+3 for a take of the card with 3 tokens, A^ for laying the Tiger, A! for leaving the game, and add * when the server decided as time ran out`, nil},

		// The removed cards.
		{"ErrRemovedBeforeRoundOver", dropLines(handGame, 44, 44), ParseOptions{}, 44, "the removed cards come once round 1 is over, but it has turned up only 23 of its 24 cards", nil},
		{"ErrRemovedTurnedUp", setLine(handGame, 45, "removed 4 8 12 16 20 24 28 32 33"), ParseOptions{}, 45, "card 33 is turned up in round 1 (line 21), so it is not removed", nil},
		{"ErrRemovedTwice", setLine(handGame, 45, "removed 4 4 12 16 20 24 28 32 35"), ParseOptions{}, 45, "card 4 is removed twice", nil},
		{"ErrRemovedTooFew", setLine(handGame, 45, "removed 4 8 12"), ParseOptions{}, 45, "9 cards are removed each round, not 3", nil},
		{"ErrRemovedOutOfRange", setLine(handGame, 45, "removed 2 8 12 16 20 24 28 32 35"), ParseOptions{}, 45, "there is no card 2: the cards are 3 to 35", nil},
		{"ErrRemovedLineGivenTwice", insertLine(handGame, 45, "removed 4 8 12 16 20 24 28 32 35"), ParseOptions{}, 46, "round 1's removed cards are given twice (line 45 and here)", nil},
		{"ErrRemovedAfterScores", insertLine(dropLines(handGame, 45, 45), 45, "removed 4 8 12 16 20 24 28 32 35"), ParseOptions{}, 46, "round 1's removed cards come before its score lines", nil},

		// The scores.
		{"ErrScoreForm", setLine(handGame, 46, "score A: 57 points"), ParseOptions{}, 46, "a score line is written score A: 3 4 5 15 29 = 47 points, 11 tokens, 36 (the cards, = the card points, the tokens left and the round's score)", nil},
		{"ErrScoreCards", setLine(handGame, 46, "score A: 9 10 11 = 57 points, 4 tokens, 53"), ParseOptions{}, 46, "A's cards in round 1 are 9 10 11 17 18 19 31, not 9 10 11", nil},
		{"ErrScoreCardPoints", setLine(handGame, 46, "score A: 9 10 11 17 18 19 31 = 56 points, 4 tokens, 52"), ParseOptions{}, 46, "A's card points in round 1 are 57 (a run counts only its lowest card), not 56", nil},
		{"ErrScoreTokens", setLine(handGame, 47, "score B: 3 13 14 15 25 26 33 34 = 74 points, 12 tokens, 62"), ParseOptions{}, 47, "B has 11 tokens left at the end of round 1, not 12", nil},
		{"ErrScore", setLine(handGame, 48, "score C: 5 6 7 21 22 23 27 29 30 = 82 points, 18 tokens, 100"), ParseOptions{}, 48, "C's score in round 1 is 64 (82 card points less 18 tokens), not 100", nil},
		{"ErrScoreTiger", setLine(handGame, 46, "score A: 9 10 11 17 18 19 31 tiger 8 = 57 points, 4 tokens, 53"), ParseOptions{}, 46, "A has no laid Tiger that counts in round 1, so no tiger 8", nil},
		{"ErrScoreGivenTwice", insertLine(handGame, 48, "score A: 9 10 11 17 18 19 31 = 57 points, 4 tokens, 53"), ParseOptions{}, 49, "A's score in round 1 is given twice (line 46 and here)", nil},
		{"ErrScoreBeforeRoundOver", insertLine(handGame, 40, "score A: 9 = 9 points, 4 tokens, 5"), ParseOptions{}, 41, "the score lines come once round 1 is over, but it has turned up only 20 of its 24 cards", nil},
		{"ErrScoreSeatBeyondPlayers", setLine(handGame, 48, "score D: no cards = 0 points, 18 tokens, -18"), ParseOptions{}, 48, "there is no seat D at a table of 3 players (A to C)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseWith(strings.NewReader(tt.text), tt.opts)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if got, want := e.Line, tt.line; got != want {
				t.Errorf("line = %d, want %d (%v)", got, want, err)
			}
			if got, want := e.Msg, tt.msg; got != want {
				t.Errorf("message\n got %s\nwant %s", got, want)
			}
			switch want := tt.is.(type) {
			case nil:
			case *engine.OptionsError:
				if !errors.As(err, &want) {
					t.Errorf("%v is not an *engine.OptionsError", err)
				}
			default:
				if !errors.Is(err, want) {
					t.Errorf("%v is not %v", err, want)
				}
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"NamesTheLine", &Error{Line: 12, Msg: "B may not pass: B has no tokens left, so must take card 27"}, "line 12: B may not pass: B has no tokens left, so must take card 27"},
		{"TheWholeText", &Error{Msg: "the file is over 1 MiB"}, "the file is over 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParsePartial(t *testing.T) {
	noResult := dropLines(handGame, 17, 17) // the cards are now on lines 20-43
	tests := []struct {
		name      string
		text      string
		round     int
		active    int
		pot       int
		turn      int
		decisions int
	}{
		// After 27: A- ... C+8 on line 37 (the 18th card: 18 takes and 35
		// passes so far) the text does not say which card is turned up: the
		// 9 lowest unseen cards (4 8 12 16 19 20 21 22 23) stand for the
		// removed ones, and the deck goes on with the next, 24.
		{"InPlayAfterATake", firstLines(noResult, 37), 1, 24, 0, 2, 18 + 35},
		{"InPlayBeforeATake", setLine(firstLines(noResult, 20), 20, "33: A- B-"), 1, 33, 2, 2, 2},
		{"InPlayAtTheHeader", firstLines(noResult, 19), 1, 12, 0, 0, 0}, // 3 to 11 stand for the removed cards
		{"InPlayBetweenRounds", setLine(noResult, 6, `[Rounds "3"]`), 2, 12, 0, 1, 74},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseWith(strings.NewReader(tt.text), ParseOptions{Partial: true})
			if err != nil {
				t.Fatal(err)
			}
			g := p.Game
			if g.Finished() || g.Round() != tt.round || g.ActiveCard() != tt.active || g.Pot() != tt.pot || g.Turn() != tt.turn || len(p.Actions) != tt.decisions {
				t.Errorf("round %d, card %d with %d tokens, %s to decide, %d actions; want round %d, card %d with %d, %s, %d",
					g.Round(), g.ActiveCard(), g.Pot(), letter(g.Turn()), len(p.Actions), tt.round, tt.active, tt.pot, letter(tt.turn), tt.decisions)
			}
			if got := len(p.Setup.Deals); got != g.Options().Rounds {
				t.Errorf("%d deals for %d rounds", got, g.Options().Rounds)
			}
		})
	}
}

func TestParseMany(t *testing.T) {
	o := engine.Options{Players: 4, Rounds: 2, Variant: engine.Standard}
	var b strings.Builder
	for seed := range uint64(3) {
		if seed > 0 {
			b.WriteString("\n")
		}
		if err := Write(&b, header(o, seed), play(t, o, seed, false).g); err != nil {
			t.Fatal(err)
		}
	}
	file := "# three games\n\n" + b.String()
	lines := strings.Split(file, "\n")
	second := 0 // the line of the second game's first tag
	for i, l := range lines {
		if strings.HasPrefix(l, "[Site") && i > 2 {
			second = i + 1
			break
		}
	}
	t.Run("ReadsEveryGame", func(t *testing.T) {
		games, err := ParseMany(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if len(games) != 3 {
			t.Fatalf("%d games, want 3", len(games))
		}
		for i, p := range games {
			if got, want := p.Header.URL, header(o, uint64(i)).URL; got != want {
				t.Errorf("game %d is %s, want %s", i, got, want)
			}
		}
		// The second game's first decision is on the line after its round 1
		// header, counted in the whole file.
		header := 0
		for i := second; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "round 1,") {
				header = i + 1
				break
			}
		}
		if got, want := games[1].Lines[0], header+1; got != want {
			t.Errorf("the second game's first decision is on line %d, want %d", got, want)
		}
	})
	t.Run("ErrNamesTheLineInTheFile", func(t *testing.T) {
		// Break the second game's Variant tag, its fourth line.
		broken := setLine(file, second+3, `[Variant "foo"]`)
		games, err := ParseMany(strings.NewReader(broken))
		var e *Error
		if !errors.As(err, &e) || e.Line != second+3 {
			t.Fatalf("got %v, want an error on line %d", err, second+3)
		}
		if len(games) != 1 {
			t.Errorf("%d games before the error, want 1", len(games))
		}
	})
	t.Run("ReaderGoesOnPastAnError", func(t *testing.T) {
		broken := setLine(file, second+3, `[Variant "foo"]`)
		rd := NewReader(strings.NewReader(broken), ParseOptions{})
		var got []string
		for {
			p, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				got = append(got, "error")
				continue
			}
			got = append(got, p.Header.URL)
		}
		want := []string{header(o, 0).URL, "error", header(o, 2).URL}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("ErrGameOver1MiB", func(t *testing.T) {
		long := insertLine(file, second, strings.Repeat("# a comment line of the notation\n", MaxText/32))
		rd := NewReader(strings.NewReader(long), ParseOptions{})
		if _, err := rd.Next(); err != nil {
			t.Fatalf("the first game: %v", err)
		}
		_, err := rd.Next()
		var e *Error
		if !errors.As(err, &e) || e.Line != second || e.Msg != "the game that starts here is over 1 MiB" {
			t.Errorf("got %v, want line %d: the game that starts here is over 1 MiB", err, second)
		}
		if p, err := rd.Next(); err != nil || p.Header.URL != header(o, 2).URL {
			t.Errorf("the game after it: %v", err)
		}
	})
	t.Run("NoGameInAnEmptyFile", func(t *testing.T) {
		games, err := ParseMany(strings.NewReader("\n# nothing yet\n"))
		if err != nil || len(games) != 0 {
			t.Errorf("got %d games, %v; want none and no error", len(games), err)
		}
	})
}
