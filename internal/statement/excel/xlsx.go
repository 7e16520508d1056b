package excel

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// Why not excelize for reading. github.com/xuri/excelize/v2 writes the test fixtures, but the
// parser reads the package itself (archive/zip and the tokenizer in xmlscan.go):
//   - excelize's streaming Rows iterator returns a row's values but not their cells' styles,
//     and the style is what tells a date serial (45292) from a number; the per-cell style
//     lookup (GetCellStyle) decodes the whole worksheet into memory, which streaming is meant
//     to avoid;
//   - on the 200,000-row benchmark workbook, Rows with RawCellValue reads ~38,000 rows/s, a
//     fifth of the 200,000 rows/s target (encoding/xml underneath allocates per token);
//   - OpenReader decompresses every part of the package into memory (worksheets above
//     UnzipXMLSizeLimit into temporary files), media included, before a row is read.
// The checks excelize's Options{UnzipSizeLimit, UnzipXMLSizeLimit} stand for are here, done
// before any decompression: see checkZip and openXLSX, and maxXMLPart.

// maxZipEntries bounds the entries of a workbook archive. A workbook has a few dozen parts (one
// per sheet, drawing, image and their relationships); tens of thousands of entries only make the
// central directory costly to read.
const maxZipEntries = 10000

// maxXMLPart bounds the parts read whole into memory (workbook, relationships, styles): they are
// small in any real workbook, and their size is what memory use follows.
const maxXMLPart = 16 << 20

var errBudget = errors.New("the workbook expands past the decompressed size limit")

// xlsxBook is an opened OOXML workbook (ECMA-376 SpreadsheetML in an OPC zip package).
type xlsxBook struct {
	zr       *zip.Reader
	files    map[string]*zip.File // by lower-case part name
	opts     statement.Options
	budget   int64 // decompressed bytes still allowed
	date1904 bool
	sheets   []xlsxSheet
	xfKinds  []fmtKind // cellXfs index -> what its number format shows
	sst      []string
	sstName  string
	problems []statement.Problem
	// stream: sheets are read again from the file rather than held (Stream).
	stream bool
}

// xlsxSheet is an entry of workbook.xml's <sheets>.
type xlsxSheet struct {
	name, part string
	hidden     bool
}

// checkZip reads the archive's end-of-central-directory record before archive/zip does, and
// refuses archives with more entries than any workbook has, since archive/zip allocates for
// every directory entry before we see any.
func checkZip(data []byte) error {
	const eocdLen = 22
	if len(data) < eocdLen {
		return statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "the ZIP archive is truncated")
	}
	// The record sits at the end, after a comment of at most 65,535 bytes.
	from := max(0, len(data)-eocdLen-65535)
	i := bytes.LastIndex(data[from:], []byte("PK\x05\x06"))
	if i < 0 || from+i+eocdLen > len(data) {
		return statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "the ZIP archive has no central directory (truncated?)")
	}
	rec := data[from+i:]
	entries := uint64(binary.LittleEndian.Uint16(rec[10:12]))
	if entries == 0xFFFF {
		// ZIP64: the locator just before points at the ZIP64 record with the real count.
		loc := from + i - 20
		if loc >= 0 && string(data[loc:loc+4]) == "PK\x06\x07" {
			off := binary.LittleEndian.Uint64(data[loc+8 : loc+16])
			if off < uint64(len(data)) && off+56 <= uint64(len(data)) && string(data[off:off+4]) == "PK\x06\x06" {
				entries = binary.LittleEndian.Uint64(data[off+32 : off+40])
			}
		}
	}
	if entries > maxZipEntries {
		return statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{},
			"the workbook archive has %d entries, more than the %d allowed", entries, maxZipEntries)
	}
	return nil
}

