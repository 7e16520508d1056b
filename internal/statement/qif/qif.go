// Package qif reads Quicken Interchange Format exports: "!Type:Bank", "!Type:CCard",
// "!Type:Cash", "!Type:Oth A" and "!Type:Oth L" registers, each record a run of lines that
// start with a one-letter code and end with a "^" line, optionally preceded by "!Account"
// blocks that name the account.
//
// QIF states no currency, no balances and no period, and writes dates in the exporter's
// locale: 12/31/2020, 12/31'20, 31.12.2020, 1/ 2/98. Day and month order is decided once per
// file from all its dates (a first field above 12 means day first, a second above 12 month
// first); a file whose dates fit both orders is read month first, QIF's convention from
// Quicken US, and goes to review as ambiguous. The decimal mark is decided once per file the
// same way.
//
// Each register block becomes a statement.Section. A split transaction (S/E/$ lines) is one
// transaction of its total T: the splits only divide it among categories. Categories (L),
// cleared status (C) and addresses (A) are not part of the model and are skipped.
package qif

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/statementmatch/service/internal/statement"
)

// blockKind is what the records after a "!" header line are.
type blockKind uint8

const (
	blockNone    blockKind = iota // before any header
	blockTxns                     // a register: Bank, Cash, CCard, Oth A, Oth L
	blockAccount                  // !Account: account records
	blockInvest                   // !Type:Invst: investment transactions, not read
	blockOther                    // category, class, memorized ... lists: not transactions
)

// record is one transaction record as read, before the file-wide decisions.
type record struct {
	line, num  int
	raw        string
	date       string
	dateLine   int
	amount     string
	ref, payee string
	memo       string
	hasDate    bool
	hasAmount  bool
	section    int
	amountLine int
}

// block is one register block: it becomes a section when it holds records.
type block struct {
	typ     string
	account string
	line    int
	used    bool // holds a record
}

// parser holds one reading of a file.
type parser struct {
	opts    statement.Options
	text    string
	st      *statement.Statement
	blocks  []block
	types   []string
	invest  int
	records int
}

// Parse reads a QIF file. See the package comment for what it reads.
func Parse(data []byte, opts statement.Options) (st *statement.Statement, err error) {
	defer recovered(&err)
	rd, err := newReader(data, opts)
	if err != nil {
		return nil, err
	}
	return rd.transactions(nil)
}

// Stream reads a QIF file as Parse does, for a caller that stores the transactions as they
// pass: the text is held, not the transactions. A first reading of the records decides the
// file's day/month order and decimal mark, which every record has a say in; each reading of the
// transactions then reads the records again.
func Stream(data []byte, opts statement.Options) (s *statement.Stream, err error) {
	defer recovered(&err)
	rd, err := newReader(data, opts)
	if err != nil {
		return nil, err
	}
	return statement.Read(func(emit func(*statement.Transaction) bool) (st *statement.Statement, err error) {
		defer recovered(&err)
		return rd.transactions(emit)
	})
}

// recovered is a last resort, deferred: the parser bounds-checks, so a panic is a bug, reported
// as a broken file rather than a crashed job.
func recovered(err *error) {
	if r := recover(); r != nil {
		*err = statement.Errorf(statement.FormatQIF, statement.ErrCorrupt, statement.Position{},
			"internal error while reading the file: %v", r)
	}
}

// reader is a QIF file and what its first reading of the records decided for the readings of
// its transactions.
type reader struct {
	opts    statement.Options
	text    string
	charset string
	records int
	dates   dateOrder
	mark    decimalMark
}

// newReader checks that data is QIF and reads its records once, for the file-wide decisions.
func newReader(data []byte, opts statement.Options) (*reader, error) {
	opts = opts.WithDefaults()
	text, charset := toUTF8(data)
	p := &parser{opts: opts, text: text, st: &statement.Statement{}}
	if err := p.detect(); err != nil {
		return nil, err
	}
	var dates dateTally
	var marks markTally
	if err := p.read(func(r *record) bool {
		dates.add(r)
		marks.add(r)
		return true
	}); err != nil {
		return nil, err
	}
	if p.records == 0 {
		if p.invest > 0 {
			return nil, statement.Errorf(statement.FormatQIF, statement.ErrNoTransactions, statement.Position{},
				"the file holds only investment transactions (!Type:Invst), which are not read")
		}
		return nil, statement.Errorf(statement.FormatQIF, statement.ErrNoTransactions, statement.Position{},
			"the file holds no transaction records")
	}
	return &reader{opts: opts, text: text, charset: charset, records: p.records,
		dates: dates.decide(), mark: marks.decide()}, nil
}

