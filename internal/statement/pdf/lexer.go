package pdf

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"sync"
)

// maxTokenBytes bounds one string, name or number in a content stream or CMap. Text shown by
// one operator in a statement is a line at most; a megabyte is a hostile file.
const maxTokenBytes = 1 << 20

var errTokenTooLong = errors.New("content stream token longer than 1 MiB")

type tokKind uint8

const (
	tkEOF tokKind = iota
	tkNum
	tkStr  // literal (...) or hex <...> string, decoded to bytes
	tkName // /Name, without the slash, #xx escapes decoded
	tkOp   // operator or keyword (true, false, null, BT, Tj, ...)
	tkArrOpen
	tkArrClose
	tkDictOpen
	tkDictClose
)

type token struct {
	kind tokKind
	num  float64
	b    []byte // string bytes, name or operator text
}

// lexer splits a content stream or CMap into tokens (ISO 32000-1, 7.2 and 7.3), reading as
// it goes so the stream never has to be in memory at once.
type lexer struct {
	r   *bufio.Reader
	buf []byte
	err error // the reader's first error other than EOF
}

// lexerReaders keeps the lexers' 32 KiB read buffers from stream to stream: a buffer per content
// stream was 64 MB of garbage for a statement of 2,000 pages.
var lexerReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// newLexer returns a lexer reading r; release gives its buffer back once it is done with.
func newLexer(r io.Reader) *lexer {
	br := lexerReaders.Get().(*bufio.Reader)
	br.Reset(r)
	return &lexer{r: br}
}

// release gives the lexer's read buffer back for the next stream. The tokens it returned stay
// valid (they live in the lexer's own buffer); the lexer itself reads nothing more.
func (l *lexer) release() {
	if l.r != nil {
		l.r.Reset(nil)
		lexerReaders.Put(l.r)
		l.r = nil
	}
}

func (l *lexer) readByte() (byte, bool) {
	c, err := l.r.ReadByte()
	if err != nil {
		if err != io.EOF && l.err == nil {
			l.err = err
		}
		return 0, false
	}
	return c, true
}

func (l *lexer) unread() { _ = l.r.UnreadByte() }

// skipSpaces discards white space a buffer at a time: streams padded with megabytes of
// blanks (or a decompression bomb of zeros) cost a scan, not a call per byte.
func (l *lexer) skipSpaces() {
	for {
		buf, err := l.r.Peek(max(1, l.r.Buffered()))
		i := 0
		for i < len(buf) && isSpace(buf[i]) {
			i++
		}
		_, _ = l.r.Discard(i)
		if i < len(buf) || err != nil {
			if err != nil && err != io.EOF && l.err == nil {
				l.err = err
			}
			return
		}
	}
}

// next returns the next token; tkEOF at the end or on a read error (in l.err).
func (l *lexer) next() (token, error) {
	for {
		l.skipSpaces()
		c, ok := l.readByte()
		if !ok {
			return token{kind: tkEOF}, l.err
		}
		switch {
		case isSpace(c):
			continue
		case c == '%':
			for {
				c, ok = l.readByte()
				if !ok || c == '\n' || c == '\r' {
					break
				}
			}
			continue
		case c == '(':
			b, err := l.literal()
			return token{kind: tkStr, b: b}, err
		case c == '<':
			c2, ok := l.readByte()
			if ok && c2 == '<' {
				return token{kind: tkDictOpen}, nil
			}
			if ok {
				l.unread()
			}
			b, err := l.hex()
			return token{kind: tkStr, b: b}, err
		case c == '>':
			if c2, ok := l.readByte(); ok && c2 != '>' {
				l.unread()
			}
			return token{kind: tkDictClose}, nil
		case c == '[':
			return token{kind: tkArrOpen}, nil
		case c == ']':
			return token{kind: tkArrClose}, nil
		case c == '/':
			b, err := l.regular(nil)
			return token{kind: tkName, b: decodeName(b)}, err
		case c == '{' || c == '}' || c == ')':
			return token{kind: tkOp, b: []byte{c}}, nil
		case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
			b, err := l.regular([]byte{c})
			if err != nil {
				return token{}, err
			}
			if v, ok := parseNumber(b); ok {
				return token{kind: tkNum, num: v}, nil
			}
			return token{kind: tkOp, b: b}, nil
		default:
			b, err := l.regular([]byte{c})
			return token{kind: tkOp, b: b}, err
		}
	}
}

