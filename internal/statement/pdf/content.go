package pdf

import (
	"errors"
	"io"
	"math"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/statementmatch/service/internal/statement"
)

// Bounds of content stream interpretation, so a hostile page costs bounded time and memory.
const (
	maxPages        = 2000
	maxOpsPerPage   = 2_000_000
	maxOpsTotal     = 50_000_000
	maxRunsPerPage  = 200_000
	maxRunsTotal    = 4_000_000
	maxGStateDepth  = 256
	maxFormDepth    = 12
	maxArrayLen     = 1 << 16
	maxOperandStack = 64
	maxContentParts = 10_000
	maxWordBytes    = 4096
)

// matrix is a PDF transformation [a b c d e f] (ISO 32000-1, 8.3.3); points are row vectors.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: first m, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

// gstate is the part of the graphics state text positions depend on: the CTM and the text
// state parameters (ISO 32000-1, 9.3).
type gstate struct {
	ctm   matrix
	font  *font
	fs    float64 // Tf size
	tc    float64 // Tc character spacing
	tw    float64 // Tw word spacing
	th    float64 // Tz horizontal scaling, as a fraction
	tl    float64 // TL leading
	trise float64 // Ts rise
}

// run is a piece of text drawn without a gap: a word, usually. Coordinates are in the page's
// display space (default user space turned by /Rotate), y growing upwards, in points.
// A statement of 2,000 pages holds half a million of them until its table is built: keep it small.
type run struct {
	text   string
	x0, x1 float64
	y      float64 // baseline
	size   float64 // font size on the page
	space  float64 // width of a space in this font on the page
}

// reading is what reading a page keeps of each word, beside it, until the page is read: where
// its text is in the page's buffer (parser.text; the open word is always the last, so a glyph
// that extends it appends to the buffer), and whether it runs level.
type reading struct {
	start, end int
	// oblique: the text does not run level (a diagonal watermark, a note up the margin).
	oblique bool
}

// parser holds the state of one Parse.
type parser struct {
	doc      *document
	opts     statement.Options
	budget   *budget
	fonts    map[int]*font
	err      error // first fatal error: aborts the parse
	ops      int
	runs     int
	kinds    map[string]bool
	problems []statement.Problem

	// The page being read.
	pageNo  int
	rotate  int
	pageOps int
	words   []run
	read    []reading // each word's reading, until the page is read
	text    []byte    // the bytes of the page's words, in order
	open    bool      // the last word can still grow
	lastEnd float64   // x where the last glyph ended, for adjacency
}

func (p *parser) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

func (p *parser) problem(msg string) {
	p.problems = append(p.problems, statement.Problem{Pos: statement.Position{Page: p.pageNo}, Message: msg})
}

// readPage interprets a page's content streams and returns its words, a watermark's left out
// (dropOblique), which are valid until the next readPage: the slice is reused from page to page
// (buildLines copies what it keeps).
func (p *parser) readPage(pg page, no int) ([]run, error) {
	p.pageNo, p.rotate, p.pageOps = no, pg.rotate, 0
	p.words, p.read, p.open, p.text = p.words[:0], p.read[:0], false, p.text[:0]
	parts := p.contentParts(pg.dict["Contents"])
	if len(parts) == 0 {
		return nil, p.err
	}
	readers := make([]io.Reader, 0, 2*len(parts))
	for _, sd := range parts {
		r, err := openStream(sd, p.budget)
		if err != nil {
			if errors.Is(err, errBudget) {
				return nil, p.limitErr()
			}
			p.problem("a content stream cannot be decoded (" + err.Error() + "); text may be missing")
			continue
		}
		// Streams of one page join at token boundaries (ISO 32000-1, 7.8.2).
		readers = append(readers, r, strings.NewReader("\n"))
	}
	gs := gstate{ctm: identity, th: 1}
	damaged := p.budget.damaged
	p.interpret(io.MultiReader(readers...), pg.resources, gs, 0, map[int]bool{})
	if p.err != nil {
		return nil, p.err
	}
	if p.budget.damaged > damaged {
		p.problem("compressed content is corrupt or truncated; text after the damage is missing")
	}
	// One string for the page's text, which its words share, rather than a string (and a
	// growing byte slice) per word: 100 MB less garbage for a statement of 2,000 pages.
	text := string(p.text)
	for i, r := range p.read {
		p.words[i].text = strings.ToValidUTF8(text[r.start:r.end], "\uFFFD")
	}
	return dropOblique(p.words, p.read), nil
}

