package excel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"

	"github.com/statementmatch/service/internal/statement"
)

// Why our own BIFF reader. Of the .xls libraries at hand, github.com/extrame/xls (through
// github.com/extrame/ole2) calls log.Fatal on a truncated compound file: the process exits, and
// no recover can stop it. github.com/shakinm/xlsReader does not build here (its date helper
// module has no go.sum entry) and, like extrame, indexes slices with sizes taken from the file.
// BIFF8 is a plain record stream, and a statement needs a dozen of its record types, so we read
// them ourselves, bounds-checking every field, on github.com/richardlehane/mscfb for the OLE2
// container: mscfb guards its sector chains against cycles and out-of-range sectors, and showed
// no panic or hang over thousands of truncated and byte-flipped copies of the corpus file (our
// Parse recovers regardless, as a last resort).

// BIFF record types ([MS-XLS] 2.3).
const (
	recFORMULA     = 0x0006
	recEOF         = 0x000A
	recDATEMODE    = 0x0022
	recFILEPASS    = 0x002F
	recCONTINUE    = 0x003C
	recCODEPAGE    = 0x0042
	recBOUNDSHEET  = 0x0085
	recMULRK       = 0x00BD
	recRSTRING     = 0x00D6
	recXF          = 0x00E0
	recMERGEDCELLS = 0x00E5
	recSST         = 0x00FC
	recLABELSST    = 0x00FD
	recNUMBER      = 0x0203
	recLABEL       = 0x0204
	recBOOLERR     = 0x0205
	recSTRING      = 0x0207
	recRK          = 0x027E
	recFORMAT      = 0x041E
	recBOF         = 0x0809
	recBLANK       = 0x0201
	recMULBLANK    = 0x00BE
)

// BIFF versions in BOF/vers.
const (
	biff5 = 0x0500
	biff8 = 0x0600
)

// xlsBook is an Excel 97-2003 (BIFF8) or Excel 5.0/95 (BIFF5) workbook stream.
type xlsBook struct {
	stream   []byte
	version  int
	codepage int
	decoder  *encoding.Decoder // 8-bit strings of BIFF5 (BIFF8 strings are UTF-16)
	date1904 bool
	formats  map[int]string
	xfKinds  []fmtKind
	sst      []string
	sheets   []xlsSheet
	opts     statement.Options
	problems []statement.Problem
}

type xlsSheet struct {
	name   string
	offset int
	hidden bool
}

// openXLS reads the OLE2 compound file and tells a workbook from the other things OLE2 holds: an
// encrypted OOXML workbook (EncryptionInfo and EncryptedPackage streams, [MS-OFFCRYPTO]), a Word
// or PowerPoint file, or an old Excel file whose BIFF predates Excel 5.
func openXLS(data []byte, opts statement.Options) (*xlsBook, error) {
	doc, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		return nil, statement.Errorf(statement.FormatXLS, statement.ErrCorrupt, statement.Position{}, "the OLE2 compound file cannot be read: %v", err)
	}
	var book *mscfb.File
	var names []string
	encrypted := false
	for f, err := doc.Next(); err == nil; f, err = doc.Next() {
		if len(f.Path) > 0 {
			continue // inside a storage: an embedded object, not the document
		}
		names = append(names, f.Name)
		switch f.Name {
		case "EncryptionInfo", "EncryptedPackage":
			encrypted = true
		case "Workbook":
			book = f
		case "Book":
			if book == nil {
				book = f
			}
		}
	}
	switch {
	case encrypted:
		return nil, statement.Errorf(statement.FormatXLSX, statement.ErrEncrypted, statement.Position{},
			"the workbook is encrypted with a password; save it without one")
	case book == nil:
		return nil, statement.Errorf(statement.FormatXLS, statement.ErrNotAStatement, statement.Position{},
			"an OLE2 compound file that is not an Excel workbook (%s)", oleKind(names))
	}
	// A stream cannot be larger than the file it is in; a size that says otherwise would make us
	// read sectors over and over.
	if book.Size <= 0 || book.Size > int64(len(data)) {
		return nil, statement.Errorf(statement.FormatXLS, statement.ErrCorrupt, statement.Position{},
			"the workbook stream claims %d bytes in a file of %d", book.Size, len(data))
	}
	stream := make([]byte, book.Size)
	if _, err := io.ReadFull(book, stream); err != nil {
		return nil, statement.Errorf(statement.FormatXLS, statement.ErrCorrupt, statement.Position{}, "the workbook stream cannot be read: %v", err)
	}
	b := &xlsBook{stream: stream, formats: map[int]string{}, opts: opts, codepage: 1252}
	return b, b.readGlobals()
}

