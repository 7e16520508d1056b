package mt940

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/statementmatch/service/internal/statement"
)

// maxAmountLen bounds the text of one amount: SWIFT allows 15 characters; zero-padded exports
// write up to 18. Anything much longer is not an amount.
const maxAmountLen = 32

// readAccount reads :25:, the account identification, in the forms banks write it: an IBAN,
// "BLZ/account" (German bank code), "BIC/account", "BIC/account/CCY", "TRIODOSBANK/account",
// or a bare number with the currency stuck to its end ("1291.99.348EUR").
func (p *parser) readAccount(v string) {
	if i := indexEOL(v); i >= 0 {
		v = trimSpace(v[:i])
	}
	acct, own := v, v
	if i := strings.IndexByte(v, '/'); i > 0 {
		head := v[:i]
		switch {
		case head == "TRIODOSBANK":
			// Triodos names itself instead of giving a BIC; that is certain enough to name it.
			acct, own = v[i+1:], v[i+1:]
			if p.acctBankID == "" {
				p.acctBankID, p.acctBankName = head, "Triodos Bank"
			}
		case isBIC(head):
			acct, own = v[i+1:], v[i+1:]
			if p.acctBIC == "" {
				p.acctBIC = shortBIC(head)
			}
		case len(head) == 8 && allDigits(head):
			// A German bank code (BLZ): it identifies the bank, but we keep no table of them.
			own = v[i+1:]
			if p.acctBankID == "" {
				p.acctBankID = head
			}
		}
	}
	ccy := ""
	if j := strings.LastIndexByte(acct, '/'); j > 0 && isCurrency(acct[j+1:]) {
		ccy, acct = acct[j+1:], acct[:j]
		own = strings.TrimSuffix(own, "/"+ccy)
	} else if n := len(acct); n > 4 && !isIBAN(acct) && isCurrency(acct[n-3:]) &&
		(isDigit(acct[n-4]) || acct[n-4] == ' ' || acct[n-4] == '.') {
		ccy, acct = acct[n-3:], trimSpace(acct[:n-3])
		own = acct
	}
	if isIBANShape(acct) && p.acctBankID == "" {
		switch acct[:2] {
		case "DE":
			p.acctBankID = acct[4:12] // the BLZ inside a German IBAN
		case "NL":
			// A Dutch IBAN carries the first four letters of the bank's BIC.
			p.acctBankID = acct[4:8]
			p.acctBankName = statement.BankByBIC(acct[4:8] + "NLXX")
		}
	}
	p.sec.sec.Account = clean(acct)
	p.sec.ownAcct = strings.TrimLeft(own, "0")
	if ccy != "" && p.sec.sec.Currency == "" {
		p.sec.sec.Currency = ccy
	}
}

// readBalance reads an opening (:60F: first, :60M: intermediate) or closing (:62F:, :62M:)
// balance: D or C, the date YYMMDD, the currency and the amount ("C100722EUR0,00"). Some
// German exports leave the currency out of intermediate balances.
func (p *parser) readBalance(f *field, opening bool) {
	v := trimSpace(f.first(p.s))
	tag := f.tag
	if len(v) < 8 || (v[0] != 'C' && v[0] != 'D') {
		p.problem(f.line, ":%s: balance %q is not D/C, date, currency and amount; the balance is left out", tag, shorten(v))
		return
	}
	d, ok := yymmdd(v[1:7])
	if !ok {
		p.problem(f.line, ":%s: balance date %q is not a date; the balance is left out", tag, v[1:7])
		return
	}
	rest := v[7:]
	ccy := ""
	if len(rest) >= 3 && isCurrencyShape(rest[:3]) {
		ccy, rest = rest[:3], rest[3:]
	}
	amt, ok := p.amount(trimSpace(rest), v[0] == 'D')
	if !ok {
		p.problem(f.line, ":%s: balance amount %q is not a number; the balance is left out", tag, shorten(rest))
		return
	}
	sc := &p.sec
	if ccy != "" && (sc.sec.Currency == "" || !sc.opening && !sc.closing) {
		sc.sec.Currency = ccy
	}
	if opening {
		if sc.opening {
			return // a second opening balance in one statement: the first one opens it
		}
		sc.opening = true
		sc.sec.OpeningBalance = p.keep(amt)
		sc.sec.PeriodStart = d
		return
	}
	sc.closing = true
	sc.sec.ClosingBalance = p.keep(amt)
	sc.sec.PeriodEnd = d
}

