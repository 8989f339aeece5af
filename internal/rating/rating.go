// Package rating is the multiplayer Elo of the ranked ladder. A game of N
// players is scored as every pair's two-player result by final placing (a
// shared placing is a draw); each player's pairwise changes are summed and
// scaled by 1/(N-1). It imports the standard library only.
package rating

import "math"

// Start is every player's first rating.
const Start = 1500.0

// Provisional is how many ranked games a rating stays provisional for.
const Provisional = 20

// K factors: larger while a rating is provisional, so it finds its level.
const (
	KProvisional = 40.0
	KEstablished = 20.0
)

// K is the factor for a player with games ranked games behind them.
func K(games int) float64 {
	if games < Provisional {
		return KProvisional
	}
	return KEstablished
}

// Expected is the expected score of a player rated a against one rated b:
// the logistic curve on a 400-point scale.
func Expected(a, b float64) float64 {
	return 1 / (1 + math.Pow(10, (b-a)/400))
}

// Player is one seat of a finished ranked game.
type Player struct {
	Rating float64
	// Games is how many ranked games the player had finished before this one.
	Games int
	// Placing is 1 for the winner; equal placings are a draw.
	Placing int
}

// Update returns each player's new rating after a game.
func Update(players []Player) []float64 {
	n := len(players)
	out := make([]float64, n)
	if n < 2 {
		for i, p := range players {
			out[i] = p.Rating
		}
		return out
	}
	for i, p := range players {
		sum := 0.0
		for j, q := range players {
			if i == j {
				continue
			}
			sum += Pairwise(p, q, n)
		}
		out[i] = p.Rating + sum
	}
	return out
}

// Pairwise is the part of p's rating change in a game of n players that
// comes from their result against q: K/(N-1) × (score − expected). A
// player's change is the sum of these over the others.
func Pairwise(p, q Player, n int) float64 {
	return K(p.Games) * (score(p.Placing, q.Placing) - Expected(p.Rating, q.Rating)) / float64(n-1)
}

// score is the pairwise result of placings a and b: 1 for the better
// (lower) placing, ½ for a shared one.
func score(a, b int) float64 {
	switch {
	case a < b:
		return 1
	case a == b:
		return 0.5
	}
	return 0
}
