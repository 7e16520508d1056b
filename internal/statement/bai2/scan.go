package bai2

import "strings"

// Record type codes: the two digits that open every BAI2 record.
const (
	recFileHeader     = 1  // 01 File Header
	recGroupHeader    = 2  // 02 Group Header
	recAccount        = 3  // 03 Account Identifier and Summary/Status
	recDetail         = 16 // 16 Transaction Detail
	recAccountTrailer = 49 // 49 Account Trailer
	recContinuation   = 88 // 88 Continuation
	recGroupTrailer   = 98 // 98 Group Trailer
	recFileTrailer    = 99 // 99 File Trailer

	// Pieces that are no record of the specification.
	recUnknown   = -1 // "NN," with a record code BAI2 does not define
	recMalformed = -2 // a record code followed by ':' or ';' instead of ',' ("88:EREF...")
	recGarbage   = -3 // a line that is no record at all
)

// validCode reports whether n is a record code of the specification.
func validCode(n int) bool {
	switch n {
	case recFileHeader, recGroupHeader, recAccount, recDetail, recAccountTrailer,
		recContinuation, recGroupTrailer, recFileTrailer:
		return true
	}
	return false
}

// piece is one record as it stands in the file: its code, its fields up to the terminating '/'
// (without the "NN," that opens it), where it starts, and the byte span of its text.
type piece struct {
	code int
	// num is the code as written, for unknown records.
	num  int
	body string
	line int
	// start and end delimit the record's text in the file, end just after its '/'.
	start, end int
	// trailing is text after the '/' of a record without a text field that is no further record;
	// the specification has nothing there, so it is reported, not read.
	trailing string
	// full says the record ended without '/' on a line of exactly the declared physical record
	// length: cut there, so an 88 after it may continue a word.
	full bool
}

// scanner splits the file into records. BAI2 ends a logical record with '/', and a physical
// record (a line) normally holds exactly one. Files in the wild differ, and the scanner accepts:
//   - records packed on one line: "01,...,2/   02,...,2/" (a '/' then blanks then the next code);
//   - records without the '/' (the end of the line ends them, as Goldman Sachs' 16 and 88 do);
//   - a record wrapped onto the next line without an 88 (that line does not start with a code);
//   - files without line breaks at all (fixed-length blocks): records follow each other directly.
//
// The text field of a 16 record (and of the 88 records that continue it) may hold '/' and
// commas, so there a '/' ends the record only at the end of the line or when blanks and the next
// record code follow it.
type scanner struct {
	s    string
	off  int // next unread byte
	line int // 1-based line number of the line holding off
	// begin, end and nextOff are the current line's start, content end (before CR/LF) and the
	// next line's start.
	begin, end, nextOff int
	sep                 byte
	noBreaks            bool
	// recLen is the physical record length the 01 header declares, 0 when it declares none.
	recLen int

	// What was seen, for the dialect.
	packed, wrapped, unterminated bool
}

func newScanner(s string) *scanner {
	sc := &scanner{s: s, sep: '\n', line: 1}
	if strings.IndexByte(s, '\n') < 0 {
		if strings.IndexByte(s, '\r') >= 0 {
			sc.sep = '\r' // old Mac line ends
		} else {
			sc.noBreaks = true
		}
	}
	sc.bounds()
	return sc
}

// bounds sets end and nextOff for the line that starts at off.
func (sc *scanner) bounds() {
	k := strings.IndexByte(sc.s[sc.off:], sc.sep)
	if k < 0 {
		sc.end, sc.nextOff = len(sc.s), len(sc.s)
		return
	}
	sc.end, sc.nextOff = sc.off+k, sc.off+k+1
	if sc.sep == '\n' && sc.end > sc.off && sc.s[sc.end-1] == '\r' {
		sc.end--
	}
}