// transactions reads the records again and makes the statement: each transaction is given to
// emit, when set, instead of held in the statement.
func (rd *reader) transactions(emit func(*statement.Transaction) bool) (*statement.Statement, error) {
	p := &parser{opts: rd.opts, text: rd.text, st: &statement.Statement{Format: statement.FormatQIF}}
	if emit == nil {
		// Sized once from the first reading: growing the slice would copy it again and again.
		p.st.Transactions = make([]statement.Transaction, 0, rd.records)
	}
	b := builder{p: p, dates: rd.dates, mark: rd.mark, emit: emit}
	if err := p.read(b.add); err != nil {
		return nil, err
	}
	b.done()
	p.st.Dialect = p.dialect(rd.dates, rd.mark, rd.charset)
	return p.st, nil
}

// toUTF8 returns the text as UTF-8 and the charset it was read in: UTF-16 by its byte-order
// mark, UTF-8 when valid (us-ascii when plain ASCII), else Windows-1252, the charset of
// Quicken for Windows, which writes QIF without declaring one.
func toUTF8(data []byte) (string, string) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		if out, err := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder().Bytes(data[2:]); err == nil {
			return string(out), "utf-16le"
		}
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		if out, err := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder().Bytes(data[2:]); err == nil {
			return string(out), "utf-16be"
		}
	}
	if utf8.Valid(data) {
		if !isASCII(data) {
			return string(data), "utf-8"
		}
		return string(data), "us-ascii"
	}
	out, _ := charmap.Windows1252.NewDecoder().Bytes(data)
	return string(out), "windows-1252"
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// lines iterates over the text's lines without their line ending.
type lines struct {
	s    string
	off  int // offset of the next line
	num  int // number of the line last returned
	cur  int // offset of the line last returned
	next int // offset after the line last returned, its line ending included
}

func (l *lines) scan() (string, bool) {
	if l.off >= len(l.s) {
		return "", false
	}
	l.cur = l.off
	l.num++
	rest := l.s[l.off:]
	i := strings.IndexByte(rest, '\n')
	var line string
	if i < 0 {
		line, l.off = rest, len(l.s)
	} else {
		line, l.off = rest[:i], l.off+i+1
	}
	l.next = l.off
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, true
}

// detect checks that the text is QIF: its first line that is not blank is a "!" header QIF
// defines, or, for exports that leave the header out, a D line with a date in a file that has
// "^" record ends.
func (p *parser) detect() error {
	l := lines{s: p.text}
	for {
		line, ok := l.scan()
		if !ok {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue // blank, or a comment line some exporters open the file with
		}
		if t[0] == '!' {
			h := headerKey(t)
			switch {
			case strings.HasPrefix(h, "!type:"), h == "!account", strings.HasPrefix(h, "!option:"), strings.HasPrefix(h, "!clear:"):
				return nil
			}
		}
		if t[0] == 'D' {
			if dp, ok := parseDateParts(t[1:]); ok && dp.valid() && strings.Contains(p.text, "\n^") {
				return nil
			}
		}
		break
	}
	return statement.Errorf(statement.FormatQIF, statement.ErrNotAStatement, statement.Position{Line: l.num},
		"no QIF header (!Type:..., !Account) and no QIF record: not a QIF file")
}

// headerKey normalises a header line for comparison: "!Type: Bank " is "!type:bank". Only
// the first 32 characters count: no header QIF defines is longer.
func headerKey(line string) string {
	var buf [32]byte
	n := 0
	for i := 0; i < len(line) && n < len(buf); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return string(buf[:n])
}

