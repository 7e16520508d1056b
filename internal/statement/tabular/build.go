package tabular

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// mined is what the preamble, footer and balance rows state about the statement.
type mined struct {
	account, currency      string
	opening, closing       *decimal.Decimal
	periodStart, periodEnd statement.Date
	debits, credits        *decimal.Decimal
	// yearRef is the latest dated mention around a table that states no period (a statement
	// date, "as at 31 Jan 2023"): rows without a year fall in the year up to it.
	yearRef statement.Date
}

// amount reading outcomes.
const (
	amtEmpty = iota
	amtOK
	amtBad
)

// output is where build puts the transactions it reads: held in txs (Extract), or handed to
// emit one at a time (a Stream), each held back until the next shows whether a row continues
// its description and which running balance follows it; with neither, only the tally is kept.
type output struct {
	keep bool
	txs  []statement.Transaction
	emit func(*statement.Transaction) bool
	// pending is the transaction read last, when not kept; prev the running balance of the one
	// emitted before it.
	pending statement.Transaction
	has     bool
	prev    *decimal.Decimal
	n       int
	stopped bool
}

// last returns the transaction read last, or nil.
func (o *output) last() *statement.Transaction {
	if o.keep {
		if len(o.txs) == 0 {
			return nil
		}
		return &o.txs[len(o.txs)-1]
	}
	if !o.has {
		return nil
	}
	return &o.pending
}

// add takes the next transaction; it reports false when emit asked to stop.
func (x *extractor) add(o *output, t statement.Transaction) bool {
	o.n++
	if o.keep {
		o.txs = append(o.txs, t)
		return true
	}
	if o.has && !x.flush(o, t.Balance) {
		return false
	}
	o.pending, o.has = t, true
	return true
}

// flush emits the pending transaction with its sign as the flips decide, next being the
// running balance of the transaction after it (nil after the last).
func (x *extractor) flush(o *output, next *decimal.Decimal) bool {
	t := &o.pending
	o.has = false
	if x.flips.on {
		before := o.prev
		if x.flips.newest {
			before = next
		}
		t.Amount = x.signed(facts{amount: t.Amount, balance: t.Balance}, before)
	}
	o.prev = t.Balance
	if o.emit != nil && !o.emit(t) {
		o.stopped = true
		return false
	}
	return true
}

