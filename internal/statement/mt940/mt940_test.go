package mt940

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

// parseFinished parses data and runs statement.Finish, as the engine does. It calls parse, not
// Parse, so that a crash is a crash and not an error.
func parseFinished(t testing.TB, data []byte) *statement.Statement {
	t.Helper()
	st, err := parse(data, statement.Options{})
	require.NoError(t, err)
	requireConsistent(t, st)
	// Stream, which the parse jobs use, must read it as Parse does.
	statementtest.ParsedAndStreamed(t, data, statement.Options{}, parse, stream)
	statement.Finish(st)
	return st
}

// requireConsistent checks what every parsed statement must satisfy: sections delimit the
// transactions in order without overlap, and every transaction says where it came from.
func requireConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.True(t, len(st.Transactions) > 0 || statesClosing(st), "transactions, or statements without activity that close")
	require.NotEmpty(t, st.Sections)
	statementtest.RequireSections(t, st)
	for _, tx := range st.Transactions {
		require.NotEmpty(t, tx.Raw)
		require.Positive(t, tx.Pos.Line)
		require.False(t, tx.Date.IsZero())
		require.NotEmpty(t, tx.Type)
	}
}

// TestCorpus compares each corpus file's finished statement with its golden JSON; -update
// rewrites them.
func TestCorpus(t *testing.T) {
	t.Parallel()
	statementtest.RunCorpus(t, statementtest.CorpusDir, func(t *testing.T, path string, data []byte) {
		st := parseFinished(t, data)
		statementtest.Golden(t, statementtest.GoldenPath(path, ""), st, statementtest.EscapeHTML())
	})
}
