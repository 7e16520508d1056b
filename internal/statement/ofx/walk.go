package ofx

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// role says what closing an aggregate finishes.
type role uint8

const (
	rolePlain   role = iota
	roleSection      // STMTRS or CCSTMTRS being read
	roleTrn          // STMTTRN being read
	roleInvest       // INVSTMTRS, skipped
)

// frame is one open aggregate.
type frame struct {
	id    int32
	idx   int // 1-based position among the parent's aggregates of the same name, 0 if not counted
	start int // offset of its '<'
	role  role
	path  string // cached by pathOf
	kids  []kidCount
}

// maxKids bounds the aggregate names a frame counts for the [n] of paths, so that a parent
// with thousands of differently named children costs no quadratic time; OFX aggregates have a
// handful. Past it, children get no index.
const maxKids = 64

type kidCount struct {
	id int32
	n  int
}

// section is the STMTRS or CCSTMTRS being read.
type section struct {
	sec                      statement.Section
	curdef                   string
	acctID, bankID           string
	dtStart, dtEnd           string
	balAmt                   string
	depth                    int // stack depth of its frame
	startLine                int
	curdefLine, balLine      int
	dtStartLine, dtEndLine   int
	hasBal, hasDtS, hasDtE   bool
	bankTranListPath, myPath string
}

// trn is the STMTTRN being read. Fields hold trimmed raw values; strings are made on close.
type trn struct {
	depth     int
	start     int
	line      int
	record    int
	path      string
	any       bool
	fields    [nTrnFields]field
	payeeName field
	toAcct    field
	currency  field
}

// field is a leaf's value, trimmed and decoded, and whether the leaf was there at all.
type field struct {
	v   string
	set bool
}

func (f field) str() string { return f.v }

// Indexes into trn.fields: the STMTTRN leaves read.
const (
	fTRNTYPE = iota
	fDTPOSTED
	fDTUSER
	fDTAVAIL
	fVALUEDATE
	fTRNAMT
	fFITID
	fREFNUM
	fCHECKNUM
	fNAME
	fEXTDNAME
	fMEMO
	fACCTBAL
	nTrnFields
)

// trnField maps a leaf id directly under STMTTRN to its field, -1 for leaves not read.
func trnField(id int32) int {
	switch id {
	case idTRNTYPE:
		return fTRNTYPE
	case idDTPOSTED:
		return fDTPOSTED
	case idDTUSER:
		return fDTUSER
	case idDTAVAIL:
		return fDTAVAIL
	case idVALUEDATE:
		return fVALUEDATE
	case idTRNAMT:
		return fTRNAMT
	case idFITID:
		return fFITID
	case idREFNUM:
		return fREFNUM
	case idCHECKNUM:
		return fCHECKNUM
	case idNAME:
		return fNAME
	case idEXTDNAME:
		return fEXTDNAME
	case idMEMO:
		return fMEMO
	case idACCTBAL:
		return fACCTBAL
	}
	return -1
}

// walker is the second pass: it walks the tags with the aggregates known and builds the
// statement.
type walker struct {
	text []byte
	// s is text as a string, copied once: values, Raw and paths are substrings of it rather
	// than an allocation each, and they stay valid when the caller reuses its buffer.
	s       string
	body    int
	nm      *names
	matched []bool
	opts    statement.Options
	st      *statement.Statement

	stack []frame
	sec   *section

	// emit, when set, is given each statement's transactions once the statement is read,
	// which are then let go of (Stream); emitted counts them.
	emit    func(*statement.Transaction) bool
	emitted int
	stopped bool
	trn     *trn

	lineOff, line int

	records        int // STMTTRN records, read or not, for MaxRows
	recordProblems int
	sections       int
	invest         int
	bank, card     bool

	fid, org, intuBID, firstBankID string
}

func newWalker(text []byte, body int, nm *names, matched []bool, opts statement.Options) *walker {
	return &walker{
		text: text, s: string(text), body: body, nm: nm, matched: matched, opts: opts,
		st:      &statement.Statement{Format: statement.FormatOFX, Transactions: []statement.Transaction{}},
		lineOff: 0, line: 1,
	}
}

