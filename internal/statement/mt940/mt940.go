// Package mt940 reads SWIFT MT940 customer statements and MT942 interim transaction reports, as
// banks hand them to their customers: with or without the SWIFT envelope ({1:}{2:}{4: ... -}),
// behind ASCII header lines, between SOH/ETX bytes, in UTF-8, Windows-1252 or CP852, with one or
// many statements per file.
//
// Each statement (:20: up to its closing balance :62F:/:62M:) becomes one statement.Section; each
// statement line :61: with its information to account owner :86: becomes one Transaction. The :86:
// field is read in the structures banks put in it: German GVC subfields (?00 posting text, ?20-?29
// purpose, ?32/?33 name ...) with SEPA keywords (EREF+, SVWZ+ ...), Dutch and SWIFT slash codes
// (/EREF/, /NAME/, /REMI/ ...), Triodos '>' subfields, or free text.
//
// Dialect names what was found, in this order, ';'-separated: "mt940" or "mt942";
// "envelope=swift" (blocks {1:}{2:}{4:), "envelope=header" (ASCII header lines such as ":940:",
// "940 00", "ABNANL2A") or "envelope=none"; "soh-etx" and "dos-eof" for those wrapper bytes;
// "charset=" ascii, utf-8, utf-16le, utf-16be, cp1252 or cp852; "eol=" lf, crlf or cr;
// "decimal=dot" when amounts use a decimal point; "info86=" the :86: structures seen (gvc,
// triodos, slash, free, joined with '+'); "ns" when proprietary :NS: fields occur.
//
// The bank is named from the BIC of the envelope (the sender of an output message, else the
// block 1 address), of ING's and ABN AMRO's header lines, or of a :25: "BIC/account"; without
// a BIC, BankID is the German bank code (BLZ) of :25: or of a German IBAN, or the bank code of
// a Dutch IBAN, and BankName is given only where it is certain.
package mt940

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// Parse reads an MT940 or MT942 file. The format is MT942 when the file says so: a {2:I942 or
// {2:O942 application header, a :34F: floor limit or a :13D: date-time indication.
func Parse(data []byte, opts statement.Options) (st *statement.Statement, err error) {
	defer func() {
		// A last resort: the parser bounds-checks everything it reads, but a crash must not
		// take the job down with it.
		if r := recover(); r != nil {
			st, err = nil, statement.Errorf(statement.FormatMT940, statement.ErrCorrupt, statement.Position{},
				"the file could not be read (internal error: %v)", r)
		}
	}()
	return parse(data, opts)
}

// parse is Parse without its safety net, so that tests and fuzzing see every crash.
func parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	p, err := newParser(data, opts)
	if err != nil {
		return nil, err
	}
	return p.run()
}

// newParser decodes data for a parser.
func newParser(data []byte, opts statement.Options) (*parser, error) {
	opts = opts.WithDefaults()
	text, charset, err := decode(data)
	if err != nil {
		return nil, statement.Errorf(statement.FormatMT940, statement.ErrCorrupt, statement.Position{},
			"the file is not valid %s text", charset)
	}
	return &parser{s: text, opts: opts, charset: charset}, nil
}

// Stream reads an MT940 or MT942 file as Parse does, for a caller that stores the transactions
// as they pass: the decoded text is held, and the transactions of one statement of the file at
// a time (a statement's end says what its lines lack: their currency, an MT942's period); each
// reading of the transactions reads the text again.
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	return streamOf(data, opts, true)
}

// stream is Stream without its safety net, so that tests and fuzzing see every crash.
func stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	return streamOf(data, opts, false)
}

// streamOf decodes data once and reads the text once for the statement, then again at each
// reading of the transactions; safe turns a crash into an error of the file, as Parse does.
func streamOf(data []byte, opts statement.Options, safe bool) (*statement.Stream, error) {
	p, err := newParser(data, opts)
	if err != nil {
		return nil, err
	}
	return statement.Read(func(emit func(*statement.Transaction) bool) (st *statement.Statement, err error) {
		if safe {
			defer func() {
				if r := recover(); r != nil {
					st, err = nil, statement.Errorf(statement.FormatMT940, statement.ErrCorrupt, statement.Position{},
						"the file could not be read (internal error: %v)", r)
				}
			}()
		}
		q := &parser{s: p.s, opts: p.opts, charset: p.charset, emit: emit}
		return q.run()
	})
}

