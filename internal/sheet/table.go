package sheet

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/statementmatch/service/internal/statement"
)

// Column is a column of a table: its header and, in a workbook, its width in characters.
type Column struct {
	Name  string
	Width float64
}

// Cell is one value of a row. The zero Cell is empty.
type Cell struct {
	kind   cellKind
	text   string
	amount decimal.Decimal
	date   statement.Date
	n      int
}

type cellKind int

const (
	emptyCell cellKind = iota
	textCell
	amountCell
	dateCell
	intCell
)

// TextCell is a text; the empty string is an empty cell.
func TextCell(s string) Cell {
	if s == "" {
		return Cell{}
	}
	return Cell{kind: textCell, text: s}
}

// AmountCell is an amount, shown with the decimals it has (give it its currency's, see
// statement.WithCurrencyDecimals).
func AmountCell(d decimal.Decimal) Cell { return Cell{kind: amountCell, amount: d} }

// DateCell is a date; the zero Date is an empty cell.
func DateCell(d statement.Date) Cell {
	if d.IsZero() {
		return Cell{}
	}
	return Cell{kind: dateCell, date: d}
}

// IntCell is a whole number.
func IntCell(n int) Cell { return Cell{kind: intCell, n: n} }

// Table is a table being written a row at a time.
type Table interface {
	// Row writes one row, a cell per column.
	Row(cells []Cell) error
	// Close finishes the file; nothing is complete before it returns nil.
	Close() error
	// Discard releases what an unfinished table holds (a workbook's temporary files) without
	// finishing it; after Close it does nothing. Defer it.
	Discard()
}

// decimals is how many decimals d shows: as many as its exponent says, never rounding.
func decimals(d decimal.Decimal) int32 { return max(0, -d.Exponent()) }

// NewCSV starts a CSV table (RFC 4180, see CSVWriter) on w and writes its header row. Text cells
// are neutralised against formulas (Text); amounts are plain signed decimals with a "." mark
// and their decimals; dates are YYYY-MM-DD.
func NewCSV(w io.Writer, cols []Column) (Table, error) {
	t := &csvTable{w: CSVWriter{W: w}, fields: make([]string, len(cols))}
	for i, c := range cols {
		t.fields[i] = c.Name
	}
	return t, t.w.Record(t.fields)
}

type csvTable struct {
	w      CSVWriter
	fields []string
}

func (t *csvTable) Row(cells []Cell) error {
	for i := range t.fields {
		t.fields[i] = ""
		if i >= len(cells) {
			continue
		}
		switch c := cells[i]; c.kind {
		case textCell:
			t.fields[i] = Text(c.text)
		case amountCell:
			t.fields[i] = c.amount.StringFixed(decimals(c.amount))
		case dateCell:
			t.fields[i] = c.date.String()
		case intCell:
			t.fields[i] = strconv.Itoa(c.n)
		}
	}
	return t.w.Record(t.fields)
}

func (t *csvTable) Close() error { return t.w.Err() }

func (t *csvTable) Discard() {}

// Limits of a worksheet (Excel's, which excelize enforces).
const (
	// MaxCellChars is the most characters a cell holds; longer texts are cut, ending in "…".
	MaxCellChars = 32767
	// maxFloatDigits is the most significant digits a spreadsheet number (an IEEE double) shows
	// exactly; amounts with more are written as text.
	maxFloatDigits = 15
)

// rowsPerSheet is how many rows, the header included, a worksheet holds (Excel's 1,048,576);
// a table that has more goes on in another sheet, under the header again. Tests lower it.
var rowsPerSheet = excelize.TotalRows

