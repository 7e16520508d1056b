// Package ofx reads OFX bank and credit-card statements: OFX 1.x (SGML, a block of
// "OFXHEADER:100" header lines, leaf elements whose end tags may be left out), OFX 2.x (XML,
// "<?OFX OFXHEADER="200" ...?>") and Quicken's QFX, which is OFX with Intuit's INTU.* tags.
//
// One tolerant tokenizer reads both syntaxes (scan.go): a start tag opens an aggregate exactly
// when its own end tag follows at the same level, otherwise it is a leaf whose value runs to the
// next tag (tree.go). So files with everything on one line, closed and unclosed leaves mixed,
// empty elements, indentation of any kind and blank lines all read alike, and unknown tags are
// skipped. It does not use encoding/xml: OFX 1.x is not XML, and the tokenizer is several times
// faster on OFX 2.x too.
//
// Each BANKMSGSRSV1/STMTTRNRS/STMTRS and CREDITCARDMSGSRSV1/CCSTMTTRNRS/CCSTMTRS becomes one
// statement.Section, each of its BANKTRANLIST/STMTTRN one transaction. OFX states a closing
// balance (LEDGERBAL) but no opening balance, and none is invented: Section.OpeningBalance
// stays nil. Investment statements (INVSTMTRS) are not read; they are reported as problems.
package ofx

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
)

// header is what the file says about itself before the <OFX> element.
type header struct {
	version string // VERSION header or attribute: 102, 151, 200, 211 ...
	xml     bool   // OFX 2.x: an XML declaration or <?OFX ...?> processing instruction
	charset string // canonical declared charset, "" for none
	body    int    // offset of the first tag of the body
}

// Parse reads an OFX or QFX file. See the package comment for what it reads.
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	return read(data, opts, nil)
}

// Stream reads an OFX or QFX file as Parse does, for a caller that stores the transactions as
// they pass: the file's text is held, and the transactions of one statement (STMTRS,
// CCSTMTRS) at a time, since its end says what they lack (the statement's currency); each
// reading of the transactions reads the file again.
func Stream(data []byte, opts statement.Options) (*statement.Stream, error) {
	return statement.Read(func(emit func(*statement.Transaction) bool) (*statement.Statement, error) {
		return read(data, opts, emit)
	})
}

// read is Parse giving the transactions to emit, when set, a statement at a time.
func read(data []byte, opts statement.Options, emit func(*statement.Transaction) bool) (st *statement.Statement, err error) {
	opts = opts.WithDefaults()
	defer func() {
		// A last resort: the parser bounds-checks, so this is a bug, reported as a broken file
		// rather than a crashed job.
		if r := recover(); r != nil {
			st, err = nil, statement.Errorf(statement.FormatOFX, statement.ErrCorrupt, statement.Position{},
				"internal error while reading the file: %v", r)
		}
	}()
	text, utf16 := unBOM(data)
	hdr, err := readHeader(text)
	if err != nil {
		return nil, err
	}
	charset := utf16
	if charset == "" {
		var decoded []byte
		decoded, charset = decode(text, hdr.charset)
		if len(decoded) != len(text) {
			// Bytes before the body that decoding widened would move it: find it again.
			declared := hdr.charset
			if hdr, err = readHeader(decoded); err != nil {
				return nil, err
			}
			hdr.charset = declared
		}
		text = decoded
	}
	nm := newNames()
	matched, trns, ok := matchAggregates(text[hdr.body:], nm)
	if !ok {
		return nil, statement.Errorf(statement.FormatOFX, statement.ErrResourceLimit, statement.Position{},
			"the file uses more than %d distinct tag names", maxNames)
	}
	w := newWalker(text, hdr.body, nm, matched, opts)
	if w.emit = emit; emit != nil {
		trns = min(trns, 256) // a statement's at a time
	}
	w.st.Transactions = make([]statement.Transaction, 0, min(trns, opts.MaxRows))
	if err := w.walk(); err != nil {
		return nil, err
	}
	if emit != nil {
		w.flush() // those of a statement left open at the end of the file
		if w.stopped {
			return nil, statement.ErrStopped
		}
	}
	w.st.Dialect = w.dialect(hdr, charset)
	w.identifyBank()
	if w.txCount() == 0 && w.recordProblems == 0 {
		switch {
		case w.sections == 0 && w.invest > 0:
			return nil, statement.Errorf(statement.FormatOFX, statement.ErrNoTransactions, statement.Position{},
				"the file holds only investment statements (INVSTMTRS), which are not read")
		case w.sections == 0:
			return nil, statement.Errorf(statement.FormatOFX, statement.ErrNoTransactions, statement.Position{},
				"the file holds no bank or credit-card statement (STMTRS, CCSTMTRS)")
		case !w.statesBalance():
			return nil, statement.Errorf(statement.FormatOFX, statement.ErrNoTransactions, statement.Position{},
				"the statement lists no transactions (STMTTRN) and no balance (LEDGERBAL, AVAILBAL)")
		}
		// Statements that state a balance and list no STMTTRN are a period without activity:
		// read, with zero transactions, as the product asks.
	}
	return w.st, nil
}

