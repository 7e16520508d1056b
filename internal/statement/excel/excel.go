// Package excel reads bank statements saved as Excel workbooks: .xlsx (Office Open XML
// SpreadsheetML, a zip package) and .xls (BIFF8, and BIFF5 of Excel 5.0/95, in an OLE2 compound
// file), and the spreadsheet exports that are not workbooks but open in Excel as one: Excel
// 2003's XML Spreadsheet (spreadsheetml.go) and an HTML page of tables (html.go), both often
// saved with an .xls name. It turns the sheet that holds the transactions into a table of text rows, each cell
// as the user sees it in Excel, and hands that table to the shared table layer (package tabular),
// which finds the header, the columns, the date order and the decimal mark exactly as it does for
// CSV files.
//
// What "as the user sees it" means here: text cells as they are; numbers as plain decimal text
// with every digit Excel shows (the stored value, never a float formatted for display, so
// "#,##0.00" does not round 1234.567 to 1234.57, and no exponent); numbers with a date or time
// format as YYYY-MM-DD or HH:MM:SS, whichever date system (1900 or 1904) the workbook uses;
// formulas as their cached result; merged ranges as described on fillMerges. Text that looks like
// an amount ("1.234,56") stays text: deciding what it means is the table layer's job, with all
// the rows in view.
package excel

