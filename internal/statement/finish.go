package statement

import (
	"fmt"
	"math"
	"strings"

	"github.com/shopspring/decimal"
)

// maxListedLines is how many line numbers a review message lists before it says "and N more".
const maxListedLines = 10

// Finish completes a parsed statement: it sets each transaction's Type from its sign unless the
// parser set it, makes one section of the top-level fields when the parser gave none, derives the
// top-level account, currency, period and balances from the sections, and runs the checks:
// opening balance plus transactions equals closing balance (per section, and across consecutive
// sections of one account), running balances follow from line to line, declared control totals
// match, and every Problem becomes a review reason. A statement with review reasons is still a
// successful parse; its reasons say what a person should look at. Finish is idempotent.
//
// Finish is a Finisher run over the statement's own transactions.
func Finish(st *Statement) {
	f := NewFinisher(st)
	for i := range st.Transactions {
		f.Add(&st.Transactions[i])
	}
	f.Done()
}

// A Finisher does what Finish does for a statement whose transactions it is shown one at a
// time, in order, each once, without holding them: a reader that streams transactions to
// storage finishes the statement as they pass. The statement's Sections (First and Count) say
// which transactions belong to which section; a statement without sections gets one holding
// every transaction. Add completes a transaction (its Type, its currency) before it is stored;
// Done sets the summary and the review reasons once the last has been added.
type Finisher struct {
	st   *Statement
	secs []sectionFold
	// ordered: the sections follow each other without overlapping, so a cursor finds a
	// transaction's section; else (a parser's bug) every section is asked.
	ordered bool
	cur     int
	// all: the statement had no sections; the one made for it holds every transaction.
	all bool
	n   int // transactions added
	// start and end are the widest dates of the transactions.
	start, end Date
}

// sectionFold is what the checks need of one section's transactions.
type sectionFold struct {
	total, in, out sum
	declared       bool // in and out are summed only for declared totals
	first, last    Date // the dates of the section's first and last transactions
	seen           int
	// noBalance: a transaction of the section states no running balance.
	noBalance bool
	// The running balances: the last stated balance and its date, the amounts since it
	// (including the current transaction's, for reading oldest first; from the stated one up
	// to the current one's, for reading newest first), and the breaks either way.
	prevBal            decimal.Decimal
	prevDate           Date
	hasPrev            bool
	sinceFwd, sinceBwd sum
	pairs, nf, nb      int
	fwdBreaks          lineList
	bwdBreaks          lineList
}

// lineList is a list of lines as a message shows it: the first maxListedLines and how many.
type lineList struct {
	first [maxListedLines]int
	n     int
}

func (l *lineList) add(line int) {
	if l.n < maxListedLines {
		l.first[l.n] = line
	}
	l.n++
}

// lines returns the lines listed.
func (l *lineList) lines() []int { return l.first[:min(l.n, maxListedLines)] }

// NewFinisher starts finishing st. It derives the summary the sections give (account,
// currency, balances) at once, so that Add can give transactions the statement's currency.
func NewFinisher(st *Statement) *Finisher {
	f := &Finisher{st: st, ordered: true}
	if len(st.Sections) == 0 {
		st.Sections = []Section{{
			Account: st.Account, Currency: st.Currency,
			PeriodStart: st.PeriodStart, PeriodEnd: st.PeriodEnd,
			OpeningBalance: st.OpeningBalance, ClosingBalance: st.ClosingBalance,
			First: 0, Count: math.MaxInt,
		}}
		f.all = true
	}
	f.secs = make([]sectionFold, len(st.Sections))
	end := 0
	for i, s := range st.Sections {
		f.secs[i].declared = s.Declared != nil
		if s.First < end || s.Count < 0 {
			f.ordered = false
		}
		end = s.First + s.Count
	}
	summarise(st)
	return f
}

