package contracttests

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stmtLine is one transaction line of a generated CSV statement. Empty strings are empty cells.
type stmtLine struct {
	Date, ValueDate, Description, Reference, Counterparty, CounterpartyAccount, Amount, Balance string
}

// csvStatement is a generated bank statement export as banks write them: a preamble naming the
// account, currency, period and balances, a blank line, then a table with a header row.
type csvStatement struct {
	Account, Currency, From, To, Opening, Closing string
	Lines                                         []stmtLine
}

// csvStatementHeader is the header row of a generated CSV statement's table.
var csvStatementHeader = []string{"Date", "Value date", "Description", "Reference", "Counterparty name", "Counterparty account", "Amount", "Balance"}

// bytes writes the statement; cells are quoted as RFC 4180 needs.
func (s csvStatement) bytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "Account,%s\nCurrency,%s\nStatement period,%s,%s\nOpening balance,%s\nClosing balance,%s\n\n",
		s.Account, s.Currency, s.From, s.To, s.Opening, s.Closing)
	w := csv.NewWriter(&b)
	require.NoError(t, w.Write(csvStatementHeader))
	for _, l := range s.Lines {
		require.NoError(t, w.Write([]string{l.Date, l.ValueDate, l.Description, l.Reference, l.Counterparty, l.CounterpartyAccount, l.Amount, l.Balance}))
	}
	w.Flush()
	require.NoError(t, w.Error())
	return b.Bytes()
}

// rawLines returns the file's table rows as text, as a transaction's raw gives them back.
func (s csvStatement) rawLines(t testing.TB) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(s.bytes(t)), "\n"), "\n")
	return lines[len(lines)-len(s.Lines):]
}

// flowStatement is the statement of the full flow: a card payment, a credit of 1250.50 whose
// text holds a comma and quotes, and texts that a spreadsheet would take for formulas (=, @, -
// and + first) or that start with a quote of their own ('t Hoekje is a Dutch name). Opening
// 1000.00 plus the lines is the closing 2365.51, and the running balances follow.
var flowStatement = csvStatement{
	Account: "DE89370400440532013000", Currency: "EUR", From: "2024-03-01", To: "2024-03-31",
	Opening: "1000.00", Closing: "2365.51",
	Lines: []stmtLine{
		{"2024-03-01", "2024-03-01", "CARD PAYMENT OFFICE SUPPLIES", "", "", "", "-42.99", "957.01"},
		{"2024-03-04", "2024-03-05", `SEPA CREDIT ACME GMBH, "INV 2024 001"`, "INV-2024-001", "ACME GmbH", "DE02120300000000202051", "1250.50", "2207.51"},
		{"2024-03-06", "", "=1+2 CASH WITHDRAWAL", "", "", "", "-100.00", "2107.51"},
		{"2024-03-12", "2024-03-12", "@SUM(A1:A2) TRANSFER", "INV2024003", "'t Hoekje BV", "NL91ABNA0417164300", "450.00", "2557.51"},
		{"2024-03-20", "2024-03-20", "-FEE ACCOUNT MAINTENANCE", "+FEE-03", "", "", "-192.00", "2365.51"},
	},
}

// brokenRunningBalance is a statement whose third line's running balance does not follow from
// the second's (2107.51 would), so neither does the closing balance.
var brokenRunningBalance = csvStatement{
	Account: "GB29NWBK60161331926819", Currency: "GBP", From: "2024-02-01", To: "2024-02-29",
	Opening: "1500.00", Closing: "1900.00",
	Lines: []stmtLine{
		{"2024-02-02", "", "DIRECT DEBIT ELECTRICITY", "", "", "", "-80.25", "1419.75"},
		{"2024-02-09", "", "FASTER PAYMENT RECEIVED", "", "", "", "300.50", "1720.25"},
		{"2024-02-16", "", "CARD PAYMENT BOOKSHOP", "", "", "", "-20.25", "1710.00"},
		{"2024-02-23", "", "FASTER PAYMENT RECEIVED", "", "", "", "190.00", "1900.00"},
	},
}

