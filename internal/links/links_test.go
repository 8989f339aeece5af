package links

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestSignVerify(t *testing.T) {
	s, err := New([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	q := s.Sign("move", url.Values{"g": {"5"}, "v": {"12"}, "exp": {"2000"}})
	v, _ := url.ParseQuery(q)
	if err := s.Verify("move", v, now); err != nil {
		t.Fatalf("a fresh link: %v", err)
	}
	tests := []struct {
		name string
		edit func(url.Values)
		when time.Time
		want error
	}{
		{"ErrChangedValue", func(v url.Values) { v.Set("v", "13") }, now, ErrBadSignature},
		{"ErrAddedValue", func(v url.Values) { v.Set("k", "take") }, now, ErrBadSignature},
		{"ErrNoSignature", func(v url.Values) { v.Del("sig") }, now, ErrBadSignature},
		{"ErrExpired", func(url.Values) {}, time.Unix(2001, 0), ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := url.ParseQuery(q)
			tt.edit(c)
			if err := s.Verify("move", c, tt.when); !errors.Is(err, tt.want) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
	if err := s.Verify("unsubscribe", v, now); !errors.Is(err, ErrBadSignature) {
		t.Error("a move link passed as an unsubscribe link")
	}
	if _, err := New([]byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}
