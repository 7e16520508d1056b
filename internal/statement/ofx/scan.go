package ofx

import (
	"bytes"
)

// tokKind is the kind of a token of the OFX body.
type tokKind uint8

const (
	tokEOF tokKind = iota
	// tokStart is a start tag with the text that follows it up to the next tag. closed says
	// that the tag's own end tag follows that text directly (<CODE>0</CODE>, <NAME/>): then the
	// element is certainly a leaf and the end tag is already consumed.
	tokStart
	// tokEnd is an end tag that did not directly follow its start tag's text.
	tokEnd
)

// token is one tag of the body. Slices point into the scanned text.
type token struct {
	kind tokKind
	name []byte
	// val is the text after a start tag up to the next tag, untrimmed. It may hold comments
	// and CDATA sections (special is then true), which valueString removes.
	val     []byte
	vs      int // offset of val in the scanned text
	special bool
	closed  bool
	// start is the offset of the token's '<', end the offset just after it (after the end
	// tag's '>' when closed).
	start, end int
}

// scanner splits an OFX body, SGML (OFX 1.x) or XML (OFX 2.x), into tags. It knows nothing of
// OFX: deciding which start tags open aggregates is the job of matchAggregates. It never
// expands entities other than the predefined and numeric ones (see valueString), so entity
// bombs are inert, and it skips DOCTYPE declarations, processing instructions and comments.
type scanner struct {
	b []byte
	i int
}

func isNameStart(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_'
}

func isNameChar(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// skipPast returns the offset just after the first occurrence of sep at or after i, or
// len(b) when there is none (a truncated comment runs to the end of the file).
func skipPast(b []byte, i int, sep string) int {
	if i > len(b) {
		return len(b)
	}
	j := bytes.Index(b[i:], []byte(sep))
	if j < 0 {
		return len(b)
	}
	return i + j + len(sep)
}

// skipMarkup skips "<!...>" or "<?...?>" at i and returns the offset after it. A DOCTYPE's
// internal subset ("[...]") is skipped whole; its entity declarations are never used.
func skipMarkup(b []byte, i int) int {
	switch {
	case bytes.HasPrefix(b[i:], []byte("<!--")):
		return skipPast(b, i+4, "-->")
	case bytes.HasPrefix(b[i:], []byte("<![CDATA[")):
		return skipPast(b, i+9, "]]>")
	case bytes.HasPrefix(b[i:], []byte("<?")):
		return skipPast(b, i+2, "?>")
	}
	// <!DOCTYPE ...> or another declaration.
	for j := i + 2; j < len(b); j++ {
		switch b[j] {
		case '>':
			return j + 1
		case '[':
			k := bytes.IndexByte(b[j:], ']')
			if k < 0 {
				return len(b)
			}
			j += k
		}
	}
	return len(b)
}

// next reads the next token into t and reports false at the end of the text.
func (s *scanner) next(t *token) bool {
	b := s.b
	for {
		if s.i >= len(b) {
			t.kind = tokEOF
			return false
		}
		j := bytes.IndexByte(b[s.i:], '<')
		if j < 0 {
			s.i = len(b)
			t.kind = tokEOF
			return false
		}
		i := s.i + j
		if i+1 >= len(b) {
			s.i = len(b)
			continue
		}
		c := b[i+1]
		switch {
		case c == '!' || c == '?':
			s.i = skipMarkup(b, i)
			continue
		case c == '/':
			n := i + 2
			for n < len(b) && isSpace(b[n]) {
				n++
			}
			ns := n
			for n < len(b) && isNameChar(b[n]) {
				n++
			}
			if n == ns || ns < len(b) && !isNameStart(b[ns]) {
				s.i = i + 1 // "</" without a name: literal text
				continue
			}
			name := b[ns:n]
			k := bytes.IndexByte(b[n:], '>')
			if k < 0 {
				s.i = len(b) // truncated end tag
				continue
			}
			*t = token{kind: tokEnd, name: name, start: i, end: n + k + 1}
			s.i = t.end
			return true
		case isNameStart(c):
			n := i + 1
			for n < len(b) && isNameChar(b[n]) {
				n++
			}
			name := b[i+1 : n]
			if n >= len(b) {
				s.i = len(b) // truncated start tag
				continue
			}
			self := false
			switch {
			case b[n] == '>':
				n++
			case isSpace(b[n]) || b[n] == '/':
				// Attributes (OFX has none, XML might) or "<NAME/>".
				k := bytes.IndexByte(b[n:], '>')
				if k < 0 {
					s.i = len(b)
					continue
				}
				self = b[n+k-1] == '/'
				n += k + 1
			default:
				s.i = i + 1 // "<3 TIMES" and the like: literal text
				continue
			}
			*t = token{kind: tokStart, name: name, start: i}
			if self {
				t.closed = true
				t.end = n
				s.i = n
				return true
			}
			v, special := s.text(n)
			t.val, t.vs, t.special = b[n:v], n, special
			t.end = v
			// The element's own end tag straight after the text makes it a leaf.
			if e, ok := endTagAt(b, v, name); ok {
				t.closed = true
				t.end = e
			}
			s.i = t.end
			return true
		default:
			s.i = i + 1
			continue
		}
	}
}

// text returns the end of the text that starts at i: the offset of the next tag. Comments,
// CDATA sections and '<' that start no tag belong to the text; special reports the first two.
func (s *scanner) text(i int) (end int, special bool) {
	b := s.b
	for {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return len(b), special
		}
		i += j
		if i+1 >= len(b) {
			return len(b), special
		}
		c := b[i+1]
		switch {
		case c == '!' && (bytes.HasPrefix(b[i:], []byte("<!--")) || bytes.HasPrefix(b[i:], []byte("<![CDATA["))):
			special = true
			i = skipMarkup(b, i)
		case c == '/' || c == '?' || c == '!' || isNameStart(c):
			return i, special
		default:
			i++
		}
	}
}

// endTagAt reports whether "</name>" (spaces allowed before '>') starts at i, and the offset
// after it. Names compare case-insensitively, as SGML does.
func endTagAt(b []byte, i int, name []byte) (int, bool) {
	if i+2+len(name) > len(b) || b[i] != '<' || b[i+1] != '/' {
		return 0, false
	}
	n := b[i+2 : i+2+len(name)]
	if !bytes.Equal(n, name) && !bytes.EqualFold(n, name) {
		return 0, false
	}
	k := i + 2 + len(name)
	for k < len(b) && isSpace(b[k]) {
		k++
	}
	if k >= len(b) || b[k] != '>' {
		return 0, false
	}
	return k + 1, true
}
