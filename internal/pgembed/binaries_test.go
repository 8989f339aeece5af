package pgembed

import "testing"

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{
		{"15.2", "15.14", true},
		{"15.14", "15.2", false},
		{"9.6", "16.1", true},
		{"16", "16.1", true},
		{"16.1", "16.1", false},
		{"/opt/homebrew/opt/postgresql@9/bin", "/opt/homebrew/opt/postgresql@16/bin", true},
	} {
		if got := versionLess(c.a, c.b); got != c.less {
			t.Errorf("versionLess(%q, %q) = %v, want %v", c.a, c.b, got, c.less)
		}
	}
}
