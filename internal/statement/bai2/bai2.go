// Package bai2 reads BAI2 cash management balance reports (BAI "Cash Management Balance
// Reporting Specifications Version 2", also X9 BTRS), the format US and Canadian banks send
// prior-day and intraday reports in.
//
// A file is a tree of comma-separated records, each ended by '/':
//
//	01 File Header      sender, receiver, creation date/time, file id, physical record length,
//	                    block size, version (2)
//	02 Group Header     ultimate receiver, originator (the bank, e.g. its routing number), group
//	                    status, as-of date YYMMDD, as-of time, currency, as-of date modifier
//	03 Account          account number, currency, then repeated type code, amount, item count,
//	                    funds type (+ its fields): balances (status codes) and activity summaries
//	16 Transaction      type code, amount, funds type (+ its fields), bank reference, customer
//	                    reference, text (which may hold commas and '/', up to the record's end)
//	88 Continuation     more fields of the record before it
//	49 Account Trailer  control total, number of records
//	98 Group Trailer    control total, number of accounts, number of records
//	99 File Trailer     control total, number of groups, number of records
//
// Each 03 account of each 02 group becomes one statement.Section: its account number and
// currency, its period the group's as-of date, its opening balance type code 010 (opening
// ledger, else 040 opening available) and its closing balance 015 (closing ledger, else 045
// closing available). Each 16 record becomes a Transaction dated the as-of date, with the value
// date of funds type V. Amounts are whole numbers in the currency's minor unit (ISO 4217
// decimals: 2 for most, 0 for JPY, 3 for KWD); the currency is the 03's, else the 02's, else
// USD, as the specification has it. A 16 amount is unsigned and its type code gives the sign
// (see direction); a signed one, outside the specification, is taken relative to that: -100
// under a credit code is money out. Type code 890 (non-monetary information) is no transaction.
//
// Reference is, in this order, the EREF of Goldman Sachs style keyed 88s, the customer
// reference, the bank reference (a reference of only zeros says nothing). Description is the
// text with its text continuations, white space collapsed. Raw is the record as in the file with
// its 88s; Pos is the line the record starts on and its record number, 01 being record 1 and
// every 88 counting, as the trailers count.
//
// A 16 record whose text goes on in an 88 ends without '/', as the specification asks, and
// some banks end every 16 and 88 at the line end; see scanner for the layouts read.
//
// The trailers' control totals sum every amount of the 03 and 16 records, balances included, so
// this package checks them itself: a 49 against its account's 03 and 16 amounts and records, a
// 98 against its 49 totals, accounts and records, a 99 against its 98 totals, groups and records.
// A difference is a Problem with code statement.ReviewControlTotalMismatch; Section.Declared
// stays empty.
//
// BankID is the 02 originator identification (for US banks their routing number); BankName is
// never set, since a routing number names a bank only through a directory.
package bai2

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// maxProblems bounds how many problems are listed, so a hostile file cannot fill memory with
// them; the rest are counted in one last problem.
const maxProblems = 1000

// total is a control sum in minor units. bad means an amount could not be read or the sum left
// int64, and no comparison is made.
type total struct {
	v   int64
	bad bool
}

func (t *total) add(v int64) {
	s := t.v + v
	if (v > 0 && s < t.v) || (v < 0 && s > t.v) {
		t.bad = true
	}
	t.v = s
}

// group is the 02 group being read.
type group struct {
	pos        statement.Position
	originator string
	currency   string
	date       statement.Date
	records    int
	accounts   int
	// sum adds the control totals of its 49 trailers, which its 98 trailer must equal.
	sum total
}

// account is the 03 account being read.
type account struct {
	pos      statement.Position
	number   string
	currency string
	decimals int32
	records  int
	// sum adds every amount of its 03 and 16 records, which its 49 trailer must equal.
	sum     total
	section int
}

// file is the 01 file being read (a transmission may hold several, one after the other).
type file struct {
	pos     statement.Position
	sender  string
	records int
	groups  int
	sum     total
}

