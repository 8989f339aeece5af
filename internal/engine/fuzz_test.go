package engine

import (
	"testing"
)

// FuzzApply applies arbitrary action sequences, legal or not: Apply must
// never panic, must leave the game untouched when it refuses, and the game
// must keep its invariants.
func FuzzApply(f *testing.F) {
	f.Add(uint64(1), byte(3), []byte{0, 1, 2, 3, 4, 5})
	f.Add(uint64(9), byte(7), []byte{0x10, 0x21, 0x32, 0x00, 0xff})
	f.Fuzz(func(t *testing.T, seed uint64, shape byte, script []byte) {
		o := Options{
			Players:     MinPlayers + int(shape%5),
			Rounds:      1 + int(shape>>5%3),
			Variant:     Variants[int(shape>>3)%len(Variants)],
			OpenTokens:  shape&0x40 != 0,
			HiddenTiger: shape&0x80 != 0,
		}
		g, err := New(o, seed)
		if err != nil {
			return // an invalid combination is an error, which is the point
		}
		kinds := []ActionKind{Take, Pass, LayTiger, "bogus"}
		for i := 0; i+1 < len(script); i += 2 {
			a := Action{Seat: int(int8(script[i])) % 9, Kind: kinds[script[i+1]%4]}
			if script[i+1]&0x80 != 0 {
				a.Seat = g.Turn() // steer towards legal play so games progress
			}
			before := g.Clone()
			if err := g.Apply(a); err != nil {
				if !sameGame(before, g) {
					t.Fatalf("refused %+v (%v) but changed the game", a, err)
				}
				continue
			}
			if err := checkInvariants(g); err != nil {
				t.Fatal(err)
			}
		}
	})
}