// NewXLSX starts a workbook of one table on w: sheet name, then name 2, name 3... should the
// rows outgrow a sheet. The header row is bold and frozen. Amounts are numbers shown with their
// decimals and a thousands separator, dates are date cells shown as yyyy-mm-dd, text cells are
// text (never formulas).
//
// excelize makes the workbook: its styles, its sheets' views and column widths, its parts and
// their relations. The rows, though, are written straight into the zip archive on w as they
// come, since excelize's own stream writer keeps up to 16 MiB of them in a buffer that grows to
// twice that: a workbook of any size is written in flat memory. Close adds the workbook's other
// parts, which excelize writes for the sheets the table filled.
func NewXLSX(w io.Writer, name string, cols []Column) (Table, error) {
	f := excelize.NewFile()
	t := &xlsxTable{f: f, zw: zip.NewWriter(w), name: name, cols: cols, amountStyles: map[int32]int{}}
	if err := t.setUp(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start workbook: %w", err)
	}
	return t, nil
}

type xlsxTable struct {
	f    *excelize.File
	zw   *zip.Writer
	name string
	cols []Column
	// colNames are the columns' letters; prefix and suffix are a sheet's XML before and
	// after its rows, as excelize writes it.
	colNames       []string
	prefix, suffix string
	out            *bufio.Writer // the current sheet's part of the archive
	sheets         int
	row            int // the last row written in the current sheet
	headerStyle    int
	dateStyle      int
	amountStyles   map[int32]int // by decimals
	closed         bool
}

// sheetPart is the archive's part of sheet n (1-based), as excelize names it.
func sheetPart(n int) string { return fmt.Sprintf("xl/worksheets/sheet%d.xml", n) }

// setUp makes the styles and the first sheet's view and widths, takes the sheet's XML around
// its rows from what excelize writes, and starts the first sheet.
func (t *xlsxTable) setUp() error {
	f := t.f
	var err error
	if t.headerStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return err
	}
	date := "yyyy-mm-dd"
	if t.dateStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &date}); err != nil {
		return err
	}
	if err := f.SetSheetName(f.GetSheetName(0), t.name); err != nil {
		return err
	}
	for i, c := range t.cols {
		col, err := excelize.ColumnNumberToName(i + 1)
		if err != nil {
			return err
		}
		t.colNames = append(t.colNames, col)
		if c.Width > 0 {
			if err := f.SetColWidth(t.name, col, col, c.Width); err != nil {
				return err
			}
		}
	}
	if err := f.SetPanes(t.name, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	sheet, err := t.part(sheetPart(1))
	if err != nil {
		return err
	}
	const open, end = "<sheetData>", "</sheetData>"
	i, j := strings.Index(sheet, open), strings.Index(sheet, end)
	if i < 0 || j < i {
		return fmt.Errorf("excelize wrote a sheet without %s", open)
	}
	t.prefix, t.suffix = sheet[:i+len(open)], sheet[j:]
	return t.startSheet()
}

