package contracttests

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// Files of the upload check (PRODUCT.md section 6: every format is checked before the 202, text
// formats included, by reading the file's head).
var (
	// namesCSV is a CSV that holds no column of dates and amounts.
	namesCSV = []byte("Name,Town,Notes\nAnn,Leeds,first\nBob,York,second\n")
	// largeNamesCSV is such a CSV, past the 64 KiB head the check reads.
	largeNamesCSV = repeatTo("Name,Town,Notes\n", "Ann,Leeds,a note that says nothing in particular\n", 200<<10)
	// htmlExportXLS is a bank's "Excel export" that is an HTML table.
	htmlExportXLS = []byte(`<html xmlns:x="urn:schemas-microsoft-com:office:excel"><head><meta charset="windows-1252"></head><body>` +
		`<table><tr><td>Account number:</td><td>12345678</td></tr></table><table border="1">` +
		`<tr><th>Date</th><th>Description</th><th>Paid out</th><th>Paid in</th></tr>` +
		`<tr><td>01/03/2024</td><td>CARD PAYMENT OFFICE SUPPLIES</td><td>&pound;42.99</td><td></td></tr>` +
		`<tr><td>04/03/2024</td><td>SEPA CREDIT ACME GMBH INV 2024 001</td><td></td><td>&pound;1,250.50</td></tr>` +
		`</table></body></html>`)
	// spreadsheetML is an Excel 2003 XML Spreadsheet statement.
	spreadsheetML = []byte(`<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?>` +
		`<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="Statement"><Table>` +
		`<Row><Cell><Data ss:Type="String">Date</Data></Cell><Cell><Data ss:Type="String">Description</Data></Cell><Cell><Data ss:Type="String">Amount</Data></Cell></Row>` +
		`<Row><Cell><Data ss:Type="DateTime">2024-03-01T00:00:00.000</Data></Cell><Cell><Data ss:Type="String">CARD PAYMENT</Data></Cell><Cell><Data ss:Type="Number">-42.99</Data></Cell></Row>` +
		`</Table></Worksheet></Workbook>`)
	// ofxTwoAccountsNoActivity states the balances of two accounts and no transaction.
	ofxTwoAccountsNoActivity = []byte("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n<OFX><BANKMSGSRSV1>" +
		ofxNoActivity("455000-5", "0.00") + ofxNoActivity("655000-2", "4555.28") + "</BANKMSGSRSV1></OFX>\n")
)

func ofxNoActivity(acct, balance string) string {
	return "<STMTTRNRS><TRNUID>1<STMTRS><CURDEF>BRL<BANKACCTFROM><BANKID>1<ACCTID>" + acct +
		"<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>20240301<DTEND>20240331</BANKTRANLIST>" +
		"<LEDGERBAL><BALAMT>" + balance + "<DTASOF>20240331</LEDGERBAL></STMTRS></STMTTRNRS>"
}

// repeatTo returns head followed by line repeated until the text is past size bytes.
func repeatTo(head, line string, size int) []byte {
	var b strings.Builder
	b.WriteString(head)
	for b.Len() <= size {
		b.WriteString(line)
	}
	return []byte(b.String())
}

// TestParseUploadCheckReadsEveryFormat: POST /jobs refuses, before the 202, a text file that
// holds no column of dates and amounts, small or large, with 400 FILE_INVALID naming the
// problem; and accepts the spreadsheet exports that are not workbooks as what they are.
func TestParseUploadCheckReadsEveryFormat(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Check")
	c := s.parseCaller(t, acct)

	refusals := []struct {
		name string
		file string
		data []byte
	}{
		{"a CSV without dates and amounts is 400 FILE_INVALID", "people.csv", namesCSV},
		{"a CSV without dates and amounts past the head the check reads is 400 FILE_INVALID", "people.csv", largeNamesCSV},
		{"a CAMT.053 cut off within the head the check reads is 400 FILE_INVALID", "cut.xml", cutCAMT053(t)},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			r := c.upload(t, "", tt.file, tt.data)
			e := requireParseError(t, r.HTTPResponse, r.Body, http.StatusBadRequest, parseclient.ErrorCodeFileInvalid)
			if strings.HasSuffix(tt.file, ".csv") {
				require.Contains(t, e.Detail, "no column of dates and amounts")
			} else {
				require.Contains(t, e.Detail, "truncated")
			}
		})
	}
	require.Equal(t, 0, c.usage(t).JobsCreated, "refused uploads are not charged")

	accepted := []struct {
		name   string
		file   string
		data   []byte
		format parseclient.StatementFormat
		count  int
	}{
		{"an HTML table saved as .xls is an html statement", "statement.xls", htmlExportXLS, parseclient.StatementFormatHtml, 2},
		{"an XML Spreadsheet 2003 is a spreadsheetml statement", "statement.xls", spreadsheetML, parseclient.StatementFormatSpreadsheetml, 1},
		{"a CSV named .xls is a csv statement", "statement.xls", bankCSV(reconBankLines), parseclient.StatementFormatCsv, len(reconBankLines)},
		{"an OFX of two accounts without activity completes with zero transactions", "two.ofx", ofxTwoAccountsNoActivity, parseclient.StatementFormatOfx, 0},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			j := c.create(t, tt.file, tt.data)
			require.Equal(t, tt.format, j.Format, "the format is known on upload")
			done := c.wait(t, j.JobId)
			require.Equal(t, parseclient.JobStatusCompleted, done.Status, "%+v", done.Error)
			require.Equal(t, tt.format, done.Format)
			require.Equal(t, tt.count, done.TransactionsCount)
		})
	}
}

