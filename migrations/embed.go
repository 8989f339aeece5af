// Package migrations holds the numbered SQL migrations, embedded so that the
// binary applies them at start (goose, each in a transaction). A migration
// that has landed is never edited; add a new one.
package migrations

import "embed"

// FS is the migration files.
//
//go:embed *.sql
var FS embed.FS
