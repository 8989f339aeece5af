package glicko2

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (± %g)", name, got, want, tol)
	}
}

// The paper's worked example: a player rated 1500, RD 200, σ 0.06, τ 0.5,
// beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300).
// The paper gets v = 1.7785, Δ = −0.4834, σ' = 0.05999, r' = 1464.06,
// RD' = 151.52.
func TestPaperExample(t *testing.T) {
	got := Update(Rating{R: 1500, RD: 200, Sigma: 0.06}, []Result{
		{Opponent: Rating{R: 1400, RD: 30, Sigma: 0.06}, Score: 1},
		{Opponent: Rating{R: 1550, RD: 100, Sigma: 0.06}, Score: 0},
		{Opponent: Rating{R: 1700, RD: 300, Sigma: 0.06}, Score: 0},
	}, 0.5)
	near(t, "r'", got.R, 1464.06, 0.01)
	near(t, "RD'", got.RD, 151.52, 0.01)
	near(t, "σ'", got.Sigma, 0.05999, 0.00001)
}

// A new solver (1500, 350, 0.06) meets a new puzzle (the same), τ = 0.75.
// By the paper's formulas, on the Glicko-2 scale:
//
//	μ = (1500 − 1500) / 173.7178 = 0, φ = 350 / 173.7178 = 2.014762
//	g(φj) = 1 / √(1 + 3·2.014762² / π²) = 1 / √2.233867 = 0.669069
//	E = 1 / (1 + exp(−0.669069 · (0 − 0))) = 0.5
//	v = 1 / (0.669069² · 0.5 · 0.5) = 8.935475
//	solved (s = 1):  Δ = v · 0.669069 · (1 − 0.5) = 2.989226
//	failed (s = 0):  Δ = −2.989226
//	Δ² = 8.9355 is not above φ² + v = 12.9947, so B = a − kτ with the
//	first k for which f(a − kτ) ≥ 0: k = 1. a = ln 0.06² = −5.626821,
//	A = a, B = −6.376821; f(A) = −0.0000433, f(B) = 1.3333;
//	two Illinois steps close |B − A| below ε: σ' = 0.0599993.
//	φ* = √(2.014762² + 0.0599993²) = 2.015655
//	φ' = 1 / √(1/2.015655² + 1/8.935475) = 1.671210
//	μ' = 0 ± 1.671210² · 0.669069 · 0.5 = ± 0.934337
//	r' = 1500 ± 173.7178 · 0.934337 = 1662.31 (solved) or 1337.69
//	RD' = 173.7178 · 1.671210 = 290.32
//
// The puzzle moves the other way by as much: it meets the same rating.
func TestOneAttemptByHand(t *testing.T) {
	// The intermediate values.
	phi := Start.RD / Scale
	near(t, "φ", phi, 2.014762, 1e-6)
	near(t, "g", g(phi), 0.669069, 1e-6)
	near(t, "E", e(0, 0, phi), 0.5, 1e-12)
	v := 1 / (g(phi) * g(phi) * 0.25)
	near(t, "v", v, 8.935475, 1e-6)
	near(t, "Δ", v*g(phi)*0.5, 2.989226, 1e-6)
	near(t, "σ'", volatility(v*g(phi)*0.5, phi, v, 0.06, 0.75), 0.0599993, 1e-7)

	for _, c := range []struct {
		name                 string
		score                float64
		solver, puzzle, rdBy float64
	}{
		{"Solved", 1, 1662.3109, 1337.6891, 290.3190},
		{"Failed", 0, 1337.6891, 1662.3109, 290.3190},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, p := Game(Start, Start, c.score, Tau)
			near(t, "solver r'", s.R, c.solver, 1e-3)
			near(t, "puzzle r'", p.R, c.puzzle, 1e-3)
			near(t, "solver RD'", s.RD, c.rdBy, 1e-3)
			near(t, "puzzle RD'", p.RD, c.rdBy, 1e-3)
			near(t, "σ'", s.Sigma, 0.0599993, 1e-7)
		})
	}
}