// field is one tag and its content: from after ":61:" to the end of its last continuation line.
type field struct {
	tag   string
	start int // offset of the content in parser.s
	end   int
	line  int // line of the tag
	open  bool
}

// first returns the field's first line.
func (f *field) first(s string) string {
	c := s[f.start:f.end]
	if i := indexEOL(c); i >= 0 {
		return c[:i]
	}
	return c
}

// rest returns the field's continuation lines, with their line breaks.
func (f *field) rest(s string) string {
	c := s[f.start:f.end]
	i := indexEOL(c)
	if i < 0 {
		return ""
	}
	return c[i:]
}

// span is where a piece of the file is: offsets into parser.s and the line it starts on.
type span struct {
	start, end, line int
}

// section is the statement being read.
type section struct {
	open      bool
	sec       statement.Section
	ownAcct   string // the account number without bank code, to tell it from a counterparty's
	opening   bool   // an opening balance was read
	closing   bool
	hasTx     bool
	reportDay statement.Date // :13D: of an MT942
	// MT942 :90D:/:90C: entry counts, -1 when not declared.
	debitCount, creditCount int
}

// pendingTx is the statement line being read: its :61: and the fields that belong to it.
type pendingTx struct {
	open   bool
	f61    field
	rawEnd int
	infos  []span // its :86: fields; Rabobank gives several
}

// parser reads one file. All strings it produces are substrings of s or built once per field.
type parser struct {
	s       string
	opts    statement.Options
	charset string
	st      statement.Statement

	line int // line number of the line being read, 1-based
	cur  field
	sec  section
	tx   pendingTx

	// What the file showed, for Dialect and the format.
	swift      bool // SWIFT blocks {1:}{2:}{4:
	header     bool // ASCII header lines (":940:", "940 00", "ABNANL2A")
	soh        bool // SOH/ETX wrappers
	dosEOF     bool // a DOS end-of-file byte (0x1A)
	is942      bool
	dotDecimal bool
	ns         bool // proprietary :NS: fields
	infoKinds  uint8
	eol        string

	sawTags         int  // MT94x tags seen: 0 means the file is not one
	sawStatementTag bool // :20: or :25:

	// Where the bank is named.
	bic                      string // from the envelope or the header lines
	acctBIC                  string // from a :25: BIC/account
	acctBankID, acctBankName string // from :25: when it has no BIC: BLZ, IBAN bank code, TRIODOSBANK

	err error // a whole-file failure found while reading (too many rows)

	// emit, when set, is given the transactions of each statement of the file once the
	// statement is read, which are then let go of (Stream); emitted counts them.
	emit    func(*statement.Transaction) bool
	emitted int

	// Scratch buffers reused from one :86: to the next.
	join  []byte
	pbuf  []byte
	out   []byte
	decs  []decimal.Decimal // balances, allocated in blocks
	subs  []subfield
	bound []boundary
}

func (p *parser) run() (*statement.Statement, error) {
	s := p.s
	p.eol = "lf"
	if i := strings.IndexByte(s, '\n'); i > 0 && s[i-1] == '\r' {
		p.eol = "crlf"
	} else if i < 0 && strings.IndexByte(s, '\r') >= 0 {
		p.eol = "cr"
	}
	// Sized once: growing the slices would copy them again and again. Emitted, they are a
	// statement's at a time.
	if lines, statements := countTags(s); lines > 0 || statements > 0 {
		if p.emit != nil {
			lines = min(lines, 256)
		}
		p.st.Transactions = make([]statement.Transaction, 0, min(lines, p.opts.MaxRows+1))
		p.st.Sections = make([]statement.Section, 0, min(statements, p.opts.MaxRows+1))
	}

	special := strings.IndexByte(s, 0x01) >= 0 || strings.IndexByte(s, 0x03) >= 0 || strings.IndexByte(s, 0x1A) >= 0
	if special || p.eol == "cr" {
		p.scanSlow()
	} else {
		p.scanFast()
	}
	if p.err != nil {
		return nil, p.err
	}
	p.closeField()
	p.endSection()
	return p.finish()
}

