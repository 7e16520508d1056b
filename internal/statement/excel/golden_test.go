package excel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// parseFinished parses and finishes as the engine does, and checks that Stream reads the same.
func parseFinished(t testing.TB, data []byte) (*statement.Statement, error) {
	t.Helper()
	return statementtest.ParsedAndStreamed(t, data, statement.Options{}, Parse, Stream)
}

func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	statementtest.RunCorpus(t, statementtest.CorpusDir, func(t *testing.T, path string, data []byte) {
		st, err := parseFinished(t, data)
		require.NoError(t, err)
		checkConsistent(t, st)
		statementtest.Golden(t, statementtest.GoldenPath(path, ""), st)
	})
}

// checkConsistent asserts what every successful parse must hold: sections delimit the
// transactions in order, and each transaction has a date and says which sheet and row it is.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	require.Contains(t, []statement.Format{statement.FormatXLSX, statement.FormatXLS, statement.FormatHTML, statement.FormatSpreadsheetML}, st.Format)
	require.True(t, strings.HasPrefix(st.Dialect, string(st.Format)+";"), st.Dialect)
	statementtest.RequireSections(t, st)
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
	st, err := parseFinished(t, readCorpus(t, raiffeisenXLS))
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
