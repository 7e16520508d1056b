package qif

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

func TestMain(m *testing.M) {
	statementtest.SetDecimalJSON()
	os.Exit(m.Run())
}

// parsed is Parse, once the test has checked that Stream reads the same statement.
func parsed(t testing.TB, data []byte, opts statement.Options) (*statement.Statement, error) {
	t.Helper()
	statementtest.ParsedAndStreamed(t, data, opts, Parse, Stream)
	return Parse(data, opts)
}

// parseFinished parses and finishes as the engine does.
func parseFinished(t testing.TB, data []byte) (*statement.Statement, error) {
	t.Helper()
	return statementtest.Finished(parsed(t, data, statement.Options{}))
}

func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	statementtest.RunCorpus(t, statementtest.CorpusDir, func(t *testing.T, path string, data []byte) {
		st, err := parseFinished(t, data)
		require.NoError(t, err)
		checkConsistent(t, st)
		statementtest.Golden(t, statementtest.GoldenPath(path, ".qif"), st)
	})
}

// checkConsistent asserts what every successful parse must hold: sections delimit the
// transactions in order, and each transaction keeps its record's text.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	require.Equal(t, statement.FormatQIF, st.Format)
	statementtest.RequireSections(t, st)
	for _, x := range st.Transactions {
		require.NotEmpty(t, x.Raw)
	}
}

// requireAmount asserts that d equals the decimal want, whatever its stated decimals.
func requireAmount(t *testing.T, want string, d decimal.Decimal) {
	t.Helper()
	require.True(t, decimal.RequireFromString(want).Equal(d), "want %s, got %s", want, d)
}

func date(y, m, d int) statement.Date { return statement.MustDate(y, time.Month(m), d) }

func TestDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		dates   []string
		want    []statement.Date
		dialect string
		review  statement.ReviewCode // a problem of this code is expected
	}{
		{"month first with a second field above 12", []string{"12/31/2020", "01/02/2021"},
			[]statement.Date{date(2020, 12, 31), date(2021, 1, 2)}, "dates=MDY", ""},
		{"day first with a first field above 12", []string{"31.12.2020", "01.02.2021"},
			[]statement.Date{date(2020, 12, 31), date(2021, 2, 1)}, "dates=DMY", ""},
		{"an apostrophe year is 20yy", []string{"12/31'20", "1/ 2' 5"},
			[]statement.Date{date(2020, 12, 31), date(2005, 1, 2)}, "dates=MDY", ""},
		{"space-padded fields and a 19yy year", []string{"1/ 2/98", "12/25/98"},
			[]statement.Date{date(1998, 1, 2), date(1998, 12, 25)}, "dates=MDY", ""},
		{"a two-digit year below 70 is 20yy", []string{"19/05/20"}, []statement.Date{date(2020, 5, 19)}, "dates=DMY", ""},
		{"dashes", []string{"25-12-2020"}, []statement.Date{date(2020, 12, 25)}, "dates=DMY", ""},
		{"year first", []string{"2020-12-31", "20210102"}, []statement.Date{date(2020, 12, 31), date(2021, 1, 2)}, "dates=YMD", ""},
		{"dates that fit both orders are ambiguous", []string{"01/02/2020", "03/04/2020"},
			[]statement.Date{date(2020, 1, 2), date(2020, 3, 4)}, "dates=ambiguous", statement.ReviewAmbiguousDateOrder},
		{"equal day and month decide nothing but need no review", []string{"01/01/2020", "05/05/2020"},
			[]statement.Date{date(2020, 1, 1), date(2020, 5, 5)}, "dates=MDY", ""},
		{"one day-first date decides the file", []string{"01/02/2020", "13/02/2020"},
			[]statement.Date{date(2020, 2, 1), date(2020, 2, 13)}, "dates=DMY", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			b.WriteString("!Type:Bank\n")
			for _, d := range tc.dates {
				b.WriteString("D" + d + "\nT1.00\nPX\n^\n")
			}
			st, err := parsed(t, []byte(b.String()), statement.Options{})
			require.NoError(t, err)
			var got []statement.Date
			for _, x := range st.Transactions {
				got = append(got, x.Date)
			}
			require.Equal(t, tc.want, got)
			require.Contains(t, st.Dialect, ";"+tc.dialect+";")
			if tc.review == "" {
				require.Empty(t, st.Problems)
			} else {
				require.Len(t, st.Problems, 1)
				require.Equal(t, tc.review, st.Problems[0].Code)
			}
		})
	}
	t.Run("dates against the file's order are problems", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:Bank\nD13/01/2020\nT1\n^\nD14/01/2020\nT2\n^\nD01/13/2020\nT3\n^\nD99/99/99\nT4\n^\n"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 2)
		require.Len(t, st.Problems, 2)
		require.Contains(t, st.Problems[0].Message, `date "01/13/2020" does not fit the file's day-first order`)
		require.Equal(t, 8, st.Problems[0].Pos.Line)
		require.Contains(t, st.Problems[1].Message, `date "99/99/99" is not a date`)
	})
}

func TestAmounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		amounts []string
		want    []string
		dialect string
		review  statement.ReviewCode
	}{
		{"thousands commas", []string{"1,234.56", "-10,000,000.00"}, []string{"1234.56", "-10000000"}, "decimal=dot", ""},
		{"a leading plus", []string{"+123", "0"}, []string{"123", "0"}, "decimal=dot", ""},
		{"a decimal comma", []string{"-12,34", "1.234,56"}, []string{"-12.34", "1234.56"}, "decimal=comma", ""},
		{"a value that fits both marks follows the file", []string{"1,000", "12,5"}, []string{"1", "12.5"}, "decimal=comma", ""},
		{"only values that fit both marks are ambiguous", []string{"1,000", "2,500"}, []string{"1000", "2500"},
			"decimal=ambiguous", statement.ReviewAmbiguousDecimalMark},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			b.WriteString("!Type:Bank\n")
			for _, a := range tc.amounts {
				b.WriteString("D01/13/2020\nT" + a + "\n^\n")
			}
			st, err := parsed(t, []byte(b.String()), statement.Options{})
			require.NoError(t, err)
			require.Len(t, st.Transactions, len(tc.want))
			for i, w := range tc.want {
				requireAmount(t, w, st.Transactions[i].Amount)
			}
			require.Contains(t, st.Dialect, ";"+tc.dialect+";")
			if tc.review == "" {
				require.Empty(t, st.Problems)
			} else {
				require.Len(t, st.Problems, 1)
				require.Equal(t, tc.review, st.Problems[0].Code)
			}
		})
	}
}

