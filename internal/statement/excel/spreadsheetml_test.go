package excel

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// xmlSpreadsheet wraps worksheets in an Excel 2003 XML Spreadsheet document.
func xmlSpreadsheet(worksheets ...string) []byte {
	return []byte(`<?xml version="1.0"?>` + "\n" + `<?mso-application progid="Excel.Sheet"?>` + "\n" +
		`<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet" xmlns:x="urn:schemas-microsoft-com:office:excel">` +
		strings.Join(worksheets, "") + `</Workbook>`)
}

// worksheet is a Worksheet of the given rows' markup.
func worksheet(name, rows string) string {
	return `<Worksheet ss:Name="` + name + `"><Table>` + rows + `</Table></Worksheet>`
}

// smlHeader is a header row: Date, Description, Amount.
const smlHeader = `<Row><Cell><Data ss:Type="String">Date</Data></Cell><Cell><Data ss:Type="String">Description</Data></Cell><Cell><Data ss:Type="String">Amount</Data></Cell></Row>`

// smlRow is a data row of a DateTime, a String and a Number cell.
func smlRow(date, desc, amount string) string {
	return `<Row><Cell><Data ss:Type="DateTime">` + date + `</Data></Cell><Cell><Data ss:Type="String">` + desc +
		`</Data></Cell><Cell><Data ss:Type="Number">` + amount + `</Data></Cell></Row>`
}

func TestSpreadsheetMLCells(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rows  string
		cells [][]string
		typed [][]bool
	}{
		{
			name:  "numbers are plain decimals and midnight date-times are dates, both typed",
			rows:  `<Row><Cell><Data ss:Type="Number">-1.5E-1</Data></Cell><Cell><Data ss:Type="DateTime">2026-03-02T00:00:00.000</Data></Cell><Cell><Data ss:Type="String">1.234,56</Data></Cell></Row>`,
			cells: [][]string{{"-0.15", "2026-03-02", "1.234,56"}},
			typed: [][]bool{{true, true, false}},
		},
		{
			name:  "a date-time with a time of day is text with the time",
			rows:  `<Row><Cell><Data ss:Type="DateTime">2026-03-02T14:05:09.000</Data></Cell></Row>`,
			cells: [][]string{{"2026-03-02 14:05:09"}},
			typed: [][]bool{nil},
		},
		{
			name: "ss:Index skips rows and cells, and MergeAcross moves the next cell on",
			rows: `<Row><Cell ss:MergeAcross="2"><Data ss:Type="String">Title</Data></Cell><Cell><Data ss:Type="String">right</Data></Cell></Row>` +
				`<Row ss:Index="5"><Cell ss:Index="2"><Data ss:Type="String">b</Data></Cell><Cell><Data ss:Type="String">c</Data></Cell></Row>`,
			cells: [][]string{{"Title", "", "", "right"}, {"", "b", "c"}},
			typed: [][]bool{nil, nil},
		},
		{
			name: "MergeDown shows the value on the rows below, and comments are not data",
			rows: `<Row><Cell ss:MergeDown="1"><Data ss:Type="String">a</Data><Comment><Data>note</Data></Comment></Cell><Cell><Data ss:Type="String">x</Data></Cell></Row>` +
				`<Row><Cell ss:Index="2"><Data ss:Type="String">y</Data></Cell></Row>`,
			cells: [][]string{{"a", "x"}, {"a", "y"}},
			typed: [][]bool{nil, nil},
		},
		{
			name:  "rich text inside Data is its text",
			rows:  `<Row><Cell><ss:Data ss:Type="String" xmlns="http://www.w3.org/TR/REC-html40"><B>Total</B> <Font>debits</Font></ss:Data></Cell></Row>`,
			cells: [][]string{{"Total debits"}},
			typed: [][]bool{nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cells [][]string
			var typed [][]bool
			rows, format, err := Rows(xmlSpreadsheet(worksheet("S", tc.rows)), statement.Options{})
			require.NoError(t, err)
			require.Equal(t, statement.FormatSpreadsheetML, format)
			for r := range rows {
				cells = append(cells, append([]string(nil), r.Cells...))
				typed = append(typed, append([]bool(nil), r.Canonical...))
			}
			require.Equal(t, tc.cells, cells)
			for i := range typed {
				if len(typed[i]) == 0 {
					typed[i] = nil
				}
			}
			require.Equal(t, tc.typed, typed)
		})
	}
}

