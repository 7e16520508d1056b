package excel

import (
	"bytes"
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/statementmatch/service/internal/statement"
)

// This file reads the "Excel export" that is an HTML page: a <table> written by a bank's web
// server and saved with an .xls name, which Excel opens as a sheet, or a plain .html
// statement. Each <table> becomes a sheet of the workbook interface, so its rows go through the
// same view (spacer columns dropped, cells merged down filled) and the same table layer as a
// real workbook's.
//
// What a person sees is what is read: a cell's text with entities decoded, <br> and block
// elements as a space, runs of white space as one, nested markup (<b>, <span>, <a>, <font>)
// kept as its text, and <script> and <style> dropped. A cell spanning columns (colspan)
// advances the column by its span, as the empty cells it covers; one spanning rows (rowspan)
// shows its text in its first column of each row it covers, as a workbook's merged cells are
// filled down. A table nested in a cell is a table of its own: layout tables that frame the
// statement's table hold no text of it.
//
// Banks put the account, the sort code and the period in a small table above the statement's
// table, or in lines of text (<h2>, <p>, <div>, <br>) above it. Excel stacks a page's tables and
// text on one sheet, so a person sees those lines as the rows above the header; each table's
// sheet here starts with up to preambleRows rows of the text and tables that end before it,
// for the table layer to mine as it mines a workbook's preamble. A row's
// Line is its row on the page, counting the rows of every table in document order, as Excel
// numbers them; its Sheet names the table ("table 2").

// Limits of the HTML reader. The input is bounded by the upload limit; these keep what it may
// build from it bounded too.
const (
	// maxHTMLToken bounds one token (a tag with its attributes, or a run of text).
	maxHTMLToken = 4 << 20
	// maxColspan and maxRowspan are the HTML standard's own clamps.
	maxColspan = 1000
	maxRowspan = 65534
	// maxActiveSpans bounds the rowspans open at once; a row-spanning cell past it is read as
	// one row high (its text stays, only the fill down is lost). A statement merges a date or
	// two down over a day's lines; every cell placed looks at each open span.
	maxActiveSpans = 64
	// maxHTMLTables bounds the tables kept as sheets: the largest are kept.
	maxHTMLTables = maxSheets
	// preambleRows bounds the rows of earlier tables put above a table's own.
	preambleRows = 30
)

// htmlBook is an HTML page read as a workbook of one sheet per table with rows, largest first.
type htmlBook struct {
	sheets   []*sheet
	charset  string
	problems []statement.Problem
}

func (b *htmlBook) format() statement.Format { return statement.FormatHTML }
func (b *htmlBook) sheetCount() int          { return len(b.sheets) }
func (b *htmlBook) sheetInfo(i int) (string, bool) {
	return b.sheets[i].Name, false
}
func (b *htmlBook) readSheetAt(i int) (*sheet, error) { return b.sheets[i], nil }
func (b *htmlBook) problemList() []statement.Problem  { return b.problems }
func (b *htmlBook) dialect() string                   { return "html;charset=" + b.charset }

// looksLikeHTML reports whether data is an HTML page with a table, as detection found it (see
// engine.Detect): a <table, <html or <!DOCTYPE html in its first 64 KiB, in any case, after
// decoding a UTF-16 byte-order mark.
func looksLikeHTML(data []byte) bool {
	head, _ := htmlText(data[:min(len(data), 64<<10)])
	l := bytes.ToLower(head)
	return bytes.Contains(l, []byte("<table")) || bytes.Contains(l, []byte("<html")) || bytes.Contains(l, []byte("<!doctype html"))
}

// declaredCharset finds a charset declared in the page's first 4 KiB: a <meta charset=...>,
// a <meta http-equiv="Content-Type" content="...; charset=...">, or an XML prolog's encoding.
var declaredCharset = regexp.MustCompile(`(?i)(?:charset|encoding)\s*=\s*["']?\s*([a-z0-9_.:\-]+)`)

// htmlText returns the page as UTF-8 and the name of the charset it was read in: UTF-8 or
// UTF-16 by a byte-order mark (or UTF-16's NUL pattern), else the charset the page declares,
// else UTF-8 when the bytes are valid UTF-8, else Windows-1252, the charset of the Windows
// servers and Excel versions that write these exports. A page that declares UTF-8 but is not
// valid UTF-8 is read as Windows-1252 too: the declaration is a template's, the bytes are the
// data's.
func htmlText(data []byte) ([]byte, string) {
	var enc encoding.Encoding
	name := ""
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], "utf-8"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		enc, name, data = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le", data[2:]
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc, name, data = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be", data[2:]
	case len(data) >= 4 && data[0] == '<' && data[1] == 0:
		enc, name = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le"
	case len(data) >= 4 && data[0] == 0 && data[1] == '<':
		enc, name = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be"
	}
	if enc == nil {
		if m := declaredCharset.FindSubmatch(data[:min(len(data), 4096)]); m != nil {
			// UTF-16 declared over bytes that are not UTF-16 (no mark, no NULs) is a template's
			// word, not the data's: WHATWG reads it as UTF-8 too.
			if e, n := charset.Lookup(string(m[1])); e != nil && n != "utf-8" && !strings.HasPrefix(n, "utf-16") {
				enc, name = e, n
			}
		}
	}
	if enc == nil {
		if utf8.Valid(data) {
			return data, "utf-8"
		}
		enc, name = charmap.Windows1252, "windows-1252"
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		// Decoders of x/text replace what they cannot map; an error is a broken stream, read
		// as far as it goes rather than refused.
		return out, name
	}
	return out, name
}

