package rating

import (
	"math"
	"testing"
)

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func TestExpected(t *testing.T) {
	tests := []struct {
		a, b, want float64
	}{
		{1500, 1500, 0.5},
		{1900, 1500, 1 / (1 + math.Pow(10, -1))},
		{1500, 1900, 1 / (1 + 10.0)},
	}
	for _, tt := range tests {
		if got := Expected(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Expected(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name    string
		players []Player
		check   func(t *testing.T, before []Player, after []float64)
	}{
		{
			name:    "ConservedWithEqualK",
			players: []Player{{1500, 30, 1}, {1620, 40, 2}, {1410, 25, 3}, {1550, 21, 2}},
			check: func(t *testing.T, before []Player, after []float64) {
				var was float64
				for _, p := range before {
					was += p.Rating
				}
				if d := sum(after) - was; math.Abs(d) > 1e-9 {
					t.Errorf("ratings changed in sum by %v", d)
				}
			},
		},
		{
			name:    "EqualPlayersWinnerGainsHalfK",
			players: []Player{{1500, 30, 1}, {1500, 30, 2}, {1500, 30, 3}},
			check: func(t *testing.T, _ []Player, after []float64) {
				if got, want := after[0]-1500, KEstablished/2; math.Abs(got-want) > 1e-9 {
					t.Errorf("winner gained %v, want %v", got, want)
				}
				if math.Abs(after[1]-1500) > 1e-9 {
					t.Errorf("middle of three equals moved to %v", after[1])
				}
			},
		},
		{
			name:    "SharedPlacingIsADraw",
			players: []Player{{1500, 30, 1}, {1500, 30, 1}, {1500, 30, 2}},
			check: func(t *testing.T, _ []Player, after []float64) {
				if after[0] != after[1] || after[0] <= 1500 {
					t.Errorf("joint winners: %v, %v", after[0], after[1])
				}
			},
		},
		{
			name:    "ProvisionalMovesMore",
			players: []Player{{1500, 0, 1}, {1500, 30, 2}, {1500, 30, 3}},
			check: func(t *testing.T, _ []Player, after []float64) {
				if got, want := after[0]-1500, KProvisional/2; math.Abs(got-want) > 1e-9 {
					t.Errorf("provisional winner gained %v, want %v", got, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, tt.players, Update(tt.players)) })
	}
}

func TestWinAgainstStrongerGainsMore(t *testing.T) {
	weak := Update([]Player{{1500, 30, 1}, {1500, 30, 2}, {1500, 30, 3}})[0] - 1500
	strong := Update([]Player{{1500, 30, 1}, {1800, 30, 2}, {1800, 30, 3}})[0] - 1500
	if strong <= weak {
		t.Errorf("beating 1800s gained %v, beating 1500s %v", strong, weak)
	}
}

func TestFivePlayersMoveRatingsMoreThanThree(t *testing.T) {
	moved := func(n int) float64 {
		ps := make([]Player, n)
		for i := range ps {
			ps[i] = Player{1500, 30, i + 1}
		}
		total := 0.0
		for _, r := range Update(ps) {
			total += math.Abs(r - 1500)
		}
		return total
	}
	if m5, m3 := moved(5), moved(3); m5 <= m3 {
		t.Errorf("a 5-player game moved ratings by %v in all, a 3-player one by %v", m5, m3)
	}
}

func TestK(t *testing.T) {
	if K(0) != KProvisional || K(Provisional-1) != KProvisional || K(Provisional) != KEstablished {
		t.Error("K does not drop after the provisional games")
	}
}
