package tabular

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// minePreamble reads the rows before the data: the account (labelled, an IBAN, or an
// ="…"-escaped number), the currency, the period (a row naming two dates), and labelled
// opening and closing balances.
func (x *extractor) minePreamble() {
	lay := &x.lay
	for i := 0; i < lay.dataStart && i < len(x.sample); i++ {
		if i == lay.header {
			continue
		}
		r := &x.sample[i]
		var dates []statement.Date
		for k, raw := range r.Cells {
			if k >= maxColumns {
				break
			}
			c := cellText(raw)
			if c == "" {
				continue
			}
			kind, val := labelOf(c)
			if kind == labelNone {
				kind, val = labelPrefix(c)
			}
			next := func(ok func(string) bool) string {
				if val != "" {
					return val
				}
				for _, nc := range r.Cells[min(k+1, len(r.Cells)):] {
					if t := cellText(nc); t != "" && ok(t) {
						return t
					}
				}
				return ""
			}
			switch kind {
			case labelOpening, labelClosing:
				isNumber := func(s string) bool { _, ok := scanNumber(s); return ok }
				text := next(isNumber)
				if text == "" {
					text = x.below(i, k, isNumber)
				}
				if v, ok := x.amountIn(text); ok {
					if kind == labelOpening && x.mined.opening == nil {
						x.mined.opening = &v
					} else if kind == labelClosing && x.mined.closing == nil {
						x.mined.closing = &v
					}
				}
			case labelCredits, labelDebits:
				// Only beside the label: under it stands the first row of a table whose column
				// the label names ("Paid in" over the amounts of a summary by type).
				isNumber := func(s string) bool { _, ok := scanNumber(s); return ok }
				text := next(isNumber)
				if v, ok := x.amountIn(text); ok {
					v = v.Abs()
					if kind == labelCredits && x.mined.credits == nil {
						x.mined.credits = &v
					} else if kind == labelDebits && x.mined.debits == nil {
						x.mined.debits = &v
					}
				}
			case labelAccount:
				if a := accountIn(next(func(string) bool { return true })); a != "" && x.mined.account == "" {
					x.mined.account = a
				}
			case labelCurrency:
				if cur := currencyOf(next(func(s string) bool { return currencyOf(s) != "" })); cur != "" && x.mined.currency == "" {
					x.mined.currency = cur
				}
			}
			if x.mined.account == "" {
				if strings.HasPrefix(statement.TrimSpace(raw), "=\"") && looksLikeAccount(c) {
					x.mined.account = c // ="0234500012345678": an account number kept from Excel
				} else if a := ibanIn(c); a != "" {
					x.mined.account = a
				}
			}
			if x.mined.currency == "" {
				if cur := parenCurrency(c); cur != "" {
					x.mined.currency = cur
				} else if len(c) == 3 && isCurrencyCode(c) {
					x.mined.currency = c
				}
			}
			for _, tok := range strings.Fields(c) {
				if rd, ok := scanDate(tok); ok {
					if d, ok := rd.resolve(x.dec.order); ok {
						dates = append(dates, d)
					}
				}
			}
		}
		if len(dates) == 2 && x.mined.periodStart.IsZero() {
			a, b := dates[0], dates[1]
			if a.Compare(b) > 0 {
				a, b = b, a
			}
			x.mined.periodStart, x.mined.periodEnd = a, b
		}
	}
	if x.mined.periodStart.IsZero() {
		// A period written in words ("July 1, 2022 through July 31, 2022"), in the preamble or
		// in the text around the table.
		var lines []string
		for i := 0; i < lay.dataStart && i < len(x.sample); i++ {
			if i != lay.header {
				lines = append(lines, strings.Join(x.sample[i].Cells, " "))
			}
		}
		lines = append(lines, x.t.Context...)
		if s, e, ok := findPeriod(lines, x.dec.order); ok {
			x.mined.periodStart, x.mined.periodEnd = s, e
		} else {
			x.mined.yearRef = latestMention(lines, x.dec.order)
		}
	}
}

// below returns the cell under row i's column k when it is in the preamble too and passes ok:
// the value of a summary laid out as a row of labels over a row of values ("Sold initial | Rulaj
// debitor | ... " above "1000.00 | 200.00 | ...").
func (x *extractor) below(i, k int, ok func(string) bool) string {
	j := i + 1
	if j >= x.lay.dataStart || j >= len(x.sample) || j == x.lay.header || k >= len(x.sample[j].Cells) {
		return ""
	}
	if t := cellText(x.sample[j].Cells[k]); ok(t) {
		return t
	}
	return ""
}

// labelPrefix reads a cell that begins with an account or currency label and goes on with the
// value, without a colon: "Рахунок UA11… (UAH)", "IBAN DE89 3704…"; or with a balance label
// followed by its amount: "Beginsaldo 1.000,00".
func labelPrefix(c string) (labelKind, string) {
	words := strings.Fields(c)
	for n := min(3, len(words)-1); n >= 1; n-- {
		k := lookupLabel(strings.Join(words[:n], " "))
		rest := strings.Join(words[n:], " ")
		if k == labelAccount || k == labelCurrency {
			return k, rest
		}
		if k == labelOpening || k == labelClosing || k == labelCredits || k == labelDebits {
			// "Beginsaldo 1.000,00", "Opening balance £1,200.00", and with the day it
			// was struck between: "alter Kontostand vom 28.02.2023 2.110,88 H".
			tail := words[n:]
			for t := 1; t <= min(2, len(tail)); t++ {
				v := strings.Join(tail[len(tail)-t:], " ")
				_, isDate := scanDate(v)
				if _, isNumber := scanNumber(v); isNumber && !isDate && len(tail)-t <= 3 {
					return k, v
				}
			}
			if len(tail) <= 3 {
				// "Eindsaldo per 31-03-2023 | 6.407,11": the day is in the label's cell,
				// the amount in the next.
				return k, ""
			}
		}
	}
	return labelNone, ""
}