import (
	"bytes"
	"errors"
	"strings"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

var (
	magicZIP  = []byte("PK\x03\x04")
	magicOLE2 = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// workbook is what both file formats offer the sheet chooser.
type workbook interface {
	format() statement.Format
	sheetCount() int
	sheetInfo(i int) (name string, hidden bool)
	readSheetAt(i int) (*sheet, error)
	// dialect describes the container, e.g. "xlsx" or "xls;biff8;codepage=1250".
	dialect() string
	// problems are the cells and records that could not be read so far.
	problemList() []statement.Problem
}

// recoverPanics is turned off by the tests, so that a panic fails them instead of hiding in an
// ErrCorrupt.
var recoverPanics = true

// guard turns a panic in a reader into a corrupt-file error. Readers bounds-check everything they
// read; this is the last resort the brief asks for, so a bug is a failed job, not a crash.
func guard(format statement.Format, err *error) {
	if !recoverPanics {
		return
	}
	if r := recover(); r != nil {
		*err = statement.Errorf(format, statement.ErrCorrupt, statement.Position{},
			"the workbook could not be read (internal error: %v)", r)
	}
}

// openWorkbook opens data as an xlsx or xls workbook by its magic bytes, or as the spreadsheet
// exports that are text: an XML Spreadsheet 2003, an HTML page with a table.
func openWorkbook(data []byte, opts statement.Options) (wb workbook, err error) {
	switch {
	case bytes.HasPrefix(data, magicZIP):
		defer guard(statement.FormatXLSX, &err)
		b, err := openXLSX(data, opts)
		if err != nil {
			return nil, err
		}
		if err := b.load(); err != nil {
			return nil, err
		}
		return b, nil
	case bytes.HasPrefix(data, magicOLE2):
		defer guard(statement.FormatXLS, &err)
		b, err := openXLS(data, opts)
		if err != nil {
			return nil, err
		}
		return b, nil
	case isSpreadsheetML(data):
		defer guard(statement.FormatSpreadsheetML, &err)
		b, err := openSpreadsheetML(data, opts)
		if err != nil {
			return nil, err
		}
		return b, nil
	case looksLikeHTML(data):
		defer guard(statement.FormatHTML, &err)
		b, err := openHTML(data, opts)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, statement.Errorf("", statement.ErrNotAStatement, statement.Position{},
		"neither an .xlsx (zip) nor an .xls (OLE2) workbook, an XML Spreadsheet or an HTML table")
}

// sheetOrder is the order in which sheets are considered: visible sheets in workbook order, then
// hidden ones (a hidden sheet is usually lookup data, but an export may hide its only sheet).
func sheetOrder(wb workbook) []int {
	var visible, hidden []int
	for i := range wb.sheetCount() {
		if _, h := wb.sheetInfo(i); h {
			hidden = append(hidden, i)
		} else {
			visible = append(visible, i)
		}
	}
	return append(visible, hidden...)
}

// maxSheets bounds the sheets listed and tried: a workbook of thousands of sheets is no
// statement export.
const maxSheets = 256

// extract reads the statement from the first sheet, in sheetOrder, in which the table layer
// finds a table of dates and amounts: a workbook may open with a summary or cover sheet, and
// the transactions follow on another. Sheets are read one at a time, so only one sheet's text
// is held at once. The error is the first sheet's when no sheet has such a table.
// It reads the table with read: tabular.Extract or tabular.Stream.
func extract[T any](wb workbook, opts statement.Options, read func(tabular.Table, statement.Options) (T, error)) (st T, view *sheetView, err error) {
	defer guard(wb.format(), &err)
	var none T
	var first error
	for _, i := range sheetOrder(wb) {
		sh, err := wb.readSheetAt(i)
		if err != nil {
			return none, nil, err
		}
		if sh.rowCount() == 0 {
			continue
		}
		v, err := newView(sh, wb.format())
		if err != nil {
			return none, nil, err
		}
		st, err := read(v.table(), opts)
		if errors.Is(err, statement.ErrNotAStatement) {
			if first == nil {
				first = err
			}
			continue
		}
		return st, v, err
	}
	if first == nil {
		first = statement.Errorf(wb.format(), statement.ErrNoTransactions, statement.Position{}, "the workbook's sheets are empty")
	}
	return none, nil, first
}

// Parse reads an .xlsx or .xls bank statement, an XML Spreadsheet or an HTML table export. The
// format is taken from the content: a zip package is read as xlsx, an OLE2 compound file as
// xls, where an encrypted xlsx also lives (ErrEncrypted), as do Word documents
// (ErrNotAStatement); XML of the SpreadsheetML 2003 namespace as spreadsheetml; other markup
// with a <table> as html, each table a sheet, largest first.
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	opts = opts.WithDefaults()
	wb, err := openWorkbook(data, opts)
	if err != nil {
		return nil, err
	}
	st, view, err := extract(wb, opts, tabular.Extract)
	if err != nil {
		return nil, err
	}
	first := statement.Position{}
	if len(st.Transactions) > 0 {
		first = st.Transactions[0].Pos
	}
	finishStatement(st, wb, view, first)
	return st, nil
}

// Stream reads a workbook as Parse does without holding its transactions: only the sheet with
// the statement is held, and the Stream reads its rows again each time its transactions are
// asked for.
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	opts = opts.WithDefaults()
	wb, err := openWorkbook(data, opts)
	if err != nil {
		return nil, err
	}
	if xb, ok := wb.(*xlsxBook); ok {
		// The one format whose sheets may be large: its rows are read again from the file.
		xb.stream = true
	}
	s, view, err := extract(wb, opts, tabular.Stream)
	if err != nil {
		return nil, err
	}
	finishStatement(s.Statement, wb, view, s.First)
	return s, nil
}

// finishStatement adds what the workbook itself says: the container and sheet to the Dialect,
// the cells and records that could not be read to the Problems, and the bank's BIC from the
// rows above the table (above first, the first transaction's position) to BankID.
func finishStatement(st *statement.Statement, wb workbook, view *sheetView, first statement.Position) {
	st.Format = wb.format()
	dialect := wb.dialect() + ";sheet=" + sanitizeDialect(view.sh.Name)
	if st.Dialect != "" {
		dialect += ";" + st.Dialect
	}
	st.Dialect = dialect
	var problems []statement.Problem
	for _, p := range wb.problemList() {
		if p.Pos.Sheet == "" || p.Pos.Sheet == view.sh.Name {
			problems = append(problems, p)
		}
	}
	st.Problems = append(problems, st.Problems...)
	if st.BankID == "" {
		if bic := preambleBIC(view, first.Line); bic != "" {
			st.BankID = bic
			if st.BankName == "" {
				st.BankName = statement.BankByBIC(bic)
			}
		}
	}
}

// preambleBIC finds a BIC stated above the first transaction: a cell labelled BIC or SWIFT
// ("Cod BIC Raiffeisen Bank:", "SWIFT/BIC") followed, in the same cell after a colon or in the
// next non-empty cell, by a value of BIC form (ISO 9362: four letters, a two-letter country,
// two letters or digits, and optionally three more).
func preambleBIC(view *sheetView, end int) string {
	var bic string
	view.rows(func(line int, cells []string, _ []bool, _ bool) bool {
		if end > 0 && line >= end {
			return false
		}
		for k, c := range cells {
			label, value, _ := strings.Cut(c, ":")
			if !isBICLabel(label) {
				continue
			}
			value = strings.TrimSpace(value)
			for j := k + 1; value == "" && j < len(cells); j++ {
				value = strings.TrimSpace(cells[j])
			}
			if isBIC(value) {
				bic = strings.ToUpper(value)
				return false
			}
		}
		return true
	})
	return bic
}

func isBICLabel(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return r == ' ' || r == '/' || r == '(' || r == ')' || r == '.' }) {
		if w == "BIC" || w == "SWIFT" {
			return true
		}
	}
	return false
}

// isBIC reports whether s has the form of a BIC.
func isBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] &^ 0x20
		letter := c >= 'A' && c <= 'Z'
		digit := s[i] >= '0' && s[i] <= '9'
		if i < 6 && !letter || i >= 6 && !letter && !digit {
			return false
		}
	}
	return true
}

// sanitizeDialect keeps a value (a sheet name) from breaking the ';'-separated Dialect.
func sanitizeDialect(s string) string {
	s = strings.NewReplacer(";", ",", "=", "-", "\n", " ", "\r", " ").Replace(s)
	if r := []rune(s); len(r) > 64 {
		s = string(r[:64])
	}
	return s
}
