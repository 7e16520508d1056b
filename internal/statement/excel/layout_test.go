package excel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
)

// twoHeaderWorkbook is a statement laid out as banks' and accounting packages' workbooks are
// (REAL-WORLD-STATEMENTS.md item 10): a title merged across the table, account and period lines,
// a header of two rows (Date, Description and Balance merged down over both; "Amount" merged
// across its sub-labels "Debit" and "Credit" on the second row), date and number cells, and
// under the table a summary block of totals and the closing balance.
//
// merged says whether the header cells are merged as described; exporters that write no merges
// leave the cells under Date, Description and Balance empty instead. sub names the second
// header row's labels.
func twoHeaderWorkbook(t testing.TB, merged bool, sub [2]string) []byte {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	return xlsxFile(t, func(f *excelize.File) {
		const sh = "Sheet1"
		date := style(t, f, 14, "")
		money := style(t, f, 4, "") // #,##0.00
		d := func(v time.Time) excelize.Cell { return excelize.Cell{Value: v, StyleID: date} }
		m := func(v float64) excelize.Cell { return excelize.Cell{Value: v, StyleID: money} }
		setRows(t, f, sh, [][]any{
			{"Statement of account"},
			{"Account:", "GB33BUKB20201555555555", nil, "Currency:", "GBP"},
			{"Period:", "01/03/2026 - 31/03/2026"},
			{},
			{"Date", "Description", "Amount", nil, "Balance"},
			{nil, nil, sub[0], sub[1]},
			{d(day(1)), "Opening balance", nil, nil, m(1000)},
			{d(day(2)), "Card payment TESCO", m(23.40), nil, m(976.60)},
			{d(day(5)), "Salary ACME LTD", nil, m(2500), m(3476.60)},
			{d(day(9)), "Direct debit British Gas", m(61.25), nil, m(3415.35)},
			{d(day(20)), "Transfer to savings", m(500), nil, m(2915.35)},
			{},
			{"Total debits", nil, m(584.65)},
			{"Total credits", nil, nil, m(2500)},
			{"Closing balance", nil, nil, nil, m(2915.35)},
		})
		if !merged {
			return
		}
		must(t, f.MergeCell(sh, "A1", "E1"))
		must(t, f.MergeCell(sh, "A5", "A6"))
		must(t, f.MergeCell(sh, "B5", "B6"))
		must(t, f.MergeCell(sh, "C5", "D5"))
		must(t, f.MergeCell(sh, "E5", "E6"))
	})
}

// TestTwoHeaderRowsMergedTitleAndSummary reads a workbook with a merged title, a header of two
// rows and a summary block under the table: the four transactions with their signs from the
// Debit and Credit sub-columns, the opening and closing balances, and the summary rows mined,
// not read as transactions. With merged header cells the reader's fill of merged ranges
// (fillMerges) makes the second header row whole (Date and Description shown on it too), which
// the table layer reads as the header.
func TestTwoHeaderRowsMergedTitleAndSummary(t *testing.T) {
	t.Parallel()
	// Without merges the two rows are still one header: the row under it holds only names
	// (tabular's subHeader).
	tests := []struct {
		name   string
		merged bool
		sub    [2]string
	}{
		{"merged header cells over Debit and Credit sub-labels", true, [2]string{"Debit", "Credit"}},
		{"Paid out and Paid in sub-labels under a merged Amount", true, [2]string{"Paid out", "Paid in"}},
		{"the same header without merges", false, [2]string{"Debit", "Credit"}},
		{"Money out and Money in sub-labels without merges", false, [2]string{"Money out", "Money in"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseFinished(t, twoHeaderWorkbook(t, tc.merged, tc.sub))
			require.NoError(t, err)
			checkConsistent(t, st)
			var amounts, descs []string
			for _, x := range st.Transactions {
				amounts = append(amounts, x.Amount.StringFixed(2))
				descs = append(descs, x.Description)
			}
			require.Equal(t, []string{"Card payment TESCO", "Salary ACME LTD", "Direct debit British Gas", "Transfer to savings"}, descs, st.Dialect)
			require.Equal(t, []string{"-23.40", "2500.00", "-61.25", "-500.00"}, amounts)
			require.Equal(t, "GB33BUKB20201555555555", st.Account)
			require.NotNil(t, st.OpeningBalance)
			require.NotNil(t, st.ClosingBalance)
			require.Equal(t, "1000.00", st.OpeningBalance.StringFixed(2))
			require.Equal(t, "2915.35", st.ClosingBalance.StringFixed(2))
			require.Empty(t, st.Review, "the balances reconcile")
			require.Equal(t, statement.Position{Sheet: "Sheet1", Line: 8}, st.Transactions[0].Pos)
		})
	}
}