// TestReconUploadCheckReadsEveryFormat: POST /api/v1/jobs refuses, before the 202, a bank file
// that holds no column of dates and amounts, small or large, with 400 FILE_INVALID naming the
// field; and reconciles an HTML table export.
func TestReconUploadCheckReadsEveryFormat(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Check")
	clientID, secret := s.newClient(t, acct)
	c := s.reconCaller(t, s.ReconURL, clientID, secret)
	expected := []byte(reconExpectedCSV)

	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"a bank CSV without dates and amounts is 400 FILE_INVALID naming the field", namesCSV},
		{"a bank CSV without dates and amounts past the head the check reads is 400 FILE_INVALID", largeNamesCSV},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := jobUpload(t, "bank.csv", tt.data, "e.csv", expected)
			r := c.create(t, "", ct, body)
			require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
			code, msg := errorOf(t, false, r.Body)
			require.Equal(t, string(reconclient.ErrorCodeFileInvalid), code)
			require.Contains(t, msg, "bank: ")
			require.Contains(t, msg, "no column of dates and amounts")
		})
	}
	require.Equal(t, 0, c.limits(t).JobsUsed, "refused requests use no quota")

	t.Run("an HTML table saved as .xls is reconciled", func(t *testing.T) {
		ct, body := jobUpload(t, "statement.xls", htmlExportXLS, "e.csv", expected)
		created := c.create(t, "", ct, body)
		require.Equal(t, http.StatusAccepted, created.StatusCode(), string(created.Body))
		job := c.wait(t, created.JSON202.JobId)
		require.Equal(t, reconclient.JobStatusCompleted, job.Status, "%+v", job.Error)
	})
}

// TestHostileSpreadsheetExports uploads HTML tables and XML Spreadsheets built to exhaust
// memory or time to both APIs: tables nested 100,000 deep, a million empty cells, colspans on
// every cell, entities declared to expand a billion times. Each ends within 30 s refused with
// 400 FILE_INVALID or as a failed job with a reason, never a 500, and the server stays up.
func TestHostileSpreadsheetExports(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	acct := s.newAccount(t, "Hostile")
	pc := s.parseCaller(t, acct)
	clientID, secret := s.newClient(t, acct)
	rc := s.reconCaller(t, s.ReconURL, clientID, secret)
	header := `<table><tr><th>Date</th><th>Description</th><th>Amount</th></tr>`
	inputs := []struct {
		name string
		data []byte
	}{
		{"HTML tables nested 100,000 deep", []byte(strings.Repeat("<table><tr><td>", 100_000))},
		{"an HTML table of a million empty cells", []byte(header + "<tr>" + strings.Repeat("<td></td>", 1_000_000) + "</tr></table>")},
		{"HTML colspans of 1000 on every cell", []byte(header + strings.Repeat(`<tr>`+strings.Repeat(`<td colspan=1000>1</td>`, 17)+`</tr>`, 50_000) + "</table>")},
		{"an XML Spreadsheet with a billion laughs", []byte(`<?xml version="1.0"?><!DOCTYPE Workbook [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` +
			`<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet><Table><Row><Cell><Data>&b;</Data></Cell></Row></Table></Worksheet></Workbook>`)},
	}
	for _, in := range inputs {
		t.Run("parsing: "+in.name, func(t *testing.T) {
			start := time.Now()
			r := pc.upload(t, "", "hostile.xls", in.data)
			if r.StatusCode() != http.StatusAccepted {
				requireParseError(t, r.HTTPResponse, r.Body, http.StatusBadRequest, parseclient.ErrorCodeFileInvalid)
				return
			}
			j := pc.waitFor(t, r.JSON202.Data.JobId, 30*time.Second)
			require.Equal(t, parseclient.JobStatusFailed, j.Status)
			require.Contains(t, []parseclient.JobErrorCode{parseclient.JobErrorCodeResourceLimit, parseclient.JobErrorCodeFileCorrupt,
				parseclient.JobErrorCodeTooManyRows, parseclient.JobErrorCodeNoTransactions}, j.Error.Code)
			require.Less(t, time.Since(start), 30*time.Second)
		})
		t.Run("reconciliation: "+in.name, func(t *testing.T) {
			start := time.Now()
			ct, body := jobUpload(t, "hostile.xls", in.data, "e.csv", []byte(reconExpectedCSV))
			r := rc.create(t, "", ct, body)
			if r.StatusCode() != http.StatusAccepted {
				require.Equal(t, http.StatusBadRequest, r.StatusCode(), string(r.Body))
				code, msg := errorOf(t, false, r.Body)
				require.Equal(t, string(reconclient.ErrorCodeFileInvalid), code)
				require.Contains(t, msg, "bank: ")
				return
			}
			j := rc.wait(t, r.JSON202.JobId)
			require.Equal(t, reconclient.JobStatusFailed, j.Status)
			require.Contains(t, []reconclient.JobErrorCode{reconclient.JobErrorCodeFileInvalid, reconclient.JobErrorCodeFileTooLarge}, j.Error.Code)
			require.Less(t, time.Since(start), 30*time.Second)
		})
	}
	_ = pc.status(t) // the server still answers
}
