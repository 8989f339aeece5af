package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Setenv("OUTSIDE_BOT", "")
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"RuleBotsAndLevels", []string{"-bots", "rule,sharp,auction,heuristic", "-deals", "2", "-workers", "1"}, ""},
		{"FixedIterations", []string{"-bots", "strong,heuristic,random", "-deals", "1", "-iterations", "50"}, ""},
		{"ErrUnknownEntrant", []string{"-bots", "strong,grandmaster,heuristic", "-deals", "1"}, "unknown level"},
		{"ErrOutsideWithoutCommand", []string{"-bots", "strong,outside,heuristic", "-deals", "1"}, "needs -outside"},
		{"ErrTooFewSeats", []string{"-bots", "rule,rule", "-deals", "1"}, "players"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("run: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("run: %v, want an error saying %q", err, tt.err)
			}
		})
	}
}
