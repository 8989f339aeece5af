package pairing

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRankArena(t *testing.T) {
	tests := []struct {
		name    string
		entries []ArenaEntry
		want    []Standing
	}{
		{
			// 4 leads on points. 3, 2, 1, 5 and 6 all have 20: 3 has the
			// most wins (4); 2 has 3 wins in 5 games, fewer than the 6 of
			// 1, 5 and 6, so 2 is next. 1, 5 and 6 are equal on points,
			// wins and games and share rank 4; within it 5 and 6 (1600)
			// come before 1 (1500), and 5 before 6 by ID. 7 has played no
			// game: rank 7, after the six ahead of it. Being on fire
			// changes nothing.
			name: "TieBreaksInTurn",
			entries: []ArenaEntry{
				{ID: 1, Total: 20, Games: 6, Wins: 3, Rating: 1500},
				{ID: 2, Total: 20, Games: 5, Wins: 3, Rating: 1400},
				{ID: 3, Total: 20, Games: 7, Wins: 4, Rating: 1300},
				{ID: 4, Total: 24, Games: 8, Wins: 1, Rating: 1200},
				{ID: 5, Total: 20, Games: 6, Wins: 3, Rating: 1600, OnFire: true},
				{ID: 6, Total: 20, Games: 6, Wins: 3, Rating: 1600},
				{ID: 7, Total: 0, Games: 0, Wins: 0, Rating: 2000},
			},
			want: []Standing{{4, 1}, {3, 2}, {2, 3}, {5, 4}, {6, 4}, {1, 4}, {7, 7}},
		},
		{
			// Nobody has played: everyone shares rank 1, by rating then ID.
			name: "AllTied",
			entries: []ArenaEntry{
				{ID: 9, Rating: 1500}, {ID: 3, Rating: 1500}, {ID: 5, Rating: 1700},
			},
			want: []Standing{{5, 1}, {3, 1}, {9, 1}},
		},
		{name: "Empty", entries: nil, want: []Standing{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.entries)
			got := RankArena(tt.entries)
			if !slices.Equal(got, tt.want) {
				t.Errorf("RankArena = %v, want %v", got, tt.want)
			}
			if !slices.Equal(in, tt.entries) {
				t.Errorf("RankArena changed its input")
			}
			rng := rand.New(rand.NewPCG(5, 5))
			shuffled := slices.Clone(tt.entries)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := RankArena(shuffled); !slices.Equal(got, tt.want) {
				t.Errorf("RankArena of the shuffled entries = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRankSwiss(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		entries  []SwissEntry
		want     []Standing
		buchholz map[int64]Points
	}{
		{
			// Four players at tables of three, two rounds, all in halves.
			// Round 1: 1, 2, 3 play, placed 1st, 2nd, 3rd: 4, 2, 0; 4 has
			// a bye worth 2. Round 2: 1, 3, 4 play; 4 wins (4), 3 second
			// (2), 1 last (0); 2 has the bye (2). Scores: 1: 4, 2: 4, 3: 2,
			// 4: 6.
			// Buchholz, each bye adding twice the player's own score (a
			// game at a table of three meets two opponents):
			//   1: 2+3 and 3+4 = 4+2+2+6 = 14
			//   2: 1+3 = 4+2, and a bye 2×4 = 14
			//   3: 1+2 and 1+4 = 4+4+4+6 = 18
			//   4: 1+3 = 4+2, and a bye 2×6 = 18
			// 4 leads on points. 1 and 2 are level on points and Buchholz
			// (had the bye been counted once, 2 would have 10 and be
			// behind for sitting out); 1 won a game, 2 none, so 1 is 2nd
			// and 2 is 3rd. 3 is last.
			name: "ByeCountsAsAGameAgainstEquals",
			size: 3,
			entries: []SwissEntry{
				{ID: 1, Score: 4, Opponents: []int64{2, 3, 3, 4}, Wins: 1, Rating: 1500},
				{ID: 2, Score: 4, Opponents: []int64{1, 3}, Byes: 1, Rating: 1900},
				{ID: 3, Score: 2, Opponents: []int64{1, 2, 1, 4}, Rating: 1500},
				{ID: 4, Score: 6, Opponents: []int64{1, 3}, Byes: 1, Wins: 1, Rating: 1500},
			},
			want:     []Standing{{4, 1}, {1, 2}, {2, 3}, {3, 4}},
			buchholz: map[int64]Points{1: 14, 2: 14, 3: 18, 4: 18},
		},
		{
			// 10 and 11 both have 4 and met only 12 (score 2): Buchholz 2
			// each, one win each, so they share rank 1; 11 is listed first
			// for the higher rating. 12 met both: Buchholz 8, rank 3. 13
			// and 14 are level on everything including rating: rank 4,
			// 13 first by ID. 14's opponent 99 is not in the list and
			// counts nothing.
			name: "SharedRanks",
			size: 3,
			entries: []SwissEntry{
				{ID: 10, Score: 4, Opponents: []int64{12}, Wins: 1, Rating: 1500},
				{ID: 11, Score: 4, Opponents: []int64{12}, Wins: 1, Rating: 1600},
				{ID: 12, Score: 2, Opponents: []int64{10, 11}, Rating: 1700},
				{ID: 14, Score: 0, Opponents: []int64{99}, Rating: 1500},
				{ID: 13, Score: 0, Opponents: nil, Rating: 1500},
			},
			want:     []Standing{{11, 1}, {10, 1}, {12, 3}, {13, 4}, {14, 4}},
			buchholz: map[int64]Points{10: 2, 11: 2, 12: 8, 13: 0, 14: 0},
		},
		{
			// Tables of four, so a bye stands for three opponents. 21 met
			// 22, 23 and 24 once (3 + 3 + 0 = 6) and had a bye with 3
			// points of its own, 3×3 = 9 more: 15. 22 likewise: 6 + 9 =
			// 15. 23 had no bye: 3 + 3 + 0 = 6. 24: 3 + 3 + 3 = 9. 21 and
			// 22 are level on points, Buchholz and wins and share rank 1,
			// 22 first by rating; 23 is 3rd on Buchholz, 24 4th on points.
			name: "TablesOfFour",
			size: 4,
			entries: []SwissEntry{
				{ID: 21, Score: 3, Opponents: []int64{22, 23, 24}, Byes: 1, Rating: 1500},
				{ID: 22, Score: 3, Opponents: []int64{21, 23, 24}, Byes: 1, Rating: 1550},
				{ID: 23, Score: 3, Opponents: []int64{21, 22, 24}, Rating: 1500},
				{ID: 24, Score: 0, Opponents: []int64{21, 22, 23}, Rating: 1500},
			},
			want:     []Standing{{22, 1}, {21, 1}, {23, 3}, {24, 4}},
			buchholz: map[int64]Points{21: 15, 22: 15, 23: 6, 24: 9},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := cloneSwissEntries(tt.entries)
			got, buchholz := RankSwiss(tt.entries, tt.size)
			if !slices.Equal(got, tt.want) {
				t.Errorf("order = %v, want %v", got, tt.want)
			}
			if !maps.Equal(buchholz, tt.buchholz) {
				t.Errorf("buchholz = %v, want %v", buchholz, tt.buchholz)
			}
			if !slices.EqualFunc(in, tt.entries, equalSwissEntry) {
				t.Errorf("RankSwiss changed its input")
			}
		})
	}
}

func cloneSwissEntries(es []SwissEntry) []SwissEntry {
	out := slices.Clone(es)
	for i := range out {
		out[i].Opponents = slices.Clone(es[i].Opponents)
	}
	return out
}

func equalSwissEntry(a, b SwissEntry) bool {
	return a.ID == b.ID && a.Score == b.Score && slices.Equal(a.Opponents, b.Opponents) &&
		a.Byes == b.Byes && a.Wins == b.Wins && a.Rating == b.Rating
}

func BenchmarkRankSwiss1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 8))
	entries := make([]SwissEntry, 1000)
	for i := range entries {
		e := SwissEntry{ID: int64(i + 1), Score: Points(rng.IntN(40)), Wins: rng.IntN(4), Rating: float64(1000 + rng.IntN(1200))}
		for range 7 * 3 { // seven rounds at tables of four
			e.Opponents = append(e.Opponents, int64(1+rng.IntN(1000)))
		}
		entries[i] = e
	}
	b.ReportAllocs()
	for b.Loop() {
		RankSwiss(entries, 4)
	}
}
