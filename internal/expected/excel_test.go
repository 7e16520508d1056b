package expected

import (
	"archive/zip"
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/excel/exceltest"
)

// zipOf returns a ZIP archive of the named files.
func zipOf(files map[string]string) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, content := range files {
		f, err := w.Create(name)
		if err != nil {
			panic(err)
		}
		if _, err := f.Write([]byte(content)); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// xlsxOf writes a workbook with excelize: each sheet's rows from its top-left cell, a
// time.Time cell formatted as a date (excelize gives it a date number format).
func xlsxOf(t testing.TB, sheets []string, rows map[string][][]any) []byte {
	f := excelize.NewFile()
	defer f.Close()
	for i, name := range sheets {
		if i == 0 {
			require.NoError(t, f.SetSheetName("Sheet1", name))
		} else {
			_, err := f.NewSheet(name)
			require.NoError(t, err)
		}
		for r, row := range rows[name] {
			for c, v := range row {
				if v == nil {
					continue
				}
				cell, err := excelize.CoordinatesToCellName(c+1, r+1)
				require.NoError(t, err)
				require.NoError(t, f.SetCellValue(name, cell, v))
			}
		}
	}
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	return buf.Bytes()
}

func TestReadXLSX(t *testing.T) {
	due := time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		sheets []string
		rows   map[string][][]any
		want   []string
	}{
		{"numeric cells are exact, text cells are read like CSV cells, date cells give due dates",
			[]string{"Invoices", "Other"},
			map[string][][]any{
				"Invoices": {
					{"Invoice Number", "Amount", "Currency", "Due Date", "Name"},
					{"INV-1", 1250.5, "EUR", due, "Acme"},
					{"INV-2", 0.1 + 0.2, "eur", nil, nil},
					{"INV-3", -1234.56, nil, "2024-12-31", nil},
					{"INV-4", 100, nil, nil, nil},
					{"INV-5", "1.250,50 EUR", nil, nil, nil},
					{10023, 12.345, nil, nil, nil},
					{"INV-7", 0.07, nil, nil, nil},
				},
				"Other": {{"junk", "more junk"}, {1, 2}},
			},
			[]string{
				"2|INV-1|1250.5|EUR|2024-03-05|Acme",
				"3|INV-2|0.3|EUR||",
				"4|INV-3|1234.56||2024-12-31|",
				"5|INV-4|100|||",
				"6|INV-5|1250.5|EUR||",
				"7|10023|12.345|||",
				"8|INV-7|0.07|||",
			}},
		{"rows are the sheet's row numbers, with blank rows skipped and the header anywhere",
			[]string{"Sheet"},
			map[string][][]any{"Sheet": {
				nil,
				{nil, nil},
				{nil, "ref", "sum"},
				{nil, "A", 1},
				nil,
				{nil, "B", 2},
			}},
			[]string{"4|A|1|||", "6|B|2|||"}},
		{"an empty first sheet is passed over for the next",
			[]string{"Cover", "Data"},
			map[string][][]any{"Data": {{"reference", "total"}, {"A", 3}}},
			[]string{"2|A|3|||"}},
		{"a header-only sheet is an empty list",
			[]string{"Data", "More"},
			map[string][][]any{"Data": {{"reference", "amount"}}, "More": {{"reference", "amount"}, {"A", 1}}},
			[]string{}},
		{"text amounts decide the decimal mark; numeric cells do not",
			[]string{"Data"},
			map[string][][]any{"Data": {{"reference", "amount"}, {"A", 1250.5}, {"B", "1,250"}, {"C", "12,5"}}},
			[]string{"2|A|1250.5|||", "3|B|1.25|||", "4|C|12.5|||"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := xlsxOf(t, tt.sheets, tt.rows)
			rows, err := Read(data, statement.Options{})
			require.NoError(t, err)
			require.NotNil(t, rows)
			require.Equal(t, tt.want, brief(rows))
			require.NoError(t, Check(data, statement.Options{}))
		})
	}
	t.Run("1250.5 is exactly 1250.5, with no float in between", func(t *testing.T) {
		data := xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1250.5}, {"B", 0.1 + 0.2}}})
		rows, err := Read(data, statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "1250.5", rows[0].Amount.String())
		require.Equal(t, int32(-1), rows[0].Amount.Exponent())
		require.Equal(t, "0.3", rows[1].Amount.String())
	})
}