func (p *parser) limitErr() error {
	if p.err != nil && !errors.Is(p.err, errBudget) {
		return p.err
	}
	return errf(statement.ErrResourceLimit, statement.Position{Page: p.pageNo},
		"the page content decompresses to more than the %d-byte limit", p.opts.MaxDecompressedBytes)
}

func (p *parser) contentParts(o types.Object) []types.StreamDict {
	if sd, ok := p.doc.stream(o); ok {
		return []types.StreamDict{sd}
	}
	var out []types.StreamDict
	for i, e := range p.doc.array(o) {
		if i >= maxContentParts {
			break
		}
		if sd, ok := p.doc.stream(e); ok {
			out = append(out, sd)
		}
	}
	return out
}

// operand is one operand of a content stream operator.
type operand struct {
	kind tokKind
	num  float64
	b    []byte
	arr  []operand
}

// interpret runs a content stream (ISO 32000-1, 8 and 9): it follows the CTM and text state
// and turns every shown glyph into text at a page position. Form XObjects are interpreted in
// place, to a depth of maxFormDepth, each at most once on the way down (a form drawing itself
// is a cycle).
func (p *parser) interpret(r io.Reader, res types.Dict, gs gstate, depth int, forms map[int]bool) {
	lx := newLexer(r)
	defer lx.release()
	var stack []operand
	var saved []gstate
	overflow := 0
	tm, tlm := identity, identity
	fontsDict := p.doc.dict(res["Font"])
	direct := map[string]*font{} // fonts given as direct dictionaries, loaded once per stream
	for p.err == nil {
		t, err := lx.next()
		if err != nil {
			p.lexError(err)
			return
		}
		switch t.kind {
		case tkEOF:
			if lx.err != nil && !errors.Is(lx.err, io.EOF) {
				p.lexError(lx.err)
			}
			return
		case tkNum, tkStr, tkName:
			if len(stack) >= maxOperandStack {
				stack = append(stack[:0], stack[maxOperandStack/2:]...)
			}
			o := operand{kind: t.kind, num: t.num, b: t.b}
			if t.kind == tkName {
				o.b = append([]byte(nil), t.b...)
			}
			stack = append(stack, o)
			continue
		case tkArrOpen:
			arr, err := p.readArray(lx, 0)
			if err != nil {
				p.lexError(err)
				return
			}
			stack = append(stack, operand{kind: tkArrOpen, arr: arr})
			continue
		case tkDictOpen:
			if err := skipDict(lx); err != nil {
				p.lexError(err)
				return
			}
			stack = append(stack, operand{kind: tkDictOpen})
			continue
		case tkArrClose, tkDictClose:
			continue
		}
		// An operator.
		p.pageOps++
		p.ops++
		if p.pageOps > maxOpsPerPage || p.ops > maxOpsTotal {
			p.fail(errf(statement.ErrResourceLimit, statement.Position{Page: p.pageNo},
				"the page has more than %d drawing operations", min(maxOpsPerPage, maxOpsTotal)))
			return
		}
		num := func(i int) float64 { // the i-th of the last k operands
			if i < 0 || i >= len(stack) || stack[i].kind != tkNum {
				return 0
			}
			v := stack[i].num
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0
			}
			return v
		}
		last := func(k int) int { return len(stack) - k } // index of the first of the last k
		switch string(t.b) {
		case "q":
			if len(saved) < maxGStateDepth {
				saved = append(saved, gs)
			} else {
				overflow++
			}
		case "Q":
			if overflow > 0 {
				overflow--
			} else if len(saved) > 0 {
				gs = saved[len(saved)-1]
				saved = saved[:len(saved)-1]
			}
		case "cm":
			if len(stack) >= 6 {
				i := last(6)
				gs.ctm = matrix{num(i), num(i + 1), num(i + 2), num(i + 3), num(i + 4), num(i + 5)}.mul(gs.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if len(stack) >= 2 && stack[last(2)].kind == tkName {
				gs.font = p.font(fontsDict, string(stack[last(2)].b), direct)
				gs.fs = num(last(1))
			}
		case "Tc":
			gs.tc = num(last(1))
		case "Tw":
			gs.tw = num(last(1))
		case "Tz":
			gs.th = num(last(1)) / 100
		case "TL":
			gs.tl = num(last(1))
		case "Ts":
			gs.trise = num(last(1))
		case "Td":
			tlm = matrix{1, 0, 0, 1, num(last(2)), num(last(1))}.mul(tlm)
			tm = tlm
		case "TD":
			gs.tl = -num(last(1))
			tlm = matrix{1, 0, 0, 1, num(last(2)), num(last(1))}.mul(tlm)
			tm = tlm
		case "Tm":
			if len(stack) >= 6 {
				i := last(6)
				tlm = matrix{num(i), num(i + 1), num(i + 2), num(i + 3), num(i + 4), num(i + 5)}
				tm = tlm
			}
		case "T*":
			tlm = matrix{1, 0, 0, 1, 0, -gs.tl}.mul(tlm)
			tm = tlm
		case "Tj":
			if len(stack) >= 1 && stack[last(1)].kind == tkStr {
				p.show(stack[last(1)].b, &gs, &tm)
			}
		case "'":
			tlm = matrix{1, 0, 0, 1, 0, -gs.tl}.mul(tlm)
			tm = tlm
			if len(stack) >= 1 && stack[last(1)].kind == tkStr {
				p.show(stack[last(1)].b, &gs, &tm)
			}
		case "\"":
			if len(stack) >= 3 {
				gs.tw, gs.tc = num(last(3)), num(last(2))
			}
			tlm = matrix{1, 0, 0, 1, 0, -gs.tl}.mul(tlm)
			tm = tlm
			if len(stack) >= 1 && stack[last(1)].kind == tkStr {
				p.show(stack[last(1)].b, &gs, &tm)
			}
		case "TJ":
			if len(stack) >= 1 && stack[last(1)].kind == tkArrOpen {
				for _, e := range stack[last(1)].arr {
					switch e.kind {
					case tkStr:
						p.show(e.b, &gs, &tm)
					case tkNum:
						// A number moves the next glyph left by thousandths of an em.
						tx := -e.num / 1000 * gs.fs * gs.th
						tm = matrix{1, 0, 0, 1, tx, 0}.mul(tm)
					}
				}
			}
		case "Do":
			if len(stack) >= 1 && stack[last(1)].kind == tkName {
				p.form(res, string(stack[last(1)].b), gs, depth, forms)
			}
		case "BI":
			// Inline image: its dictionary up to ID, then binary data up to EI.
			for k := 0; k < 4096; k++ {
				t, err := lx.next()
				if err != nil || t.kind == tkEOF {
					break
				}
				if t.kind == tkOp && string(t.b) == "ID" {
					lx.skipInlineImage()
					break
				}
			}
		}
		stack = stack[:0]
	}
}

func (p *parser) lexError(err error) {
	switch {
	case errors.Is(err, errBudget):
		p.fail(p.limitErr())
	case errors.Is(err, errTokenTooLong):
		p.fail(errf(statement.ErrResourceLimit, statement.Position{Page: p.pageNo},
			"a content stream token is longer than %d bytes", maxTokenBytes))
	default:
		p.problem("a content stream is damaged (" + err.Error() + "); text may be missing")
	}
}

// readArray reads an array operand (TJ's strings and kerning numbers), nested to depth 8.
func (p *parser) readArray(lx *lexer, depth int) ([]operand, error) {
	var out []operand
	for n := 0; ; n++ {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		var o operand
		switch t.kind {
		case tkEOF, tkArrClose:
			return out, nil
		case tkArrOpen:
			if depth >= 8 {
				return nil, errTokenTooLong
			}
			arr, err := p.readArray(lx, depth+1)
			if err != nil {
				return nil, err
			}
			o = operand{kind: tkArrOpen, arr: arr}
		case tkDictOpen:
			if err := skipDict(lx); err != nil {
				return nil, err
			}
			continue
		case tkName, tkOp:
			o = operand{kind: t.kind, b: append([]byte(nil), t.b...)}
		default:
			o = operand{kind: t.kind, num: t.num, b: t.b}
		}
		if n < maxArrayLen {
			out = append(out, o)
		}
	}
}

// skipDict skips an inline dictionary (marked-content properties) to its closing >>.
func skipDict(lx *lexer) error {
	depth := 1
	for n := 0; n < maxArrayLen; n++ {
		t, err := lx.next()
		if err != nil {
			return err
		}
		switch t.kind {
		case tkEOF:
			return nil
		case tkDictOpen:
			depth++
		case tkDictClose:
			depth--
			if depth == 0 {
				return nil
			}
		}
	}
	return errTokenTooLong
}

// font returns the font a Tf names in the resources, loaded once per font object.
func (p *parser) font(fonts types.Dict, name string, direct map[string]*font) *font {
	o, ok := fonts[name]
	if !ok {
		return defaultFont
	}
	nr := refNumber(o)
	if f, ok := p.fonts[nr]; ok && nr >= 0 {
		return f
	}
	if f, ok := direct[name]; ok && nr < 0 {
		return f
	}
	f := p.loadFont(p.doc.dict(o))
	if nr >= 0 {
		p.fonts[nr] = f
	} else {
		direct[name] = f
	}
	if p.kinds != nil {
		p.kinds[f.kind] = true
	}
	return f
}

// form interprets a form XObject drawn by Do; image XObjects carry no text.
func (p *parser) form(res types.Dict, name string, gs gstate, depth int, forms map[int]bool) {
	o := p.doc.dict(res["XObject"])[name]
	sd, ok := p.doc.stream(o)
	if !ok || p.doc.name(sd.Dict["Subtype"]) != "Form" {
		return
	}
	nr := refNumber(o)
	if depth >= maxFormDepth || (nr >= 0 && forms[nr]) {
		return
	}
	if nr >= 0 {
		forms[nr] = true
		defer delete(forms, nr)
	}
	if m := p.doc.array(sd.Dict["Matrix"]); len(m) == 6 {
		var fm matrix
		for i := range 6 {
			fm[i], _ = p.doc.number(m[i])
		}
		gs.ctm = fm.mul(gs.ctm)
	}
	fres := p.doc.dict(sd.Dict["Resources"])
	if fres == nil {
		fres = res
	}
	r, err := openStream(sd, p.budget)
	if err != nil {
		if errors.Is(err, errBudget) {
			p.fail(p.limitErr())
			return
		}
		p.problem("a form XObject cannot be decoded (" + err.Error() + "); text may be missing")
		return
	}
	p.interpret(r, fres, gs, depth+1, forms)
}

// show places the glyphs of a shown string (ISO 32000-1, 9.4.4): each glyph at the origin
// given by the text rendering matrix, advanced by its width plus Tc (and Tw for a one-byte
// code 32).
func (p *parser) show(s []byte, gs *gstate, tm *matrix) {
	f := gs.font
	if f == nil {
		f = defaultFont
	}
	// A character spacing of a fifth of an em or more on a string of two glyphs is no letter
	// spacing but the space between two words: Ghostscript writes "(Ne)Tj 2.25 Tc (wB)Tj"
	// for "New Balance", and the pen must stop at the glyph's end so the gap splits them. A
	// longer string so spaced is a word set wide ("S P A C E D"), kept whole.
	wordGap := false
	if gs.fs != 0 && gs.tc >= 0.2*math.Abs(gs.fs) {
		n, rest := 0, s
		for len(rest) > 0 && n < 3 {
			_, k, _, _ := f.next(rest)
			rest = rest[max(k, 1):]
			n++
		}
		wordGap = n <= 2
	}
	for len(s) > 0 && p.err == nil {
		code, n, text, w := f.next(s)
		s = s[n:]
		trm := matrix{gs.fs * gs.th, 0, 0, gs.fs, 0, gs.trise}.mul(tm.mul(gs.ctm))
		x0, y0 := trm.apply(0, 0)
		x1, y1 := trm.apply(w, 0)
		size := math.Hypot(trm[2], trm[3])
		space := f.space
		if space <= 0 {
			space = 0.25
		}
		space *= math.Hypot(trm[0], trm[1])
		tx := w*gs.fs + gs.tc
		if n == 1 && code == ' ' {
			tx += gs.tw
		}
		// The pen after the glyph, character spacing included: letter-spaced text still
		// reads as one word (but see wordGap).
		pen := tx
		if wordGap {
			pen = w * gs.fs
		}
		px, py := matrix{1, 0, 0, 1, pen * gs.th, 0}.mul(*tm).mul(gs.ctm).apply(0, gs.trise)
		p.glyph(text, x0, y0, x1, y1, px, py, size, space)
		*tm = matrix{1, 0, 0, 1, tx * gs.th, 0}.mul(*tm)
	}
}

// display turns a point of default user space into display space, where the page's
// /Rotate has been applied and text of an upright page runs left to right.
func (p *parser) display(x, y float64) (float64, float64) { return display(p.rotate, x, y) }

// display turns a point of default user space into the display space of a page with /Rotate
// rotate.
func display(rotate int, x, y float64) (float64, float64) {
	switch rotate {
	case 90:
		return y, -x
	case 180:
		return -x, -y
	case 270:
		return -y, x
	}
	return x, y
}

// glyph adds a glyph to the page's words: it extends the open word when it starts where the
// last glyph ended on the same baseline, else it starts a new word. Spaces end words; the gap
// they leave is what later tells words of one cell from separate cells.
func (p *parser) glyph(text string, x0, y0, x1, y1, px, py, size, space float64) {
	x0, y0 = p.display(x0, y0)
	x1, y1 = p.display(x1, y1)
	px, _ = p.display(px, py)
	// A glyph whose baseline climbs or falls more than a few degrees: a watermark set
	// diagonally across the page, a note printed up the margin.
	oblique := math.Abs(y1-y0) > 0.1*math.Abs(x1-x0) && math.Abs(y1-y0) > 0.01*size
	if x1 < x0 {
		x0, x1 = x1, x0
	}
	if size <= 0 || size > 1e4 || math.IsNaN(x0+y0+x1+px) || math.IsInf(x0+y0+x1+px, 0) {
		return
	}
	if strings.TrimSpace(text) == "" || text == "\u00a0" {
		p.open = false
		return
	}
	if p.open {
		w, r := &p.words[len(p.words)-1], &p.read[len(p.read)-1]
		tol := 0.15 * size
		if !oblique && !r.oblique && math.Abs(y0-w.y) < 0.2*size && x0 >= p.lastEnd-tol && x0 <= p.lastEnd+tol && r.end-r.start < maxWordBytes {
			p.text = append(p.text, text...)
			r.end = len(p.text)
			w.x1 = max(w.x1, x1)
			p.lastEnd = max(x1, px)
			return
		}
	}
	if len(p.words) >= maxRunsPerPage || p.runs >= maxRunsTotal {
		p.fail(errf(statement.ErrResourceLimit, statement.Position{Page: p.pageNo},
			"the page has more than %d words", maxRunsPerPage))
		return
	}
	p.runs++
	start := len(p.text)
	p.text = append(p.text, text...)
	p.words = append(p.words, run{x0: x0, x1: x1, y: y0, size: size, space: space})
	p.read = append(p.read, reading{start, len(p.text), oblique})
	p.open = true
	p.lastEnd = max(x1, px)
}