// Add completes one transaction, the next in the statement's order, and takes its part in the
// checks: its Type from its sign unless the parser set it, and the statement's currency when it
// names none.
func (f *Finisher) Add(t *Transaction) {
	if t.Type == "" {
		t.Type = Credit
		if t.Amount.Sign() < 0 {
			t.Type = Debit
		}
	}
	if t.Currency == "" {
		t.Currency = f.st.Currency
	}
	if !t.Date.IsZero() {
		if f.start.IsZero() || t.Date.Compare(f.start) < 0 {
			f.start = t.Date
		}
		if f.end.IsZero() || t.Date.Compare(f.end) > 0 {
			f.end = t.Date
		}
	}
	i := f.n
	f.n++
	secs := f.st.Sections
	if f.ordered {
		for f.cur < len(secs) && i >= secs[f.cur].First+secs[f.cur].Count {
			f.cur++
		}
		if f.cur < len(secs) && i >= secs[f.cur].First {
			f.secs[f.cur].add(t)
		}
		return
	}
	for k, s := range secs {
		if i >= s.First && i-s.First < s.Count {
			f.secs[k].add(t)
		}
	}
}

func (s *sectionFold) add(t *Transaction) {
	if s.seen == 0 {
		s.first = t.Date
	}
	s.last = t.Date
	s.seen++
	s.total.add(t.Amount)
	if s.declared {
		if t.Amount.Sign() < 0 {
			s.out.add(t.Amount)
		} else {
			s.in.add(t.Amount)
		}
	}
	s.sinceFwd.add(t.Amount)
	if t.Balance == nil {
		s.noBalance = true
		s.sinceBwd.add(t.Amount)
		return
	}
	bal := *t.Balance
	if s.hasPrev {
		fwd := s.sinceFwd.equals(s.prevBal, bal)
		bwd := s.sinceBwd.equals(bal, s.prevBal)
		s.pairs++
		if fwd {
			s.nf++
		}
		if bwd {
			s.nb++
		}
		// Two lines of one day with the same balance are a day balance repeated on each
		// line, not a break.
		if sameDay := s.prevDate == t.Date && s.prevBal.Equal(bal); !sameDay {
			if !fwd {
				s.fwdBreaks.add(lineOf(t.Pos))
			}
			if !bwd {
				s.bwdBreaks.add(lineOf(t.Pos))
			}
		}
	}
	s.prevBal, s.prevDate, s.hasPrev = bal, t.Date, true
	s.sinceFwd, s.sinceBwd = sum{}, sum{}
	s.sinceBwd.add(t.Amount)
}

// Done completes the statement once every transaction has been added: the period when the
// sections state none, the checks, and the review reasons.
func (f *Finisher) Done() {
	st := f.st
	if f.all {
		st.Sections[0].Count = f.n
	}
	if st.PeriodStart.IsZero() {
		st.PeriodStart, st.PeriodEnd = f.start, f.end
	}
	st.Review = nil
	for i := range st.Sections {
		f.checkSection(i)
	}
	checkContinuity(st)
	problemReasons(st)
	if st.OCRConfidence > 0 {
		f.ocrReason()
	}
}

// valid reports whether section i's transactions are within those added.
func (f *Finisher) valid(i int) bool {
	s := f.st.Sections[i]
	return s.First >= 0 && s.Count >= 0 && s.First <= f.n && s.Count <= f.n-s.First
}

// ocrReason adds the reason ocr to a statement read by OCR: its mean word confidence, and
// whether its balances confirm every amount (each section with an opening and a closing
// balance, or a running balance on every line), so that a misread digit cannot go unseen.
func (f *Finisher) ocrReason() {
	st := f.st
	confirmed := f.n > 0
	for i, s := range st.Sections {
		if !f.valid(i) {
			confirmed = false
			break
		}
		if s.OpeningBalance != nil && s.ClosingBalance != nil {
			continue
		}
		if f.secs[i].noBalance {
			confirmed = false
		}
	}
	st.ocrConfirmed = confirmed
	msg := fmt.Sprintf("Read by OCR from scanned pages, mean word confidence %.0f%%", st.OCRConfidence)
	switch {
	case st.OCRConfidence < MinOCRConfidence:
		msg += fmt.Sprintf(", under the %.0f%% a statement needs to be trusted without a look.", MinOCRConfidence)
	case !confirmed:
		msg += "; no balance confirms every amount, so a misread digit could not be seen."
	default:
		msg += "; the balances confirm every amount."
	}
	st.Review = append(st.Review, ReviewReason{Code: ReviewOCR, Message: msg})
}

