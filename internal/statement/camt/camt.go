// Package camt reads ISO 20022 bank-to-customer cash management messages: CAMT.052 account
// reports (BkToCstmrAcctRpt), CAMT.053 statements (BkToCstmrStmt) and CAMT.054 debit/credit
// notifications (BkToCstmrDbtCdtNtfctn), in every published version (001.01 to 001.13).
//
// The versions differ in namespaces and in a few element names (BIC or BICFI, Sts as text or
// Sts/Cd, Dbtr/Nm or Dbtr/Pty/Nm, TtlNetNtryAmt or TtlNetNtry/Amt), not in structure, so the
// parser matches elements by local name and path and ignores namespaces after detection. It
// streams the document through encoding/xml's RawToken with a small state machine (see kinds.go)
// instead of unmarshalling, which keeps it within a small factor of the bare tokenizer's speed.
//
// Each Stmt, Rpt or Ntfctn becomes one statement.Section, each booked Ntry one transaction: an
// entry is what moved on the account, so a batch entry with several NtryDtls/TxDtls stays one
// transaction and its details' references and names are joined, never split into transactions
// that would count the money twice.
package camt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"encoding/xml"

	"github.com/statementmatch/service/internal/statement"
)

// maxField bounds the text kept of one element. ISO 20022 fields are at most a few hundred
// characters (AddtlNtryInf 500, Ustrd 140), so only a hostile file reaches it.
const maxField = 4096

// frame is one open element.
type frame struct {
	kind kind
	name xml.Name
}

// parser holds the state of one Parse.
type parser struct {
	opts   statement.Options
	dec    *xml.Decoder
	src    string // the whole document as UTF-8; Raw is sliced from it
	st     *statement.Statement
	format statement.Format

	stack []frame
	text  []byte // text of the open capturing element
	off   int64  // input offset where the next token starts

	// What the document says about itself.
	msgID     string // e.g. camt.053.001.02, from the namespace
	docName   string
	msgName   string
	grpCreDt  string
	sections  int
	entries   int // every Ntry, booked or not, for MaxRows
	bankBIC   string
	balCodes  []string
	pending   int
	future    int
	info      int
	batches   int
	reversals int
	// unreadable is the first booked entry that could not be read.
	unreadable *statement.Problem

	sec *section
	ent entry

	// emit, when set, is given each section's transactions once the section is read, which
	// are then let go of (Stream); emitted counts them.
	emit    func(*statement.Transaction) bool
	emitted int
	stopped bool
}

// Parse reads a CAMT.052, .053 or .054 document. Only booked entries (Sts BOOK, or no status)
// become transactions; pending (PDNG), future (FUTR) and information-only (INFO) entries did not
// move the account and are only counted in the Dialect.
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	return read(data, opts, nil)
}

// Stream reads a CAMT document as Parse does, for a caller that stores the transactions as
// they pass: the document's text is held, and the transactions of one statement (report,
// notification) at a time, since its end says what they lack (a currency); each reading of the
// transactions reads the document again.
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	return statement.Read(func(emit func(*statement.Transaction) bool) (*statement.Statement, error) {
		return read(data, opts, emit)
	})
}

// read is Parse giving the transactions to emit, when set, a section at a time.
func read(data []byte, opts statement.Options, emit func(*statement.Transaction) bool) (*statement.Statement, error) {
	opts = opts.WithDefaults()
	text, charset, bom, err := toUTF8(data)
	if err != nil {
		return nil, err
	}
	p := &parser{
		opts: opts,
		src:  string(text),
		st:   &statement.Statement{Transactions: []statement.Transaction{}},
		emit: emit,
	}
	p.dec = xml.NewDecoder(strings.NewReader(p.src))
	p.dec.Strict = true
	// The text is UTF-8 already (see toUTF8); the declaration may still name its original charset.
	p.dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := p.run(); err != nil {
		return nil, err
	}
	p.st.Format = p.format
	p.st.Dialect = p.dialect(charset, bom)
	p.st.BankID = p.bankBIC
	p.st.BankName = statement.BankByBIC(p.bankBIC)
	if p.sections == 0 {
		return nil, p.errorf(statement.ErrNoTransactions, statement.Position{Path: "/" + p.docName + "/" + p.msgName},
			"the %s message holds no %s", p.msgName, sectionName(p.format))
	}
	if p.txCount() == 0 && p.unreadable != nil {
		return nil, p.errorf(statement.ErrNoTransactions, p.unreadable.Pos, "no entry could be read; the first: %s", p.unreadable.Message)
	}
	return p.st, nil
}

