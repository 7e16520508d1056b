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
	// span is where the row's lines stand on the page: [x0, bottom, x1, top] in the display
	// space of its words, y up; zero when unknown.
	span [4]float64
}

// lineSpan is where a line's words stand: from the left of the first to the right of the last,
// from below the baseline (descenders) to above it (capitals), [x0, bottom, x1, top].
func lineSpan(l *line) [4]float64 {
	if len(l.words) == 0 {
		return [4]float64{}
	}
	sp := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, w := range l.words {
		sp[0], sp[2] = math.Min(sp[0], w.x0), math.Max(sp[2], w.x1)
		sp[1], sp[3] = math.Min(sp[1], w.y-0.25*w.size), math.Max(sp[3], w.y+0.8*w.size)
	}
	return sp
}

// union is the span of two spans; a zero one counts for nothing.
func union(a, b [4]float64) [4]float64 {
	switch {
	case a == [4]float64{}:
		return b
	case b == [4]float64{}:
		return a
	}
	return [4]float64{math.Min(a[0], b[0]), math.Min(a[1], b[1]), math.Max(a[2], b[2]), math.Max(a[3], b[3])}
}

// grid is a statement's table rebuilt from text positions: the lines before the table
// (preamble: bank, account, period), the header, and every later line mapped to the header's
// columns. Repeated headers, page numbers and other running headers and footers are left out.
type grid struct {
	preamble []gridRow
	header   gridRow
	rows     rowList
	columns  []column
	// skipped counts lines left out as page decoration, for the dialect.
	skipped int
	// frames are the pages' frames in the display space of their words, [x0, y0, x1, y1],
	// for the rows' boxes; none when unknown.
	frames [][4]float64
	// outside is the text of the lines around the table (preamble, page headers and
	// footers), where a statement names its bank and its period.
	outside []string
	// roles are the main columns' roles as the table reader names them ("date", "amount").
	roles []string
	// card: a credit card statement, whose plain amounts are charges.
	card bool
	// pending are lines of text waiting for the row they belong to (addLine).
	pending []pendingLine
}

