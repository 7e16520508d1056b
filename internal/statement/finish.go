package statement

import (
	"fmt"
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
func Finish(st *Statement) {
	for i := range st.Transactions {
		t := &st.Transactions[i]
		if t.Type == "" {
			t.Type = Credit
			if t.Amount.Sign() < 0 {
				t.Type = Debit
			}
		}
	}
	if len(st.Sections) == 0 {
		st.Sections = []Section{{
			Account: st.Account, Currency: st.Currency,
			PeriodStart: st.PeriodStart, PeriodEnd: st.PeriodEnd,
			OpeningBalance: st.OpeningBalance, ClosingBalance: st.ClosingBalance,
			First: 0, Count: len(st.Transactions),
		}}
	}
	summarise(st)
	st.Review = nil
	for i := range st.Sections {
		checkSection(st, i)
	}
	checkContinuity(st)
	problemReasons(st)
	if st.OCRConfidence > 0 {
		ocrReason(st)
	}
}

// ocrReason adds the reason ocr to a statement read by OCR: its mean word confidence, and
// whether its balances confirm every amount (each section with an opening and a closing
// balance, or a running balance on every line), so that a misread digit cannot go unseen.
func ocrReason(st *Statement) {
	confirmed := len(st.Transactions) > 0
	for _, s := range st.Sections {
		if s.First < 0 || s.Count < 0 || s.First+s.Count > len(st.Transactions) {
			confirmed = false
			break
		}
		if s.OpeningBalance != nil && s.ClosingBalance != nil {
			continue
		}
		for _, t := range st.Transactions[s.First : s.First+s.Count] {
			if t.Balance == nil {
				confirmed = false
			}
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
// sections agree, the widest period (else the transactions' dates), and the opening balance of
// the first section and closing balance of the last when they are of one account.
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
	if st.PeriodStart.IsZero() {
		for _, t := range st.Transactions {
			widen(t.Date)
		}
	}
	st.OpeningBalance, st.ClosingBalance = nil, nil
	if sameAccount {
		st.OpeningBalance, st.ClosingBalance = first.OpeningBalance, last.ClosingBalance
	}
	if st.Currency == "" {
		return
	}
	for i := range st.Transactions {
		if st.Transactions[i].Currency == "" {
			st.Transactions[i].Currency = st.Currency
		}
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

func checkSection(st *Statement, i int) {
	s := st.Sections[i]
	if s.First < 0 || s.Count < 0 || s.First+s.Count > len(st.Transactions) {
		// A parser bug, not a property of the file; say so rather than index out of range.
		st.Review = append(st.Review, ReviewReason{Code: ReviewUnreadableRows,
			Message: fmt.Sprintf("%s: its transactions could not be delimited.", sectionName(st, i))})
		return
	}
	txs := st.Transactions[s.First : s.First+s.Count]
	var total sum
	for k := range txs {
		total.add(txs[k].Amount)
	}
	if s.OpeningBalance != nil && s.ClosingBalance != nil && !total.equals(*s.OpeningBalance, *s.ClosingBalance) {
		net := total.value()
		st.Review = append(st.Review, ReviewReason{Code: ReviewBalanceMismatch, Line: s.Pos.Line,
			Message: fmt.Sprintf("%s: opening balance %s plus transactions %s is %s, but the closing balance is %s.",
				sectionName(st, i), amount(*s.OpeningBalance), amount(net), amount(s.OpeningBalance.Add(net)), amount(*s.ClosingBalance))})
	}
	checkRunningBalances(st, i, txs)
	if d := s.Declared; d != nil {
		checkDeclared(st, i, txs, total.value(), d)
	}
}

// checkRunningBalances checks that each stated running balance follows from the one before it.
// Files list lines oldest first or newest first; the order in which more pairs agree is the
// file's. Two lines of one day with the same balance are a day balance repeated on each line,
// not a break.
func checkRunningBalances(st *Statement, i int, txs []Transaction) {
	// Statements that print the balance only at the end of each day (Wells Fargo's "Ending
	// daily balance") leave rows without one: a balance follows from the previous stated one
	// and all the amounts between. between holds the amounts after prev up to and including
	// cur (read oldest first), or from prev up to before cur (newest first).
	type pair struct {
		prev, cur        *Transaction
		after, beforeCur sum
	}
	stated := 0
	for k := range txs {
		if txs[k].Balance != nil {
			stated++
		}
	}
	if stated < 2 {
		return // no two balances to compare (a table without a balance column: no memory spent)
	}
	pairs := make([]pair, 0, stated-1)
	var prev *Transaction
	var sinceFwd, sinceBwd sum
	for k := range txs {
		t := &txs[k]
		sinceFwd.add(t.Amount)
		if t.Balance == nil {
			sinceBwd.add(t.Amount)
			continue
		}
		if prev != nil {
			pairs = append(pairs, pair{prev: prev, cur: t, after: sinceFwd, beforeCur: sinceBwd})
		}
		prev = t
		// Fresh sums: the pair keeps the old ones.
		sinceFwd, sinceBwd = sum{}, sum{}
		sinceBwd.add(t.Amount)
	}
	if len(pairs) == 0 {
		return
	}
	forward := func(p pair) bool { return p.after.equals(*p.prev.Balance, *p.cur.Balance) }
	backward := func(p pair) bool { return p.beforeCur.equals(*p.cur.Balance, *p.prev.Balance) }
	nf, nb := 0, 0
	for _, p := range pairs {
		if forward(p) {
			nf++
		}
		if backward(p) {
			nb++
		}
	}
	follows := forward
	switch first, last := txs[0].Date, txs[len(txs)-1].Date; {
	case !first.IsZero() && !last.IsZero() && first.Compare(last) < 0:
		// Listed oldest first: each balance follows the one above.
	case !first.IsZero() && !last.IsZero() && first.Compare(last) > 0:
		follows = backward
	case nb > nf:
		follows = backward
	}
	var lines []int
	for _, p := range pairs {
		if follows(p) || (p.prev.Date == p.cur.Date && p.prev.Balance.Equal(*p.cur.Balance)) {
			continue
		}
		lines = append(lines, lineOf(p.cur.Pos))
	}
	if len(lines) == 0 {
		return
	}
	st.Review = append(st.Review, ReviewReason{Code: ReviewRunningBalanceBreak, Line: lines[0],
		Message: fmt.Sprintf("%s: the running balance does not follow from the previous line's at %s.",
			sectionName(st, i), listLines(lines))})
}

func checkDeclared(st *Statement, i int, txs []Transaction, net decimal.Decimal, d *ControlTotals) {
	var in, out sum
	for k := range txs {
		if txs[k].Amount.Sign() < 0 {
			out.add(txs[k].Amount)
		} else {
			in.add(txs[k].Amount)
		}
	}
	credits, debits := in.value(), out.value().Neg()
	var diffs []string
	if d.Count != nil && *d.Count != len(txs) {
		diffs = append(diffs, fmt.Sprintf("%d entries declared, %d read", *d.Count, len(txs)))
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

func listLines(lines []int) string {
	var b strings.Builder
	b.WriteString(plural(len(lines), "line ", "lines "))
	for k, l := range lines {
		if k == maxListedLines {
			fmt.Fprintf(&b, " and %d more", len(lines)-k)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, l)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
