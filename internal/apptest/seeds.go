package apptest

import (
	"testing"

	"nothanks/internal/engine"
)

// SeedTurningUp finds an engine seed whose deal for a game of these
// options turns up card first before anything else: the deal is the
// fixture; what follows from it is worked out by hand.
func SeedTurningUp(t testing.TB, o engine.Options, first int) int64 {
	t.Helper()
	for seed := int64(1); seed < 1_000_000; seed++ {
		eg, err := engine.NewFromSetup(o, engine.SetupFromSeed(o, uint64(seed)))
		if err != nil {
			t.Fatal(err)
		}
		if eg.View(-1).ActiveCard == first {
			return seed
		}
	}
	t.Fatalf("no seed turns up %d first", first)
	return 0
}