// oleKind names what an OLE2 file without a workbook stream is, for the error message.
func oleKind(names []string) string {
	for _, n := range names {
		switch n {
		case "WordDocument":
			return "a Word document"
		case "PowerPoint Document":
			return "a PowerPoint presentation"
		case "VisioDocument":
			return "a Visio drawing"
		case "__substg1.0_1000001F", "__nameid_version1.0":
			return "an Outlook message"
		}
	}
	if len(names) > 8 {
		names = append(names[:8:8], "…")
	}
	return "streams: " + strings.Join(names, ", ")
}

// record is one BIFF record: its type, its data, and where it starts in the stream.
type record struct {
	typ  uint16
	data []byte
	off  int
}

// recordAt reads the record at off; ok is false at the end of the stream or when the record runs
// past it.
func (b *xlsBook) recordAt(off int) (record, bool) {
	if off < 0 || off+4 > len(b.stream) {
		return record{}, false
	}
	typ := binary.LittleEndian.Uint16(b.stream[off:])
	n := int(binary.LittleEndian.Uint16(b.stream[off+2:]))
	if off+4+n > len(b.stream) {
		return record{}, false
	}
	return record{typ: typ, data: b.stream[off+4 : off+4+n], off: off}, true
}

// continued returns the record's data followed by the data of the CONTINUE records after it, as
// segments (a string that crosses into a CONTINUE restarts with its own flags byte there), and
// the offset after the last one.
func (b *xlsBook) continued(r record) ([][]byte, int) {
	segs := [][]byte{r.data}
	off := r.off + 4 + len(r.data)
	for {
		c, ok := b.recordAt(off)
		if !ok || c.typ != recCONTINUE {
			return segs, off
		}
		segs = append(segs, c.data)
		off += 4 + len(c.data)
	}
}

func (b *xlsBook) corrupt(msg string, args ...any) error {
	return statement.Errorf(statement.FormatXLS, statement.ErrCorrupt, statement.Position{}, msg, args...)
}

// readGlobals reads the workbook globals substream: version, encryption, code page, date system,
// number formats, cell formats (XF), shared strings and the sheet list.
func (b *xlsBook) readGlobals() error {
	bof, ok := b.recordAt(0)
	if !ok || bof.typ != recBOF || len(bof.data) < 4 {
		if ok && (bof.typ == 0x0009 || bof.typ == 0x0209 || bof.typ == 0x0409) {
			return statement.Errorf(statement.FormatXLS, statement.ErrNotAStatement, statement.Position{},
				"an Excel 2.x-4.x workbook, which is not supported: save it as .xlsx")
		}
		return b.corrupt("the workbook stream does not start with a BOF record")
	}
	b.version = int(binary.LittleEndian.Uint16(bof.data))
	if b.version != biff8 && b.version != biff5 {
		return statement.Errorf(statement.FormatXLS, statement.ErrNotAStatement, statement.Position{},
			"an Excel workbook of BIFF version %#x, which is not supported: save it as .xlsx", b.version)
	}
	if b.version == biff5 {
		b.decoder = codepageDecoder(b.codepage)
	}
	var xfFmt []int
	off := 4 + len(bof.data)
	for {
		r, ok := b.recordAt(off)
		if !ok {
			return b.corrupt("the workbook globals end without an EOF record (truncated at byte %d)", off)
		}
		off += 4 + len(r.data)
		d := r.data
		switch r.typ {
		case recEOF:
			b.xfKinds = b.kinds(xfFmt)
			return nil
		case recFILEPASS:
			return statement.Errorf(statement.FormatXLS, statement.ErrEncrypted, statement.Position{},
				"the workbook is encrypted with a password; save it without one")
		case recCODEPAGE:
			if len(d) >= 2 {
				b.codepage = int(binary.LittleEndian.Uint16(d))
				if b.version == biff5 {
					b.decoder = codepageDecoder(b.codepage)
				}
			}
		case recDATEMODE:
			b.date1904 = len(d) >= 2 && binary.LittleEndian.Uint16(d) == 1
		case recFORMAT:
			if len(d) >= 2 {
				sr := &segReader{segs: [][]byte{d[2:]}}
				if code, ok := b.shortOrLongString(sr, b.version == biff8); ok {
					b.formats[int(binary.LittleEndian.Uint16(d))] = code
				}
			}
		case recXF:
			if len(d) >= 4 {
				xfFmt = append(xfFmt, int(binary.LittleEndian.Uint16(d[2:])))
			}
		case recBOUNDSHEET:
			b.addSheet(d)
		case recSST:
			segs, next := b.continued(r)
			b.readSST(segs)
			off = next
		}
	}
}

