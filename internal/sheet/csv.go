// Package sheet writes tables for spreadsheets, a row at a time so that memory stays flat: RFC
// 4180 CSV whose text cells are neutralised against spreadsheet formulas, and XLSX workbooks
// written with excelize's stream writer, with typed cells (amounts as numbers with their
// currency's decimals, dates as dates).
package sheet

import (
	"io"
	"strings"
)

// CSVWriter writes RFC 4180 records with CRLF record ends. Unlike encoding/csv with UseCRLF, it
// writes a field's own line breaks as they are (inside quotes), so a cell that holds a bare
// carriage return or a lone line feed reads back unchanged.
type CSVWriter struct {
	W   io.Writer
	err error
}

// Record writes one record; the first error sticks and is returned by every later call.
func (c *CSVWriter) Record(fields []string) error {
	for i, f := range fields {
		if i > 0 {
			c.write(",")
		}
		if f == "" || (!strings.ContainsAny(f, ",\"\r\n") && f[0] != ' ') {
			c.write(f)
			continue
		}
		c.write(`"`)
		c.write(strings.ReplaceAll(f, `"`, `""`))
		c.write(`"`)
	}
	c.write("\r\n")
	return c.err
}

// Err returns the first error of a write.
func (c *CSVWriter) Err() error { return c.err }

func (c *CSVWriter) write(s string) {
	if c.err == nil {
		_, c.err = io.WriteString(c.W, s)
	}
}

// Text neutralises a CSV text cell that a spreadsheet would take for a formula: one that
// starts with =, +, -, @, a tab or a carriage return gets a leading single quote. So does one
// that already starts with a single quote, so that removing one leading quote from a text cell
// always gives back the original text.
func Text(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r', '\'':
		return "'" + s
	}
	return s
}
