package pdf

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// maxHeldLines is how many bytes of lines (words, cells, their text) a document may hold as
// they were read before pageStore packs them: a couple of hundred pages of a dense statement
// (the 200 pages of BenchmarkParse200Pages weigh 6 MiB). The table is found over the whole
// document before any row is built, so the lines of every page are read several times after
// the last page is; held as read, the 2,000 pages a statement may have would weigh about 60
// MiB, packed under a third of that.
const maxHeldLines = 8 << 20

// pageStore holds a document's lines, page by page, from reading until buildGrid has built
// the rows of each page. A small document's pages are held as read. Past budget bytes every
// page is packed (mergeHeaderLines applied first, since a packed page cannot change) and
// unpacked again each time buildGrid reads it, which costs a little time for a third of the
// memory. Unpacking gives back exactly the lines that were packed: buildGrid reads the same
// statement from either.
type pageStore struct {
	lines  [][]line // a page's lines as read; nil once packed or released
	packed [][]byte // a page's lines packed; nil while held or once released
	merged []bool   // mergeHeaderLines has joined the page's header lines
	budget int
	held   int  // bytes of lines held as read (an estimate: lineBytes)
	all    bool // every page is packed as it comes
}

// newPageStore returns a store that packs every page once the pages held as read weigh more
// than budget bytes; a negative budget never packs.
func newPageStore(budget int) *pageStore { return &pageStore{budget: budget} }

// pagesOf holds lines as read, whatever their size: OCR's pages, tests.
func pagesOf(pages [][]line) *pageStore {
	s := newPageStore(-1)
	for _, pg := range pages {
		s.add(pg)
	}
	return s
}

// add appends the next page's lines.
func (s *pageStore) add(ls []line) {
	s.lines = append(s.lines, ls)
	s.packed = append(s.packed, nil)
	s.merged = append(s.merged, false)
	if s.all {
		s.pack(len(s.lines) - 1)
		return
	}
	s.held += lineBytes(ls)
	if s.budget >= 0 && s.held > s.budget {
		for i := range s.lines {
			if s.lines[i] != nil {
				s.pack(i)
			}
		}
		s.held, s.all = 0, true
	}
}

func (s *pageStore) len() int { return len(s.lines) }

// page returns page pi's lines (0-based): the lines held, or new lines unpacked. A caller
// that changes them changes a held page only; nothing but mergeHeaders should.
func (s *pageStore) page(pi int) []line {
	if s.packed[pi] != nil {
		return unpackLines(s.packed[pi])
	}
	return s.lines[pi]
}

// release lets go of page pi once its rows are built.
func (s *pageStore) release(pi int) { s.lines[pi], s.packed[pi] = nil, nil }

// mergeHeaders joins the header lines of every page not yet merged (mergeHeaderLines).
func (s *pageStore) mergeHeaders() {
	for pi := range s.lines {
		if !s.merged[pi] && s.lines[pi] != nil {
			mergeHeaderLines(s.lines[pi])
			s.merged[pi] = true
		}
	}
}

func (s *pageStore) pack(pi int) {
	if !s.merged[pi] {
		mergeHeaderLines(s.lines[pi])
		s.merged[pi] = true
	}
	s.packed[pi] = packLines(s.lines[pi])
	s.lines[pi] = nil
}

// lineBytes estimates the memory of a page's lines.
func lineBytes(ls []line) int {
	n := cap(ls) * int(unsafe.Sizeof(line{}))
	for i := range ls {
		n += cap(ls[i].words)*int(unsafe.Sizeof(run{})) + cap(ls[i].cells)*int(unsafe.Sizeof(cell{}))
		for _, w := range ls[i].words {
			n += len(w.text)
		}
	}
	return n
}

// Flags of a packed word: which of its numbers are those of the word before it (the first
// word of a line compares with zeros).
const (
	sameY = 1 << iota
	sameSize
	sameSpace
)

// Flags of a packed cell.
const (
	cellAmount = 1 << iota
	cellDate
	cellWordText // its text is its first word's
	cellWordX0   // its x0 is its first word's
	cellWordX1   // its x1 is its last word's
)

