package excel

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/unicode"

	"github.com/statementmatch/service/internal/statement"
)

// This file reads Excel 2003's XML Spreadsheet ("SpreadsheetML 2003"): one XML document, a
// <Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"> of <Worksheet ss:Name>
// elements, each a <Table> of <Row> and <Cell> elements whose <Data ss:Type> is Number,
// DateTime, String, Boolean or Error. Banks and accounting packages write it under an .xls or
// .xml name. A Row or Cell may skip ahead with ss:Index (1-based); a Cell covers more columns
// with ss:MergeAcross and more rows with ss:MergeDown, merged ranges as in xlsx. Numbers and
// dates are typed, written as the xlsx reader writes them (plain decimals, YYYY-MM-DD), so the
// table layer takes their form as certain.

// spreadsheetNS is the namespace of SpreadsheetML 2003's elements and ss: attributes.
const spreadsheetNS = "urn:schemas-microsoft-com:office:spreadsheet"

// isSpreadsheetML reports whether data is an XML Spreadsheet: the namespace on a Workbook
// element, or Excel's mso-application instruction, in the first 4 KiB.
func isSpreadsheetML(data []byte) bool {
	head := data[:min(len(data), 4096)]
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		head = utf16Head(head)
	}
	return bytes.Contains(head, []byte(`progid="Excel.Sheet"`)) ||
		bytes.Contains(head, []byte("<Workbook")) && bytes.Contains(head, []byte(spreadsheetNS))
}

// utf16Head decodes a UTF-16 head (with its byte-order mark) for a look at its markup.
func utf16Head(head []byte) []byte {
	e := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	out, _ := e.NewDecoder().Bytes(head[:len(head)&^1])
	return out
}

// smlBook is an XML Spreadsheet read whole: the document is one stream, so its sheets are read
// in one pass.
type smlBook struct {
	sheets   []*sheet
	charset  string
	problems []statement.Problem
}

func (b *smlBook) format() statement.Format { return statement.FormatSpreadsheetML }
func (b *smlBook) sheetCount() int          { return len(b.sheets) }
func (b *smlBook) sheetInfo(i int) (string, bool) {
	return b.sheets[i].Name, b.sheets[i].Hidden
}
func (b *smlBook) readSheetAt(i int) (*sheet, error) { return b.sheets[i], nil }
func (b *smlBook) problemList() []statement.Problem  { return b.problems }
func (b *smlBook) dialect() string                   { return "spreadsheetml;charset=" + b.charset }

func (b *smlBook) problem(pos statement.Position, msg string, args ...any) {
	if len(b.problems) < maxProblems {
		b.problems = append(b.problems, statement.Problem{Pos: pos, Message: fmt.Sprintf(msg, args...)})
	}
}

var tagCell, tagRow = []byte("Cell"), []byte("Row")

// smlCell is the <Cell> being read.
type smlCell struct {
	col        int
	typ        string
	text       strings.Builder
	inData     bool
	mergeDown  int
	mergeRight int
}

// openSpreadsheetML reads every worksheet of the document.
func openSpreadsheetML(data []byte, opts statement.Options) (*smlBook, error) {
	text, cs, err := smlText(data)
	if err != nil {
		return nil, err
	}
	b := &smlBook{charset: cs}
	if err := b.read(newXMLScanner(bytes.NewReader(text)), opts); err != nil {
		return nil, err
	}
	return b, nil
}

// xmlEncoding finds the encoding an XML declaration names.
var xmlEncoding = regexp.MustCompile(`^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:\-]+)["']`)

// smlText returns the document as UTF-8, which the scanner reads, and the charset it was in:
// UTF-16 by its byte-order mark, else the encoding its XML declaration names, else UTF-8.
func smlText(data []byte) ([]byte, string, error) {
	corrupt := func(err error) ([]byte, string, error) {
		return nil, "", statement.Errorf(statement.FormatSpreadsheetML, statement.ErrCorrupt, statement.Position{},
			"the text cannot be decoded: %v", err)
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data[:len(data)&^1])
		if err != nil {
			return corrupt(err)
		}
		return out, "utf-16", nil
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], "utf-8", nil
	}
	m := xmlEncoding.FindSubmatch(bytes.TrimLeft(data[:min(len(data), 512)], " \t\r\n"))
	if m == nil {
		return data, "utf-8", nil
	}
	enc, name := charset.Lookup(string(m[1]))
	if enc == nil || name == "utf-8" || strings.HasPrefix(name, "utf-16") {
		// An unknown label, or UTF-16 named over bytes without its mark: read as UTF-8.
		return data, "utf-8", nil
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return corrupt(err)
	}
	return out, name, nil
}

