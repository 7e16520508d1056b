package upload_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/excel/exceltest"
	"github.com/statementmatch/service/internal/upload"
)

// TestCheckStatementNamesTheFormatOfAWorkbookItLeavesToTheWorker: a workbook larger than the
// head that format detection reads (whose ZIP directory, at its end, is out of the head's
// reach) and that the check leaves to the worker (a resource limit) still has its format: a job
// is never created without one.
func TestCheckStatementNamesTheFormatOfAWorkbookItLeavesToTheWorker(t *testing.T) {
	t.Parallel()
	book, err := exceltest.XLSX([][]any{{"Date", "Description", "Amount"}, {time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), "SEPA CREDIT", 1250.5}})
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(book), int64(len(book)))
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		require.NoError(t, zw.Copy(f))
	}
	for i := range 20000 { // past the parser's limit on entries, and far past 64 KiB
		_, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("xl/media/p%d.bin", i), Method: zip.Store})
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.Greater(t, buf.Len(), 64<<10)

	format, err := upload.CheckStatement(fileOf("big.xlsx", buf.Bytes()), statement.Options{})
	require.ErrorIs(t, err, statement.ErrResourceLimit)
	require.Equal(t, statement.FormatXLSX, format)
}

// headOnly is an upload that fails any read past its first limit bytes: a check that reads it
// whole, rather than its head, fails with a read error instead of answering.
func headOnly(name string, data []byte, limit int) upload.File {
	return upload.File{Name: name, Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(bytes.NewReader(data[:min(limit, len(data))]), failingReader{})), nil
	}}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("read past the head") }

// repeatLines returns head followed by line repeated until the text is past size bytes.
func repeatLines(head, line string, size int) []byte {
	var b strings.Builder
	b.WriteString(head)
	for b.Len() <= size {
		b.WriteString(line)
	}
	return []byte(b.String())
}

func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// TestCheckStatementReadsTheHeadOfTextFormats: every format is checked before the 202
// (PRODUCT.md section 6). A text statement is parsed in its head: a file that holds no column
// of dates and amounts is refused without reading the rest of a large one, and what a cut head
// shows (a record or element left open) does not refuse a file the worker can read whole.
func TestCheckStatementReadsTheHeadOfTextFormats(t *testing.T) {
	t.Parallel()
	const big = 200 << 10 // past the 64 KiB head
	ofxHead := "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>EUR\n" +
		"<BANKACCTFROM><BANKID>1<ACCTID>A<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>20260101<DTEND>20260131\n"
	camtHead := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>` +
		"<GrpHdr><MsgId>M</MsgId><CreDtTm>2026-01-31T00:00:00</CreDtTm></GrpHdr><Stmt><Id>S</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>\n"
	camtEntry := `<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-01-05</Dt></BookgDt></Ntry>` + "\n"
	tests := []struct {
		name   string
		file   upload.File
		format statement.Format
		kind   error // nil: accepted
		msg    string
	}{
		{name: "a small CSV of names and towns is refused", file: fileOf("people.csv", []byte("Name,Town\nAnn,Leeds\nBob,York\n")),
			kind: statement.ErrNotAStatement, msg: "no column of dates and amounts"},
		{name: "a large CSV of names and towns is refused from its head alone",
			file: headOnly("people.csv", repeatLines("Name,Town,Notes\n", "Ann,Leeds,a long note about nothing at all\n", big), 64<<10),
			kind: statement.ErrNotAStatement, msg: "no column of dates and amounts"},
		{name: "a large CSV statement whose head ends mid-row is accepted from its head alone",
			file:   headOnly("bank.csv", repeatLines("Date,Description,Amount\n", "2026-03-01,\"Card payment, shop\",-12.34\n", big), 64<<10),
			format: statement.FormatCSV},
		{name: "a large UTF-16 CSV statement is cut at a whole line",
			file:   headOnly("bank.csv", utf16LE(string(repeatLines("Date;Description;Amount\r\n", "01.03.2026;Karte;-12,34\r\n", big/2))), 64<<10),
			format: statement.FormatCSV},
		{name: "a CSV named .xls is read as the CSV it is", file: fileOf("export.xls", []byte("Date,Description,Amount\n01/03/2026,Coffee,-3.50\n")),
			format: statement.FormatCSV},
		{name: "a TSV named .xls is read as the CSV it is", file: fileOf("export.xls", []byte("Date\tDescription\tAmount\n01/03/2026\tCoffee\t-3.50\n")),
			format: statement.FormatCSV},
		{name: "a large OFX whose head ends inside the transaction list is accepted",
			file:   headOnly("bank.ofx", repeatLines(ofxHead, "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260105<TRNAMT>-1.00<FITID>x<NAME>Shop</STMTTRN>\n", big), 64<<10),
			format: statement.FormatOFX},
		{name: "a large CAMT.053 whose head ends inside its XML is accepted",
			file:   headOnly("bank.xml", repeatLines(camtHead, camtEntry, big), 64<<10),
			format: statement.FormatCAMT053},
		{name: "a small MT940 without lines or balances is refused",
			file: fileOf("bank.sta", []byte(":20:X\r\n:25:NL91ABNA0417164300\r\n:28C:1/1\r\n-\r\n")), kind: statement.ErrNoTransactions},
		{name: "a small BAI2 with balances and no activity is accepted",
			file:   fileOf("bank.bai", []byte("01,S,R,260301,0800,1,,,2/\n02,R,O,1,260228,,USD,2/\n03,1,,010,500,,,015,500,,,/\n49,1000,2/\n98,1000,1,4/\n99,1000,1,6/\n")),
			format: statement.FormatBAI2},
		{name: "a QIF file opening with comment lines is accepted",
			file:   fileOf("bank.qif", []byte("# exported\n!Type:Bank\nD03/01/2026\nT-3.50\nPCoffee\n^\n")),
			format: statement.FormatQIF},
		{name: "an HTML table saved as .xls is accepted as HTML",
			file:   fileOf("statement.xls", []byte("<html><table><tr><th>Date</th><th>Description</th><th>Amount</th></tr><tr><td>01/03/2026</td><td>Coffee</td><td>-3.50</td></tr></table></html>")),
			format: statement.FormatHTML},
		{name: "an HTML page without a table is refused", file: fileOf("statement.xls", []byte("<html><body><p>Session expired</p></body></html>")),
			kind: statement.ErrNotAStatement, msg: "without a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			format, err := upload.CheckStatement(tc.file, statement.Options{})
			if tc.kind == nil {
				require.NoError(t, err)
				require.Equal(t, tc.format, format)
				return
			}
			require.ErrorIs(t, err, tc.kind)
			var serr *statement.Error
			require.ErrorAs(t, err, &serr)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

func fileOf(name string, data []byte) upload.File {
	return upload.File{Name: name, Size: int64(len(data)), SHA256: sha256.Sum256(data),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}