// column is a span of the page that holds one column of the table.
type column struct {
	x0, x1 float64
	title  string
	amount bool // most values are amounts: such columns never take a wrapped line
	date   bool
	values int // lines with text in the column
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
	for _, c := range l.cells {
		if c.amount || c.date {
			return false // a row, as most lines are: headers hold names, not values
		}
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

// rowLike reports a line that looks like a table row: a date (or the first part of one
// wrapped in a narrow column) or an amount in one of its cells besides other text.
func rowLike(l *line) bool {
	if len(l.cells) < 2 {
		return false
	}
	for _, c := range l.cells {
		if c.amount || c.date || partialDate(c.text) {
			return true
		}
	}
	return false
}

// partialDate reports the first part of a numeric date cut by a narrow column: "02-",
// "02-04-", "31/12/".
func partialDate(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || len(s) > 6 || !strings.ContainsAny(s[len(s)-1:], "-/.") {
		return false
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) == 0 || len(parts) > 2 {
		return false
	}
	for _, p := range parts {
		if len(p) > 2 || !isDigits(p) {
			return false
		}
	}
	return true
}

// headerChoice chooses the header of the transaction table, page by page: of the lines that
// name columns, the one followed by the most lines with both a date and an amount before the
// next such line. A summary box ("Account | Currency | Period", "Opening balance | Credits |
// Debits") names columns too, but few dated amounts follow it.
type headerChoice struct {
	scores map[string]int
	first  map[string]*line
	order  []string
	active string
}

func (h *headerChoice) add(pg []line) {
	if h.first == nil {
		h.scores, h.first = map[string]int{}, map[string]*line{}
	}
	for li := range pg {
		l := &pg[li]
		if isTxHeader(l) {
			h.active = headerKey(l)
			if _, ok := h.first[h.active]; !ok {
				h.first[h.active] = l
				h.order = append(h.order, h.active)
			}
			continue
		}
		if h.active != "" && datedAmount(l) {
			h.scores[h.active]++
		}
	}
}

// chosen returns the header chosen and the first header of a transaction table; nil and nil
// when no line names a transaction table's columns.
func (h *headerChoice) chosen() (best, first *line) {
	bestScore := -1
	for _, k := range h.order {
		if h.scores[k] > bestScore {
			best, bestScore = h.first[k], h.scores[k]
		}
	}
	if len(h.order) > 0 {
		first = h.first[h.order[0]]
	}
	return best, first
}

// datedAmount reports a line with a date and an amount in different cells: a transaction.
func datedAmount(l *line) bool {
	date, amount := false, false
	for _, c := range l.cells {
		switch {
		case c.amount:
			amount = true
		case c.date:
			date = true
		}
	}
	return date && amount
}

// buildGrid rebuilds the statement's table from the lines of all pages.
//
// A statement prints one or several tables: one per section (deposits, checks paid,
// withdrawals), or one that runs over pages with its header repeated. Each line that names
// the columns of a transaction table (a date and money among its names) starts a block that
// runs until the next such header; blocks under the same header share their columns. The
// columns of a header are the spans of the page that the header's cells and the cells of its
// row-like lines (a date or an amount) cover: text of different columns never overlaps
// horizontally, so the union of those cells' extents falls apart into one interval per
// column, whether the column is left- or right-aligned. A header cell names the interval it
// lies in; an interval holding two header cells is split between them.
//
// The main header (headerChoice) gives the table handed to the table reader its columns;
// other headers' columns are put under the main column of the same role (date, amount,
// balance, ...), text without a counterpart under the description. A section title above a
// table ("DEPOSITS AND ADDITIONS", "CHECKS PAID", "Paid out") gives the sign of its unsigned
// amounts; a table of daily balances, or one without dates, is no transaction table.
//
// buildGrid consumes pages: it reads them page by page, several times over (a packed page is
// unpacked each time), keeping nothing of a page but where a line is (its page and number) and
// the few header lines; once a page's rows are in the grid it releases the page, so that the
// largest statements hold the lines of every page and the grid together only at the start.
func buildGrid(pages *pageStore) *grid {
	g := &grid{}
	pages.mergeHeaders()
	// A first reading of the pages finds the header, whether the statement is a card's, and
	// the page furniture.
	var choice headerChoice
	var card cardPhrases
	var furn furnitureFinder
	for pi := range pages.len() {
		pg := pages.page(pi)
		choice.add(pg)
		card.add(pg)
		furn.add(pi, pg)
	}
	hdr, first := choice.chosen()
	furniture := furn.set(pages.len())
	if hdr == nil {
		if g.headerless(pages, furniture) {
			return g
		}
		// No table at all: every line is a row of its own cells, for the table reader to
		// judge.
		for pi := range pages.len() {
			pg := pages.page(pi)
			for li := range pg {
				g.rows.add(plainRow(&pg[li]))
			}
			pages.release(pi)
		}
		return g
	}
	g.card = card.card()

	// A second reading finds where each page's table region starts and ends, and the blocks:
	// every table line under the header in force, by header key. On the page of the first
	// transaction header the region starts there; on later pages at the first header or
	// row-like line (what is above is a running page header); it ends at the last row-like
	// line, with the wrapped description lines right under it.
	starts := make([]int, pages.len())
	ends := make([]int, pages.len())
	inRegion := func(pi, li int) bool { return starts[pi] >= 0 && li >= starts[pi] && li < ends[pi] }
	tables := map[string]*table{}
	var members []member // every table's lines, in the document's order
	var cur *table
	for pi := range pages.len() {
		starts[pi], ends[pi] = -1, -1
		if pi < first.page-1 {
			continue
		}
		pg := pages.page(pi)
		starts[pi], ends[pi] = region(pg, pi, first, furniture)
		for li := range pg {
			l := &pg[li]
			if !inRegion(pi, li) {
				continue
			}
			if isHeader(l) {
				cur = nil
				if isTxHeader(l) {
					k := headerKey(l)
					if tables[k] == nil {
						tables[k] = &table{hdr: l}
					}
					cur = tables[k]
				}
				continue
			}
			if cur != nil {
				members = append(members, member{page: int32(pi), line: int32(li), t: cur})
				if rowLike(l) && anyAmount(l) {
					cur.addSpans(l)
				}
			}
		}
	}
	for _, t := range tables {
		t.cols = findColumns(t.hdr, t.spans)
		t.spans, t.seen = nil, nil
	}
	tallyColumns(pages, members)
	for _, t := range tables {
		t.cols = adoptTitles(t.cols)
		t.cols = mergeUntitled(t.cols)
		t.roles = make([]string, len(t.cols))
		for i, c := range t.cols {
			t.roles[i] = tabular.HeaderRole(c.title)
		}
	}
	main := tables[headerKey(hdr)]
	g.columns = main.cols
	g.roles = main.roles
	for _, t := range tables {
		t.toMain = g.mapColumns(t, t == main)
	}
	g.header = gridRow{cells: make([]string, len(g.columns)), pos: statement.Position{Page: hdr.page, Line: hdr.no},
		raw: hdr.text(), y: hdr.y, lines: 1}
	for i, c := range g.columns {
		g.header.cells[i] = c.title
	}

	cur = nil
	section := sectionNone
	// last is the table of the last header; underOther is set below a header of no
	// transaction table (a summary box, daily balances) until the next section or header.
	var last *table
	underOther := false
	var other *line // the header of that other table
	for pi := range pages.len() {
		pg := pages.page(pi)
		for li := range pg {
			l := &pg[li]
			switch {
			case pi < first.page-1 || pi == first.page-1 && li < first.no-1:
				g.preamble = append(g.preamble, plainRow(l))
				g.outside = append(g.outside, l.text())
				if k := sectionOf(l); k != sectionNone {
					section = k
				}
			case furniture.has(l) && !(pi < first.page-1 || pi == first.page-1 && li < first.no-1):
				g.skipped++ // a running header or footer, printed on every page
				g.outside = append(g.outside, l.text())
			case !inRegion(pi, li) && (starts[pi] < 0 || li < starts[pi]):
				g.skipped++ // a running page header above the table
				g.outside = append(g.outside, l.text())
			case !inRegion(pi, li):
				g.outside = append(g.outside, l.text())
				if decoration(l) {
					g.skipped++
					continue
				}
				// A line after the table that is no page furniture: a summary, kept for the
				// table reader, which knows balance and total labels. Prose (a notice, a
				// disclaimer) says nothing the reader could use.
				if anyAmount(l) {
					g.rows.add(plainRow(l))
				}
			case isHeader(l):
				if !samePlace(l, hdr) {
					g.skipped++
				}
				cur, underOther = nil, false
				if isTxHeader(l) {
					cur = tables[headerKey(l)]
					last = cur
				} else {
					underOther, other = true, l
					g.outside = append(g.outside, l.text())
				}
			case cur == nil && last != nil && !(underOther && headerHasDate(other)) && section != sectionSkip && datedAmount(l):
				// A section without a header of its own: its rows go on in the last table's
				// columns.
				cur = last
				g.addLine(l, cur, section)
				continue
			case cur == nil || section == sectionSkip:
				// Lines of a table that holds no transactions (daily balances, a summary box),
				// or text between tables: a section title, prose.
				g.outside = append(g.outside, l.text())
				if k := sectionOf(l); k != sectionNone {
					section, underOther = k, false
					g.skipped++
					continue
				}
				switch {
				case underOther && other != nil && anyAmount(l) && !datedAmount(l):
					// A summary laid out as a table: names over values ("Opening Balance |
					// Debits | Credits | Closing Bal" over the amounts). Each value goes with
					// the name above it, as a row the table reader knows by its label.
					g.rows.add(labelledValues(other, l)...)
				case cur == nil && anyAmount(l) && !datedAmount(l):
					g.rows.add(plainRow(l)) // a balance or total between tables
				default:
					g.skipped++
				}
			default:
				if k := sectionOf(l); k != sectionNone {
					// A new section: the table above has ended; text before the next header
					// (a notice about the section) is no part of it.
					section, last, cur = k, cur, nil
					g.skipped++
					g.outside = append(g.outside, l.text())
					continue
				}
				g.addLine(l, cur, section)
				continue
			}
			g.flush()
		}
		g.flush()
		pages.release(pi) // read: the largest statements need not hold every page's lines at once
	}
	return g
}

// region returns where the table region of page pi (0-based) starts and ends, as line indices
// [start, end); -1 and -1 when the page has none. first is the first transaction header.
func region(pg []line, pi int, first *line, furniture furnitureSet) (start, end int) {
	start = -1
	for li := range pg {
		l := &pg[li]
		if (pi == first.page-1 && samePlace(l, first)) || (pi > first.page-1 && (isHeader(l) || rowLike(l))) {
			start = li
			break
		}
	}
	if start < 0 {
		return -1, -1
	}
	end = start + 1
	for li := start; li < len(pg); li++ {
		if rowLike(&pg[li]) || isHeader(&pg[li]) {
			end = li + 1
		}
	}
	for li := end; li > 0 && li < len(pg); li++ {
		prev, l := &pg[li-1], &pg[li]
		if prev.y-l.y > 2.2*l.size || anyAmount(l) || pageNumber(strings.ToLower(l.text())) || furniture.has(l) {
			break
		}
		end = li + 1
	}
	return start, end
}

// samePlace reports whether two lines are the same line of the document: its page and
// number, since a packed page unpacked twice gives two copies of each line.
func samePlace(a, b *line) bool { return a.page == b.page && a.no == b.no }

// furnitureFinder finds, page by page, the lines printed at the same place with the same text
// on several pages, other than table headers and rows: running headers and footers, which a
// page can print inside the table's area (a footer right under the last row).
type furnitureFinder struct {
	cands []furnitureCandidate
	seen  map[furnitureKey]int // -> last page it was seen on
	count map[furnitureKey]int
	texts map[string]int
}

type furnitureKey struct {
	text string
	y    int
}

// furnitureCandidate is a line that may be furniture.
type furnitureCandidate struct {
	page, no int
	k        furnitureKey
	below    bool // below the page's last row-like line
}

// add reads page pi (0-based).
func (f *furnitureFinder) add(pi int, pg []line) {
	if f.seen == nil {
		f.seen, f.count, f.texts = map[furnitureKey]int{}, map[furnitureKey]int{}, map[string]int{}
	}
	// Furniture stands outside the band of a page's rows: above its first row-like line or
	// below its last. (Inside, two pages can hold the same wrapped description at the same
	// height.)
	first, last := len(pg), -1
	for li := range pg {
		if rowLike(&pg[li]) {
			first, last = min(first, li), li
		}
	}
	seenText := map[string]bool{}
	for li := range pg {
		l := &pg[li]
		if li >= first && li <= last || isHeader(l) {
			continue
		}
		t := l.text()
		if t == "" {
			continue
		}
		ft := furnitureText(t)
		k := furnitureKey{ft, int(math.Round(l.y / 3))}
		f.cands = append(f.cands, furnitureCandidate{page: l.page, no: l.no, k: k, below: li > last})
		if p, ok := f.seen[k]; !ok || p != pi {
			f.count[k]++
			f.seen[k] = pi
		}
		// A footer that follows the content stands higher on a shorter last page: a sentence
		// of five words or more, repeated below the last row of several pages.
		if li > last && len(strings.Fields(ft)) >= 5 && !seenText[ft] {
			seenText[ft] = true
			f.texts[ft]++
		}
	}
}

// set returns the furniture of a document of n pages read: none with fewer than two.
func (f *furnitureFinder) set(n int) furnitureSet {
	if n < 2 {
		return nil
	}
	out := furnitureSet{}
	for _, c := range f.cands {
		if f.count[c.k] >= 2 || (c.below && f.texts[c.k.text] >= 2) {
			out[[2]int{c.page, c.no}] = true
		}
	}
	return out
}

// furnitureSet holds the page furniture's lines by page and line number: pointers would keep
// every page's lines alive while the grid lets go of them page by page.
type furnitureSet map[[2]int]bool

func (f furnitureSet) has(l *line) bool { return f[[2]int{l.page, l.no}] }

// furnitureText is a line's text with its numbers blanked: a running footer says "Page 1",
// then "Page 2".
func furnitureText(t string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '#'
		}
		return r
	}, t)
}

