package expected

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"

	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/statement"
)

// brief renders rows as "row|reference|amount|currency|due date|name" for comparing.
func brief(rows []match.Expected) []string {
	out := make([]string, len(rows))
	for i, e := range rows {
		out[i] = fmt.Sprintf("%d|%s|%s|%s|%s|%s", e.Row, e.Reference, e.Amount.String(), e.Currency, e.DueDate, e.Name)
	}
	return out
}

func utf16LEWithBOM(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func windows1252(t testing.TB, s string) []byte {
	b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
	require.NoError(t, err)
	return b
}

func TestReadAcceptsEveryHeaderSynonym(t *testing.T) {
	for r, names := range synonyms {
		for _, name := range names {
			t.Run(fmt.Sprintf("%s names the %s column", name, roleNames[r]), func(t *testing.T) {
				header := map[role]string{roleReference: "reference", roleAmount: "amount", roleCurrency: "currency",
					roleDueDate: "due_date", roleName: "name"}
				header[role(r)] = name
				csv := header[roleReference] + "," + header[roleAmount] + "," + header[roleCurrency] + "," +
					header[roleDueDate] + "," + header[roleName] + "\nINV-1,12.50,EUR,2024-03-05,Acme\n"
				rows, err := Read([]byte(csv), statement.Options{})
				require.NoError(t, err)
				require.Equal(t, []string{"2|INV-1|12.5|EUR|2024-03-05|Acme"}, brief(rows))
			})
		}
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"header names with spaces, hyphens and capitals are read as underscored names",
			[]byte("Invoice Number,Expected-Amount,DUE DATE\nINV-1,10,2024-03-05\n"),
			[]string{"2|INV-1|10||2024-03-05|"}},
		{"PAYMENT-REFERENCE with spaces around it is payment_reference",
			[]byte("  PAYMENT-REFERENCE ,Total\nRF18 5390 0754 7034,7.5\n"),
			[]string{"2|RF18 5390 0754 7034|7.5|||"}},
		{"the leftmost of two reference columns is used",
			[]byte("Name,Invoice,Reference,Amount,Sum\nAcme,INV-1,REF-1,1.00,2.00\n"),
			[]string{"2|INV-1|1|||Acme"}},
		{"column order does not matter and other columns are ignored",
			[]byte("Notes,Amount,Customer ID,Ref\nfirst,3.10,C7,A-1\n"),
			[]string{"2|A-1|3.1|||"}},
		{"a UTF-8 byte-order mark before the header is ignored",
			[]byte("\xEF\xBB\xBFreference,amount\nA1,1\n"),
			[]string{"2|A1|1|||"}},
		{"a semicolon file with decimal commas and thousands dots",
			[]byte("Invoice;Amount;Currency\nINV-1;1.250,50;EUR\nINV-2;12,5;EUR\nINV-3;1.000.000,00;EUR\n"),
			[]string{"2|INV-1|1250.5|EUR||", "3|INV-2|12.5|EUR||", "4|INV-3|1000000|EUR||"}},
		{"a comma file with thousands commas and quoted amounts",
			[]byte("invoice,amount\nINV-1,\"1,250.50\"\nINV-2,\"1,250\"\n"),
			[]string{"2|INV-1|1250.5|||", "3|INV-2|1250|||"}},
		{"an amount with one comma and three digits is thousands when nothing shows the mark",
			[]byte("ref;amount\nA;1,250\nB;2,500\n"),
			[]string{"2|A|1250|||", "3|B|2500|||"}},
		{"an amount with one comma and three digits is decimal when another row shows a decimal comma",
			[]byte("ref;amount\nA;1,250\nB;1250,5\n"),
			[]string{"2|A|1.25|||", "3|B|1250.5|||"}},
		{"a tab-delimited file",
			[]byte("reference\tamount\tname\nINV-1\t99.99\tAcme, Inc.\n"),
			[]string{"2|INV-1|99.99|||Acme, Inc."}},
		{"a pipe-delimited file",
			[]byte("reference|amount\nINV-1|5\n"),
			[]string{"2|INV-1|5|||"}},
		{"a UTF-16LE file with a byte-order mark",
			utf16LEWithBOM("reference;amount;name\r\nINV-1;12,50;Zoë Ågren\r\n"),
			[]string{"2|INV-1|12.5|||Zoë Ågren"}},
		{"a Windows-1252 file with é in a name",
			windows1252(t, "reference;amount;name\nINV-1;12,50;Société Générale\nINV-2;3,00;Café René\n"),
			[]string{"2|INV-1|12.5|||Société Générale", "3|INV-2|3|||Café René"}},
		{"a quoted field may span lines and hold the delimiter; rows keep their line numbers",
			[]byte("reference,amount,name\n\"INV-1\",10.00,\"Acme,\nSecond line\"\nINV-2,20.00,Beta\n"),
			[]string{"2|INV-1|10|||Acme,\nSecond line", "4|INV-2|20|||Beta"}},
		{"a currency column is upper-cased, and a code or symbol in the amount sets a missing one",
			[]byte("ref,amount,currency\nA,12.50,eur\nB,€ 12.50,\nC,12.50 GBP,\nD,$5.00,\nE,7.00,\n"),
			[]string{"2|A|12.5|EUR||", "3|B|12.5|EUR||", "4|C|12.5|GBP||", "5|D|5|||", "6|E|7|||"}},
		{"a currency in the amount agreeing with the currency column is fine",
			[]byte("ref,amount,currency\nA,EUR 12.50,EUR\n"),
			[]string{"2|A|12.5|EUR||"}},
		{"negative, parenthesised and trailing-minus amounts are stored absolute",
			[]byte("ref;amount\nA;-12,50\nB;(7,25)\nC;3,10-\nD;−4,00\nE;+1,00\n"),
			[]string{"2|A|12.5|||", "3|B|7.25|||", "4|C|3.1|||", "5|D|4|||", "6|E|1|||"}},
		{"a header without data rows is an empty list",
			[]byte("reference,amount\n"),
			[]string{}},
		{"blank lines and empty rows are skipped, and the header may follow blank lines",
			[]byte("\n\nreference;amount\n\nA;1\n;;\n   \nB;2\n"),
			[]string{"5|A|1|||", "8|B|2|||"}},
		{"the reference is kept as written, trimmed, and unwrapped from Excel's =\"...\" form",
			[]byte("reference,amount\n  Inv 2024/001  ,1\n=\"00123\",2\n"),
			[]string{"2|Inv 2024/001|1|||", "3|00123|2|||"}},
		{"ISO, dotted and spelled-out due dates",
			[]byte("ref,amount,due_date\nA,1,2024-03-05\nB,1,05.03.2024\nC,1,5 Mar 2024\nD,1,\n"),
			[]string{"2|A|1||2024-03-05|", "3|B|1||2024-03-05|", "4|C|1||2024-03-05|", "5|D|1|||"}},
		{"slash due dates are read month first when a day over 12 stands second",
			[]byte("ref,amount,due_date\nA,1,03/05/2024\nB,1,12/31/2024\n"),
			[]string{"2|A|1||2024-03-05|", "3|B|1||2024-12-31|"}},
		{"slash due dates are read day first when a day over 12 stands first",
			[]byte("ref,amount,due_date\nA,1,03/05/2024\nB,1,31/12/2024\n"),
			[]string{"2|A|1||2024-05-03|", "3|B|1||2024-12-31|"}},
		{"open slash due dates in a USD file are read month first",
			[]byte("ref,amount,currency,due_date\nA,1.50,USD,03/05/2024\n"),
			[]string{"2|A|1.5|USD|2024-03-05|"}},
		{"open slash due dates elsewhere are read day first",
			[]byte("ref,amount,currency,due_date\nA,1.50,EUR,03/05/2024\n"),
			[]string{"2|A|1.5|EUR|2024-05-03|"}},
		{"classic Mac line endings",
			[]byte("ref,amount\rA,1\rB,2\r"),
			[]string{"2|A|1|||", "3|B|2|||"}},
		{"Windows line endings",
			[]byte("ref,amount\r\nA,1\r\nB,2\r\n"),
			[]string{"2|A|1|||", "3|B|2|||"}},
		{"a zero amount is an amount",
			[]byte("ref,amount\nA,0.00\n"),
			[]string{"2|A|0|||"}},
		{"a file with timestamps that statement detection takes for MT940 is still read as CSV",
			[]byte("reference,amount,note\nA,1,at 10:20:25\nB,2,at 11:25:28\n"),
			[]string{"2|A|1|||", "3|B|2|||"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := Read(tt.data, statement.Options{})
			require.NoError(t, err)
			require.NotNil(t, rows)
			require.Equal(t, tt.want, brief(rows))
			require.NoError(t, Check(tt.data, statement.Options{}), "Check accepts what Read accepts")
		})
	}
}

