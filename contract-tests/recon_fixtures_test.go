package contracttests

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// bankLine is one line of a generated bank statement.
type bankLine struct {
	date   string // 2006-01-02
	text   string
	amount string // signed, decimal point
}

// reconBankLines is the statement of the walk-through: an instalment pair, an exact payment
// written with other separators, an underpayment, a card debit that pays nothing, and a line
// paid twice in full.
var reconBankLines = []bankLine{
	{"2024-03-01", "CARD PAYMENT OFFICE SUPPLIES", "-42.99"},
	{"2024-03-04", "SEPA CREDIT ACME GMBH INV 2024 001", "1250.50"},
	{"2024-03-06", "SEPA CREDIT BETA LTD INV-2024-002 1/2", "450.00"},
	{"2024-03-12", "TRANSFER GAMMA SARL INV2024003", "450.00"},
	{"2024-03-20", "SEPA CREDIT BETA LTD INV-2024-002 2/2", "450.00"},
	{"2024-03-21", "SEPA CREDIT DELTA AG INV-2024-005", "300.00"},
	{"2024-03-22", "SEPA CREDIT DELTA AG INV-2024-005 AGAIN", "300.00"},
}

// reconExpectedCSV is the expected-references file of the walk-through.
const reconExpectedCSV = "Invoice Number;Amount;Currency;Name\n" +
	"INV-2024-001;1.250,50;EUR;Acme GmbH\n" +
	"INV-2024-002;900,00;EUR;Beta Ltd\n" +
	"INV-2024-003;500,00;EUR;Gamma SARL\n" +
	"INV-2024-004;75,00;EUR;Epsilon\n" +
	"INV-2024-005;300,00;EUR;Delta AG\n"

func bankCSV(lines []bankLine) []byte {
	var b strings.Builder
	b.WriteString("Date,Description,Amount\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "%s,%s,%s\n", l.date, l.text, l.amount)
	}
	return []byte(b.String())
}

func bankXLSX(t testing.TB, lines []bankLine) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	sheet := f.GetSheetName(0)
	require.NoError(t, f.SetSheetRow(sheet, "A1", &[]any{"Booking date", "Description", "Amount"}))
	style, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	require.NoError(t, err)
	for i, l := range lines {
		d, err := time.Parse("2006-01-02", l.date)
		require.NoError(t, err)
		var amount float64
		_, err = fmt.Sscan(l.amount, &amount)
		require.NoError(t, err)
		cell := fmt.Sprintf("A%d", i+2)
		require.NoError(t, f.SetSheetRow(sheet, cell, &[]any{d, l.text, amount}))
		require.NoError(t, f.SetCellStyle(sheet, cell, cell, style))
	}
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf))
	return buf.Bytes()
}

// bankPDF lays the lines out as a one-page bank statement with a text layer: a preamble, a
// table of date, description, amount and balance, and the opening and closing balances. The
// lines numbered in misprint (0-based) show a balance 10.00 too high, as a bank's error would.
func bankPDF(t testing.TB, lines []bankLine, misprint ...int) []byte {
	t.Helper()
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC))
	pdf.SetAutoPageBreak(false, 15)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 14)
	pdf.CellFormat(0, 8, "Example Bank plc", "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	for _, l := range []string{"Statement of account", "IBAN: DE89 3704 0044 0532 0130 00", "Currency: EUR"} {
		pdf.CellFormat(0, 6, l, "", 1, "L", false, 0, "")
	}
	pdf.Ln(4)
	widths := []float64{28, 100, 26, 26}
	aligns := []string{"L", "L", "R", "R"}
	row := func(cells ...string) {
		for i, c := range cells {
			pdf.CellFormat(widths[i], 5, c, "", 0, aligns[i], false, 0, "")
		}
		pdf.Ln(5)
	}
	pdf.SetFont("Helvetica", "B", 9)
	row("Date", "Description", "Amount", "Balance")
	pdf.SetFont("Helvetica", "", 9)
	balance := 100000 // cents
	row("", "Opening balance", "", cents(balance))
	for i, l := range lines {
		d, err := time.Parse("2006-01-02", l.date)
		require.NoError(t, err)
		var units, frac int
		neg := strings.HasPrefix(l.amount, "-")
		_, err = fmt.Sscanf(strings.TrimPrefix(l.amount, "-"), "%d.%d", &units, &frac)
		require.NoError(t, err)
		c := units*100 + frac
		if neg {
			c = -c
		}
		balance += c
		shown := balance
		if slices.Contains(misprint, i) {
			shown += 1000
		}
		row(d.Format("02/01/2006"), l.text, cents(c), cents(shown))
	}
	row("", "Closing balance", "", cents(balance))
	var buf bytes.Buffer
	require.NoError(t, pdf.Output(&buf))
	return buf.Bytes()
}

func cents(c int) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// jobUpload is a POST /api/v1/jobs body: the two files (under file names) and the extra text
// fields given as name, value pairs.
func jobUpload(t testing.TB, bankName string, bank []byte, expectedName string, expected []byte, fields ...string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if bank != nil {
		p, err := w.CreateFormFile("bank", bankName)
		require.NoError(t, err)
		_, _ = p.Write(bank)
	}
	if expected != nil {
		p, err := w.CreateFormFile("expected", expectedName)
		require.NoError(t, err)
		_, _ = p.Write(expected)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		require.NoError(t, w.WriteField(fields[i], fields[i+1]))
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), buf.Bytes()
}
