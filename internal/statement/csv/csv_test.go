package csv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

func TestMain(m *testing.M) {
	statementtest.SetDecimalJSON()
	os.Exit(m.Run())
}

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
// transactions in order, and each transaction keeps its record's text and position.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	require.Equal(t, statement.FormatCSV, st.Format)
	require.True(t, strings.HasPrefix(st.Dialect, "csv;charset="), st.Dialect)
	statementtest.RequireSections(t, st)
	for _, x := range st.Transactions {
		require.NotEmpty(t, x.Raw)
		require.Positive(t, x.Pos.Line)
		require.False(t, x.Date.IsZero())
	}
}

// TestCorpusFacts pins, per corpus file, the facts checked by hand against the source file,
// so that a golden rewrite cannot change them unnoticed.
func TestCorpusFacts(t *testing.T) {
	t.Parallel()
	type fact struct {
		file                    string
		count                   int
		first, last             string // amount of the first and last transaction
		account, currency, bank string
		opening, closing        string
		dialect                 []string
	}
	for _, f := range []fact{
		{file: "OSadovy__uabean__ReportAlfa-Bank_20221005_124902.csv", count: 7, first: "-1018.23", last: "-5018.23", bank: "Sense Bank",
			dialect: []string{"charset=windows-1251", "amount=flag"}},
		{file: "OSadovy__uabean__alfabank-uah.csv", count: 6, first: "-150.00", last: "1600.00", account: "UA111111111111111111111111111",
			currency: "UAH", bank: "Sense Bank", dialect: []string{"charset=windows-1251", "header=6", "decimal=comma"}},
		{file: "OSadovy__uabean__monobank-black-UAH_01-06-23_15-03-59.csv", count: 4, first: "19.32", last: "-180", currency: "UAH",
			bank: "monobank", opening: "9480.09", closing: "100000", dialect: []string{"balances=running"}},
		{file: "OSadovy__uabean__procredit.csv", count: 6, first: "-100.00", last: "18475.00", bank: "ProCredit Bank",
			dialect: []string{"amount=debit-credit"}},
		{file: "OSadovy__uabean__wise-personal-new-format-EUR.csv", count: 4, first: "-35.50", last: "-300.00", currency: "EUR", bank: "Wise",
			opening: "2035.50", closing: "2009.50"},
		{file: "OSadovy__uabean__wise-personal-old-format-EUR.csv", count: 4, first: "-19.72", last: "-25.00", currency: "EUR", bank: "Wise",
			opening: "1519.72", closing: "900.00"},
		{file: "bank2ynab__bank2ynab__20180226_12345678.csv", count: 1, first: "-5.00", last: "-5.00", opening: "1000.00", closing: "995.00",
			dialect: []string{"dates=DMY"}},
		{file: "bank2ynab__bank2ynab__MonzoDataExport_February2018_2018-02-26_174335.csv", count: 1, first: "-10", last: "-10",
			currency: "GBP", bank: "Monzo"},
		{file: "bank2ynab__bank2ynab__Movements_1234512345_201805271848.csv", count: 1, first: "-1.00", last: "-1.00",
			account: "123456789/1234", currency: "CZK", bank: "Raiffeisenbank", dialect: []string{"charset=windows-1250"}},
		{file: "bank2ynab__bank2ynab__TH_20180101-20180523_page_1.csv", count: 9, first: "-111.11", last: "-1111.11", currency: "CZK",
			bank: "Česká spořitelna", dialect: []string{"charset=windows-1250", "dates=YMD"}},
		{file: "bank2ynab__bank2ynab__TH_20180101-20180523_strana_1.csv", count: 9, first: "-111.11", last: "-1111.11", currency: "CZK",
			bank: "Česká spořitelna", dialect: []string{"charset=windows-1250", "lang=cs"}},
		{file: "bank2ynab__bank2ynab__TransactionHistory_20180418043121.csv", count: 8, first: "-6.66", last: "-6.66",
			account: "666-666666-666", currency: "SGD", bank: "OCBC Bank", dialect: []string{"header=6", "order=newest-first"}},
		{file: "bank2ynab__bank2ynab__W80844_EBH_201945.202122.csv", count: 2, first: "-350", last: "1290", currency: "HUF", opening: "-234.44", closing: "2345.56",
			bank: "Erste Bank Hungary", dialect: []string{"dates=YMD"}},
		{file: "bank2ynab__bank2ynab__dba33fceecd62c3c727893361e0ba4d3.P000000027355791.csv", count: 1, first: "-7.80", last: "-7.80",
			dialect: []string{"header=none", "amount=debit-credit"}},
		{file: "bank2ynab__bank2ynab__export_BE11123456789012_20180304_1422.csv", count: 1, first: "-3.40", last: "-3.40",
			account: "BE11123456789012", currency: "EUR", bank: "KBC", opening: "223.35", closing: "219.95"},
		{file: "bank2ynab__bank2ynab__kta_ei.dat", count: 11, first: "-89.30", last: "-170.63", currency: "EUR", dialect: []string{"delim=pipe"}},
		{file: "bank2ynab__bank2ynab__statement_1.csv", count: 1, first: "-20.59", last: "-20.59", dialect: []string{"header=none"}},
		{file: "bank2ynab__bank2ynab__test_BOI_TransactionExport.csv", count: 27, first: "428.03", last: "-818.0", opening: "-328.03"},
		{file: "bank2ynab__bank2ynab__test_raiffeisen_01.csv", count: 73, first: "-33.87", last: "-81.99", currency: "EUR"},
		{file: "bank2ynab__bank2ynab__test_swedebank_statement.xls", count: 13, first: "-15.31", last: "2863.63",
			account: "LT357300000000000000", currency: "LTL", bank: "Swedbank", opening: "10374.04", closing: "12952.97",
			dialect: []string{"balances=stated", "amount=flag"}},
		{file: "bank2ynab__bank2ynab__umsatz-1234________1234-20180227.CSV", count: 1, first: "-5.00", last: "-5.00", currency: "EUR",
			dialect: []string{"charset=iso-8859-1", "layout=sparkasse-creditcard"}},
		{file: "cantino__reckon__85-date-example.csv", count: 2, first: "-7.91", last: "-5.86", account: "4514010000000000"},
		{file: "cantino__reckon__abnamro_tab_delimited_input.csv", count: 2, first: "-5.00", last: "-10.00", account: "123456789",
			currency: "EUR", bank: "ABN AMRO", opening: "15.00", closing: "0.00", dialect: []string{"delim=tab"}},
		{file: "cantino__reckon__austrian_example.csv", count: 13, first: "-18.00", last: "-39.00", account: "00075757575", currency: "EUR"},
		{file: "cantino__reckon__bom_utf8_file.csv", count: 0, bank: "PayPal", dialect: []string{"charset=utf-8-bom"}},
		{file: "cantino__reckon__chase.csv", count: 9, first: "-85.00", last: "2105.00"},
		{file: "cantino__reckon__danish_kroner_nordea_example.csv", count: 6, first: "-48.00", last: "-655.00", dialect: []string{"decimal=comma"}},
		{file: "cantino__reckon__extratofake.csv", count: 22, first: "100.00", last: "-100.00", bank: "Banco do Brasil", opening: "100.00",
			dialect: []string{"charset=iso-8859-1", "dates=MDY"}},
		{file: "cantino__reckon__french_example.csv", count: 9, first: "-10.00", last: "-25.65", account: "01234567890"},
		{file: "cantino__reckon__harder_date_example.csv", count: 5, first: "-123.12", last: "-123.12"},
		{file: "cantino__reckon__ing.csv", count: 3, first: "-136.13", last: "-257.50", dialect: []string{"amount=flag"}},
		{file: "cantino__reckon__intuit_mint_example.csv", count: 7, first: "0.01", last: "-559.96", dialect: []string{"dates=MDY", "amount=flag"}},
		{file: "cantino__reckon__invalid_header_example.csv", count: 2, first: "50.00", last: "-8.10", account: "0234500012345678", currency: "EUR",
			dialect: []string{"header=4"}},
		{file: "cantino__reckon__inversed_credit_card.csv", count: 16, first: "-30.00", last: "18.00", dialect: []string{"amount=inverted"}},
		{file: "cantino__reckon__multi-line-field.csv", count: 1, first: "-21.59", last: "-21.59"},
		{file: "cantino__reckon__nationwide.csv", count: 4, first: "500.00", last: "-100.00", currency: "GBP", opening: "0.00", closing: "360.23"},
		{file: "cantino__reckon__some_other.csv", count: 9, first: "-85.00", last: "2105.00"},
		{file: "cantino__reckon__suntrust.csv", count: 7, first: "500.00", last: "700.00", opening: "0.00", closing: "700.00",
			dialect: []string{"dates=MDY", "amount=debit-credit"}},
		{file: "cantino__reckon__two_money_columns.csv", count: 5, first: "-76.00", last: "88.55", opening: "1210.02", closing: "1750.06", dialect: []string{"dates=MDY"}},
	} {
		t.Run(f.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", "corpus", f.file))
			require.NoError(t, err)
			st, err := parseFinished(t, data)
			require.NoError(t, err)
			require.Len(t, st.Transactions, f.count)
			if f.count > 0 {
				require.Equal(t, f.first, st.Transactions[0].Amount.String(), "first amount")
				require.Equal(t, f.last, st.Transactions[f.count-1].Amount.String(), "last amount")
			}
			require.Equal(t, f.account, st.Account)
			require.Equal(t, f.currency, st.Currency)
			require.Equal(t, f.bank, st.BankName)
			require.Equal(t, f.opening, decString(st.OpeningBalance), "opening balance")
			require.Equal(t, f.closing, decString(st.ClosingBalance), "closing balance")
			for _, d := range f.dialect {
				require.Contains(t, strings.Split(st.Dialect, ";"), d, st.Dialect)
			}
		})
	}
}

func decString(d *decimal.Decimal) string {
	if d == nil {
		return ""
	}
	return d.String()
}
