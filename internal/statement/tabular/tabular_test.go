package tabular

import (
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

func TestMain(m *testing.M) {
	// As the service sets them at start: amounts keep their stated decimals.
	decimal.MarshalJSONWithoutQuotes = true
	decimal.TrimTrailingZeros = false
	os.Exit(m.Run())
}

func TestScanDate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		dmy, mdy string // "" when the cell is no date under that order
	}{
		{"31.12.2024", "2024-12-31", ""},
		{"12/31/2024", "", "2024-12-31"},
		{"01/02/2024", "2024-02-01", "2024-01-02"},
		{"09.01.00 00:58", "2000-01-09", "2000-09-01"},
		{"2024-12-31", "2024-12-31", "2024-12-31"},
		{"2019.04.19.", "2019-04-19", "2019-04-19"},
		{"1111/11/11", "1111-11-11", "1111-11-11"},
		{"20190311", "2019-03-11", "2019-03-11"},
		{"20091224120000[0:GMT]", "2009-12-24", "2009-12-24"},
		{"2018-02-25 12:34:56 +0000", "2018-02-25", "2018-02-25"},
		{"2002-09-10T23:00:04", "2002-09-10", "2002-09-10"},
		{"20-01-2024 14:30:25.123", "2024-01-20", ""},
		{"27 Feb 2018", "2018-02-27", "2018-02-27"},
		{"10 Feb 18", "2018-02-10", "2018-02-10"},
		{"10-Nov-9", "2009-11-10", "2009-11-10"},
		{"Nov 10, 2009", "2009-11-10", "2009-11-10"},
		{"3. März 2024", "2024-03-03", "2024-03-03"},
		{"5 ledna 2024", "2024-01-05", "2024-01-05"},
		{"12 січня 2024", "2024-01-12", "2024-01-12"},
		{"1 sausio 2024", "2024-01-01", "2024-01-01"},
		{"29.02.2023", "", ""},
		{"15/04/18  66-6666 UBER EATS", "", ""},
		{"2013011702", "", ""},
		{"123456", "", ""},
		{"10.03. 09:53", "", ""},
		{"hello world", "", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			rd, ok := scanDate(tc.in)
			for _, o := range []struct {
				order dateOrder
				want  string
			}{{orderDMY, tc.dmy}, {orderMDY, tc.mdy}} {
				got := ""
				if ok {
					if d, ok := rd.resolve(o.order); ok {
						got = d.String()
					}
				}
				require.Equal(t, o.want, got, "order %s", o.order)
			}
		})
	}
}

func TestScanNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in           string
		point, comma string // value with that decimal mark; "" when it does not read
		evidence     markEvidence
		currency     string
	}{
		{"1234.56", "1234.56", "", evPoint, ""},
		{"1.234,56", "", "1234.56", evComma, ""},
		{"1,234.56", "1234.56", "", evPoint, ""},
		{"-1,00", "", "-1.00", evComma, ""},
		{"1,234", "1234", "1.234", evAmbiguousComma, ""},
		{"1.234", "1.234", "1234", evAmbiguousPoint, ""},
		{"0,125", "", "0.125", evComma, ""},
		{"1.234.567", "", "1234567", evComma, ""},
		{"1 234,56", "", "1234.56", evComma, ""},
		{"1\u00a0234,56", "", "1234.56", evComma, ""},
		{"1'234.50", "1234.50", "", evPoint, ""},
		{"1,23,456.78", "123456.78", "", evPoint, ""},
		{"($85.00)", "-85.00", "", evPoint, ""},
		{"- $21.59", "-21.59", "", evPoint, ""},
		{"+$327.49", "327.49", "", evPoint, ""},
		{"$.23", "0.23", "", evPoint, ""},
		{"£500.00", "500.00", "", evPoint, "GBP"},
		{"1234,37 EUR", "", "1234.37", evComma, "EUR"},
		{"EUR -5,00", "", "-5.00", evComma, "EUR"},
		{"1.234,56-", "", "-1234.56", evComma, ""},
		{"123.45 CR", "123.45", "", evPoint, ""},
		{"123.45 DR", "-123.45", "", evPoint, ""},
		{"-10", "-10", "-10", evNone, ""},
		{"500.", "500", "500", evNone, ""},
		{"-123456789012345678901234567890.12", "-123456789012345678901234567890.12", "", evPoint, ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			n, ok := scanNumber(tc.in)
			require.True(t, ok)
			require.Equal(t, tc.evidence, n.evidence())
			require.Equal(t, tc.currency, n.currency)
			for _, m := range []struct {
				mark byte
				want string
			}{{'.', tc.point}, {',', tc.comma}} {
				got := ""
				if v, ok := n.value(m.mark); ok {
					got = v.String()
				}
				require.Equal(t, m.want, got, "mark %c", m.mark)
			}
		})
	}
	for _, no := range []string{"", "abc", "8.10 SGD @ .9765", "2020-02-20", "1-2", "--5", "12 apples", "—", strings.Repeat("9", 41)} {
		_, ok := scanNumber(no)
		require.False(t, ok, no)
	}
}

func TestMatchHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in       string
		role     role
		currency string
	}{
		{"Buchungstag", roleDate, ""},
		{"Valuta", roleValueDate, ""},
		{"Withdrawals (SGD)", roleDebit, "SGD"},
		{"Částka CZK", roleAmount, "CZK"},
		{"Сума в валюті картки (UAH)", roleAmount, "UAH"},
		{"Cума списання", roleDebit, ""}, // a Latin C among Cyrillic letters
		{"Exchange To Amount", roleIgnore, ""},
		{"Originalbetrag", roleIgnore, ""},
		{"D/K", roleFlag, ""},
		{"Af Bij", roleFlag, ""},
		{"Naam tegenpartij", rolePayee, ""},
		{"Tegenrekening", roleCPAccount, ""},
		{"Verwendungszweck", roleDesc, ""},
		{"VS", roleRef, ""},
		{"Saldo na mutatie", roleBalance, ""},
		{"Beløb", roleAmount, ""},
		{"Kwota operacji", roleAmount, ""},
		{"Összeg", roleAmount, ""},
		{"Likutis", roleBalance, ""},
		{"Наш рахунок", roleOwnAccount, ""},
		{"Date de l'opération", roleDate, ""},
		{"Transaction amount in account currency", roleAmount, ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			h := matchHeader(tc.in)
			require.NotEmpty(t, h.matches)
			require.Equal(t, tc.role, h.matches[0].role, "%+v", h.matches)
			require.Equal(t, tc.currency, h.currency)
		})
	}
}

// sheet builds a table as a spreadsheet reader would: rows with a sheet and line each.
func sheet(rows ...[]string) Table {
	t := Table{Format: statement.FormatXLSX}
	for i, cells := range rows {
		t.Rows = append(t.Rows, Row{Cells: cells, Pos: statement.Position{Sheet: "Umsätze", Line: i + 1},
			Raw: strings.Join(cells, "\t")})
	}
	return t
}

