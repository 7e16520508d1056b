package excel

import (
	"errors"
	"iter"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// This file lends the workbook readers to tables that are not statements, such as the
// expected-references files of package expected, so that every workbook the service accepts is
// opened with the same limits (rows, decompressed size, zip entries) and its cells read the same
// way: numbers exact and canonical, dates as YYYY-MM-DD, both marked in Row.Canonical.

// Rows returns the rows of the workbook's first sheet with content, trying sheets in the order
// Parse does (visible sheets in workbook order, then hidden ones), as Parse hands them to the
// table layer: one Row per non-empty sheet row, Pos.Line its row number in the sheet, merged
// ranges filled down and columns empty in every row dropped. The rows may be ranged over any
// number of times; a Row's Cells slice is reused between rows. A workbook whose sheets are all
// empty gives no rows and no error. The format is FormatXLSX or FormatXLS, found from the
// content. It fails as Parse does on encrypted, damaged and non-Excel files, with
// statement.ErrTooManyRows past opts.MaxRows sheet rows and ErrResourceLimit when an xlsx
// expands past opts.MaxDecompressedBytes.
func Rows(data []byte, opts statement.Options) (rows iter.Seq[tabular.Row], format statement.Format, err error) {
	opts = opts.WithDefaults()
	wb, err := openWorkbook(data, opts)
	if err != nil {
		return nil, "", err
	}
	format = wb.format()
	defer guard(format, &err)
	for _, i := range sheetOrder(wb) {
		sh, err := wb.readSheetAt(i)
		if err != nil {
			return nil, format, err
		}
		if sh.rowCount() == 0 {
			continue
		}
		v, err := newView(sh, format)
		if err != nil {
			return nil, format, err
		}
		return v.table().Scan, format, nil
	}
	return func(func(tabular.Row) bool) {}, format, nil
}

// HeadRows returns at most n (at least 1) leading rows of the sheet Rows would read, copied. An
// xlsx worksheet is decompressed and read only as far as those rows, so a check of a large
// workbook's header costs little; an xls sheet is read whole, as its cells need not come in row
// order.
func HeadRows(data []byte, opts statement.Options, n int) (rows []tabular.Row, format statement.Format, err error) {
	opts = opts.WithDefaults()
	n = max(n, 1)
	wb, err := openWorkbook(data, opts)
	if err != nil {
		return nil, "", err
	}
	format = wb.format()
	defer guard(format, &err)
	for _, i := range sheetOrder(wb) {
		var sh *sheet
		if b, ok := wb.(*xlsxBook); ok {
			sh, err = b.readSheetHead(b.sheets[i], n)
		} else {
			sh, err = wb.readSheetAt(i)
		}
		if err != nil {
			return nil, format, err
		}
		if sh.rowCount() == 0 {
			continue
		}
		v, err := newView(sh, format)
		if err != nil {
			return nil, format, err
		}
		for r := range v.table().Scan {
			c := r
			c.Cells = append([]string(nil), r.Cells...)
			if r.Canonical != nil {
				c.Canonical = append([]bool(nil), r.Canonical...)
			}
			rows = append(rows, c)
			if len(rows) >= n {
				break
			}
		}
		return rows, format, nil
	}
	return nil, format, nil
}

// readSheetHead reads a worksheet's first n non-empty rows and stops: the sheet reader's row
// limit, set to n for the read, ends the scan, and the rows before it are kept.
func (b *xlsxBook) readSheetHead(ws xlsxSheet, n int) (*sheet, error) {
	saved := b.opts.MaxRows
	b.opts.MaxRows = n
	defer func() { b.opts.MaxRows = saved }()
	sh := &sheet{Name: ws.name, Hidden: ws.hidden}
	found, err := b.scanPart(ws.part, b.opts.MaxDecompressedBytes, func(s *xmlScanner) error {
		return b.scanSheet(s, sh, func(line int, cells []cellText) error {
			sh.Rows = append(sh.Rows, sheetRow{Line: line, Cells: cells})
			return nil
		})
	})
	switch {
	case errors.Is(err, statement.ErrTooManyRows):
		return sh, nil
	case err != nil:
		return nil, err
	case !found:
		return nil, statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{Sheet: ws.name},
			"the worksheet part %s is missing", ws.part)
	}
	return sh, nil
}
