package contracttests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/internal/statement/corpus"
)

// corpusDir holds the PDF development corpus: statements rendered by real producers, each with
// its answer key (internal/statement/corpus).
var corpusDir = filepath.Join("..", "internal", "statement", "corpus", "testdata")

// TestParseRealProducerPDFs uploads statements of the layouts banks print, as real PDF
// producers wrote them (and as files arrive damaged or encrypted), through the Parsing API, and
// checks each job against the file's answer key: the transactions' dates and signed amounts,
// and the balances.
func TestParseRealProducerPDFs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "RealPDF")
	c := s.parseCaller(t, acct)

	for _, tc := range []struct {
		name, file string
	}{
		{"a US checking statement: sections sign the amounts, MM/DD rows take the period's year", "us-checking-chromium"},
		{"a US statement over the year end, its cross-reference table cut off", "us-checking-yearend-chromium-damaged-xref-truncated"},
		{"a UK current account with paid in and paid out and 2nd Mar dates, from groff and Ghostscript", "uk-current-groff"},
		{"an Indian statement with lakh grouping, encrypted with an owner password", "in-savings-chromium-owner-encrypted"},
		{"a Dutch statement with SEPA descriptions over lines, in object streams", "nl-sepa-libreoffice-linearized"},
		{"a German statement with S and H amounts", "de-giro-xelatex"},
		{"a Brazilian statement with the day's balance lines", "br-extrato-chromium"},
		{"a credit card statement whose purchases are debits", "credit-card-chromium"},
		{"a mobile money statement newest first", "mobile-money-chromium"},
		{"a Persian statement read right to left with Jalali dates", "rtl-fa-jalali-chromium"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(corpusDir, tc.file+".pdf")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			key, err := corpus.ReadKey(path)
			require.NoError(t, err)

			j := c.create(t, tc.file+".pdf", data)
			require.Equal(t, parseclient.StatementFormatPdf, j.Format)
			done := c.wait(t, j.JobId)
			require.Equal(t, parseclient.JobStatusCompleted, done.Status, "error %+v, review %+v", done.Error, done.ReviewReasons)
			require.Equal(t, len(key.Transactions), done.TransactionsCount)

			want := map[string]int{}
			for _, k := range key.Transactions {
				a, err := decimal.NewFromString(k.Amount)
				require.NoError(t, err)
				want[k.Date+" "+a.StringFixed(4)]++
			}
			got := map[string]int{}
			for _, tx := range c.allResults(t, j.JobId, 100) {
				got[tx.Date.String()+" "+tx.Amount.StringFixed(4)]++
			}
			require.Equal(t, want, got, "each transaction's date and signed amount")
			if key.OpeningBalance != nil {
				require.NotNil(t, done.OpeningBalance)
				requireSameAmount(t, *key.OpeningBalance, *done.OpeningBalance)
			}
			if key.ClosingBalance != nil {
				require.NotNil(t, done.ClosingBalance)
				requireSameAmount(t, *key.ClosingBalance, *done.ClosingBalance)
			}
		})
	}

	t.Run("a statement protected by a user password is 400 FILE_INVALID saying so", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(corpusDir, "in-savings-chromium-user-encrypted.pdf"))
		require.NoError(t, err)
		r := c.upload(t, "", "statement.pdf", data)
		e := requireParseError(t, r.HTTPResponse, r.Body, 400, parseclient.ErrorCodeFileInvalid)
		require.Contains(t, e.Detail, "password")
	})
}

func requireSameAmount(t *testing.T, want string, got decimal.Decimal) {
	t.Helper()
	w, err := decimal.NewFromString(want)
	require.NoError(t, err)
	require.True(t, w.Equal(got), "want %s, got %s", want, got)
}
