package mt940

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestMain(m *testing.M) {
	// As the server sets them at start: amounts are JSON numbers with the decimals they were
	// written with.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	os.Exit(m.Run())
}

// corpusFiles lists the real statement files in testdata/corpus.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir("testdata/corpus")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.Name() != "SOURCES.md" && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	require.NotEmpty(t, names)
	return names
}

// parseFinished parses data and runs statement.Finish, as the engine does. It calls parse, not
// Parse, so that a crash is a crash and not an error.
func parseFinished(t testing.TB, data []byte) *statement.Statement {
	t.Helper()
	st, err := parse(data, statement.Options{})
	require.NoError(t, err)
	requireConsistent(t, st)
	statement.Finish(st)
	return st
}

// requireConsistent checks what every parsed statement must satisfy: sections delimit the
// transactions in order without overlap, and every transaction says where it came from.
func requireConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotEmpty(t, st.Transactions)
	require.NotEmpty(t, st.Sections)
	next := 0
	for i, s := range st.Sections {
		require.Equal(t, next, s.First, "section %d starts where the one before it ended", i)
		require.GreaterOrEqual(t, s.Count, 0)
		next = s.First + s.Count
		require.LessOrEqual(t, next, len(st.Transactions))
	}
	require.Equal(t, len(st.Transactions), next, "every transaction is in a section")
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
	for _, name := range corpusFiles(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata/corpus", name))
			require.NoError(t, err)
			st := parseFinished(t, data)
			got, err := json.MarshalIndent(st, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			golden := filepath.Join("testdata/golden", name+".json")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "no golden file; run go test -update")
			require.Equal(t, string(want), string(got))
		})
	}
}
