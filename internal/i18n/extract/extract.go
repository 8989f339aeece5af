// Package extract finds the site's messages in its source: every call that
// translates a literal (tr, trn, trh, trnh, i18n.T, i18n.N, i18n.In,
// i18n.NIn, i18n.M, i18n.Sprintf), every service message (apperr.E,
// apperr.Wrap, a form's f.Add) and every echo.NewHTTPError text. The
// English catalogue is written from it (go run ./cmd/i18n) and a test
// checks the catalogues against it. Templates are read through their
// generated _templ.go files.
package extract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Message is one message of the catalogue: its ID (the English text, the
// plural form for a plural message) and, for a plural, the singular.
type Message struct {
	ID  string
	One string // "" unless plural
	At  string // where it was first found, file:line
}

// Plural reports whether the message has plural forms.
func (m Message) Plural() bool { return m.One != "" }

// args lists, by called name, which arguments hold the message: the ID,
// and for plurals the singular before it.
var calls = map[string]struct{ id, one int }{
	"tr": {1, -1}, "trh": {1, -1}, "i18n.T": {1, -1}, "i18n.In": {1, -1},
	"i18n.Sprintf": {1, -1}, "i18n.SprintfIn": {1, -1}, "i18n.M": {0, -1},
	"trn": {2, 1}, "trnh": {2, 1}, "i18n.N": {2, 1}, "i18n.NIn": {2, 1},
	"apperr.E": {1, -1}, "apperr.Wrap": {2, -1}, "echo.NewHTTPError": {1, -1},
	"f.Add": {1, -1}, "fields.Add": {1, -1}, "field": {0, -1},
	// The notation's findings and the engine's refusals of options keep
	// their formats for the reader's language (apperr.Sub).
	"errorf": {1, -1}, "optionsError": {1, -1},
}

// Scan reads every Go file under root (not tests, not vendored) and
// returns the messages by ID.
func Scan(root string) (map[string]Message, error) {
	out := map[string]Message{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			spec, ok := calls[callName(call.Fun)]
			if !ok || spec.id >= len(call.Args) {
				return true
			}
			if internal(call) {
				return true
			}
			id, ok := literal(call.Args[spec.id])
			if !ok || strings.TrimSpace(id) == "" {
				return true
			}
			m := Message{ID: id, At: fset.Position(call.Pos()).String()}
			if spec.one >= 0 {
				if one, ok := literal(call.Args[spec.one]); ok {
					m.One = one
				}
			}
			if old, seen := out[id]; !seen || (old.One == "" && m.One != "") {
				out[id] = m
			}
			return true
		})
		return nil
	})
	return out, err
}

// internal reports whether a service error is an internal one, whose
// message the user never reads.
func internal(call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if callName(a) == "apperr.Internal" {
			return true
		}
	}
	return false
}

func callName(e ast.Expr) string {
	switch f := e.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
	}
	return ""
}

func literal(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// TOML writes the English catalogue of the messages.
func TOML(msgs map[string]Message) string {
	ids := make([]string, 0, len(msgs))
	for id := range msgs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("# The English messages, written from the source by `go run ./cmd/i18n`.\n# Each message's ID is its English text; see docs/translating.md.\n\n")
	var plurals []Message
	for _, id := range ids {
		m := msgs[id]
		if m.Plural() {
			plurals = append(plurals, m)
			continue
		}
		b.WriteString(Quote(id) + " = " + Quote(id) + "\n")
	}
	for _, m := range plurals {
		b.WriteString("\n[" + Quote(m.ID) + "]\none = " + Quote(m.One) + "\nother = " + Quote(m.ID) + "\n")
	}
	return b.String()
}

// Quote writes a TOML basic string.
func Quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}