// kinds classifies each XF's number format.
func (b *xlsBook) kinds(xfFmt []int) []fmtKind {
	out := make([]fmtKind, len(xfFmt))
	for i, id := range xfFmt {
		if code, ok := b.formats[id]; ok {
			out[i] = formatCodeKind(code)
		} else {
			out[i] = builtinFmtKind(id)
		}
	}
	return out
}

// addSheet reads BOUNDSHEET8: the sheet's BOF offset, visibility, type and name. Only
// worksheets (dt 0) hold cells; chart sheets and macro sheets are skipped.
func (b *xlsBook) addSheet(d []byte) {
	if len(d) < 7 || d[5] != 0 || len(b.sheets) >= maxSheets {
		return
	}
	sr := &segReader{segs: [][]byte{d[6:]}}
	var name string
	var ok bool
	if b.version == biff8 {
		name, ok = b.unicodeString(sr, 1)
	} else {
		name, ok = b.byteString(sr, 1)
	}
	if !ok {
		name = fmt.Sprintf("Sheet%d", len(b.sheets)+1)
	}
	b.sheets = append(b.sheets, xlsSheet{name: name, offset: int(binary.LittleEndian.Uint32(d)), hidden: d[4]&3 != 0})
}

// readSST reads the shared string table: cstTotal, cstUnique, then XLUnicodeRichExtendedString
// items, which may cross into CONTINUE records. A table that ends early keeps what it read;
// cells pointing past it are reported where they are.
func (b *xlsBook) readSST(segs [][]byte) {
	sr := &segReader{segs: segs}
	if !sr.skip(4) {
		return
	}
	unique, ok := sr.uint32()
	if !ok {
		return
	}
	for n := uint32(0); n < unique; n++ {
		s, ok := b.unicodeString(sr, 2)
		if !ok {
			b.problems = append(b.problems, statement.Problem{Message: fmt.Sprintf(
				"the shared string table ends after %d of its %d strings", len(b.sst), unique)})
			return
		}
		b.sst = append(b.sst, s)
	}
}

// segReader reads across a record and its CONTINUE records.
type segReader struct {
	segs [][]byte
	i    int // current segment
	off  int // offset in it
}

// fill moves past exhausted segments; false at the end of the data.
func (r *segReader) fill() bool {
	for r.i < len(r.segs) && r.off >= len(r.segs[r.i]) {
		r.i++
		r.off = 0
	}
	return r.i < len(r.segs)
}

func (r *segReader) byte() (byte, bool) {
	if !r.fill() {
		return 0, false
	}
	c := r.segs[r.i][r.off]
	r.off++
	return c, true
}

func (r *segReader) uint16() (uint16, bool) {
	lo, ok1 := r.byte()
	hi, ok2 := r.byte()
	return uint16(lo) | uint16(hi)<<8, ok1 && ok2
}