// mergeHeaderLines joins the lines of a header set on two or three lines ("Rente-" over
// "datum", "Txn" over "Date", "Completion" over nothing over "Time") into the line that names
// the columns. The lines right above and below a header qualify when they are of the same
// size, hold no value, no section title and no more words than the header has cells and two
// (a notice under the header is prose), and their words stand within the header's width. The
// words of all qualifying lines are grouped by the horizontal space they cover, each group
// becoming one header cell read top to bottom ("Boek-" "datum" is "Boekdatum"), and the
// other lines are emptied so nothing else reads them.
// spansColumns reports whether a cell of line o (up to right, the header's last named column)
// stands over two of the header's cells: a header set over two lines has each piece under its
// column, while a title above the table ("Your transactions") runs across columns.
func spansColumns(o, h *line, right float64) bool {
	for _, c := range o.cells {
		if c.x0 > right {
			continue
		}
		under := 0
		for _, hc := range h.cells {
			if c.x0 < hc.x1 && c.x1 > hc.x0 {
				under++
			}
		}
		if under > 1 {
			return true
		}
	}
	return false
}

func mergeHeaderLines(pg []line) {
	for li := range pg {
		h := &pg[li]
		if !isHeader(h) || len(h.words) == 0 {
			continue
		}
		left, right := math.Inf(1), math.Inf(-1)
		for _, c := range h.cells {
			left = math.Min(left, c.x0)
			if tabular.HeaderRole(c.text) != "" {
				right = math.Max(right, c.x1)
			}
		}
		var extra []*line
		for _, k := range []int{li - 1, li + 1} {
			if k < 0 || k >= len(pg) {
				continue
			}
			o := &pg[k]
			// A section title ("Withdrawals") stands apart above its table; the same word set
			// tight against the header line is the first line of a header cell ("Withdrawal"
			// over "Amt.").
			section := sectionOf(o) != sectionNone && math.Abs(o.y-h.y) > 0.9*h.size
			if len(o.words) == 0 || isTxHeader(o) || rowLike(o) || anyAmount(o) || section ||
				math.Abs(o.y-h.y) > 1.8*h.size || math.Abs(o.size-h.size) > 0.2*h.size || len(o.words) > len(h.cells)+2 {
				continue
			}
			ok := !spansColumns(o, h, right)
			for _, w := range o.words {
				if w.x0 > right+2*h.size {
					continue // a notice beside the table, which shares the line
				}
				if w.x1 < left-2*h.size || looksDate(w.text) || looksAmount(w.text) {
					ok = false
					break
				}
			}
			if ok {
				extra = append(extra, o)
			}
		}
		if len(extra) == 0 {
			continue
		}
		// The header's own words beyond its width (a notice beside it) stay as they are.
		type piece struct {
			text       string
			x0, x1, y  float64
			size, spce float64
		}
		var ps []piece
		for _, l := range append([]*line{h}, extra...) {
			for _, c := range l.cells {
				if l != h && c.x0 > right+2*h.size {
					continue
				}
				ps = append(ps, piece{text: c.text, x0: c.x0, x1: c.x1, y: l.y, size: l.size, spce: l.words[c.first].space})
			}
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].x0 < ps[j].x0 })
		var groups [][]piece
		gx1 := math.Inf(-1)
		for _, p := range ps {
			if n := len(groups); n > 0 && p.x0 <= gx1+0.3*h.size {
				groups[n-1] = append(groups[n-1], p)
				gx1 = math.Max(gx1, p.x1)
				continue
			}
			groups = append(groups, []piece{p})
			gx1 = p.x1
		}
		words := make([]run, 0, len(groups))
		cells := make([]cell, 0, len(groups))
		for _, g := range groups {
			sort.SliceStable(g, func(i, j int) bool { return g[i].y > g[j].y })
			var b strings.Builder
			x0, x1 := math.Inf(1), math.Inf(-1)
			for i, p := range g {
				if i > 0 && !strings.HasSuffix(b.String(), "-") {
					b.WriteByte(' ')
				}
				if i > 0 && strings.HasSuffix(b.String(), "-") {
					// "Boek-" over "datum": the word was hyphenated to fit the column.
					str := strings.TrimSuffix(b.String(), "-")
					b.Reset()
					b.WriteString(str)
				}
				b.WriteString(p.text)
				x0, x1 = math.Min(x0, p.x0), math.Max(x1, p.x1)
			}
			words = append(words, run{text: b.String(), x0: x0, x1: x1, y: h.y, size: h.size, space: g[0].spce})
			cells = append(cells, cell{text: b.String(), x0: x0, x1: x1, first: int32(len(words) - 1), last: int32(len(words))})
		}
		h.words, h.cells, h.header = words, cells, 0 // named anew
		for _, o := range extra {
			o.words, o.cells, o.header = nil, nil, 2
		}
	}
}