// lineAt returns the 1-based line of offset off. Offsets asked for mostly grow, so counting
// resumes where it stopped.
func (w *walker) lineAt(off int) int {
	if off < w.lineOff {
		w.lineOff, w.line = 0, 1
	}
	w.line += bytes.Count(w.text[w.lineOff:off], []byte{'\n'})
	w.lineOff = off
	return w.line
}

// pathOf returns the path of the frame at stack index i, e.g. /OFX/BANKMSGSRSV1/STMTTRNRS/STMTRS[2].
func (w *walker) pathOf(i int) string {
	f := &w.stack[i]
	if f.path != "" {
		return f.path
	}
	parent := ""
	if i > 0 {
		parent = w.pathOf(i - 1)
	}
	f.path = parent + "/" + w.nm.list[f.id]
	if f.idx > 1 {
		f.path += "[" + strconv.Itoa(f.idx) + "]"
	}
	return f.path
}

// leafPath is the path of a leaf named id under the innermost open aggregate.
func (w *walker) leafPath(id int32) string {
	if len(w.stack) == 0 {
		return "/" + w.nm.list[id]
	}
	return w.pathOf(len(w.stack)-1) + "/" + w.nm.list[id]
}

// val returns a leaf's value: trimmed, with markup and entities decoded, a substring of the
// text when there is nothing to decode.
func (w *walker) val(t *token) string {
	i, j := 0, len(t.val)
	for i < j && isSpace(t.val[i]) {
		i++
	}
	for j > i && isSpace(t.val[j-1]) {
		j--
	}
	if t.special || bytes.IndexByte(t.val[i:j], '&') >= 0 {
		return valueString(t.val[i:j], t.special)
	}
	return w.s[t.vs+i : t.vs+j]
}

