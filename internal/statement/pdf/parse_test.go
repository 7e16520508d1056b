package pdf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// update is statementtest's -update flag, which rewrites the golden files.
var update = statementtest.Update

// Amounts in golden files are JSON numbers, as the service writes them.
func init() { decimal.MarshalJSONWithoutQuotes = true }

// cents returns the decimal of a generator amount.
func cents(c int64) decimal.Decimal { return decimal.New(c, -2) }

// requireTransactions compares parsed transactions with what the generator wrote.
func requireTransactions(t *testing.T, st *statement.Statement, txs []pdftest.Tx) {
	t.Helper()
	require.Len(t, st.Transactions, len(txs))
	for i, want := range txs {
		got := st.Transactions[i]
		desc := want.Desc
		if want.Wrap != "" {
			desc += " " + want.Wrap
		}
		require.Equal(t, statement.DateOf(want.Date), got.Date, "transaction %d", i)
		require.True(t, cents(want.Amount).Equal(got.Amount), "transaction %d: amount %s, want %s", i, got.Amount, cents(want.Amount))
		require.NotNil(t, got.Balance, "transaction %d", i)
		require.True(t, cents(want.Balance).Equal(*got.Balance), "transaction %d: balance %s", i, got.Balance)
		require.Equal(t, desc, got.Description, "transaction %d", i)
		require.NotZero(t, got.Pos.Page, "transaction %d", i)
		require.NotZero(t, got.Pos.Line, "transaction %d", i)
		require.Contains(t, got.Raw, pdftest.Money(want.Balance), "transaction %d", i)
	}
}

func TestParseGeneratedStatements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spec  pdftest.Spec
		skip  string
		check func(t *testing.T, st *statement.Statement)
	}{
		{name: "three pages with debit and credit columns and a header on each page", spec: pdftest.Spec{Pages: 3, RowsPerPage: 20}},
		{name: "a signed amount column and the header on the first page only",
			spec: pdftest.Spec{Pages: 3, RowsPerPage: 15, Signed: true, HeaderOnce: true, DateFormat: "2006-01-02"}},
		{name: "uncompressed content streams", spec: pdftest.Spec{Pages: 2, RowsPerPage: 10, NoCompress: true}},
		{name: "encrypted, opened with the empty user password", spec: pdftest.Spec{Pages: 2, RowsPerPage: 10, Protect: true},
			check: func(t *testing.T, st *statement.Statement) { require.Contains(t, st.Dialect, ";encrypted") }},
		{name: "a font with a Windows-1250 /Differences encoding", spec: pdftest.Spec{Pages: 1, RowsPerPage: 12, CP1250: true},
			check: func(t *testing.T, st *statement.Statement) {
				require.Contains(t, st.Dialect, "truetype-winansi+differences")
			}},
		{name: "an embedded TrueType font as Type0 Identity-H with ToUnicode", spec: pdftest.Spec{Pages: 2, RowsPerPage: 12, UTF8Font: pdftest.DejaVu()},
			skip: map[bool]string{true: "no DejaVuSans.ttf on this machine"}[pdftest.DejaVu() == ""],
			check: func(t *testing.T, st *statement.Statement) {
				require.Contains(t, st.Dialect, "type0-identity+tounicode")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			data, txs := pdftest.Statement(t, tc.spec)
			st, err := Parse(data, statement.Options{})
			require.NoError(t, err)
			statement.Finish(st)
			require.Equal(t, statement.FormatPDF, st.Format)
			require.True(t, strings.HasPrefix(st.Dialect, "pdf;pages="), st.Dialect)
			requireTransactions(t, st, txs)
			require.Equal(t, "GBP", st.Currency)
			require.Equal(t, "GB33BUKB20201555555555", strings.ReplaceAll(st.Account, " ", ""))
			require.NotNil(t, st.OpeningBalance)
			require.NotNil(t, st.ClosingBalance)
			require.True(t, cents(100000).Equal(*st.OpeningBalance), "opening %s", st.OpeningBalance)
			require.True(t, cents(txs[len(txs)-1].Balance).Equal(*st.ClosingBalance), "closing %s", st.ClosingBalance)
			for _, r := range st.Review {
				require.NotEqual(t, statement.ReviewBalanceMismatch, r.Code, r.Message)
				require.NotEqual(t, statement.ReviewRunningBalanceBreak, r.Code, r.Message)
				require.NotEqual(t, statement.ReviewUnreadableRows, r.Code, r.Message)
			}
			if tc.check != nil {
				tc.check(t, st)
			}
		})
	}
}

