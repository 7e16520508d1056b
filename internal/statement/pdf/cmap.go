package pdf

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf16"
)

// Bounds of one CMap. A ToUnicode CMap of a subset font has a few hundred entries; a full
// CJK font some tens of thousands.
const (
	maxCMapBytes   = 4 << 20
	maxCMapEntries = 1 << 17
)

// codespace is one range of byte codes of a given length (begincodespacerange).
type codespace struct {
	n      int
	lo, hi [4]byte
}

// bfRange maps a run of codes to Unicode (beginbfrange): either the destination string
// incremented in its last character, or one string per code.
type bfRange struct {
	n      int
	lo, hi uint32
	dst    []rune
	list   []string
}

// cmap is what this package needs of a CMap (ISO 32000-1, 9.7.5 and 9.10.3): the codespace
// ranges that say how many bytes a code has, and the mapping of codes to Unicode text.
type cmap struct {
	spaces []codespace
	chars  map[uint64]string // (length << 32 | code) -> text
	ranges []bfRange         // sorted by lo
	// spaceCode is a code mapped to U+0020, to learn the width of a space.
	spaceCode uint32
	hasSpace  bool
}

func codeKey(code uint32, n int) uint64 { return uint64(n)<<32 | uint64(code) }

// parseCMap reads the parts of a CMap this package uses; anything else (usecmap, cidrange,
// PostScript around it) is skipped. A damaged CMap gives what could be read.
func parseCMap(data []byte) *cmap {
	cm := &cmap{chars: map[uint64]string{}}
	lx := newLexer(bytes.NewReader(data))
	defer lx.release()
	var operands []token
	entries := 0
	for entries < maxCMapEntries {
		t, err := lx.next()
		if err != nil || t.kind == tkEOF {
			break
		}
		if t.kind != tkOp {
			if len(operands) < 16 {
				if t.kind == tkStr || t.kind == tkName {
					t.b = bytes.Clone(t.b)
				}
				operands = append(operands, t)
			}
			continue
		}
		switch string(t.b) {
		case "begincodespacerange":
			entries += cm.readCodespace(lx)
		case "beginbfchar":
			entries += cm.readBFChar(lx)
		case "beginbfrange":
			entries += cm.readBFRange(lx, maxCMapEntries-entries)
		}
		operands = operands[:0]
	}
	sort.Slice(cm.ranges, func(i, j int) bool { return cm.ranges[i].lo < cm.ranges[j].lo })
	return cm
}

// sectionTokens reads the operands of a begin...end section until its end keyword.
func sectionTokens(lx *lexer, end string, max int) [][]token {
	var groups [][]token
	var cur []token
	for len(groups) < max {
		t, err := lx.next()
		if err != nil || t.kind == tkEOF {
			break
		}
		if t.kind == tkOp && string(t.b) == end {
			break
		}
		switch t.kind {
		case tkStr, tkName, tkOp:
			t.b = bytes.Clone(t.b)
		case tkArrOpen:
			// An array of destination strings, in bfrange.
			var items []token
			for len(items) < 1<<16 {
				e, err := lx.next()
				if err != nil || e.kind == tkEOF || e.kind == tkArrClose {
					break
				}
				if e.kind == tkStr {
					e.b = bytes.Clone(e.b)
					items = append(items, e)
				}
			}
			cur = append(cur, token{kind: tkArrOpen})
			groups = append(groups, append(cur, items...))
			cur = nil
			continue
		}
		cur = append(cur, t)
		if len(cur) == 3 || (len(cur) == 2 && end != "endbfrange") {
			groups = append(groups, cur)
			cur = nil
		}
	}
	return groups
}

func codeOf(b []byte) (uint32, int, bool) {
	if len(b) == 0 || len(b) > 4 {
		return 0, 0, false
	}
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v, len(b), true
}

func (cm *cmap) readCodespace(lx *lexer) int {
	groups := sectionTokens(lx, "endcodespacerange", 256)
	for _, g := range groups {
		if len(g) != 2 || g[0].kind != tkStr || g[1].kind != tkStr || len(g[0].b) != len(g[1].b) ||
			len(g[0].b) == 0 || len(g[0].b) > 4 {
			continue
		}
		cs := codespace{n: len(g[0].b)}
		copy(cs.lo[:], g[0].b)
		copy(cs.hi[:], g[1].b)
		cm.spaces = append(cm.spaces, cs)
	}
	return len(groups)
}

