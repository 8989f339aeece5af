package bot

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"nothanks/internal/engine"
)

// Play plays a whole game with bots[seat] deciding for each seat, each from
// its own view, and returns the finished game.
func Play(o engine.Options, seed uint64, bots []Bot, rng *rand.Rand) (*engine.Game, error) {
	g, err := engine.New(o, seed)
	if err != nil {
		return nil, err
	}
	for !g.Finished() {
		seat := g.Turn()
		kind := bots[seat].Decide(g.View(seat), rng)
		if err := g.Apply(engine.Action{Seat: seat, Kind: kind}); err != nil {
			return nil, fmt.Errorf("bot: seat %d chose %s: %w", seat, kind, err)
		}
	}
	return g, nil
}

// GameBot is an entrant that wants to know which game it is playing, as an
// outside process keeping its own memory does: Tournament asks it for the
// Bot of each game, named by an id unique within the tournament.
type GameBot interface {
	ForGame(id string) Bot
}

// Tournament plays Deals deals, each once per rotation of the line-up round
// the table, so every entrant plays every deal from every seat.
type Tournament struct {
	Names   []string
	Bots    []Bot
	Options engine.Options // Players is set from the line-up
	Deals   int
	Seed    uint64
	Workers int
}

// Standing is one entrant's result over a tournament.
type Standing struct {
	Name      string
	Games     int
	WinShare  float64 // wins, a shared win split among the winners
	WinCI     float64 // 95% half-width
	MeanScore float64
	ScoreCI   float64 // 95% half-width
}

// Run plays the tournament; the result depends only on its fields, not on
// the scheduling of the workers.
func (t Tournament) Run() ([]Standing, error) {
	n := len(t.Bots)
	o := t.Options
	o.Players = n
	if err := o.Validate(); err != nil {
		return nil, err
	}
	type outcome struct {
		win   [engine.MaxPlayers]float64
		score [engine.MaxPlayers]float64
	}
	games := make([]outcome, t.Deals*n)
	errs := make([]error, t.Deals)
	workers := t.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				seed := t.Seed*1_000_003 + uint64(d)
				for r := range n {
					seated := make([]Bot, n)
					for i, b := range t.Bots {
						if gb, ok := b.(GameBot); ok {
							b = gb.ForGame(fmt.Sprintf("%d-%d-%d", t.Seed, d, r))
						}
						seated[(i+r)%n] = b
					}
					g, err := Play(o, seed, seated, rand.New(rand.NewPCG(seed, uint64(r))))
					if err != nil {
						errs[d] = err
						return
					}
					totals := g.Totals()
					placings := engine.Placings(totals)
					winners := 0
					for _, p := range placings {
						if p == 1 {
							winners++
						}
					}
					out := &games[d*n+r]
					for i := range n {
						seat := (i + r) % n
						out.score[i] = float64(totals[seat])
						if placings[seat] == 1 {
							out.win[i] = 1 / float64(winners)
						}
					}
				}
			}
		}()
	}
	for d := range t.Deals {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	standings := make([]Standing, n)
	for i := range n {
		wins := make([]float64, len(games))
		scores := make([]float64, len(games))
		for g, out := range games {
			wins[g], scores[g] = out.win[i], out.score[i]
		}
		st := Standing{Name: t.Names[i], Games: len(games)}
		st.WinShare, st.WinCI = meanCI(wins)
		st.MeanScore, st.ScoreCI = meanCI(scores)
		standings[i] = st
	}
	return standings, nil
}

func meanCI(xs []float64) (mean, half float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	return mean, 1.96 * sd / math.Sqrt(float64(len(xs)))
}

// Print writes the standings as a table.
func Print(w io.Writer, standings []Standing) {
	fmt.Fprintf(w, "%-12s %6s %16s %18s\n", "entrant", "games", "win share", "mean score")
	for _, s := range standings {
		fmt.Fprintf(w, "%-12s %6d %7.1f%% ± %4.1f%% %9.2f ± %5.2f\n", s.Name, s.Games, 100*s.WinShare, 100*s.WinCI, s.MeanScore, s.ScoreCI)
	}
}