// headerless rebuilds a table that prints no header its columns could be named by (or one
// whose names no language here knows): the columns are found from the lines with a date and
// an amount alone, and the table reader gives them roles by what they hold. It reports false
// when fewer than three such lines make no table.
func (g *grid) headerless(pages *pageStore, furniture furnitureSet) bool {
	t := &table{hdr: &line{}}
	var dated []member
	var first *line
	for pi := range pages.len() {
		pg := pages.page(pi)
		for li := range pg {
			if l := &pg[li]; datedAmount(l) {
				dated = append(dated, member{page: int32(pi), line: int32(li), t: t})
				t.addSpans(l)
				if first == nil {
					first = l
				}
			}
		}
	}
	if len(dated) < 3 {
		return false
	}
	t.cols = findColumns(t.hdr, t.spans)
	t.spans, t.seen = nil, nil
	tallyColumns(pages, dated)
	t.cols = mergeUntitled(t.cols)
	t.toMain = make([]int, len(t.cols))
	for i := range t.toMain {
		t.toMain[i] = i
	}
	g.columns, g.roles = t.cols, make([]string, len(t.cols))
	g.header = gridRow{cells: make([]string, len(g.columns)), pos: statement.Position{Page: first.page, Line: first.no}}
	var labelled []gridRow
	for pi := range pages.len() {
		pg := pages.page(pi)
		last := -1
		for li := range pg {
			if rowLike(&pg[li]) {
				last = li
			}
		}
		for li := range pg {
			l := &pg[li]
			switch {
			case pi < first.page-1 || pi == first.page-1 && li < first.no-1:
				// Without a header the table reader finds the columns' roles from the rows'
				// values, which lines of prose above would blur: the lines before the table
				// are text around it, and those with an amount (balances, totals) follow the
				// table as labelled rows.
				g.outside = append(g.outside, l.text())
				if anyAmount(l) {
					labelled = append(labelled, plainRow(l))
				}
			case furniture.has(l) || li > last+2 || decoration(l):
				g.skipped++
				g.outside = append(g.outside, l.text())
			default:
				g.addLine(l, t, sectionNone)
				continue
			}
			g.flush()
		}
		g.flush()
		pages.release(pi)
	}
	g.rows.add(labelled...)
	return true
}

// table is the lines under one header (and its repeats), with their columns.
type table struct {
	hdr *line
	// spans are the extents of the cells of the table's lines with an amount, which find its
	// columns, each once (seen), until the columns are found.
	spans []span
	seen  map[span]bool
	cols  []column
	roles []string
	// toMain maps each column to the main table's column its text goes under.
	toMain []int
}

// mapColumns puts each of t's columns under the main column of the same role; text of a role
// the main table lacks goes under its description.
func (g *grid) mapColumns(t *table, main bool) []int {
	out := make([]int, len(t.cols))
	if main {
		for i := range out {
			out[i] = i
		}
		return out
	}
	desc := g.roleColumn("description")
	if desc < 0 {
		for i, c := range g.columns {
			if !c.amount && !c.date {
				desc = i
				break
			}
		}
	}
	for i, r := range t.roles {
		out[i] = -1
		if r != "" {
			out[i] = g.roleColumn(r)
		}
		if out[i] < 0 && (r == "txdate" || r == "valuedate" || t.cols[i].date) {
			out[i] = g.roleColumn("date")
		}
		if out[i] < 0 && t.cols[i].amount && r != "balance" {
			out[i] = g.roleColumn("amount")
		}
		if out[i] < 0 && r == "" && len(g.columns) > 0 && t.cols[i].x0 > g.columns[len(g.columns)-1].x1 {
			continue // a column of notices beside the table, whose header line it shares
		}
		if out[i] < 0 {
			out[i] = desc
		}
	}
	return out
}