// tableBuild is a <table> being read.
type tableBuild struct {
	sh    *sheet
	row   []cellText // the open row's cells
	inRow bool
	line  int // the open row's row on the page, 1-based
	local int // the open row's row in the table, 1-based
	col   int // the next cell's column
	cell  *strings.Builder
	// spans are the rowspans still covering rows below: columns col1..col2 until the table's
	// row last, showing text in col1.
	spans []*rowSpan
	// cells counts the cells placed, stored or not, for the budget.
	cells int
	// start and end order the tables: the page's tag count at <table> and </table>.
	start, end int
}

type rowSpan struct {
	col1, col2  int
	first, last int // the table's rows it covers
	text        string
}

// looseLine is a line of text outside any table, with the page's tag count where it ends.
type looseLine struct {
	row sheetRow
	at  int
}

// htmlReader holds one read of a page.
type htmlReader struct {
	opts  statement.Options
	stack []*tableBuild
	done  []*tableBuild
	// text is the line of text outside tables being read; lines the lines read so far.
	text    strings.Builder
	lines   []looseLine
	rows    int
	pageRow int
	tags    int
	tables  int
	cells   int // non-empty cells read
	filled  int // cells filled down from a rowspan
	skip    int // inside <script>, <style>, <head>'s <title>: text not shown in a table
}

// openHTML reads every table of the page.
func openHTML(data []byte, opts statement.Options) (*htmlBook, error) {
	text, cs := htmlText(data)
	r := &htmlReader{opts: opts}
	if err := r.read(text); err != nil {
		return nil, err
	}
	if len(r.done) == 0 {
		return nil, statement.Errorf(statement.FormatHTML, statement.ErrNotAStatement, statement.Position{},
			"an HTML page without a table")
	}
	// Largest first: the statement is the table of many rows, not the page's layout or its
	// address block; the table layer still says whether a table holds dates and amounts.
	order := append([]*tableBuild(nil), r.done...)
	sort.SliceStable(order, func(i, j int) bool { return len(order[i].sh.Rows) > len(order[j].sh.Rows) })
	order = order[:min(len(order), maxHTMLTables)]
	b := &htmlBook{charset: cs}
	for _, t := range order {
		b.sheets = append(b.sheets, r.withPreamble(t))
	}
	return b, nil
}

// withPreamble returns the table's sheet with the last preambleRows rows of the tables that end
// before it starts put above its own rows. r.done is in the order tables end, and their page
// rows are below the table's, so the rows stay in page order.
func (r *htmlReader) withPreamble(t *tableBuild) *sheet {
	var pre []sheetRow
	for _, d := range r.done {
		if d.end < t.start {
			pre = append(pre, d.sh.Rows...)
		}
	}
	for _, l := range r.lines {
		if l.at <= t.start {
			pre = append(pre, l.row)
		}
	}
	if len(pre) == 0 {
		return t.sh
	}
	sort.SliceStable(pre, func(i, j int) bool { return pre[i].Line < pre[j].Line })
	pre = pre[max(len(pre)-preambleRows, 0):]
	sh := *t.sh
	sh.Rows = append(pre, t.sh.Rows...)
	return &sh
}

func (r *htmlReader) top() *tableBuild {
	if len(r.stack) == 0 {
		return nil
	}
	return r.stack[len(r.stack)-1]
}

func (r *htmlReader) read(text []byte) error {
	z := html.NewTokenizer(bytes.NewReader(text))
	z.SetMaxBuf(maxHTMLToken)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if errors.Is(z.Err(), html.ErrBufferExceeded) {
				return statement.Errorf(statement.FormatHTML, statement.ErrResourceLimit, statement.Position{},
					"an HTML tag or text run longer than %d bytes", maxHTMLToken)
			}
			// The end of the input: tables left open end here, as a browser closes them.
			r.endLine()
			for len(r.stack) > 0 {
				if err := r.endTable(); err != nil {
					return err
				}
			}
			return nil
		case html.TextToken:
			switch t := r.top(); {
			case r.skip > 0:
			case t != nil && t.cell != nil:
				t.cell.Write(z.Text())
			case t == nil && r.text.Len() < maxHTMLToken:
				r.text.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			r.tags++
			name, hasAttr := z.TagName()
			if err := r.start(z, atom.Lookup(name), hasAttr, tt == html.SelfClosingTagToken); err != nil {
				return err
			}
		case html.EndTagToken:
			r.tags++
			name, _ := z.TagName()
			if err := r.end(atom.Lookup(name)); err != nil {
				return err
			}
		}
	}
}