// build reads every data row into a transaction, a continuation, a mined balance, or a
// Problem, under the current decision; with ev set it also gathers the evidence of all rows.
// It starts afresh each time, so it can read the rows again under another decision. It tallies
// the transactions into x.tally, and puts them in out.
func (x *extractor) build(ev *evidence, out *output) error {
	lay := &x.lay
	x.problems, x.buildDialect, x.mined, x.tally = nil, nil, mined{}, newTally()
	x.minePreamble()
	if out.keep {
		hint := x.t.RowsHint
		if x.t.Scan == nil {
			hint = len(x.t.Rows)
		}
		out.txs = make([]statement.Transaction, 0, max(0, min(hint, x.opts.MaxRows+1)))
	}
	filled := 0
	var err error
	headerDate := ""
	if lay.header >= 0 && lay.header < len(x.sample) {
		headerDate = cellText(cell(x.sample[lay.header].Cells, lay.date))
	}
	var rs rowScan
	var balances []decimal.Decimal
	balanceRows := 0
	x.each(func(i int, r *Row) bool {
		if i < lay.dataStart {
			return true
		}
		cells := r.Cells
		if isBlank(cells) {
			return true
		}
		x.scanRow(r, &rs)
		if ev != nil {
			x.observe(ev, r, &rs)
		}
		if headerDate != "" && rs[slotDate].text == headerDate && x.isRepeatedHeader(cells) {
			return true
		}
		date, dateOK := x.date(&rs[slotDate])
		dateEmpty := rs[slotDate].empty
		amount, cur, flag, state, why := x.readAmount(r, &rs)
		if dateOK && state == amtOK {
			if k, _ := x.rowLabel(cells, false); k != labelNone {
				x.mineRow(k, amount, flag)
				return true
			}
		} else if k, at := x.rowLabel(cells, true); k != labelNone {
			if state == amtOK {
				x.mineRow(k, amount, flag)
			} else if v, ok := x.numberAfter(cells, at); ok {
				// "Closing balance;;;1.234,56": the value stands in some column after the label.
				x.mineRow(k, v, flag)
			}
			return true
		}
		switch {
		case dateOK && state == amtOK:
		case dateEmpty && state == amtEmpty:
			// A line continuing the description of the transaction before it (OCBC), or a
			// line of no transaction at all.
			if t := out.last(); t != nil {
				if text := x.description(cells); text != "" {
					t.Description = joinTwo(t.Description, text)
					t.Raw += "\n" + r.Raw
				}
			}
			return true
		case !dateOK && !dateEmpty && state == amtEmpty:
			if rs[slotDate].ok {
				x.problem("", r.Pos, "%s %q is not a valid date, and the row has no amount", x.columnName(lay.date), rs[slotDate].text)
			}
			// Else a title or note in the date column ("Deferred transactions", a section name).
			return true
		case dateOK:
			if state == amtEmpty && !rs[slotBalance].empty && balanceWords(x.description(cells)) {
				// "SALDO DO DIA", "Balance forward": a dated balance, not a transaction.
				balanceRows++
				return true
			}
			if state == amtEmpty {
				x.problem("", r.Pos, "no amount on a row dated %s", date)
			} else {
				x.problem("", r.Pos, "%s", why)
			}
			return true
		case dateEmpty && state == amtOK && out.last() != nil && x.description(cells) != "":
			// Statements that print the date only on the first row of a day. A row without a
			// description is more likely an unlabelled total, and is reported instead.
			date = out.last().Date
			filled++
		default:
			c := cellText(cell(cells, lay.date))
			if state == amtBad {
				x.problem("", r.Pos, "%s %q is not a date, and %s", x.columnName(lay.date), c, why)
			} else if dateEmpty {
				x.problem("", r.Pos, "no date on a row with an amount")
			} else {
				x.problem("", r.Pos, "%s %q is not a date", x.columnName(lay.date), c)
			}
			return true
		}
		if out.n >= x.opts.MaxRows {
			err = x.errorf(statement.ErrTooManyRows, r.Pos, "more than %d transactions", x.opts.MaxRows)
			return false
		}
		t := statement.Transaction{Date: date, Amount: amount, Currency: cur, Pos: r.Pos, Raw: r.Raw}
		if c := &rs[slotValueDate]; c.col >= 0 {
			if vd, ok := x.date(c); ok {
				t.ValueDate = vd
			} else if !c.empty {
				x.problem("", r.Pos, "%s %q is not a date; the transaction is kept without it",
					x.columnName(lay.valueDate), cellText(cell(cells, lay.valueDate)))
			}
		} else if then := rs[slotDate].then; then.set {
			if vd, ok := x.date(&cellScan{ok: true, date: then.date}); ok {
				t.ValueDate = vd
			}
		}
		if flag != 0 && amount.IsZero() {
			t.Type = statement.Credit
			if flag < 0 {
				t.Type = statement.Debit
			}
		}
		t.Description = x.description(cells)
		t.CounterpartyName = firstText(cells, lay.payee)
		if t.Description == "" {
			t.Description = t.CounterpartyName
		}
		if t.Description == "" && lay.typ >= 0 {
			t.Description = statement.CollapseSpace(cellText(cell(cells, lay.typ)))
		}
		t.Reference = firstRef(cells, lay.refs)
		if t.Reference == "" && x.t.Format == statement.FormatPDF {
			t.Reference = refInText(t.Description)
		}
		t.CounterpartyAccount = firstAccount(cells, lay.cpAccount)
		if c := &rs[slotBalance]; c.col >= 0 {
			if v, ok := x.amount(r, c); ok {
				// Balances live in chunks rather than one allocation each.
				if len(balances) == cap(balances) {
					balances = make([]decimal.Decimal, 0, 1024)
				}
				balances = append(balances, v)
				t.Balance = &balances[len(balances)-1]
			} else if !c.empty {
				x.problem(statement.ReviewRunningBalanceBreak, r.Pos, "%s %q is not a number; the transaction is kept without it",
					x.columnName(lay.balance), cellText(cell(cells, lay.balance)))
			}
		}
		if t.Raw == "" {
			t.Raw = strings.Join(cells, "\t")
		}
		acct := ""
		if lay.ownAccount >= 0 {
			acct = cellText(cell(cells, lay.ownAccount))
		}
		x.tally.add(&t, acct)
		return x.add(out, t)
	})
	if err != nil {
		return err
	}
	if out.has {
		x.flush(out, nil)
	}
	if filled > 0 {
		x.buildDialect = append(x.buildDialect, "filled=dates")
	}
	if lay.balance >= 0 && x.tally.n > 0 && x.tally.balances == 0 && balanceRows == 0 && x.t.Format == statement.FormatPDF && lay.header >= 0 {
		// A PDF table whose header names a balance column, yet no row has a balance under
		// it: its values were laid out under another column (an amount column, say), so the
		// amounts cannot be trusted either.
		x.problem(statement.ReviewRunningBalanceBreak, x.sample[lay.header].Pos,
			"the column %s holds no balance on any row; the columns of the table may have been read wrongly", x.columnName(lay.balance))
	}
	return nil
}