// keep returns a pointer to a copy of d, taken from a block of them: files with many short
// statements have two balances for every few lines.
func (p *parser) keep(d decimal.Decimal) *decimal.Decimal {
	if len(p.decs) == cap(p.decs) {
		p.decs = make([]decimal.Decimal, 0, 128)
	}
	p.decs = append(p.decs, d)
	return &p.decs[len(p.decs)-1]
}

// readTotals reads the MT942 :90D: (number and sum of debit entries) or :90C: (of credit
// entries): "3PLN0,03".
func (p *parser) readTotals(f *field) {
	v := trimSpace(f.first(p.s))
	i := 0
	for i < len(v) && i < 9 && isDigit(v[i]) {
		i++
	}
	if i == 0 || i+3 > len(v) || !isCurrencyShape(v[i:i+3]) {
		p.problem(f.line, ":%s: totals %q are not count, currency and amount; they are left out", f.tag, shorten(v))
		return
	}
	amt, ok := p.amount(trimSpace(v[i+3:]), false)
	if !ok {
		p.problem(f.line, ":%s: total amount %q is not a number; the totals are left out", f.tag, shorten(v[i+3:]))
		return
	}
	sc := &p.sec
	if sc.sec.Declared == nil {
		sc.sec.Declared = &statement.ControlTotals{}
	}
	n := atoi(v[:i])
	if sc.sec.Currency == "" {
		sc.sec.Currency = v[i : i+3]
	}
	if f.tag == "90D" {
		sc.sec.Declared.Debits, sc.debitCount = &amt, n
	} else {
		sc.sec.Declared.Credits, sc.creditCount = &amt, n
	}
}

// checkSideCounts turns the MT942 entry counts into the section's declared count when both
// sides are declared, and checks a side's count itself where Finish cannot: when only one side is
// declared, or when the total agrees but the split between debits and credits does not.
func (p *parser) checkSideCounts(s *statement.Section, txs []statement.Transaction) {
	dc, cc := p.sec.debitCount, p.sec.creditCount
	if dc < 0 && cc < 0 {
		return
	}
	debits, credits := 0, 0
	for i := range txs {
		if txs[i].Type == statement.Debit {
			debits++
		} else {
			credits++
		}
	}
	if dc >= 0 && cc >= 0 {
		n := dc + cc
		s.Declared.Count = &n
		if n != len(txs) {
			return // Finish reports the total
		}
	}
	if dc >= 0 && dc != debits {
		p.st.Problems = append(p.st.Problems, statement.Problem{Code: statement.ReviewControlTotalMismatch,
			Pos: s.Pos, Message: sprintf(":90D: declares %d debit entries, the report has %d", dc, debits)})
	}
	if cc >= 0 && cc != credits {
		p.st.Problems = append(p.st.Problems, statement.Problem{Code: statement.ReviewControlTotalMismatch,
			Pos: s.Pos, Message: sprintf(":90C: declares %d credit entries, the report has %d", cc, credits)})
	}
}

// line61 is what a :61: statement line says.
type line61 struct {
	value, entry     statement.Date
	debit, reversal  bool
	amount           decimal.Decimal
	custRef, bankRef string
	// extra is text after a full 16-character customer reference where SWIFT allows none:
	// old Rabobank exports put the counterparty's name there.
	extra string
}