func TestBounds(t *testing.T) {
	t.Run("RDNeverBelowMinRD", func(t *testing.T) {
		r := Rating{R: 1500, RD: 50, Sigma: 0.03}
		for range 200 {
			r, _ = Game(r, Rating{R: 1500, RD: 45, Sigma: 0.06}, 1, Tau)
			r, _ = Game(r, Rating{R: 1500, RD: 45, Sigma: 0.06}, 0, Tau)
		}
		if r.RD != MinRD {
			t.Errorf("RD after 400 games: %v, want %v", r.RD, float64(MinRD))
		}
	})
	t.Run("RatingNeverBelowFloor", func(t *testing.T) {
		r := Rating{R: 420, RD: 350, Sigma: 0.06}
		r, _ = Game(r, Rating{R: 420, RD: 45, Sigma: 0.06}, 0, Tau)
		if r.R != Floor {
			t.Errorf("rating %v, want the floor %v", r.R, float64(Floor))
		}
	})
	t.Run("IdleGrowsRDUpToMaxRD", func(t *testing.T) {
		r := Rating{R: 1700, RD: 60, Sigma: 0.06}
		one := Idle(r, 1)
		want := Scale * math.Sqrt(math.Pow(60/Scale, 2)+0.06*0.06)
		near(t, "RD after a period", one.RD, want, 1e-9)
		if got := Idle(r, 1e6).RD; got != MaxRD {
			t.Errorf("RD after a long absence %v, want %v", got, float64(MaxRD))
		}
		if one.R != r.R || one.Sigma != r.Sigma {
			t.Error("idleness moved the rating or the volatility")
		}
		// Update without games is one idle period.
		near(t, "Update with no games", Update(r, nil, Tau).RD, one.RD, 1e-9)
	})
}

func TestExpected(t *testing.T) {
	near(t, "equal", Expected(Start, Start), 0.5, 1e-12)
	// RD 0: the plain logistic on a 400-point scale.
	a, b := Rating{R: 1900, RD: 0}, Rating{R: 1500, RD: 0}
	near(t, "400 points", Expected(a, b), 1/(1+math.Pow(10, -1)), 1e-6)
}

// BenchmarkTau measures how well ratings predict puzzle attempts for
// values of τ: simulated solvers (true strength drawn around 1500, SD 300,
// a random walk of 5 points an attempt, a tenth of them improving 2
// points an attempt) attempt simulated puzzles (true difficulty around
// 1500, SD 300); an attempt succeeds with the logistic chance of the true
// gap (the "guess" run gives a one-step puzzle's floor: half the failures
// are guessed right). logloss is the mean log loss of Expected(solver,
// puzzle) before each attempt, over the second half of the attempts.
//
//	go test -run '^$' -bench Tau -benchtime 1x ./internal/glicko2/
func BenchmarkTau(b *testing.B) {
	for _, guess := range []bool{false, true} {
		for _, tau := range []float64{0.3, 0.5, 0.75, 1.0, 1.2} {
			b.Run(fmt.Sprintf("guess=%v/tau=%v", guess, tau), func(b *testing.B) {
				var loss float64
				for b.Loop() {
					loss = simulate(tau, guess)
				}
				b.ReportMetric(loss, "logloss")
			})
		}
	}
}

func simulate(tau float64, guess bool) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	const solvers, puzzles, attempts = 400, 2000, 200_000
	trueS := make([]float64, solvers)
	rising := make([]bool, solvers)
	rs := make([]Rating, solvers)
	for i := range trueS {
		trueS[i] = 1500 + 300*rng.NormFloat64()
		rising[i] = i%10 == 0
		rs[i] = Start
	}
	trueP := make([]float64, puzzles)
	rp := make([]Rating, puzzles)
	for i := range trueP {
		trueP[i] = 1500 + 300*rng.NormFloat64()
		rp[i] = Start
	}
	var loss float64
	var n int
	for k := range attempts {
		i, j := rng.IntN(solvers), rng.IntN(puzzles)
		p := 1 / (1 + math.Pow(10, -(trueS[i]-trueP[j])/400))
		if guess {
			p += (1 - p) / 2
		}
		solved := rng.Float64() < p
		if k >= attempts/2 {
			q := min(max(Expected(rs[i], rp[j]), 1e-9), 1-1e-9)
			if solved {
				loss -= math.Log(q)
			} else {
				loss -= math.Log(1 - q)
			}
			n++
		}
		s := 0.0
		if solved {
			s = 1
		}
		rs[i], rp[j] = Game(rs[i], rp[j], s, tau)
		trueS[i] += 5 * rng.NormFloat64()
		if rising[i] {
			trueS[i] += 2
		}
	}
	return loss / float64(n)
}
