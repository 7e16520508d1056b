package sheet

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
)

var testColumns = []Column{{Name: "status", Width: 12}, {Name: "amount"}, {Name: "date"}, {Name: "line"}, {Name: "text", Width: 40}}

// testRows covers every kind of cell, amounts of 0, 2 and 3 decimals and one too long for a
// spreadsheet number, texts that look like formulas, and empty cells.
func testRows() [][]Cell {
	day := statement.MustDate(2024, 3, 4)
	return [][]Cell{
		{TextCell("matched"), AmountCell(decimal.RequireFromString("1250.50")), DateCell(day), IntCell(3), TextCell("SEPA CREDIT ACME")},
		{TextCell("partial"), AmountCell(decimal.RequireFromString("-42.99")), DateCell(statement.Date{}), IntCell(12), TextCell("=1+2 CASH")},
		{TextCell("yen"), AmountCell(decimal.RequireFromString("1500")), {}, {}, TextCell("-minus and @at")},
		{TextCell("dinar"), AmountCell(decimal.RequireFromString("12.345")), {}, {}, TextCell("'quoted")},
		{TextCell("huge"), AmountCell(decimal.RequireFromString("1234567890123456.78")), {}, {}, {}},
	}
}

func TestCSVTable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tb, err := NewCSV(&buf, testColumns)
	require.NoError(t, err)
	defer tb.Discard()
	for _, r := range testRows() {
		require.NoError(t, tb.Row(r))
	}
	require.NoError(t, tb.Close())
	require.Equal(t, "status,amount,date,line,text\r\n"+
		"matched,1250.50,2024-03-04,3,SEPA CREDIT ACME\r\n"+
		"partial,-42.99,,12,'=1+2 CASH\r\n"+
		"yen,1500,,,'-minus and @at\r\n"+
		"dinar,12.345,,,''quoted\r\n"+
		"huge,1234567890123456.78,,,\r\n", buf.String(), "amounts and dates as they are, never quoted; text neutralised")
}

func TestXLSXTable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tb, err := NewXLSX(&buf, "Results", testColumns)
	require.NoError(t, err)
	defer tb.Discard()
	for _, r := range testRows() {
		require.NoError(t, tb.Row(r))
	}
	require.NoError(t, tb.Close())

	f, err := excelize.OpenReader(&buf)
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, []string{"Results"}, f.GetSheetList())
	rows, err := f.GetRows("Results")
	require.NoError(t, err)
	require.Equal(t, []string{"status", "amount", "date", "line", "text"}, rows[0])
	require.Equal(t, []string{"matched", "1,250.50", "2024-03-04", "3", "SEPA CREDIT ACME"}, rows[1], "formatted as shown")
	require.Equal(t, []string{"partial", "-42.99", "", "12", "=1+2 CASH"}, rows[2])
	require.Equal(t, []string{"yen", "1,500"}, rows[3][:2])
	require.Equal(t, []string{"dinar", "12.345"}, rows[4][:2])
	require.Equal(t, []string{"huge", "1234567890123456.78"}, rows[5][:2])

	raw, err := f.GetRows("Results", excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	require.Equal(t, "1250.50", raw[1][1], "amounts are numbers, written exactly")
	require.Equal(t, "45355", raw[1][2], "dates are date serials: 4 March 2024")

	// A cell of no type is a number (the default of the format); texts are inline strings.
	for cell, want := range map[string]excelize.CellType{
		"B2": excelize.CellTypeUnset, "C2": excelize.CellTypeUnset, "D2": excelize.CellTypeUnset,
		"E3": excelize.CellTypeInlineString, "B6": excelize.CellTypeInlineString,
	} {
		got, err := f.GetCellType("Results", cell)
		require.NoError(t, err)
		require.Equal(t, want, got, cell)
	}
	formula, err := f.GetCellFormula("Results", "E3")
	require.NoError(t, err)
	require.Empty(t, formula, "a text that looks like a formula stays text")
	date, err := f.GetCellValue("Results", "C2", excelize.Options{RawCellValue: false})
	require.NoError(t, err)
	require.Equal(t, "2024-03-04", date)

	panes, err := f.GetPanes("Results")
	require.NoError(t, err)
	require.True(t, panes.Freeze)
	require.Equal(t, 1, panes.YSplit)
	require.Equal(t, "A2", panes.TopLeftCell)
	width, err := f.GetColWidth("Results", "E")
	require.NoError(t, err)
	require.Equal(t, 40.0, width)
}

