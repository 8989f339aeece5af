package notation

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"nothanks/internal/engine"
)

// FuzzParse reads arbitrary texts: Parse must never panic, must refuse
// with an *Error or succeed, and what it reads must write back to a text
// that reads as the same game and writes as the same bytes again.
func FuzzParse(f *testing.F) {
	f.Add(handGame)
	f.Add(setLine(handGame, 21, "33: A^ A- B- C- A! A- B+4*"))
	f.Add(firstLines(handGame, 30))
	f.Add("[Players \"3\"]\n[SeatA \"a\"]\n[SeatB \"b\"]\n[SeatC \"c\"]\nround 1, A starts\n3: A+\n")
	o := engine.Options{Players: 4, Rounds: 2, Variant: engine.Amigo, HiddenTiger: true}
	var b bytes.Buffer
	if err := Write(&b, header(o, 3), play(f, o, 3, true).g); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(strings.NewReader(text))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%T %v: want an *Error", err, err)
			}
			return
		}
		var first, second bytes.Buffer
		if err := Write(&first, p.Header, p.Game); err != nil {
			t.Fatalf("a game read cannot be written: %v", err)
		}
		again, err := Parse(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("the text written cannot be read: %v\n%s", err, first.String())
		}
		if !reflect.DeepEqual(again.Setup, p.Setup) || !reflect.DeepEqual(again.Actions, p.Actions) || !reflect.DeepEqual(again.Header, p.Header) {
			t.Fatalf("written and read again it is another game:\n%s", first.String())
		}
		if err := Write(&second, again.Header, again.Game); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("written twice, the texts differ:\n%s\n----\n%s", first.String(), second.String())
		}
	})
}