// readAmount returns a row's amount with its sign, its currency when the row or header names
// one, the row's debit/credit mark (-1, 0, +1), and whether it could be read (with why not).
func (x *extractor) readAmount(r *Row, rs *rowScan) (v decimal.Decimal, cur string, flag int, state int, why string) {
	lay := &x.lay
	if lay.flag >= 0 {
		flag = flagSign(cell(r.Cells, lay.flag))
	}
	if lay.amount >= 0 {
		c := &rs[slotAmount]
		v, ok := x.amount(r, c)
		n, empty := c.num, c.empty
		switch {
		case ok:
			switch x.dec.mode {
			case modeFlag:
				if flag == 0 {
					if !v.IsZero() {
						return v, "", 0, amtBad, "the debit/credit mark " + quote(cellText(cell(r.Cells, lay.flag))) +
							" of amount " + quote(cellText(cell(r.Cells, lay.amount))) + " is neither debit nor credit"
					}
				} else {
					v = v.Abs()
					if flag < 0 {
						v = v.Neg()
					}
				}
			case modeInverted:
				v = v.Neg()
			case modeDebitOnly:
				v = v.Abs().Neg()
			case modeCreditMarked:
				if n.mark != 'C' {
					v = v.Abs().Neg()
				}
			case modeSigned:
				if x.t.Card {
					v = cardAmount(v, n)
				}
			}
			return v, x.rowCurrency(r, lay.amount, n), flag, amtOK, ""
		case !empty:
			return v, "", flag, amtBad, x.columnName(lay.amount) + " " + quote(cellText(cell(r.Cells, lay.amount))) + " is not a number"
		case lay.debit < 0 && lay.credit < 0:
			return v, "", flag, amtEmpty, ""
		}
	}
	var sum decimal.Decimal
	var dn, cn numScan
	found := false
	for _, k := range [2]int{slotDebit, slotCredit} {
		c := &rs[k]
		col := c.col
		if col < 0 || c.empty {
			continue
		}
		v, ok := x.amount(r, c)
		n := c.num
		if !ok {
			return v, "", flag, amtBad, x.columnName(col) + " " + quote(cellText(cell(r.Cells, col))) + " is not a number"
		}
		if col == lay.debit {
			dn = n
			// Banks that write debits as negative numbers mean the same as those that write
			// them positive; only a column with both signs uses the sign for reversals, and
			// the sign most of its values carry is a debit's.
			switch {
			case x.dec.debitMixed && x.dec.debitsNegative:
			case x.dec.debitMixed:
				v = v.Neg()
			default:
				v = v.Abs().Neg()
			}
		} else {
			cn = n
			if !x.dec.creditMixed {
				v = v.Abs()
			}
		}
		sum = sum.Add(v)
		found = true
	}
	if !found {
		return sum, "", flag, amtEmpty, ""
	}
	col, n := lay.debit, dn
	if sum.Sign() > 0 || lay.debit < 0 {
		col, n = lay.credit, cn
	}
	return sum, x.rowCurrency(r, col, n), flag, amtOK, ""
}