func (b *smlBook) read(s *xmlScanner, opts statement.Options) error {
	var (
		depth     int
		sh        *sheet
		inTable   bool
		inRow     bool
		line, col int
		cell      *smlCell
		cur       smlCell // the one cell being read; reused, as most cells of a sheet are
		inComment int
		inVisible bool
		rows      int
		root      = true
	)
	pos := func() statement.Position {
		if sh == nil {
			return statement.Position{}
		}
		return statement.Position{Sheet: sh.Name, Line: line}
	}
	for {
		kind := s.next()
		if kind == tokEOF {
			switch {
			case s.err != nil:
				return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrCorrupt, pos(),
					"the XML cannot be read after this row: %v", s.err)
			case root:
				return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrCorrupt, statement.Position{}, "the XML document has no elements")
			case depth > 0:
				return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrCorrupt, pos(),
					"the XML ends inside %d open elements: the file is cut short", depth)
			}
			return nil
		}
		switch kind {
		case tokStart:
			if depth++; depth > opts.MaxDepth {
				return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrResourceLimit, pos(),
					"elements nested more than %d deep", opts.MaxDepth)
			}
			// string(name) in comparisons and switches does not allocate; a variable would, per tag.
			name := s.name
			if root {
				root = false
				if string(name) != "Workbook" {
					return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrNotAStatement, statement.Position{},
						"an XML document whose root is %q, not an XML Spreadsheet Workbook", truncate(string(name), 40))
				}
			}
			// A Row, Cell or Worksheet that opens before the one before it closed (a damaged
			// file) closes it first, so a row's cells stay in column order.
			switch string(name) {
			case "Worksheet", "Row", "Cell":
				if err := b.end(tagCell, sh, &inTable, &inRow, &cell, &inComment, &inVisible, line, col, &rows, opts); err != nil {
					return err
				}
				if string(name) != "Cell" {
					if err := b.end(tagRow, sh, &inTable, &inRow, &cell, &inComment, &inVisible, line, col, &rows, opts); err != nil {
						return err
					}
				}
			}
			switch string(name) {
			case "Worksheet":
				if len(b.sheets) >= maxSheets {
					return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrResourceLimit, statement.Position{},
						"the workbook has more than %d worksheets", maxSheets)
				}
				sh = &sheet{Name: sanitizeName(attrOr(s, "Name"))}
				if sh.Name == "" {
					sh.Name = "Sheet" + strconv.Itoa(len(b.sheets)+1)
				}
				b.sheets = append(b.sheets, sh)
				line, inTable, inRow = 0, false, false
			case "Table":
				inTable = sh != nil
			case "Row":
				if !inTable {
					break
				}
				inRow, col = true, 0
				next := line + 1
				if n, ok := ssIndex(s); ok {
					if n > line && n <= maxExcelRows {
						next = n
					} else {
						b.problem(statement.Position{Sheet: sh.Name, Line: next}, "a row's ss:Index %d does not follow row %d; read as row %d", n, line, next)
					}
				}
				if next > maxExcelRows {
					return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrCorrupt, statement.Position{Sheet: sh.Name},
						"a row beyond Excel's last row %d", maxExcelRows)
				}
				line = next
			case "Cell":
				if !inRow {
					break
				}
				next := col + 1
				if n, ok := ssIndex(s); ok {
					if n > col && n <= maxColumns {
						next = n
					} else {
						b.problem(pos(), "a cell's ss:Index %d does not follow column %d; read as column %d", n, col, next)
					}
				}
				cur = smlCell{col: next - 1}
				cell = &cur
				cell.mergeRight = ssInt(s, "MergeAcross")
				cell.mergeDown = ssInt(s, "MergeDown")
				cell.mergeRight = min(max(cell.mergeRight, 0), maxColumns)
				cell.mergeDown = min(max(cell.mergeDown, 0), maxExcelRows)
				col = next + cell.mergeRight
			case "Data":
				if cell != nil && inComment == 0 {
					cell.inData, cell.typ = true, attrOr(s, "Type")
				}
			case "Comment":
				inComment++
			case "Visible":
				inVisible = sh != nil
			}
			if s.selfClose {
				depth--
				if err := b.end(name, sh, &inTable, &inRow, &cell, &inComment, &inVisible, line, col, &rows, opts); err != nil {
					return err
				}
			}
		case tokEnd:
			depth--
			if err := b.end(s.name, sh, &inTable, &inRow, &cell, &inComment, &inVisible, line, col, &rows, opts); err != nil {
				return err
			}
		case tokText:
			switch {
			case cell != nil && cell.inData && inComment == 0:
				if cell.text.Len()+len(s.raw) > maxToken {
					return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrResourceLimit, pos(),
						"a cell longer than %d bytes", maxToken)
				}
				if s.cdata {
					cell.text.Write(s.raw)
				} else {
					cell.text.WriteString(s.text())
				}
			case inVisible:
				// <x:WorksheetOptions><x:Visible>SheetHidden</x:Visible>: a hidden sheet.
				v := strings.TrimSpace(s.text())
				sh.Hidden = v == "SheetHidden" || v == "SheetVeryHidden"
			}
		}
	}
}