// TestExtractSpreadsheetRows reads a table as the Excel parser hands it over, with typed cells
// written in canonical form: their three decimals do not make the table's mark ambiguous.
func TestExtractSpreadsheetRows(t *testing.T) {
	t.Parallel()
	tbl := sheet(
		[]string{"Kontoauszug", ""},
		[]string{"IBAN", "DE89 3704 0044 0532 0130 00"},
		[]string{"Buchungstag", "Verwendungszweck", "Betrag", "Saldo"},
		[]string{"2024-01-02", "Miete", "-1234.5", "765.5"},
		[]string{"2024-01-03", "Zinsen", "0.125", "765.625"},
	)
	for i := 3; i < 5; i++ {
		tbl.Rows[i].Canonical = []bool{true, false, true, true}
	}
	st, err := Extract(tbl, statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	require.Equal(t, statement.FormatXLSX, st.Format)
	require.Empty(t, st.Problems)
	require.Len(t, st.Transactions, 2)
	require.Equal(t, "-1234.5", st.Transactions[0].Amount.String())
	require.Equal(t, "0.125", st.Transactions[1].Amount.String())
	require.Equal(t, "DE89 3704 0044 0532 0130 00", st.Account)
	require.Equal(t, "2000.0", st.OpeningBalance.String())
	require.Equal(t, "Umsätze", st.Transactions[0].Pos.Sheet)
	require.Equal(t, 4, st.Transactions[0].Pos.Line)
	require.Empty(t, st.Review)
}

// TestExtractScanReusesCells: a reader may hand over the same cells slice for every row.
func TestExtractScanReusesCells(t *testing.T) {
	t.Parallel()
	lines := []string{"Date;Description;Amount", "2024-01-01;A;-1,00", "2024-01-02;B;2,50"}
	tbl := Table{Format: statement.FormatCSV, Scan: func(yield func(Row) bool) {
		cells := make([]string, 0, 8)
		for i, l := range lines {
			cells = append(cells[:0], strings.Split(l, ";")...)
			if !yield(Row{Cells: cells, Pos: statement.Position{Line: i + 1}, Raw: l}) {
				return
			}
		}
	}}
	st, err := Extract(tbl, statement.Options{})
	require.NoError(t, err)
	require.Len(t, st.Transactions, 2)
	require.Equal(t, "A", st.Transactions[0].Description)
	require.Equal(t, "2.50", st.Transactions[1].Amount.String())
	require.Equal(t, "header=1;lang=en;decimal=comma;dates=YMD;amount=signed", st.Dialect)
}

func TestExtractErrors(t *testing.T) {
	t.Parallel()
	_, err := Extract(Table{}, statement.Options{})
	require.ErrorIs(t, err, statement.ErrNotAStatement)
	_, err = Extract(sheet([]string{"a", "b"}, []string{"c", "d"}), statement.Options{})
	require.ErrorIs(t, err, statement.ErrNotAStatement)
	require.Contains(t, err.Error(), "no column of dates and amounts found")
	_, err = Extract(sheet([]string{"Date", "Amount"}, []string{"2024-01-01", "1.00"}, []string{"2024-01-02", "2.00"}),
		statement.Options{MaxRows: 1})
	require.ErrorIs(t, err, statement.ErrTooManyRows)
}

func TestHeaderMatches(t *testing.T) {
	t.Parallel()
	require.Equal(t, 4, HeaderMatches([]string{"Buchungstag", "Valuta", "Verwendungszweck", "Betrag", "x"}))
	require.Equal(t, 0, HeaderMatches([]string{"01.01.2024", "-5,00", "REWE"}))
}

// TestExtractSummaryRowOverValueRow reads balances from a summary laid out as a row of labels
// above a row of values, and a Romanian header with debit and credit columns.
func TestExtractSummaryRowOverValueRow(t *testing.T) {
	t.Parallel()
	tbl := sheet(
		[]string{"Cod IBAN:", "RO69RZBR1234567890123456", "Valuta:", "LEI"},
		[]string{"Sold initial", "Rulaj debitor", "Rulaj creditor", "Sold final"},
		[]string{"1000.00", "100.00", "50.00", "950.00"},
		[]string{"Data inregistrare", "Suma debit", "Suma credit", "Nume/Denumire \n ordonator/beneficiar", "Descrierea tranzactiei"},
		[]string{"22/01/2018", "100", "", "", "Plata card"},
		[]string{"23/01/2018", "", "50", "FIRMA SRL", "Incasare"},
	)
	st, err := Extract(tbl, statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	require.Equal(t, "1000.00", st.OpeningBalance.String())
	require.Equal(t, "950.00", st.ClosingBalance.String())
	require.Equal(t, "RON", st.Currency)
	require.Equal(t, "RO69RZBR1234567890123456", st.Account)
	require.Len(t, st.Transactions, 2)
	require.Equal(t, "-100", st.Transactions[0].Amount.String(), "Suma debit is money out")
	require.Equal(t, "50", st.Transactions[1].Amount.String())
	require.Equal(t, "FIRMA SRL", st.Transactions[1].CounterpartyName)
	require.Equal(t, "Plata card", st.Transactions[0].Description)
	require.Empty(t, st.Review, "the balances add up")
}