// read61 reads the first line of :61:: value date YYMMDD, optional entry date MMDD, the mark
// (C, D, RC reversal of credit, RD reversal of debit), an optional funds code letter, the
// amount, the transaction type (N, S or F and three characters), the customer reference and,
// after "//", the bank's reference.
func (p *parser) read61(l string, line int) (line61, bool) {
	var r line61
	if len(l) < 6 || !allDigits(l[:6]) {
		p.problem(line, ":61: value date %q is not YYMMDD; the line is skipped", shorten(l[:min(6, len(l))]))
		return r, false
	}
	v, ok := yymmdd(l[:6])
	if !ok {
		p.problem(line, ":61: value date %q is not a date; the line is skipped", l[:6])
		return r, false
	}
	r.value, r.entry = v, v
	i := 6
	if i+4 <= len(l) && allDigits(l[i:i+4]) {
		e, ok := entryDate(v, atoi(l[i:i+2]), atoi(l[i+2:i+4]))
		if ok {
			r.entry = e
		} else {
			p.problem(line, ":61: entry date %q is not a date; the value date is used instead", l[i:i+4])
		}
		i += 4
	}
	for i < len(l) && l[i] == ' ' {
		i++ // Citibank writes spaces where the entry date would be
	}
	if i < len(l) && l[i] == 'R' {
		r.reversal = true
		i++
	}
	if i >= len(l) || (l[i] != 'C' && l[i] != 'D') {
		p.problem(line, ":61: debit/credit mark %q is not C, D, RC or RD; the line is skipped", shorten(l[min(i, len(l)):]))
		return r, false
	}
	// A reversal of a credit (RC) takes money out; a reversal of a debit (RD) puts it back.
	r.debit = (l[i] == 'D') != r.reversal
	i++
	if i < len(l) && isUpper(l[i]) {
		i++ // funds code, the third letter of the currency
	}
	j := i
	for j < len(l) && j-i <= maxAmountLen && (isDigit(l[j]) || l[j] == ',' || l[j] == '.') {
		j++
	}
	amt, ok := p.amount(l[i:j], r.debit)
	if ok && j < len(l) && !isUpper(l[j]) && l[j] != ' ' && l[j] != '/' {
		ok = false // "12x4": the amount runs into something that is neither type nor reference
	}
	if !ok {
		p.problem(line, ":61: amount %q is not a number; the line is skipped", shorten(l[i:min(j+1, len(l))]))
		return r, false
	}
	r.amount = amt
	for j < len(l) && l[j] == ' ' {
		j++
	}
	if j+4 <= len(l) && isUpper(l[j]) {
		// Transaction type identification: N, S or F and a three-character code; some banks
		// put another letter first ("MCI0"), which is still a type and not the reference.
		j += 4
	}
	rest := l[j:]
	if k := strings.Index(rest, "//"); k >= 0 {
		r.bankRef = trimSpace(rest[k+2:])
		rest = rest[:k]
	} else if len(rest) > 16 && (rest[15] == ' ' || rest[16] == ' ') {
		r.extra = trimSpace(rest[16:])
		rest = rest[:16]
	}
	r.custRef = trimSpace(rest)
	return r, true
}

// amount reads an amount as written: a decimal comma ("1234,56"), possibly without decimals
// ("500," or "500") or with one ("11,8"), zero-padded ("000000000025,00"); very old exports use a
// decimal point, which Dialect then reports. Exact: the digits become the decimal's digits.
// neg negates it (a debit).
func (p *parser) amount(t string, neg bool) (decimal.Decimal, bool) {
	if t == "" || len(t) > maxAmountLen {
		return decimal.Decimal{}, false
	}
	sep := -1
	digits := 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case isDigit(c):
			digits++
		case (c == ',' || c == '.') && sep < 0:
			sep = i
		default:
			return decimal.Decimal{}, false
		}
	}
	if digits == 0 {
		return decimal.Decimal{}, false
	}
	if sep >= 0 && t[sep] == '.' {
		p.dotDecimal = true
	}
	if digits <= 18 {
		// The common case, without the allocations of parsing text: the same exact value.
		var v int64
		exp := int32(0)
		for i := 0; i < len(t); i++ {
			if c := t[i]; isDigit(c) {
				v = v*10 + int64(c-'0')
				if sep >= 0 && i > sep {
					exp--
				}
			}
		}
		if neg {
			v = -v
		}
		return decimal.New(v, exp), true
	}
	norm := t
	if sep >= 0 {
		norm = t[:sep] + "." + t[sep+1:]
		if sep == len(t)-1 {
			norm = t[:sep]
		}
	}
	if neg {
		norm = "-" + norm
	}
	d, err := decimal.NewFromString(norm)
	if err != nil {
		return decimal.Decimal{}, false
	}
	return d, true
}

// yymmdd reads a SWIFT date. Two-digit years from 80 on are the 1900s: MT940 dates from 1980.
func yymmdd(t string) (statement.Date, bool) {
	if len(t) != 6 || !allDigits(t) {
		return statement.Date{}, false
	}
	y := atoi(t[:2])
	if y >= 80 {
		y += 1900
	} else {
		y += 2000
	}
	return date(y, atoi(t[2:4]), atoi(t[4:6]))
}

// date returns the date, and false when it does not exist.
func date(y, m, d int) (statement.Date, bool) { return statement.NewDate(y, time.Month(m), d) }

// entryDate places the :61: entry date MMDD, which has no year, in the year that puts it
// nearest the value date: a value date of 31 December may be booked on 2 January of the next
// year, and one of 2 January on 31 December of the year before.
func entryDate(value statement.Date, month, day int) (statement.Date, bool) {
	y := value.Year()
	switch diff := month - int(value.Month()); {
	case diff < -6:
		y++
	case diff > 6:
		y--
	}
	if d, ok := date(y, month, day); ok {
		return d, true
	}
	// 29 February in a year without one: the nearest year that has it is not the booking year.
	return statement.Date{}, false
}

var sprintf = fmt.Sprintf