func TestReadXLSXRefuses(t *testing.T) {
	tests := []struct {
		name   string
		data   func(t testing.TB) []byte
		opts   statement.Options
		kind   error
		msg    string
		header bool
	}{
		{"a sheet without a reference column is refused naming its header row",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {nil, {"Date", "Amount"}, {"x", 1}}})
			}, statement.Options{}, ErrInvalid,
			`no reference column: the header row (row 2) has none of reference, ref, invoice, invoice_number, payment_reference (its columns are "Date", "Amount")`,
			true},
		{"a bad amount cell is refused naming its sheet row",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1}, nil, {"B", "n/a"}}})
			}, statement.Options{}, ErrInvalid, `row 4: amount "n/a" is not a decimal number`, false},
		{"a workbook with only empty sheets is refused as empty",
			func(t testing.TB) []byte { return xlsxOf(t, []string{"S", "T"}, nil) },
			statement.Options{}, ErrInvalid, "the file is empty", true},
		{"more rows than the limit make the file too large",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1}, {"B", 2}, {"C", 3}}})
			}, statement.Options{MaxRows: 2}, ErrTooLarge, "the file has more than 2 rows, the limit", false},
		{"a workbook expanding past the decompressed size limit is too large",
			func(t testing.TB) []byte {
				return xlsxOf(t, []string{"S"}, map[string][][]any{"S": {{"ref", "amount"}, {"A", 1}}})
			}, statement.Options{MaxDecompressedBytes: 1000}, ErrTooLarge,
			"the file is too large: the workbook expands to more than 1000 bytes", true},
		{"an encrypted workbook is refused as encrypted",
			func(t testing.TB) []byte {
				return exceltest.CFBFile(map[string][]byte{"EncryptionInfo": {1, 2, 3, 4}, "EncryptedPackage": {5, 6, 7, 8}},
					[]string{"EncryptionInfo", "EncryptedPackage"})
			}, statement.Options{}, ErrInvalid, "the workbook is encrypted: save it without a password", true},
		{"a Word document is refused as not CSV or Excel",
			func(t testing.TB) []byte {
				return exceltest.CFBFile(map[string][]byte{"WordDocument": {1, 2, 3, 4}}, []string{"WordDocument"})
			}, statement.Options{}, ErrInvalid,
			"not a CSV or Excel file: an OLE2 compound file that is not an Excel workbook (a Word document)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data(t)
			_, err := Read(data, tt.opts)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, tt.kind)
			require.Equal(t, tt.msg, err.Error())
			if tt.header {
				require.Equal(t, err, Check(data, tt.opts))
			} else {
				require.NoError(t, Check(data, tt.opts))
			}
		})
	}
}

