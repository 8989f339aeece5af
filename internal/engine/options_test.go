package engine

import (
	"errors"
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		field string // "" when valid
	}{
		{"ThreePlayersStandard", Options{Players: 3, Rounds: 1, Variant: Standard}, ""},
		{"SevenPlayersTenRounds", Options{Players: 7, Rounds: 10, Variant: Standard}, ""},
		{"AmigoFivePlayers", Options{Players: 5, Rounds: 4, Variant: Amigo}, ""},
		{"AmigoHighThreePlayers", Options{Players: 3, Rounds: 4, Variant: AmigoHigh}, ""},
		{"TacticalFivePlayers", Options{Players: 5, Rounds: 1, Variant: Tactical, OpenTokens: true}, ""},
		{"TigerAndOpenTokens", Options{Players: 4, Rounds: 2, Variant: Standard, OpenTokens: true, HiddenTiger: true}, ""},
		{"ErrTwoPlayers", Options{Players: 2, Rounds: 1, Variant: Standard}, "players"},
		{"ErrEightPlayers", Options{Players: 8, Rounds: 1, Variant: Standard}, "players"},
		{"ErrZeroRounds", Options{Players: 3, Rounds: 0, Variant: Standard}, "rounds"},
		{"ErrElevenRounds", Options{Players: 3, Rounds: 11, Variant: Standard}, "rounds"},
		{"ErrUnknownVariant", Options{Players: 3, Rounds: 1, Variant: "chaos"}, "variant"},
		{"ErrEmptyVariant", Options{Players: 3, Rounds: 1}, "variant"},
		{"ErrAmigoSixPlayers", Options{Players: 6, Rounds: 1, Variant: Amigo}, "variant"},
		{"ErrAmigoHighSevenPlayers", Options{Players: 7, Rounds: 1, Variant: AmigoHigh}, "variant"},
		{"ErrTacticalSixPlayers", Options{Players: 6, Rounds: 1, Variant: Tactical}, "variant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				if _, err := New(tt.opts, 1); err != nil {
					t.Fatalf("New() = %v, want a game", err)
				}
				return
			}
			var oe *OptionsError
			if !errors.As(err, &oe) || oe.Field != tt.field {
				t.Fatalf("Validate() = %v, want an OptionsError on %q", err, tt.field)
			}
			if g, err := New(tt.opts, 1); err == nil || g != nil {
				t.Fatalf("New() = %v, %v; want no game and an error", g, err)
			}
		})
	}
}

func TestStartingTokens(t *testing.T) {
	tests := []struct {
		players int
		variant Variant
		want    int
	}{
		{3, Standard, 11}, {4, Standard, 11}, {5, Standard, 11},
		{6, Standard, 9}, {7, Standard, 7},
		{3, Tactical, 10}, {5, Tactical, 10}, {4, Amigo, 11},
	}
	for _, tt := range tests {
		o := Options{Players: tt.players, Rounds: 1, Variant: tt.variant}
		if got := o.StartingTokens(); got != tt.want {
			t.Errorf("%d players, %s: %d tokens, want %d", tt.players, tt.variant, got, tt.want)
		}
		g, err := New(o, 7)
		if err != nil {
			t.Fatal(err)
		}
		for s := range tt.players {
			if got := g.Tokens(s); got != tt.want {
				t.Errorf("%d players, %s: seat %d holds %d tokens, want %d", tt.players, tt.variant, s, got, tt.want)
			}
		}
	}
}