func TestXLSXTableGoesOnInANewSheet(t *testing.T) {
	// Not parallel: it lowers the sheet size for the package.
	defer func(n int) { rowsPerSheet = n }(rowsPerSheet)
	rowsPerSheet = 3 // the header and two rows
	var buf bytes.Buffer
	tb, err := NewXLSX(&buf, "Results", []Column{{Name: "n"}})
	require.NoError(t, err)
	defer tb.Discard()
	for n := range 5 {
		require.NoError(t, tb.Row([]Cell{IntCell(n)}))
	}
	require.NoError(t, tb.Close())
	f, err := excelize.OpenReader(&buf)
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, []string{"Results", "Results 2", "Results 3"}, f.GetSheetList())
	for sheet, want := range map[string][][]string{
		"Results": {{"n"}, {"0"}, {"1"}}, "Results 2": {{"n"}, {"2"}, {"3"}}, "Results 3": {{"n"}, {"4"}},
	} {
		rows, err := f.GetRows(sheet)
		require.NoError(t, err)
		require.Equal(t, want, rows, sheet)
	}
}

func TestXLSXTableCutsTextsACellCannotHold(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	tb, err := NewXLSX(&buf, "Results", []Column{{Name: "text"}})
	require.NoError(t, err)
	defer tb.Discard()
	long := strings.Repeat("é", MaxCellChars+10)
	require.NoError(t, tb.Row([]Cell{TextCell(long)}))
	require.NoError(t, tb.Row([]Cell{TextCell(long[:2*MaxCellChars])}))
	require.NoError(t, tb.Close())
	f, err := excelize.OpenReader(&buf)
	require.NoError(t, err)
	defer f.Close()
	got, err := f.GetCellValue("Results", "A2")
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("é", MaxCellChars-1)+"…", got)
	got, err = f.GetCellValue("Results", "A3")
	require.NoError(t, err)
	require.Equal(t, long[:2*MaxCellChars], got, "a text of exactly the limit stays whole")
}

func TestXLSXTableWritesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var buf bytes.Buffer
	tb, err := NewXLSX(&buf, "Results", []Column{{Name: "text"}})
	require.NoError(t, err)
	defer tb.Discard()
	// More rows than excelize's stream writer keeps in memory before it spills to a file.
	row := []Cell{TextCell(strings.Repeat("x", 1000))}
	for range 20_000 {
		require.NoError(t, tb.Row(row))
	}
	require.NoError(t, tb.Close())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
	f, err := excelize.OpenReader(&buf)
	require.NoError(t, err)
	defer f.Close()
	last, err := f.GetCellValue("Results", "A20001")
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("x", 1000), last)
}

// FuzzXLSXText writes any text into a workbook cell and checks that the workbook opens and
// gives the text back: XML escapes, with the characters XML cannot hold as U+FFFD.
func FuzzXLSXText(f *testing.F) {
	for _, s := range []string{"SEPA CREDIT", "=1+2", "<b>&amp;</b>", "tab\there", "line\nbreak", "cr\rlf\r\n", "\x00\x01\x1f", "\xff\xfe", "é€😀", " lead and trail "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		tb, err := NewXLSX(&buf, "Results", []Column{{Name: "text"}})
		require.NoError(t, err)
		defer tb.Discard()
		require.NoError(t, tb.Row([]Cell{TextCell(s)}))
		require.NoError(t, tb.Close())
		wb, err := excelize.OpenReader(&buf)
		require.NoError(t, err)
		defer wb.Close()
		got, err := wb.GetCellValue("Results", "A2")
		require.NoError(t, err)
		require.Equal(t, xmlSafe(cut(s)), got)
	})
}

// xmlSafe is s with every character XML 1.0 cannot hold (and every invalid byte) as U+FFFD.
func xmlSafe(s string) string {
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as one U+FFFD
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF {
			b.WriteRune(r)
		} else {
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}
