package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// gridRow is one row of the rebuilt table: its cells, where it starts in the document, and
// the rebuilt text of the lines it was made of: a table line's cells in the table's columns,
// empty ones included, so a person sees under which header an amount stood.
type gridRow struct {
	cells []string
	pos   statement.Position
	raw   string
	y     float64 // baseline of its last line, to join a wrapped line only to the row above it
	lines int
}

// grid is a statement's table rebuilt from text positions: the lines before the table
// (preamble: bank, account, period), the header, and every later line mapped to the header's
// columns. Repeated headers, page numbers and other running headers and footers are left out.
type grid struct {
	preamble []gridRow
	header   gridRow
	rows     []gridRow
	columns  []column
	// skipped counts lines left out as page decoration, for the dialect.
	skipped int
	// outside is the text of the lines around the table (preamble, page headers and
	// footers), where a statement names its bank.
	outside []string
}

// column is a span of the page that holds one column of the table.
type column struct {
	x0, x1 float64
	title  string
	amount bool // most values are amounts: such columns never take a wrapped line
	date   bool
}

// isHeader reports a line that names columns: at least two cells are column names a statement
// uses, and they are at least half of the line.
func isHeader(l *line) bool {
	if l.header == 0 {
		l.header = 2
		if matchesHeader(l) {
			l.header = 1
		}
	}
	return l.header == 1
}

func matchesHeader(l *line) bool {
	if len(l.cells) < 2 {
		return false
	}
	texts := make([]string, len(l.cells))
	for i, c := range l.cells {
		texts[i] = c.text
	}
	if n := tabular.HeaderMatches(texts); n >= 2 && 2*n >= len(l.cells) {
		return true
	}
	// Header cells set close together merge into one cell ("Date Description"): count words.
	if len(l.words) > len(l.cells) && len(l.words) <= 24 {
		words := make([]string, len(l.words))
		for i, w := range l.words {
			words[i] = w.text
		}
		n := tabular.HeaderMatches(words)
		return n >= 2 && 2*n >= len(words)
	}
	return false
}

// headerKey identifies a repeated header: its cell texts, case-folded.
func headerKey(l *line) string {
	parts := make([]string, len(l.cells))
	for i, c := range l.cells {
		parts[i] = strings.ToLower(strings.Join(strings.Fields(c.text), " "))
	}
	return strings.Join(parts, "|")
}

// rowLike reports a line that looks like a table row: a date or an amount in one of its cells
// besides other text.
func rowLike(l *line) bool {
	if len(l.cells) < 2 {
		return false
	}
	for _, c := range l.cells {
		if looksAmount(c.text) || looksDate(c.text) {
			return true
		}
	}
	return false
}

// chooseHeader returns the header of the transaction table: of the lines that name columns,
// the one followed by the most lines with both a date and an amount before the next such
// line. A summary box ("Account | Currency | Period", "Opening balance | Credits | Debits")
// names columns too, but few dated amounts follow it.
func chooseHeader(pages [][]line) *line {
	var best *line
	bestScore := -1
	scores := map[string]int{}
	first := map[string]*line{}
	var order []string
	active := ""
	for pi := range pages {
		for li := range pages[pi] {
			l := &pages[pi][li]
			if isHeader(l) {
				active = headerKey(l)
				if _, ok := first[active]; !ok {
					first[active] = l
					order = append(order, active)
				}
				continue
			}
			if active != "" && datedAmount(l) {
				scores[active]++
			}
		}
	}
	for _, k := range order {
		if scores[k] > bestScore {
			best, bestScore = first[k], scores[k]
		}
	}
	return best
}

// datedAmount reports a line with a date and an amount in different cells: a transaction.
func datedAmount(l *line) bool {
	date, amount := false, false
	for _, c := range l.cells {
		switch {
		case looksAmount(c.text):
			amount = true
		case looksDate(c.text):
			date = true
		}
	}
	return date && amount
}