// countTags counts the lines that start with ":61:" and ":20:": how many statement lines and
// statements a file has, give or take the few that start after an envelope on the same line.
// Searching for line ends is quicker than strings.Count, whose search for ':' stops at every tag.
func countTags(s string) (lines, statements int) {
	count := func(i int) {
		if i+4 <= len(s) && s[i] == ':' {
			switch s[i+1 : i+4] {
			case "61:":
				lines++
			case "20:":
				statements++
			}
		}
	}
	count(0)
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '\n')
		if k < 0 {
			return lines, statements
		}
		i += k + 1
		count(i)
	}
}

// scanFast walks the lines of a file whose lines end in LF or CRLF and that carries no SOH, ETX or
// SUB bytes: nearly every file, and the benchmark's.
func (p *parser) scanFast() {
	s := p.s
	for pos := 0; pos < len(s) && p.err == nil; {
		end := strings.IndexByte(s[pos:], '\n')
		next := len(s)
		if end < 0 {
			end = len(s)
		} else {
			end += pos
			next = end + 1
		}
		e := end
		for e > pos && s[e-1] == '\r' {
			e--
		}
		p.line++
		p.handleLine(pos, e)
		pos = next
	}
}

// scanSlow walks lines ending in LF, CRLF or a lone CR, and treats the SOH (0x01), ETX (0x03) and
// DOS end-of-file (0x1A) bytes that wrap some files as line ends that do not count as lines.
func (p *parser) scanSlow() {
	s := p.s
	p.line = 1
	start := 0
	for i := 0; i < len(s) && p.err == nil; i++ {
		switch s[i] {
		case '\n':
			p.handleLine(start, i)
			p.line++
			start = i + 1
		case '\r':
			p.handleLine(start, i)
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			p.line++
			start = i + 1
		case 0x01, 0x03, 0x1A:
			if s[i] == 0x1A {
				p.dosEOF = true
			} else {
				p.soh = true
			}
			p.handleLine(start, i)
			start = i + 1
		}
	}
	if start < len(s) && p.err == nil {
		p.handleLine(start, len(s))
	}
}

// handleLine reads one line s[start:end] (without its line end).
func (p *parser) handleLine(start, end int) {
	s := p.s
	if start >= end {
		return
	}
	// The fast path: a tag at the start of the line.
	if s[start] == ':' {
		if tag, ok := parseTag(s[start:end]); ok {
			p.openField(tag, start+len(tag)+2, end)
			return
		}
	}
	// Other lines: find what is there past white space, byte-order marks and soft hyphens.
	ts, te := trimJunk(s, start, end)
	if ts >= te {
		return // blank lines are no content, inside a field or not
	}
	t := s[ts:te]
	switch c := t[0]; {
	case c == ':':
		if tag, ok := parseTag(t); ok {
			p.openField(tag, ts+len(tag)+2, end)
			return
		}
	case c == '{' && isBlockStart(t):
		p.envelope(ts, end)
		return
	case c == '-' && isTerminator(t):
		p.closeField()
		p.endSection()
		// "-}{5:{CHK:...}}" or "-}\x03\x01{1:...": what follows the terminator may open the next message.
		if k := strings.IndexByte(t, '{'); k > 0 {
			p.envelope(ts+k, end)
		}
		return
	}
	if p.cur.open {
		p.cur.end = end
		return
	}
	p.headerLine(t)
}