// roleColumn returns the main column of a role, or -1.
func (g *grid) roleColumn(r string) int {
	for i, x := range g.roles {
		if x == r {
			return i
		}
	}
	return -1
}

// isTxHeader reports a header of a transaction table: among its column names a date and
// money, and not the same ones twice side by side (a table of daily balances printed in two
// halves: "Date | Balance | Date | Balance").
func isTxHeader(l *line) bool {
	if !isHeader(l) {
		return false
	}
	roles := headerRoles(l)
	n := map[string]int{}
	for _, r := range roles {
		n[r]++
	}
	dates := n["date"] + n["txdate"] + n["valuedate"]
	money := n["amount"] + n["debit"] + n["credit"]
	for _, c := range l.cells {
		for _, r := range tabular.HeaderRoles(c.text)[min(1, len(tabular.HeaderRoles(c.text))):] {
			if r == "amount" || r == "debit" || r == "credit" {
				money++ // "Valor": a value date or an amount, as its values will show
			}
		}
	}
	if dates == 0 || money == 0 {
		return false
	}
	return !(n["date"] > 1 && (n["amount"] > 1 || n["balance"] > 1))
}

// headerHasDate reports a header naming a date column: a table of daily balances has one, a
// summary box or a running page header none.
func headerHasDate(l *line) bool {
	if l == nil {
		return false
	}
	for _, r := range headerRoles(l) {
		if r == "date" || r == "txdate" || r == "valuedate" {
			return true
		}
	}
	return false
}