// buildGrid rebuilds the statement's table from the lines of all pages.
//
// The header is the line that names the transaction table's columns (chooseHeader). The columns are the spans of the page that
// the header's cells and the cells of row-like lines (a date or an amount) cover: text of
// different columns never overlaps horizontally, so the union of those cells' extents falls
// apart into one interval per column, whether the column is left- or right-aligned. A header
// cell names the interval it lies in; an interval holding two header cells is split between
// them. Every line of the table region is then cut into those columns word by word.
func buildGrid(pages [][]line) *grid {
	g := &grid{}
	// Find the header, then per page where the table starts: after the header or its repeat.
	hdr := chooseHeader(pages)
	key := ""
	if hdr != nil {
		key = headerKey(hdr)
	}
	starts := make([]int, len(pages)) // index of the first table line on each page
	for pi, pg := range pages {
		starts[pi] = -1
		if hdr == nil || pi < hdr.page-1 {
			continue
		}
		for li := range pg {
			if l := &pg[li]; l == hdr || (pi > hdr.page-1 || li > hdr.no-1) && headerKey(l) == key {
				starts[pi] = li + 1
				break
			}
		}
	}
	if hdr == nil {
		// No header: every line is a row of its own cells, for the table reader to judge.
		for _, pg := range pages {
			for li := range pg {
				g.rows = append(g.rows, plainRow(&pg[li]))
			}
		}
		return g
	}
	// Pages after the header's that repeat no header: the table starts below the running
	// page header, at the first row-like line.
	seenHeader := false
	for pi, pg := range pages {
		if starts[pi] >= 0 {
			seenHeader = true
			continue
		}
		if !seenHeader {
			continue
		}
		for li := range pg {
			if rowLike(&pg[li]) {
				starts[pi] = li
				break
			}
		}
	}
	// Table lines end at the last row-like line of the page; what follows is a footer,
	// unless it is a summary the table reader wants (opening/closing balance, totals): those
	// are row-like too, having an amount.
	ends := make([]int, len(pages))
	for pi, pg := range pages {
		ends[pi] = starts[pi]
		if starts[pi] < 0 {
			continue
		}
		for li := starts[pi]; li < len(pg); li++ {
			if rowLike(&pg[li]) {
				ends[pi] = li + 1
			}
		}
		// The last row's wrapped description lines, right under it, belong to the table.
		for li := ends[pi]; li > 0 && li < len(pg); li++ {
			prev, l := &pg[li-1], &pg[li]
			if prev.y-l.y > 2.2*l.size || anyAmount(l) || pageNumber(strings.ToLower(l.text())) {
				break
			}
			ends[pi] = li + 1
		}
	}
	g.columns = findColumns(hdr, pages, starts, ends)
	markColumns(g.columns, pages, starts, ends)
	g.columns = mergeUntitled(g.columns)
	g.header = gridRow{cells: make([]string, len(g.columns)), pos: statement.Position{Page: hdr.page, Line: hdr.no},
		raw: hdr.text(), y: hdr.y, lines: 1}
	for i, c := range g.columns {
		g.header.cells[i] = c.title
	}

	for pi, pg := range pages {
		for li := range pg {
			l := &pg[li]
			inTable := starts[pi] >= 0 && li >= starts[pi] && li < ends[pi]
			switch {
			case l == hdr:
			case pi < hdr.page-1 || pi == hdr.page-1 && li < hdr.no-1:
				g.preamble = append(g.preamble, plainRow(l))
				g.outside = append(g.outside, l.text())
			case !inTable && (starts[pi] < 0 || li < starts[pi]):
				g.skipped++ // a running page header above the table
				g.outside = append(g.outside, l.text())
			case !inTable:
				g.outside = append(g.outside, l.text())
				if decoration(l) {
					g.skipped++
					continue
				}
				// A line after the table that is no page furniture: a summary or notice, kept
				// for the table reader, which knows balance and total labels.
				g.rows = append(g.rows, plainRow(l))
			case headerKey(l) == key:
				g.skipped++ // the header repeated
			default:
				g.addLine(l)
			}
		}
	}
	return g
}

// plainRow is a line as a row of its own cells.
func plainRow(l *line) gridRow {
	cells := make([]string, len(l.cells))
	for i, c := range l.cells {
		cells[i] = c.text
	}
	return gridRow{cells: cells, pos: statement.Position{Page: l.page, Line: l.no}, raw: l.text(), y: l.y, lines: 1}
}

