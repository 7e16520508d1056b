// Package migrations holds the goose SQL migrations of the statementd schema.
//
// The files are embedded into the binary so that statementd can migrate its
// database on start without shipping a migrations folder next to it, and so
// that tests migrate exactly what production migrates.
package migrations

import "embed"

// FS holds every *.sql migration in this folder, named NNNNN_description.sql
// as goose expects.
//
//go:embed *.sql
var FS embed.FS