func TestSpreadsheetMLStatement(t *testing.T) {
	t.Parallel()
	t.Run("the first visible sheet with a table of dates and amounts is read", func(t *testing.T) {
		t.Parallel()
		hidden := `<Worksheet ss:Name="Hidden"><Table>` + smlHeader + smlRow("2020-01-01T00:00:00.000", "old", "1") + `</Table>` +
			`<WorksheetOptions xmlns="urn:schemas-microsoft-com:office:excel"><Visible>SheetHidden</Visible></WorksheetOptions></Worksheet>`
		cover := worksheet("Cover", `<Row><Cell><Data ss:Type="String">Statement</Data></Cell></Row>`)
		data := worksheet("Data", smlHeader+smlRow("2026-03-02T00:00:00.000", "Coffee", "-3.5")+smlRow("2026-03-15T00:00:00.000", "Salary", "2000"))
		st, err := parseFinished(t, xmlSpreadsheet(hidden, cover, data))
		require.NoError(t, err)
		checkConsistent(t, st)
		require.Equal(t, statement.FormatSpreadsheetML, st.Format)
		require.True(t, strings.HasPrefix(st.Dialect, "spreadsheetml;charset=utf-8;sheet=Data;"), st.Dialect)
		require.Len(t, st.Transactions, 2)
		require.Equal(t, "-3.50", st.Transactions[0].Amount.StringFixed(2))
		require.Equal(t, statement.Position{Sheet: "Data", Line: 2}, st.Transactions[0].Pos)
	})
	t.Run("a document in Windows-1252 is decoded by its declaration", func(t *testing.T) {
		t.Parallel()
		doc := strings.Replace(string(xmlSpreadsheet(worksheet("S", smlHeader+smlRow("2026-03-02T00:00:00", "Caf\xe9", "-3.5")))),
			`<?xml version="1.0"?>`, `<?xml version="1.0" encoding="windows-1252"?>`, 1)
		st, err := parseFinished(t, []byte(doc))
		require.NoError(t, err)
		require.Equal(t, "Café", st.Transactions[0].Description)
		require.True(t, strings.HasPrefix(st.Dialect, "spreadsheetml;charset=windows-1252;"), st.Dialect)
	})
	t.Run("a UTF-16 document with its byte-order mark", func(t *testing.T) {
		t.Parallel()
		st, err := parseFinished(t, utf16LE(string(xmlSpreadsheet(worksheet("S", smlHeader+smlRow("2026-03-02T00:00:00", "Café", "-3.5"))))))
		require.NoError(t, err)
		require.Equal(t, "Café", st.Transactions[0].Description)
	})
	t.Run("a number cell that is no number is a problem, not a guess", func(t *testing.T) {
		t.Parallel()
		st, err := parseFinished(t, xmlSpreadsheet(worksheet("S", smlHeader+smlRow("2026-03-02T00:00:00", "ok", "-3.5")+smlRow("2026-03-03T00:00:00", "bad", "n/a"))))
		require.NoError(t, err)
		require.NotEmpty(t, st.Problems)
		require.Contains(t, st.Problems[0].Message, `"n/a"`)
		require.NotEmpty(t, st.Review)
	})
}

func TestSpreadsheetMLRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		kind error
		msg  string
	}{
		{"a document cut short is corrupt and says where", []byte(`<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet">` + "\n<Worksheet ss:Name=\"S\"><Table><Row><Cell>"), statement.ErrCorrupt, "sheet S, line 1: the XML ends inside 5 open elements"},
		{"a document type declaration is refused", []byte(`<?xml version="1.0"?><!DOCTYPE Workbook><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"></Workbook>`), statement.ErrCorrupt, "document type declaration"},
		{"elements nested past MaxDepth", xmlSpreadsheet(worksheet("S", `<Row><Cell><Data ss:Type="String">`+strings.Repeat("<B>", 100)+strings.Repeat("</B>", 100)+`</Data></Cell></Row>`)), statement.ErrResourceLimit, "nested"},
		{"more rows than allowed", xmlSpreadsheet(worksheet("S", strings.Repeat(smlRow("2026-03-02T00:00:00", "x", "1"), 11))), statement.ErrTooManyRows, "more than 10 rows"},
		{"a sheet of no dates and amounts is not a statement", xmlSpreadsheet(worksheet("S", `<Row><Cell><Data ss:Type="String">Name</Data></Cell></Row><Row><Cell><Data ss:Type="String">Ann</Data></Cell></Row>`)), statement.ErrNotAStatement, ""},
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

// TestSpreadsheetMLHostile: entity declarations (billion laughs) are refused, not expanded, and a
// document of a million empty cells ends quickly with the heap bounded. Not parallel: it
// measures allocation.
func TestSpreadsheetMLHostile(t *testing.T) {
	laughs := `<?xml version="1.0"?><!DOCTYPE Workbook [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>` +
		`<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet><Table>` +
		strings.Repeat(`<Row><Cell><Data ss:Type="String">&c;&c;&c;&c;</Data></Cell></Row>`, 1000) + `</Table></Worksheet></Workbook>`
	tests := []struct {
		name string
		data []byte
		kind error
	}{
		{"billion laughs", []byte(laughs), statement.ErrCorrupt},
		{"a million empty cells", xmlSpreadsheet(worksheet("S", smlHeader+"<Row>"+strings.Repeat("<Cell/>", 16000)+"</Row>"+strings.Repeat("<Row><Cell/><Cell/><Cell/></Row>", 330_000))), nil},
		{"cells far apart by ss:Index", xmlSpreadsheet(worksheet("S", strings.Repeat(`<Row ss:Index="1048576"><Cell ss:Index="16384"><Data ss:Type="Number">1</Data></Cell></Row>`, 10))), nil},
		{"an unknown entity is kept as written, not looked up", xmlSpreadsheet(worksheet("S", smlHeader+strings.Repeat(smlRow("2026-03-02T00:00:00", "&x;&c;", "1"), 1000))), nil},
		{"merges over every row and column", xmlSpreadsheet(worksheet("S", smlHeader+strings.Repeat(`<Row><Cell ss:MergeDown="1048575" ss:MergeAcross="16383"><Data ss:Type="String">x</Data></Cell></Row>`, 20_000))), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Parse(tt.data, statement.Options{})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: %v in %v, %d KiB allocated", len(tt.data), err, elapsed, allocated>>10)
			if tt.kind != nil {
				require.ErrorIs(t, err, tt.kind)
			} else if err != nil {
				var se *statement.Error
				require.ErrorAs(t, err, &se)
			}
			require.Less(t, elapsed, 20*time.Second)
			require.Less(t, allocated, uint64(16*len(tt.data)+(64<<20)))
		})
	}
}