func (r *segReader) uint32() (uint32, bool) {
	lo, ok1 := r.uint16()
	hi, ok2 := r.uint16()
	return uint32(lo) | uint32(hi)<<16, ok1 && ok2
}

// skip discards n bytes; false when fewer are left.
func (r *segReader) skip(n int) bool {
	for n > 0 {
		if !r.fill() {
			return false
		}
		k := min(n, len(r.segs[r.i])-r.off)
		r.off += k
		n -= k
	}
	return true
}

// chars reads cch characters, one or two bytes each by the wide flag; where the characters cross
// into the next CONTINUE record, that record starts with a new flags byte (its bit 0 saying
// whether the rest is wide) ([MS-XLS] 2.5.293 XLUnicodeRichExtendedString).
func (r *segReader) chars(cch int, wide bool) (string, bool) {
	units := make([]uint16, 0, cch)
	for len(units) < cch {
		if r.i < len(r.segs) && r.off >= len(r.segs[r.i]) {
			// Segment boundary inside the characters.
			r.i++
			r.off = 0
			if r.i >= len(r.segs) || len(r.segs[r.i]) == 0 {
				return "", false
			}
			wide = r.segs[r.i][0]&1 != 0
			r.off = 1
			continue
		}
		if r.i >= len(r.segs) {
			return "", false
		}
		seg := r.segs[r.i]
		if wide {
			if r.off+2 > len(seg) {
				return "", false
			}
			units = append(units, binary.LittleEndian.Uint16(seg[r.off:]))
			r.off += 2
		} else {
			units = append(units, uint16(seg[r.off]))
			r.off++
		}
	}
	return string(utf16.Decode(units)), true
}

// unicodeString reads an XLUnicodeString (lenBytes 2: cch is 16 bits), ShortXLUnicodeString
// (lenBytes 1) or, in the shared string table, XLUnicodeRichExtendedString: cch, flags
// (fHighByte 0x01, fExtSt 0x04, fRichSt 0x08), the run and phonetic block sizes, the characters,
// then the formatting runs and phonetic data, which we skip.
func (b *xlsBook) unicodeString(r *segReader, lenBytes int) (string, bool) {
	var cch int
	if lenBytes == 1 {
		c, ok := r.byte()
		if !ok {
			return "", false
		}
		cch = int(c)
	} else {
		c, ok := r.uint16()
		if !ok {
			return "", false
		}
		cch = int(c)
	}
	flags, ok := r.byte()
	if !ok {
		return "", false
	}
	runs, ext := 0, uint32(0)
	if flags&0x08 != 0 {
		n, ok := r.uint16()
		if !ok {
			return "", false
		}
		runs = int(n)
	}
	if flags&0x04 != 0 {
		if ext, ok = r.uint32(); !ok {
			return "", false
		}
	}
	s, ok := r.chars(cch, flags&0x01 != 0)
	if !ok {
		return "", false
	}
	if ext > uint32(math.MaxInt32) || !r.skip(4*runs) || !r.skip(int(ext)) {
		// The text itself was read; only formatting is missing.
		return s, true
	}
	return s, true
}

// byteString reads a BIFF5 string: a 1- or 2-byte length and that many bytes in the workbook's
// code page.
func (b *xlsBook) byteString(r *segReader, lenBytes int) (string, bool) {
	var n int
	if lenBytes == 1 {
		c, ok := r.byte()
		if !ok {
			return "", false
		}
		n = int(c)
	} else {
		c, ok := r.uint16()
		if !ok {
			return "", false
		}
		n = int(c)
	}
	raw := make([]byte, 0, n)
	for range n {
		c, ok := r.byte()
		if !ok {
			return "", false
		}
		raw = append(raw, c)
	}
	return b.decode(raw), true
}

// shortOrLongString reads the string of a FORMAT record: XLUnicodeString in BIFF8, a byte
// string with a 1-byte length in BIFF5.
func (b *xlsBook) shortOrLongString(r *segReader, unicode bool) (string, bool) {
	if unicode {
		return b.unicodeString(r, 2)
	}
	return b.byteString(r, 1)
}

