package views

import (
	"context"
	"testing"

	"nothanks/internal/i18n"
)

func TestOrdinal(t *testing.T) {
	cases := []struct {
		lang i18n.Lang
		n    int
		want string
	}{
		{i18n.English, 1, "1st"}, {i18n.English, 2, "2nd"}, {i18n.English, 3, "3rd"}, {i18n.English, 4, "4th"},
		{i18n.English, 11, "11th"}, {i18n.English, 12, "12th"}, {i18n.English, 13, "13th"}, {i18n.English, 21, "21st"}, {i18n.English, 102, "102nd"},
		{i18n.Spanish, 1, "1.º"}, {i18n.Spanish, 3, "3.º"}, {i18n.Italian, 1, "1º"}, {i18n.Italian, 2, "2º"},
	}
	for _, c := range cases {
		if got := Ordinal(i18n.With(context.Background(), c.lang), c.n); got != c.want {
			t.Errorf("Ordinal(%s, %d) = %q, want %q", c.lang, c.n, got, c.want)
		}
	}
}
