// Package docs embeds the documentation so the site can serve it: the API
// guide, the record format and the rules as implemented are read by players
// as well as by developers.
package docs

import "embed"

// FS holds the Markdown files.
//
//go:embed *.md
var FS embed.FS