// amountIn reads a balance written in a preamble cell, with the table's decimal mark.
func (x *extractor) amountIn(s string) (decimal.Decimal, bool) {
	n, ok := scanNumber(s)
	if !ok {
		return decimal.Decimal{}, false
	}
	return n.value(x.dec.mark)
}

// accountIn finds the account number in a labelled value: an IBAN, else the first token of at
// least six digits ("FRANK Account 666-666666-666").
func accountIn(s string) string {
	if a := ibanIn(s); a != "" {
		return a
	}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '(' || r == ')' || r == ',' || r == ';' }) {
		tok = strings.TrimSuffix(strings.TrimSuffix(tok, ":"), ".")
		if looksLikeAccount(tok) {
			return tok
		}
	}
	return ""
}

// ibanIn finds an IBAN-shaped run in s: two capitals, two digits, then capitals, digits and
// single spaces.
func ibanIn(s string) string {
	for i := 0; i+4 <= len(s); i++ {
		if !isUpper(s[i]) || !isUpper(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
			continue
		}
		if i > 0 && (isUpper(s[i-1]) || isDigit(s[i-1])) {
			continue
		}
		j := i + 4
		for j < len(s) && (isDigit(s[j]) || isUpper(s[j]) || s[j] == ' ' && j+1 < len(s) && (isDigit(s[j+1]) || isUpper(s[j+1]))) {
			j++
		}
		if cand := s[i:j]; looksLikeIBAN(cand) {
			return cand
		}
	}
	return ""
}

// parenCurrency finds a currency code in parentheses: "(UAH)".
func parenCurrency(s string) string {
	for {
		i := strings.IndexByte(s, '(')
		if i < 0 || i+4 >= len(s) {
			return ""
		}
		if s[i+4] == ')' && commonCurrencies[s[i+1:i+4]] {
			return s[i+1 : i+4]
		}
		s = s[i+1:]
	}
}

// finishSections cuts the transactions into sections (one per run of the own-account column,
// else one), and gives each its account, currency, period and balances: stated ones, else
// derived from the running balance of its first and last rows in date order. It works from the
// tally, so the transactions need not be held; signFromBalances has decided the signs.
func (x *extractor) finishSections() {
	if x.t.Card {
		// The issuer's "new balance" is owed by the holder: a negative balance of theirs.
		for _, b := range []**decimal.Decimal{&x.mined.opening, &x.mined.closing} {
			if *b != nil {
				v := (*b).Neg()
				*b = &v
			}
		}
	}
	tl := &x.tally
	lay := &x.lay
	runs := tl.runs
	if len(runs) == 0 {
		runs = []run{{}}
	}
	pos := statement.Position{}
	if lay.header >= 0 && lay.header < len(x.sample) {
		pos = x.sample[lay.header].Pos
	} else if tl.n > 0 {
		pos = tl.firstPos
	}
	// Signs taken from the balances follow them in the order they were read by.
	newest := tl.newestFirst()
	if x.flips.on {
		newest = x.flips.newest
	}
	if newest {
		x.dialect = append(x.dialect, "order=newest-first")
	}
	stated, derived := false, false
	for _, rn := range runs {
		s := statement.Section{First: rn.first, Count: rn.count, Pos: pos, Account: rn.account}
		if s.Account == "" {
			s.Account = x.mined.account
		}
		if s.Account == "" {
			s.Account = lay.constAccount
		}
		s.Currency = x.mined.currency
		if s.Currency == "" {
			s.Currency = x.currency
		}
		if s.Currency == "" && !rn.mixed {
			s.Currency = rn.currency
		}
		if len(runs) == 1 {
			s.OpeningBalance, s.ClosingBalance = x.mined.opening, x.mined.closing
			s.PeriodStart, s.PeriodEnd = x.mined.periodStart, x.mined.periodEnd
			if x.mined.debits != nil || x.mined.credits != nil {
				s.Declared = &statement.ControlTotals{Debits: x.mined.debits, Credits: x.mined.credits}
			}
			stated = s.OpeningBalance != nil || s.ClosingBalance != nil
		}
		if rn.count > 0 {
			// The oldest row with the balance read before it, and the newest.
			oldest, before, latest := rn.head, rn.before, rn.tail
			if newest {
				oldest, before, latest = rn.tail, rn.after, rn.head
			}
			if s.OpeningBalance == nil && oldest.balance != nil {
				v := oldest.balance.Sub(x.signed(oldest, before))
				s.OpeningBalance = &v
				derived = true
			}
			if s.ClosingBalance == nil && latest.balance != nil {
				v := *latest.balance
				s.ClosingBalance = &v
				derived = true
			}
			if s.PeriodStart.IsZero() {
				s.PeriodStart, s.PeriodEnd = rn.start, rn.end
			}
		}
		x.st.Sections = append(x.st.Sections, s)
	}
	switch {
	case stated:
		x.dialect = append(x.dialect, "balances=stated")
	case derived:
		x.dialect = append(x.dialect, "balances=running")
	}
}