// cellString reads the string of a LABEL, RSTRING or STRING record.
func (b *xlsBook) cellString(r *segReader) (string, bool) {
	if b.version == biff8 {
		return b.unicodeString(r, 2)
	}
	return b.byteString(r, 2)
}

func (b *xlsBook) decode(raw []byte) string {
	if b.decoder == nil {
		return string(raw)
	}
	s, err := b.decoder.Bytes(raw)
	if err != nil {
		return string(raw)
	}
	return string(s)
}

// codepageDecoder returns the decoder of a Windows code page number as BIFF's CODEPAGE record
// states it; Windows-1252 when unknown.
func codepageDecoder(cp int) *encoding.Decoder {
	m := map[int]*charmap.Charmap{
		437: charmap.CodePage437, 850: charmap.CodePage850, 852: charmap.CodePage852, 855: charmap.CodePage855,
		866: charmap.CodePage866, 874: charmap.Windows874, 1250: charmap.Windows1250, 1251: charmap.Windows1251,
		1252: charmap.Windows1252, 1253: charmap.Windows1253, 1254: charmap.Windows1254, 1255: charmap.Windows1255,
		1256: charmap.Windows1256, 1257: charmap.Windows1257, 1258: charmap.Windows1258, 10000: charmap.Macintosh,
		32768: charmap.Macintosh,
	}
	if c, ok := m[cp]; ok {
		return c.NewDecoder()
	}
	return charmap.Windows1252.NewDecoder()
}

// xcell is a cell read from a sheet substream, before sorting: BIFF writes rows in blocks and
// cells need not come in order.
type xcell struct {
	row, col int
	typed    bool
	text     string
}

