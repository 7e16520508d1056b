package excel

import (
	"sort"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// maxColumns is Excel's own limit (XFD); a cell beyond it is not a cell Excel could show.
const maxColumns = 16384

// maxExcelRows is Excel's own row limit.
const maxExcelRows = 1 << 20

// sheet is one worksheet as read from the file: its non-empty rows and its merged ranges.
type sheet struct {
	Name   string
	Hidden bool
	// Rows holds the rows, unless scan is set.
	Rows   []sheetRow
	Merges []cellRange
	cells  cellStore
	// scan, set for an xlsx worksheet, reads the rows again from the file each time it is
	// called rather than hold them (a million rows of three cells are about 110 MiB held). It
	// yields the rows in order; a row's cells are the reader's to reuse once yield returns.
	// lines then holds each row's number, and used marks the columns some row has a cell in.
	scan  func(yield func(sheetRow) bool)
	lines []int32
	used  []bool
}

// rowCount returns the number of non-empty rows.
func (sh *sheet) rowCount() int {
	if sh.scan != nil {
		return len(sh.lines)
	}
	return len(sh.Rows)
}

// each yields the rows in order, held or read again.
func (sh *sheet) each(yield func(sheetRow) bool) {
	if sh.scan != nil {
		sh.scan(yield)
		return
	}
	for _, r := range sh.Rows {
		if !yield(r) {
			return
		}
	}
}

// rowLines returns each row's number, in order.
func (sh *sheet) rowLines() []int32 {
	if sh.scan != nil {
		return sh.lines
	}
	lines := make([]int32, len(sh.Rows))
	for i, r := range sh.Rows {
		lines[i] = int32(r.Line)
	}
	return lines
}

// sheetRow is a row with at least one non-empty cell: Line is its row number as Excel shows it
// (1-based), Cells its cells in column order.
type sheetRow struct {
	Line  int
	Cells []cellText
}

// cellStore holds a sheet's cells in blocks, each row's cells contiguous in one block. A single
// slice of a million cells would be copied over and over as it grows (five times its final size
// allocated in all); blocks are written once.
type cellStore struct {
	block    []cellText
	rowStart int // where the current row's cells begin in block
}

const cellBlock = 8192

// add appends a cell to the current row.
func (s *cellStore) add(c cellText) {
	if len(s.block) == cap(s.block) {
		row := s.block[s.rowStart:]
		next := make([]cellText, 0, max(cellBlock, 2*len(row)))
		s.block = append(next, row...)
		s.rowStart = 0
	}
	s.block = append(s.block, c)
}

// reset forgets every cell, for a reader that hands each row on and keeps none.
func (s *cellStore) reset() { s.block, s.rowStart = s.block[:0], 0 }

// row returns the current row's cells so far.
func (s *cellStore) row() []cellText { return s.block[s.rowStart:] }

// endRow returns the current row's cells and starts a new row.
func (s *cellStore) endRow() []cellText {
	r := s.block[s.rowStart:len(s.block):len(s.block)]
	s.rowStart = len(s.block)
	return r
}

// cellText is a cell's text as the user sees it; Col is 0-based. Typed marks text we wrote from
// a number or date cell (plain decimal with a '.' mark, or YYYY-MM-DD): its form is certain, so
// the table layer does not weigh it when it decides the file's decimal mark and date order.
type cellText struct {
	Col   int32
	Typed bool
	Text  string
}

// cellRange is a merged range, 0-based and inclusive; rows are 0-based too (Line-1).
type cellRange struct {
	Row1, Col1, Row2, Col2 int
}

// sheetView is a sheet prepared for the table layer: merged ranges filled, and columns that are
// empty in every row dropped, so a sheet laid out with spacer columns, or with one cell placed
// far to the right, gives a compact table. It yields dense rows without holding them: the
// table layer reads the rows up to three times, and a copy of a million rows would double what
// the sheet costs.
type sheetView struct {
	sh     *sheet
	format statement.Format
	index  []int32 // sheet column -> table column
	width  int
}

// newView prepares a sheet; see mergeFill for what merged ranges show.
func newView(sh *sheet, format statement.Format) (*sheetView, error) {
	if err := checkMergeFill(sh, format); err != nil {
		return nil, err
	}
	var index []int32
	if sh.scan != nil {
		index = make([]int32, len(sh.used))
		for col, used := range sh.used {
			if used {
				index[col] = 1
			}
		}
	} else {
		maxCol := int32(-1)
		for _, r := range sh.Rows {
			maxCol = max(maxCol, r.Cells[len(r.Cells)-1].Col)
		}
		index = make([]int32, maxCol+1)
		for _, r := range sh.Rows {
			for _, c := range r.Cells {
				index[c.Col] = 1
			}
		}
	}
	width := 0
	for i, used := range index {
		if used != 0 {
			index[i] = int32(width)
			width++
		}
	}
	return &sheetView{sh: sh, format: format, index: index, width: width}, nil
}

// rows yields each non-empty row as dense cells, merged ranges filled, with typed[i] set for
// typed cells. The slices are reused from row to row.
func (v *sheetView) rows(yield func(line int, cells []string, typed []bool, anyTyped bool) bool) {
	cells := make([]string, v.width)
	typed := make([]bool, v.width)
	fill := newMergeFill(v.sh.Merges)
	v.sh.each(func(r sheetRow) bool {
		run := fill.apply(r.Line, r.Cells)
		n := int(v.index[run[len(run)-1].Col]) + 1
		clear(cells[:n])
		clear(typed[:n])
		anyTyped := false
		for _, c := range run {
			k := v.index[c.Col]
			cells[k], typed[k] = c.Text, c.Typed
			anyTyped = anyTyped || c.Typed
		}
		return yield(r.Line, cells[:n], typed[:n], anyTyped)
	})
}

// table returns the rows as the table layer reads them.
func (v *sheetView) table() tabular.Table {
	return tabular.Table{Format: v.format, RowsHint: v.sh.rowCount(), Scan: func(yield func(tabular.Row) bool) {
		v.rows(func(line int, cells []string, typed []bool, anyTyped bool) bool {
			r := tabular.Row{Cells: cells, Pos: statement.Position{Sheet: v.sh.Name, Line: line}}
			if anyTyped {
				r.Canonical = typed
			}
			return yield(r)
		})
	}}
}

// maxMerges bounds the merged ranges of a sheet: a statement merges a few per page, a hostile
// file could list millions.
const maxMerges = 1 << 20

// maxMergeFill bounds the cells that merged ranges may fill: Excel forbids overlapping merges,
// so a legitimate sheet fills at most as many cells as it has, but a hostile one could make
// every merge span every row.
const maxMergeFill = 4 << 20

// mergeFill shows each range merged over several rows as a person reading the sheet takes it:
// the value of its top-left cell fills the empty cells of its first column below, so a booking
// date merged down over the day's lines shows on each of them. A range merged across columns
// keeps its value in its first column only, so a description spanning three columns is not
// read three times. A range whose top-left cell is empty shows nothing, and rows wholly empty
// inside a range stay absent: there is no line to show. It fills rows as they pass, in order,
// so that a sheet read again from its file needs no rows held; ranges are taken by their top
// row (Excel forbids overlapping ones).
type mergeFill struct {
	merges []cellRange // over several rows, by top row
	next   int
	active []filling // ranges whose top row has passed, with its value
}

type filling struct {
	m     cellRange
	value cellText
}

func newMergeFill(merges []cellRange) *mergeFill {
	var down []cellRange
	for _, m := range merges {
		if m.Row2 > m.Row1 {
			down = append(down, m)
		}
	}
	sort.SliceStable(down, func(i, j int) bool { return down[i].Row1 < down[j].Row1 })
	return &mergeFill{merges: down}
}

// apply returns the cells of the row numbered line with the merged ranges over it filled; run
// is returned as it is when none fills it.
func (f *mergeFill) apply(line int, run []cellText) []cellText {
	r := line - 1
	if len(f.active) > 0 {
		live := f.active[:0]
		for _, a := range f.active {
			if a.m.Row2 >= r {
				live = append(live, a)
			}
		}
		f.active = live
		for _, a := range f.active {
			k := sort.Search(len(run), func(k int) bool { return run[k].Col >= int32(a.m.Col1) })
			if k < len(run) && run[k].Col == int32(a.m.Col1) {
				continue
			}
			cells := make([]cellText, 0, len(run)+1)
			run = append(append(append(cells, run[:k]...), a.value), run[k:]...)
		}
	}
	for f.next < len(f.merges) && f.merges[f.next].Row1 <= r {
		m := f.merges[f.next]
		f.next++
		if m.Row1 != r {
			continue // its top row is empty: nothing to show
		}
		if value, ok := cellAt(run, m.Col1); ok {
			f.active = append(f.active, filling{m: m, value: value})
		}
	}
	return run
}

// checkMergeFill refuses a sheet whose merged ranges span more than maxMergeFill rows below
// their top ones in all: Excel forbids overlapping merges, so a legitimate sheet fills at most
// as many cells as it has, but a hostile one could make every merge span every row.
func checkMergeFill(sh *sheet, format statement.Format) error {
	if len(sh.Merges) == 0 {
		return nil
	}
	lines := sh.rowLines()
	budget := maxMergeFill
	for _, m := range sh.Merges {
		if m.Row2 <= m.Row1 {
			continue
		}
		// The rows strictly below the top row, within the range.
		lo := sort.Search(len(lines), func(i int) bool { return int(lines[i])-1 > m.Row1 })
		hi := sort.Search(len(lines), func(i int) bool { return int(lines[i])-1 > m.Row2 })
		if budget -= hi - lo; budget < 0 {
			return statement.Errorf(format, statement.ErrResourceLimit, statement.Position{Sheet: sh.Name},
				"the merged cells would fill more than %d cells", maxMergeFill)
		}
	}
	return nil
}

// cellAt returns the cell of column col in a row's cells.
func cellAt(run []cellText, col int) (cellText, bool) {
	k := sort.Search(len(run), func(k int) bool { return run[k].Col >= int32(col) })
	if k < len(run) && run[k].Col == int32(col) {
		return run[k], true
	}
	return cellText{}, false
}

// columnName returns the letters of a 0-based column index: 0 is A, 26 is AA.
func columnName(col int) string {
	var b []byte
	for col++; col > 0; col = (col - 1) / 26 {
		b = append([]byte{byte('A' + (col-1)%26)}, b...)
	}
	return string(b)
}

// parseCellRef reads an A1-style reference ("C12", "$C$12") into a 0-based column and row.
// Either part may be missing (a row reference "12" gives col -1); ok is false when the text is
// no reference or out of Excel's bounds.
func parseCellRef(ref []byte) (col, row int, ok bool) {
	i := 0
	if i < len(ref) && ref[i] == '$' {
		i++
	}
	col = -1
	start := i
	for ; i < len(ref); i++ {
		c := ref[i] | 0x20 // lower case
		if c < 'a' || c > 'z' {
			break
		}
		if i-start >= 3 {
			return 0, 0, false
		}
		col = (col+1)*26 + int(c-'a')
	}
	if col >= maxColumns {
		return 0, 0, false
	}
	if i < len(ref) && ref[i] == '$' {
		i++
	}
	row = -1
	if i < len(ref) {
		n := 0
		for ; i < len(ref); i++ {
			c := ref[i]
			if c < '0' || c > '9' || n > maxExcelRows {
				return 0, 0, false
			}
			n = n*10 + int(c-'0')
		}
		if n < 1 || n > maxExcelRows {
			return 0, 0, false
		}
		row = n - 1
	}
	if col < 0 && row < 0 {
		return 0, 0, false
	}
	return col, row, true
}

// parseRange reads a merged range such as "B3:D4"; a single cell gives a one-cell range.
func parseRange(ref []byte) (cellRange, bool) {
	a, b := ref, ref
	for i, c := range ref {
		if c == ':' {
			a, b = ref[:i], ref[i+1:]
			break
		}
	}
	c1, r1, ok1 := parseCellRef(a)
	c2, r2, ok2 := parseCellRef(b)
	if !ok1 || !ok2 || c1 < 0 || r1 < 0 || c2 < 0 || r2 < 0 {
		return cellRange{}, false
	}
	return cellRange{Row1: min(r1, r2), Col1: min(c1, c2), Row2: max(r1, r2), Col2: max(c1, c2)}, true
}
