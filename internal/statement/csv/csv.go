// Package csv reads bank statements exported as delimited text: CSV with any of the usual
// delimiters (comma, semicolon, tab, pipe), quoting and line endings, in UTF-8, UTF-16 or an
// 8-bit code page. It decodes the text, finds the delimiter, splits records as RFC 4180 does
// (tolerating what exports get wrong), and hands the table to package tabular, which finds the
// header, the columns and the formats.
package csv

import (
	"iter"
	"strings"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// Parse reads a CSV bank statement. Statement.Dialect starts with what this package found,
// "csv;charset=windows-1250;delim=semicolon", followed by what tabular found about the table.
// A file that is not text, or whose table has no column of dates with a column of amounts,
// fails with statement.ErrNotAStatement.
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	opts = opts.WithDefaults()
	t, dialect, err := table(data, opts)
	if err != nil {
		return nil, err
	}
	st, err := tabular.Extract(t, opts)
	if err != nil {
		return nil, err
	}
	st.Dialect = joinDialect(dialect, st.Dialect)
	return st, nil
}

// Stream reads a CSV bank statement as Parse does, without holding its transactions: the
// Stream reads the records again from the decoded text each time its transactions are asked
// for.
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	opts = opts.WithDefaults()
	t, dialect, err := table(data, opts)
	if err != nil {
		return nil, err
	}
	s, err := tabular.Stream(t, opts)
	if err != nil {
		return nil, err
	}
	s.Statement.Dialect = joinDialect(dialect, s.Statement.Dialect)
	return s, nil
}

// table decodes the file and returns its records as a table, with the dialect found.
func table(data []byte, opts statement.Options) (tabular.Table, string, error) {
	if len(data) == 0 {
		return tabular.Table{}, "", statement.Errorf(statement.FormatCSV, statement.ErrNotAStatement, statement.Position{}, "the file is empty")
	}
	text, charset := decode(data)
	if isBinary(text) {
		return tabular.Table{}, "", statement.Errorf(statement.FormatCSV, statement.ErrNotAStatement, statement.Position{},
			"the file is not text: it holds control characters")
	}
	if !strings.Contains(text, "\n") && strings.Contains(text, "\r") {
		text = strings.ReplaceAll(text, "\r", "\n") // classic Mac OS line endings
	}
	// A cheap bound before any parsing: a record is at least a line.
	lines := strings.Count(text, "\n")
	if lines > 2*opts.MaxRows+1000 {
		return tabular.Table{}, "", statement.Errorf(statement.FormatCSV, statement.ErrTooManyRows, statement.Position{},
			"%d lines, more than the limit of %d rows allows", lines, opts.MaxRows)
	}
	delim := sniffDelimiter(text)
	t := tabular.Table{Format: statement.FormatCSV, Scan: records(text, delim), RowsHint: rowsHint(len(text), lines)}
	return t, "csv;charset=" + charset + ";delim=" + delimName(delim), nil
}

// joinDialect puts what this package found in front of what tabular found.
func joinDialect(csv, table string) string {
	if table == "" {
		return csv
	}
	return csv + ";" + table
}

// records yields the text's records as table rows, from the start each time it is ranged
// over. The cells slice is reused; the cell strings are slices of text, so a record costs no
// allocation beyond fields with escaped quotes.
func records(text string, delim byte) iter.Seq[tabular.Row] {
	return func(yield func(tabular.Row) bool) {
		z := newTokenizer(text, delim)
		var cells []string
		for {
			var raw string
			var line int
			var ok bool
			cells, raw, line, ok = z.next(cells[:0])
			if !ok {
				return
			}
			if !yield(tabular.Row{Cells: cells, Pos: statement.Position{Line: line}, Raw: raw}) {
				return
			}
		}
	}
}

// rowsHint estimates the rows for sizing the result: the lines, but no more than a row per 16
// bytes (a date and an amount with their separators fill that), so that a small file of empty
// lines cannot make the reader reserve memory for a million transactions. An estimate short of
// the rows costs more than one over: the result grows by copying, and the 248-byte
// transactions of a 25 MiB file of short rows (970,000 of 26 bytes) were copied once more than
// they took, 190 MB of garbage, when the bound was a row per 32 bytes.
func rowsHint(size, lines int) int {
	return min(lines+1, size/16+16)
}

// isBinary reports text that no CSV export writes: NUL bytes, or more than one control
// character in a hundred among its first 4096 bytes.
func isBinary(text string) bool {
	n := min(len(text), 4096)
	ctl := 0
	for i := 0; i < n; i++ {
		c := text[i]
		if c == 0 {
			return true
		}
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			ctl++
		}
	}
	return ctl*100 > n
}