func TestRecords(t *testing.T) {
	t.Parallel()
	t.Run("fields map to the model and splits stay one transaction", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:CCard\r\nD01/13/2020\r\nU-99.00\r\nT-100.00\r\nN1001\r\nPACME   LTD\r\nMINVOICE 7\r\nLOffice\r\nCX\r\nA1 Road\r\n"+
			"SOffice\r\nE50%\r\n$-50.00\r\nSTravel\r\n$-50.00\r\n^\r\n"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		x := st.Transactions[0]
		requireAmount(t, "-100", x.Amount)
		require.Equal(t, "1001", x.Reference)
		require.Equal(t, "ACME LTD", x.CounterpartyName)
		require.Equal(t, "ACME LTD / INVOICE 7", x.Description)
		require.Equal(t, 2, x.Pos.Line)
		require.True(t, strings.HasPrefix(x.Raw, "D01/13/2020") && strings.HasSuffix(x.Raw, "^"))
		require.Equal(t, "qif;type=ccard;dates=MDY;decimal=dot;charset=us-ascii", st.Dialect)
	})
	t.Run("U is the amount without T", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:Cash\nD01/13/2020\nU-7.50\n^\n"), statement.Options{})
		require.NoError(t, err)
		requireAmount(t, "-7.5", st.Transactions[0].Amount)
	})
	t.Run("accounts name the sections", func(t *testing.T) {
		t.Parallel()
		doc := "!Option:AutoSwitch\n!Account\nNChecking\nTBank\n^\nNVisa\nTCCard\n^\n!Clear:AutoSwitch\n" +
			"!Account\nNChecking\nTBank\n^\n!Type:Bank\nD01/13/2020\nT1\n^\nD01/14/2020\nT2\n^\n" +
			"!Type:Cat\nNFood\nE\n^\n" +
			"!Account\nNVisa\nTCCard\n^\n!Type:CCard\nD01/15/2020\nT-3\n^\n"
		st, err := parsed(t, []byte(doc), statement.Options{})
		require.NoError(t, err)
		checkConsistent(t, st)
		require.Len(t, st.Sections, 2)
		require.Equal(t, "Checking", st.Sections[0].Account)
		require.Equal(t, 2, st.Sections[0].Count)
		require.Equal(t, "Visa", st.Sections[1].Account)
		require.Equal(t, 1, st.Sections[1].Count)
		require.Contains(t, st.Dialect, "type=bank+ccard")
	})
	t.Run("unreadable records are problems", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:Bank\nD01/13/2020\nPNo amount\n^\nD01/13/2020\nT12x\n^\nD01/14/2020\nT5\n^\n^\n"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		require.Len(t, st.Problems, 2)
		require.Equal(t, "the record has no amount (T)", st.Problems[0].Message)
		require.Equal(t, `amount "12x" is not a number`, st.Problems[1].Message)
		require.Equal(t, 6, st.Problems[1].Pos.Line)
	})
	t.Run("a missing final caret still ends the record", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:Bank\nD01/13/2020\nT1\n^\nD01/14/2020\nT2"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 2)
	})
	t.Run("investment records are a problem", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:Invst\nD01/13/2020\nNBuy\nYACME\nT100\n^\n!Type:Bank\nD01/14/2020\nT2\n^\n"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		require.Len(t, st.Problems, 1)
		require.Contains(t, st.Problems[0].Message, "!Type:Invst")
		_, err = parsed(t, []byte("!Type:Invst\nD01/13/2020\nNBuy\nT100\n^\n"), statement.Options{})
		require.ErrorIs(t, err, statement.ErrNoTransactions)
	})
	t.Run("problems come in the order of the file", func(t *testing.T) {
		t.Parallel()
		// The records are read once for the file's decisions and then once for the
		// transactions, whose problems come as their records do, between the blocks'.
		st, err := parsed(t, []byte("!Type:Bank\nD01/13/2020\nPNo amount\n^\n!Type:Invst\nD01/13/2020\nNBuy\nT100\n^\n"+
			"!Type:Bank\nD1/2/20\nT5\n^\nD01/14/2020\nT1,5.0\n^\n"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		var lines []int
		for _, pr := range st.Problems {
			lines = append(lines, pr.Pos.Line)
		}
		require.Equal(t, []int{2, 5, 15}, lines, "%v", st.Problems)
		require.Contains(t, st.Problems[1].Message, "!Type:Invst")
	})
	t.Run("Windows-1252 text", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("!Type:Bank\nD01/13/2020\nT1\nPCaf\xe9\n^\n"), statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "Café", st.Transactions[0].CounterpartyName)
		require.Contains(t, st.Dialect, "charset=windows-1252")
	})
	t.Run("a file without header", func(t *testing.T) {
		t.Parallel()
		st, err := parsed(t, []byte("D01/13/2020\nT1\n^\n"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		require.Contains(t, st.Dialect, "type=none")
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		opts statement.Options
		kind error
	}{
		{"empty input", "", statement.Options{}, statement.ErrNotAStatement},
		{"a CSV file", "Date,Amount\n01/13/2020,1.00\n", statement.Options{}, statement.ErrNotAStatement},
		{"an OFX file", "OFXHEADER:100\nDATA:OFXSGML\n<OFX>", statement.Options{}, statement.ErrNotAStatement},
		{"a header without records", "!Type:Bank\n", statement.Options{}, statement.ErrNoTransactions},
		{"only a category list", "!Type:Cat\nNFood\n^\n", statement.Options{}, statement.ErrNoTransactions},
		{"more records than MaxRows", "!Type:Bank\nD01/13/2020\nT1\n^\nD01/13/2020\nT1\n^\n", statement.Options{MaxRows: 1}, statement.ErrTooManyRows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parsed(t, []byte(tc.data), tc.opts)
			require.ErrorIs(t, err, tc.kind)
			var se *statement.Error
			require.ErrorAs(t, err, &se)
			require.Equal(t, statement.FormatQIF, se.Format)
		})
	}
}

// TestCommentLines reads files that open with, or carry between blocks, lines of comment:
// '#' is no QIF field code, and exporters (HomeBank, bank scripts) write "# ..." and
// "### ..." lines above the header.
func TestCommentLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		accounts []string
		amounts  []string
	}{
		{
			name:    "a file that opens with comment lines is read",
			in:      "# Exported by HomeBank\n### Account: Current\n!Type:Bank\nD01/02/2026\nT-1.50\nPShop\n^\nD01/03/2026\nT20.00\n^\n",
			amounts: []string{"-1.50", "20.00"}, accounts: []string{""},
		},
		{
			name: "comment lines between blocks and inside a record are skipped",
			in: "#\n!Account\nNCurrent\n^\n# second block\n!Type:Bank\nD01/02/2026\n# a note\nT-1.50\n^\n" +
				"### savings\n!Account\nNSavings\n^\n!Type:Bank\nD01/04/2026\nT3\n^\n",
			amounts: []string{"-1.50", "3"}, accounts: []string{"Current", "Savings"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseFinished(t, []byte(tc.in))
			require.NoError(t, err)
			checkConsistent(t, st)
			var amounts []string
			for _, x := range st.Transactions {
				amounts = append(amounts, x.Amount.String())
				require.NotContains(t, x.Description, "#")
			}
			require.Equal(t, tc.amounts, amounts)
			var accounts []string
			for _, s := range st.Sections {
				accounts = append(accounts, s.Account)
			}
			require.Equal(t, tc.accounts, accounts)
		})
	}
}
