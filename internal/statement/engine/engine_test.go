package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// emptyByDesign are corpus files that hold no transactions and no balances at all.
var emptyByDesign = map[string]bool{
	"cantino__reckon__bom_utf8_file.csv": true, // a PayPal export: the header row and nothing else
}

// TestParseCorpus parses every file of the shared corpus whose format has a parser, through the
// engine: each must give a finished statement with transactions or balances, consistent section
// ranges and a Type on every transaction. The parsers' own golden tests check the contents.
func TestParseCorpus(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir(sharedCorpus)
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("the shared corpus is not beside this checkout")
	}
	require.NoError(t, err)
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(sharedCorpus, dir.Name()))
		require.NoError(t, err)
		for _, f := range files {
			path := filepath.Join(sharedCorpus, dir.Name(), f.Name())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			format, err := Detect(data)
			require.NoError(t, err)
			if _, ok := parsers[format]; !ok {
				continue
			}
			t.Run(f.Name(), func(t *testing.T) {
				t.Parallel()
				st, err := Parse(data, statement.Options{})
				if emptyByDesign[f.Name()] {
					require.ErrorIs(t, err, statement.ErrNoTransactions, "an export without rows is a clear failure, not an empty success")
					return
				}
				require.NoError(t, err)
				require.True(t, len(st.Transactions) > 0 || st.ClosingBalance != nil || st.OpeningBalance != nil)
				for _, s := range st.Sections {
					require.LessOrEqual(t, s.First+s.Count, len(st.Transactions))
				}
				for _, tx := range st.Transactions {
					require.NotEmpty(t, tx.Type)
				}
			})
		}
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("%PDF-1.4 not really"), statement.Options{})
	if _, ok := parsers[statement.FormatPDF]; !ok {
		require.ErrorIs(t, err, statement.ErrNotAStatement)
		require.Contains(t, err.Error(), "not read by this version yet")
	}
	_, err = Parse([]byte{0x00, 0x01, 0x02, 0x00, 0x00, 0x00}, statement.Options{})
	require.ErrorIs(t, err, statement.ErrNotAStatement)
}

func TestParseContainsPanics(t *testing.T) {
	saved, had := parsers[statement.FormatQIF]
	parsers[statement.FormatQIF] = func([]byte, statement.Options) (*statement.Statement, error) { panic("index out of range") }
	defer func() {
		if had {
			parsers[statement.FormatQIF] = saved
		} else {
			delete(parsers, statement.FormatQIF)
		}
	}()
	_, err := Parse([]byte("!Type:Bank\nD01/02/2026\nT1\n^\n"), statement.Options{})
	require.ErrorIs(t, err, statement.ErrInternal)
	var se *statement.Error
	require.ErrorAs(t, err, &se)
	require.NotContains(t, se.Error(), "index out of range", "the client-facing error hides the panic")
	require.Contains(t, err.Error(), "index out of range", "the log-facing text keeps it")
}
