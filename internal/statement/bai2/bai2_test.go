package bai2

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

func TestMain(m *testing.M) {
	statementtest.SetDecimalJSON()
	os.Exit(m.Run())
}

// parseFinished parses data and completes it as the engine does, and checks that Stream reads
// the same.
func parseFinished(t testing.TB, data []byte) *statement.Statement {
	t.Helper()
	statementtest.ParsedAndStreamed(t, data, statement.Options{}, Parse, Stream)
	st, err := Parse(data, statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	return st
}

// TestGolden parses every corpus file and compares the finished statement with its golden JSON;
// go test -update rewrites them (review each by hand against its source file).
func TestGolden(t *testing.T) {
	t.Parallel()
	statementtest.RunCorpus(t, statementtest.CorpusDir, func(t *testing.T, path string, data []byte) {
		st := parseFinished(t, data)
		statementtest.Golden(t, statementtest.GoldenPath(path, ".txt"), st, statementtest.EscapeHTML())
	})
}