// refusals are files Read refuses. header says the reason lies in the file as a whole or its
// header, so Check must refuse the file with the same error.
var refusals = []struct {
	name   string
	data   []byte
	kind   error
	msg    string
	header bool
}{
	{"a file without a reference column is refused naming the accepted names",
		[]byte("Date,Amount,Text\n2024-01-01,1,x\n"), ErrInvalid,
		`no reference column: the header row (row 1) has none of reference, ref, invoice, invoice_number, payment_reference (its columns are "Date", "Amount", "Text")`,
		true},
	{"a file without an amount column is refused naming the accepted names",
		[]byte("\nInvoice;Betrag\nINV-1;1\n"), ErrInvalid,
		`no amount column: the header row (row 2) has none of amount, sum, total, expected_amount (its columns are "Invoice", "Betrag")`,
		true},
	{"an empty file is refused", []byte{}, ErrInvalid, "the file is empty", true},
	{"a file of white space is refused as empty", []byte(" \r\n\t\n"), ErrInvalid, "the file is empty", true},
	{"a file of empty rows is refused as empty", []byte(";;;\n;;\n\n"), ErrInvalid, "the file is empty", true},
	{"a UTF-16 file with only a byte-order mark is refused as empty", []byte{0xFF, 0xFE}, ErrInvalid, "the file is empty", true},
	{"a PDF is refused as not CSV or Excel",
		[]byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), ErrInvalid,
		"not a CSV or Excel file: looks like a PDF", true},
	{"an MT940 statement is refused as not CSV or Excel",
		[]byte(":20:STARTUMS\r\n:25:12345678/0001234567\r\n:28C:00001/001\r\n:60F:C240101EUR1000,00\r\n:62F:C240101EUR1000,00\r\n-"), ErrInvalid,
		"not a CSV or Excel file: looks like an MT940 bank statement", true},
	{"a CAMT statement is refused as not CSV or Excel",
		[]byte(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt/></Document>`), ErrInvalid,
		"not a CSV or Excel file: looks like an ISO 20022 camt.053 bank statement (XML)", true},
	{"an XML document of another kind is refused as not CSV or Excel",
		[]byte(`<?xml version="1.0"?><invoices><invoice ref="A"/></invoices>`), ErrInvalid,
		`not a CSV or Excel file: an XML document of an unsupported kind (root element "invoices")`, true},
	{"a ZIP archive that is no workbook is refused as not CSV or Excel",
		zipOf(map[string]string{"readme.txt": "hello"}), ErrInvalid,
		"not a CSV or Excel file: a ZIP archive that is not an Excel workbook", true},
	{"binary data is refused as not CSV or Excel",
		[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"), ErrInvalid,
		"not a CSV or Excel file: looks like a png file", true},
	{"a damaged ZIP is refused as damaged",
		[]byte("PK\x03\x04 this is no archive"), ErrInvalid,
		"the file is damaged: the ZIP archive has no central directory (truncated?)", true},
	{"a row with an empty reference is refused naming the row",
		[]byte("reference,amount\nA,1\n,2\n"), ErrInvalid, "row 3: the reference is empty", false},
	{"a reference without letters or digits is refused naming the row",
		[]byte("reference,amount\n---,1\n"), ErrInvalid, `row 2: reference "---" has no letter or digit`, false},
	{"an unreadable amount is refused naming the row and the value",
		[]byte("reference;amount\nA;1,00\nB;\"12,50,00\"\n"), ErrInvalid, `row 3: amount "12,50,00" is not a decimal number`, false},
	{"a word for an amount is refused naming the row and the value",
		[]byte("reference,amount\nA,twelve\n"), ErrInvalid, `row 2: amount "twelve" is not a decimal number`, false},
	{"an empty amount is refused naming the row",
		[]byte("reference,amount\nA,\n"), ErrInvalid, "row 2: the amount is empty", false},
	{"an amount with the other decimal mark than the file's is refused naming the row",
		[]byte("reference,amount\nA,\"1,250.00\"\nB,\"12,5\"\n"), ErrInvalid,
		`row 3: amount "12,5" is not a decimal number with a decimal point, which the file's other amounts use`, false},
	{"a currency that is not three letters is refused naming the row",
		[]byte("reference,amount,currency\nA,1,EUR\nB,1,EURO\n"), ErrInvalid,
		`row 3: currency "EURO" is not a three-letter ISO 4217 code`, false},
	{"a currency symbol in the currency column is refused naming the row",
		[]byte("reference,amount,currency\nA,1,€\n"), ErrInvalid,
		`row 2: currency "€" is not a three-letter ISO 4217 code`, false},
	{"an amount in another currency than the currency column is refused naming the row",
		[]byte("reference,amount,currency\nA,€ 12.50,USD\n"), ErrInvalid,
		`row 2: amount "€ 12.50" is in EUR, but the currency column says USD`, false},
	{"a due date that is no date is refused naming the row",
		[]byte("reference,amount,due_date\nA,1,next week\n"), ErrInvalid,
		`row 2: due date "next week" is not a date`, false},
	{"a due date that does not exist is refused naming the row",
		[]byte("reference,amount,due_date\nA,1,2024-02-30\n"), ErrInvalid,
		`row 2: due date "2024-02-30" is not a date`, false},
	{"a due date against the file's date order is refused naming the row",
		[]byte("reference,amount,due_date\nA,1,31/12/2024\nB,1,30/11/2024\nC,1,12/31/2024\n"), ErrInvalid,
		`row 4: due date "12/31/2024" is not a date when read day first (DD/MM/YYYY), as the file's other due dates are`, false},
	{"a long value is cut short in the message",
		[]byte("reference,amount\nA," + strings.Repeat("x", 100) + "\n"), ErrInvalid,
		`row 2: amount "` + strings.Repeat("x", 40) + `…" is not a decimal number`, false},
}

func TestReadRefuses(t *testing.T) {
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := Read(tt.data, statement.Options{})
			require.Nil(t, rows)
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, tt.kind)
			require.Equal(t, tt.msg, err.Error())
		})
	}
}