// trimJunk returns the bounds of s[start:end] without white space, control characters, soft
// hyphens and byte-order marks at either end.
func trimJunk(s string, start, end int) (int, int) {
	for start < end {
		c := s[start]
		if c <= ' ' || c == 0x7F {
			start++
		} else if c == 0xC2 && start+1 < end && s[start+1] == 0xAD {
			start += 2
		} else if c == 0xEF && start+2 < end && s[start+1] == 0xBB && s[start+2] == 0xBF {
			start += 3
		} else {
			break
		}
	}
	for end > start {
		c := s[end-1]
		if c <= ' ' || c == 0x7F {
			end--
		} else if c == 0xAD && end-2 >= start && s[end-2] == 0xC2 {
			end -= 2
		} else {
			break
		}
	}
	return start, end
}

// parseTag reads the tag of a line starting with ':': two digits and an optional letter (":20:",
// ":28C:", ":60F:"), the proprietary ":NS:", or the ":940:"/":942:" line some banks put first.
func parseTag(l string) (string, bool) {
	if len(l) < 4 || l[0] != ':' {
		return "", false
	}
	switch {
	case isDigit(l[1]) && isDigit(l[2]) && l[3] == ':':
		return l[1:3], true
	case len(l) >= 5 && isDigit(l[1]) && isDigit(l[2]) && (isUpper(l[3]) || isDigit(l[3])) && l[4] == ':':
		return l[1:4], true
	case l[1] == 'N' && l[2] == 'S' && l[3] == ':':
		return "NS", true
	}
	return "", false
}

// isBlockStart reports whether t starts a SWIFT block: "{1:", "{2:", ... "{5:".
func isBlockStart(t string) bool {
	return len(t) >= 3 && t[0] == '{' && t[1] >= '1' && t[1] <= '5' && t[2] == ':'
}

// isTerminator reports whether t ends a message: "-", "-}" (with the trailer blocks that may
// follow), or the "-XXX" some ING exports end with.
func isTerminator(t string) bool {
	if t == "-" {
		return true
	}
	if len(t) >= 2 && t[1] == '}' {
		return true
	}
	return strings.Trim(t[1:], "X") == ""
}

