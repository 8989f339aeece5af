// Package glicko2 is the Glicko-2 rating system exactly as Mark Glickman's
// "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf) gives
// it: a rating, a rating deviation (RD) and a volatility per player,
// updated once per rating period from the games of the period.
//
// The puzzles use it with one game per rating period: an attempt is one
// game between the solver and the puzzle, and both are updated from their
// ratings before it (Game). Update is the paper's algorithm unchanged;
// Game adds the site's bounds (Clamp). It imports the standard library
// only.
package glicko2

import "math"

// Rating is a player's (or a puzzle's) Glicko-2 rating on the Glicko
// scale: R around 1500, RD the deviation in the same points, Sigma the
// volatility.
type Rating struct {
	R     float64 `json:"r"`
	RD    float64 `json:"rd"`
	Sigma float64 `json:"sigma"`
}

// Result is one game of a rating period against an opponent: Score is 1
// for a win, 0.5 for a draw and 0 for a loss.
type Result struct {
	Opponent Rating
	Score    float64
}

// The paper's constants.
const (
	// Scale turns Glicko points into the Glicko-2 scale (step 2).
	Scale = 173.7178
	// Epsilon is the convergence tolerance of the volatility iteration
	// (step 5).
	Epsilon = 0.000001
)

// Tau is the system constant that limits how fast the volatility moves.
// The paper advises 0.3 to 1.2; lichess uses 0.75. A simulation of
// solvers and puzzles (BenchmarkTau, docs/puzzles.md) finds the
// predictive log loss the same to four places over 0.3 to 1.2: with one
// game per rating period the volatility hardly moves whatever τ is, so
// the choice is lichess's, which is tried on puzzles at scale.
const Tau = 0.75

// Start is the rating of a new solver and of a new puzzle.
var Start = Rating{R: 1500, RD: 350, Sigma: 0.06}

// The site's bounds (Clamp): an RD never falls below MinRD, so a rating
// keeps moving, nor rises above MaxRD, a newcomer's; a rating never falls
// below Floor; the volatility stays at most MaxSigma, so a run of lucky
// guesses cannot make a rating fly.
const (
	MinRD    = 45
	MaxRD    = 350
	Floor    = 400
	MaxSigma = 0.1
)

// g is the paper's g(φ).
func g(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

// e is the paper's E(μ, μj, φj).
func e(mu, muj, phij float64) float64 { return 1 / (1 + math.Exp(-g(phij)*(mu-muj))) }

// Expected is the chance that a beats b on the Glicko-2 model (the RD of
// b discounts the difference, as in the update).
func Expected(a, b Rating) float64 {
	return e((a.R-1500)/Scale, (b.R-1500)/Scale, b.RD/Scale)
}

// Update is the player's rating after a rating period with the given
// games, by the paper's steps 1 to 8. With no games only the RD grows, by
// the volatility (step 6). It applies no bounds.
func Update(player Rating, opponents []Result, tau float64) Rating {
	// Step 2: the Glicko-2 scale.
	mu := (player.R - 1500) / Scale
	phi := player.RD / Scale
	sigma := player.Sigma
	if len(opponents) == 0 {
		return Rating{R: player.R, RD: Scale * math.Sqrt(phi*phi+sigma*sigma), Sigma: sigma}
	}
	// Steps 3 and 4: the estimated variance v and improvement Δ.
	var vInv, sum float64
	for _, o := range opponents {
		muj := (o.Opponent.R - 1500) / Scale
		phij := o.Opponent.RD / Scale
		gj := g(phij)
		ej := e(mu, muj, phij)
		vInv += gj * gj * ej * (1 - ej)
		sum += gj * (o.Score - ej)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility.
	sigma = volatility(delta, phi, v, sigma, tau)
	// Step 6: the pre-period RD grown by the new volatility.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	// Step 7: the new RD and rating.
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	// Step 8: back to the Glicko scale.
	return Rating{R: Scale*muNew + 1500, RD: Scale * phiNew, Sigma: sigma}
}

// volatility is step 5: the root of f by the Illinois algorithm (the
// regula falsi that halves the stale end's value). The revised paper's
// test f(C)f(B) ≤ 0 is used; the first edition's < 0 differs only when
// f(C) is exactly 0.
func volatility(delta, phi, v, sigma, tau float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for math.Abs(B-A) > Epsilon {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// Clamp holds a rating to the site's bounds.
func Clamp(r Rating) Rating {
	r.RD = min(max(r.RD, MinRD), MaxRD)
	r.R = max(r.R, Floor)
	r.Sigma = min(r.Sigma, MaxSigma)
	return r
}

// Game rates one game between a and b as a rating period of its own for
// each: scoreA is a's score (1 a won, 0 b won, 0.5 a draw). Both are
// updated from their ratings before the game, then clamped. A puzzle
// attempt is Game(solver, puzzle, 1 if solved else 0, Tau).
func Game(a, b Rating, scoreA float64, tau float64) (Rating, Rating) {
	na := Update(a, []Result{{Opponent: b, Score: scoreA}}, tau)
	nb := Update(b, []Result{{Opponent: a, Score: 1 - scoreA}}, tau)
	return Clamp(na), Clamp(nb)
}

// Idle grows a rating's RD for periods rating periods without a game
// (step 6 with no games, applied periods times: φ² grows by σ² each),
// up to MaxRD. What a period of inactivity is (a day, a week) is the
// caller's choice; periods below 0 count as 0.
func Idle(r Rating, periods float64) Rating {
	phi := r.RD / Scale
	r.RD = min(Scale*math.Sqrt(phi*phi+max(periods, 0)*r.Sigma*r.Sigma), MaxRD)
	return r
}