// decoration reports page furniture outside the table: page numbers and "continued" notes.
func decoration(l *line) bool {
	t := strings.ToLower(strings.Join(strings.Fields(l.text()), " "))
	if t == "" {
		return true
	}
	for _, w := range []string{"continued", "fortsetzung", "suite", "vervolg", "ciąg dalej", "continua", "pokračování", "übertrag"} {
		if strings.Contains(t, w) && !anyAmount(l) {
			return true
		}
	}
	return pageNumber(t)
}

func anyAmount(l *line) bool {
	for _, c := range l.cells {
		if looksAmount(c.text) {
			return true
		}
	}
	return false
}

// pageNumber reports "Page 2 of 5", "Seite 2 von 5", "2/5", "- 2 -", "Strona 2 z 5".
func pageNumber(t string) bool {
	f := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '/' || r == '-' || r == '|' })
	if len(f) == 0 || len(f) > 5 {
		return false
	}
	digits := 0
	for _, w := range f {
		switch {
		case isDigits(w):
			digits++
		case w == "page" || w == "seite" || w == "strona" || w == "pagina" || w == "página" || w == "of" ||
			w == "von" || w == "z" || w == "de" || w == "di" || w == "sur" || w == "van" || w == "blatt" ||
			w == "strana" || w == "side" || w == "sida" || w == "av" || w == "p." || w == "pg":
		default:
			return false
		}
	}
	return digits >= 1 && digits <= 2
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// findColumns computes the column spans (see buildGrid).
func findColumns(hdr *line, pages [][]line, starts, ends []int) []column {
	type span struct{ x0, x1 float64 }
	var spans []span
	for _, c := range hdr.cells {
		spans = append(spans, span{c.x0, c.x1})
	}
	for pi, pg := range pages {
		if starts[pi] < 0 {
			continue
		}
		for li := starts[pi]; li < ends[pi]; li++ {
			// Rows with an amount: a date alone may be a note ("Printed on 01.04.2024").
			if !rowLike(&pg[li]) || !anyAmount(&pg[li]) {
				continue
			}
			for _, c := range pg[li].cells {
				spans = append(spans, span{c.x0, c.x1})
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].x0 < spans[j].x0 })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.x0 <= merged[n-1].x1+0.5 {
			merged[n-1].x1 = math.Max(merged[n-1].x1, s.x1)
			continue
		}
		merged = append(merged, s)
	}
	// Name the intervals by the header text above them. A header cell spanning several
	// intervals (header words set closer than the columns' values) is cut into its words by
	// interval first; an interval holding pieces of two header cells is split between them.
	type piece struct {
		text   string
		x0, x1 float64
	}
	pieces := make([][]piece, len(merged))
	for _, c := range hdr.cells {
		last := -1
		for wi := c.first; wi < c.last; wi++ {
			w := hdr.words[wi]
			mi := nearestSpan(merged, (w.x0+w.x1)/2, func(s span) (float64, float64) { return s.x0, s.x1 })
			if mi == last {
				p := &pieces[mi][len(pieces[mi])-1]
				p.text += " " + w.text
				p.x1 = w.x1
				continue
			}
			pieces[mi] = append(pieces[mi], piece{text: w.text, x0: w.x0, x1: w.x1})
			last = mi
		}
	}
	var cols []column
	for mi, m := range merged {
		inside := pieces[mi]
		if len(inside) <= 1 {
			c := column{x0: m.x0, x1: m.x1}
			if len(inside) == 1 {
				c.title = inside[0].text
			}
			cols = append(cols, c)
			continue
		}
		x0 := m.x0
		for k, h := range inside {
			x1 := m.x1
			if k+1 < len(inside) {
				x1 = (h.x1 + inside[k+1].x0) / 2
			}
			cols = append(cols, column{x0: x0, x1: x1, title: h.text})
			x0 = x1
		}
	}
	return cols
}

