package pairing

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestArenaScore(t *testing.T) {
	// At tables of four a win alone is 3 points = 6 halves and second
	// place 2 points = 4 halves; a shared win at three is 1½ = 3 halves.
	w6 := ArenaGame{Points: 6, Won: true}
	l4 := ArenaGame{Points: 4}
	l0 := ArenaGame{Points: 0}
	tests := []struct {
		name   string
		games  []ArenaGame
		total  Points
		each   []Points
		onFire bool
	}{
		{"NoGames", nil, 0, []Points{}, false},
		{"OneWin", []ArenaGame{w6}, 6, []Points{6}, false},
		// Two wins count normally and light the streak for the next game.
		{"TwoWinsPutOnFire", []ArenaGame{w6, w6}, 12, []Points{6, 6}, true},
		// The example of the rules: W W W L W. The 3rd follows two wins:
		// 6×2 = 12. The 4th follows wins 2 and 3, so its 4 halves are
		// doubled to 8 although it is lost; it ends the streak. The 5th
		// follows W L: normal 6. Total 6+6+12+8+6 = 38 halves = 19 points.
		// Not on fire: the last two are L W.
		{"StreakThenLossThenWin", []ArenaGame{w6, w6, w6, l4, w6}, 38, []Points{6, 6, 12, 8, 6}, false},
		// A last place on fire doubles nothing: 6 + 6 + 0.
		{"LossOnFireScoresNothing", []ArenaGame{w6, w6, l0}, 12, []Points{6, 6, 0}, false},
		// Four wins: the 3rd and 4th doubled, 6+6+12+12 = 36; still on fire.
		{"FourWins", []ArenaGame{w6, w6, w6, w6}, 36, []Points{6, 6, 12, 12}, true},
		// W L W W: the 4th follows L W, so it is normal; 6+0+6+6 = 18, and
		// now the player is on fire.
		{"WinsAfterALoss", []ArenaGame{w6, l0, w6, w6}, 18, []Points{6, 0, 6, 6}, true},
		// Shared wins count as wins: two shared firsts at a table of three
		// (3 halves each), then a shared last (½ = 1 half) doubled to 2,
		// then a shared first again, normal as it follows W L: 3+3+2+3 =
		// 11 halves = 5½ points.
		{"SharedWinsCount", []ArenaGame{{3, true}, {3, true}, {1, false}, {3, true}}, 11, []Points{3, 3, 2, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.games)
			total, each, onFire := ArenaScore(tt.games)
			if total != tt.total || !slices.Equal(each, tt.each) || onFire != tt.onFire {
				t.Errorf("ArenaScore = %v, %v, %v; want %v, %v, %v", total, each, onFire, tt.total, tt.each, tt.onFire)
			}
			if !slices.Equal(in, tt.games) {
				t.Errorf("ArenaScore changed its input")
			}
		})
	}
}

// waveFree is the field of TestArenaWave: (ID, points, rating, since).
//
//	ID  points  rating  since
//	1   10      1500    5
//	2    4      1600    1
//	3   10      1700    2
//	4    0      1500    3
//	5    4      1600    3
//	6    8      1400    9
//	7    0      1800    4
//	8    6      1500    7
//
// Longest waiting first (since, then ID): 2, 3, 4, 5, 7, 1, 8, 6.
// Closest first (points, rating, ID) among all eight: 3, 1, 6, 8, 2, 5, 7,
// 4 (2 and 5 are equal on points and rating; the lower ID goes first).
var waveFree = []Free{
	{1, 10, 1500, 5}, {2, 4, 1600, 1}, {3, 10, 1700, 2}, {4, 0, 1500, 3},
	{5, 4, 1600, 3}, {6, 8, 1400, 9}, {7, 0, 1800, 4}, {8, 6, 1500, 7},
}