// packLines packs a page's lines into bytes: the length of the page's text, the text of its
// words and cells one after the other, then the lines with their numbers, each word and cell
// after its line, a cell's text, x0 and x1 left out where they are its words'. Numbers are
// kept to the bit.
func packLines(ls []line) []byte {
	var text, body []byte
	nw, nc := 0, 0
	for i := range ls {
		nw, nc = nw+len(ls[i].words), nc+len(ls[i].cells)
	}
	body = binary.AppendUvarint(body, uint64(len(ls)))
	body = binary.AppendUvarint(body, uint64(nw))
	body = binary.AppendUvarint(body, uint64(nc))
	for i := range ls {
		l := &ls[i]
		body = binary.AppendUvarint(body, uint64(l.page))
		body = binary.AppendUvarint(body, uint64(l.no))
		body = appendFloat(body, l.y)
		body = appendFloat(body, l.size)
		body = append(body, byte(l.header))
		body = binary.AppendUvarint(body, uint64(len(l.words)))
		body = binary.AppendUvarint(body, uint64(len(l.cells)))
		var prev run
		for _, w := range l.words {
			var f byte
			if same(w.y, prev.y) {
				f |= sameY
			}
			if same(w.size, prev.size) {
				f |= sameSize
			}
			if same(w.space, prev.space) {
				f |= sameSpace
			}
			body = append(body, f)
			text = append(text, w.text...)
			body = binary.AppendUvarint(body, uint64(len(w.text)))
			body = appendFloat(body, w.x0)
			body = appendFloat(body, w.x1)
			if f&sameY == 0 {
				body = appendFloat(body, w.y)
			}
			if f&sameSize == 0 {
				body = appendFloat(body, w.size)
			}
			if f&sameSpace == 0 {
				body = appendFloat(body, w.space)
			}
			prev = w
		}
		for _, c := range l.cells {
			var f byte
			if c.amount {
				f |= cellAmount
			}
			if c.date {
				f |= cellDate
			}
			inWords := c.first >= 0 && c.first < c.last && int(c.last) <= len(l.words)
			if inWords && c.text == l.words[c.first].text {
				f |= cellWordText
			}
			if inWords && same(c.x0, l.words[c.first].x0) {
				f |= cellWordX0
			}
			if inWords && same(c.x1, l.words[c.last-1].x1) {
				f |= cellWordX1
			}
			body = append(body, f)
			body = binary.AppendUvarint(body, uint64(uint32(c.first)))
			body = binary.AppendUvarint(body, uint64(uint32(c.last)))
			if f&cellWordText == 0 {
				text = append(text, c.text...)
				body = binary.AppendUvarint(body, uint64(len(c.text)))
			}
			if f&cellWordX0 == 0 {
				body = appendFloat(body, c.x0)
			}
			if f&cellWordX1 == 0 {
				body = appendFloat(body, c.x1)
			}
		}
	}
	out := make([]byte, 0, binary.MaxVarintLen64+len(text)+len(body))
	out = binary.AppendUvarint(out, uint64(len(text)))
	out = append(out, text...)
	return append(out, body...)
}

// unpackLines gives back the lines packLines packed. The page's texts share one string, its
// words one array and its cells another.
func unpackLines(b []byte) []line {
	u := unpacker{b: b}
	n := int(u.uvarint())
	text := string(u.bytes(n))
	ls := make([]line, u.uvarint())
	words, cells := make([]run, u.uvarint()), make([]cell, u.uvarint())
	at := 0
	for i := range ls {
		l := &ls[i]
		*l = line{page: int(u.uvarint()), no: int(u.uvarint()), y: u.float(), size: u.float(), header: int8(u.byte())}
		w, c := int(u.uvarint()), int(u.uvarint())
		if w > 0 {
			l.words = words[:w:w]
			words = words[w:]
		}
		if c > 0 {
			l.cells = cells[:c:c]
			cells = cells[c:]
		}
		var prev run
		for k := range l.words {
			f := u.byte()
			size := int(u.uvarint())
			wd := run{text: text[at : at+size], x0: u.float(), x1: u.float(), y: prev.y, size: prev.size, space: prev.space}
			at += size
			if f&sameY == 0 {
				wd.y = u.float()
			}
			if f&sameSize == 0 {
				wd.size = u.float()
			}
			if f&sameSpace == 0 {
				wd.space = u.float()
			}
			l.words[k] = wd
			prev = wd
		}
		for k := range l.cells {
			f := u.byte()
			c := cell{first: int32(uint32(u.uvarint())), last: int32(uint32(u.uvarint())), amount: f&cellAmount != 0, date: f&cellDate != 0}
			if f&cellWordText != 0 {
				c.text = l.words[c.first].text
			} else {
				size := int(u.uvarint())
				c.text = text[at : at+size]
				at += size
			}
			if f&cellWordX0 != 0 {
				c.x0 = l.words[c.first].x0
			} else {
				c.x0 = u.float()
			}
			if f&cellWordX1 != 0 {
				c.x1 = l.words[c.last-1].x1
			} else {
				c.x1 = u.float()
			}
			l.cells[k] = c
		}
	}
	return ls
}

// same reports two numbers equal to the bit (so that a packed -0 stays -0).
func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// unpacker reads what packLines wrote; it trusts it, since nothing else writes it.
type unpacker struct {
	b  []byte
	at int
}

func (u *unpacker) uvarint() uint64 {
	v, n := binary.Uvarint(u.b[u.at:])
	u.at += n
	return v
}

func (u *unpacker) byte() byte {
	u.at++
	return u.b[u.at-1]
}

func (u *unpacker) bytes(n int) []byte {
	u.at += n
	return u.b[u.at-n : u.at]
}

func (u *unpacker) float() float64 {
	u.at += 8
	return math.Float64frombits(binary.LittleEndian.Uint64(u.b[u.at-8:]))
}