// logical is one logical record: a record and the 88 records that continue it.
type logical struct {
	code  int
	num   int
	pos   statement.Position
	start int
	end   int
	parts []string
	// glue[k] says parts[k] continues parts[k-1] without a blank: the record before it was cut
	// at the declared physical record length, possibly mid-word.
	glue []bool
	// pieces counts the records: the record and its 88s.
	pieces int
}

type parser struct {
	s    string
	opts statement.Options
	st   *statement.Statement
	sc   *scanner

	rec    logical
	hasRec bool
	// partsBuf and glueBuf are reused for the non-keyed parts of a 16 record.
	partsBuf []string
	glueBuf  []bool
	// lastFull says the last record read ended unterminated on a line of exactly the declared
	// physical record length.
	lastFull bool
	record   int // number of the last record read

	inFile, inGroup, inAcct bool
	f                       file
	g                       group
	a                       account

	version      string
	originators  []string
	keyedSeen    bool
	extraProblem int
	sawAccount   bool

	// emit, when set, is given each transaction as it is read, which is not held (Stream);
	// emitted counts them.
	emit    func(*statement.Transaction) bool
	emitted int
}

// Parse reads a BAI2 file. Every 03 account becomes a Section and every 16 record a
// Transaction; records that cannot be read and totals that do not add up are Problems.
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	return read(data, opts, nil)
}

// Stream reads a BAI2 file as Parse does, for a caller that stores the transactions as they
// pass: the file's text is held, not the transactions, which each reading of them reads again
// from the text (a 16 record is complete when it is read: its account's 03 came before it).
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	return statement.Read(func(emit func(*statement.Transaction) bool) (*statement.Statement, error) {
		return read(data, opts, emit)
	})
}