// statesBalance reports whether a statement (section) read so far states a balance.
func (w *walker) statesBalance() bool {
	for _, s := range w.st.Sections {
		if s.OpeningBalance != nil || s.ClosingBalance != nil {
			return true
		}
	}
	return false
}

// readHeader finds the kind of OFX, its declared version and charset, and where the body
// starts. Anything else is not OFX: ErrNotAStatement.
func readHeader(text []byte) (header, error) {
	var h header
	notOFX := func(why string) (header, error) {
		return h, statement.Errorf(statement.FormatOFX, statement.ErrNotAStatement, statement.Position{Line: 1}, "%s", why)
	}
	p := 0
	for p < len(text) && (isSpace(text[p]) || text[p] == 0) {
		p++
	}
	rest := text[p:]
	switch {
	case hasPrefixFold(rest, "OFXHEADER"):
		// OFX 1.x: KEY:VALUE pairs, one a line by the spec, up to the first tag. They are split
		// on any white space, which also reads headers written on one line.
		end := bytes.IndexByte(rest, '<')
		if end < 0 {
			return h, statement.Errorf(statement.FormatOFX, statement.ErrCorrupt, statement.Position{Line: 1},
				"the OFX header is not followed by an <OFX> element: the file is truncated")
		}
		var enc, cs string
		for _, f := range strings.Fields(string(rest[:end])) {
			k, v, _ := strings.Cut(f, ":")
			switch strings.ToUpper(k) {
			case "VERSION":
				h.version = v
			case "ENCODING":
				enc = v
			case "CHARSET":
				cs = v
			}
		}
		h.charset = charsetName(cs)
		if e := charsetName(enc); e == "utf-8" {
			h.charset = e
		}
		h.body = p + end
		// An OFX 2.x file with a 1.x-style header line in front still has its XML markers.
		h.xml = bytes.Contains(rest[end:min(len(rest), end+512)], []byte("<?OFX"))
	case bytes.HasPrefix(rest, []byte("<?")) || hasPrefixFold(rest, "<OFX"):
		// OFX 2.x, or a body without header. The prolog is the XML declaration, the OFX
		// processing instruction, comments; the first element must be OFX.
		q := 0
		for q < len(rest) {
			c := rest[q]
			if isSpace(c) {
				q++
				continue
			}
			if c != '<' || q+1 >= len(rest) {
				return notOFX("text before the first element: not an OFX file")
			}
			if rest[q+1] == '?' || rest[q+1] == '!' {
				end := skipMarkup(rest, q)
				pi := rest[q:end]
				if bytes.HasPrefix(pi, []byte("<?xml")) || bytes.HasPrefix(pi, []byte("<?OFX")) {
					h.xml = true
				}
				if v := attr(pi, "encoding"); v != "" && bytes.HasPrefix(pi, []byte("<?xml")) {
					h.charset = charsetName(v)
				}
				if v := attr(pi, "VERSION"); v != "" && bytes.HasPrefix(pi, []byte("<?OFX")) {
					h.version = v
				}
				q = end
				continue
			}
			break
		}
		if !hasPrefixFold(rest[q:], "<OFX") || q+4 < len(rest) && isNameChar(rest[q+4]) {
			return notOFX("the first element is not <OFX>: not an OFX file")
		}
		h.body = p + q
	default:
		return notOFX("no OFXHEADER and no <OFX> element: not an OFX file")
	}
	return h, nil
}

func hasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && bytes.EqualFold(b[:len(s)], []byte(s))
}

// attr returns the value of a pseudo-attribute name="value" in a processing instruction.
func attr(pi []byte, name string) string {
	i := bytes.Index(pi, []byte(name+"="))
	if i < 0 {
		return ""
	}
	v := pi[i+len(name)+1:]
	if len(v) == 0 || v[0] != '"' && v[0] != '\'' {
		return ""
	}
	end := bytes.IndexByte(v[1:], v[0])
	if end < 0 {
		return ""
	}
	return string(v[1 : 1+end])
}

// dialect describes what was read: ofx;version=102;syntax=sgml;charset=windows-1252, then
// declared=CHARSET when the body's UTF-8 overrode the header, flavor=qfx for Intuit tags, and
// kind=bank, creditcard or bank+creditcard.
func (w *walker) dialect(h header, charset string) string {
	var b strings.Builder
	b.WriteString("ofx")
	if h.version != "" {
		b.WriteString(";version=" + sanitize(h.version))
	}
	if h.xml {
		b.WriteString(";syntax=xml")
	} else {
		b.WriteString(";syntax=sgml")
	}
	b.WriteString(";charset=" + charset)
	if h.charset != "" && charset == "utf-8" && h.charset != "utf-8" {
		b.WriteString(";declared=" + h.charset)
	}
	if w.nm.intu {
		b.WriteString(";flavor=qfx")
	}
	switch {
	case w.bank && w.card:
		b.WriteString(";kind=bank+creditcard")
	case w.bank:
		b.WriteString(";kind=bank")
	case w.card:
		b.WriteString(";kind=creditcard")
	}
	return b.String()
}

// sanitize keeps a header value fit for the Dialect: short, without separators.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ';' || r == '=' || r < ' ' || r > '~' {
			return -1
		}
		return r
	}, s)
	return s[:min(len(s), 16)]
}

// identifyBank fills BankID and BankName. BankID is what the file calls the bank by, in this
// order: SONRS/FI/FID, SONRS/FI/ORG, Intuit's SONRS/INTU.BID, the first BANKACCTFROM/BANKID
// (routing number or bank code), skipping placeholders (XXXX, 0000, NONE). BankName is only
// certain in two cases: a BANKID that is a BIC of a bank statement.BankByBIC knows, and an ORG
// that reads as a bank's name ("Banco do Brasil S/A") rather than a code ("B1", "FAKE").
func (w *walker) identifyBank() {
	for _, id := range []string{w.fid, w.org, w.intuBID, w.firstBankID} {
		if !placeholder(id) {
			w.st.BankID = id
			break
		}
	}
	if name := statement.BankByBIC(w.firstBankID); name != "" {
		w.st.BankName = name
	} else if orgIsName(w.org) {
		w.st.BankName = w.org
	}
}

func placeholder(s string) bool {
	if s == "" {
		return true
	}
	switch strings.ToUpper(s) {
	case "NONE", "N/A", "NA", "NULL", "FAKE", "TEST", "UNKNOWN", "-":
		return true
	}
	return strings.Trim(s, "xX") == "" || strings.Trim(s, "0") == ""
}

// orgIsName reports whether an FI/ORG value is a bank's name: several words, or one word in
// mixed case ("Citigroup"); all-capital single words are the short codes ORG usually holds.
func orgIsName(org string) bool {
	if placeholder(org) || len(org) > 128 {
		return false
	}
	letters, lower := 0, false
	for _, r := range org {
		switch {
		case r >= 'a' && r <= 'z' || r > 0x7f:
			letters++
			lower = lower || r >= 'a' && r <= 'z'
		case r >= 'A' && r <= 'Z':
			letters++
		}
	}
	if letters < 3 {
		return false
	}
	return strings.Contains(strings.TrimSpace(org), " ") && letters >= 4 || lower && letters >= 4
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
	return strconv.Quote(s)
}

// errorf returns a whole-file error of this format.
func errorf(kind error, pos statement.Position, msg string, args ...any) error {
	return statement.Errorf(statement.FormatOFX, kind, pos, msg, args...)
}