// mergeUntitled joins a column without a header cell that holds neither amounts nor dates to
// the text column beside it (the left one first): such a column is a description written with
// a wide gap ("Card payment   Shop 1"), which would otherwise fall apart, and lose its second
// half, since the table reader gives a column without a name no role.
func mergeUntitled(cols []column) []column {
	text := func(c column) bool { return !c.amount && !c.date }
	for i := 0; i < len(cols); i++ {
		c := cols[i]
		if c.title != "" || !text(c) {
			continue
		}
		switch {
		case i > 0 && text(cols[i-1]):
			cols[i-1].x1 = c.x1
		case i+1 < len(cols) && text(cols[i+1]):
			cols[i+1].x0 = c.x0
		default:
			continue
		}
		cols = append(cols[:i], cols[i+1:]...)
		i--
	}
	return cols
}

// markColumns flags the columns that hold amounts or dates in most table lines.
func markColumns(cols []column, pages [][]line, starts, ends []int) {
	n := make([]int, len(cols))
	amounts := make([]int, len(cols))
	dates := make([]int, len(cols))
	for pi, pg := range pages {
		if starts[pi] < 0 {
			continue
		}
		for li := starts[pi]; li < ends[pi]; li++ {
			for ci, text := range splitColumns(&pg[li], cols) {
				if text == "" {
					continue
				}
				n[ci]++
				if looksAmount(text) {
					amounts[ci]++
				}
				if looksDate(text) {
					dates[ci]++
				}
			}
		}
	}
	for i := range cols {
		cols[i].amount = n[i] > 0 && 10*amounts[i] >= 6*n[i]
		cols[i].date = n[i] > 0 && 10*dates[i] >= 6*n[i]
	}
}

// splitColumns cuts a line into the columns: each word goes to the column its middle lies in
// (or the nearest one), words of one column are joined as the line's cells joined them.
func splitColumns(l *line, cols []column) []string {
	out := make([]string, len(cols))
	for _, c := range l.cells {
		for wi := c.first; wi < c.last; wi++ {
			w := l.words[wi]
			ci := columnAt(cols, (w.x0+w.x1)/2)
			if out[ci] != "" {
				if wi > c.first && w.x0-l.words[wi-1].x1 <= joinGap(l.words[wi-1], w) && columnAt(cols, (l.words[wi-1].x0+l.words[wi-1].x1)/2) == ci {
					out[ci] += w.text
					continue
				}
				out[ci] += " "
			}
			out[ci] += w.text
		}
	}
	return out
}

// columnAt returns the column holding x, or the nearest.
func columnAt(cols []column, x float64) int {
	return nearestSpan(cols, x, func(c column) (float64, float64) { return c.x0, c.x1 })
}

// nearestSpan returns the index of the span holding x, or of the nearest one.
func nearestSpan[T any](spans []T, x float64, bounds func(T) (float64, float64)) int {
	best, dist := 0, math.Inf(1)
	for i, s := range spans {
		x0, x1 := bounds(s)
		if x >= x0 && x <= x1 {
			return i
		}
		d := math.Min(math.Abs(x-x0), math.Abs(x-x1))
		if d < dist {
			best, dist = i, d
		}
	}
	return best
}

// addLine adds a table line: a new row, or the continuation of the row above when it holds
// text only outside the amount and date columns and sits right under it on the same page (a
// description wrapped onto a second line).
func (g *grid) addLine(l *line) {
	cells := splitColumns(l, g.columns)
	if n := len(g.rows); n > 0 && g.continues(&g.rows[n-1], l, cells) {
		r := &g.rows[n-1]
		for i, t := range cells {
			if t == "" {
				continue
			}
			if r.cells[i] != "" {
				r.cells[i] += " "
			}
			r.cells[i] += t
		}
		r.raw += "\n" + l.text()
		r.y = l.y
		r.lines++
		return
	}
	g.rows = append(g.rows, gridRow{cells: cells, pos: statement.Position{Page: l.page, Line: l.no},
		raw: strings.Join(cells, " | "), y: l.y, lines: 1})
}

