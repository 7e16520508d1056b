package excel

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// corpusFiles returns the corpus files (every file but SOURCES.md).
func corpusFiles(t testing.TB) []string {
	all, err := filepath.Glob(filepath.Join("testdata", "corpus", "*"))
	require.NoError(t, err)
	var files []string
	for _, f := range all {
		if filepath.Base(f) != "SOURCES.md" {
			files = append(files, f)
		}
	}
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
			st, err := parseFinished(readCorpus(t, path))
			require.NoError(t, err)
			checkConsistent(t, st)
			got := marshal(t, st)
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create the golden file")
			require.Equal(t, string(want), string(got))
		})
	}
}

// marshal writes the statement as the golden files hold it: indented JSON, with '<' and '>'
// left as they are so that Raw reads like the file.
func marshal(t testing.TB, st *statement.Statement) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(st))
	return b.Bytes()
}

// checkConsistent asserts what every successful parse must hold: sections delimit the
// transactions in order, and each transaction has a date and says which sheet and row it is.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	require.Contains(t, []statement.Format{statement.FormatXLSX, statement.FormatXLS}, st.Format)
	require.True(t, strings.HasPrefix(st.Dialect, string(st.Format)+";"), st.Dialect)
	next := 0
	for i, s := range st.Sections {
		require.Equal(t, next, s.First, "section %d starts where the one before it ended", i)
		require.GreaterOrEqual(t, s.Count, 0)
		require.LessOrEqual(t, s.First+s.Count, len(st.Transactions))
		next = s.First + s.Count
	}
	require.Equal(t, len(st.Transactions), next, "every transaction belongs to a section")
	for _, x := range st.Transactions {
		require.NotEmpty(t, x.Raw)
		require.Positive(t, x.Pos.Line)
		require.NotEmpty(t, x.Pos.Sheet)
		require.False(t, x.Date.IsZero())
	}
}

// TestCorpusFacts pins the facts of the Raiffeisen file checked by hand against the file (cells
// read with the dump of TestXLSRaiffeisenTable): five transactions on 22/01/2018, amounts 100,
// 10, 70.5, 100 and 19.5 (the fourth in the "Suma credit" column, the others in "Suma debit"),
// the account RO69RZBR1234567890123456, the period 22/01/2018 to 31/01/2018 and the BIC
// RZBAAAAA (anonymised: no real bank has it, so no bank name). The signs, descriptions and
// counterparties are the table layer's to get right from the Romanian headers; the golden file
// holds what it makes of them today.
func TestCorpusFacts(t *testing.T) {
	t.Parallel()
	st, err := parseFinished(readCorpus(t, raiffeisenXLS))
	require.NoError(t, err)
	require.Equal(t, statement.FormatXLS, st.Format)
	require.True(t, strings.HasPrefix(st.Dialect, "xls;biff8;codepage=1200;sheet=Pagina 1;"), st.Dialect)
	require.Equal(t, "RZBAAAAA", st.BankID)
	require.Empty(t, st.BankName)
	require.Equal(t, "RO69RZBR1234567890123456", st.Account)
	require.Equal(t, "2018-01-22", st.PeriodStart.String())
	require.Equal(t, "2018-01-31", st.PeriodEnd.String())
	require.Len(t, st.Transactions, 5)
	for i, want := range []string{"100", "10", "70.5", "100", "19.5"} {
		tx := st.Transactions[i]
		require.Equal(t, "2018-01-22", tx.Date.String())
		require.True(t, tx.Amount.Abs().Equal(dec(want)), "transaction %d: %s", i, tx.Amount)
		require.Equal(t, statement.Position{Sheet: "Pagina 1", Line: 19 + i}, tx.Pos)
	}
	require.Equal(t, "22/01/2018\t22/01/2018\t\t100\t123\t12345678\t\t\tFIRMA SRL\tSOMEBANK ROMANIA\tRO77CITI1234567123456789\tOPH/unknown stuff |stuff |stuff",
		st.Transactions[3].Raw)
}