// openXLSX opens the package and checks what it declares before anything is decompressed: the
// number of entries, and the sum of the sizes they say they expand to against
// Options.MaxDecompressedBytes. A lying size is caught while reading: archive/zip fails an entry
// that expands past its declared size, and every read also counts against the budget.
func openXLSX(data []byte, opts statement.Options) (*xlsxBook, error) {
	if err := checkZip(data); err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "the ZIP archive cannot be read: %v", err)
	}
	if len(zr.File) > maxZipEntries {
		return nil, statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{},
			"the workbook archive has %d entries, more than the %d allowed", len(zr.File), maxZipEntries)
	}
	b := &xlsxBook{zr: zr, files: make(map[string]*zip.File, len(zr.File)), opts: opts, budget: opts.MaxDecompressedBytes}
	var declared uint64
	for _, f := range zr.File {
		declared += f.UncompressedSize64
		if declared > uint64(opts.MaxDecompressedBytes) || f.UncompressedSize64 > uint64(opts.MaxDecompressedBytes) {
			return nil, statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{},
				"the workbook expands to more than %d bytes", opts.MaxDecompressedBytes)
		}
		name := strings.ToLower(strings.TrimPrefix(strings.ReplaceAll(f.Name, "\\", "/"), "/"))
		if _, dup := b.files[name]; !dup {
			b.files[name] = f
		}
	}
	return b, nil
}

// budgetReader counts decompressed bytes against the book's budget.
type budgetReader struct {
	r io.Reader
	b *xlsxBook
}

func (r *budgetReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.b.budget -= int64(n)
	if r.b.budget < 0 {
		return n, errBudget
	}
	return n, err
}

// open returns a reader of the named part, or nil when the package has no such part.
func (b *xlsxBook) open(name string) (io.ReadCloser, *zip.File, error) {
	f := b.files[strings.ToLower(name)]
	if f == nil {
		return nil, nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, f, b.fail(name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{&budgetReader{rc, b}, rc}, f, nil
}

// fail turns a read error into the statement error of the right kind.
func (b *xlsxBook) fail(part string, err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, errBudget):
		return statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{},
			"the workbook expands to more than %d bytes", b.opts.MaxDecompressedBytes)
	case errors.Is(err, errTokenLimit):
		return statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{}, "%s: %v", part, err)
	case errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrChecksum), errors.Is(err, zip.ErrAlgorithm),
		errors.As(err, &corrupt), errors.Is(err, io.ErrUnexpectedEOF):
		return statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "%s cannot be decompressed: %v", part, err)
	}
	var se *statement.Error
	if errors.As(err, &se) {
		return err
	}
	return statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "%s: %v", part, err)
}

// scanPart runs fn over the tokens of a part no bigger than limit; false when there is no such
// part.
func (b *xlsxBook) scanPart(name string, limit int64, fn func(s *xmlScanner) error) (bool, error) {
	rc, f, err := b.open(name)
	if err != nil || rc == nil {
		return false, err
	}
	defer rc.Close()
	if f.UncompressedSize64 > uint64(limit) {
		return true, statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{},
			"%s is %d bytes, more than the %d allowed for it", name, f.UncompressedSize64, limit)
	}
	s := newXMLScanner(rc)
	if err := fn(s); err != nil {
		return true, b.fail(name, err)
	}
	if s.err != nil {
		return true, b.fail(name, s.err)
	}
	return true, nil
}

// relationship is one Relationship of a .rels part, its Target resolved to a part name.
type relationship struct {
	id, typ, target string
}

// relationships reads the .rels part of a source part, in file order.
func (b *xlsxBook) relationships(source string) ([]relationship, error) {
	dir, file := path.Split(source)
	var rels []relationship
	_, err := b.scanPart(dir+"_rels/"+file+".rels", maxXMLPart, func(s *xmlScanner) error {
		for s.next() != tokEOF {
			if s.kind != tokStart || string(s.name) != "Relationship" {
				continue
			}
			if mode, _ := s.attr("TargetMode"); strings.EqualFold(mode, "External") {
				continue
			}
			rels = append(rels, relationship{id: attrOr(s, "Id"), typ: attrOr(s, "Type"), target: resolvePart(dir, attrOr(s, "Target"))})
		}
		return nil
	})
	return rels, err
}

