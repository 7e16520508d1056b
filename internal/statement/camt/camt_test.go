package camt

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/statementmatch/service/internal/statement"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestMain(m *testing.M) {
	// As the service sets them at start: amounts are JSON numbers with their stated decimals.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	os.Exit(m.Run())
}

// corpusFiles returns the paths of the corpus documents.
func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.xml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// parseFinished parses and finishes as the engine does.
func parseFinished(data []byte) (*statement.Statement, error) {
	st, err := Parse(data, statement.Options{})
	if err != nil {
		return nil, err
	}
	statement.Finish(st)
	return st, nil
}

func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			st, err := parseFinished(data)
			require.NoError(t, err)
			got, err := json.MarshalIndent(st, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".xml")+".json")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create the golden file")
			if string(want) != string(got) {
				wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
				for i := range min(len(wl), len(gl)) {
					if wl[i] != gl[i] {
						t.Fatalf("%s differs from the golden file at line %d:\nwant %s\ngot  %s\n(go test -update rewrites it)", name, i+1, wl[i], gl[i])
					}
				}
				t.Fatalf("%s differs from the golden file in length: %d lines, want %d", name, len(gl), len(wl))
			}
		})
	}
}

// checkConsistent asserts what every successful parse must hold: sections delimit the
// transactions, and each transaction's Raw is an Ntry element.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	next := 0
	for i, s := range st.Sections {
		require.Equal(t, next, s.First, "section %d starts where the one before it ended", i)
		require.GreaterOrEqual(t, s.Count, 0)
		require.LessOrEqual(t, s.First+s.Count, len(st.Transactions))
		next = s.First + s.Count
	}
	require.Equal(t, len(st.Transactions), next, "sections cover every transaction")
	for _, tx := range st.Transactions {
		require.False(t, tx.Date.IsZero())
		require.Contains(t, tx.Raw, "Ntry")
		require.NotEmpty(t, tx.Pos.Path)
	}
}

func TestCorpusConsistent(t *testing.T) {
	t.Parallel()
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		st, err := parseFinished(data)
		require.NoError(t, err, path)
		checkConsistent(t, st)
	}
}

// mustKind asserts err is a *statement.Error of kind.
func mustKind(t *testing.T, err error, kind error) *statement.Error {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, kind)
	var se *statement.Error
	require.True(t, errors.As(err, &se))
	return se
}
