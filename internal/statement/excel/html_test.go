package excel

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// page wraps table markup in a minimal page.
func page(body string) []byte {
	return []byte("<html><head><meta charset=\"utf-8\"></head><body>" + body + "</body></html>")
}

// utf16LE encodes s as UTF-16LE with its byte-order mark.
func utf16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

const htmlStatement = `<table>
<tr><th>Date</th><th>Description</th><th>Amount</th></tr>
<tr><td>02/03/2026</td><td>Coffee</td><td>-3.50</td></tr>
<tr><td>15/03/2026</td><td>Salary</td><td>2,000.00</td></tr>
</table>`

func TestHTMLTables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    []byte
		descs   []string
		amounts []string
		dates   []string
		account string
		dialect string
		skip    string // what the table layer (package tabular) must do first
	}{
		{
			name:    "a plain HTML statement is read as its table",
			data:    page(htmlStatement),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
			dialect: "html;charset=utf-8;sheet=table 1;",
		},
		{
			name: "entities are decoded, <br> and blocks are spaces, nested markup is its text",
			data: page(`<table><tr><th>Date</th><th>Details</th><th>Amount</th></tr>` +
				`<tr><td>02/03/2026</td><td><b>M&amp;S</b><br>STORE&nbsp;42<div>LONDON</div></td><td>&minus;1.00</td></tr>` +
				`<tr><td>03/03/2026</td><td><a href="#"><span>Caf&eacute;</span></a> &#x2013; <font>tip</font></td><td>-2.00</td></tr></table>`),
			descs:   []string{"M&S STORE 42 LONDON", "Café – tip"},
			amounts: []string{"-1.00", "-2.00"},
		},
		{
			name: "colspan leaves the columns it covers empty and rowspan shows its date on each row",
			data: page(`<table><tr><td colspan="3">Statement for March</td></tr>` +
				`<tr><th>Date</th><th>Type</th><th>Description</th><th>Amount</th></tr>` +
				`<tr><td rowspan="2">02/03/2026</td><td colspan="2">Card TESCO</td><td>-5.00</td></tr>` +
				`<tr><td>DD</td><td>Gas</td><td>-40.00</td></tr>` +
				`<tr><td>09/03/2026</td><td>FPI</td><td>Refund</td><td>5.00</td></tr></table>`),
			descs:   []string{"Card TESCO", "Gas", "Refund"},
			amounts: []string{"-5.00", "-40.00", "5.00"},
			dates:   []string{"2026-03-02", "2026-03-02", "2026-03-09"},
		},
		{
			name: "a header of two rows, Amount spanning Paid out and Paid in, and a summary under the table",
			data: page(`<table><tr><th colspan="4">Statement of account</th></tr>` +
				`<tr><th rowspan="2">Date</th><th rowspan="2">Description</th><th colspan="2">Amount</th></tr>` +
				`<tr><th>Paid out</th><th>Paid in</th></tr>` +
				`<tr><td>02/03/2026</td><td>Coffee</td><td>3.50</td><td></td></tr>` +
				`<tr><td>15/03/2026</td><td>Salary</td><td></td><td>2,000.00</td></tr>` +
				`<tr><td>Total paid out</td><td></td><td>3.50</td><td></td></tr>` +
				`<tr><td>Total paid in</td><td></td><td></td><td>2,000.00</td></tr></table>`),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
		},
		{
			name: "a summary labelled in the description column under an empty date is no transaction",
			data: page(`<table><tr><th>Date</th><th>Description</th><th>Paid out</th><th>Paid in</th></tr>` +
				`<tr><td>02/03/2026</td><td>Coffee</td><td>3.50</td><td></td></tr>` +
				`<tr><td>15/03/2026</td><td>Salary</td><td></td><td>2,000.00</td></tr>` +
				`<tr><td></td><td>Total paid out</td><td>3.50</td><td></td></tr>` +
				`<tr><td></td><td>Total paid in</td><td></td><td>2,000.00</td></tr></table>`),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
		},
		{
			name:    "an XML prolog and a UTF-16 byte-order mark",
			data:    utf16LE(`<?xml version="1.0" encoding="utf-16"?>` + "\n" + `<html xmlns="http://www.w3.org/1999/xhtml"><body>` + htmlStatement + `</body></html>`),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
			dialect: "html;charset=utf-16le;",
		},
		{
			name:    "Windows-1252 bytes under a declared charset",
			data:    []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><table><tr><th>Date</th><th>Description</th><th>Amount</th></tr><tr><td>02/03/2026</td><td>Caf\xe9 \x80</td><td>-3.50</td></tr></table>"),
			descs:   []string{"Café €"},
			amounts: []string{"-3.50"},
			dialect: "html;charset=windows-1252;",
		},
		{
			name:    "a page declaring UTF-8 whose bytes are Windows-1252 is read by its bytes",
			data:    []byte("<meta charset=\"utf-8\"><table><tr><th>Date</th><th>Description</th><th>Amount</th></tr><tr><td>02/03/2026</td><td>Caf\xe9</td><td>-3.50</td></tr></table>"),
			descs:   []string{"Café"},
			amounts: []string{"-3.50"},
			dialect: "html;charset=windows-1252;",
		},
		{
			name: "a layout table around the statement holds none of its text",
			data: page(`<table><tr><td><img src="logo.png"> Online banking</td><td>` + htmlStatement + `</td></tr>` +
				`<tr><td>Page 1</td><td>Printed 31/03/2026</td></tr></table>`),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
		},
		{
			name: "the account in a small table above the statement's table is mined as a preamble",
			data: page(`<table><tr><td>Account number:</td><td>12345678</td></tr><tr><td>Sort code:</td><td>20-00-00</td></tr></table>` +
				htmlStatement),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
			account: "12345678",
		},
		{
			name: "the account in lines of text above the statement's table is mined as a preamble",
			data: page(`<h2>Statement of account</h2><p>Account name: MR J SMITH<br>Account number: 87654321</p>` +
				`<div>Printed 31/03/2026 10:15</div>` + htmlStatement + `<p>Account number: 99999999</p>`),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
			account: "87654321",
		},
		{
			name: "the largest table with dates and amounts is the statement, not a summary table",
			data: page(`<table><tr><th>Date</th><th>Total</th></tr><tr><td>31/03/2026</td><td>1,996.50</td></tr></table>` +
				strings.Replace(htmlStatement, "</table>", `<tr><td>20/03/2026</td><td>Books</td><td>-10.00</td></tr></table>`, 1)),
			descs:   []string{"Coffee", "Salary", "Books"},
			amounts: []string{"-3.50", "2000.00", "-10.00"},
		},
		{
			name:    "cells without <tr>, unclosed tags and a table cut at the end of the file",
			data:    []byte(`<table><th>Date<th>Description<th>Amount<tr><td>02/03/2026<td>Coffee<td>-3.50<tr><td>15/03/2026<td>Salary<td>2000`),
			descs:   []string{"Coffee", "Salary"},
			amounts: []string{"-3.50", "2000.00"},
		},
		{
			name: "script and style text is not a cell's",
			data: page(`<style>td{color:red}</style><table><tr><th>Date</th><th>Description</th><th>Amount</th></tr>` +
				`<tr><td>02/03/2026</td><td>Coffee<script>document.write("<td>9.99</td>")</script></td><td>-3.50</td></tr></table>`),
			descs:   []string{"Coffee"},
			amounts: []string{"-3.50"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			st, err := parseFinished(t, tc.data)
			require.NoError(t, err)
			checkConsistent(t, st)
			require.Equal(t, statement.FormatHTML, st.Format)
			var descs, amounts, dates []string
			for _, x := range st.Transactions {
				descs = append(descs, x.Description)
				amounts = append(amounts, x.Amount.StringFixed(2))
				dates = append(dates, x.Date.String())
			}
			require.Equal(t, tc.descs, descs)
			require.Equal(t, tc.amounts, amounts)
			if tc.dates != nil {
				require.Equal(t, tc.dates, dates)
			}
			if tc.account != "" {
				require.Equal(t, tc.account, st.Account)
			}
			if tc.dialect != "" {
				require.True(t, strings.HasPrefix(st.Dialect, tc.dialect), st.Dialect)
			}
		})
	}
}

func TestHTMLRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		kind error
		msg  string
	}{
		{"a page without a table is not a statement", []byte("<html><body><p>Hello</p></body></html>"), statement.ErrNotAStatement, "without a table"},
		{"a table of no dates and amounts is not a statement", page("<table><tr><td>Name</td><td>Town</td></tr><tr><td>Ann</td><td>Leeds</td></tr></table>"), statement.ErrNotAStatement, ""},
		{"more rows than allowed", page("<table>" + strings.Repeat("<tr><td>02/03/2026</td><td>1.00</td></tr>", 11) + "</table>"), statement.ErrTooManyRows, "more than 10 rows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tc.data, statement.Options{MaxRows: 10})
			require.ErrorIs(t, err, tc.kind)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

// TestHTMLHostile feeds pages built to exhaust time or memory. Each must end in a clear error or
// a bounded result, quickly and with the heap bounded. Not parallel: it measures allocation.
func TestHTMLHostile(t *testing.T) {
	header := `<table><tr><th>Date</th><th>Description</th><th>Amount</th></tr>`
	tests := []struct {
		name string
		data []byte
		opts statement.Options
		kind error // nil: any outcome but a crash, within the bounds
	}{
		{"tables nested deeper than MaxDepth", []byte(strings.Repeat("<table><tr><td>", 100_000)), statement.Options{}, statement.ErrResourceLimit},
		{"a million empty cells", page(header + "<tr>" + strings.Repeat("<td></td>", 1_000_000) + "</tr></table>"), statement.Options{}, nil},
		{"a million rows of empty cells", page(header + strings.Repeat("<tr><td></td></tr>", 1_000_000) + "</table>"), statement.Options{}, nil},
		{"huge colspans on every cell", page(header + strings.Repeat(`<tr><td colspan="99999999">02/03/2026</td><td colspan=1000>x</td><td>1</td></tr>`, 50_000) + "</table>"), statement.Options{}, nil},
		{"huge rowspans on every cell", page(header + strings.Repeat(`<tr><td rowspan="99999999">02/03/2026</td><td rowspan=65534>x</td><td>1</td></tr>`, 50_000) + "</table>"), statement.Options{}, nil},
		{"colspan multiplying cells past the budget", page(header + strings.Repeat(`<tr>`+strings.Repeat(`<td colspan=1000>1</td>`, 17)+`</tr>`, 100_000) + "</table>"), statement.Options{MaxRows: 1000}, statement.ErrResourceLimit},
		{"entities declared in a DOCTYPE are not expanded",
			[]byte(`<!DOCTYPE html [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>` +
				header + strings.Repeat(`<tr><td>02/03/2026</td><td>&c;&c;&c;&c;&c;&c;</td><td>1.00</td></tr>`, 10_000) + "</table>"), statement.Options{}, nil},
		{"a tag longer than the token limit", []byte("<table><tr><td " + strings.Repeat("a", 5<<20) + ">"), statement.Options{}, statement.ErrResourceLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			st, err := Parse(tt.data, tt.opts)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: %v in %v, %d KiB allocated", len(tt.data), err, elapsed, allocated>>10)
			if tt.kind != nil {
				require.ErrorIs(t, err, tt.kind)
			} else if err == nil {
				checkConsistent(t, st)
				require.LessOrEqual(t, len(st.Transactions), 50_000)
				for _, x := range st.Transactions {
					require.NotContains(t, x.Description, "aaaaaaaaaa", "a declared entity was expanded")
				}
			} else {
				var se *statement.Error
				require.ErrorAs(t, err, &se)
			}
			require.Less(t, elapsed, 20*time.Second)
			// Bounded by a small multiple of the input: the text is decoded once, the cells
			// keep slices of it.
			require.Less(t, allocated, uint64(16*len(tt.data)+(64<<20)))
		})
	}
}