// simpleCSV is a headed CSV statement of n lines without balances, each line distinct.
func simpleCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("Date,Description,Amount\n")
	for i := range n {
		fmt.Fprintf(&b, "2024-03-%02d,PAYMENT %d,%d.%02d\n", i%28+1, i+1, 10+i, i%100)
	}
	return []byte(b.String())
}

// mt940Line is one :61: line with its :86: text.
type mt940Line struct {
	Date   string // YYMMDD
	Mark   string // C or D
	Amount string // with a decimal comma, unsigned
	Text   string
}

// mt940Statement writes one SWIFT MT940 statement: :60F: opening balance, the lines, :62F:
// closing balance, CRLF line ends. Balances are "C240301EUR1000,00".
func mt940Statement(account, opening, closing string, lines []mt940Line) []byte {
	var b strings.Builder
	b.WriteString(":20:STMT-2024-03\r\n:25:" + account + "\r\n:28C:00001/001\r\n:60F:" + opening + "\r\n")
	for i, l := range lines {
		fmt.Fprintf(&b, ":61:%s%s%s%sNTRFREF%d//BANKREF%d\r\n:86:%s\r\n", l.Date, l.Date[2:], l.Mark, l.Amount, i+1, i+1, l.Text)
	}
	b.WriteString(":62F:" + closing + "\r\n-\r\n")
	return []byte(b.String())
}

// unbalancedMT940 states a closing balance of 2300.00 where opening 1000.00 plus its lines
// (1250.50 - 42.99) make 2207.51.
func unbalancedMT940() []byte {
	return mt940Statement("NL91ABNA0417164300", "C240301EUR1000,00", "C240331EUR2300,00", []mt940Line{
		{"240301", "C", "1250,50", "SEPA CREDIT ACME GMBH INV-2024-001"},
		{"240305", "D", "42,99", "CARD PAYMENT OFFICE SUPPLIES"},
	})
}

// corpusFile reads a real statement of the parsers' corpus (copied byte for byte from public
// test suites; see SOURCES.md beside each file).
func corpusFile(t testing.TB, format, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "statement", format, "testdata", "corpus", name))
	require.NoError(t, err)
	return b
}

// truncatedCAMT053 is a real CAMT.053 document cut off in the middle of its first statement:
// recognisable from its first bytes, damaged further on than the upload check reads. The
// check parses a text file's first 64 KiB (a file that small it parses whole, and refuses
// when cut: see cutCAMT053), so an XML comment after the root's start tag, as exporters write
// them, pushes the cut past it: the job is accepted, and fails when the worker reads it all.
func truncatedCAMT053(t testing.TB) []byte {
	t.Helper()
	cut := cutCAMT053(t)
	root := bytes.Index(cut, []byte("<Document"))
	decl := root + bytes.IndexByte(cut[root:], '\n') + 1
	pad := "<!-- " + strings.Repeat("exported by the bank's statement service; ", (70<<10)/42) + "-->\n"
	return append(append(append([]byte{}, cut[:decl]...), pad...), cut[decl:]...)
}

// cutCAMT053 is the same document cut without padding: small enough for the upload check to
// read whole and see the cut.
func cutCAMT053(t testing.TB) []byte {
	t.Helper()
	full := corpusFile(t, "camt", "genkgo__camt__camt053.v2.multi.statement.xml")
	return full[:len(full)*45/100]
}

// pngImage is the start of a PNG image, cut off after its header: no picture, so no statement
// (a whole picture would be read with OCR).
var pngImage = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa")

// randomBytes is n bytes of noise, the same on every run.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(7, 11))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// uploadPart is one part of a multipart body: a file when fileName is set, else a text field.
type uploadPart struct {
	field, fileName string
	content         []byte
}

// multipartUpload writes a multipart/form-data body of the parts.
func multipartUpload(t testing.TB, parts ...uploadPart) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		if p.fileName == "" {
			require.NoError(t, w.WriteField(p.field, string(p.content)))
			continue
		}
		part, err := w.CreateFormFile(p.field, p.fileName)
		require.NoError(t, err)
		_, err = part.Write(p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), buf.Bytes()
}

// fileUpload is a POST /api/v1/jobs body: one statement file in the part "file".
func fileUpload(t testing.TB, name string, content []byte) (string, []byte) {
	t.Helper()
	return multipartUpload(t, uploadPart{field: "file", fileName: name, content: content})
}