// summarise derives the top-level fields from the sections: the account and currency when all
// sections agree, the widest period (Done takes the transactions' dates when the sections
// state none), and the opening balance of the first section and closing balance of the last
// when they are of one account.
func summarise(st *Statement) {
	first, last := st.Sections[0], st.Sections[len(st.Sections)-1]
	st.Account, st.Currency = first.Account, first.Currency
	sameAccount := true
	for _, s := range st.Sections[1:] {
		if s.Account != first.Account {
			st.Account, sameAccount = "", false
		}
		if s.Currency != first.Currency {
			st.Currency = ""
		}
	}
	st.PeriodStart, st.PeriodEnd = Date{}, Date{}
	widen := func(d Date) {
		if d.IsZero() {
			return
		}
		if st.PeriodStart.IsZero() || d.Compare(st.PeriodStart) < 0 {
			st.PeriodStart = d
		}
		if st.PeriodEnd.IsZero() || d.Compare(st.PeriodEnd) > 0 {
			st.PeriodEnd = d
		}
	}
	for _, s := range st.Sections {
		widen(s.PeriodStart)
		widen(s.PeriodEnd)
	}
	st.OpeningBalance, st.ClosingBalance = nil, nil
	if sameAccount {
		st.OpeningBalance, st.ClosingBalance = first.OpeningBalance, last.ClosingBalance
	}
}

// sectionName names a section in messages when the file holds several.
func sectionName(st *Statement, i int) string {
	if len(st.Sections) == 1 {
		return "The statement"
	}
	name := fmt.Sprintf("Statement %d", i+1)
	if a := st.Sections[i].Account; a != "" {
		name += " (account " + a + ")"
	}
	return name
}

func (f *Finisher) checkSection(i int) {
	st := f.st
	s := st.Sections[i]
	if !f.valid(i) {
		// A parser bug, not a property of the file; say so rather than index out of range.
		st.Review = append(st.Review, ReviewReason{Code: ReviewUnreadableRows,
			Message: fmt.Sprintf("%s: its transactions could not be delimited.", sectionName(st, i))})
		return
	}
	sf := &f.secs[i]
	if s.OpeningBalance != nil && s.ClosingBalance != nil && !sf.total.equals(*s.OpeningBalance, *s.ClosingBalance) {
		net := sf.total.value()
		st.Review = append(st.Review, ReviewReason{Code: ReviewBalanceMismatch, Line: s.Pos.Line,
			Message: fmt.Sprintf("%s: opening balance %s plus transactions %s is %s, but the closing balance is %s.",
				sectionName(st, i), amount(*s.OpeningBalance), amount(net), amount(s.OpeningBalance.Add(net)), amount(*s.ClosingBalance))})
	}
	f.checkRunningBalances(i)
	if d := s.Declared; d != nil {
		checkDeclared(st, i, s.Count, sf, d)
	}
}

// checkRunningBalances checks that each stated running balance follows from the one before it.
// Files list lines oldest first or newest first; the order in which more pairs agree is the
// file's. Statements that print the balance only at the end of each day (Wells Fargo's "Ending
// daily balance") leave rows without one: a balance follows from the previous stated one and
// all the amounts between.
func (f *Finisher) checkRunningBalances(i int) {
	sf := &f.secs[i]
	if sf.pairs == 0 {
		return // no two balances to compare
	}
	breaks := sf.fwdBreaks
	switch first, last := sf.first, sf.last; {
	case !first.IsZero() && !last.IsZero() && first.Compare(last) < 0:
		// Listed oldest first: each balance follows the one above.
	case !first.IsZero() && !last.IsZero() && first.Compare(last) > 0:
		breaks = sf.bwdBreaks
	case sf.nb > sf.nf:
		breaks = sf.bwdBreaks
	}
	if breaks.n == 0 {
		return
	}
	st := f.st
	st.Review = append(st.Review, ReviewReason{Code: ReviewRunningBalanceBreak, Line: breaks.first[0],
		Message: fmt.Sprintf("%s: the running balance does not follow from the previous line's at %s.",
			sectionName(st, i), listLines(breaks))})
}

