package notation

import (
	"bytes"
	"io"
	"testing"

	"nothanks/internal/engine"
)

// benchGame is a 4-round 5-player game, the size of a month file's games.
func benchGame(b *testing.B) (Header, *engine.Game, []byte) {
	o := engine.Options{Players: 5, Rounds: 4, Variant: engine.Standard}
	g := play(b, o, 11, false).g
	h := header(o, 11)
	var buf bytes.Buffer
	if err := Write(&buf, h, g); err != nil {
		b.Fatal(err)
	}
	return h, g, buf.Bytes()
}

// BenchmarkWrite measures writing one game (the month file of 100,000
// games is written in one go).
func BenchmarkWrite(b *testing.B) {
	h, g, text := benchGame(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, h, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse measures reading and replaying one game.
func BenchmarkParse(b *testing.B) {
	_, _, text := benchGame(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}