func (r *htmlReader) start(z *html.Tokenizer, a atom.Atom, hasAttr, selfClosing bool) error {
	if len(r.stack) == 0 && lineBreak(a) {
		r.endLine()
	}
	switch a {
	case atom.Script, atom.Style, atom.Title, atom.Template:
		if !selfClosing {
			r.skip++
		}
		return nil
	case atom.Table:
		if len(r.stack) >= r.opts.MaxDepth {
			return statement.Errorf(statement.FormatHTML, statement.ErrResourceLimit, statement.Position{},
				"tables nested more than %d deep", r.opts.MaxDepth)
		}
		r.tables++
		r.stack = append(r.stack, &tableBuild{sh: &sheet{Name: "table " + strconv.Itoa(r.tables)}, start: r.tags})
		return nil
	}
	t := r.top()
	if t == nil {
		return nil
	}
	switch a {
	case atom.Tr:
		if err := r.endRow(t); err != nil {
			return err
		}
		r.openRow(t)
	case atom.Td, atom.Th:
		r.endCell(t)
		if !t.inRow {
			// A cell without a <tr> opens a row, as a browser's parser does.
			r.openRow(t)
		}
		colspan, rowspan := 1, 1
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch string(k) {
			case "colspan":
				colspan = spanValue(v, maxColspan)
			case "rowspan":
				rowspan = spanValue(v, maxRowspan)
			}
		}
		return r.openCell(t, colspan, rowspan)
	case atom.Br, atom.P, atom.Div, atom.Li, atom.Hr:
		if t.cell != nil {
			t.cell.WriteByte(' ')
		}
	}
	return nil
}

func (r *htmlReader) end(a atom.Atom) error {
	if len(r.stack) == 0 && lineBreak(a) {
		r.endLine()
	}
	switch a {
	case atom.Script, atom.Style, atom.Title, atom.Template:
		r.skip = max(r.skip-1, 0)
		return nil
	case atom.Table:
		if len(r.stack) > 0 {
			return r.endTable()
		}
		return nil
	}
	t := r.top()
	if t == nil {
		return nil
	}
	switch a {
	case atom.Td, atom.Th:
		r.endCell(t)
	case atom.Tr:
		return r.endRow(t)
	case atom.P, atom.Div, atom.Li:
		if t.cell != nil {
			t.cell.WriteByte(' ')
		}
	}
	return nil
}

// lineBreak reports whether an element starts or ends a line of text outside tables.
func lineBreak(a atom.Atom) bool {
	switch a {
	case atom.Br, atom.P, atom.Div, atom.Li, atom.Hr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Table, atom.Tr, atom.Td, atom.Th, atom.Body, atom.Pre, atom.Dt, atom.Dd, atom.Section, atom.Header:
		return true
	}
	return false
}

// endLine ends the line of text outside tables, kept as a one-cell row of the page when it
// has text. A "Label: value" line (a label of words, no digits, as a time of day has) is split
// at its colon into two cells, as the label and value cells of an account table are, so the
// table layer mines it the same way.
func (r *htmlReader) endLine() {
	text := statement.CollapseSpace(strings.ReplaceAll(r.text.String(), "\u00a0", " "))
	r.text.Reset()
	if text == "" || len(r.lines) >= r.opts.MaxRows {
		return
	}
	r.pageRow++
	cells := []cellText{{Col: 0, Text: text}}
	if label, value, ok := strings.Cut(text, ":"); ok && strings.TrimSpace(value) != "" && len(label) <= 40 && !strings.ContainsAny(label, "0123456789") {
		cells = []cellText{{Col: 0, Text: strings.TrimSpace(label) + ":"}, {Col: 1, Text: strings.TrimSpace(value)}}
	}
	r.lines = append(r.lines, looseLine{row: sheetRow{Line: r.pageRow, Cells: cells}, at: r.tags})
}

// spanValue reads a colspan or rowspan attribute: a positive integer (leading digits, as
// browsers read "2px"), clamped to limit; anything else, 0 included, is 1.
func spanValue(v []byte, limit int) int {
	n := 0
	v = bytes.TrimSpace(v)
	for _, c := range v {
		if c < '0' || c > '9' {
			break
		}
		n = min(n*10+int(c-'0'), limit)
	}
	return max(n, 1)
}