func TestErrorNamesRowAndColumn(t *testing.T) {
	_, err := Read([]byte("ref,amount\nA,1\nB,x\n"), statement.Options{})
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, 3, e.Row)
	require.Equal(t, "amount", e.Column)
	require.Equal(t, `amount "x" is not a decimal number`, e.Msg)

	_, err = Read([]byte("name,amount\nA,1\n"), statement.Options{})
	require.ErrorAs(t, err, &e)
	require.Equal(t, 0, e.Row)
	require.Equal(t, "reference", e.Column)
}

func TestCheck(t *testing.T) {
	t.Run("Check refuses what Read refuses for the file or its header, with the same error", func(t *testing.T) {
		for _, tt := range refusals {
			err := Check(tt.data, statement.Options{})
			if !tt.header {
				require.NoError(t, err, "%s: rows are Read's to check", tt.name)
				continue
			}
			require.Error(t, err, tt.name)
			_, readErr := Read(tt.data, statement.Options{})
			require.Equal(t, readErr, err, tt.name)
		}
	})
	t.Run("Check accepts a header-only file", func(t *testing.T) {
		require.NoError(t, Check([]byte("Invoice Number,Sum\n"), statement.Options{}))
	})
}

func TestRowLimit(t *testing.T) {
	data := []byte("ref,amount\nA,1\n\nB,2\nC,3\n")
	t.Run("as many rows as the limit are read", func(t *testing.T) {
		rows, err := Read([]byte("ref,amount\nA,1\n\nB,2\n"), statement.Options{MaxRows: 2})
		require.NoError(t, err)
		require.Len(t, rows, 2)
	})
	t.Run("a row past the limit makes the file too large", func(t *testing.T) {
		_, err := Read(data, statement.Options{MaxRows: 2})
		require.ErrorIs(t, err, ErrTooLarge)
		require.NotErrorIs(t, err, ErrInvalid)
		require.Equal(t, "the file has more than 2 rows, the limit", err.Error())
	})
	t.Run("the limit is counted before rows are checked", func(t *testing.T) {
		_, err := Read([]byte("ref,amount\n,x\nB,2\nC,3\n"), statement.Options{MaxRows: 2})
		require.ErrorIs(t, err, ErrTooLarge)
	})
}

func TestReadNeverPanicsOnTruncation(t *testing.T) {
	data := []byte("reference;amount;currency;due_date;name\n\"INV-1\";\"1.250,50\";EUR;05.03.2024;\"Acme\nLtd\"\nINV-2;(3,00);;;x\n")
	for i := range data {
		_, err := Read(data[:i], statement.Options{})
		if err != nil {
			require.True(t, errors.Is(err, ErrInvalid) || errors.Is(err, ErrTooLarge), "%q: %v", data[:i], err)
		}
	}
}
