package games

import (
	"testing"
)

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
