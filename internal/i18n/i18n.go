// Package i18n is the site's languages: English, Spanish and Italian. Every
// sentence a person reads is looked up here by its English text (the
// message's ID, as in gettext), with placeholders ({{.Name}}) and plural
// forms (go-i18n, CLDR rules). The catalogues are TOML files in locales/,
// embedded in the binary. The language travels in the request's context, so
// templ components, mails and streams translate with the ctx they render
// with. It imports no other package of the site.
package i18n

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Lang is a language the site speaks: "en", "es" or "it".
type Lang string

const (
	English Lang = "en"
	Spanish Lang = "es"
	Italian Lang = "it"
)

// Langs are the site's languages, English first.
var Langs = []Lang{English, Spanish, Italian}

// Name is the language's own name, as the language switch shows it.
func (l Lang) Name() string {
	switch l {
	case Spanish:
		return "Español"
	case Italian:
		return "Italiano"
	}
	return "English"
}

// Parse returns the language for a code ("es", "es-AR", "IT"), false when
// the site does not speak it.
func Parse(s string) (Lang, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, "-_"); i > 0 {
		s = s[:i]
	}
	for _, l := range Langs {
		if string(l) == s {
			return l, true
		}
	}
	return English, false
}

// Or returns the language for a code, English when it is not one of ours.
func Or(s string) Lang {
	l, _ := Parse(s)
	return l
}

var matcher = language.NewMatcher([]language.Tag{language.English, language.Spanish, language.Italian})

// FromAcceptLanguage picks the language an Accept-Language header prefers,
// English when it names none of ours.
func FromAcceptLanguage(header string) Lang {
	if header == "" {
		return English
	}
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return English
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return English
	}
	return Langs[i]
}

type ctxKey struct{}

// With returns a context that renders in lang.
func With(ctx context.Context, lang Lang) context.Context {
	return context.WithValue(ctx, ctxKey{}, lang)
}

// From is the language ctx renders in, English when none was set.
func From(ctx context.Context) Lang {
	if ctx != nil {
		if l, ok := ctx.Value(ctxKey{}).(Lang); ok {
			return l
		}
	}
	return English
}

//go:embed locales/*.toml
var files embed.FS

var (
	bundle     *goi18n.Bundle
	localizers = map[Lang]*goi18n.Localizer{}
	// catalogues holds each language's messages, for the tests and for Has.
	catalogues = map[Lang]map[string]*goi18n.Message{}
)

func init() {
	bundle = goi18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, l := range Langs {
		f, err := bundle.LoadMessageFileFS(files, "locales/"+string(l)+".toml")
		if err != nil {
			panic(fmt.Sprintf("i18n: %s catalogue: %v", l, err))
		}
		m := make(map[string]*goi18n.Message, len(f.Messages))
		for _, msg := range f.Messages {
			m[msg.ID] = msg
		}
		catalogues[l] = m
		localizers[l] = goi18n.NewLocalizer(bundle, string(l))
	}
}

// missing remembers the messages looked up but absent from a catalogue, so
// that the tests can fail on them; bounded, since an ID can come from data.
var missing struct {
	sync.Mutex
	set map[string]bool
}

func noteMissing(l Lang, id string) {
	missing.Lock()
	defer missing.Unlock()
	if missing.set == nil {
		missing.set = map[string]bool{}
	}
	if len(missing.set) < 1000 {
		missing.set[string(l)+": "+id] = true
	}
}

// Missing lists the messages looked up since the last call that a
// catalogue lacks ("es: Take"), and forgets them.
func Missing() []string {
	missing.Lock()
	defer missing.Unlock()
	out := make([]string, 0, len(missing.set))
	for k := range missing.set {
		out = append(out, k)
	}
	missing.set = nil
	sort.Strings(out)
	return out
}

// data turns name, value pairs into template data.
func data(kv []any) map[string]any {
	if len(kv) == 0 {
		return nil
	}
	m := make(map[string]any, len(kv)/2+1)
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

func localize(l Lang, id string, count any, kv []any) string {
	d := data(kv)
	if count != nil {
		if d == nil {
			d = map[string]any{}
		}
		if _, ok := d["Count"]; !ok {
			d["Count"] = count
		}
	}
	lc := &goi18n.LocalizeConfig{MessageID: id, PluralCount: count}
	if d != nil {
		lc.TemplateData = d
	}
	loc := localizers[l]
	if loc == nil {
		loc = localizers[English]
	}
	s, err := loc.Localize(lc)
	if err != nil {
		noteMissing(l, id)
		if s != "" {
			return s
		}
		// Not even in English: the ID is English text, its placeholders
		// filled as well as we can.
		return fill(id, lc.TemplateData)
	}
	return s
}

// fill replaces {{.Name}} placeholders in s from data.
func fill(s string, d any) string {
	m, _ := d.(map[string]any)
	for k, v := range m {
		s = strings.ReplaceAll(s, "{{."+k+"}}", fmt.Sprint(v))
	}
	return s
}

// T translates a message into ctx's language. kv are placeholder name,
// value pairs: T(ctx, "Take {{.Card}}", "Card", 27).
func T(ctx context.Context, id string, kv ...any) string {
	return localize(From(ctx), id, nil, kv)
}

// N translates a message with plural forms chosen by n, which is also its
// {{.Count}}. Its ID is the English plural ("other") form; one is the
// English singular, used when the catalogue lacks the message:
// N(ctx, "{{.Count}} token", "{{.Count}} tokens", 1) is "1 token", "1 ficha".
func N(ctx context.Context, one, other string, n int, kv ...any) string {
	return NIn(From(ctx), one, other, n, kv...)
}

// In translates a message into a given language (mails, API messages).
func In(l Lang, id string, kv ...any) string { return localize(l, id, nil, kv) }

// NIn is N into a given language.
func NIn(l Lang, one, other string, n int, kv ...any) string {
	if n == 1 && !Has(l, other) && !Has(English, other) {
		noteMissing(l, other)
		return fill(one, data(append(kv, "Count", n)))
	}
	return localize(l, other, n, kv)
}

// M marks a message for the catalogue where it is written, to be
// translated where it is shown (gettext's N_): M("Ranked") is "Ranked".
func M(s string) string { return s }

// Sprintf translates a printf format (the services' messages keep their
// English format and its arguments) and fills it in. Translations may
// reorder the arguments with %[2]d.
func Sprintf(ctx context.Context, format string, args ...any) string {
	return SprintfIn(From(ctx), format, args...)
}

// SprintfIn is Sprintf into a given language.
func SprintfIn(l Lang, format string, args ...any) string {
	f := format
	if l != English || catalogues[English][format] != nil {
		if m := catalogues[l][format]; m != nil {
			f = m.Other
		} else {
			noteMissing(l, format)
		}
	}
	if len(args) == 0 {
		return f
	}
	return fmt.Sprintf(f, args...)
}

// Has reports whether a language's catalogue has a message.
func Has(l Lang, id string) bool { return catalogues[l][id] != nil }

// Messages lists a language's messages by ID, for the tests.
func Messages(l Lang) map[string]*goi18n.Message { return catalogues[l] }

// Files is the embedded catalogues, for the tests.
func Files() fs.FS { return files }
