package expected

import (
	"bytes"
	"errors"
	"iter"
	"math"
	"slices"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/csv"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/statement/excel"
	"github.com/statementmatch/service/internal/statement/tabular"
)

var (
	magicZIP  = []byte("PK\x03\x04")
	magicOLE2 = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// checkHead is how much of a CSV file Check reads: the header row is the first row with text,
// and no real file has a MiB of blank lines or header before it.
const checkHead = 1 << 20

// source is an opened file: its rows, and what else the content looked like.
type source struct {
	// rows yields the file's rows from the first each time it is ranged over.
	rows iter.Seq[tabular.Row]
	// lookalike says what a text file looks like when statement detection took it for another
	// format ("looks like an MT940 bank statement"); it is the error when the file's first row
	// has no reference and amount columns.
	lookalike string
	maxRows   int
}

// open finds the file's kind from its content and returns its rows: all of them, or for Check
// (head) the leading ones only.
func open(data []byte, opts statement.Options, head bool) (*source, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, invalid("the file is empty")
	}
	if bytes.HasPrefix(data, magicZIP) || bytes.HasPrefix(data, magicOLE2) {
		return openExcel(data, opts, head)
	}
	format, derr := engine.Detect(data)
	lookalike := ""
	switch {
	case format == statement.FormatXLSX || format == statement.FormatXLS,
		// Spreadsheet exports that are not workbooks (an HTML table or an XML Spreadsheet saved
		// as .xls) are opened by the workbook reader too, as the statements of the same
		// exporters are.
		format == statement.FormatHTML || format == statement.FormatSpreadsheetML:
		return openExcel(data, opts, head)
	case format == statement.FormatPDF:
		return nil, notSupported("looks like a PDF")
	case derr != nil:
		var se *statement.Error
		if !errors.As(derr, &se) || !errors.Is(derr, statement.ErrNotAStatement) {
			return nil, fromStatement(derr, opts.MaxRows)
		}
		lookalike = se.Msg
	case format != statement.FormatCSV:
		lookalike = "looks like " + describe(format)
	}
	if head {
		data = headOf(data)
	}
	text, _, err := csv.Text(data)
	if err != nil {
		if lookalike != "" {
			return nil, notSupported(lookalike)
		}
		return nil, notSupported("it is not text: it holds control characters")
	}
	return &source{rows: csv.Records(text, chooseDelimiter(text)), lookalike: lookalike, maxRows: opts.MaxRows}, nil
}

// openExcel opens a workbook. The reader's row limit counts the header too, so it is given one
// row more than the data rows allowed; the data rows are counted again exactly by read.
func openExcel(data []byte, opts statement.Options, head bool) (*source, error) {
	xopts := opts
	if xopts.MaxRows < math.MaxInt {
		xopts.MaxRows++
	}
	if head {
		rows, _, err := excel.HeadRows(data, xopts, 1)
		if err != nil {
			return nil, fromStatement(err, opts.MaxRows)
		}
		return &source{rows: slices.Values(rows), maxRows: opts.MaxRows}, nil
	}
	rows, _, err := excel.Rows(data, xopts)
	if err != nil {
		return nil, fromStatement(err, opts.MaxRows)
	}
	return &source{rows: rows, maxRows: opts.MaxRows}, nil
}

// headOf returns the leading part of a text file that Check reads: up to checkHead bytes, cut
// after a line break so that no character is split (a UTF-16 file, told by a byte-order mark or
// a NUL byte, is cut at an even length instead).
func headOf(data []byte) []byte {
	if len(data) <= checkHead {
		return data
	}
	h := data[:checkHead]
	utf16 := bytes.HasPrefix(h, []byte{0xFF, 0xFE}) || bytes.HasPrefix(h, []byte{0xFE, 0xFF}) ||
		bytes.IndexByte(h[:4096], 0) >= 0
	if utf16 {
		return h[:len(h)&^1]
	}
	if i := bytes.LastIndexByte(h, '\n'); i > 0 {
		return h[:i+1]
	}
	return h
}

// describe names a statement format for the message refusing it.
func describe(f statement.Format) string {
	switch f {
	case statement.FormatMT940:
		return "an MT940 bank statement"
	case statement.FormatMT942:
		return "an MT942 bank statement"
	case statement.FormatCAMT052, statement.FormatCAMT053, statement.FormatCAMT054:
		return "an ISO 20022 " + string(f[:4]) + "." + string(f[4:]) + " bank statement (XML)"
	case statement.FormatOFX:
		return "an OFX bank statement"
	case statement.FormatBAI2:
		return "a BAI2 bank statement"
	case statement.FormatQIF:
		return "a QIF file"
	}
	return "a " + string(f) + " file"
}

// chooseDelimiter returns the delimiter that splits the first row with text into a reference
// and an amount column, the one that finds the most roles when several do; when none does, the
// delimiter the statement reader would sniff.
func chooseDelimiter(text string) byte {
	best, bestRoles := byte(0), 0
	for _, d := range csv.Delimiters() {
		_, row, ok := firstRow(csv.Records(text, d))
		if !ok {
			continue
		}
		cols := mapHeader(row.Cells)
		if cols[roleReference] < 0 || cols[roleAmount] < 0 {
			continue
		}
		if n := cols.found(); n > bestRoles {
			best, bestRoles = d, n
		}
	}
	if best == 0 {
		return csv.SniffDelimiter(text)
	}
	return best
}

// firstRow returns the first row with text and its index among the rows; its Cells are the
// reader's and valid until the reader is ranged over again.
func firstRow(rows iter.Seq[tabular.Row]) (index int, row tabular.Row, ok bool) {
	i := 0
	for r := range rows {
		if !isBlank(r.Cells) {
			return i, r, true
		}
		i++
	}
	return 0, tabular.Row{}, false
}

// isBlank reports a row without any text.
func isBlank(cells []string) bool {
	for _, c := range cells {
		if statement.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}