func (p *parser) errorf(kind error, pos statement.Position, msg string, args ...any) error {
	return statement.Errorf(p.format, kind, pos, msg, args...)
}

// run reads the document token by token.
func (p *parser) run() error {
	for {
		tok, err := p.dec.RawToken()
		if err != nil {
			return p.tokenError(err)
		}
		start := p.off
		p.off = p.dec.InputOffset()
		switch t := tok.(type) {
		case xml.StartElement:
			if err := p.start(t, start); err != nil {
				return err
			}
		case xml.EndElement:
			done, err := p.end(t)
			if err != nil || done {
				return err
			}
		case xml.CharData:
			if n := len(p.stack); n > 0 {
				// One byte beyond maxField is kept so that truncate marks the cut.
				if captures[p.stack[n-1].kind] && len(p.text) <= maxField {
					p.text = append(p.text, t[:min(len(t), maxField+1-len(p.text))]...)
				}
			} else if len(bytes.TrimSpace(t)) > 0 {
				return p.errorf(statement.ErrNotAStatement, p.pos(), "text before the root element: not an XML document")
			}
		case xml.Directive:
			// A DOCTYPE is where entity declarations live: billion-laughs expansion and external
			// entities start there. ISO 20022 messages never carry one.
			return p.errorf(statement.ErrCorrupt, p.pos(), "DTD not allowed: the document has a <!%s> declaration", firstWord(t))
		}
	}
}

// tokenError turns the decoder's error into a statement error.
func (p *parser) tokenError(err error) error {
	if errors.Is(err, io.EOF) {
		if len(p.stack) == 0 {
			return p.errorf(statement.ErrNotAStatement, statement.Position{}, "no XML root element")
		}
		return p.errorf(statement.ErrCorrupt, p.pos(), "the file ends inside <%s>: it is truncated", p.stack[len(p.stack)-1].name.Local)
	}
	kind := statement.ErrCorrupt
	if p.msgName == "" {
		kind = statement.ErrNotAStatement
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return p.errorf(kind, statement.Position{Line: se.Line, Path: p.path()}, "XML syntax error: %s", se.Msg)
	}
	return p.errorf(kind, p.pos(), "XML error: %v", err)
}

// pos is the current position: the decoder's line and the path of the open elements.
func (p *parser) pos() statement.Position {
	line, _ := p.dec.InputPos()
	return statement.Position{Line: line, Path: p.path()}
}

// path is the path of the open elements, by local name.
func (p *parser) path() string {
	var b strings.Builder
	for _, f := range p.stack {
		b.WriteByte('/')
		b.WriteString(f.name.Local)
	}
	return b.String()
}