func (w *walker) problem(pos statement.Position, format string, args ...any) {
	w.st.Problems = append(w.st.Problems, statement.Problem{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// walk reads the body's tags once more, now knowing which start tags open aggregates.
func (w *walker) walk() error {
	s := scanner{b: w.text, i: w.body}
	var t token
	k := 0
	for s.next(&t) {
		switch t.kind {
		case tokStart:
			id := w.nm.id(t.name)
			if id < 0 {
				// Past maxNames distinct names (only leaves with their end tag get here, the
				// first pass saw the rest): a name never read, skipped like any unknown one.
				if !t.closed {
					k++
				}
				continue
			}
			if !t.closed {
				agg := k < len(w.matched) && w.matched[k]
				k++
				if agg {
					if err := w.open(id, &t); err != nil {
						return err
					}
					continue
				}
			}
			if err := w.leaf(id, &t); err != nil {
				return err
			}
		case tokEnd:
			if n := len(w.stack); n > 0 && w.stack[n-1].id == w.nm.id(t.name) {
				if err := w.close(&t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (w *walker) open(id int32, t *token) error {
	n := len(w.stack)
	if n >= w.opts.MaxDepth {
		return errorf(statement.ErrResourceLimit, statement.Position{Line: w.lineAt(t.start)},
			"elements are nested deeper than %d levels", w.opts.MaxDepth)
	}
	idx := 1
	if n > 0 {
		p := &w.stack[n-1]
		found := false
		for j := range p.kids {
			if p.kids[j].id == id {
				p.kids[j].n++
				idx, found = p.kids[j].n, true
				break
			}
		}
		if !found && len(p.kids) < maxKids {
			p.kids = append(p.kids, kidCount{id, 1})
		}
	}
	// Reuse the slot's kids slice: frames come and go by the hundred thousand.
	if n < cap(w.stack) {
		w.stack = w.stack[:n+1]
		kids := w.stack[n].kids[:0]
		w.stack[n] = frame{id: id, idx: idx, start: t.start, kids: kids}
	} else {
		w.stack = append(w.stack, frame{id: id, idx: idx, start: t.start})
	}
	f := &w.stack[n]
	switch id {
	case idSTMTRS, idCCSTMTRS:
		if w.sec != nil || w.invest > 0 {
			return nil
		}
		f.role = roleSection
		w.sections++
		if id == idSTMTRS {
			w.bank = true
		} else {
			w.card = true
		}
		w.sec = &section{depth: n + 1, startLine: w.lineAt(t.start)}
		w.sec.myPath = w.pathOf(n)
		w.sec.sec.First = w.txCount()
	case idINVSTMTRS:
		f.role = roleInvest
		w.invest++
		if w.invest == 1 {
			pos := statement.Position{Line: w.lineAt(t.start), Path: w.pathOf(n)}
			w.problem(pos, "an investment statement (INVSTMTRS) is not read; its transactions are missing")
		}
	case idBANKTRANLIST:
		if w.sec != nil && n == w.sec.depth {
			w.sec.bankTranListPath = w.pathOf(n)
		}
	case idSTMTTRN:
		w.records++
		if w.records > w.opts.MaxRows {
			return errorf(statement.ErrTooManyRows, statement.Position{Line: w.lineAt(t.start)},
				"more than %d transactions", w.opts.MaxRows)
		}
		if w.invest > 0 {
			return nil // an investment account's cash transaction, covered by the INVSTMTRS problem
		}
		var path string
		if w.sec != nil && n == w.sec.depth+1 && w.stack[n-1].id == idBANKTRANLIST {
			path = w.sec.bankTranListPath + "/STMTTRN[" + strconv.Itoa(idx) + "]"
		} else {
			path = w.pathOf(n)
		}
		pos := statement.Position{Line: w.lineAt(t.start), Record: w.records, Path: path}
		switch {
		case w.trn != nil:
			w.problem(pos, "STMTTRN inside another STMTTRN is not read")
			w.recordProblems++
		case w.sec == nil:
			w.problem(pos, "STMTTRN outside a bank or credit-card statement (STMTRS, CCSTMTRS) is not read")
			w.recordProblems++
		default:
			f.role = roleTrn
			w.trn = &trn{depth: n + 1, start: t.start, line: pos.Line, record: pos.Record, path: path}
		}
	}
	return nil
}

func (w *walker) close(t *token) error {
	n := len(w.stack) - 1
	f := &w.stack[n]
	r, start := f.role, f.start
	w.stack = w.stack[:n]
	switch r {
	case roleTrn:
		w.endTrn(w.s[start:t.end])
		w.trn = nil
	case roleSection:
		w.endSection()
		w.sec = nil
		if w.stopped {
			return statement.ErrStopped
		}
	case roleInvest:
		w.invest--
	}
	return nil
}

// leaf handles an element without children: a value, or an aggregate that lost its end tag.
func (w *walker) leaf(id int32, t *token) error {
	n := len(w.stack)
	parent := int32(-1)
	if n > 0 {
		parent = w.stack[n-1].id
	}
	switch id {
	case idSTMTRS, idCCSTMTRS, idBANKTRANLIST, idBANKACCTFROM, idCCACCTFROM, idLEDGERBAL:
		if !t.closed {
			// A statement aggregate must be closed; without its end tag its content cannot be
			// placed, and the usual cause is a truncated file.
			return errorf(statement.ErrCorrupt, statement.Position{Line: w.lineAt(t.start), Path: w.leafPath(id)},
				"<%s> is never closed: the file is truncated or broken", w.nm.list[id])
		}
		if id == idSTMTRS || id == idCCSTMTRS {
			w.problem(statement.Position{Line: w.lineAt(t.start), Path: w.leafPath(id)},
				"%s holds no statement (its text is %s)", w.nm.list[id], quote(w.val(t)))
			w.recordProblems++
		}
		return nil
	case idSTMTTRN:
		if w.invest > 0 {
			return nil
		}
		w.records++
		if w.records > w.opts.MaxRows {
			return errorf(statement.ErrTooManyRows, statement.Position{Line: w.lineAt(t.start)},
				"more than %d transactions", w.opts.MaxRows)
		}
		pos := statement.Position{Line: w.lineAt(t.start), Record: w.records, Path: w.leafPath(id)}
		if t.closed {
			w.problem(pos, "STMTTRN holds no fields (its text is %s)", quote(w.val(t)))
		} else {
			w.problem(pos, "STMTTRN has no end tag </STMTTRN>, so its fields cannot be told from the next record's")
		}
		w.recordProblems++
		return nil
	}
	if tr := w.trn; tr != nil {
		switch {
		case n == tr.depth:
			if i := trnField(id); i >= 0 {
				tr.fields[i] = field{v: w.val(t), set: true}
				tr.any = true
			} else {
				tr.any = tr.any || len(trimSpace(t.val)) > 0
			}
		case n == tr.depth+1:
			tr.any = true
			switch {
			case parent == idPAYEE && id == idNAME:
				tr.payeeName = field{v: w.val(t), set: true}
			case (parent == idBANKACCTTO || parent == idCCACCTTO) && id == idACCTID:
				tr.toAcct = field{v: w.val(t), set: true}
			case parent == idCURRENCY && id == idCURSYM:
				tr.currency = field{v: w.val(t), set: true}
			}
		}
		return nil
	}
	if sc := w.sec; sc != nil {
		val := func() string { return w.val(t) }
		switch {
		case n == sc.depth && id == idCURDEF:
			sc.curdef, sc.curdefLine = val(), w.lineAt(t.start)
		case n == sc.depth+1 && (parent == idBANKACCTFROM || parent == idCCACCTFROM):
			switch id {
			case idACCTID:
				sc.acctID = val()
			case idBANKID:
				sc.bankID = val()
				if w.firstBankID == "" {
					w.firstBankID = sc.bankID
				}
			}
		case n == sc.depth+1 && parent == idBANKTRANLIST:
			switch id {
			case idDTSTART:
				sc.dtStart, sc.hasDtS, sc.dtStartLine = val(), true, w.lineAt(t.start)
			case idDTEND:
				sc.dtEnd, sc.hasDtE, sc.dtEndLine = val(), true, w.lineAt(t.start)
			}
		case n == sc.depth+1 && parent == idLEDGERBAL && id == idBALAMT:
			sc.balAmt, sc.hasBal, sc.balLine = val(), true, w.lineAt(t.start)
		}
		return nil
	}
	switch {
	case parent == idFI && id == idFID && w.fid == "":
		w.fid = statement.CollapseSpace(w.val(t))
	case parent == idFI && id == idORG && w.org == "":
		w.org = statement.CollapseSpace(w.val(t))
	case parent == idSONRS && id == idINTUBID && w.intuBID == "":
		w.intuBID = statement.CollapseSpace(w.val(t))
	}
	return nil
}

// endTrn turns the STMTTRN just closed into a transaction, or a problem when it cannot be read.
func (w *walker) endTrn(raw string) {
	tr := w.trn
	pos := statement.Position{Line: tr.line, Record: tr.record, Path: tr.path}
	fail := func(format string, args ...any) {
		w.problem(pos, format, args...)
		w.recordProblems++
	}
	if !tr.any {
		fail("STMTTRN holds no fields")
		return
	}
	f := &tr.fields
	if !f[fTRNAMT].set || len(f[fTRNAMT].v) == 0 {
		fail("STMTTRN has no amount (TRNAMT)")
		return
	}
	amtText := f[fTRNAMT].str()
	amt, err := parseAmount(amtText)
	if err != nil {
		fail("TRNAMT %s %v", quote(amtText), err)
		return
	}
	posted := f[fDTPOSTED].str()
	date, err := parseDate(posted)
	if err != nil {
		fail("DTPOSTED %s is not a date", quote(posted))
		return
	}
	var value statement.Date
	for _, i := range []int{fDTAVAIL, fVALUEDATE, fDTUSER} {
		if s := f[i].str(); s != "" {
			// A value date that cannot be read is left out: the booking date and amount are
			// what the transaction is.
			if d, err := parseDate(s); err == nil && !d.IsZero() {
				value = d
				break
			}
		}
	}
	x := statement.Transaction{
		Date:                date,
		ValueDate:           value,
		Amount:              amt,
		Raw:                 raw,
		Pos:                 pos,
		CounterpartyAccount: statement.CollapseSpace(tr.toAcct.str()),
	}
	if c := strings.ToUpper(statement.CollapseSpace(tr.currency.str())); c != "" {
		if isCurrency(c) {
			x.Currency = c
		}
	}
	for _, i := range []int{fFITID, fREFNUM, fCHECKNUM} {
		if s := statement.CollapseSpace(f[i].str()); s != "" {
			x.Reference = s
			break
		}
	}
	name := statement.CollapseSpace(f[fNAME].str())
	if name == "" {
		name = statement.CollapseSpace(tr.payeeName.str())
	}
	if name == "" {
		name = statement.CollapseSpace(f[fEXTDNAME].str())
	}
	x.CounterpartyName = name
	x.Description = statement.Describe(name, statement.CollapseSpace(f[fMEMO].str()))
	if s := f[fACCTBAL].str(); s != "" {
		// ACCTBAL is a non-standard running balance (Commonwealth Bank of Australia's export).
		if b, err := parseAmount(s); err == nil {
			x.Balance = &b
		}
	}
	if amt.IsZero() {
		// A zero amount has no sign; the type then comes from TRNTYPE when it says so.
		switch strings.ToUpper(f[fTRNTYPE].str()) {
		case "DEBIT":
			x.Type = statement.Debit
		case "CREDIT":
			x.Type = statement.Credit
		}
	}
	w.st.Transactions = append(w.st.Transactions, x)
}

func isCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}

// endSection finishes the STMTRS or CCSTMTRS just closed.
func (w *walker) endSection() {
	sc := w.sec
	s := &sc.sec
	s.Account = statement.CollapseSpace(sc.acctID)
	s.Pos = statement.Position{Line: sc.startLine, Path: sc.myPath}
	s.Count = w.txCount() - s.First
	if c := strings.ToUpper(statement.CollapseSpace(sc.curdef)); c != "" {
		if isCurrency(c) {
			s.Currency = c
		} else {
			w.problem(statement.Position{Line: sc.curdefLine, Path: sc.myPath + "/CURDEF"},
				"CURDEF %s is not a currency code", quote(sc.curdef))
		}
	}
	if sc.hasDtS {
		if d, err := parseDate(sc.dtStart); err == nil {
			s.PeriodStart = d
		} else {
			w.problem(statement.Position{Line: sc.dtStartLine, Path: sc.bankTranListPath + "/DTSTART"},
				"DTSTART %s is not a date", quote(sc.dtStart))
		}
	}
	if sc.hasDtE {
		if d, err := parseDate(sc.dtEnd); err == nil {
			s.PeriodEnd = d
		} else {
			w.problem(statement.Position{Line: sc.dtEndLine, Path: sc.bankTranListPath + "/DTEND"},
				"DTEND %s is not a date", quote(sc.dtEnd))
		}
	}
	if sc.hasBal && sc.balAmt != "" {
		if b, err := parseAmount(sc.balAmt); err == nil {
			s.ClosingBalance = &b
		} else {
			w.problem(statement.Position{Line: sc.balLine, Path: sc.myPath + "/LEDGERBAL/BALAMT"},
				"BALAMT %s %v", quote(sc.balAmt), err)
		}
	}
	txs := w.st.Transactions[s.First-w.emitted:]
	// Amounts are in CURDEF unless the transaction's CURRENCY says otherwise. When CURDEF is
	// left empty (Commonwealth Bank's export) and the transactions all name one currency, that
	// is the statement's currency: the file states it, nothing is guessed.
	if s.Currency == "" {
		one := ""
		for i := range txs {
			c := txs[i].Currency
			if c == "" || one != "" && c != one {
				one = ""
				break
			}
			one = c
		}
		s.Currency = one
	}
	for i := range txs {
		if txs[i].Currency == "" {
			txs[i].Currency = s.Currency
		}
	}
	w.st.Sections = append(w.st.Sections, *s)
	if w.emit != nil {
		w.flush()
	}
}

// txCount is how many transactions have been read: emitted or held.
func (w *walker) txCount() int { return w.emitted + len(w.st.Transactions) }

// flush gives the transactions held to emit and lets go of them; a caller that has had
// enough stops the reading.
func (w *walker) flush() {
	for i := range w.st.Transactions {
		if !w.stopped && !w.emit(&w.st.Transactions[i]) {
			w.stopped = true
		}
	}
	w.emitted += len(w.st.Transactions)
	clear(w.st.Transactions)
	w.st.Transactions = w.st.Transactions[:0]
}