// read splits the file into records and gives each transaction record to sink, in the order
// of the file; a sink that returns false stops the reading with statement.ErrStopped.
func (p *parser) read(sink func(*record) bool) error {
	var (
		l        = lines{s: p.text}
		kind     = blockTxns // a file without header is a register
		account  string      // N of the last !Account record
		acctName string      // N of the !Account record being read
		cur      record
		started  bool // cur holds at least one line
		curStart int
		invRecs  int
		invLine  int
	)
	section := -1
	p.blocks = nil
	endInvest := func() {
		if invRecs > 0 {
			p.problem(statement.Position{Line: invLine},
				"%d investment transactions (!Type:Invst) are not read", invRecs)
		}
		invRecs = 0
	}
	finish := func(endOff int) error {
		if !started {
			return nil
		}
		started = false
		switch kind {
		case blockAccount:
			account = acctName
			acctName = ""
		case blockInvest:
			invRecs++
			p.invest++
		case blockTxns:
			p.records++
			if p.records > p.opts.MaxRows {
				return statement.Errorf(statement.FormatQIF, statement.ErrTooManyRows, statement.Position{Line: cur.line},
					"more than %d transactions", p.opts.MaxRows)
			}
			if section < 0 {
				p.blocks = append(p.blocks, block{typ: "none", account: account, line: 1})
				section = len(p.blocks) - 1
			}
			cur.num = p.records
			cur.section = section
			if b := &p.blocks[section]; !b.used {
				b.used = true
				if b.typ != "none" {
					p.addType(b.typ)
				}
			}
			cur.raw = strings.TrimSpace(p.text[curStart:endOff])
			if !sink(&cur) {
				return statement.ErrStopped
			}
		}
		return nil
	}
	for {
		line, ok := l.scan()
		if !ok {
			break
		}
		// Exporters that indent their lines exist; a code is the first character that is not
		// white space.
		line = strings.TrimLeft(line, " \t")
		if line == "" || line[0] == '#' {
			// '#' is no QIF field code: exporters write comment lines with it ("# exported by
			// ...", "### account ..."), above the header and between blocks.
			continue
		}
		switch line[0] {
		case '!':
			h := headerKey(line)
			switch {
			case strings.HasPrefix(h, "!option:"), strings.HasPrefix(h, "!clear:"):
				continue // !Option:AutoSwitch and the like change nothing we read
			}
			// A header ends the record before it even without its "^".
			if err := finish(l.cur); err != nil {
				return err
			}
			if kind == blockInvest {
				endInvest()
			}
			switch {
			case h == "!account":
				kind = blockAccount
			case strings.HasPrefix(h, "!type:"):
				typ := strings.TrimPrefix(h, "!type:")
				switch typ {
				case "bank", "cash", "ccard", "otha", "othl":
					kind = blockTxns
					if section >= 0 && section == len(p.blocks)-1 && !p.blocks[section].used {
						// The block before held no record: it would make no section.
						p.blocks[section] = block{typ: typ, account: account, line: l.num}
					} else {
						p.blocks = append(p.blocks, block{typ: typ, account: account, line: l.num})
						section = len(p.blocks) - 1
					}
				case "invst":
					kind = blockInvest
					invLine = l.num
				default:
					kind = blockOther
				}
			default:
				kind = blockOther
			}
			continue
		case '^':
			if err := finish(l.next); err != nil {
				return err
			}
			cur = record{}
			continue
		}
		if !started {
			started, curStart = true, l.cur
			cur = record{line: l.num}
		}
		code, val := line[0], strings.TrimSpace(line[1:])
		switch kind {
		case blockAccount:
			if code == 'N' && acctName == "" {
				acctName = statement.CollapseSpace(val)
			}
		case blockTxns:
			p.field(&cur, code, val, l.num)
		}
	}
	if err := finish(len(p.text)); err != nil {
		return err
	}
	if kind == blockInvest {
		endInvest()
	}
	return nil
}

// field stores one line of a transaction record. The first D, N, P and M count (nasty.qif
// has N lines inside its splits); T wins over U, the same amount in newer Quicken. Split lines
// (S, E, $), categories (L), cleared status (C) and addresses (A) are not read.
func (p *parser) field(r *record, code byte, val string, line int) {
	switch code {
	case 'D':
		if !r.hasDate {
			r.date, r.hasDate, r.dateLine = val, true, line
		}
	case 'T':
		r.amount, r.hasAmount, r.amountLine = val, true, line
	case 'U':
		if !r.hasAmount {
			r.amount, r.hasAmount, r.amountLine = val, true, line
		}
	case 'N':
		if r.ref == "" {
			r.ref = val
		}
	case 'P':
		if r.payee == "" {
			r.payee = val
		}
	case 'M':
		if r.memo == "" {
			r.memo = val
		}
	}
}