func firstWord(b []byte) string {
	f := strings.Fields(string(b[:min(len(b), 64)]))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// start handles a start tag.
func (p *parser) start(t xml.StartElement, offset int64) error {
	depth := len(p.stack)
	if depth >= p.opts.MaxDepth {
		return p.errorf(statement.ErrResourceLimit, p.pos(), "elements are nested deeper than %d levels", p.opts.MaxDepth)
	}
	var k kind
	switch {
	case depth == 0:
		if err := p.root(t); err != nil {
			return err
		}
		k = kDocument
	case p.stack[depth-1].kind == kSkip:
		k = kSkip
	case p.stack[depth-1].kind == kDocument:
		if err := p.message(t); err != nil {
			return err
		}
		k = kMessage
	default:
		k = child(p.stack[depth-1].kind, t.Name.Local)
	}
	p.stack = append(p.stack, frame{kind: k, name: t.Name})
	if captures[k] {
		p.text = p.text[:0]
	}
	switch k {
	case kSection:
		p.startSection(t.Name.Local)
	case kBal:
		line, _ := p.dec.InputPos()
		p.sec.bal = balance{index: p.sec.bal.index + 1, line: line}
	case kBalAmt:
		p.sec.bal.ccy = attr(t, "Ccy")
	case kNtry:
		p.entries++
		if p.entries > p.opts.MaxRows {
			return p.errorf(statement.ErrTooManyRows, p.pos(), "more than %d entries", p.opts.MaxRows)
		}
		p.sec.ntries++
		line, _ := p.dec.InputPos()
		p.ent.reset(offset, line, p.sec.path+"/Ntry["+strconv.Itoa(p.sec.ntries)+"]")
	case kNtryAmt:
		p.ent.ccy = attr(t, "Ccy")
	case kTx:
		p.ent.txs = append(p.ent.txs, txDetails{})
	}
	return nil
}

// root checks the root element: Document, in a camt.052/053/054 namespace or none.
func (p *parser) root(t xml.StartElement) error {
	if t.Name.Local != "Document" {
		return p.errorf(statement.ErrNotAStatement, statement.Position{Line: 1},
			"the root element is <%s>, not an ISO 20022 <Document>", t.Name.Local)
	}
	p.docName = t.Name.Local
	var ns string
	for _, a := range t.Attr {
		if (a.Name.Space == "" && a.Name.Local == "xmlns" && t.Name.Space == "") ||
			(a.Name.Space == "xmlns" && a.Name.Local == t.Name.Space) {
			ns = a.Value
		}
	}
	if ns == "" {
		return nil
	}
	i := strings.Index(ns, "camt.05")
	if i < 0 || i+8 > len(ns) || ns[i+7] < '2' || ns[i+7] > '4' {
		return p.errorf(statement.ErrNotAStatement, statement.Position{Line: 1},
			"the document's namespace %q is not that of a CAMT.052, .053 or .054 message", ns)
	}
	j := i + len("camt.")
	for j < len(ns) && (ns[j] == '.' || (ns[j] >= '0' && ns[j] <= '9')) {
		j++
	}
	p.msgID = strings.TrimRight(ns[i:j], ".")
	return nil
}

// message reads the Document's child, which names the message and so the format. Version 1
// spelled the names with a V01 suffix (BkToCstmrStmtV01).
func (p *parser) message(t xml.StartElement) error {
	name := t.Name.Local
	base := name
	if n := len(base); n > 3 && base[n-3] == 'V' && isDigits(base[n-2:]) {
		base = base[:n-3]
	}
	var f statement.Format
	switch base {
	case "BkToCstmrAcctRpt":
		f = statement.FormatCAMT052
	case "BkToCstmrStmt":
		f = statement.FormatCAMT053
	case "BkToCstmrDbtCdtNtfctn":
		f = statement.FormatCAMT054
	default:
		kind := statement.ErrNotAStatement
		if p.msgID != "" {
			kind = statement.ErrCorrupt
		}
		line, _ := p.dec.InputPos()
		return statement.Errorf(p.format, kind, statement.Position{Line: line, Path: "/" + p.docName + "/" + name},
			"the document holds <%s>, not a BkToCstmrAcctRpt, BkToCstmrStmt or BkToCstmrDbtCdtNtfctn message", name)
	}
	if p.msgName != "" {
		line, _ := p.dec.InputPos()
		return p.errorf(statement.ErrCorrupt, statement.Position{Line: line, Path: "/" + p.docName + "/" + name},
			"the document holds a second message <%s>", name)
	}
	p.format, p.msgName = f, name
	return nil
}

// end handles an end tag; done is true when the root element closed.
func (p *parser) end(t xml.EndElement) (done bool, err error) {
	n := len(p.stack)
	if n == 0 {
		return false, p.errorf(statement.ErrCorrupt, p.pos(), "closing tag </%s> without an open element", t.Name.Local)
	}
	top := p.stack[n-1]
	if top.name != t.Name {
		return false, p.errorf(statement.ErrCorrupt, p.pos(), "element <%s> is closed by </%s>", qname(top.name), qname(t.Name))
	}
	if captures[top.kind] {
		p.leaf(top.kind)
	}
	switch top.kind {
	case kBal:
		p.endBalance()
	case kSection:
		p.endSection()
		p.sec = nil
		if p.stopped {
			return false, statement.ErrStopped
		}
	case kNtry:
		p.ent.raw = p.src[p.ent.offset:min(p.off, int64(len(p.src)))]
		p.endEntry()
	}
	p.stack = p.stack[:n-1]
	return n == 1, nil
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// leaf stores the text of a capturing element that just closed.
func (p *parser) leaf(k kind) {
	raw := p.text
	s, e := p.sec, &p.ent
	var tx *txDetails
	if len(e.txs) > 0 {
		tx = &e.txs[len(e.txs)-1]
	}
	switch k {
	case kGrpCreDtTm:
		p.grpCreDt = trimmed(raw)
	case kSecCreDtTm:
		s.creDt = trimmed(raw)
	case kFrDt:
		s.frDt = trimmed(raw)
	case kToDt:
		s.toDt = trimmed(raw)
	case kAcctNo:
		setFirst(&s.account, trimmed(raw))
	case kAcctCcy:
		s.acctCcy = trimmed(raw)
	case kSvcrBIC:
		setFirst(&s.bic, trimmed(raw))
	case kBalCd:
		s.bal.code = strings.ToUpper(trimmed(raw))
	case kBalAmt:
		s.bal.amt = trimmed(raw)
	case kBalCdi:
		s.bal.cdi = trimmed(raw)
	case kBalDtVal:
		s.bal.date = trimmed(raw)
	case kTtlNb:
		s.summ.count = trimmed(raw)
	case kTtlSum:
		s.summ.sum = trimmed(raw)
	case kTtlNetAmt:
		s.summ.net = trimmed(raw)
	case kTtlNetCdi:
		s.summ.netCdi = trimmed(raw)
	case kTtlCdtNb:
		s.summ.cdtCount = trimmed(raw)
	case kTtlCdtSum:
		s.summ.cdtSum = trimmed(raw)
	case kTtlDbtNb:
		s.summ.dbtCount = trimmed(raw)
	case kTtlDbtSum:
		s.summ.dbtSum = trimmed(raw)
	case kNtryAmt:
		e.amt = trimmed(raw)
	case kNtryCdi:
		e.cdi = trimmed(raw)
	case kNtryRvsl:
		e.rvsl = trimmed(raw)
	case kNtrySts, kNtryStsCd:
		// Sts holds the code itself up to V07 and a Cd (or Prtry) child from V08; the parent's
		// own text is then only the whitespace around the child.
		if v := trimmed(raw); v != "" {
			setFirst(&e.sts, v)
		}
	case kNtryBookgV:
		e.bookg = trimmed(raw)
	case kNtryValV:
		e.val = trimmed(raw)
	case kNtrySvcRef:
		e.svcRef = trimmed(raw)
	case kNtryRef:
		e.ntryRef = trimmed(raw)
	case kNtryAddtl:
		e.addtl = append(e.addtl, collapse(raw))
	case kE2E:
		if tx != nil {
			tx.e2e = trimmed(raw)
		}
	case kTxSvcRef:
		if tx != nil {
			tx.svcRef = trimmed(raw)
		}
	case kTxID:
		if tx != nil {
			tx.txID = trimmed(raw)
		}
	case kDbtrNm:
		if tx != nil {
			setFirst(&tx.dbtrNm, collapse(raw))
		}
	case kCdtrNm:
		if tx != nil {
			setFirst(&tx.cdtrNm, collapse(raw))
		}
	case kDbtrAcctNo:
		if tx != nil {
			setFirst(&tx.dbtrAcct, trimmed(raw))
		}
	case kCdtrAcctNo:
		if tx != nil {
			setFirst(&tx.cdtrAcct, trimmed(raw))
		}
	case kUstrd:
		if tx != nil {
			tx.ustrd = append(tx.ustrd, collapse(raw))
		}
	case kCdtrRef:
		if tx != nil {
			setFirst(&tx.cdtrRef, trimmed(raw))
		}
	case kAddtlRmt:
		if tx != nil {
			tx.addtlRmt = append(tx.addtlRmt, collapse(raw))
		}
	case kAddtlTx:
		if tx != nil {
			tx.addtlTx = append(tx.addtlTx, collapse(raw))
		}
	}
	p.text = p.text[:0]
}

// setFirst keeps the first non-empty value of a field that may repeat.
func setFirst(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// dialect describes what was read: the message and version, the charset, and counts of what
// was left out or joined, e.g. "camt.052.001.04;charset=utf-8;pending=1;balances=ITBD".
func (p *parser) dialect(charset string, bom bool) string {
	parts := []string{p.msgID}
	if p.msgID == "" {
		parts = []string{strings.Replace(string(p.format), "camt", "camt.", 1), "ns=none"}
	}
	parts = append(parts, "charset="+charset)
	if bom {
		parts = append(parts, "bom")
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"pending", p.pending}, {"future", p.future}, {"info", p.info}, {"batch", p.batches}, {"reversals", p.reversals}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", c.name, c.n))
		}
	}
	if len(p.balCodes) > 0 {
		parts = append(parts, "balances="+strings.Join(p.balCodes, ","))
	}
	return strings.Join(parts, ";")
}

// sectionName is the element a message's statements are in.
func sectionName(f statement.Format) string {
	switch f {
	case statement.FormatCAMT052:
		return "Rpt"
	case statement.FormatCAMT054:
		return "Ntfctn"
	}
	return "Stmt"
}
