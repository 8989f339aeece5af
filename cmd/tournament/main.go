// Command tournament plays seat-rotated bot-versus-bot No Thanks! games and
// prints each entrant's win share and mean score with 95% confidence
// intervals.
//
//	go run ./cmd/tournament -bots strong,heuristic,heuristic -deals 700
//
// An entrant named "outside" is a bot running as a separate process that
// speaks the protocol of docs/bots.md (package bot/outside):
//
//	go run ./cmd/tournament -bots strong,outside,outside -workers 1 \
//	    -outside 'python3 /path/to/adapter.py'
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"nothanks/internal/engine"
	"nothanks/internal/engine/bot"
	"nothanks/internal/engine/bot/outside"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tournament:", err)
		os.Exit(2)
	}
}

func run(args []string) (err error) {
	fs := flag.NewFlagSet("tournament", flag.ContinueOnError)
	lineup := fs.String("bots", "strong,heuristic,heuristic", "comma-separated entrants, one per seat: "+strings.Join(names(), ", "))
	deals := fs.Int("deals", 700, "deals to play; each is played once per seat rotation")
	rounds := fs.Int("rounds", 1, "rounds per game")
	variant := fs.String("variant", string(engine.Standard), "variant: standard, amigo, amigo-high, tactical")
	iterations := fs.Int("iterations", 0, "fixed search iterations per search-bot decision, no time limit (0: the level's time budget)")
	budget := fs.Duration("budget", 0, "time budget per search-bot decision (0: the level's default)")
	command := fs.String("outside", os.Getenv("OUTSIDE_BOT"), "command line of the outside bot, run with /bin/sh -c (default $OUTSIDE_BOT)")
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
	var proc *outside.Process
	defer func() {
		if proc != nil {
			if cerr := proc.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("outside bot: %w", cerr)
			}
		}
	}()
	for _, name := range strings.Split(*lineup, ",") {
		name = strings.TrimSpace(name)
		var b bot.Bot
		switch name {
		case "outside":
			if *command == "" {
				return errors.New("an outside entrant needs -outside or $OUTSIDE_BOT")
			}
			if proc == nil {
				if proc, err = outside.Start(*command); err != nil {
					return err
				}
			}
			b = proc
		case "rule":
			b = bot.RuleBot{}
		case "sharp":
			b = bot.RuleBot{Sharp: true}
		case "auction":
			b = bot.RuleBot{Auction: true}
		default:
			level := bot.Level(name)
			if b, err = bot.New(level); err != nil {
				return err
			}
			if s, ok := b.(bot.SearchBot); ok {
				if *iterations > 0 {
					s.Budget = bot.Budget{Iterations: *iterations}
				} else if *budget > 0 {
					s.Budget.Time = *budget
				}
				b = s
			}
		}
		t.Names = append(t.Names, name)
		t.Bots = append(t.Bots, b)
	}
	start := time.Now()
	standings, err := t.Run()
	if err != nil {
		if proc != nil && proc.Err() != nil {
			return fmt.Errorf("%w (%v)", err, proc.Err())
		}
		return err
	}
	bot.Print(os.Stdout, standings)
	fmt.Printf("%d games in %s\n", standings[0].Games, time.Since(start).Round(time.Millisecond))
	return nil
}

func names() []string {
	var out []string
	for _, l := range bot.Levels {
		out = append(out, string(l))
	}
	return append(out, "rule", "sharp", "auction", "outside")
}
