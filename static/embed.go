// Package static holds the browser assets (vendored htmx and its SSE
// extension, the style sheet and the page script), embedded in the binary
// and served under content-hashed names so they can be cached for a year.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

//go:embed *.js *.css *.svg
var files embed.FS

// Asset is one embedded file under its hashed name.
type Asset struct {
	Name        string // e.g. htmx.min.js
	HashedName  string // e.g. htmx.min.3f2a9c1b.js
	ContentType string
	Body        []byte
}

var assets = load()

func load() map[string]Asset {
	out := map[string]Asset{}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		body, err := files.ReadFile(e.Name())
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:])[:10] + ext
		out[e.Name()] = Asset{Name: e.Name(), HashedName: hashed, ContentType: contentType(ext), Body: body}
	}
	return out
}

func contentType(ext string) string {
	switch ext {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

// Path is the URL of an asset by its plain name; it panics on a name that is
// not embedded, which a test of every page catches.
func Path(name string) string {
	a, ok := assets[name]
	if !ok {
		panic("static: no asset " + name)
	}
	return "/static/" + a.HashedName
}

// ByHashedName finds an asset by the name in its URL.
func ByHashedName(hashed string) (Asset, bool) {
	for _, a := range assets {
		if a.HashedName == hashed {
			return a, true
		}
	}
	return Asset{}, false
}