func (sc *scanner) nextLine() {
	sc.off, sc.begin = sc.nextOff, sc.nextOff
	sc.line++
	sc.bounds()
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipBlanks returns the first index from i below end that is not blank.
func skipBlanks(s string, i, end int) int {
	for i < end && isBlank(s[i]) {
		i++
	}
	return i
}

// startAt reads a record opening at s[i:end]: the code of "NN," or 0 when there is none.
// malformed reports a record code followed by ':' or ';' or nothing, as in "88:EREF: 1".
func startAt(s string, i, end int) (code int, malformed bool) {
	if end-i < 2 || !isDigit(s[i]) || !isDigit(s[i+1]) {
		return 0, false
	}
	n := int(s[i]-'0')*10 + int(s[i+1]-'0')
	if end-i == 2 {
		return 0, validCode(n)
	}
	switch s[i+2] {
	case ',':
		return n, false
	case ':', ';':
		return 0, validCode(n)
	}
	return 0, false
}

// next returns the next record. contText says whether an 88 here would continue the text of a
// 16 record, which decides how a '/' inside it is read.
func (sc *scanner) next(contText bool) (p piece, ok bool) {
	s := sc.s
	for {
		if sc.off >= len(s) {
			return p, false
		}
		i := skipBlanks(s, sc.off, sc.end)
		if i == sc.end {
			sc.nextLine()
			continue
		}
		p.line, p.start = sc.line, i
		code, malformed := startAt(s, i, sc.end)
		if code == 0 {
			p.code, p.body, p.end = recGarbage, s[i:sc.end], sc.end
			if malformed {
				p.code = recMalformed
			}
			sc.nextLine()
			return p, true
		}
		p.code = code
		if !validCode(code) {
			p.code, p.num = recUnknown, code
		}
		text := code == recDetail || (code == recContinuation && contText)
		sc.readBody(&p, i+3, text)
		return p, true
	}
}

// readBody reads a record's fields from seg up to its terminator, across wrapped lines.
func (sc *scanner) readBody(p *piece, seg int, text bool) {
	s := sc.s
	var b []byte // only when the record wraps onto further lines
	for {
		slash, after, trailing := sc.terminator(seg, text)
		if slash >= 0 {
			p.body = s[seg:slash]
			if b != nil {
				p.body = string(append(b, p.body...))
			}
			p.end, p.trailing = slash+1, trailing
			if after >= 0 {
				sc.off, sc.packed = after, true
			} else {
				sc.nextLine()
			}
			return
		}
		if sc.wrapsInto() {
			b = append(b, s[seg:sc.end]...)
			// A line that fills the declared physical record length was cut there, possibly
			// mid-word; a shorter one lost its trailing blanks, so a blank stands for them.
			if sc.recLen == 0 || sc.end-sc.begin != sc.recLen {
				b = append(b, ' ')
			}
			sc.wrapped = true
			sc.nextLine()
			seg = sc.off
			continue
		}
		p.body, p.end = s[seg:sc.end], sc.end
		if b != nil {
			p.body = string(append(b, p.body...))
		}
		p.full = sc.recLen > 0 && sc.end-sc.begin == sc.recLen
		sc.unterminated = true
		sc.nextLine()
		return
	}
}

// terminator finds the '/' that ends the record in the current line from seg. after is where a
// further record starts on the same line (-1 when none). Outside text, the first '/' ends the
// record and anything after it but blanks or a record is returned as trailing.
func (sc *scanner) terminator(seg int, text bool) (slash, after int, trailing string) {
	s, end := sc.s, sc.end
	from := seg
	for {
		k := strings.IndexByte(s[from:end], '/')
		if k < 0 {
			return -1, -1, ""
		}
		k += from
		j := skipBlanks(s, k+1, end)
		if j == end {
			return k, -1, ""
		}
		if code, _ := startAt(s, j, end); validCode(code) && (!text || j > k+1 || sc.noBreaks) {
			return k, j, ""
		}
		if !text {
			return k, -1, s[j:end]
		}
		from = k + 1
	}
}

// wrapsInto reports whether the next line continues the current record: it holds text and does
// not open a record.
func (sc *scanner) wrapsInto() bool {
	s := sc.s
	if sc.nextOff >= len(s) {
		return false
	}
	k := strings.IndexByte(s[sc.nextOff:], sc.sep)
	end := len(s)
	if k >= 0 {
		end = sc.nextOff + k
	}
	i := skipBlanks(s, sc.nextOff, end)
	if i == end {
		return false
	}
	code, malformed := startAt(s, i, end)
	return code == 0 && !malformed
}