// rowCurrency is the currency of an amount: named by its column's header, else by the row's
// currency column, else by a symbol or code beside the number.
func (x *extractor) rowCurrency(r *Row, col int, n numScan) string {
	if col >= 0 && col < len(x.lay.colCurrency) && x.lay.colCurrency[col] != "" {
		return x.lay.colCurrency[col]
	}
	if x.lay.currency >= 0 {
		if c := currencyOf(cellText(cell(r.Cells, x.lay.currency))); c != "" {
			return c
		}
	}
	return n.currency
}

func quote(s string) string { return "\"" + s + "\"" }

// isRepeatedHeader reports a row that repeats the header (exports that restart the header per
// page or per card).
func (x *extractor) isRepeatedHeader(cells []string) bool {
	same, total := 0, 0
	for col, name := range x.lay.names {
		name = cellText(name)
		if name == "" {
			continue
		}
		total++
		if strings.EqualFold(cellText(cell(cells, col)), name) {
			same++
		}
	}
	return total > 0 && same*10 >= total*6
}

// rowLabel finds a label that makes the row a balance or totals row. On a row that reads as a
// transaction, only an opening, closing or turnover label in a text column counts (a shop named
// "TOTAL" stays a shop); on other rows any short cell may carry any balance or totals label.
func (x *extractor) rowLabel(cells []string, anyCell bool) (labelKind, int) {
	check := func(c string) labelKind {
		c = cellText(c)
		if c == "" || len(c) > 40 {
			return labelNone
		}
		k := lookupLabel(c)
		if k == labelNone && anyCell && totalPrefix(c) {
			k = labelTotal // "Total Deposits and Additions", "Total for this period"
		}
		if k == labelNone && anyCell {
			// "neuer Kontostand vom 31.03.2023", "Balance as at 31 March".
			if pk, _ := labelPrefix(c); pk == labelOpening || pk == labelClosing {
				k = pk
			}
		}
		switch k {
		case labelOpening, labelClosing, labelTurnover:
			return k
		case labelCredits, labelDebits:
			if anyCell {
				return k
			}
		case labelTotal:
			if anyCell {
				return k
			}
		}
		return labelNone
	}
	if anyCell {
		for col, c := range cells {
			if col >= maxColumns {
				break
			}
			if k := check(c); k != labelNone {
				return k, col
			}
		}
		return labelNone, -1
	}
	for _, col := range x.lay.desc {
		if k := check(cell(cells, col)); k != labelNone {
			return k, col
		}
	}
	if x.lay.typ >= 0 {
		return check(cell(cells, x.lay.typ)), x.lay.typ
	}
	return labelNone, -1
}

// numberAfter returns the first amount in the cells after column at.
func (x *extractor) numberAfter(cells []string, at int) (decimal.Decimal, bool) {
	for col := at + 1; col < len(cells) && col < maxColumns; col++ {
		c := cellText(cells[col])
		if isEmptyValue(c) {
			continue
		}
		if n, ok := scanNumber(c); ok {
			if v, ok := n.value(x.dec.mark); ok {
				return v, true
			}
		}
		// "31.03.2023 7.354,26 H": the day and the amount in one cell, the amount last.
		if f := strings.Fields(c); len(f) >= 2 {
			for t := 1; t <= 2 && t < len(f); t++ {
				tail := strings.Join(f[len(f)-t:], " ")
				if _, isDate := scanDate(tail); isDate {
					continue
				}
				if n, ok := scanNumber(tail); ok {
					if v, ok := n.value(x.dec.mark); ok {
						return v, true
					}
				}
			}
		}
	}
	return decimal.Decimal{}, false
}