func (g *grid) continues(prev *gridRow, l *line, cells []string) bool {
	if prev.pos.Page != l.page || len(prev.cells) != len(cells) || prev.lines >= 20 {
		return false
	}
	if prev.y-l.y > 2.2*l.size || prev.y <= l.y {
		return false
	}
	text := false
	for i, t := range cells {
		if t == "" {
			continue
		}
		if g.columns[i].amount || g.columns[i].date || looksAmount(t) || looksDate(t) {
			return false
		}
		text = true
	}
	return text && rowHasValue(g, prev)
}

// rowHasValue reports a row with an amount or a date: a transaction, which a wrapped line can
// belong to (not a notice line, which stands on its own).
func rowHasValue(g *grid, r *gridRow) bool {
	for i, t := range r.cells {
		if t != "" && (g.columns[i].amount || g.columns[i].date) {
			return true
		}
	}
	return false
}

// looksAmount reports text that reads as an amount: digits with thousands separators and
// two or three decimals, an optional sign, currency symbol or code, or a trailing sign or
// CR/DR. It is the layout's test, used to find columns; the table reader parses the values.
func looksAmount(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return false
	}
	s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, " CR"), " DR"), " Cr")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "CR"), "DR")
	s = strings.Trim(s, "()+-−€$£¥ \u00a0")
	if len(s) > 4 && s[len(s)-4] == ' ' && isUpperWord(s[len(s)-3:]) {
		s = strings.TrimSpace(s[:len(s)-4])
	}
	if len(s) > 4 && s[3] == ' ' && isUpperWord(s[:3]) {
		s = strings.TrimSpace(s[4:])
	}
	s = strings.Trim(s, "+-−")
	if len(s) < 3 {
		return false
	}
	// Decimal part: the last separator followed by exactly 2 (or 3) digits.
	last := strings.LastIndexAny(s, ".,")
	if last < 1 || len(s)-last-1 < 2 || len(s)-last-1 > 3 {
		return false
	}
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r == '.' || r == ',' || r == '\'' || r == ' ' || r == '\u00a0' || r == '\u202f') && i > 0:
		default:
			return false
		}
	}
	return digits >= 3
}

func isUpperWord(s string) bool {
	for _, r := range s {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return s != ""
}

// looksDate reports text that starts like a date: 31.12.2024, 12/31/24, 2024-12-31,
// 31 Dec 2024, 31-DEC-24, Dec 31.
func looksDate(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 5 {
		return false
	}
	f := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '/' || r == '-' || r == ' ' || r == ',' })
	if len(f) < 2 {
		return false
	}
	n, alpha := 0, 0
	for _, p := range f[:min(3, len(f))] {
		switch {
		case isDigits(p) && (len(p) <= 2 || len(p) == 4):
			n++
		case len(p) >= 3 && len(p) <= 9 && isLetters(p):
			alpha++
		default:
			return false
		}
	}
	if alpha > 1 || n < 1 || (alpha == 0 && n < 2) || n+alpha < 2 {
		return false
	}
	// Two bare numbers must be a day and month (not an amount like 12.50 written as 12 50).
	return strings.ContainsAny(s[:min(len(s), 12)], "./- ") && !looksAmount(s)
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// maxPreamble bounds the lines before the header handed to the table reader, which looks for
// the header among the first rows: the lines that can hold a label and its value (a colon,
// or two cells) are kept, the first and the last of them when there are too many.
const maxPreamble = 40

// table returns the grid as the table reader's rows: preamble, header, rows.
func (g *grid) table() []tabular.Row {
	pre := g.preamble
	if len(pre) > maxPreamble {
		var kept []gridRow
		for _, r := range pre {
			if len(r.cells) >= 2 || strings.Contains(r.raw, ":") {
				kept = append(kept, r)
			}
		}
		if len(kept) > maxPreamble {
			kept = append(kept[:maxPreamble/2:maxPreamble/2], kept[len(kept)-maxPreamble/2:]...)
		}
		pre = kept
	}
	out := make([]tabular.Row, 0, len(pre)+1+len(g.rows))
	add := func(r gridRow) {
		out = append(out, tabular.Row{Cells: r.cells, Pos: r.pos, Raw: r.raw})
	}
	for _, r := range pre {
		add(r)
	}
	if g.columns != nil {
		add(g.header)
	}
	for _, r := range g.rows {
		add(r)
	}
	return out
}