func TestArenaWave(t *testing.T) {
	tests := []struct {
		name    string
		free    []Free
		size    int
		tables  [][]int64
		waiting []int64
	}{
		// 8 free, tables of 3: 6 seated, the two who came free last (8 at
		// 7, 6 at 9) wait, though 6 has more points than most. The six
		// seated by closeness: 3, 1, 2, 5, 7, 4.
		{"SizeThreeTwoWait", waveFree, 3, [][]int64{{3, 1, 2}, {5, 7, 4}}, []int64{8, 6}},
		// Tables of 4: all 8 seated, 3 1 6 8 | 2 5 7 4.
		{"SizeFourAllSeated", waveFree, 4, [][]int64{{3, 1, 6, 8}, {2, 5, 7, 4}}, nil},
		// Tables of 5: the first five to come free (2, 3, 4, 5, 7) play,
		// by closeness 3, 2, 5, 7, 4; 1, 8, 6 wait in that order.
		{"SizeFiveThreeWait", waveFree, 5, [][]int64{{3, 2, 5, 7, 4}}, []int64{1, 8, 6}},
		// Tables of 6: the same six as for tables of 3, in one table.
		{"SizeSixTwoWait", waveFree, 6, [][]int64{{3, 1, 2, 5, 7, 4}}, []int64{8, 6}},
		// Tables of 7: all but 6, who came free last.
		{"SizeSevenOneWaits", waveFree, 7, [][]int64{{3, 1, 8, 2, 5, 7, 4}}, []int64{6}},
		// Fewer free than a table: nobody is seated; all wait, longest
		// first.
		{"FewerThanATable", waveFree[:3], 4, nil, []int64{2, 3, 1}},
		{"NobodyFree", nil, 3, nil, nil},
		// Came free at the same moment: the lower ID counts as first, so 12
		// plays and 13 waits.
		{"SameSinceLowerIDFirst", []Free{{13, 0, 1500, 1}, {11, 0, 1500, 1}, {12, 0, 1400, 1}, {10, 0, 1500, 0}}, 3,
			[][]int64{{10, 11, 12}}, []int64{13}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.free)
			tables, waiting := ArenaWave(tt.free, tt.size)
			if !slices.EqualFunc(tables, tt.tables, slices.Equal) {
				t.Errorf("tables = %v, want %v", tables, tt.tables)
			}
			if !slices.Equal(waiting, tt.waiting) {
				t.Errorf("waiting = %v, want %v", waiting, tt.waiting)
			}
			if !slices.Equal(in, tt.free) {
				t.Errorf("ArenaWave changed its input")
			}
		})
	}
}

// TestArenaWaveNeverBehindLaterPlayers runs waves over random arrivals for
// tables of 3 to 7 and checks the promise the arena makes: tables are
// full, nobody waits while size players are free, and nobody seated came
// free after someone left waiting.
func TestArenaWaveNeverBehindLaterPlayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for size := 3; size <= 7; size++ {
		var free []Free
		next := int64(1)
		for wave := range 200 {
			for range rng.IntN(2 * size) {
				free = append(free, Free{ID: next, Points: Points(rng.IntN(20)), Rating: float64(1200 + rng.IntN(800)), Since: int64(wave)})
				next++
			}
			shuffled := slices.Clone(free)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			tables, waiting := ArenaWave(free, size)
			t2, w2 := ArenaWave(shuffled, size)
			if !slices.EqualFunc(tables, t2, slices.Equal) || !slices.Equal(waiting, w2) {
				t.Fatalf("size %d wave %d: the order of the input changed the result", size, wave)
			}
			byID := map[int64]Free{}
			for _, f := range free {
				byID[f.ID] = f
			}
			later := func(a, b Free) bool { return cmp.Or(cmp.Compare(a.Since, b.Since), cmp.Compare(a.ID, b.ID)) > 0 }
			seated := 0
			for _, table := range tables {
				if len(table) != size {
					t.Fatalf("size %d wave %d: a table of %d", size, wave, len(table))
				}
				for _, id := range table {
					seated++
					for _, w := range waiting {
						if later(byID[id], byID[w]) {
							t.Fatalf("size %d wave %d: %d seated though %d came free first and waits", size, wave, id, w)
						}
					}
				}
			}
			if seated+len(waiting) != len(free) {
				t.Fatalf("size %d wave %d: %d seated and %d waiting of %d free", size, wave, seated, len(waiting), len(free))
			}
			if len(waiting) >= size {
				t.Fatalf("size %d wave %d: %d left waiting, enough for a table", size, wave, len(waiting))
			}
			var still []Free
			for _, id := range waiting {
				still = append(still, byID[id])
			}
			free = still
		}
	}
}

func TestArenaWavePanicsOnNoSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ArenaWave with size 0 did not panic")
		}
	}()
	ArenaWave(waveFree, 0)
}

func BenchmarkArenaWave1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	free := make([]Free, 1000)
	for i := range free {
		free[i] = Free{
			ID:     int64(i + 1),
			Points: Points(rng.IntN(60)),
			Rating: float64(1000 + rng.IntN(1200)),
			Since:  int64(rng.IntN(5000)),
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		ArenaWave(free, 4)
	}
}
