// Package static holds the browser assets (vendored htmx and its SSE
// extension, the style sheet and the page script), embedded in the binary
// and served under content-hashed names so they can be cached for a year.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed *.js *.css *.svg *.png
var files embed.FS

// swSource is the service worker, served at /sw.js (its scope is the
// whole site, so it cannot live under /static/) with the hashed assets
// filled in.
//
//go:embed worker/sw.js
var swSource string

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
	case ".png":
		return "image/png"
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

// Paths lists the URLs of every asset, sorted.
func Paths() []string {
	out := make([]string, 0, len(assets))
	for name := range assets {
		out = append(out, Path(name))
	}
	sort.Strings(out)
	return out
}

var serviceWorker = buildServiceWorker()

// buildServiceWorker fills the asset list and a version made of it into
// the worker: a new build has new hashed names, so a new worker, which
// drops the old cache.
func buildServiceWorker() []byte {
	list, _ := json.Marshal(Paths())
	sum := sha256.Sum256(list)
	out := strings.Replace(swSource, "[/*ASSETS*/]", string(list), 1)
	out = strings.Replace(out, "/*VERSION*/", hex.EncodeToString(sum[:])[:10], 1)
	return []byte(out)
}

// ServiceWorker is the service worker script.
func ServiceWorker() []byte { return serviceWorker }
