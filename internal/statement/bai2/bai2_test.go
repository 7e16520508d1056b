package bai2

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

var update = flag.Bool("update", false, "rewrite the golden files from the parser's output")

func TestMain(m *testing.M) {
	// As the service sets them at start: amounts are JSON numbers with their stated decimals.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	os.Exit(m.Run())
}

// parseFinished parses data and completes it as the engine does.
func parseFinished(t testing.TB, data []byte) *statement.Statement {
	t.Helper()
	st, err := Parse(data, statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	return st
}

func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// TestGolden parses every corpus file and compares the finished statement with its golden JSON;
// go test -update rewrites them (review each by hand against its source file).
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			st := parseFinished(t, data)
			got, err := json.MarshalIndent(st, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".txt")+".json")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
		})
	}
}
