package mt940

import (
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// endTx turns the statement line being read (:61: and its :86:) into a Transaction.
func (p *parser) endTx() {
	if !p.tx.open {
		return
	}
	p.tx.open = false
	s := p.s
	f := &p.tx.f61
	r, ok := p.read61(f.first(s), f.line)
	if !ok {
		return
	}
	if p.txCount() >= p.opts.MaxRows {
		p.err = statement.Errorf(statement.FormatMT940, statement.ErrTooManyRows, statement.Position{Line: f.line},
			"more than %d statement lines", p.opts.MaxRows)
		return
	}
	supp := ""
	if rest := f.rest(s); rest != "" {
		supp = clean(rest)
	}
	in := p.readInfo(p.tx.infos, supp)

	t := statement.Transaction{
		Date:        r.entry,
		ValueDate:   r.value,
		Amount:      r.amount,
		Currency:    p.sec.sec.Currency,
		Description: in.desc,
		Reference:   reference(in.eref, r.custRef, in.kref, r.bankRef),
		Raw:         s[f.start-len(f.tag)-2 : p.tx.rawEnd],
		Pos:         statement.Position{Line: f.line},
		// The mark says it, even for a zero amount or a reversal.
		Type: statement.Credit,
	}
	if r.debit {
		t.Type = statement.Debit
	}
	t.CounterpartyName = in.name
	if t.CounterpartyName == "" && r.extra != "" {
		t.CounterpartyName = clean(r.extra)
	}
	t.CounterpartyAccount = clean(in.account)
	if supp != "" && !in.suppUsed {
		if a := compactAccount(supp); isPostbank(a) || (isIBANShape(a) && (a == supp || isIBAN(a))) {
			// Rabobank puts the counterparty's IBAN (or old Postbank number) on the line
			// after :61:. One word of IBAN shape is an account even when its check digits
			// fail; words joined up must pass them.
			if t.CounterpartyAccount == "" {
				t.CounterpartyAccount = a
			}
		} else if meaningful(supp) && !strings.Contains(t.Description, supp) {
			t.Description = joinWords(supp, t.Description)
		}
	}
	p.st.Transactions = append(p.st.Transactions, t)
	p.sec.hasTx = true
}

// isPostbank reports whether s is a Dutch Postbank giro number as Rabobank writes it: P and digits.
func isPostbank(s string) bool {
	return len(s) >= 5 && len(s) <= 11 && s[0] == 'P' && allDigits(s[1:])
}

// meaningful reports whether :61: supplementary details are words for a person ("Card
// transaction", "911-TRANSAKCJA IPH"), not a number or the original amount and charges
// (/OCMT/EUR11,85//CHGS/EUR0,50/), which stay in Raw.
func meaningful(supp string) bool {
	if strings.HasPrefix(supp, "/OCMT/") || strings.HasPrefix(supp, "/CHGS/") {
		return false
	}
	for i := 0; i < len(supp); i++ {
		if isLetter(supp[i]) || supp[i] >= 0x80 {
			return true
		}
	}
	return false
}

// reference picks the best payment reference: the end-to-end id, else the customer's reference
// from :61:, else KREF+ from the purpose, else the bank's reference.
func reference(refs ...string) string {
	for _, r := range refs {
		if r = clean(r); !isPlaceholder(r) && !strings.HasSuffix(r, "+") {
			return r
		}
	}
	return ""
}

// finish decides the outcome of the whole file and fills the statement's own fields.
func (p *parser) finish() (*statement.Statement, error) {
	format := statement.FormatMT940
	if p.is942 {
		format = statement.FormatMT942
	}
	st := &p.st
	st.Format = format
	if p.sawTags == 0 || !p.sawStatementTag {
		if p.swift {
			return nil, statement.Errorf(format, statement.ErrCorrupt, statement.Position{},
				"the SWIFT envelope holds no statement fields (:20:, :25:, :60F:, :61:)")
		}
		return nil, statement.Errorf(format, statement.ErrNotAStatement, statement.Position{},
			"no MT940/MT942 fields (:20:, :25:, :60F:, :61:) found")
	}
	if p.txCount() == 0 && (len(st.Problems) > 0 || !statesClosing(st)) {
		// A statement that closes with its balance (:62F:) and has no :61: is a period without
		// activity, read with zero transactions. A file whose every line is unreadable is not,
		// nor one cut before its closing balance.
		msg := "the statement has no statement lines (:61:)"
		if n := len(st.Problems); n > 0 {
			msg = sprintf("none of the statement lines could be read; first: %s: %s", st.Problems[0].Pos, st.Problems[0].Message)
		}
		return nil, statement.Errorf(format, statement.ErrNoTransactions, statement.Position{}, "%s", msg)
	}
	st.Dialect = p.dialect()
	switch {
	case p.bic != "":
		st.BankID, st.BankName = p.bic, statement.BankByBIC(p.bic)
	case p.acctBIC != "":
		st.BankID, st.BankName = p.acctBIC, statement.BankByBIC(p.acctBIC)
	case p.acctBankID != "":
		st.BankID, st.BankName = p.acctBankID, p.acctBankName
	}
	return st, nil
}

// dialect describes what was read, e.g. "mt940;envelope=swift;charset=utf-8;eol=crlf;info86=gvc".
func (p *parser) dialect() string {
	var b strings.Builder
	if p.is942 {
		b.WriteString("mt942")
	} else {
		b.WriteString("mt940")
	}
	switch {
	case p.swift:
		b.WriteString(";envelope=swift")
	case p.header:
		b.WriteString(";envelope=header")
	default:
		b.WriteString(";envelope=none")
	}
	if p.soh {
		b.WriteString(";soh-etx")
	}
	if p.dosEOF {
		b.WriteString(";dos-eof")
	}
	b.WriteString(";charset=" + p.charset)
	b.WriteString(";eol=" + p.eol)
	if p.dotDecimal {
		b.WriteString(";decimal=dot")
	}
	if p.infoKinds != 0 {
		b.WriteString(";info86=")
		sep := ""
		for _, k := range []struct {
			bit  uint8
			name string
		}{{kindGVC, "gvc"}, {kindTriodos, "triodos"}, {kindSlash, "slash"}, {kindFree, "free"}} {
			if p.infoKinds&k.bit != 0 {
				b.WriteString(sep + k.name)
				sep = "+"
			}
		}
	}
	if p.ns {
		b.WriteString(";ns")
	}
	return b.String()
}

// statesClosing reports whether every statement of the file states its closing balance.
func statesClosing(st *statement.Statement) bool {
	for _, s := range st.Sections {
		if s.ClosingBalance == nil {
			return false
		}
	}
	return len(st.Sections) > 0
}
