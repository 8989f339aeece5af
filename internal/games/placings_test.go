package games

import (
	"slices"
	"testing"

	"nothanks/internal/db"
)

func seatRows(abandoned ...bool) []db.Seat {
	out := make([]db.Seat, len(abandoned))
	for i, a := range abandoned {
		n := i
		out[i] = db.Seat{Seat: &n, Abandoned: a}
	}
	return out
}

func TestPlacings(t *testing.T) {
	tests := []struct {
		name   string
		totals []int
		seats  []db.Seat
		want   []int
	}{
		{"NobodyLeft", []int{30, 10, 20}, seatRows(false, false, false), []int{3, 1, 2}},
		{"TiesShare", []int{21, 21, 30}, seatRows(false, false, false), []int{1, 1, 2}},
		{"AbandonedPlacesLastDespiteBestScore", []int{-5, 10, 20}, seatRows(true, false, false), []int{3, 1, 2}},
		{"TwoAbandonedShareLast", []int{-5, 10, -9}, seatRows(true, false, true), []int{2, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Placings(tt.totals, tt.seats); !slices.Equal(got, tt.want) {
				t.Errorf("Placings(%v) = %v, want %v", tt.totals, got, tt.want)
			}
		})
	}
}

func TestCreateInputValidate(t *testing.T) {
	good := DefaultCreateInput()
	if f := good.Validate(); len(f) != 0 {
		t.Fatalf("default input invalid: %v", f)
	}
	bad := good
	bad.Variant, bad.Seats = "tactical", 7
	if f := bad.Validate(); f["variant"] == "" {
		t.Errorf("tactical with 7 seats: %v", f)
	}
	bad = good
	bad.Pace, bad.TurnSeconds = Correspondence, 86400
	if f := bad.Validate(); len(f) != 0 {
		t.Errorf("a one-day correspondence game: %v", f)
	}
}
