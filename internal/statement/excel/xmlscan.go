package excel

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// The OOXML parts of a workbook are read with this small pull tokenizer rather than
// encoding/xml: on a worksheet of 200,000 rows (~60 MB of XML) encoding/xml's RawToken alone
// manages ~145,000 rows/s, below the target, and allocates per token. SpreadsheetML uses
// only a sliver of XML (elements, attributes, character data, the five predefined entities and
// character references), so the tokenizer handles just that; a document type declaration, which
// OPC forbids in a package part (ECMA-376 Part 2, 8.1.4), is refused outright, so no entity
// expansion (billion laughs) can happen.

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
	tokText
)

// maxToken bounds one tag or one run of character data. Excel caps a cell at 32,767 characters
// (at most 4 bytes each in UTF-8, more with entities); a longer token is not a workbook of ours.
const maxToken = 1 << 20

var (
	errDTD        = errors.New("the XML has a document type declaration, which a workbook part may not have")
	errTokenLimit = errors.New("an XML tag or text is longer than 1 MiB")
	errBadMarkup  = errors.New("malformed XML markup")
)

// xmlScanner reads tokens from an XML stream. Slices it returns (name, attrs, raw text) point
// into its buffer and are valid only until the next call of next.
type xmlScanner struct {
	r   io.Reader
	buf []byte
	pos int // start of the unread input in buf
	end int // end of the data in buf
	eof bool

	kind tokKind
	// name is the local name of a start or end tag, without its namespace prefix.
	name []byte
	// attrs is the raw attribute text of a start tag.
	attrs []byte
	// selfClose is true for <tag/>: no end token follows it.
	selfClose bool
	// raw is character data as in the file (entities not yet decoded) unless cdata is set.
	raw   []byte
	cdata bool

	afterLT bool // the '<' of the next tag has been consumed
	err     error
}

const scanBuf = 64 << 10

func newXMLScanner(r io.Reader) *xmlScanner {
	return &xmlScanner{r: r, buf: make([]byte, scanBuf)}
}

// fill moves the unread input to the front of the buffer, growing it when a token fills it
// (up to maxToken), and reads more. It returns false at the end of the input or on an error.
func (s *xmlScanner) fill() bool {
	if s.eof || s.err != nil {
		return false
	}
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxToken+scanBuf {
			s.err = errTokenLimit
			return false
		}
		grown := make([]byte, min(2*len(s.buf), maxToken+scanBuf))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err == io.EOF {
			s.eof = true
			return n > 0
		}
		if err != nil {
			s.err = err
			return false
		}
		if n > 0 {
			return true
		}
	}
}

// find returns the offset, relative to pos, of the first c at or after offset from, reading
// more input as needed; -1 at the end of the input, on a read error, or past maxToken.
func (s *xmlScanner) find(c byte, from int) int {
	for {
		if i := bytes.IndexByte(s.buf[s.pos+from:s.end], c); i >= 0 && from+i <= maxToken {
			return from + i
		}
		from = s.end - s.pos
		if from > maxToken {
			if s.err == nil {
				s.err = errTokenLimit
			}
			return -1
		}
		if !s.fill() {
			return -1
		}
	}
}

