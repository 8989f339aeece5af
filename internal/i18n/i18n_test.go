package i18n_test

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"testing"
	"time"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"

	"nothanks/internal/i18n"
	"nothanks/internal/i18n/extract"
)

var (
	namedHole = regexp.MustCompile(`\{\{\.\w+\}\}`)
	// A literal %% is not a verb, and no message uses the space flag, so
	// "90 % of" is text, not a verb.
	printfVerb = regexp.MustCompile(`%%|%(\[\d+\])?[-+#0-9.]*[a-zA-Z]`)
)

// holes lists a text's placeholders: {{.Name}} once each, printf verbs in
// kind and number (a translation may reorder them with %[2]d).
func holes(s string) []string {
	var out []string
	for _, h := range namedHole.FindAllString(s, -1) {
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	for _, v := range printfVerb.FindAllString(s, -1) {
		if v == "%%" {
			continue
		}
		out = append(out, regexp.MustCompile(`\[\d+\]`).ReplaceAllString(v, ""))
	}
	sort.Strings(out)
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func TestEveryLanguageHasEveryMessageWithItsPlaceholders(t *testing.T) {
	en := i18n.Messages(i18n.English)
	if len(en) < 400 {
		t.Fatalf("the English catalogue has %d messages; it should hold every message of the site", len(en))
	}
	for _, l := range i18n.Langs[1:] {
		msgs := i18n.Messages(l)
		for id, m := range en {
			tr, ok := msgs[id]
			if !ok {
				t.Errorf("%s: missing %q", l, id)
				continue
			}
			if (m.One != "") != (tr.One != "") {
				t.Errorf("%s: %q is plural in one catalogue and not in the other", l, id)
			}
			if got, want := holes(tr.Other), holes(id); !slices.Equal(got, want) {
				t.Errorf("%s: %q has placeholders %v, the English %v", l, id, got, want)
			}
			if tr.One != "" && !subset(holes(tr.One), holes(id)) {
				t.Errorf("%s: the singular of %q has placeholders %v beyond the English %v", l, id, holes(tr.One), holes(id))
			}
			if tr.Other == id && len(id) > 3 && namedHole.ReplaceAllString(id, "") != "" && !sameInEveryLanguage[id] {
				t.Errorf("%s: %q is not translated", l, id)
			}
		}
		for id := range msgs {
			if _, ok := en[id]; !ok {
				t.Errorf("%s: %q is not an English message (stale or misspelt key)", l, id)
			}
		}
	}
}

// sameInEveryLanguage are messages whose translation is the English text.
var sameInEveryLanguage = map[string]bool{
	"Standard": true, "Dec.": true, "Email": true, "Password": true, "Total": true, "Bots": true,
	"Amigo (10, 20, 30 out)": false, "Manche": true, "Registro (JSON)": true,
	"{{.Count}} watching": true, "provisional": true, "bot": true, "Chat": true, "Account": true,
	"Arena": true, "Buchholz": true, "{{.Name}} (bot)": true,
}

func TestTheEnglishCatalogueIsWhatTheCodeSays(t *testing.T) {
	code, err := extract.Scan("../..")
	if err != nil {
		t.Fatal(err)
	}
	en := i18n.Messages(i18n.English)
	for id, m := range code {
		got, ok := en[id]
		if !ok {
			t.Errorf("%s: %q is not in en.toml (run go run ./cmd/i18n)", m.At, id)
			continue
		}
		if got.One != m.One {
			t.Errorf("%s: %q has the singular %q in the code and %q in en.toml", m.At, id, m.One, got.One)
		}
	}
	for id := range en {
		if _, ok := code[id]; !ok {
			t.Errorf("en.toml has %q, which no code uses (run go run ./cmd/i18n)", id)
		}
	}
}

func TestPluralsFollowEachLanguage(t *testing.T) {
	cases := []struct {
		lang i18n.Lang
		n    int
		want string
	}{
		{i18n.English, 1, "1 token"}, {i18n.English, 2, "2 tokens"}, {i18n.English, 0, "0 tokens"},
		{i18n.Spanish, 1, "1 ficha"}, {i18n.Spanish, 2, "2 fichas"}, {i18n.Spanish, 0, "0 fichas"},
		{i18n.Italian, 1, "1 gettone"}, {i18n.Italian, 2, "2 gettoni"}, {i18n.Italian, 11, "11 gettoni"},
	}
	for _, c := range cases {
		ctx := i18n.With(context.Background(), c.lang)
		if got := i18n.N(ctx, "{{.Count}} token", "{{.Count}} tokens", c.n); got != c.want {
			t.Errorf("%s %d: got %q, want %q", c.lang, c.n, got, c.want)
		}
	}
	if got, want := i18n.In(i18n.Spanish, "No thanks!"), "¡No, gracias!"; got != want {
		t.Errorf("es No thanks! = %q, want %q", got, want)
	}
	if got, want := i18n.In(i18n.Italian, "Take"), "Prendi"; got != want {
		t.Errorf("it Take = %q, want %q", got, want)
	}
	if got, want := i18n.SprintfIn(i18n.Spanish, "There is no player called %q.", "bob"), `No hay ningún jugador llamado "bob".`; got != want {
		t.Errorf("es Sprintf = %q, want %q", got, want)
	}
}

func TestTheLanguageOfARequest(t *testing.T) {
	cases := []struct {
		header string
		want   i18n.Lang
	}{
		{"", i18n.English}, {"es-ES,es;q=0.9,en;q=0.8", i18n.Spanish}, {"it", i18n.Italian},
		{"de-DE,de;q=0.9", i18n.English}, {"de;q=0.9,it;q=0.5", i18n.Italian}, {"garbage;;;", i18n.English},
		{"en-GB,es;q=0.5", i18n.English}, {"es-AR", i18n.Spanish},
	}
	for _, c := range cases {
		if got := i18n.FromAcceptLanguage(c.header); got != c.want {
			t.Errorf("Accept-Language %q: got %s, want %s", c.header, got, c.want)
		}
	}
}

func TestDatesAndDurationsInEachLanguage(t *testing.T) {
	at := time.Date(2026, 1, 5, 15, 4, 0, 0, time.UTC) // a Monday
	for _, c := range []struct {
		lang               i18n.Lang
		dateTime, date, dd string
	}{
		{i18n.English, "Mon 5 Jan 15:04 UTC", "5 Jan 2026", "2d 23h"},
		{i18n.Spanish, "lun 5 ene 15:04 UTC", "5 ene 2026", "2 d 23 h"},
		{i18n.Italian, "lun 5 gen 15:04 UTC", "5 gen 2026", "2 g 23 h"},
	} {
		if got := i18n.DateTime(c.lang, at); got != c.dateTime {
			t.Errorf("%s DateTime = %q, want %q", c.lang, got, c.dateTime)
		}
		if got := i18n.Date(c.lang, at); got != c.date {
			t.Errorf("%s Date = %q, want %q", c.lang, got, c.date)
		}
		if got := i18n.Duration(c.lang, 71*time.Hour+10*time.Minute); got != c.dd {
			t.Errorf("%s Duration = %q, want %q", c.lang, got, c.dd)
		}
	}
	if got := i18n.Duration(i18n.Spanish, 5*time.Minute+10*time.Second); got != "5 min 10 s" {
		t.Errorf("es 5m10s = %q", got)
	}
}

var _ = goi18n.Message{}