// part returns the part name of the workbook as excelize writes it now.
func (t *xlsxTable) part(name string) (string, error) {
	zr, err := t.workbook()
	if err != nil {
		return "", err
	}
	for _, e := range zr.File {
		if e.Name == name {
			r, err := e.Open()
			if err != nil {
				return "", err
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			return string(b), err
		}
	}
	return "", fmt.Errorf("excelize wrote no %s", name)
}

// workbook is the workbook as excelize writes it, without rows: a few kilobytes.
func (t *xlsxTable) workbook() (*zip.Reader, error) {
	buf, err := t.f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
}

// startSheet begins the next sheet's part with its header row. Only the first sheet is
// selected, as excelize has it: several selected sheets would be grouped, and an edit of one
// would change them all.
func (t *xlsxTable) startSheet() error {
	t.sheets++
	if t.sheets > 1 {
		if _, err := t.f.NewSheet(fmt.Sprintf("%s %d", t.name, t.sheets)); err != nil {
			return err
		}
	}
	part, err := t.zw.Create(sheetPart(t.sheets))
	if err != nil {
		return err
	}
	t.out = bufio.NewWriterSize(part, 64<<10)
	prefix := t.prefix
	if t.sheets > 1 {
		prefix = strings.Replace(prefix, ` tabSelected="true"`, "", 1)
	}
	t.out.WriteString(prefix)
	t.row = 0
	header := make([]Cell, len(t.cols))
	for i, c := range t.cols {
		header[i] = TextCell(c.Name)
	}
	return t.writeRow(header, t.headerStyle)
}

// endSheet ends the current sheet's part.
func (t *xlsxTable) endSheet() error {
	t.out.WriteString(t.suffix)
	return t.out.Flush()
}

func (t *xlsxTable) Row(cells []Cell) error {
	if t.row >= rowsPerSheet {
		if err := t.endSheet(); err != nil {
			return err
		}
		if err := t.startSheet(); err != nil {
			return err
		}
	}
	return t.writeRow(cells, 0)
}

// writeRow writes the next row of the current sheet; style, if not 0, is every cell's.
func (t *xlsxTable) writeRow(cells []Cell, style int) error {
	t.row++
	r := strconv.Itoa(t.row)
	w := t.out
	w.WriteString(`<row r="`)
	w.WriteString(r)
	w.WriteString(`">`)
	for i, c := range cells[:min(len(cells), len(t.cols))] {
		if c.kind == emptyCell {
			continue
		}
		s, value, text := style, "", false
		switch c.kind {
		case textCell:
			value, text = c.text, true
		case amountCell:
			value = c.amount.StringFixed(decimals(c.amount))
			if c.amount.NumDigits() > maxFloatDigits {
				text = true
			} else if s == 0 {
				var err error
				if s, err = t.amountStyle(decimals(c.amount)); err != nil {
					return err
				}
			}
		case dateCell:
			value = strconv.Itoa(serial(c.date))
			if s == 0 {
				s = t.dateStyle
			}
		case intCell:
			value = strconv.Itoa(c.n)
		}
		w.WriteString(`<c r="`)
		w.WriteString(t.colNames[i])
		w.WriteString(r)
		if s != 0 {
			w.WriteString(`" s="`)
			w.WriteString(strconv.Itoa(s))
		}
		if text {
			w.WriteString(`" t="inlineStr"><is><t xml:space="preserve">`)
			if err := xml.EscapeText(w, []byte(cut(value))); err != nil {
				return err
			}
			w.WriteString(`</t></is></c>`)
			continue
		}
		w.WriteString(`"><v>`)
		w.WriteString(value)
		w.WriteString(`</v></c>`)
	}
	_, err := w.WriteString(`</row>`)
	return err
}

// serial is the spreadsheet's number of a date: days since 30 December 1899.
func serial(d statement.Date) int {
	return int(d.Time().Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24)
}

// amountStyle returns the number style of amounts of n decimals: #,##0.00 for two.
func (t *xlsxTable) amountStyle(n int32) (int, error) {
	if s, ok := t.amountStyles[n]; ok {
		return s, nil
	}
	format := "#,##0"
	if n > 0 {
		format += "." + strings.Repeat("0", int(n))
	}
	s, err := t.f.NewStyle(&excelize.Style{CustomNumFmt: &format})
	if err != nil {
		return 0, err
	}
	t.amountStyles[n] = s
	return s, nil
}

// cut shortens s to MaxCellChars characters, the last of them "…", if it is longer.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= MaxCellChars {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxCellChars-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Close ends the last sheet and adds the workbook's other parts (styles, the list of sheets,
// relations), as excelize writes them for the sheets filled.
func (t *xlsxTable) Close() error {
	if t.closed {
		return nil
	}
	defer t.Discard()
	if err := t.endSheet(); err != nil {
		return err
	}
	zr, err := t.workbook()
	if err != nil {
		return err
	}
	for _, e := range zr.File {
		if strings.HasPrefix(e.Name, "xl/worksheets/sheet") {
			continue // written above, with their rows
		}
		if err := t.copyPart(e); err != nil {
			return err
		}
	}
	return t.zw.Close()
}

func (t *xlsxTable) copyPart(e *zip.File) error {
	r, err := e.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := t.zw.Create(e.Name)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

func (t *xlsxTable) Discard() {
	if !t.closed {
		t.closed = true
		_ = t.f.Close()
	}
}