// next advances to the next token and returns its kind; tokEOF at the end or on error (see err).
func (s *xmlScanner) next() tokKind {
	if s.err != nil {
		s.kind = tokEOF
		return tokEOF
	}
	if !s.afterLT {
		i := s.find('<', 0)
		if i < 0 {
			// Character data after the root element is not markup; it ends the document.
			s.kind = tokEOF
			return tokEOF
		}
		s.afterLT = true
		if i > 0 {
			s.kind, s.raw, s.cdata = tokText, s.buf[s.pos:s.pos+i], false
			s.pos += i + 1
			return tokText
		}
		s.pos++
	}
	s.afterLT = false
	if s.pos >= s.end && !s.fill() {
		return s.fail(io.ErrUnexpectedEOF)
	}
	switch s.buf[s.pos] {
	case '/':
		i := s.find('>', 1)
		if i < 0 {
			return s.fail(io.ErrUnexpectedEOF)
		}
		s.kind, s.name = tokEnd, localName(s.buf[s.pos+1:s.pos+i])
		s.pos += i + 1
		return tokEnd
	case '?':
		if !s.skipPast("?>") {
			return s.fail(io.ErrUnexpectedEOF)
		}
		return s.next()
	case '!':
		return s.bang()
	}
	// A start tag ends at the first '>' outside a quoted attribute value.
	var q byte
	from := 0
	for {
		i := s.find('>', from)
		if i < 0 {
			return s.fail(io.ErrUnexpectedEOF)
		}
		if q = quoteState(q, s.buf[s.pos+from:s.pos+i]); q == 0 {
			b := s.buf[s.pos : s.pos+i]
			s.pos += i + 1
			return s.startTag(b)
		}
		from = i + 1 // the '>' is inside a quoted value
	}
}

func (s *xmlScanner) startTag(b []byte) tokKind {
	s.selfClose = len(b) > 0 && b[len(b)-1] == '/'
	if s.selfClose {
		b = b[:len(b)-1]
	}
	end := 0
	for end < len(b) && !isSpace(b[end]) {
		end++
	}
	if end == 0 {
		return s.fail(errBadMarkup)
	}
	s.kind, s.name, s.attrs = tokStart, localName(b[:end]), b[end:]
	return tokStart
}

// quoteState returns the quote character b ends inside of (0 when outside any quoted attribute
// value), starting inside q.
func quoteState(q byte, b []byte) byte {
	if q == 0 && bytes.IndexByte(b, '\'') < 0 {
		// The usual tag, double quotes only: outside a value when they pair up.
		if bytes.Count(b, []byte{'"'})%2 == 0 {
			return 0
		}
		return '"'
	}
	for len(b) > 0 {
		if q != 0 {
			i := bytes.IndexByte(b, q)
			if i < 0 {
				return q
			}
			b, q = b[i+1:], 0
			continue
		}
		i := bytes.IndexAny(b, "\"'")
		if i < 0 {
			return 0
		}
		q, b = b[i], b[i+1:]
	}
	return q
}

// bang handles <!-- comments -->, <![CDATA[ sections ]]> and refuses <!DOCTYPE.
func (s *xmlScanner) bang() tokKind {
	for s.end-s.pos < 9 && s.fill() {
	}
	rest := s.buf[s.pos:s.end]
	switch {
	case bytes.HasPrefix(rest, []byte("!--")):
		s.pos += 3
		if !s.skipPast("-->") {
			return s.fail(io.ErrUnexpectedEOF)
		}
		return s.next()
	case bytes.HasPrefix(rest, []byte("![CDATA[")):
		s.pos += 8
		from := 0
		for {
			i := s.find('>', from)
			if i < 0 {
				return s.fail(io.ErrUnexpectedEOF)
			}
			if i >= 2 && s.buf[s.pos+i-1] == ']' && s.buf[s.pos+i-2] == ']' {
				s.kind, s.raw, s.cdata = tokText, s.buf[s.pos:s.pos+i-2], true
				s.pos += i + 1
				return tokText
			}
			from = i + 1
		}
	case bytes.HasPrefix(rest, []byte("!DOCTYPE")), bytes.HasPrefix(rest, []byte("!doctype")):
		return s.fail(errDTD)
	}
	return s.fail(errBadMarkup)
}

// skipPast discards input up to and including end (a comment or processing instruction,
// however long: skipped text is not kept, so its length is no limit); false when it never comes.
func (s *xmlScanner) skipPast(end string) bool {
	last := end[len(end)-1]
	keep := len(end) - 1 // bytes before a candidate last byte that may begin the terminator
	from := 0
	for {
		i := s.find(last, from)
		if i < 0 {
			if s.err != errTokenLimit {
				return false
			}
			s.err = nil
			s.pos = max(s.pos, s.end-keep)
			from = s.end - s.pos
			continue
		}
		if i >= keep && string(s.buf[s.pos+i-keep:s.pos+i+1]) == end {
			s.pos += i + 1
			return true
		}
		if drop := i + 1 - keep; drop > 0 {
			s.pos += drop
			from = keep
		} else {
			from = i + 1
		}
	}
}

