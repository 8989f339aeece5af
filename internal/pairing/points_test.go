package pairing

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPointsString(t *testing.T) {
	tests := []struct {
		name string
		p    Points
		want string
	}{
		{"Zero", 0, "0"},
		{"HalfAlone", 1, "½"},
		{"Whole", 2, "1"},
		{"WholeAndHalf", 5, "2½"},       // 5 halves = 2 + ½
		{"WholeEven", 6, "3"},           // 6 halves = 3
		{"LargeWithHalf", 13, "6½"},     // 13 halves = 6 + ½
		{"NegativeHalf", -1, "-½"},      // never a tournament score, but readable
		{"NegativeWithHalf", -5, "-2½"}, // -5 halves = -(2 + ½)
		{"NegativeWhole", -4, "-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Errorf("Points(%d).String() = %q, want %q", int(tt.p), got, tt.want)
			}
		})
	}
}

func TestPlacePoints(t *testing.T) {
	// All values are in half points. At a table of n the positions are
	// worth n-1 … 0 points, that is 2(n-1) … 0 halves.
	tests := []struct {
		name     string
		placings []int
		want     []Points
	}{
		// 3 players: positions worth 2, 1, 0 points = 4, 2, 0 halves.
		{"ThreeAllDifferent", []int{1, 2, 3}, []Points{4, 2, 0}},
		// Same result, seats in another order: the seat placed 1 gets 4.
		{"ThreeSeatsInAnyOrder", []int{2, 3, 1}, []Points{2, 0, 4}},
		// Two share first: they cover 2 + 1 = 3 points, 1½ each = 3 halves.
		{"ThreeTwoTiedFirst", []int{1, 1, 2}, []Points{3, 3, 0}},
		// Two share last: they cover 1 + 0 = 1 point, ½ each = 1 half.
		{"ThreeTwoTiedLast", []int{1, 2, 2}, []Points{4, 1, 1}},
		// All three tied: (2 + 1 + 0) / 3 = 1 point = 2 halves each.
		{"ThreeAllTied", []int{1, 1, 1}, []Points{2, 2, 2}},
		// 4 players, worth 3, 2, 1, 0. First alone: 3 = 6 halves; the other
		// three share (2 + 1 + 0) / 3 = 1 point = 2 halves.
		{"FourThreeTiedBehind", []int{1, 2, 2, 2}, []Points{6, 2, 2, 2}},
		// Two pairs: (3 + 2) / 2 = 2½ = 5 halves; (1 + 0) / 2 = ½ = 1 half.
		{"FourTwoPairs", []int{1, 1, 2, 2}, []Points{5, 5, 1, 1}},
		// All four tied: (3 + 2 + 1 + 0) / 4 = 1½ = 3 halves.
		{"FourAllTied", []int{1, 1, 1, 1}, []Points{3, 3, 3, 3}},
		// 5 players, worth 4, 3, 2, 1, 0: seat 0 placed 3rd gets 2 = 4
		// halves, seat 1 1st gets 4 = 8, seat 2 5th 0, seat 3 2nd 3 = 6,
		// seat 4 4th 1 = 2.
		{"FiveAllDifferent", []int{3, 1, 5, 2, 4}, []Points{4, 8, 0, 6, 2}},
		// A tie in the middle: 4 = 8 halves; (3 + 2) / 2 = 2½ = 5; 1 = 2;
		// 0.
		{"FiveTieInTheMiddle", []int{1, 2, 2, 3, 4}, []Points{8, 5, 5, 2, 0}},
		// 6 players, worth 5 … 0; the two who abandoned share the worst
		// placing (engine.PlacingsAbandoned gives them worst+1): 5 = 10
		// halves; (4 + 3) / 2 = 3½ = 7; 2 = 4; (1 + 0) / 2 = ½ = 1.
		// Total 10 + 7 + 7 + 4 + 1 + 1 = 30 halves = 15 = 5+4+3+2+1+0.
		{"SixTwoAbandoned", []int{1, 2, 2, 3, 4, 4}, []Points{10, 7, 7, 4, 1, 1}},
		// 7 all tied: (6 + 5 + … + 0) / 7 = 21 / 7 = 3 points = 6 halves.
		{"SevenAllTied", []int{1, 1, 1, 1, 1, 1, 1}, []Points{6, 6, 6, 6, 6, 6, 6}},
		// 7 players, worth 6 … 0: three share (6 + 5 + 4) / 3 = 5 = 10
		// halves; 4th alone 3 = 6; two share (2 + 1) / 2 = 1½ = 3; last 0.
		{"SevenMixed", []int{1, 1, 1, 2, 3, 3, 4}, []Points{10, 10, 10, 6, 3, 3, 0}},
		// Placings 1, 1, 3 (numbered with a gap) say the same as 1, 1, 2.
		{"GapsInNumbering", []int{1, 1, 3}, []Points{3, 3, 0}},
		// Every player abandoned: all share the one placing, like a tie.
		{"AllAbandoned", []int{4, 4, 4, 4}, []Points{3, 3, 3, 3}},
		{"OneSeat", []int{1}, []Points{0}},
		{"NoSeats", nil, []Points{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.placings)
			got := PlacePoints(tt.placings)
			if !slices.Equal(got, tt.want) {
				t.Errorf("PlacePoints(%v) = %v, want %v", tt.placings, got, tt.want)
			}
			if !slices.Equal(in, tt.placings) {
				t.Errorf("PlacePoints changed its input to %v", tt.placings)
			}
		})
	}
}

