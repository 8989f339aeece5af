package engine

import (
	"errors"
	"testing"
)

func TestTigerCard(t *testing.T) {
	tests := []struct {
		name  string
		cards []int
		want  int
	}{
		{"NoCardsNothingToSave", nil, 0},
		{"FillsTheGapWorthMost", []int{10, 12, 20, 22}, 21},
		{"ExtendsARunDownward", []int{20}, 19},
		{"LowestCardCannotGoLower", []int{3}, 0},
		{"JoinsRunsOfSeveralCards", []int{5, 6, 7, 9, 10}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TigerCard(SetOf(tt.cards...)); got != tt.want {
				t.Errorf("TigerCard(%v) = %d, want %d", tt.cards, got, tt.want)
			}
		})
	}
}

func TestHiddenTigerVariant(t *testing.T) {
	o := Options{Players: 3, Rounds: 2, Variant: Standard, HiddenTiger: true}
	g := mustGame(t, o, orderedSetup(2, 0))
	// Seat 0 lays the Tiger, then decides again on the same card.
	mustApply(t, g, Action{Seat: 0, Kind: LayTiger})
	if g.Turn() != 0 || g.ActiveCard() != 3 {
		t.Fatalf("after the Tiger: turn %d, active %d; want seat 0 still on card 3", g.Turn(), g.ActiveCard())
	}
	if err := g.Apply(Action{Seat: 0, Kind: LayTiger}); !errors.Is(err, ErrTigerPlayed) {
		t.Fatalf("a second Tiger: %v, want %v", err, ErrTigerPlayed)
	}
	// Seat 0 takes 3 and 5 (skipping 4), so the Tiger stands for 4.
	mustApply(t, g, Action{Seat: 0, Kind: Take}, Action{Seat: 0, Kind: Pass}, Action{Seat: 1, Kind: Take}, Action{Seat: 1, Kind: Pass}, Action{Seat: 2, Kind: Pass}, Action{Seat: 0, Kind: Take})
	for range DeckCards - 3 {
		mustApply(t, g, Action{Seat: g.Turn(), Kind: Take})
	}
	r := g.Results()[0]
	if got, want := r.Tiger[0], 4; got != want {
		t.Errorf("seat 0's Tiger stood for %d, want %d", got, want)
	}
	if got, want := r.CardPoints[0], 3; got != want {
		t.Errorf("seat 0 card points = %d, want %d (3, Tiger as 4, 5)", got, want)
	}
	if !g.View(Spectator).Seats[1].TigerHeld {
		t.Error("the Tiger is not dealt anew in round 2")
	}
}