func (p *parser) addType(typ string) {
	for _, t := range p.types {
		if t == typ {
			return
		}
	}
	p.types = append(p.types, typ)
}

func (p *parser) problem(pos statement.Position, format string, args ...any) {
	p.st.Problems = append(p.st.Problems, statement.Problem{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// builder turns the records of one reading into transactions and their blocks into sections.
type builder struct {
	p     *parser
	dates dateOrder
	mark  decimalMark
	emit  func(*statement.Transaction) bool
	count int   // transactions made
	secOf []int // block -> section index + 1
	tx    statement.Transaction
}

// add makes the transaction of one record, or a problem when it has no readable amount or
// date, and holds or emits it; false when emit stops the reading.
func (b *builder) add(r *record) bool {
	p := b.p
	pos := statement.Position{Line: r.line, Record: r.num}
	if !r.hasAmount || r.amount == "" {
		p.problem(pos, "the record has no amount (T)")
		return true
	}
	amt, err := parseAmount(r.amount, b.mark.mark)
	if err != nil {
		p.problem(statement.Position{Line: r.amountLine, Record: r.num}, "amount %s %v", quote(r.amount), err)
		return true
	}
	var date statement.Date
	if r.hasDate && r.date != "" {
		dp, _ := parseDateParts(r.date)
		d, ok := dp.date(b.dates.order)
		if !ok {
			p.problem(statement.Position{Line: r.dateLine, Record: r.num}, "date %s %s", quote(r.date), b.dates.why(dp))
			return true
		}
		date = d
	}
	for len(b.secOf) <= r.section {
		b.secOf = append(b.secOf, 0)
	}
	if b.secOf[r.section] == 0 {
		blk := p.blocks[r.section]
		p.st.Sections = append(p.st.Sections, statement.Section{
			Account: blk.account,
			First:   b.count,
			Pos:     statement.Position{Line: blk.line},
		})
		b.secOf[r.section] = len(p.st.Sections)
	}
	p.st.Sections[b.secOf[r.section]-1].Count++
	b.count++
	payee := statement.CollapseSpace(r.payee)
	b.tx = statement.Transaction{
		Date:             date,
		Amount:           amt,
		Description:      statement.Describe(payee, statement.CollapseSpace(r.memo)),
		Reference:        statement.CollapseSpace(r.ref),
		CounterpartyName: payee,
		Raw:              r.raw,
		Pos:              pos,
	}
	if b.emit == nil {
		p.st.Transactions = append(p.st.Transactions, b.tx)
		return true
	}
	return b.emit(&b.tx)
}

// done adds the problems of the file-wide decisions, once every record is read.
func (b *builder) done() {
	st := b.p.st
	if b.dates.ambiguous {
		st.Problems = append(st.Problems, statement.Problem{
			Code: statement.ReviewAmbiguousDateOrder,
			Pos:  statement.Position{Line: b.dates.exampleLine},
			Message: fmt.Sprintf("every date fits both day/month orders (e.g. %s); they were read month first (MM/DD), QIF's convention",
				quote(b.dates.example)),
		})
	}
	if b.mark.ambiguous {
		st.Problems = append(st.Problems, statement.Problem{
			Code: statement.ReviewAmbiguousDecimalMark,
			Pos:  statement.Position{Line: b.mark.exampleLine},
			Message: fmt.Sprintf("every amount fits both decimal marks (e.g. %s); they were read with a decimal point, Quicken's convention",
				quote(b.mark.example)),
		})
	}
}

// dialect describes what was read: qif;type=bank;dates=DMY;decimal=dot;charset=utf-8.
func (p *parser) dialect(dates dateOrder, mark decimalMark, charset string) string {
	var b strings.Builder
	b.WriteString("qif;type=")
	if len(p.types) == 0 {
		b.WriteString("none")
	} else {
		b.WriteString(strings.Join(p.types, "+"))
	}
	b.WriteString(";dates=" + dates.name())
	switch {
	case mark.ambiguous:
		b.WriteString(";decimal=ambiguous")
	case mark.mark == ',':
		b.WriteString(";decimal=comma")
	default:
		b.WriteString(";decimal=dot")
	}
	b.WriteString(";charset=" + charset)
	return b.String()
}

// quote shortens a value for a message.
func quote(s string) string {
	if len(s) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return fmt.Sprintf("%q", s)
}