func (s *xmlScanner) fail(err error) tokKind {
	if s.err == nil {
		s.err = err
	}
	s.kind = tokEOF
	return tokEOF
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// localName strips a namespace prefix: SpreadsheetML is written as <c> by Excel and as <x:c> by
// the .NET Open XML SDK; both mean the same element.
func localName(b []byte) []byte {
	for end := len(b); end > 0 && isSpace(b[end-1]); end-- {
		b = b[:end-1]
	}
	if i := bytes.LastIndexByte(b, ':'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// text returns the current text token with entities decoded.
func (s *xmlScanner) text() string {
	if s.cdata || bytes.IndexByte(s.raw, '&') < 0 {
		return string(s.raw)
	}
	return string(unescape(nil, s.raw))
}

// appendText appends the current text token, decoded, to dst.
func (s *xmlScanner) appendText(dst []byte) []byte {
	if s.cdata || bytes.IndexByte(s.raw, '&') < 0 {
		return append(dst, s.raw...)
	}
	return unescape(dst, s.raw)
}

// attr returns the decoded value of the start tag's attribute with the given local name.
func (s *xmlScanner) attr(name string) (string, bool) {
	v, ok := s.attrRaw(name)
	if !ok {
		return "", false
	}
	if bytes.IndexByte(v, '&') < 0 {
		return string(v), true
	}
	return string(unescape(nil, v)), true
}

// attrRaw returns the attribute's value as in the file. A prefixed name (r:id) matches its
// local part (id).
func (s *xmlScanner) attrRaw(name string) ([]byte, bool) {
	for b := s.attrs; ; {
		key, val, rest, ok := nextAttr(b)
		if !ok {
			return nil, false
		}
		if string(key) == name {
			return val, true
		}
		b = rest
	}
}

// nextAttr splits the first attribute off raw attribute text: its local name, its value as in
// the file, and the text after it; ok is false when there is none (or it is malformed).
func nextAttr(b []byte) (key, val, rest []byte, ok bool) {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	eq := bytes.IndexByte(b, '=')
	if eq < 0 {
		return nil, nil, nil, false
	}
	key = localName(b[:eq])
	b = b[eq+1:]
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] != '"' && b[0] != '\'') {
		return nil, nil, nil, false
	}
	end := bytes.IndexByte(b[1:], b[0])
	if end < 0 {
		return nil, nil, nil, false
	}
	return key, b[1 : 1+end], b[end+2:], true
}

// unescape appends b to dst with the predefined entities and character references decoded. An
// unknown or malformed reference is kept as written: the text is data to show, not to reject.
func unescape(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '&')
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		b = b[i:]
		semi := bytes.IndexByte(b[:min(len(b), 12)], ';')
		if semi < 0 {
			dst = append(dst, '&')
			b = b[1:]
			continue
		}
		ref := b[1:semi]
		switch string(ref) {
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "amp":
			dst = append(dst, '&')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			r, ok := charRef(ref)
			if !ok {
				dst = append(dst, b[:semi+1]...)
				b = b[semi+1:]
				continue
			}
			dst = utf8.AppendRune(dst, r)
		}
		b = b[semi+1:]
	}
}

func charRef(ref []byte) (rune, bool) {
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	var n uint64
	var err error
	if ref[1] == 'x' || ref[1] == 'X' {
		n, err = strconv.ParseUint(string(ref[2:]), 16, 32)
	} else {
		n, err = strconv.ParseUint(string(ref[1:]), 10, 32)
	}
	if err != nil {
		return 0, false
	}
	if r := rune(n); utf8.ValidRune(r) && r != 0 {
		return r, true
	}
	return utf8.RuneError, true
}