// readSheet reads a worksheet substream: from its BOF to the matching EOF (charts embedded in
// the sheet nest their own BOF..EOF), collecting cell values and merged ranges.
func (b *xlsBook) readSheet(ws xlsSheet) (*sheet, error) {
	sh := &sheet{Name: ws.name, Hidden: ws.hidden}
	pos := func(row int) statement.Position { return statement.Position{Sheet: ws.name, Line: row + 1} }
	bof, ok := b.recordAt(ws.offset)
	if !ok || bof.typ != recBOF {
		b.problems = append(b.problems, statement.Problem{Pos: statement.Position{Sheet: ws.name},
			Message: fmt.Sprintf("the sheet's records are not where the workbook says (byte %d); the sheet is skipped", ws.offset)})
		return sh, nil
	}
	var cells []xcell
	add := func(row, col int, text string) {
		if text != "" {
			cells = append(cells, xcell{row: row, col: col, text: text})
		}
	}
	addNumber := func(row, col int, v float64, xf int) {
		text, typed := b.number(v, xf)
		cells = append(cells, xcell{row: row, col: col, text: text, typed: typed})
	}
	depth := 1
	off := ws.offset + 4 + len(bof.data)
	pendingString := -1 // index into cells of a FORMULA whose string result follows in STRING
	for depth > 0 {
		r, ok := b.recordAt(off)
		if !ok {
			b.problems = append(b.problems, statement.Problem{Pos: statement.Position{Sheet: ws.name},
				Message: fmt.Sprintf("the sheet's records end early (truncated at byte %d); rows after it are missing", off)})
			break
		}
		off += 4 + len(r.data)
		d := r.data
		if r.typ == recBOF {
			depth++
			continue
		}
		if r.typ == recEOF {
			depth--
			continue
		}
		if depth > 1 {
			continue
		}
		switch r.typ {
		case recNUMBER, recRK, recMULRK, recLABELSST, recLABEL, recRSTRING, recBOOLERR, recFORMULA, recBLANK, recMULBLANK:
			// Another cell: a STRING after it is not the pending formula's. (SHRFMLA, ARRAY and
			// TABLE records may stand between a FORMULA and its STRING.)
			pendingString = -1
		}
		switch r.typ {
		case recNUMBER:
			if len(d) < 14 {
				continue
			}
			row, col, xf := cellHeader(d)
			addNumber(row, col, math.Float64frombits(binary.LittleEndian.Uint64(d[6:])), xf)
		case recRK:
			if len(d) < 10 {
				continue
			}
			row, col, xf := cellHeader(d)
			addNumber(row, col, rkValue(binary.LittleEndian.Uint32(d[6:])), xf)
		case recMULRK:
			if len(d) < 6 {
				continue
			}
			row := int(binary.LittleEndian.Uint16(d))
			col := int(binary.LittleEndian.Uint16(d[2:]))
			for i := 4; i+6 <= len(d)-2; i += 6 {
				xf := int(binary.LittleEndian.Uint16(d[i:]))
				addNumber(row, col, rkValue(binary.LittleEndian.Uint32(d[i+2:])), xf)
				col++
			}
		case recLABELSST:
			if len(d) < 10 {
				continue
			}
			row, col, _ := cellHeader(d)
			idx := int(binary.LittleEndian.Uint32(d[6:]))
			if idx < 0 || idx >= len(b.sst) {
				b.problems = append(b.problems, statement.Problem{Pos: pos(row), Message: fmt.Sprintf(
					"cell %s%d refers to shared string %d, which the workbook does not have", columnName(col), row+1, idx)})
				continue
			}
			add(row, col, b.sst[idx])
		case recLABEL, recRSTRING:
			if len(d) < 6 {
				continue
			}
			row, col, _ := cellHeader(d)
			segs, next := b.continued(r)
			off = next
			segs[0] = segs[0][6:]
			if s, ok := b.cellString(&segReader{segs: segs}); ok {
				add(row, col, s)
			} else {
				b.problems = append(b.problems, statement.Problem{Pos: pos(row), Message: fmt.Sprintf("the text of cell %s%d is cut short", columnName(col), row+1)})
			}
		case recBOOLERR:
			if len(d) < 8 {
				continue
			}
			row, col, _ := cellHeader(d)
			add(row, col, boolErrText(d[6], d[7] != 0))
		case recFORMULA:
			if len(d) < 20 {
				continue
			}
			row, col, xf := cellHeader(d)
			val := d[6:14]
			if val[6] != 0xFF || val[7] != 0xFF {
				addNumber(row, col, math.Float64frombits(binary.LittleEndian.Uint64(val)), xf)
				continue
			}
			switch val[0] {
			case 0: // the string result is in the STRING record that follows
				cells = append(cells, xcell{row: row, col: col})
				pendingString = len(cells) - 1
			case 1:
				add(row, col, boolErrText(val[2], false))
			case 2:
				add(row, col, boolErrText(val[2], true))
			}
		case recSTRING:
			segs, next := b.continued(r)
			off = next
			if pendingString >= 0 {
				if s, ok := b.cellString(&segReader{segs: segs}); ok {
					cells[pendingString].text = s
				}
				pendingString = -1
			}
		case recMERGEDCELLS:
			if len(d) < 2 {
				continue
			}
			n := int(binary.LittleEndian.Uint16(d))
			if len(sh.Merges)+n > maxMerges {
				return nil, statement.Errorf(statement.FormatXLS, statement.ErrResourceLimit, statement.Position{Sheet: ws.name},
					"the sheet has more than %d merged ranges", maxMerges)
			}
			for i := 0; i < n && 2+8*i+8 <= len(d); i++ {
				p := d[2+8*i:]
				sh.Merges = append(sh.Merges, cellRange{
					Row1: int(binary.LittleEndian.Uint16(p)), Row2: int(binary.LittleEndian.Uint16(p[2:])),
					Col1: int(binary.LittleEndian.Uint16(p[4:])), Col2: int(binary.LittleEndian.Uint16(p[6:])),
				})
			}
		}
	}
	return sh, b.fillSheet(sh, cells)
}

