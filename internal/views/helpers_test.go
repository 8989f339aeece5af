package views

import "testing"

func TestOrdinalAndCount(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 101: "101st", 111: "111th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Count(1, "token"); got != "1 token" {
		t.Errorf("Count(1) = %q", got)
	}
	if got := Count(0, "card"); got != "0 cards" {
		t.Errorf("Count(0) = %q", got)
	}
}
