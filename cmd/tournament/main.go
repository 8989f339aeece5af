// Command tournament plays seat-rotated bot-versus-bot No Thanks! games and
// prints each entrant's win share and mean score with 95% confidence
// intervals.
//
//	go run ./cmd/tournament -bots strong,heuristic,heuristic -deals 700
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tournament:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("tournament", flag.ContinueOnError)
	lineup := fs.String("bots", "strong,heuristic,heuristic", "comma-separated bot levels, one per seat (random, heuristic, strong)")
	deals := fs.Int("deals", 700, "deals to play; each is played once per seat rotation")
	rounds := fs.Int("rounds", 1, "rounds per game")
	variant := fs.String("variant", string(engine.Standard), "variant: standard, amigo, amigo-high, tactical")
	iterations := fs.Int("iterations", bot.DefaultIterations, "search iterations per strong-bot decision")
	seed := fs.Uint64("seed", 1, "seed of the deals")
	workers := fs.Int("workers", 0, "parallel games (0: one per CPU)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t := bot.Tournament{
		Options: engine.Options{Rounds: *rounds, Variant: engine.Variant(*variant)},
		Deals:   *deals,
		Seed:    *seed,
		Workers: *workers,
	}
	for _, name := range strings.Split(*lineup, ",") {
		level := bot.Level(strings.TrimSpace(name))
		b, err := bot.New(level)
		if err != nil {
			return err
		}
		if level == bot.Strong {
			b = bot.NewSearchBot(*iterations)
		}
		t.Names = append(t.Names, string(level))
		t.Bots = append(t.Bots, b)
	}
	start := time.Now()
	standings, err := t.Run()
	if err != nil {
		return err
	}
	bot.Print(os.Stdout, standings)
	fmt.Printf("%d games in %s\n", standings[0].Games, time.Since(start).Round(time.Millisecond))
	return nil
}