// end handles an end tag (or the end of a self-closing one).
func (b *smlBook) end(name []byte, sh *sheet, inTable, inRow *bool, cell **smlCell, inComment *int, inVisible *bool,
	line, col int, rows *int, opts statement.Options) error {
	switch string(name) {
	case "Table":
		*inTable = false
	case "Row":
		if !*inRow {
			return nil
		}
		// A cell left open (a damaged file) belongs to the row that ends.
		if err := b.end(tagCell, sh, inTable, inRow, cell, inComment, inVisible, line, col, rows, opts); err != nil {
			return err
		}
		*inRow = false
		if run := sh.cells.endRow(); len(run) > 0 {
			if *rows++; *rows > opts.MaxRows {
				return statement.Errorf(statement.FormatSpreadsheetML, statement.ErrTooManyRows, statement.Position{Sheet: sh.Name, Line: line},
					"the workbook has more than %d rows", opts.MaxRows)
			}
			sh.Rows = append(sh.Rows, sheetRow{Line: line, Cells: run})
		}
	case "Cell":
		c := *cell
		if c == nil {
			return nil
		}
		*cell = nil
		text, typed := b.cellText(c, statement.Position{Sheet: sh.Name, Line: line})
		if text == "" {
			return nil
		}
		if c.col >= maxColumns {
			b.problem(statement.Position{Sheet: sh.Name, Line: line}, "a cell beyond Excel's last column is not read")
			return nil
		}
		sh.cells.add(cellText{Col: int32(c.col), Typed: typed, Text: text})
		if (c.mergeDown > 0 || c.mergeRight > 0) && len(sh.Merges) < maxMerges {
			sh.Merges = append(sh.Merges, cellRange{Row1: line - 1, Col1: c.col,
				Row2: min(line-1+c.mergeDown, maxExcelRows-1), Col2: min(c.col+c.mergeRight, maxColumns-1)})
		}
	case "Data":
		if *cell != nil {
			(*cell).inData = false
		}
	case "Comment":
		*inComment = max(*inComment-1, 0)
	case "Visible":
		*inVisible = false
	}
	return nil
}

// sanitizeName bounds a sheet name taken from the file: Excel's own limit is 31 characters.
func sanitizeName(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64])
	}
	return s
}

// cellText is what a cell shows: numbers as plain decimals and midnight date-times as
// YYYY-MM-DD, both typed; a date-time with a time of day as "YYYY-MM-DD HH:MM:SS" text; any
// other type as its text.
func (b *smlBook) cellText(c *smlCell, pos statement.Position) (string, bool) {
	raw := c.text.String()
	switch c.typ {
	case "Number":
		if n, ok := numberText(strings.TrimSpace(raw)); ok {
			return n, true
		}
		b.problem(pos, "the number cell %s holds %q, which is not a number", columnName(c.col), truncate(raw, 40))
		return strings.TrimSpace(raw), false
	case "DateTime":
		v := strings.TrimSpace(raw)
		date, clock, _ := strings.Cut(v, "T")
		if len(date) != 10 || date[4] != '-' || date[7] != '-' {
			b.problem(pos, "the date cell %s holds %q, which is not an ISO date", columnName(c.col), truncate(raw, 40))
			return v, false
		}
		clock, _, _ = strings.Cut(clock, ".") // Excel writes milliseconds: "T00:00:00.000"
		if strings.Trim(clock, "0:") == "" {
			return date, true
		}
		return date + " " + clock[:min(len(clock), 8)], false
	case "Boolean":
		if strings.TrimSpace(raw) == "1" {
			return "TRUE", false
		}
		return "FALSE", false
	}
	return strings.ReplaceAll(raw, "\r\n", "\n"), false
}

// ssIndex reads a Row's or Cell's 1-based ss:Index.
func ssIndex(s *xmlScanner) (int, bool) {
	v, ok := s.attrRaw("Index")
	if !ok {
		return 0, false
	}
	return ssNumber(v)
}

// ssInt reads a count attribute such as ss:MergeAcross; 0 when absent or no number.
func ssInt(s *xmlScanner, name string) int {
	v, ok := s.attrRaw(name)
	if !ok {
		return 0
	}
	n, _ := ssNumber(v)
	return n
}

// ssNumber reads a non-negative integer attribute of at most 7 digits (Excel's last row is
// 1048576), without allocating: most cells of a sheet have one.
func ssNumber(v []byte) (int, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || len(v) > 7 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// truncate shortens a value quoted in a message.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