// TestGolden compares the finished statement of a generated three-page statement with its
// reviewed golden file; go test -update rewrites it.
func TestGolden(t *testing.T) {
	t.Parallel()
	data, _ := pdftest.Statement(t, pdftest.Spec{Pages: 3, RowsPerPage: 8})
	st, err := Parse(data, statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	got, err := json.MarshalIndent(st, "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", "golden", "generated-3-pages.json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))
}

func TestParseTableLayouts(t *testing.T) {
	t.Parallel()
	statementPage := func(content string) []byte { return onePage(content) }
	tests := []struct {
		name    string
		content string
		want    []string // description|amount per transaction
	}{
		{
			name: "right-aligned amounts under a left-aligned header",
			content: "BT /F1 10 Tf\n" + showAt(50, 700, "Date") + showAt(120, 700, "Description") + showAt(300, 700, "Amount") +
				showAt(50, 686, "03.01.2024") + showAt(120, 686, "Bakery") + showRight(360, 686, "-3.20") +
				showAt(50, 672, "04.01.2024") + showAt(120, 672, "Transfer in") + showRight(360, 672, "1,250.00") + "ET",
			want: []string{"Bakery|-3.2", "Transfer in|1250"},
		},
		{
			name: "a date column without a header cell above it still maps",
			content: "BT /F1 10 Tf\n" + showAt(50, 700, "Booking date") + showAt(130, 700, "Text") + showAt(330, 700, "Amount EUR") +
				showAt(50, 686, "13.01.2024") + showAt(130, 686, "Card payment  Shop 1") + showRight(390, 686, "-10,00") +
				showAt(130, 674, "second line of text") +
				showAt(50, 660, "14.01.2024") + showAt(130, 660, "Refund") + showRight(390, 660, "5,00") + "ET",
			want: []string{"Card payment Shop 1 second line of text|-10", "Refund|5"},
		},
		{
			name: "words of a long description merged with a neighbouring cell are split by column",
			content: "BT /F1 10 Tf\n" + showAt(50, 700, "Date") + showAt(110, 700, "Details") + showAt(300, 700, "Amount") + showAt(380, 700, "Balance") +
				showAt(50, 686, "15/01/2024") + showAt(110, 686, "Groceries") + showRight(340, 686, "-20.00") + showRight(420, 686, "80.00") +
				"1 0 0 1 50 672 Tm (16/01/2024 Rent) Tj " + showRight(340, 672, "-50.00") + showRight(420, 672, "30.00") + "ET",
			want: []string{"Groceries|-20", "Rent|-50"},
		},
		{
			name: "a summary box naming columns above the transaction table is not the header",
			content: "BT /F1 10 Tf\n" + showAt(50, 760, "Account") + showAt(200, 760, "Currency") + showAt(300, 760, "Period") +
				showAt(50, 746, "12345678") + showAt(200, 746, "EUR") + showAt(300, 746, "01.01.2024 - 31.01.2024") +
				showAt(50, 720, "Opening balance") + showAt(200, 720, "Credits") + showAt(300, 720, "Debits") + showAt(400, 720, "Closing balance") +
				showRight(120, 706, "100.00") + showRight(250, 706, "50.00") + showRight(350, 706, "20.00") + showRight(470, 706, "130.00") +
				showAt(50, 680, "Date") + showAt(120, 680, "Description") + showAt(320, 680, "Amount") +
				showAt(50, 666, "20.01.2024") + showAt(120, 666, "Salary") + showRight(360, 666, "50.00") +
				showAt(50, 652, "21.01.2024") + showAt(120, 652, "Fee") + showRight(360, 652, "-20.00") + "ET",
			want: []string{"Salary|50", "Fee|-20"},
		},
		{
			// US checking statements (Chase, Wells Fargo) print a table per section, amounts
			// unsigned, rows as MM/DD with the period in the page header, and a table of daily
			// balances that holds no transactions.
			name: "sections give the sign of their tables, each table with its own columns",
			content: "BT /F1 10 Tf\n" + showAt(300, 800, "July 1, 2022 through July 31, 2022") +
				showAt(50, 770, "DEPOSITS AND ADDITIONS") +
				showAt(50, 756, "DATE") + showAt(100, 756, "DESCRIPTION") + showRight(500, 756, "AMOUNT") +
				showAt(50, 742, "07/01") + showAt(100, 742, "Payroll ACME") + showRight(500, 742, "$2,000.00") +
				showAt(50, 728, "Total Deposits and Additions") + showRight(500, 728, "$2,000.00") +
				showAt(50, 700, "CHECKS PAID") +
				showAt(50, 686, "CHECK NO.") + showAt(200, 686, "DATE PAID") + showRight(500, 686, "AMOUNT") +
				showAt(50, 672, "1021") + showAt(200, 672, "07/05") + showRight(500, 672, "250.00") +
				showAt(50, 644, "ELECTRONIC WITHDRAWALS") +
				showAt(50, 630, "DATE") + showAt(100, 630, "DESCRIPTION") + showRight(500, 630, "AMOUNT") +
				showAt(50, 616, "07/08") + showAt(100, 616, "Card Purchase 07/07 Amazon") + showRight(500, 616, "112.13") +
				showAt(50, 588, "DAILY ENDING BALANCE") +
				showAt(50, 574, "DATE") + showRight(200, 574, "AMOUNT") + showAt(250, 574, "DATE") + showRight(400, 574, "AMOUNT") +
				showAt(50, 560, "07/01") + showRight(200, 560, "2,000.00") + showAt(250, 560, "07/08") + showRight(400, 560, "1,637.87") + "ET",
			want: []string{"Payroll ACME|2000", "1021|-250", "Card Purchase 07/07 Amazon|-112.13"},
		},
		{
			// A diagonal watermark drawn letter by letter across the rows: its letters fall
			// between the rows and are no text of the statement.
			name: "a diagonal watermark across the table is left out",
			content: "BT /F1 10 Tf\n" + showAt(50, 700, "Date") + showAt(120, 700, "Description") + showRight(400, 700, "Amount") +
				showAt(50, 686, "20.01.2024") + showAt(120, 686, "Salary") + showRight(400, 686, "50.00") +
				showAt(50, 666, "21.01.2024") + showAt(120, 666, "Fee") + showRight(400, 666, "-20.00") +
				"/F1 30 Tf 0.7071 0.7071 -0.7071 0.7071 200 640 Tm (C) Tj 0.7071 0.7071 -0.7071 0.7071 215 655 Tm (O) Tj " +
				"0.7071 0.7071 -0.7071 0.7071 230 670 Tm (P) Tj 0.7071 0.7071 -0.7071 0.7071 245 685 Tm (Y) Tj ET",
			want: []string{"Salary|50", "Fee|-20"},
		},
		{
			// A card issuer prints what the holder owes: purchases plain, payments marked CR.
			name: "a credit card statement's purchases are debits and its payments credits",
			content: "BT /F1 10 Tf\n" + showAt(50, 800, "Credit Card Statement") + showAt(300, 800, "Statement Period: 05 Feb 2023 - 04 Mar 2023") +
				showAt(50, 786, "Minimum Payment Due") + showRight(300, 786, "25.00") +
				showAt(50, 756, "Trans Date") + showAt(120, 756, "Description") + showRight(500, 756, "Amount") +
				showAt(50, 742, "Feb 06") + showAt(120, 742, "AMAZON MKTP US") + showRight(500, 742, "45.10") +
				showAt(50, 728, "Feb 10") + showAt(120, 728, "PAYMENT THANK YOU") + showRight(500, 728, "500.00 CR") + "ET",
			want: []string{"AMAZON MKTP US|-45.1", "PAYMENT THANK YOU|500"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse(statementPage(tc.content), statement.Options{})
			require.NoError(t, err)
			var got []string
			for _, tx := range st.Transactions {
				got = append(got, tx.Description+"|"+tx.Amount.String())
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func ftoa(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// textWidth is the width of s in Helvetica at size, by the widths this package uses.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for i := range len(s) {
		w += defaultFont.widths[s[i]]
	}
	return w * size
}

func TestBankOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		lines     []string
		bic, bank string
	}{
		{name: "a labelled BIC names the bank", lines: []string{"Commerzbank AG", "IBAN DE89 3704 0044 0532 0130 00 BIC: COBADEFFXXX"}, bic: "COBADEFFXXX", bank: "Commerzbank"},
		{name: "SWIFT/BIC of an unknown bank gives the id only", lines: []string{"SWIFT/BIC EXMPGB2L"}, bic: "EXMPGB2L"},
		{name: "the same BIC in 8 and 11 characters is one", lines: []string{"BIC DEUTDEFF", "SWIFT code: DEUTDEFF500"}, bic: "DEUTDEFF500", bank: "Deutsche Bank"},
		{name: "two different BICs leave the bank unknown", lines: []string{"BIC: DEUTDEFF", "BIC: COBADEFF"}},
		{name: "SWIFT TRANSFER is no BIC", lines: []string{"SWIFT TRANSFER FEES"}},
		{name: "a lowercase word after the label is no BIC", lines: []string{"BIC number unknown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bic, bank := bankOf(tc.lines)
			require.Equal(t, tc.bic, bic)
			require.Equal(t, tc.bank, bank)
		})
	}
}

// TestHeaderOnTwoLines reads a header whose names are set on two lines, as Indian and Dutch
// statements print them ("Txn" over "Date", "Value" over "Date").
func TestHeaderOnTwoLines(t *testing.T) {
	t.Parallel()
	content := "BT /F1 10 Tf\n" + showAt(50, 711, "Txn") + showAt(120, 711, "Value") +
		showAt(50, 700, "Date") + showAt(120, 700, "Date") + showAt(190, 700, "Description") + showRight(420, 700, "Debit") + showRight(500, 700, "Credit") +
		showAt(50, 680, "02-04-2022") + showAt(120, 680, "03-04-2022") + showAt(190, 680, "NEFT ACME") + showRight(500, 680, "1,50,000.00") +
		showAt(50, 666, "05-04-2022") + showAt(120, 666, "05-04-2022") + showAt(190, 666, "UPI SWIGGY") + showRight(420, 666, "456.00") + "ET"
	st, err := Parse(onePage(content), statement.Options{})
	require.NoError(t, err)
	require.Len(t, st.Transactions, 2)
	require.Equal(t, "2022-04-02", st.Transactions[0].Date.String())
	require.Equal(t, "2022-04-03", st.Transactions[0].ValueDate.String(), "the second date column is the value date")
	require.Equal(t, "150000", st.Transactions[0].Amount.String())
	require.Equal(t, "-456", st.Transactions[1].Amount.String())
}

// TestTableOverPages reads a UK statement whose table runs over two pages: the header set on
// two lines ("Money" over "out"), a column of offers beside the table on the first page only,
// a footer printed on every page right under the last row, and balances brought and carried
// forward.
func TestTableOverPages(t *testing.T) {
	t.Parallel()
	header := func(y float64, aside string) string {
		h := showAt(50, y, "Date") + showAt(100, y, "Description") + showRight(330, y, "Money") + showRight(400, y, "Money") + showRight(480, y, "Balance") +
			showRight(330, y-11, "out") + showRight(400, y-11, "in")
		if aside != "" {
			h += showAt(500, y, aside)
		}
		return h
	}
	footer := func(y float64) string {
		return showAt(50, y, "Example Bank plc is authorised by the Regulation Authority")
	}
	page1 := "BT /F1 10 Tf\n" + showAt(50, 800, "Statement 1st Mar 2023 to 31st Mar 2023") +
		header(760, "Go paperless") +
		showAt(50, 730, "01 Mar") + showAt(100, 730, "BALANCE BROUGHT FORWARD") + showRight(480, 730, "100.00") + showAt(500, 730, "Rates from 4.10% AER.") +
		showAt(50, 716, "02 Mar") + showAt(100, 716, "CARD PAYMENT TESCO") + showRight(330, 716, "10.00") + showRight(480, 716, "90.00") + showAt(500, 716, "Terms apply.") +
		showAt(100, 704, "REF 0001") +
		footer(690) + "ET"
	page2 := "BT /F1 10 Tf\n" + header(760, "") +
		showAt(50, 730, "03 Mar") + showAt(100, 730, "SALARY ACME") + showRight(400, 730, "1,000.00") + showRight(480, 730, "1,090.00") +
		showAt(50, 716, "31 Mar") + showAt(100, 716, "BALANCE CARRIED FORWARD") + showRight(480, 716, "1,090.00") +
		footer(690) + "ET"
	st, err := Parse(pagesPDF(page1, page2), statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	got := dateDescAmount(st)
	require.Equal(t, []string{"2023-03-02|CARD PAYMENT TESCO REF 0001|-10", "2023-03-03|SALARY ACME|1000"}, got)
	require.Empty(t, st.Review)
	require.Equal(t, "100", st.OpeningBalance.String())
	require.Equal(t, "1090", st.ClosingBalance.String())
}

// TestDateWrappedInANarrowColumn reads rows whose date is cut over three lines ("02-" over
// "04-" over "2022"), the amounts on the middle one, as State Bank of India prints them.
func TestDateWrappedInANarrowColumn(t *testing.T) {
	t.Parallel()
	content := "BT /F1 10 Tf\n" + showAt(50, 800, "Account Statement from 01-04-2022 to 30-04-2022") +
		showAt(50, 760, "Date") + showAt(90, 760, "Description") + showRight(400, 760, "Debit") + showRight(480, 760, "Credit") + showRight(560, 760, "Balance") +
		showAt(50, 740, "02-") + showAt(90, 740, "BY TRANSFER-") +
		showAt(50, 729, "04-") + showAt(90, 729, "NEFT ACME") + showRight(480, 729, "1,50,000.00") + showRight(560, 729, "2,73,456.78") +
		showAt(50, 718, "2022") + showAt(90, 718, "PVT LTD") +
		showAt(50, 700, "05-") + showAt(90, 700, "TO TRANSFER-") + showRight(400, 700, "456.00") + showRight(560, 700, "2,73,000.78") +
		showAt(50, 689, "04-") + showAt(90, 689, "UPI SWIGGY") +
		showAt(50, 678, "2022") + "ET"
	st, err := Parse(onePage(content), statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	got := dateDescAmount(st)
	require.Equal(t, []string{"2022-04-02|BY TRANSFER-NEFT ACME PVT LTD|150000", "2022-04-05|TO TRANSFER-UPI SWIGGY|-456"}, got)
	require.Empty(t, st.Review, "the period's 30-04-2022 says the dates are day first")
}

// TestDescriptionCentredAroundTheDatedLine reads rows whose description wraps in a cell that
// the producer centres vertically (HTML tables printed by Chromium): the description's first
// line stands above the dated line, its second below, and its last word further right than
// any one-line description reaches.
func TestDescriptionCentredAroundTheDatedLine(t *testing.T) {
	t.Parallel()
	content := "BT /F1 10 Tf\n" + showAt(300, 800, "12th Feb 2022 to 11th Mar 2022") +
		showAt(50, 760, "Date") + showAt(110, 760, "Description") + showRight(430, 760, "Paid out") + showRight(500, 760, "Paid in") + showRight(570, 760, "Balance") +
		showAt(50, 740, "12th Feb") + showAt(110, 740, "ACME LTD SALARY") + showRight(500, 740, "500.00") + showRight(570, 740, "600.00") +
		showAt(110, 724, "CARD PAYMENT TO TESCO STORES") + showAt(300, 724, "3217") +
		showAt(50, 717, "14th Feb") + showRight(430, 717, "32.45") + showRight(570, 717, "567.55") +
		showAt(110, 710, "ON 13 FEB") +
		showAt(50, 690, "1st Mar") + showAt(110, 690, "DIRECT DEBIT EDF") + showRight(430, 690, "100.00") + showRight(570, 690, "467.55") + "ET"
	st, err := Parse(onePage(content), statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	got := dateDescAmount(st)
	require.Equal(t, []string{"2022-02-12|ACME LTD SALARY|500", "2022-02-14|CARD PAYMENT TO TESCO STORES 3217 ON 13 FEB|-32.45",
		"2022-03-01|DIRECT DEBIT EDF|-100"}, got)
	require.Empty(t, st.Review)
}

// TestAmountsOnTheLineUnderTheDate reads rows whose dated line holds the description and whose
// amounts stand on the line below, centred against a wrapped description cell.
func TestAmountsOnTheLineUnderTheDate(t *testing.T) {
	t.Parallel()
	content := "BT /F1 10 Tf\n" + showAt(50, 800, "Statement from 01-04-2023 to 30-06-2023") +
		showAt(50, 760, "Date") + showAt(130, 760, "Description") + showRight(420, 760, "Debit") + showRight(490, 760, "Credit") + showRight(570, 760, "Balance") +
		showAt(50, 740, "03-04-2023") + showAt(130, 740, "UPI/DR/801685698623/IRCTC") +
		showAt(130, 729, "irctc@ybl") + showRight(420, 729, "4,471.39") + showRight(570, 729, "16,437.36") +
		showAt(50, 710, "05-04-2023") + showAt(130, 710, "NEFT ACME PAYROLL") + showRight(490, 710, "50,000.00") + showRight(570, 710, "66,437.36") + "ET"
	st, err := Parse(onePage(content), statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	got := dateDescAmount(st)
	require.Equal(t, []string{"2023-04-03|UPI/DR/801685698623/IRCTC irctc@ybl|-4471.39", "2023-04-05|NEFT ACME PAYROLL|50000"}, got)
	require.Empty(t, st.Review)
}

// TestTableWithoutAHeader reads a statement whose table has no header line: the columns come
// from the rows with a date and an amount, their roles from what they hold (the running
// balance tells the paid-out column from the paid-in one).
func TestTableWithoutAHeader(t *testing.T) {
	t.Parallel()
	content := "BT /F1 10 Tf\n" + showAt(50, 800, "12th Feb 2022 to 11th Mar 2022") +
		showAt(50, 780, "Opening balance") + showRight(250, 780, "1,200.00") +
		showAt(50, 740, "14th Feb") + showAt(110, 740, "CARD PAYMENT TESCO") + showRight(430, 740, "32.45") + showRight(570, 740, "1,167.55") +
		showAt(50, 726, "25th Feb") + showAt(110, 726, "ACME LTD SALARY") + showRight(500, 726, "2,500.00") + showRight(570, 726, "3,667.55") +
		showAt(50, 712, "1st Mar") + showAt(110, 712, "DIRECT DEBIT GAS") + showRight(430, 712, "100.00") + showRight(570, 712, "3,567.55") +
		showAt(50, 698, "2nd Mar") + showAt(110, 698, "STANDING ORDER RENT") + showRight(430, 698, "900.00") + showRight(570, 698, "2,667.55") + "ET"
	st, err := Parse(onePage(content), statement.Options{})
	require.NoError(t, err)
	statement.Finish(st)
	var got []string
	for _, tx := range st.Transactions {
		got = append(got, tx.Date.String()+"|"+tx.Amount.String())
	}
	require.Equal(t, []string{"2022-02-14|-32.45", "2022-02-25|2500", "2022-03-01|-100", "2022-03-02|-900"}, got)
	require.Equal(t, "1200", st.OpeningBalance.String())
	require.Empty(t, st.Review)
}

// showAt shows s with its baseline starting at (x, y), in the font set before (Helvetica 10).
func showAt(x, y float64, s string) string {
	return "1 0 0 1 " + ftoa(x) + " " + ftoa(y) + " Tm (" + s + ") Tj\n"
}

// showRight shows s right-aligned at xr, in Helvetica 10.
func showRight(xr, y float64, s string) string { return showAt(xr-textWidth(s, 10), y, s) }

// dateDescAmount lists a statement's transactions as "date|description|amount".
func dateDescAmount(st *statement.Statement) []string {
	var out []string
	for _, tx := range st.Transactions {
		out = append(out, tx.Date.String()+"|"+tx.Description+"|"+tx.Amount.String())
	}
	return out
}