// TestPlacePointsTableTotal checks, for every possible result at tables of
// 3 to 6 and many at 7, that a table always hands out n(n-1) halves
// (n-1 + … + 0 points, twice), and that a better placing never earns less.
func TestPlacePointsTableTotal(t *testing.T) {
	check := func(pl []int) {
		t.Helper()
		n := len(pl)
		got := PlacePoints(pl)
		var sum Points
		for i, p := range got {
			sum += p
			for j := range pl {
				if pl[i] < pl[j] && p < got[j] {
					t.Fatalf("PlacePoints(%v) = %v: seat %d placed better than seat %d but earns less", pl, got, i, j)
				}
			}
		}
		if want := Points(n * (n - 1)); sum != want {
			t.Fatalf("PlacePoints(%v) = %v adds up to %d halves, want %d", pl, got, sum, want)
		}
	}
	for n := 3; n <= 6; n++ {
		pl := make([]int, n)
		var all func(i int)
		all = func(i int) {
			if i == n {
				check(pl)
				return
			}
			for p := 1; p <= n; p++ {
				pl[i] = p
				all(i + 1)
			}
		}
		all(0)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	pl := make([]int, 7)
	for range 20000 {
		for i := range pl {
			pl[i] = 1 + rng.IntN(7)
		}
		check(pl)
	}
}

func TestWon(t *testing.T) {
	tests := []struct {
		name     string
		placings []int
		seat     int
		want     bool
	}{
		{"AloneFirst", []int{2, 1, 3}, 1, true},
		{"Second", []int{2, 1, 3}, 0, false},
		{"SharedFirstCounts", []int{1, 1, 2}, 1, true},
		{"BehindASharedFirst", []int{1, 1, 2}, 2, false},
		{"AllTiedAllWin", []int{1, 1, 1}, 2, true},
		{"AbandonedIsLast", []int{1, 2, 3, 3}, 3, false},
		{"SeatBelowTable", []int{1, 2, 3}, -1, false},
		{"SeatAboveTable", []int{1, 2, 3}, 3, false},
		{"NoSeats", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Won(tt.placings, tt.seat); got != tt.want {
				t.Errorf("Won(%v, %d) = %v, want %v", tt.placings, tt.seat, got, tt.want)
			}
		})
	}
}

func TestByePoints(t *testing.T) {
	// The mean of a table's points: n(n-1) halves shared by n players is
	// n-1 halves. Size 3: 1 point; 4: 1½; 5: 2; 6: 2½; 7: 3.
	tests := []struct {
		size int
		want Points
	}{{3, 2}, {4, 3}, {5, 4}, {6, 5}, {7, 6}}
	for _, tt := range tests {
		if got := ByePoints(tt.size); got != tt.want {
			t.Errorf("ByePoints(%d) = %v, want %v", tt.size, got, tt.want)
		}
		// The same as an all-tied table, where everyone gets the mean.
		if got, tied := ByePoints(tt.size), PlacePoints(make([]int, tt.size))[0]; got != tied {
			t.Errorf("ByePoints(%d) = %v, but an all-tied table gives %v", tt.size, got, tied)
		}
	}
}