// firstRel returns the target of the first relationship of the kind, or def.
func firstRel(rels []relationship, kind, def string) string {
	for _, r := range rels {
		if relType(r.typ, kind) {
			return r.target
		}
	}
	return def
}

// resolvePart resolves a relationship target against the source part's folder: "worksheets/
// sheet1.xml" from xl/ is xl/worksheets/sheet1.xml, "/xl/styles.xml" is absolute.
func resolvePart(dir, target string) string {
	target = strings.ReplaceAll(target, "\\", "/")
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// relType reports whether a relationship type URI names kind: Transitional
// (http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet) and Strict
// (http://purl.oclc.org/ooxml/officeDocument/relationships/worksheet) differ only before it.
func relType(uri, kind string) bool {
	return strings.HasSuffix(uri, "/"+kind)
}

// load reads the package structure: where the workbook part is, its sheets and date system,
// the styles' number formats and the shared strings.
func (b *xlsxBook) load() error {
	root, err := b.relationships("")
	if err != nil {
		return err
	}
	wbPart := firstRel(root, "officeDocument", "xl/workbook.xml")
	if strings.HasSuffix(strings.ToLower(wbPart), ".bin") || b.files["xl/workbook.bin"] != nil && b.files[strings.ToLower(wbPart)] == nil {
		return statement.Errorf(statement.FormatXLSX, statement.ErrNotAStatement, statement.Position{},
			"a binary Excel workbook (.xlsb), which is not supported: save it as .xlsx")
	}
	rels, err := b.relationships(wbPart)
	if err != nil {
		return err
	}
	byID := make(map[string]relationship, len(rels))
	for _, r := range rels {
		if _, dup := byID[r.id]; !dup {
			byID[r.id] = r
		}
	}
	found, err := b.scanPart(wbPart, maxXMLPart, func(s *xmlScanner) error {
		for s.next() != tokEOF {
			if s.kind != tokStart {
				continue
			}
			switch string(s.name) {
			case "workbookPr":
				v, _ := s.attr("date1904")
				b.date1904 = v == "1" || v == "true"
			case "sheet":
				name, _ := s.attr("name")
				state, _ := s.attr("state")
				id, _ := s.attr("id") // r:id
				rel, ok := byID[id]
				if !ok || !relType(rel.typ, "worksheet") || len(b.sheets) >= maxSheets {
					continue // a chart sheet or dialog sheet holds no table
				}
				b.sheets = append(b.sheets, xlsxSheet{name: name, part: rel.target, hidden: state == "hidden" || state == "veryHidden"})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		for name := range b.files {
			if strings.HasPrefix(name, "xl/") {
				return statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "the workbook part %s is missing", wbPart)
			}
		}
		return statement.Errorf(statement.FormatXLSX, statement.ErrNotAStatement, statement.Position{}, "a ZIP archive that is not an Excel workbook")
	}
	if err := b.loadStyles(firstRel(rels, "styles", "xl/styles.xml")); err != nil {
		return err
	}
	b.sstName = firstRel(rels, "sharedStrings", "xl/sharedStrings.xml")
	return b.loadSharedStrings(b.sstName)
}

// loadStyles reads styleSheet/numFmts and styleSheet/cellXfs: a cell's s attribute indexes
// cellXfs, whose numFmtId is a built-in format or one of numFmts.
func (b *xlsxBook) loadStyles(part string) error {
	codes := map[int]string{}
	var xfFmt []int
	_, err := b.scanPart(part, maxXMLPart, func(s *xmlScanner) error {
		inCellXfs := false
		for s.next() != tokEOF {
			switch s.kind {
			case tokStart:
				switch string(s.name) {
				case "numFmt":
					id, err1 := strconv.Atoi(attrOr(s, "numFmtId"))
					code, ok := s.attr("formatCode")
					if err1 == nil && ok {
						codes[id] = code
					}
				case "cellXfs":
					inCellXfs = !s.selfClose
				case "xf":
					if inCellXfs {
						id, _ := strconv.Atoi(attrOr(s, "numFmtId"))
						xfFmt = append(xfFmt, id)
					}
				}
			case tokEnd:
				if string(s.name) == "cellXfs" {
					inCellXfs = false
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.xfKinds = make([]fmtKind, len(xfFmt))
	kinds := map[int]fmtKind{}
	for i, id := range xfFmt {
		k, ok := kinds[id]
		if !ok {
			if code, custom := codes[id]; custom {
				k = formatCodeKind(code)
			} else {
				k = builtinFmtKind(id)
			}
			kinds[id] = k
		}
		b.xfKinds[i] = k
	}
	return nil
}

func attrOr(s *xmlScanner, name string) string {
	v, _ := s.attr(name)
	return v
}

// loadSharedStrings reads sst/si: each item is its <t> text, or the concatenated <t> of its rich
// text runs <r>; phonetic readings <rPh> are not part of the text.
func (b *xlsxBook) loadSharedStrings(part string) error {
	var buf []byte
	_, err := b.scanPart(part, b.opts.MaxDecompressedBytes, func(s *xmlScanner) error {
		inSI, inT, rph := false, false, 0
		for s.next() != tokEOF {
			switch s.kind {
			case tokStart:
				switch string(s.name) {
				case "si":
					if s.selfClose {
						b.sst = append(b.sst, "")
						continue
					}
					inSI, buf = true, buf[:0]
				case "t":
					inT = inSI && rph == 0 && !s.selfClose
				case "rPh":
					if !s.selfClose {
						rph++
					}
				}
			case tokText:
				if inT {
					buf = s.appendText(buf)
				}
			case tokEnd:
				switch string(s.name) {
				case "si":
					if inSI {
						b.sst = append(b.sst, decodeBSTR(string(buf)))
					}
					inSI = false
				case "t":
					inT = false
				case "rPh":
					rph = max(0, rph-1)
				}
			}
		}
		return nil
	})
	return err
}

// decodeBSTR undoes OOXML's escape of characters XML cannot carry: _x000D_ is a carriage
// return, and _x005F_ a literal underscore that protects what follows (ECMA-376 Part 1,
// 22.9.2.19 ST_Xstring).
func decodeBSTR(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var out strings.Builder
	for {
		i := strings.Index(s, "_x")
		if i < 0 || i+7 > len(s) {
			out.WriteString(s)
			return out.String()
		}
		out.WriteString(s[:i])
		hex := s[i+2 : i+6]
		if s[i+6] != '_' || !isHex(hex) {
			out.WriteString("_x")
			s = s[i+2:]
			continue
		}
		n, _ := strconv.ParseUint(hex, 16, 16)
		out.WriteRune(rune(n))
		s = s[i+7:]
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// readSheet streams a worksheet's sheetData into a sheet: rows with their cells' text, and the
// merged ranges of mergeCells; a book read to stream keeps only what streamSheet keeps. Rows
// past Options.MaxRows fail with ErrTooManyRows as soon as they are seen.
func (b *xlsxBook) readSheet(ws xlsxSheet) (*sheet, error) {
	if b.stream {
		return b.streamSheet(ws)
	}
	sh := &sheet{Name: ws.name, Hidden: ws.hidden}
	err := b.scanWorksheet(ws, sh, func(line int, cells []cellText) error {
		if len(sh.Rows) == cap(sh.Rows) {
			// Doubling: append grows a large slice by a quarter, so a million rows were
			// copied over and over, five times their size allocated in all.
			rows := make([]sheetRow, len(sh.Rows), max(2*cap(sh.Rows), 1024))
			copy(rows, sh.Rows)
			sh.Rows = rows
		}
		sh.Rows = append(sh.Rows, sheetRow{Line: line, Cells: cells})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sh, nil
}

// scanWorksheet reads the worksheet's part with scanSheet; a part the workbook names but does
// not hold is an error.
func (b *xlsxBook) scanWorksheet(ws xlsxSheet, sh *sheet, sink func(line int, cells []cellText) error) error {
	found, err := b.scanPart(ws.part, b.opts.MaxDecompressedBytes, func(s *xmlScanner) error {
		return b.scanSheet(s, sh, sink)
	})
	if err == nil && !found {
		err = statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{Sheet: ws.name},
			"the worksheet part %s is missing", ws.part)
	}
	return err
}

// streamSheet reads a worksheet without holding its rows: a first reading of its XML finds what
// the sheet's view needs (each row's number, the columns with cells, the merged ranges, which
// follow the rows, and the problems of its cells), and sheet.scan reads the rows again from the
// part each time they are asked for, about 1.3 s for a million rows.
func (b *xlsxBook) streamSheet(ws xlsxSheet) (*sheet, error) {
	sh := &sheet{Name: ws.name, Hidden: ws.hidden}
	err := b.scanWorksheet(ws, sh, func(line int, cells []cellText) error {
		sh.lines = append(sh.lines, int32(line))
		if last := int(cells[len(cells)-1].Col); last >= len(sh.used) {
			sh.used = append(sh.used, make([]bool, last+1-len(sh.used))...)
		}
		for _, c := range cells {
			sh.used[c.Col] = true
		}
		sh.cells.reset()
		return nil
	})
	if err != nil {
		return nil, err
	}
	sh.scan = func(yield func(sheetRow) bool) {
		stopped := false
		err := b.rescan(ws.part, func(s *xmlScanner) error {
			again := &sheet{Name: sh.Name}
			return b.scanSheet(s, again, func(line int, cells []cellText) error {
				if !yield(sheetRow{Line: line, Cells: cells}) {
					stopped = true
					return errStopScan
				}
				again.cells.reset()
				return nil
			})
		})
		if err != nil && !stopped {
			// The same bytes read the same way a second time: a failure now is the reader's
			// bug, which the table reader turns into an error of the parse.
			panic(fmt.Sprintf("the worksheet %s could not be read again: %v", ws.part, err))
		}
	}
	return sh, nil
}

// errStopScan ends a reading of a worksheet whose reader wants no more rows.
var errStopScan = errors.New("stop")

// rescan runs fn over a part read before: its problems were recorded then, and its bytes
// counted against the decompression budget, so neither is done again (the part alone, read
// within what was left of the budget then, reads within the whole of it now).
func (b *xlsxBook) rescan(name string, fn func(s *xmlScanner) error) error {
	budget, problems := b.budget, len(b.problems)
	b.budget = b.opts.MaxDecompressedBytes
	defer func() { b.budget, b.problems = budget, b.problems[:problems] }()
	_, err := b.scanPart(name, b.opts.MaxDecompressedBytes, fn)
	return err
}

// cellState is the <c> element being read.
type cellState struct {
	col      int
	style    int
	typ      []byte
	v        []byte
	is       []byte
	hasIS    bool
	inV, inT bool
	rph      int
}

// scanSheet reads a worksheet's XML, handing each non-empty row to sink (its cells are
// sh.cells' to reuse once sink returns) and keeping the merged ranges in sh.Merges.
func (b *xlsxBook) scanSheet(s *xmlScanner, sh *sheet, sink func(line int, cells []cellText) error) error {
	var (
		c            cellState
		inCell, inIS bool
		line, col    int // current row's Line, the last cell's column
		inSheetData  bool
		typBuf       []byte
		maxRows      = b.opts.MaxRows
		pos          = func() statement.Position { return statement.Position{Sheet: sh.Name, Line: line} }
		endRow       func() error
		lastLine     int
		rows         int
	)
	endRow = func() error {
		if len(sh.cells.row()) > 0 {
			if rows >= maxRows {
				return statement.Errorf(statement.FormatXLSX, statement.ErrTooManyRows, pos(),
					"the sheet has more than %d rows", maxRows)
			}
			rows++
			return sink(line, sh.cells.endRow())
		}
		return nil
	}
	for s.next() != tokEOF {
		switch s.kind {
		case tokStart:
			switch string(s.name) {
			case "sheetData":
				inSheetData = !s.selfClose
			case "row":
				if !inSheetData {
					continue
				}
				line = lastLine + 1
				for a := s.attrs; ; {
					key, val, rest, ok := nextAttr(a)
					if !ok {
						break
					}
					if string(key) == "r" {
						if n, err := strconv.Atoi(string(val)); err == nil && n >= 1 && n <= maxExcelRows {
							line = n
						} else {
							b.problem(statement.Position{Sheet: sh.Name, Line: line}, "row number %q is not a row number", val)
						}
						break
					}
					a = rest
				}
				if line <= lastLine {
					b.problem(statement.Position{Sheet: sh.Name, Line: line}, "row %d comes after row %d; it is read where it stands", line, lastLine)
				}
				lastLine, col = line, -1
				if orphans := sh.cells.endRow(); len(orphans) > 0 {
					b.problem(pos(), "%d cells stand outside any row; they are skipped", len(orphans))
				}
				if s.selfClose {
					continue
				}
			case "c":
				if !inSheetData {
					continue
				}
				inCell = !s.selfClose
				c = cellState{col: col + 1, v: c.v[:0], is: c.is[:0]}
				skip := false
				for a := s.attrs; ; {
					key, val, rest, ok := nextAttr(a)
					if !ok {
						break
					}
					switch string(key) {
					case "r":
						cc, _, ok := parseCellRef(val)
						if !ok || cc < 0 {
							b.problem(pos(), "cell reference %q is not a cell; the cell is skipped", val)
							skip = true
						}
						c.col = cc
					case "s":
						c.style = atoiBytes(val)
					case "t":
						typBuf = append(typBuf[:0], val...)
						c.typ = typBuf
					}
					a = rest
				}
				if skip || c.col >= maxColumns {
					if !skip {
						b.problem(pos(), "a cell lies beyond column XFD; it is skipped")
					}
					inCell = false
					continue
				}
				col = c.col
			case "v":
				c.inV = inCell && !s.selfClose
			case "is":
				inIS = inCell && !s.selfClose
				c.hasIS = true
			case "t":
				c.inT = inIS && c.rph == 0 && !s.selfClose
			case "rPh":
				if !s.selfClose {
					c.rph++
				}
			case "mergeCell":
				if ref, ok := s.attrRaw("ref"); ok {
					if m, ok := parseRange(ref); ok {
						if len(sh.Merges) >= maxMerges {
							return statement.Errorf(statement.FormatXLSX, statement.ErrResourceLimit, statement.Position{Sheet: sh.Name},
								"the sheet has more than %d merged ranges", maxMerges)
						}
						sh.Merges = append(sh.Merges, m)
					}
				}
			}
		case tokText:
			if len(c.v)+len(c.is)+len(s.raw) > maxToken {
				// Text split by comments or runs adds up; one cell is still one cell.
				return errTokenLimit
			}
			switch {
			case c.inV:
				c.v = s.appendText(c.v)
			case c.inT:
				c.is = s.appendText(c.is)
			}
		case tokEnd:
			switch string(s.name) {
			case "v":
				c.inV = false
			case "t":
				c.inT = false
			case "rPh":
				c.rph = max(0, c.rph-1)
			case "is":
				inIS = false
			case "c":
				if inCell {
					inCell = false
					if text, typed := b.cellValue(&c, sh.Name, line); text != "" {
						if run := sh.cells.row(); len(run) > 0 && int(run[len(run)-1].Col) >= c.col {
							b.problem(pos(), "cell %s%d repeats or precedes an earlier cell of its row; it is skipped", columnName(c.col), line)
							continue
						}
						sh.cells.add(cellText{Col: int32(c.col), Typed: typed, Text: text})
					}
				}
			case "row":
				if err := endRow(); err != nil {
					return err
				}
			case "sheetData":
				inSheetData = false
			}
		}
	}
	return nil
}

// cellValue returns what the cell shows: the shared or inline string, the cached result of a
// formula (formulas themselves are not evaluated: the value Excel saved is what the user saw),
// TRUE or FALSE, an error such as #N/A, or a number as plain decimal text, or, when its number
// format is a date or time, the date (YYYY-MM-DD) or time (HH:MM:SS).
func (b *xlsxBook) cellValue(c *cellState, sheetName string, line int) (text string, typed bool) {
	switch string(c.typ) {
	case "s":
		idx, err := strconv.Atoi(strings.TrimSpace(string(c.v)))
		if err != nil || idx < 0 || idx >= len(b.sst) {
			if len(c.v) == 0 {
				return "", false
			}
			b.problem(statement.Position{Sheet: sheetName, Line: line},
				"cell %s%d refers to shared string %q, which %s does not have", columnName(c.col), line, c.v, b.sstName)
			return "", false
		}
		return b.sst[idx], false
	case "inlineStr":
		return decodeBSTR(string(c.is)), false
	case "str", "e":
		return decodeBSTR(string(c.v)), false
	case "b":
		switch strings.TrimSpace(string(c.v)) {
		case "1", "true":
			return "TRUE", false
		case "0", "false":
			return "FALSE", false
		}
		return string(c.v), false
	case "d":
		// An ISO 8601 date cell (written by some tools, never by Excel): the date is what counts.
		v := strings.TrimSpace(string(c.v))
		if len(v) >= 10 && v[4] == '-' && v[7] == '-' {
			return v[:10], true
		}
		return v, false
	}
	if c.hasIS && len(c.v) == 0 {
		return decodeBSTR(string(c.is)), false
	}
	if len(c.v) == 0 {
		return "", false
	}
	v := bytes.TrimSpace(c.v)
	kind := fmtNumber
	if c.style > 0 && c.style < len(b.xfKinds) {
		kind = b.xfKinds[c.style]
	}
	if (kind == fmtDate || kind == fmtTime) && plainNumber(v) {
		// The common case, a date stored as a plain serial, without the text in between.
		if d, ok := serialText(v, kind, b.date1904); ok {
			return d, kind == fmtDate
		}
	}
	raw := string(v)
	num, ok := numberText(raw)
	if !ok {
		return raw, false
	}
	return typedNumber(num, kind, b.date1904)
}

// atoiBytes reads a small non-negative decimal such as a style index; -1 when it is none.
func atoiBytes(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// maxProblems bounds the problems kept: past it a sheet is unreadable, not a few bad rows.
const maxProblems = 1000

func (b *xlsxBook) problem(pos statement.Position, msg string, args ...any) {
	if len(b.problems) < maxProblems {
		b.problems = append(b.problems, statement.Problem{Pos: pos, Message: fmt.Sprintf(msg, args...)})
	}
}

func (b *xlsxBook) format() statement.Format { return statement.FormatXLSX }
func (b *xlsxBook) sheetCount() int          { return len(b.sheets) }
func (b *xlsxBook) sheetInfo(i int) (string, bool) {
	return b.sheets[i].name, b.sheets[i].hidden
}
func (b *xlsxBook) readSheetAt(i int) (*sheet, error) { return b.readSheet(b.sheets[i]) }
func (b *xlsxBook) problemList() []statement.Problem  { return b.problems }

// dialect is "xlsx", with ";date1904" for the 1904 date system.
func (b *xlsxBook) dialect() string {
	if b.date1904 {
		return "xlsx;date1904"
	}
	return "xlsx"
}