func checkDeclared(st *Statement, i, count int, sf *sectionFold, d *ControlTotals) {
	net, credits, debits := sf.total.value(), sf.in.value(), sf.out.value().Neg()
	var diffs []string
	if d.Count != nil && *d.Count != count {
		diffs = append(diffs, fmt.Sprintf("%d entries declared, %d read", *d.Count, count))
	}
	for _, c := range []struct {
		name     string
		declared *decimal.Decimal
		actual   decimal.Decimal
	}{{"net total", d.Net, net}, {"credits", d.Credits, credits}, {"debits", d.Debits, debits}} {
		if c.declared != nil && !c.declared.Equal(c.actual) {
			diffs = append(diffs, fmt.Sprintf("%s declared %s, read %s", c.name, amount(*c.declared), amount(c.actual)))
		}
	}
	if len(diffs) > 0 {
		st.Review = append(st.Review, ReviewReason{Code: ReviewControlTotalMismatch, Line: st.Sections[i].Pos.Line,
			Message: fmt.Sprintf("%s: its declared totals do not match its transactions: %s.", sectionName(st, i), strings.Join(diffs, "; "))})
	}
}

// checkContinuity checks that consecutive statements of one account chain: each opens where the
// one before it closed.
func checkContinuity(st *Statement) {
	for i := 1; i < len(st.Sections); i++ {
		a, b := st.Sections[i-1], st.Sections[i]
		if a.Account != b.Account || a.Currency != b.Currency || a.ClosingBalance == nil || b.OpeningBalance == nil {
			continue
		}
		if !a.ClosingBalance.Equal(*b.OpeningBalance) {
			st.Review = append(st.Review, ReviewReason{Code: ReviewBalanceMismatch, Line: b.Pos.Line,
				Message: fmt.Sprintf("%s opens with %s, but the statement before it closed with %s.",
					sectionName(st, i), amount(*b.OpeningBalance), amount(*a.ClosingBalance))})
		}
	}
}

// problemReasons turns the parser's problems into review reasons: one per code, listing where.
func problemReasons(st *Statement) {
	byCode := map[ReviewCode][]Problem{}
	var order []ReviewCode
	for _, p := range st.Problems {
		code := p.Code
		if code == "" {
			code = ReviewUnreadableRows
		}
		if _, seen := byCode[code]; !seen {
			order = append(order, code)
		}
		byCode[code] = append(byCode[code], p)
	}
	for _, code := range order {
		ps := byCode[code]
		var b strings.Builder
		if code == ReviewUnreadableRows {
			// Each problem's own message says whether its row was skipped or only a field of it.
			fmt.Fprintf(&b, "%d %s of the file could not be read: ", len(ps), plural(len(ps), "part", "parts"))
		}
		for k, p := range ps {
			if k == maxListedLines {
				fmt.Fprintf(&b, "; and %d more", len(ps)-k)
				break
			}
			if k > 0 {
				b.WriteString("; ")
			}
			b.WriteString(p.Pos.String() + ": " + p.Message)
		}
		st.Review = append(st.Review, ReviewReason{Code: code, Message: b.String(), Line: lineOf(ps[0].Pos)})
	}
}

// amount writes d with the decimals it was stated with (100.00, not 100), whatever the process's
// decimal settings.
func amount(d decimal.Decimal) string {
	if e := d.Exponent(); e < 0 {
		return d.StringFixed(-e)
	}
	return d.String()
}

func lineOf(p Position) int {
	if p.Line > 0 {
		return p.Line
	}
	return p.Record
}

func listLines(l lineList) string {
	var b strings.Builder
	b.WriteString(plural(l.n, "line ", "lines "))
	listed := l.lines()
	for k, line := range listed {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, line)
	}
	if l.n > len(listed) {
		fmt.Fprintf(&b, " and %d more", l.n-len(listed))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