// fillSheet sorts the cells into rows, later cells of one position replacing earlier ones as
// Excel does, and checks the row limit.
func (b *xlsBook) fillSheet(sh *sheet, cells []xcell) error {
	sort.SliceStable(cells, func(i, j int) bool {
		if cells[i].row != cells[j].row {
			return cells[i].row < cells[j].row
		}
		return cells[i].col < cells[j].col
	})
	line := 0
	for i, c := range cells {
		if c.text == "" || (i+1 < len(cells) && cells[i+1].row == c.row && cells[i+1].col == c.col) {
			continue
		}
		if len(sh.cells.row()) > 0 && c.row+1 != line {
			sh.Rows = append(sh.Rows, sheetRow{Line: line, Cells: sh.cells.endRow()})
		}
		if len(sh.cells.row()) == 0 {
			if len(sh.Rows) >= b.opts.MaxRows {
				return statement.Errorf(statement.FormatXLS, statement.ErrTooManyRows, statement.Position{Sheet: sh.Name, Line: c.row + 1},
					"the sheet has more than %d rows", b.opts.MaxRows)
			}
			line = c.row + 1
		}
		sh.cells.add(cellText{Col: int32(c.col), Typed: c.typed, Text: c.text})
	}
	if len(sh.cells.row()) > 0 {
		sh.Rows = append(sh.Rows, sheetRow{Line: line, Cells: sh.cells.endRow()})
	}
	return nil
}

func cellHeader(d []byte) (row, col, xf int) {
	return int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), int(binary.LittleEndian.Uint16(d[4:]))
}

// rkValue decodes an RK number ([MS-XLS] 2.5.217): a 30-bit integer or the top 30 bits of a
// double, divided by 100 when fX100 is set.
func rkValue(rk uint32) float64 {
	var v float64
	if rk&2 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&0xFFFFFFFC) << 32)
	}
	if rk&1 != 0 {
		v /= 100
	}
	return v
}

// number returns the text of a numeric cell. The value IS a binary double in the file (NUMBER,
// RK, a FORMULA's cached result), so its exact text is the shortest decimal that reads back as
// that double (strconv.FormatFloat(v, 'f', -1, 64)), then held to Excel's 15 shown digits like
// an xlsx value; a date or time format makes it a date or time.
func (b *xlsBook) number(v float64, xf int) (string, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "#NUM!", false
	}
	num, ok := numberText(strconv.FormatFloat(v, 'f', -1, 64))
	if !ok {
		return strconv.FormatFloat(v, 'g', -1, 64), false
	}
	if xf >= 0 && xf < len(b.xfKinds) {
		return typedNumber(num, b.xfKinds[xf], b.date1904)
	}
	return num, true
}

// boolErrText is what a boolean or error cell shows ([MS-XLS] 2.5.10 Bes).
func boolErrText(v byte, isErr bool) string {
	if !isErr {
		if v != 0 {
			return "TRUE"
		}
		return "FALSE"
	}
	switch v {
	case 0x00:
		return "#NULL!"
	case 0x07:
		return "#DIV/0!"
	case 0x0F:
		return "#VALUE!"
	case 0x17:
		return "#REF!"
	case 0x1D:
		return "#NAME?"
	case 0x24:
		return "#NUM!"
	case 0x2A:
		return "#N/A"
	}
	return "#ERROR!"
}

func (b *xlsBook) format() statement.Format { return statement.FormatXLS }
func (b *xlsBook) sheetCount() int          { return len(b.sheets) }
func (b *xlsBook) sheetInfo(i int) (string, bool) {
	return b.sheets[i].name, b.sheets[i].hidden
}
func (b *xlsBook) readSheetAt(i int) (*sheet, error) { return b.readSheet(b.sheets[i]) }
func (b *xlsBook) problemList() []statement.Problem  { return b.problems }

// dialect is "xls;biff8" or "xls;biff5", with the CODEPAGE record's code page and ";date1904"
// for the 1904 date system.
func (b *xlsBook) dialect() string {
	d := "xls;biff8"
	if b.version == biff5 {
		d = "xls;biff5"
	}
	d += ";codepage=" + strconv.Itoa(b.codepage)
	if b.date1904 {
		d += ";date1904"
	}
	return d
}