// openRow starts a row of the table, the next row of the page.
func (r *htmlReader) openRow(t *tableBuild) {
	r.pageRow++
	t.inRow, t.line, t.local, t.col = true, r.pageRow, t.local+1, 0
}

// openCell starts a cell at the first column no rowspan from above covers.
func (r *htmlReader) openCell(t *tableBuild, colspan, rowspan int) error {
	t.col = t.freeColumn(t.col)
	if t.col+colspan > maxColumns {
		colspan = max(maxColumns-t.col, 0)
	}
	// Every cell costs a few bytes of markup at least, so this bounds the work colspan can
	// multiply: a page of "<td colspan=1000>" cells gives as many columns as Excel has, then
	// stops.
	t.cells += colspan
	if t.cells > 64*r.opts.MaxRows {
		return statement.Errorf(statement.FormatHTML, statement.ErrResourceLimit, statement.Position{Sheet: t.sh.Name, Line: t.line},
			"the table has more than %d cells", 64*r.opts.MaxRows)
	}
	if colspan == 0 {
		return nil // beyond Excel's last column: not a cell a sheet could show
	}
	if rowspan > 1 && len(t.spans) < maxActiveSpans {
		t.spans = append(t.spans, &rowSpan{col1: t.col, col2: t.col + colspan - 1, first: t.local, last: t.local + rowspan - 1})
	}
	t.cell = &strings.Builder{}
	t.row = append(t.row, cellText{Col: int32(t.col)})
	t.col += colspan
	return nil
}

// freeColumn returns the first column from col on that no open rowspan covers. The spans are
// disjoint and sorted by column (see endRow), so one pass finds it.
func (t *tableBuild) freeColumn(col int) int {
	for _, s := range t.spans {
		if s.last >= t.local && col >= s.col1 && col <= s.col2 {
			col = s.col2 + 1
		}
	}
	return col
}

// endCell closes the open cell: its text, white space collapsed, is the row's last cell.
func (r *htmlReader) endCell(t *tableBuild) {
	if t.cell == nil {
		return
	}
	text := statement.CollapseSpace(strings.ReplaceAll(t.cell.String(), "\u00a0", " "))
	c := &t.row[len(t.row)-1]
	c.Text = text
	if n := len(t.spans); n > 0 && t.spans[n-1].col1 == int(c.Col) && t.spans[n-1].first == t.local {
		t.spans[n-1].text = text // the span this cell opened shows its text below
	}
	t.cell = nil
}

// endRow closes the open row and keeps its non-empty cells.
func (r *htmlReader) endRow(t *tableBuild) error {
	r.endCell(t)
	if !t.inRow {
		return nil
	}
	t.inRow = false
	cells := t.row[:0]
	for _, c := range t.row {
		if c.Text != "" {
			cells = append(cells, c)
		}
	}
	r.cells += len(cells)
	// A cell spanning down from a row above shows its text in this row too. The copies are
	// bounded by the cells the page holds itself: a page of rowspans on every cell would
	// otherwise make each row as wide as the spans open over it.
	for _, s := range t.spans {
		if s.last >= t.local && s.text != "" && s.first != t.local && r.filled < r.cells {
			cells = append(cells, cellText{Col: int32(s.col1), Text: s.text})
			r.filled++
		}
	}
	// Spans that ended on this row are forgotten, so the list stays as short as what is open.
	spans := t.spans[:0]
	for _, s := range t.spans {
		if s.last > t.local {
			spans = append(spans, s)
		}
	}
	t.spans = spans
	sort.Slice(t.spans, func(i, j int) bool { return t.spans[i].col1 < t.spans[j].col1 })
	if len(cells) > 0 {
		if r.rows++; r.rows > r.opts.MaxRows {
			return statement.Errorf(statement.FormatHTML, statement.ErrTooManyRows, statement.Position{Sheet: t.sh.Name, Line: t.line},
				"the page's tables have more than %d rows", r.opts.MaxRows)
		}
		sort.SliceStable(cells, func(i, j int) bool { return cells[i].Col < cells[j].Col })
		t.sh.Rows = append(t.sh.Rows, sheetRow{Line: t.line, Cells: append([]cellText(nil), cells...)})
	}
	t.row = t.row[:0]
	return nil
}

// endTable closes the innermost table and keeps it when it has rows.
func (r *htmlReader) endTable() error {
	t := r.top()
	if err := r.endRow(t); err != nil {
		return err
	}
	r.stack = r.stack[:len(r.stack)-1]
	t.end = r.tags
	t.spans, t.row = nil, nil
	if len(t.sh.Rows) > 0 {
		r.done = append(r.done, t)
	}
	return nil
}