// mineRow keeps what a balance or turnover row states.
func (x *extractor) mineRow(k labelKind, amount decimal.Decimal, flag int) {
	v := amount
	switch k {
	case labelOpening:
		if x.mined.opening == nil {
			x.mined.opening = &v
		}
	case labelClosing:
		x.mined.closing = &v
	case labelCredits, labelDebits:
		a := v.Abs()
		if k == labelCredits && x.mined.credits == nil {
			x.mined.credits = &a
		} else if k == labelDebits && x.mined.debits == nil {
			x.mined.debits = &a
		}
	case labelTurnover:
		a := v.Abs()
		switch {
		case flag < 0 || (flag == 0 && v.Sign() < 0):
			x.mined.debits = &a
		case flag > 0 || v.Sign() > 0:
			x.mined.credits = &a
		}
	}
}

// description joins the row's description columns, or the secondary ones when those are
// empty.
func (x *extractor) description(cells []string) string {
	if d := joinText(cells, x.lay.desc); d != "" {
		return d
	}
	return joinText(cells, x.lay.desc2)
}

// joinText joins the non-empty cells of cols with spaces, each with its white space collapsed,
// leaving out a cell whose text another already holds.
func joinText(cells []string, cols []int) string {
	acc := ""
	for _, col := range cols {
		t := statement.CollapseSpace(cellText(cell(cells, col)))
		if t == "" {
			continue
		}
		acc = joinTwo(acc, t)
	}
	return acc
}

// joinTwo joins two texts with a space unless one holds the other.
func joinTwo(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || strings.Contains(a, b):
		return a
	case strings.Contains(b, a):
		return b
	}
	return a + " " + b
}

// firstText returns the first non-empty cell of cols.
func firstText(cells []string, cols []int) string {
	for _, col := range cols {
		if t := statement.CollapseSpace(cellText(cell(cells, col))); t != "" {
			return t
		}
	}
	return ""
}

// firstRef returns the reference of highest priority the row fills; references of zeros only
// ("0", "0000") are placeholders.
func firstRef(cells []string, cols []int) string {
	for _, col := range cols {
		t := statement.CollapseSpace(cellText(cell(cells, col)))
		if t == "" || strings.Trim(t, "0") == "" {
			continue
		}
		return t
	}
	return ""
}

// firstAccount returns the first IBAN among the counterparty account cells, else the first
// non-empty one.
func firstAccount(cells []string, cols []int) string {
	first := ""
	for _, col := range cols {
		t := statement.CollapseSpace(cellText(cell(cells, col)))
		if t == "" {
			continue
		}
		if looksLikeIBAN(t) {
			return t
		}
		if first == "" {
			first = t
		}
	}
	return first
}

// totalPrefix reports a cell that begins with a totals word: a subtotal of a section.
func totalPrefix(c string) bool {
	f := strings.Fields(fold(c))
	if len(f) < 2 || len(f) > 8 {
		return false
	}
	switch f[0] {
	case "total", "totals", "subtotal", "summe", "gesamt", "totaal", "totale", "итого", "всього", "razem", "suma":
		return true
	}
	return false
}

// cardAmount reads an amount of a card statement as the holder's money: the card issuer
// prints what the holder owes, so a plain amount is a charge (a debit), and one marked CR, in
// parentheses or with a minus a payment or refund (a credit); DR marks a charge.
func cardAmount(v decimal.Decimal, n numScan) decimal.Decimal {
	switch {
	case n.mark == 'C':
		return v.Abs()
	case n.mark == 'D':
		return v.Abs().Neg()
	}
	return v.Neg()
}

// balanceWords reports a description that names a balance: the day's balance that Brazilian,
// Spanish and German statements print between the transactions.
func balanceWords(desc string) bool {
	f := fold(desc)
	if f == "" || len(f) > 60 {
		return false
	}
	for _, w := range []string{"saldo", "balance", "kontostand", "solde", "balans", "zustatek", "остаток", "залишок"} {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}
