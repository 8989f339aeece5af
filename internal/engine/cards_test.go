package engine

import (
	"slices"
	"testing"
)

func TestCardPoints(t *testing.T) {
	tests := []struct {
		name  string
		cards []int
		want  int
	}{
		{"Empty", nil, 0},
		{"SingleCard", []int{35}, 35},
		{"EnglishSeedExample", []int{8, 13, 14, 15, 17}, 38},
		{"ItalianSeedBeforeThe13", []int{12, 14}, 26},
		{"ItalianSeedRun", []int{12, 13, 14}, 12},
		{"ItalianSeedFullHand", []int{12, 13, 14, 21, 22, 28}, 12 + 21 + 28},
		{"SpanishSeedAdding13ExtendsRun", []int{10, 11, 12, 13}, 10},
		{"SpanishSeedGapIsNoRun", []int{10, 12}, 22},
		{"UnsortedInput", []int{15, 3, 14, 4, 35, 13}, 3 + 13 + 35},
		{"WholeDeckIsOneRun", seq(3, 35), 3},
		{"RunOfTwo", []int{34, 35}, 34},
		{"RepeatedValueCountsOnce", []int{20, 20, 21}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.cards)
			if got := CardPoints(in); got != tt.want {
				t.Errorf("CardPoints(%v) = %d, want %d", tt.cards, got, tt.want)
			}
			if !slices.Equal(in, tt.cards) {
				t.Errorf("CardPoints modified its argument: %v, was %v", in, tt.cards)
			}
		})
	}
}

func TestScoreIsCardPointsMinusTokens(t *testing.T) {
	// The English seed: 38 card points and 13 tokens left score 25.
	got, want := CardPoints([]int{8, 13, 14, 15, 17})-13, 25
	if got != want {
		t.Errorf("score = %d, want %d", got, want)
	}
	// The Italian seed: 12, 13, 14, 21, 22, 28 with 7 tokens is 12+21+28-7.
	got, want = CardPoints([]int{12, 13, 14, 21, 22, 28})-7, 54
	if got != want {
		t.Errorf("score = %d, want %d", got, want)
	}
}

func TestRuns(t *testing.T) {
	got := Runs([]int{17, 8, 14, 13, 15})
	want := [][]int{{8}, {13, 14, 15}, {17}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Runs = %v, want %v", got, want)
	}
	if Runs(nil) != nil {
		t.Errorf("Runs(nil) = %v, want nil", Runs(nil))
	}
}

func TestCardSetAgreesWithCardPoints(t *testing.T) {
	for mask := uint64(0); mask < 1<<12; mask++ {
		var cards []int
		for b := range 12 {
			if mask&(1<<b) != 0 {
				cards = append(cards, MinCard+b*2%33)
			}
		}
		set := SetOf(cards...)
		if got, want := set.Points(), CardPoints(cards); got != want {
			t.Fatalf("SetOf(%v).Points() = %d, CardPoints = %d", cards, got, want)
		}
		if got, want := set.Cards(), Runs(cards); len(got) != len(slices.Concat(want...)) {
			t.Fatalf("SetOf(%v).Cards() = %v", cards, got)
		}
	}
}

func TestCardSetCost(t *testing.T) {
	set := SetOf(10, 12)
	if got, want := set.Cost(11), -12; got != want {
		t.Errorf("cost of joining 10 and 12 with 11 = %d, want %d", got, want)
	}
	if got, want := set.Cost(13), 0; got != want {
		t.Errorf("cost of 13 after 12 = %d, want %d", got, want)
	}
	if got, want := set.Cost(9), -1; got != want {
		t.Errorf("cost of 9 before 10 = %d, want %d", got, want)
	}
}

func seq(lo, hi int) []int {
	var out []int
	for c := lo; c <= hi; c++ {
		out = append(out, c)
	}
	return out
}