// headerRoles returns the roles a header line's cells name; a cell that names none is tried
// word by word, as header cells set close together merge into one ("Date Description").
func headerRoles(l *line) []string {
	var out []string
	for _, c := range l.cells {
		if r := tabular.HeaderRole(c.text); r != "" {
			out = append(out, r)
			continue
		}
		for wi := c.first; wi < c.last; wi++ {
			if r := tabular.HeaderRole(l.words[wi].text); r != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// sectionKind is what a section title says about the tables under it.
type sectionKind int8

const (
	sectionNone sectionKind = iota
	// sectionCredit: money in (deposits, additions, paid in, credits).
	sectionCredit
	// sectionDebit: money out (withdrawals, checks paid, fees, purchases, paid out).
	sectionDebit
	// sectionSkip: no transactions (daily balances, a checkbook worksheet).
	sectionSkip
)

// sectionWords are the words of section titles, folded to lower case, in the languages
// statements come in. Skip words are looked for first: "daily balance" before "balance".
var sectionWords = []struct {
	kind  sectionKind
	words []string
}{
	{sectionSkip, []string{"daily balance", "daily ending balance", "daily ledger balance", "balance summary",
		"checkbook", "check book", "balancing your", "reconcil", "tagessaldo", "saldenubersicht", "dagsaldo",
		"interest charge calculation", "interest rate calculation", "annual percentage rate"}},
	{sectionCredit, []string{"deposit", "addition", "credits", "paid in", "money in", "incoming", "payments and credits",
		"payments & credits", "payments/credits", "refund", "receipts", "gutschrift", "eingang", "eingänge", "bijschrijving",
		"ontvangst", "crédit", "credit", "depósito", "deposito", "abono", "entrada", "ingreso", "receita"}},
	{sectionDebit, []string{"withdrawal", "debits", "checks paid", "cheques paid", "checks", "cheques", "paid out",
		"money out", "outgoing", "fees", "charges", "purchase", "payments and other debits", "card transactions",
		"lastschrift", "belastung", "ausgang", "ausgänge", "afschrijving", "uitgave", "débit", "debit", "retiro",
		"cargo", "saída", "saida", "débito", "debito", "pago"}},
}

// sectionOf reads a line as a section title: a few words, no amount and no date, that name
// money in, money out, or a table of no transactions.
func sectionOf(l *line) sectionKind {
	if anyAmount(l) || len(l.cells) > 2 {
		return sectionNone
	}
	var words []string
	for _, c := range l.cells {
		words = append(words, strings.Fields(c.text)...)
	}
	t := strings.ToLower(strings.Join(words, " "))
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(t, "(continued)"), "continued"))
	words = strings.Fields(t)
	if len(words) == 0 || len(words) > 7 || strings.HasSuffix(t, ".") || strings.HasPrefix(t, "total") {
		return sectionNone
	}
	for _, c := range t {
		if unicode.IsDigit(c) {
			return sectionNone
		}
	}
	for _, sw := range sectionWords {
		for _, w := range sw.words {
			if strings.Contains(t, w) {
				return sw.kind
			}
		}
	}
	return sectionNone
}

// cardWords are phrases only a card account's statement prints.
var cardWords = []string{"credit card", "card account", "minimum payment", "minimum amount due", "payment due date",
	"credit limit", "available credit", "card number", "cardholder", "card holder", "kreditkarte", "creditcard",
	"tarjeta de crédito", "cartão de crédito", "carte de crédit"}

// cardPhrases finds, page by page, a credit card statement: two of its phrases in the text. On
// such a statement a plain amount is a charge to the holder and a marked one (CR, parentheses)
// a payment or refund.
type cardPhrases struct {
	seen map[string]bool
}

func (c *cardPhrases) add(pg []line) {
	if len(c.seen) >= 2 {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	for li := range pg {
		t := strings.ToLower(pg[li].text())
		for _, w := range cardWords {
			if !c.seen[w] && strings.Contains(t, w) {
				c.seen[w] = true
			}
		}
	}
}

func (c *cardPhrases) card() bool { return len(c.seen) >= 2 }

// labelledValues pairs each value of a line with the name of the header cell above it, as
// rows of a name and a value.
func labelledValues(h, l *line) []gridRow {
	var out []gridRow
	for _, c := range l.cells {
		if !c.amount {
			continue
		}
		best, dist := -1, math.Inf(1)
		for i, hc := range h.cells {
			if hc.x1 < c.x0-2*l.size || hc.x0 > c.x1+2*l.size {
				continue
			}
			if d := math.Abs((hc.x0+hc.x1)/2 - (c.x0+c.x1)/2); d < dist {
				best, dist = i, d
			}
		}
		if best < 0 {
			continue
		}
		name := h.cells[best].text
		out = append(out, gridRow{cells: []string{name, c.text}, pos: statement.Position{Page: l.page, Line: l.no},
			raw: name + " | " + c.text, y: l.y, lines: 1, span: lineSpan(l)})
	}
	return out
}

// plainRow is a line as a row of its own cells.
func plainRow(l *line) gridRow {
	cells := make([]string, len(l.cells))
	for i, c := range l.cells {
		cells[i] = c.text
	}
	return gridRow{cells: cells, pos: statement.Position{Page: l.page, Line: l.no}, raw: l.text(), y: l.y, lines: 1, span: lineSpan(l)}
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
		if c.amount {
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
		case isDigits(w) && len(w) <= 3:
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

// findColumns computes the column spans of a header from its table's lines that hold an
// amount (see buildGrid).
func findColumns(hdr *line, cells []span) []column {
	spans := make([]span, 0, len(hdr.cells)+len(cells))
	for _, c := range hdr.cells {
		spans = append(spans, span{c.x0, c.x1})
	}
	spans = append(spans, cells...)
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
		if len(inside) > 1 && !allNamed(inside, func(p piece) string { return p.text }) {
			// Words of one title set apart ("Payment type and details", "Paid" "out" as
			// pdfTeX spaces a header): not every piece names a column by itself, so together
			// they are the name of the one column of values under them.
			title := inside[0]
			for _, p := range inside[1:] {
				title.text += " " + p.text
				title.x1 = p.x1
			}
			inside = []piece{title}
		}
		if len(inside) <= 1 {
			c := column{x0: m.x0, x1: m.x1}
			if len(inside) == 1 {
				c.title = rtlCell(inside[0].text)
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
			cols = append(cols, column{x0: x0, x1: x1, title: rtlCell(h.text)})
			x0 = x1
		}
	}
	return cols
}

// allNamed reports whether every piece names a column role by itself.
func allNamed[T any](pieces []T, text func(T) string) bool {
	for _, p := range pieces {
		if tabular.HeaderRole(text(p)) == "" {
			return false
		}
	}
	return true
}

// adoptTitles gives a header cell that stands over (next to) no values to the column of dates
// or amounts beside it that has no header cell: word processors centre a header over a column whose values are
// aligned left or right, so that the two do not overlap ("DATE" centred, "07/10" at the
// left edge).
func adoptTitles(cols []column) []column {
	for i := 0; i < len(cols); i++ {
		if cols[i].title == "" || cols[i].amount || cols[i].date {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			// The values beside it: dates or amounts in a column with no name, many more
			// lines than the named one has (stray words of prose that cross it).
			if j < 0 || j >= len(cols) || cols[j].title != "" || !(cols[j].amount || cols[j].date) || cols[i].values*4 > cols[j].values {
				continue
			}
			cols[j].title = cols[i].title
			cols[j].x0, cols[j].x1 = math.Min(cols[j].x0, cols[i].x0), math.Max(cols[j].x1, cols[i].x1)
			cols = append(cols[:i], cols[i+1:]...)
			i--
			break
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

// span is a stretch of a page's width: a cell's, a column's.
type span struct{ x0, x1 float64 }

// addSpans adds the extents of a line's cells to the table's, those not there yet: the columns
// are the union of the extents, which the thousands of rows of a long statement repeat.
func (t *table) addSpans(l *line) {
	if t.seen == nil {
		t.seen = map[span]bool{}
	}
	for _, c := range l.cells {
		if s := (span{c.x0, c.x1}); !t.seen[s] {
			t.seen[s] = true
			t.spans = append(t.spans, s)
		}
	}
}

// member is a line of a table, by its place: its page (0-based) and index on the page.
type member struct {
	page, line int32
	t          *table
}

// tallyColumns flags the columns that hold amounts or dates in most of each table's lines,
// reading the pages of the members (in the document's order) once each.
func tallyColumns(pages *pageStore, members []member) {
	type tally struct{ n, amounts, dates []int }
	tallies := map[*table]*tally{}
	var pg []line
	read := int32(-1)
	for _, m := range members {
		if m.page != read {
			pg, read = pages.page(int(m.page)), m.page
		}
		c := tallies[m.t]
		if c == nil {
			c = &tally{make([]int, len(m.t.cols)), make([]int, len(m.t.cols)), make([]int, len(m.t.cols))}
			tallies[m.t] = c
		}
		for ci, text := range splitColumns(&pg[m.line], m.t.cols) {
			if text == "" {
				continue
			}
			c.n[ci]++
			if looksAmount(text) {
				c.amounts[ci]++
			}
			if looksDate(text) {
				c.dates[ci]++
			}
		}
	}
	for t, c := range tallies {
		for i := range t.cols {
			t.cols[i].amount = c.n[i] > 0 && 10*c.amounts[i] >= 6*c.n[i]
			t.cols[i].date = c.n[i] > 0 && 10*c.dates[i] >= 6*c.n[i]
			t.cols[i].values = c.n[i]
		}
	}
}

// splitColumns cuts a line into the columns: each word goes to the column its middle lies in
// (or the nearest one), words of one column are joined as the line's cells joined them.
func splitColumns(l *line, cols []column) []string {
	out := splitVisual(l, cols)
	for i := range out {
		out[i] = rtlCell(out[i])
	}
	return out
}

// splitVisual is splitColumns in the page's left-to-right order.
func splitVisual(l *line, cols []column) []string {
	out := make([]string, len(cols))
	edge := math.Inf(1)
	if len(cols) > 0 {
		edge = cols[len(cols)-1].x1 + math.Max(l.size, 6)
	}
	prev := -1
	for _, c := range l.cells {
		if c.x0 > edge {
			continue // text beside the table: notices and offers in a column of their own
		}
		for wi := c.first; wi < c.last; wi++ {
			w := l.words[wi]
			ci := wordColumn(cols, w, prev)
			if out[ci] != "" {
				if wi > c.first && w.x0-l.words[wi-1].x1 <= joinGap(l.words[wi-1], w) && prev == ci {
					prev = ci
					out[ci] += w.text
					continue
				}
				out[ci] += " "
			}
			out[ci] += w.text
			prev = ci
		}
	}
	return out
}

// wordColumn returns the column a word goes under: the one its middle lies in; else, for a
// word between columns, the column of the word before it in the same cell when that is a text
// column and the word holds no value (a long description running past the widths the
// amounts' rows showed); else the nearest.
func wordColumn(cols []column, w run, prev int) int {
	mid := (w.x0 + w.x1) / 2
	for i, c := range cols {
		if mid >= c.x0 && mid <= c.x1 {
			return i
		}
	}
	if prev >= 0 && !cols[prev].amount && !cols[prev].date && mid > cols[prev].x1 && !looksAmount(w.text) && !looksDate(w.text) {
		return prev
	}
	return columnAt(cols, mid)
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
func (g *grid) addLine(l *line, t *table, section sectionKind) {
	if strayAmount(l, t) {
		// A summary line inside the table's area whose amount stands under no column of
		// amounts ("neuer Kontostand vom 31.03.2023   7.354,26 H" under the text columns): a
		// label and its value, for the table reader, not a row of the table.
		g.flush()
		g.rows.add(plainRow(l))
		return
	}
	cells := g.mainCells(l, t, section)
	if !rowLike(l) && g.wordsUnderAmounts(cells) {
		// Prose across the table's width (a notice after the last row): words stand under
		// the columns of amounts, which hold nothing but amounts in a row.
		g.outside = append(g.outside, l.text())
		g.skipped++
		return
	}
	if n := g.rows.len(); (n > 0 || len(g.pending) > 0) && g.textOnly(cells) {
		// A line of text only: the rest of the row above, or the start of the row below
		// when its description is set around the dated line (vertically centred cells).
		// Which one is decided when the next row comes.
		g.pending = append(g.pending, pendingLine{l: l, cells: cells})
		return
	}
	g.attach(l, cells)
}

// strayAmount reports a line with an amount that lies under none of the table's columns of
// amounts.
func strayAmount(l *line, t *table) bool {
	for _, c := range l.cells {
		if !c.amount {
			continue
		}
		mid := (c.x0 + c.x1) / 2
		for _, col := range t.cols {
			if col.amount && mid >= col.x0-0.5*l.size && mid <= col.x1+0.5*l.size {
				return false
			}
		}
		return true
	}
	return false
}

// wordsUnderAmounts reports text that is no amount in a column of amounts.
func (g *grid) wordsUnderAmounts(cells []string) bool {
	for i, t := range cells {
		if t != "" && g.columns[i].amount && !looksAmount(t) {
			return true
		}
	}
	return false
}

// pendingLine is a line of text only, waiting for the row it belongs to.
type pendingLine struct {
	l     *line
	cells []string
}

// textOnly reports cells holding text only outside the amount and date columns.
func (g *grid) textOnly(cells []string) bool {
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
	return text
}

// attach adds a line that holds values: the continuation of a row whose date is cut
// (partialDate), or a new row, which takes the pending lines set nearer to it than to the row
// above.
func (g *grid) attach(l *line, cells []string) {
	if n := g.rows.len(); n > 0 && len(g.pending) == 0 && g.continues(g.rows.last(), l, cells) {
		g.join(g.rows.last(), l, cells, false)
		return
	}
	if n := g.rows.len(); n > 0 && g.amountsOfDatedRow(g.rows.last(), l, cells) {
		// The dated line held the description, the amounts stand on the line below (a cell
		// of the description wrapped, the amounts centred against it).
		for _, p := range g.pending {
			g.join(g.rows.last(), p.l, p.cells, false)
		}
		g.pending = g.pending[:0]
		g.join(g.rows.last(), l, cells, false)
		return
	}
	var before []pendingLine
	for i, p := range g.pending {
		if n := g.rows.len(); n > 0 && g.continues(g.rows.last(), p.l, p.cells) &&
			!(p.l.page == l.page && p.l.y-l.y < 0.75*(g.rows.last().y-p.l.y) && p.l.y-l.y <= 1.6*l.size) {
			g.join(g.rows.last(), p.l, p.cells, false)
			continue
		}
		if p.l.page == l.page && p.l.y > l.y && p.l.y-l.y <= 1.6*l.size*float64(len(g.pending)-i) {
			before = append(before, p)
		}
	}
	g.pending = g.pending[:0]
	r := gridRow{cells: cells, pos: statement.Position{Page: l.page, Line: l.no},
		raw: strings.Join(cells, " | "), y: l.y, lines: 1, span: lineSpan(l)}
	for k := len(before) - 1; k >= 0; k-- {
		g.join(&r, before[k].l, before[k].cells, true)
	}
	g.rows.add(r)
}

// amountsOfDatedRow reports a line that holds the amounts, and no date, of the row above,
// which has a date and no amount: the two are one transaction.
func (g *grid) amountsOfDatedRow(prev *gridRow, l *line, cells []string) bool {
	if prev.pos.Page != l.page || len(prev.cells) != len(cells) || prev.y-l.y > 2.2*l.size*float64(1+len(g.pending)) || prev.y <= l.y {
		return false
	}
	dated, amount := false, false
	for i, c := range g.columns {
		switch {
		case c.date && cells[i] != "":
			return false
		case c.date && prev.cells[i] != "":
			dated = true
		case c.amount && prev.cells[i] != "":
			return false
		case c.amount && looksAmount(cells[i]):
			amount = true
		}
	}
	return dated && amount
}

// flush gives the pending lines to the row above, where they continue it.
func (g *grid) flush() {
	for _, p := range g.pending {
		if n := g.rows.len(); n > 0 && g.continues(g.rows.last(), p.l, p.cells) {
			g.join(g.rows.last(), p.l, p.cells, false)
		}
	}
	g.pending = g.pending[:0]
}

// join adds a line's cells to a row's, after them or (front) before them.
func (g *grid) join(r *gridRow, l *line, cells []string, front bool) {
	for i, t := range cells {
		if t == "" {
			continue
		}
		switch {
		case r.cells[i] == "":
			r.cells[i] = t
		case front:
			r.cells[i] = t + " " + r.cells[i]
		case strings.HasSuffix(r.cells[i], "-") || strings.HasSuffix(r.cells[i], "/"):
			r.cells[i] += t
		default:
			r.cells[i] += " " + t
		}
	}
	if front {
		r.raw = l.text() + "\n" + r.raw
	} else {
		r.raw += "\n" + l.text()
		r.y = l.y
	}
	r.lines++
	if l.page == r.pos.Page {
		r.span = union(r.span, lineSpan(l))
	}
}

// mainCells cuts a line into its table's columns and puts them under the main table's.
func (g *grid) mainCells(l *line, t *table, section sectionKind) []string {
	own := splitColumns(l, t.cols)
	cells := make([]string, len(g.columns))
	moneyRole := ""
	for i, text := range own {
		if text == "" {
			continue
		}
		to := t.toMain[i]
		if to < 0 {
			continue
		}
		if cells[to] != "" {
			cells[to] += " "
		}
		cells[to] += text
		if r := g.roles[to]; r == "amount" && looksAmount(text) {
			moneyRole = r
		}
	}
	if moneyRole == "amount" {
		g.signBySection(cells, section)
	}
	return cells
}

func (g *grid) continues(prev *gridRow, l *line, cells []string) bool {
	if prev.pos.Page != l.page || len(prev.cells) != len(cells) || prev.lines >= 20 {
		return false
	}
	if prev.y-l.y > 2.2*l.size || prev.y <= l.y {
		return false
	}
	if dc := g.roleColumn("date"); dc >= 0 && partialDate(prev.cells[dc]) && cells[dc] != "" {
		// A date wrapped in a narrow column ("02-" over "04-" over "2022", as Indian banks
		// print them): the row goes on until its date is whole, taking the amounts of
		// whichever of its lines has them.
		for i, t := range cells {
			if t != "" && prev.cells[i] != "" && (g.columns[i].amount || looksAmount(t)) {
				return false
			}
		}
		return true
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

// signBySection gives an unsigned amount the sign of the section it stands in: a money-out
// section's amounts become debits (under the main table's debit column when it has one, else
// with a minus sign, but on a card statement, where plain amounts are charges, as they are), a
// money-in section's go under its credit column when it has one.
func (g *grid) signBySection(cells []string, section sectionKind) {
	at := g.roleColumn("amount")
	if at < 0 || hasSign(cells[at]) {
		return
	}
	switch section {
	case sectionDebit:
		if d := g.roleColumn("debit"); d >= 0 && cells[d] == "" {
			cells[d], cells[at] = cells[at], ""
			return
		}
		if g.card {
			// A card statement's plain amounts are charges already; a minus sign would make
			// this one a payment.
			return
		}
		cells[at] = "-" + cells[at]
	case sectionCredit:
		if c := g.roleColumn("credit"); c >= 0 && cells[c] == "" {
			cells[c], cells[at] = cells[at], ""
		}
	}
}

// hasSign reports an amount that writes its sign: a minus or plus, parentheses, a CR or DR
// mark.
func hasSign(s string) bool {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "-−+()") {
		return true
	}
	u := strings.ToUpper(s)
	return strings.HasSuffix(u, "CR") || strings.HasSuffix(u, "DR") || strings.HasPrefix(u, "CR") || strings.HasPrefix(u, "DR")
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
	s = strings.TrimSuffix(s, " Dr")
	if n := len(s); n > 2 && s[n-2] == ' ' && strings.IndexByte("SHDC", s[n-1]) >= 0 {
		s = s[:n-2] // 73,39 S, 12,00 D: Soll/Haben, debet/credit
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "CR"), "DR")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "Cr"), "Dr") // 1,234.56Cr (FNB)
	s = strings.Trim(s, "()+-−")
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "R$"), "S$"), "R ") // Brazil, Singapore, South Africa
	s = strings.Trim(s, "()+-−€$£¥₹ \u00a0")
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
	if len(s) < 4 {
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
		case len(p) >= 3 && len(p) <= 9 && isLetters(p) && tabular.MonthName(p):
			alpha++
		case len(p) >= 3 && len(p) <= 4 && isDigits(p[:len(p)-2]) && isLetters(p[len(p)-2:]):
			n++ // 2nd, 21st
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

// rowList is the grid's rows, in chunks of at most rowChunk, so that handing them over lets go
// of each chunk as its rows are converted: 60,000 rows of a long statement weigh 9 MB.
type rowList struct {
	chunks [][]gridRow
	n      int
}

const rowChunk = 1024

func (rl *rowList) add(rs ...gridRow) {
	for _, r := range rs {
		if k := len(rl.chunks); k == 0 || len(rl.chunks[k-1]) == rowChunk {
			rl.chunks = append(rl.chunks, nil)
		}
		c := &rl.chunks[len(rl.chunks)-1]
		*c = append(*c, r)
		rl.n++
	}
}

func (rl *rowList) len() int { return rl.n }

// last returns the last row, which the grid may still change; valid until the next add.
func (rl *rowList) last() *gridRow {
	c := rl.chunks[len(rl.chunks)-1]
	return &c[len(c)-1]
}

// box is where row r stands on its page as fractions of the page (statement.Box), or nil when
// the row's span or its page's frame is unknown.
func (g *grid) box(r gridRow) *statement.Box {
	n := r.pos.Page - 1
	if n < 0 || n >= len(g.frames) || r.span == [4]float64{} {
		return nil
	}
	f := g.frames[n]
	w, h := f[2]-f[0], f[3]-f[1]
	if w <= 0 || h <= 0 {
		return nil
	}
	b := statement.Box{Left: fraction((r.span[0] - f[0]) / w), Top: fraction((f[3] - r.span[3]) / h),
		Right: fraction((r.span[2] - f[0]) / w), Bottom: fraction((f[3] - r.span[1]) / h)}
	if b.Right <= b.Left || b.Bottom <= b.Top {
		return nil
	}
	return &b
}

// handOver returns table() and lets go of the grid's own rows, whose cells the table's rows
// share: the table reader holds those and its transactions, not a second copy of the rows.
func (g *grid) handOver() []tabular.Row {
	rows := g.table()
	g.preamble, g.rows = nil, rowList{}
	return rows
}

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
	out := make([]tabular.Row, 0, len(pre)+1+g.rows.len())
	add := func(r gridRow) {
		pos := r.pos
		pos.Box = g.box(r)
		out = append(out, tabular.Row{Cells: r.cells, Pos: pos, Raw: r.raw})
	}
	for _, r := range pre {
		add(r)
	}
	if g.columns != nil {
		add(g.header)
	}
	for i, c := range g.rows.chunks {
		for _, r := range c {
			add(r)
		}
		g.rows.chunks[i] = nil // read: the grid's rows and the table's are not both held whole
	}
	return out
}