func TestReadXLS(t *testing.T) {
	t.Run("an xls workbook is read with exact numbers and date cells", func(t *testing.T) {
		sst := exceltest.BiffRec(recSST, exceltest.U32(3), exceltest.U32(3), exceltest.XLStr("Invoice", false), exceltest.XLStr("Amount", false), exceltest.XLStr("Société", true))
		globals := [][]byte{
			exceltest.BiffRec(recCODEPAGE, exceltest.U16(1200)),
			exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(0), make([]byte, 16)),
			exceltest.BiffRec(recXF, exceltest.U16(0), exceltest.U16(14), make([]byte, 16)), // a date format
			sst,
		}
		sheet := [][]byte{
			exceltest.BiffRec(recLABELSST, exceltest.CellHdr(0, 0, 0), exceltest.U32(0)),
			exceltest.BiffRec(recLABELSST, exceltest.CellHdr(0, 1, 0), exceltest.U32(1)),
			exceltest.BiffRec(recLABEL, exceltest.CellHdr(0, 2, 0), exceltest.XLStr("Due Date", false)),
			exceltest.BiffRec(recLABEL, exceltest.CellHdr(0, 3, 0), exceltest.XLStr("Name", false)),
			exceltest.BiffRec(recLABEL, exceltest.CellHdr(1, 0, 0), exceltest.XLStr("INV-1", false)),
			exceltest.BiffRec(recNUMBER, exceltest.CellHdr(1, 1, 0), exceltest.F64(1250.5)),
			exceltest.BiffRec(recNUMBER, exceltest.CellHdr(1, 2, 1), exceltest.F64(45356)), // 2024-03-05
			exceltest.BiffRec(recLABELSST, exceltest.CellHdr(1, 3, 0), exceltest.U32(2)),
			exceltest.BiffRec(recLABEL, exceltest.CellHdr(3, 0, 0), exceltest.XLStr("INV-2", false)),
			exceltest.BiffRec(recNUMBER, exceltest.CellHdr(3, 1, 0), exceltest.F64(0.1+0.2)),
			exceltest.BiffRec(recRK, exceltest.CellHdr(4, 0, 0), exceltest.RKInt(4711, false)),
			exceltest.BiffRec(recRK, exceltest.CellHdr(4, 1, 0), exceltest.RKInt(-12345, true)),
		}
		data := exceltest.CFBFile(map[string][]byte{"Workbook": exceltest.BiffBook(globals, []string{"Invoices"}, [][][]byte{sheet})}, []string{"Workbook"})
		rows, err := Read(data, statement.Options{})
		require.NoError(t, err)
		require.Equal(t, []string{
			"2|INV-1|1250.5||2024-03-05|Société",
			"4|INV-2|0.3|||",
			"5|4711|123.45|||",
		}, brief(rows))
		require.NoError(t, Check(data, statement.Options{}))
	})
	t.Run("a bank statement xls is refused for its missing reference column", func(t *testing.T) {
		data, err := os.ReadFile("../statement/excel/testdata/corpus/abarbatei__bankreader__Extras_de_cont_12345678_20012018_31012018.xls")
		require.NoError(t, err)
		_, err = Read(data, statement.Options{})
		require.ErrorIs(t, err, ErrInvalid)
		require.Contains(t, err.Error(), "no reference column: the header row (row 1) has none of reference, ref, invoice, invoice_number, payment_reference")
		require.Equal(t, err, Check(data, statement.Options{}))
	})
}

// BIFF8 record types the xls tests write.
const (
	recCODEPAGE = 0x0042
	recXF       = 0x00E0
	recSST      = 0x00FC
	recLABELSST = 0x00FD
	recNUMBER   = 0x0203
	recLABEL    = 0x0204
	recRK       = 0x027E
)

// TestReadSpreadsheetExports reads expected references from the spreadsheet exports that are
// not workbooks, as the statement reader reads statements from them: an HTML table and an
// Excel 2003 XML Spreadsheet, each saved with an .xls name by the exporting system.
func TestReadSpreadsheetExports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
	}{
		{
			name: "an HTML table saved as .xls",
			data: `<html><head><meta charset="utf-8"></head><body><table><tr><th>Invoice</th><th>Amount</th></tr>` +
				`<tr><td>INV-1</td><td>1,250.50</td></tr><tr><td>INV-2</td><td>90.00</td></tr></table></body></html>`,
		},
		{
			name: "an XML Spreadsheet 2003",
			data: `<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">` +
				`<Worksheet ss:Name="Invoices"><Table><Row><Cell><Data ss:Type="String">Invoice</Data></Cell><Cell><Data ss:Type="String">Amount</Data></Cell></Row>` +
				`<Row><Cell><Data ss:Type="String">INV-1</Data></Cell><Cell><Data ss:Type="Number">1250.5</Data></Cell></Row>` +
				`<Row><Cell><Data ss:Type="String">INV-2</Data></Cell><Cell><Data ss:Type="Number">90</Data></Cell></Row></Table></Worksheet></Workbook>`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, Check([]byte(tc.data), statement.Options{}))
			rows, err := Read([]byte(tc.data), statement.Options{})
			require.NoError(t, err)
			require.Len(t, rows, 2)
			require.Equal(t, "INV-1", rows[0].Reference)
			require.Equal(t, "1250.5", rows[0].Amount.String())
		})
	}
}