// regular reads the rest of a run of regular characters.
func (l *lexer) regular(start []byte) ([]byte, error) {
	l.buf = append(l.buf[:0], start...)
	for {
		c, ok := l.readByte()
		if !ok {
			break
		}
		if isDelimOrSpace(c) {
			l.unread()
			break
		}
		if len(l.buf) >= maxTokenBytes {
			return nil, errTokenTooLong
		}
		l.buf = append(l.buf, c)
	}
	return l.buf, nil
}

// literal reads a (string) after its opening parenthesis: balanced parentheses, backslash
// escapes, octal codes and line continuations.
func (l *lexer) literal() ([]byte, error) {
	var out []byte
	depth := 1
	for {
		c, ok := l.readByte()
		if !ok {
			return out, nil // unterminated at the end of the stream: keep what is there
		}
		if len(out) >= maxTokenBytes {
			return nil, errTokenTooLong
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return out, nil
			}
		case '\\':
			e, ok := l.readByte()
			if !ok {
				return out, nil
			}
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if n, ok := l.readByte(); ok && n != '\n' {
					l.unread()
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for range 2 {
						d, ok := l.readByte()
						if !ok {
							break
						}
						if d < '0' || d > '7' {
							l.unread()
							break
						}
						v = v*8 + int(d-'0')
					}
					c = byte(v)
				} else {
					c = e // \( \) \\ and unknown escapes stand for the character
				}
			}
		}
		out = append(out, c)
	}
}

// hex reads a <hex string> after its opening bracket; an odd final digit counts as followed
// by 0, non-hex characters are skipped.
func (l *lexer) hex() ([]byte, error) {
	var out []byte
	hi, half := byte(0), false
	for {
		c, ok := l.readByte()
		if !ok || c == '>' {
			break
		}
		v, ok := hexVal(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
			half = false
			if len(out) >= maxTokenBytes {
				return nil, errTokenTooLong
			}
		} else {
			hi, half = v, true
		}
	}
	if half {
		out = append(out, hi<<4)
	}
	return out, nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeName decodes #xx escapes of a name into a fresh slice.
func decodeName(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			h, ok1 := hexVal(b[i+1])
			lo, ok2 := hexVal(b[i+2])
			if ok1 && ok2 {
				out = append(out, h<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

// parseNumber reads a PDF number: an optional sign, digits, an optional point. Producers write
// oddities such as "--5" or "5-"; those read as the number they most likely mean.
func parseNumber(b []byte) (float64, bool) {
	neg := false
	i := 0
	for i < len(b) && (b[i] == '+' || b[i] == '-') {
		if b[i] == '-' {
			neg = !neg
		}
		i++
	}
	var v float64
	digits := false
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		v = v*10 + float64(b[i]-'0')
		digits = true
		i++
	}
	if i < len(b) && b[i] == '.' {
		i++
		scale := 0.1
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			v += float64(b[i]-'0') * scale
			scale /= 10
			digits = true
			i++
		}
	}
	for i < len(b) && b[i] == '-' {
		i++ // trailing minus written by some producers: ignore
	}
	if !digits || i != len(b) {
		if f, err := strconv.ParseFloat(string(b), 64); err == nil && digits {
			return f, true
		}
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// skipInlineImage skips the data of an inline image after its ID operator: binary data up to
// an EI keyword that stands between whitespace. The search is bounded by the stream budget.
func (l *lexer) skipInlineImage() {
	if _, ok := l.readByte(); !ok { // the single whitespace after ID
		return
	}
	var p1, p2 byte = 'x', 'x'
	for {
		c, ok := l.readByte()
		if !ok {
			return
		}
		if p2 == 'E' && c == 'I' && isSpace(p1) {
			n, ok := l.readByte()
			if !ok || isDelimOrSpace(n) {
				if ok {
					l.unread()
				}
				return
			}
		}
		p1, p2 = p2, c
	}
}
