package fairplay

import (
	"math"

	"nothanks/internal/analysis"
	"nothanks/internal/rating"
)

// SeatFacts is one person's seat of a finished rated game as the signals
// read it: the rating and rated games they brought to it and their place.
type SeatFacts struct {
	UserID int64
	Seat   int
	Before float64
	Games  int
	Place  int
}

// GameFacts is what the signals need of a finished rated game: its
// people and the analysis of their decisions (nil when it has none).
type GameFacts struct {
	GameID int64
	// Players is how many seats the table had (rating is shared out over
	// all of them).
	Players   int
	Seats     []SeatFacts
	Decisions []analysis.Decision
}

// PairGame is one pair's figures from one game they played together. A
// is the account with the lower id.
type PairGame struct {
	A, B   int64
	GameID int64
	// FromRest is the rating points the two took from the rest of the
	// table (their pairwise changes against the others, summed);
	// FromRestVar its variance had every result been drawn by the
	// expected scores.
	FromRest, FromRestVar float64
	// BFromA is the points B took from A (B's pairwise change against
	// A), AFromB the other way.
	BFromA, AFromB float64
	// Feed is what A's decisions handed B beyond A's fair share of
	// mistakes (see Feeding), FeedSq its sum of squares, Feeds how many
	// of A's decisions lost beyond noise and handed B at least an
	// inaccuracy's worth of a win, Judged how many of A's decisions the
	// analysis judged. FeedBA and the rest are the same from B to A.
	FeedAB, FeedABSq float64
	FeedsAB, JudgedA int
	FeedBA, FeedBASq float64
	FeedsBA, JudgedB int
}

// Pairs is every pair of people at a finished rated game with their
// figures from it.
func Pairs(g GameFacts) []PairGame {
	n := g.Players
	if n < 2 {
		return nil
	}
	players := make([]rating.Player, len(g.Seats))
	for i, s := range g.Seats {
		players[i] = rating.Player{Rating: s.Before, Games: s.Games, Placing: s.Place}
	}
	var out []PairGame
	for i := range g.Seats {
		for j := range g.Seats {
			a, b := g.Seats[i], g.Seats[j]
			if a.UserID >= b.UserID {
				continue
			}
			p := PairGame{A: a.UserID, B: b.UserID, GameID: g.GameID}
			p.BFromA = rating.Pairwise(players[j], players[i], n)
			p.AFromB = rating.Pairwise(players[i], players[j], n)
			for k := range g.Seats {
				if k == i || k == j {
					continue
				}
				for _, x := range []int{i, j} {
					p.FromRest += rating.Pairwise(players[x], players[k], n)
					e := rating.Expected(players[x].Rating, players[k].Rating)
					w := rating.K(players[x].Games) / float64(n-1)
					p.FromRestVar += w * w * e * (1 - e)
				}
			}
			p.FeedAB, p.FeedABSq, p.FeedsAB, p.JudgedA = Feeding(g.Decisions, a.Seat, b.Seat, n)
			p.FeedBA, p.FeedBASq, p.FeedsBA, p.JudgedB = Feeding(g.Decisions, b.Seat, a.Seat, n)
			out = append(out, p)
		}
	}
	return out
}

// Feeding sums what the decisions of seat from handed seat to at a table
// of n: for each judged decision, the share of a win its chosen action
// handed to (analysis.Decision.Gift) less a fair share of the decision's
// loss, loss/(n−1), which is what any one of the others gains on
// average from an honest mistake. An honest player's excess scatters
// round zero; a feeder's piles up on the one they feed. It returns the
// sum, the sum of squares, how many decisions handed to at least
// analysis.Inaccuracy, and how many decisions were judged.
func Feeding(ds []analysis.Decision, from, to, n int) (sum, sq float64, feeds, judged int) {
	for _, d := range ds {
		if d.Seat != from {
			continue
		}
		judged++
		if d.Loss <= 0 {
			continue
		}
		gift := d.Gift(to)
		x := gift - d.Loss/float64(n-1)
		sum += x
		sq += x * x
		if gift >= analysis.Inaccuracy {
			feeds++
		}
	}
	return sum, sq, feeds, judged
}

