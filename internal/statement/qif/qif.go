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
	dp         dateParts
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

// parser holds one Parse.
type parser struct {
	opts    statement.Options
	text    string
	st      *statement.Statement
	recs    []record
	blocks  []block
	types   []string
	invest  int
	records int
}

// Parse reads a QIF file. See the package comment for what it reads.
func Parse(data []byte, opts statement.Options) (st *statement.Statement, err error) {
	opts = opts.WithDefaults()
	defer func() {
		// A last resort: the parser bounds-checks, so this is a bug, reported as a broken file
		// rather than a crashed job.
		if r := recover(); r != nil {
			st, err = nil, statement.Errorf(statement.FormatQIF, statement.ErrCorrupt, statement.Position{},
				"internal error while reading the file: %v", r)
		}
	}()
	text, charset := toUTF8(data)
	p := &parser{opts: opts, text: text, st: &statement.Statement{Format: statement.FormatQIF, Transactions: []statement.Transaction{}}}
	if err := p.detect(); err != nil {
		return nil, err
	}
	if err := p.read(); err != nil {
		return nil, err
	}
	dates := p.decideDates()
	mark := p.decideDecimal()
	p.build(dates, mark)
	p.st.Dialect = p.dialect(dates, mark, charset)
	if len(p.st.Transactions) == 0 && len(p.recs) == 0 {
		if p.invest > 0 {
			return nil, statement.Errorf(statement.FormatQIF, statement.ErrNoTransactions, statement.Position{},
				"the file holds only investment transactions (!Type:Invst), which are not read")
		}
		return nil, statement.Errorf(statement.FormatQIF, statement.ErrNoTransactions, statement.Position{},
			"the file holds no transaction records")
	}
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

// read splits the file into records and keeps the transaction records.
func (p *parser) read() error {
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
	// One record per "^" line, give or take: allocating once saves copying them all as the
	// slice grows.
	p.recs = make([]record, 0, min(strings.Count(p.text, "\n^")+1, p.opts.MaxRows+1))
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
			p.recs = append(p.recs, cur)
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

// build turns the records into transactions and the blocks into sections.
func (p *parser) build(dates dateOrder, mark decimalMark) {
	secOf := make([]int, len(p.blocks)) // block -> section index + 1
	p.st.Transactions = make([]statement.Transaction, 0, len(p.recs))
	for i := range p.recs {
		r := &p.recs[i]
		pos := statement.Position{Line: r.line, Record: r.num}
		if !r.hasAmount || r.amount == "" {
			p.problem(pos, "the record has no amount (T)")
			continue
		}
		amt, err := parseAmount(r.amount, mark.mark)
		if err != nil {
			p.problem(statement.Position{Line: r.amountLine, Record: r.num}, "amount %s %v", quote(r.amount), err)
			continue
		}
		var date statement.Date
		if r.hasDate && r.date != "" {
			d, ok := r.dp.date(dates.order)
			if !ok {
				p.problem(statement.Position{Line: r.dateLine, Record: r.num}, "date %s %s", quote(r.date), dates.why(r.dp))
				continue
			}
			date = d
		}
		b := r.section
		if secOf[b] == 0 {
			blk := p.blocks[b]
			p.st.Sections = append(p.st.Sections, statement.Section{
				Account: blk.account,
				First:   len(p.st.Transactions),
				Pos:     statement.Position{Line: blk.line},
			})
			secOf[b] = len(p.st.Sections)
		}
		payee := statement.CollapseSpace(r.payee)
		p.st.Transactions = append(p.st.Transactions, statement.Transaction{
			Date:             date,
			Amount:           amt,
			Description:      statement.Describe(payee, statement.CollapseSpace(r.memo)),
			Reference:        statement.CollapseSpace(r.ref),
			CounterpartyName: payee,
			Raw:              r.raw,
			Pos:              pos,
		})
		p.st.Sections[secOf[b]-1].Count++
	}
	if dates.ambiguous {
		p.st.Problems = append(p.st.Problems, statement.Problem{
			Code: statement.ReviewAmbiguousDateOrder,
			Pos:  statement.Position{Line: dates.exampleLine},
			Message: fmt.Sprintf("every date fits both day/month orders (e.g. %s); they were read month first (MM/DD), QIF's convention",
				quote(dates.example)),
		})
	}
	if mark.ambiguous {
		p.st.Problems = append(p.st.Problems, statement.Problem{
			Code: statement.ReviewAmbiguousDecimalMark,
			Pos:  statement.Position{Line: mark.exampleLine},
			Message: fmt.Sprintf("every amount fits both decimal marks (e.g. %s); they were read with a decimal point, Quicken's convention",
				quote(mark.example)),
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
