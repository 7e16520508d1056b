package pdf

import (
	"math"
	"sort"
	"strings"
)

// line is one visual line of a page: the words sharing a baseline, left to right, grouped
// into cells where the gap between words is wider than a couple of spaces.
type line struct {
	page  int // 1-based
	no    int // 1-based line index on the page, top to bottom
	y     float64
	size  float64
	words []run
	cells []cell
	// header caches isHeader: 0 not yet known, 1 a header, 2 not.
	header int8
}

// cell is words of a line close enough to read as one piece of text.
type cell struct {
	text   string
	x0, x1 float64
	first  int32 // words[first:last] of the line
	last   int32
	// amount and date cache looksAmount and looksDate of text, asked of every cell many times.
	amount, date bool
}

// text is the rebuilt line: its cells, separated by " | " so a person can see the columns.
func (l *line) text() string {
	parts := make([]string, len(l.cells))
	for i, c := range l.cells {
		parts[i] = c.text
	}
	return strings.Join(parts, " | ")
}

// buildLines groups a page's words into lines by baseline, top to bottom. Two words share a
// line when their baselines differ by less than a third of the larger font size: lines of a
// statement are at least a font size apart, while a line's words of different sizes or
// slightly different rises stay together.
func buildLines(words []run, pageNo int) []line {
	if len(words) == 0 {
		return nil
	}
	sort.SliceStable(words, func(i, j int) bool {
		if words[i].y != words[j].y {
			return words[i].y > words[j].y
		}
		return words[i].x0 < words[j].x0
	})
	var lines []line
	start := 0
	for i := 1; i <= len(words); i++ {
		if i < len(words) {
			ref := words[start]
			if ref.y-words[i].y < 0.35*math.Max(ref.size, words[i].size) {
				continue
			}
		}
		lines = append(lines, makeLine(words[start:i], pageNo, len(lines)+1))
		start = i
	}
	return lines
}

func makeLine(ws []run, pageNo, no int) line {
	ws = append([]run(nil), ws...)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].x0 < ws[j].x0 })
	// Drop overprinted copies (fake bold, shadows): the same text at nearly the same place.
	out := ws[:0]
	for _, w := range ws {
		dup := false
		for k := len(out) - 1; k >= 0 && k >= len(out)-3; k-- {
			if out[k].text == w.text && math.Abs(out[k].x0-w.x0) < 0.3*w.size {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, w)
		}
	}
	ws = out
	for i := range ws {
		ws[i].text = ligatures(asciiDigits(ws[i].text))
	}
	l := line{page: pageNo, no: no, words: ws}
	var ysum float64
	for _, w := range ws {
		ysum += w.y
		l.size = math.Max(l.size, w.size)
	}
	l.y = ysum / float64(len(ws))
	l.cells = cellsOf(ws)
	for i := range l.cells {
		c := &l.cells[i]
		c.text = rtlCell(c.text)
		c.amount = looksAmount(c.text)
		c.date = !c.amount && looksDate(c.text)
	}
	return l
}

// cellsOf joins the words of a line into cells. A gap of more than one and a half space
// widths (at least a third of the font size) separates cells; a gap of a space or so is a
// space; a smaller one (kerning, a word split over several show operators) joins the words
// directly. A cell of one word shares the word's text; the others' texts are built.
func cellsOf(ws []run) []cell {
	var cells []cell
	var b strings.Builder
	done := func(c *cell) {
		if c.last-c.first == 1 {
			c.text = ws[c.first].text
		} else {
			c.text = b.String()
		}
	}
	for i, w := range ws {
		if i > 0 {
			c := &cells[len(cells)-1]
			gap := w.x0 - c.x1
			if gap <= splitGap(ws[i-1], w) {
				if c.last-c.first == 1 {
					b.Reset()
					b.WriteString(ws[c.first].text)
				}
				if gap > joinGap(ws[i-1], w) {
					b.WriteByte(' ')
				}
				b.WriteString(w.text)
				c.x1 = math.Max(c.x1, w.x1)
				c.last = int32(i + 1)
				continue
			}
			done(c)
		}
		cells = append(cells, cell{x0: w.x0, x1: w.x1, first: int32(i), last: int32(i + 1)})
	}
	if len(cells) > 0 {
		done(&cells[len(cells)-1])
	}
	return cells
}

func spaceOf(a, b run) float64 {
	s := math.Max(a.space, b.space)
	size := math.Max(a.size, b.size)
	return math.Min(math.Max(s, 0.2*size), 0.6*size)
}

func splitGap(a, b run) float64 { return math.Max(1.5*spaceOf(a, b), 0.33*math.Max(a.size, b.size)) }

func joinGap(a, b run) float64 { return math.Max(0.3*spaceOf(a, b), 0.08*math.Max(a.size, b.size)) }