// Figures are a pair's figures over every rated game they played
// together, with how often chance alone would have seated them together.
type Figures struct {
	Games int
	// Expected is how many of those games chance would have given them:
	// the sum, over the times rated tables were formed with both of them
	// among those waiting, of the chance that two of those waiting share
	// a table. Zero when no seating was recorded.
	Expected              float64
	FromRest, FromRestVar float64
	BFromA, AFromB        float64
	// FeedAB sums the games' feeding from A to B and FeedABSq the squares
	// of those sums, game by game: the decisions of one game lean together
	// (a seat's mistakes follow one plan, and the next seat gains from
	// every pass), so a z by decision came out with a spread of 1.8 for
	// honest pairs in the simulation, by game 1.15 (docs/fair-play.md).
	FeedAB, FeedABSq float64
	FeedsAB, JudgedA int
	FeedBA, FeedBASq float64
	FeedsBA, JudgedB int
	// Device and Network: the two accounts were seen on one device, or
	// from one network, in the retention window (docs/fair-play.md).
	Device, Network bool
}

// Add adds one game's figures.
func (f *Figures) Add(p PairGame) {
	f.Games++
	f.FromRest += p.FromRest
	f.FromRestVar += p.FromRestVar
	f.BFromA += p.BFromA
	f.AFromB += p.AFromB
	f.FeedAB += p.FeedAB
	f.FeedABSq += p.FeedAB * p.FeedAB // by game: see Figures
	f.FeedsAB += p.FeedsAB
	f.JudgedA += p.JudgedA
	f.FeedBA += p.FeedBA
	f.FeedBASq += p.FeedBA * p.FeedBA
	f.FeedsBA += p.FeedsBA
	f.JudgedB += p.JudgedB
}

// The score's parts and what opens a case (docs/fair-play.md gives the
// formula and how the threshold was measured).
const (
	// MinGames is how many rated games together a pair needs before its
	// score can open a case.
	MinGames = 5
	// Threshold is the score that opens a case: in the 10,000-game
	// simulation no honest pair reached it (the highest 5.37 of 581 with
	// 20+ games together) and every planted pair did within 30 games
	// (the lowest 5.99).
	Threshold = 5.5
	// MeetCap caps the meeting part: meeting often is never enough alone.
	MeetCap = 4.0
	// FlowWeight weighs the points taken from the rest of the table.
	FlowWeight = 0.5
	// DeviceWeight and NetworkWeight are what a shared device or network
	// adds to a pair that also played together.
	DeviceWeight  = 2.0
	NetworkWeight = 1.0
)

// Score is a pair's score, part by part.
type Score struct {
	// Meet is −log10 of the chance of meeting at least Games times when
	// chance gives Expected (capped at MeetCap); Flow the z-score of the
	// points taken from the rest; Feed the larger of the two feeding
	// z-scores; Links what shared devices and networks add.
	Meet, Flow, Feed, Links float64
	Total                   float64
}

// Score scores the figures: Meet + Feed + FlowWeight × Flow + Links,
// each part at least 0.
func (f Figures) Score() Score {
	var s Score
	if f.Expected > 0 {
		s.Meet = min(MeetCap, -math.Log10(PoissonTail(f.Games, f.Expected)))
	}
	if f.FromRestVar > 0 {
		s.Flow = max(0, f.FromRest/math.Sqrt(f.FromRestVar))
	}
	s.Feed = max(0, zOf(f.FeedAB, f.FeedABSq), zOf(f.FeedBA, f.FeedBASq))
	if f.Device {
		s.Links += DeviceWeight
	}
	if f.Network {
		s.Links += NetworkWeight
	}
	s.Total = round2(s.Meet + s.Feed + FlowWeight*s.Flow + s.Links)
	s.Meet, s.Flow, s.Feed = round2(s.Meet), round2(s.Flow), round2(s.Feed)
	return s
}

// Opens reports whether the figures open a case.
func (f Figures) Opens() bool {
	return f.Games >= MinGames && f.Score().Total >= Threshold
}

// zOf is the self-normalised sum Σx / √Σx², which is about a standard
// normal for values scattered round zero and grows as √n for values of
// one sign.
func zOf(sum, sq float64) float64 {
	if sq <= 0 {
		return 0
	}
	return sum / math.Sqrt(sq)
}

// PoissonTail is the chance of at least k events when lambda are
// expected.
func PoissonTail(k int, lambda float64) float64 {
	if k <= 0 {
		return 1
	}
	if lambda <= 0 {
		return 0
	}
	// Sum the terms from k up in logs; they shrink once i > lambda.
	logTerm := float64(k)*math.Log(lambda) - lambda - lgamma(float64(k)+1)
	sum := 0.0
	for i := k; i < k+10000; i++ {
		if i > k {
			logTerm += math.Log(lambda) - math.Log(float64(i))
		}
		t := math.Exp(logTerm)
		sum += t
		if float64(i) > lambda && t < sum*1e-12 {
			break
		}
	}
	return min(1, sum)
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