// envelope reads SWIFT blocks from s[start:end]: {1: basic header (the sender's address), {2:
// application header (the message type), {3: user header, {4: the text, which may carry on in
// this very line, and the trailer {5:.
func (p *parser) envelope(start, end int) {
	s := p.s
	i := start
	for i < end {
		t := s[i:end]
		if !isBlockStart(t) {
			// Text after the blocks: on the "{4:" line it is the start of the message text.
			if p.cur.open || strings.TrimSpace(t) == "" {
				return
			}
			p.handleLine(i, end)
			return
		}
		id := t[1]
		if id == '4' {
			p.closeField()
			p.endSection()
			p.swift = true
			if i+3 < end {
				p.handleLine(i+3, end)
			}
			return
		}
		// Find the closing brace, counting the nested blocks of {3:{108:..}} and {5:{CHK:..}}.
		depth, k := 0, 0
		for k = 0; k < len(t); k++ {
			if t[k] == '{' {
				depth++
			} else if t[k] == '}' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		body := t[3:min(k, len(t))]
		switch id {
		case '1':
			p.closeField()
			p.endSection()
			p.swift = true
			p.block1(body)
		case '2':
			p.swift = true
			p.block2(body)
		}
		if k >= len(t) {
			return
		}
		i += k + 1
		for i < end && (s[i] == ' ' || s[i] < 0x20) {
			i++
		}
	}
}

// block1 reads the basic header "F01" + logical terminal address + session and sequence. The
// LT address is the BIC's eight characters, a terminal letter and the three of the branch.
func (p *parser) block1(body string) {
	if len(body) >= 15 {
		p.noteBIC(ltBIC(body[3:15]))
	}
}

// block2 reads the application header: "I940" + receiver, or "O940" + input time + the input
// reference, which holds the sending bank's LT address.
func (p *parser) block2(body string) {
	if len(body) < 4 {
		return
	}
	if body[1:4] == "942" {
		p.is942 = true
	}
	if body[0] == 'O' && len(body) >= 26 {
		if bic := ltBIC(body[14:26]); bic != "" {
			// The sender of an output message is the bank that wrote the statement; it
			// outranks block 1, which then names the receiver.
			p.bic = bic
		}
	}
}

// ltBIC returns the BIC of a 12-character logical terminal address, or "".
func ltBIC(lt string) string {
	if len(lt) != 12 {
		return ""
	}
	bic := lt[:8] + lt[9:]
	if !isBIC(bic) {
		return ""
	}
	return shortBIC(bic)
}

func (p *parser) noteBIC(bic string) {
	if bic != "" && p.bic == "" {
		p.bic = bic
	}
}

// headerLine reads a line outside any field: the ASCII headers of bank exports ("940 00",
// "0000 01INGBNL2AXXXX00001", "ABNANL2A") or text that belongs to nothing.
func (p *parser) headerLine(t string) {
	switch {
	case t == "940" || t == "942" || strings.HasPrefix(t, "940 ") || strings.HasPrefix(t, "942 "):
		p.header = true
		if t[:3] == "942" {
			p.is942 = true
		}
		return
	case isBIC(t):
		p.header = true
		p.noteBIC(shortBIC(t))
		return
	case len(t) >= 19 && t[:4] == "0000" && t[4] == ' ' && allDigits(t[5:7]):
		// "0000 01INGBNL2AXXXX00001": a sequence, then the sender's LT address.
		p.header = true
		p.noteBIC(ltBIC(t[7:19]))
		return
	}
	if p.sawTags == 0 {
		return // text before the first tag: some header we do not know; detection decides
	}
	if strings.Trim(t, "{}-") == "" {
		return // the braces of an envelope split over lines
	}
	p.problem(p.line, "text outside any field is skipped: %q", shorten(t))
}

// openField starts a field, closing the one before it.
func (p *parser) openField(tag string, start, end int) {
	p.closeField()
	p.cur = field{tag: tag, start: start, end: end, line: p.line, open: true}
}

// closeField reads the field that is complete now.
func (p *parser) closeField() {
	if !p.cur.open {
		return
	}
	f := p.cur
	p.cur.open = false
	p.dispatch(&f)
}

func (p *parser) dispatch(f *field) {
	s := p.s
	switch f.tag {
	case "940", "942", "950":
		// ":940:" as the first line of Rabobank exports: a header, not a field.
		p.header = true
		if f.tag == "942" {
			p.is942 = true
		}
		return
	case "86", "NS":
		if f.tag == "NS" {
			p.ns = true
		}
		if p.tx.open {
			p.tx.rawEnd = f.end
			if f.tag == "86" {
				p.tx.infos = append(p.tx.infos, span{f.start, f.end, f.line})
			}
			return
		}
		// Information to the account owner about the whole statement (ING's totals line,
		// HSBC's sender): not a transaction's; nothing to read.
		return
	}
	switch f.tag {
	case "20", "21", "25", "28", "28C", "60F", "60M", "60", "61", "62F", "62M", "62", "64", "65",
		"34F", "13D", "13", "90D", "90C":
		p.sawTags++
	default:
		if p.tx.open {
			// An unknown tag inside a statement line (a bank's own): it stays in Raw.
			p.tx.rawEnd = f.end
			return
		}
		return
	}
	p.endTx()
	switch f.tag {
	case "20":
		p.endSection()
		p.startSection(f.line)
		p.sawStatementTag = true
	case "21", "28", "28C":
		p.ensureSection(f.line)
	case "25":
		p.ensureSection(f.line)
		p.sawStatementTag = true
		p.readAccount(trimSpace(s[f.start:f.end]))
	case "60F", "60M", "60":
		p.ensureSection(f.line)
		p.readBalance(f, true)
	case "62F", "62M", "62":
		p.ensureSection(f.line)
		p.readBalance(f, false)
	case "64", "65":
		// Available and forward available balances say nothing about the transactions; some
		// banks write them badly (":65F:Dnullnull7414,3"), which must not cost the statement.
	case "61":
		p.ensureSection(f.line)
		p.tx = pendingTx{open: true, f61: *f, rawEnd: f.end, infos: p.tx.infos[:0]}
	case "34F":
		p.ensureSection(f.line)
		p.is942 = true
		if v := trimSpace(s[f.start:f.end]); len(v) >= 3 && isCurrencyShape(v[:3]) && p.sec.sec.Currency == "" {
			p.sec.sec.Currency = v[:3]
		}
	case "13D", "13":
		p.ensureSection(f.line)
		p.is942 = p.is942 || f.tag == "13D"
		if v := trimSpace(s[f.start:f.end]); len(v) >= 6 {
			if d, ok := yymmdd(v[:6]); ok {
				p.sec.reportDay = d
			}
		}
	case "90D", "90C":
		p.ensureSection(f.line)
		p.readTotals(f)
	}
}

func (p *parser) ensureSection(line int) {
	if !p.sec.open {
		p.startSection(line)
	}
}

func (p *parser) startSection(line int) {
	p.sec = section{open: true, debitCount: -1, creditCount: -1}
	p.sec.sec.Pos = statement.Position{Line: line}
	p.sec.sec.First = p.txCount()
}

// txCount is how many transactions have been read: emitted or held.
func (p *parser) txCount() int { return p.emitted + len(p.st.Transactions) }

// flush gives the transactions held to emit and lets go of them.
func (p *parser) flush() {
	for i := range p.st.Transactions {
		if p.err == nil && !p.emit(&p.st.Transactions[i]) {
			p.err = statement.ErrStopped
		}
	}
	p.emitted += len(p.st.Transactions)
	clear(p.st.Transactions)
	p.st.Transactions = p.st.Transactions[:0]
}

// endSection completes the statement being read and adds it to the file's.
func (p *parser) endSection() {
	p.endTx()
	if !p.sec.open {
		return
	}
	sc := &p.sec
	sc.open = false
	s := sc.sec
	s.Count = p.txCount() - s.First
	if s.Count == 0 && !sc.opening && !sc.closing && s.Account == "" {
		return // a :20: and nothing else: no statement to speak of
	}
	txs := p.st.Transactions[s.First-p.emitted:]
	for i := range txs {
		if txs[i].Currency == "" {
			txs[i].Currency = s.Currency
		}
	}
	if s.PeriodStart.IsZero() && s.PeriodEnd.IsZero() && len(txs) > 0 {
		// No balances (MT942): the period is what the entries cover, up to the report's time.
		for _, t := range txs {
			d := t.Date
			if d.IsZero() {
				continue
			}
			if s.PeriodStart.IsZero() || d.Compare(s.PeriodStart) < 0 {
				s.PeriodStart = d
			}
			if s.PeriodEnd.IsZero() || d.Compare(s.PeriodEnd) > 0 {
				s.PeriodEnd = d
			}
		}
	}
	if !sc.reportDay.IsZero() && (s.PeriodEnd.IsZero() || sc.reportDay.Compare(s.PeriodEnd) > 0) {
		s.PeriodEnd = sc.reportDay
		if s.PeriodStart.IsZero() {
			s.PeriodStart = sc.reportDay
		}
	}
	p.checkSideCounts(&s, txs)
	if !p.is942 && !sc.closing && sc.hasTx {
		p.problem(s.Pos.Line, "the statement has no closing balance :62F:, so its lines cannot be checked against one; the file may be cut short")
	}
	p.st.Sections = append(p.st.Sections, s)
	if p.emit != nil {
		p.flush()
	}
}

func (p *parser) problem(line int, msg string, args ...any) {
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	p.st.Problems = append(p.st.Problems, statement.Problem{Pos: statement.Position{Line: line}, Message: msg})
}

// shorten cuts text quoted in a message to a readable length.
func shorten(t string) string {
	if len(t) <= 40 {
		return t
	}
	cut := 40
	for cut > 0 && t[cut]&0xC0 == 0x80 {
		cut--
	}
	return t[:cut] + "..."
}