// read is Parse giving each transaction to emit, when set, instead of holding it.
func read(data []byte, opts statement.Options, emit func(*statement.Transaction) bool) (*statement.Statement, error) {
	opts = opts.WithDefaults()
	text, charset, err := decode(data)
	if err != nil {
		return nil, err
	}
	p := &parser{
		s: text, opts: opts, sc: newScanner(text),
		st:   &statement.Statement{Format: statement.FormatBAI2},
		emit: emit,
	}
	// Room for the 16 records as far as line starts tell, so the slice is not regrown and copied
	// (a third of the parse's memory otherwise). A file of bare "16," lines reserves no more than
	// MaxRows transactions, as much as the same number of readable ones would take.
	if emit == nil {
		p.st.Transactions = make([]statement.Transaction, 0, min(strings.Count(text, "\n16,")+1, opts.MaxRows))
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	p.st.Dialect = p.dialect(charset)
	p.bank()
	if p.txCount() == 0 {
		if !p.sawAccount && len(p.st.Problems) > 0 {
			first := p.st.Problems[0]
			return nil, statement.Errorf(statement.FormatBAI2, statement.ErrCorrupt, first.Pos,
				"no account could be read; the first problem: %s", first.Message)
		}
		if !p.hasBalances() {
			return nil, statement.Errorf(statement.FormatBAI2, statement.ErrNoTransactions, statement.Position{},
				"the file holds no 16 transaction records and no balances")
		}
	}
	return p.st, nil
}

func (p *parser) hasBalances() bool {
	for _, s := range p.st.Sections {
		if s.OpeningBalance != nil || s.ClosingBalance != nil {
			return true
		}
	}
	return false
}

func (p *parser) run() error {
	first := true
	for {
		pc, ok := p.sc.next(p.hasRec && p.rec.code == recDetail)
		if !ok {
			break
		}
		if first {
			if pc.code != recFileHeader {
				return statement.Errorf(statement.FormatBAI2, statement.ErrNotAStatement, statement.Position{Line: pc.line},
					"the file does not start with a BAI2 01 file header record")
			}
			first = false
		}
		pos := statement.Position{Line: pc.line}
		if pc.code != recGarbage {
			p.record++
			pos.Record = p.record
		}
		if pc.trailing != "" {
			p.problem(pos, "", "text %s after the record's closing '/' is ignored", quote(pc.trailing))
		}
		switch pc.code {
		case recGarbage:
			p.problem(pos, "", "%s is not a BAI2 record", quote(pc.body))
			continue
		case recMalformed:
			// A record code without its comma ("88:EREF: 1"): it was meant as a record, so it counts
			// towards the trailers' record counts, but its fields cannot be trusted.
			p.count(1)
			p.problem(pos, "", "record %s does not have a comma after its record code; skipped", quote(pc.body))
			continue
		case recContinuation:
			if p.hasRec {
				p.rec.parts = append(p.rec.parts, pc.body)
				p.rec.glue = append(p.rec.glue, p.lastFull)
				p.lastFull = pc.full
				p.rec.end = pc.end
				p.rec.pieces++
				continue
			}
		}
		if p.hasRec {
			if err := p.flush(); err != nil {
				return err
			}
		}
		p.rec = logical{code: pc.code, num: pc.num, pos: pos, start: pc.start, end: pc.end,
			parts: append(p.rec.parts[:0], pc.body), glue: append(p.rec.glue[:0], false), pieces: 1}
		p.lastFull = pc.full
		p.hasRec = true
	}
	if first {
		return statement.Errorf(statement.FormatBAI2, statement.ErrNotAStatement, statement.Position{}, "the file is empty")
	}
	if p.hasRec {
		if err := p.flush(); err != nil {
			return err
		}
	}
	p.endOfFile()
	return nil
}

// problem records a Problem; code "" means a record that could not be read.
func (p *parser) problem(pos statement.Position, code statement.ReviewCode, msg string, args ...any) {
	if len(p.st.Problems) >= maxProblems {
		p.extraProblem++
		return
	}
	p.st.Problems = append(p.st.Problems, statement.Problem{Code: code, Pos: pos, Message: fmt.Sprintf(msg, args...)})
}

// count adds n records to the record counts of the open account, group and file.
func (p *parser) count(n int) {
	if p.inAcct {
		p.a.records += n
	}
	if p.inGroup {
		p.g.records += n
	}
	if p.inFile {
		p.f.records += n
	}
}

// flush reads the logical record just completed.
func (p *parser) flush() error {
	r := &p.rec
	p.hasRec = false
	switch r.code {
	case recFileHeader:
		p.fileHeader(r)
	case recGroupHeader:
		p.groupHeader(r)
	case recAccount:
		return p.accountHeader(r)
	case recDetail:
		p.count(r.pieces)
		return p.detail(r)
	case recAccountTrailer:
		p.accountTrailer(r)
	case recGroupTrailer:
		p.groupTrailer(r)
	case recFileTrailer:
		p.fileTrailer(r)
	case recContinuation:
		p.count(r.pieces)
		p.problem(r.pos, "", "88 continuation record has no record before it to continue")
	default:
		p.count(r.pieces)
		p.problem(r.pos, "", "record type %02d is not a BAI2 record type; skipped", r.num)
	}
	return nil
}

// closeAccount closes an account whose 49 trailer never came, and says so; closeGroup and
// closeFile do the same one level up.
func (p *parser) closeAccount(pos statement.Position, why string) {
	if !p.inAcct {
		return
	}
	p.problem(pos, statement.ReviewControlTotalMismatch,
		"account %s (03 at line %d) has no 49 account trailer before %s; its totals cannot be checked",
		clip(p.a.number), p.a.pos.Line, why)
	p.inAcct = false
}

func (p *parser) closeGroup(pos statement.Position, why string) {
	p.closeAccount(pos, why)
	if !p.inGroup {
		return
	}
	p.problem(pos, statement.ReviewControlTotalMismatch,
		"group (02 at line %d) has no 98 group trailer before %s; its totals cannot be checked", p.g.pos.Line, why)
	p.inGroup = false
}

func (p *parser) closeFile(pos statement.Position, why string) {
	p.closeGroup(pos, why)
	if !p.inFile {
		return
	}
	p.problem(pos, statement.ReviewControlTotalMismatch,
		"file (01 at line %d) has no 99 file trailer before %s; its totals cannot be checked", p.f.pos.Line, why)
	p.inFile = false
}

func (p *parser) endOfFile() {
	var missing []string
	if p.inAcct {
		missing = append(missing, fmt.Sprintf("49 trailer of account %s", clip(p.a.number)))
	}
	if p.inGroup {
		missing = append(missing, "98 group trailer")
	}
	if p.inFile {
		missing = append(missing, "99 file trailer")
	}
	if len(missing) > 0 {
		p.problem(statement.Position{Line: p.sc.line}, statement.ReviewControlTotalMismatch,
			"the file ends without its %s: it may be truncated, and its totals cannot be checked",
			strings.Join(missing, ", "))
	}
	if p.extraProblem > 0 {
		p.st.Problems = append(p.st.Problems, statement.Problem{Pos: statement.Position{Line: p.sc.line},
			Message: fmt.Sprintf("%d further problems are not listed", p.extraProblem)})
	}
}

// fileHeader reads 01: sender, receiver, creation date, creation time, file id, physical
// record length, block size, version number.
func (p *parser) fileHeader(r *logical) {
	if p.inFile {
		p.closeFile(r.pos, "the next 01 file header")
	}
	p.inFile = true
	p.f = file{pos: r.pos}
	p.count(r.pieces)
	it := newFieldIter(r.parts)
	p.f.sender = it.field()
	it.field() // receiver
	it.field() // creation date
	it.field() // creation time
	it.field() // file identification number
	if n, present, ok := parseCount(it.field()); present && ok && n > 0 {
		p.sc.recLen = n
	}
	it.field() // block size
	if v := it.field(); p.version == "" {
		p.version = v
	}
}

// groupHeader reads 02: ultimate receiver, originator, group status, as-of date, as-of time,
// currency, as-of date modifier.
func (p *parser) groupHeader(r *logical) {
	if p.inGroup {
		p.closeGroup(r.pos, "the next 02 group header")
	}
	p.inGroup = true
	p.g = group{pos: r.pos}
	p.count(r.pieces)
	if p.inFile {
		p.f.groups++
	}
	it := newFieldIter(r.parts)
	it.field() // ultimate receiver
	p.g.originator = it.field()
	if p.g.originator != "" {
		p.originators = append(p.originators, p.g.originator)
	}
	it.field() // group status
	if f := it.field(); f != "" {
		d, ok := parseDate(f)
		if !ok {
			p.problem(r.pos, "", "02 group header: as-of date %s is not a date (YYMMDD)", quote(f))
		}
		p.g.date = d
	} else {
		p.problem(r.pos, "", "02 group header has no as-of date")
	}
	it.field() // as-of time
	if c := strings.ToUpper(it.field()); c != "" {
		if isCurrencyCode(c) {
			p.g.currency = c
		} else {
			p.problem(r.pos, "", "02 group header: currency %s is not an ISO 4217 code", quote(c))
		}
	}
}

// accountHeader reads 03: account number, currency, then type code, amount, item count, funds
// type and the funds type's own fields, repeated.
func (p *parser) accountHeader(r *logical) error {
	if p.inAcct {
		p.closeAccount(r.pos, "the next 03 account")
	}
	if !p.inGroup {
		p.problem(r.pos, "", "03 account record outside a group (no 02 group header before it); it has no as-of date")
	}
	if len(p.st.Sections) >= p.opts.MaxRows {
		return statement.Errorf(statement.FormatBAI2, statement.ErrTooManyRows, r.pos,
			"more than %d accounts", p.opts.MaxRows)
	}
	p.sawAccount = true
	p.inAcct = true
	p.a = account{pos: r.pos, section: len(p.st.Sections)}
	p.count(r.pieces)
	if p.inGroup {
		p.g.accounts++
	}
	it := newFieldIter(r.parts)
	p.a.number = it.field()
	p.a.currency = p.g.currency
	if c := strings.ToUpper(it.field()); c != "" {
		if isCurrencyCode(c) {
			p.a.currency = c
		} else {
			p.problem(r.pos, "", "03 account %s: currency %s is not an ISO 4217 code; amounts are read with 2 decimals",
				clip(p.a.number), quote(c))
			p.a.currency = ""
		}
	} else if p.a.currency == "" {
		p.a.currency = "USD"
	}
	p.a.decimals = int32(decimalsOf(p.a.currency))
	sec := statement.Section{Account: p.a.number, Currency: p.a.currency,
		PeriodStart: p.g.date, PeriodEnd: p.g.date, First: p.txCount(), Pos: r.pos}
	var balances [4]*decimal.Decimal // 010, 015, 040, 045
	for {
		tc, ok := it.next()
		if !ok {
			break
		}
		tc = strings.TrimSpace(tc)
		amt := it.field()
		it.field() // item count
		funds := it.field()
		if msg := skipFunds(&it, funds); msg != "" {
			p.problem(r.pos, "", "03 account %s, type code %s: %s", clip(p.a.number), quote(tc), msg)
		}
		v, present, msg := parseAmount(amt)
		if msg != "" {
			p.problem(r.pos, "", "03 account %s, type code %s: %s", clip(p.a.number), quote(tc), msg)
			p.a.sum.bad = true
			continue
		}
		if !present {
			continue
		}
		p.a.sum.add(v)
		slot := -1
		switch tc {
		case "010":
			slot = 0
		case "015":
			slot = 1
		case "040":
			slot = 2
		case "045":
			slot = 3
		}
		if slot >= 0 && balances[slot] == nil {
			d := decimal.New(v, -p.a.decimals)
			balances[slot] = &d
		}
	}
	sec.OpeningBalance, sec.ClosingBalance = balances[0], balances[1]
	if sec.OpeningBalance == nil {
		sec.OpeningBalance = balances[2]
	}
	if sec.ClosingBalance == nil {
		sec.ClosingBalance = balances[3]
	}
	p.st.Sections = append(p.st.Sections, sec)
	return nil
}

// skipFunds reads the fields a funds type brings along: S three availability amounts
// (immediate, one day, two or more days), V a value date and time, D a count of
// distributions and that many pairs of days and amount. The others bring none.
func skipFunds(it *fieldIter, funds string) string {
	switch strings.ToUpper(funds) {
	case "", "0", "1", "2", "Z":
	case "S":
		it.field()
		it.field()
		it.field()
	case "V":
		it.field()
		it.field()
	case "D":
		f := it.field()
		n, _, ok := parseCount(f)
		if !ok {
			return "distribution count " + quote(f) + " of funds type D is not a number"
		}
		for i := 0; i < 2*n; i++ {
			if _, more := it.next(); !more {
				return "funds type D announces " + f + " distributions but the record ends before them"
			}
		}
	default:
		return "funds type " + quote(funds) + " is not one of 0, 1, 2, S, V, D, Z; its fields may be misread"
	}
	return ""
}

// detail reads a 16 record: type code, amount, funds type (and its fields), bank reference,
// customer reference, text; and its 88 continuations, which continue the text or, in Goldman
// Sachs style, each carry one "KEY: value" field.
func (p *parser) detail(r *logical) error {
	if !p.inAcct {
		p.problem(r.pos, "", "16 transaction outside an account (no 03 account record before it); skipped")
		return nil
	}
	// Split the keyed continuations from the ones that carry fields or text.
	parts, glue := r.parts, r.glue
	var eref, dbnm, crnm, dact, cact, remi string
	if len(r.parts) > 1 {
		parts, glue = p.partsBuf[:0], p.glueBuf[:0]
		for k, part := range r.parts {
			key, val, ok := keyed(part)
			if k == 0 || !ok {
				parts, glue = append(parts, part), append(glue, r.glue[k])
				continue
			}
			p.keyedSeen = true
			switch key {
			case "EREF":
				eref = val
			case "DBNM":
				dbnm = val
			case "CRNM":
				crnm = val
			case "DACT":
				dact = val
			case "CACT":
				cact = val
			case "REMI":
				remi = val
			}
		}
		p.partsBuf, p.glueBuf = parts, glue
	}

	it := newFieldIter(parts)
	tcText := it.field()
	amtText := it.field()
	funds := it.field()
	var valueDate statement.Date
	var fundsProblem string
	switch strings.ToUpper(funds) {
	case "V":
		if f := it.field(); f != "" {
			d, ok := parseDate(f)
			if !ok {
				fundsProblem = "value date " + quote(f) + " is not a date (YYMMDD); left out"
			}
			valueDate = d
		}
		it.field() // value time
	default:
		fundsProblem = skipFunds(&it, funds)
	}
	bankRef := it.field()
	custRef := it.field()
	desc := it.text(glue)

	v, present, msg := parseAmount(amtText)
	switch {
	case msg != "":
		p.a.sum.bad = true
		p.problem(r.pos, "", "16 transaction: %s; skipped", msg)
		return nil
	case !present:
		p.problem(r.pos, "", "16 transaction has no amount; skipped")
		return nil
	}
	p.a.sum.add(v)
	tc, _, ok := parseCount(tcText)
	if !ok || tcText == "" || len(tcText) > 3 {
		p.problem(r.pos, "", "16 transaction: type code %s is not a number; skipped", quote(tcText))
		return nil
	}
	if tc == nonMonetary {
		return nil
	}
	dir := direction(tc)
	if dir == 0 {
		p.problem(r.pos, "", "16 transaction: type code %s is neither a credit (100-399, 720-728, 920-959) nor a debit (400-699, 760, 960-999); skipped", tcText)
		return nil
	}
	if fundsProblem != "" {
		p.problem(r.pos, "", "16 transaction: %s", fundsProblem)
	}
	if p.txCount() >= p.opts.MaxRows {
		return statement.Errorf(statement.FormatBAI2, statement.ErrTooManyRows, r.pos,
			"more than %d transactions", p.opts.MaxRows)
	}
	t := statement.Transaction{
		Date:        p.g.date,
		ValueDate:   valueDate,
		Amount:      decimal.New(int64(dir)*v, -p.a.decimals),
		Currency:    p.a.currency,
		Description: desc,
		Raw:         p.s[r.start:r.end],
		Pos:         r.pos,
	}
	if v == 0 {
		// A zero amount has no sign; the type code still says which way it went.
		t.Type = statement.Credit
		if dir < 0 {
			t.Type = statement.Debit
		}
	}
	switch {
	case eref != "":
		t.Reference = eref
	case !isNoRef(custRef):
		t.Reference = custRef
	case !isNoRef(bankRef):
		t.Reference = bankRef
	}
	if dir > 0 {
		t.CounterpartyName, t.CounterpartyAccount = dbnm, dact
	} else {
		t.CounterpartyName, t.CounterpartyAccount = crnm, cact
	}
	if remi != "" && !strings.Contains(t.Description, remi) {
		t.Description = strings.TrimSpace(t.Description + " " + statement.CollapseSpace(remi))
	}
	p.st.Sections[p.a.section].Count++
	if p.emit != nil {
		p.emitted++
		if !p.emit(&t) {
			return statement.ErrStopped
		}
		return nil
	}
	p.st.Transactions = append(p.st.Transactions, t)
	return nil
}

// txCount is how many transactions have been read: emitted or held.
func (p *parser) txCount() int { return p.emitted + len(p.st.Transactions) }

// accountTrailer reads 49: account control total, number of records.
func (p *parser) accountTrailer(r *logical) {
	if !p.inAcct {
		p.count(r.pieces)
		p.problem(r.pos, statement.ReviewControlTotalMismatch, "49 account trailer without an open account (no 03 before it)")
		return
	}
	p.count(r.pieces)
	p.inAcct = false
	it := newFieldIter(r.parts)
	declared, present, msg := parseAmount(it.field())
	if p.inGroup {
		if present && msg == "" {
			p.g.sum.add(declared)
		} else {
			p.g.sum.bad = true
		}
	}
	what := "49 trailer of account " + clip(p.a.number)
	p.checkTotal(r.pos, what, declared, present, msg, p.a.sum, "the amounts of its 03 and 16 records")
	p.checkCount(r.pos, what, "records", it.field(), p.a.records)
}

// groupTrailer reads 98: group control total, number of accounts, number of records.
func (p *parser) groupTrailer(r *logical) {
	if !p.inGroup {
		p.count(r.pieces)
		p.problem(r.pos, statement.ReviewControlTotalMismatch, "98 group trailer without an open group (no 02 before it)")
		return
	}
	p.closeAccount(r.pos, "the 98 group trailer")
	p.count(r.pieces)
	p.inGroup = false
	it := newFieldIter(r.parts)
	declared, present, msg := parseAmount(it.field())
	if p.inFile {
		if present && msg == "" {
			p.f.sum.add(declared)
		} else {
			p.f.sum.bad = true
		}
	}
	what := fmt.Sprintf("98 trailer of the group at line %d", p.g.pos.Line)
	p.checkTotal(r.pos, what, declared, present, msg, p.g.sum, "the control totals of its 49 account trailers")
	p.checkCount(r.pos, what, "accounts", it.field(), p.g.accounts)
	p.checkCount(r.pos, what, "records", it.field(), p.g.records)
}

// fileTrailer reads 99: file control total, number of groups, number of records.
func (p *parser) fileTrailer(r *logical) {
	if !p.inFile {
		p.count(r.pieces)
		p.problem(r.pos, statement.ReviewControlTotalMismatch, "99 file trailer without an open file (no 01 before it)")
		return
	}
	p.closeGroup(r.pos, "the 99 file trailer")
	p.count(r.pieces)
	p.inFile = false
	it := newFieldIter(r.parts)
	declared, present, msg := parseAmount(it.field())
	what := "99 file trailer"
	p.checkTotal(r.pos, what, declared, present, msg, p.f.sum, "the control totals of its 98 group trailers")
	p.checkCount(r.pos, what, "groups", it.field(), p.f.groups)
	p.checkCount(r.pos, what, "records", it.field(), p.f.records)
}

func (p *parser) checkTotal(pos statement.Position, what string, declared int64, present bool, msg string, actual total, of string) {
	switch {
	case msg != "":
		p.problem(pos, statement.ReviewControlTotalMismatch, "%s: control total %s", what, msg)
	case !present:
		p.problem(pos, statement.ReviewControlTotalMismatch, "%s has no control total", what)
	case actual.bad:
		// An amount it covers could not be read and is reported already.
	case declared != actual.v:
		p.problem(pos, statement.ReviewControlTotalMismatch,
			"%s: control total %d declared, but %s add up to %d (in minor units)", what, declared, of, actual.v)
	}
}

func (p *parser) checkCount(pos statement.Position, what, noun, field string, actual int) {
	n, present, ok := parseCount(field)
	switch {
	case !present:
		// Optional in practice: some banks leave counts out.
	case !ok:
		p.problem(pos, statement.ReviewControlTotalMismatch, "%s: number of %s %s is not a number", what, noun, quote(field))
	case n != actual:
		p.problem(pos, statement.ReviewControlTotalMismatch, "%s: %d %s declared, %d read", what, n, noun, actual)
	}
}

// bank sets BankID from the groups' originator identification (the bank's routing number or
// other id), or the file's sender when groups name different originators. BankName stays
// empty: a routing number names a bank only through a directory this package does not hold.
func (p *parser) bank() {
	if len(p.originators) == 0 {
		p.st.BankID = p.f.sender
		return
	}
	for _, o := range p.originators[1:] {
		if o != p.originators[0] {
			p.st.BankID = p.f.sender
			return
		}
	}
	p.st.BankID = p.originators[0]
}

// dialect describes what was read: "bai2;version=2;charset=ascii" and, when seen, "packed"
// (several records on one line), "wrapped" (a record continued on the next line without an
// 88), "unterminated" (records ended by the line end instead of '/'), "no-line-breaks" (fixed
// blocks without line ends), "keyed-88" (Goldman Sachs style "KEY: value" continuations).
func (p *parser) dialect(charset string) string {
	parts := []string{"bai2"}
	if p.version != "" {
		parts = append(parts, "version="+p.version)
	}
	parts = append(parts, "charset="+charset)
	for _, f := range []struct {
		on   bool
		name string
	}{
		{p.sc.packed, "packed"}, {p.sc.wrapped, "wrapped"}, {p.sc.unterminated, "unterminated"},
		{p.sc.noBreaks, "no-line-breaks"}, {p.keyedSeen, "keyed-88"},
	} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	return strings.Join(parts, ";")
}