func (cm *cmap) readBFChar(lx *lexer) int {
	groups := sectionTokens(lx, "endbfchar", maxCMapEntries)
	for _, g := range groups {
		if len(g) != 2 || g[0].kind != tkStr {
			continue
		}
		code, n, ok := codeOf(g[0].b)
		if !ok {
			continue
		}
		var s string
		switch g[1].kind {
		case tkStr:
			s = utf16Text(g[1].b)
		case tkName:
			if r, ok := glyphRune(string(g[1].b)); ok {
				s = string(r)
			}
		}
		cm.chars[codeKey(code, n)] = s
		if s == " " && !cm.hasSpace {
			cm.spaceCode, cm.hasSpace = code, true
		}
	}
	return len(groups)
}

func (cm *cmap) readBFRange(lx *lexer, max int) int {
	groups := sectionTokens(lx, "endbfrange", max)
	for _, g := range groups {
		if len(g) < 3 || g[0].kind != tkStr || g[1].kind != tkStr {
			continue
		}
		lo, n, ok1 := codeOf(g[0].b)
		hi, n2, ok2 := codeOf(g[1].b)
		if !ok1 || !ok2 || n != n2 || hi < lo {
			continue
		}
		r := bfRange{n: n, lo: lo, hi: hi}
		switch g[2].kind {
		case tkStr:
			r.dst = []rune(utf16Text(g[2].b))
			if len(r.dst) == 0 {
				continue
			}
			if first := r.dst[0]; len(r.dst) == 1 && first >= 0 && first <= ' ' && uint32(' '-first) <= hi-lo && !cm.hasSpace {
				cm.spaceCode, cm.hasSpace = lo+uint32(' '-first), true
			}
		case tkArrOpen:
			for _, it := range g[3:] {
				r.list = append(r.list, utf16Text(it.b))
			}
			if uint64(len(r.list)) < uint64(hi-lo)+1 {
				r.hi = lo + uint32(len(r.list)) - 1
				if len(r.list) == 0 {
					continue
				}
			}
		default:
			continue
		}
		cm.ranges = append(cm.ranges, r)
	}
	return len(groups)
}

// lookup returns the Unicode text of a code of n bytes.
func (cm *cmap) lookup(code uint32, n int) (string, bool) {
	if s, ok := cm.chars[codeKey(code, n)]; ok {
		return s, true
	}
	// The range with the largest lo <= code; ranges rarely overlap, so one look suffices,
	// with a short walk back for the ones that do.
	i := sort.Search(len(cm.ranges), func(i int) bool { return cm.ranges[i].lo > code }) - 1
	for k := 0; i >= 0 && k < 8; i, k = i-1, k+1 {
		r := &cm.ranges[i]
		if code > r.hi || r.n != n {
			continue
		}
		off := code - r.lo
		if r.list != nil {
			return r.list[off], true
		}
		d := make([]rune, len(r.dst))
		copy(d, r.dst)
		d[len(d)-1] += rune(off)
		return string(d), true
	}
	return "", false
}

// codeLen returns the byte length of the code starting s, by the codespace ranges; 0 when
// the map has none.
func (cm *cmap) codeLen(s []byte) int {
	if cm == nil || len(cm.spaces) == 0 {
		return 0
	}
	for n := 1; n <= 4 && n <= len(s); n++ {
		for _, cs := range cm.spaces {
			if cs.n != n {
				continue
			}
			match := true
			for k := range n {
				if s[k] < cs.lo[k] || s[k] > cs.hi[k] {
					match = false
					break
				}
			}
			if match {
				return n
			}
		}
	}
	// No range matches: take the shortest length the map uses (ISO 32000-1, 9.7.6.3).
	n := 4
	for _, cs := range cm.spaces {
		n = min(n, cs.n)
	}
	return n
}

// utf16Text decodes a bfchar/bfrange destination, UTF-16BE; a single byte is read as Latin-1.
func utf16Text(b []byte) string {
	if len(b) == 1 {
		return string(rune(b[0]))
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	s := string(utf16.Decode(u))
	return strings.ToValidUTF8(s, "\uFFFD")
}
