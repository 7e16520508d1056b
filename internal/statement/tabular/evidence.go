package tabular

import (
	"fmt"
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// evidence is what all rows say about the table's formats, gathered before any row is read.
type evidence struct {
	// Numeric dates with the year last: how many show the day first (a first field over 12),
	// the month first (a second field over 12), or leave it open.
	dmy, mdy, openDates int
	openDateExample     string
	openDatePos         statement.Position
	// dotDates counts open dates written with dots (31.12.2024), an order only day-first
	// locales use.
	dotDates int
	// Kinds of the booking dates, for the Dialect.
	yearFirst, monthName int

	point, comma         int
	ambPoint, ambComma   int
	ambExample           string
	ambPos               statement.Position
	currencies           map[string]int
	amountNeg, amountPos int
	// amountCR and amountDR count amounts of the single amount column marked CR or DR.
	amountCR, amountDR int
	// Rows whose signed amount agrees or disagrees with the debit/credit mark.
	flagAgree, flagDisagree int
	debitPos, debitNeg      int
	creditPos, creditNeg    int
}

// observe adds what one data row says about the table's formats: its dates, its amounts'
// separators and signs, and whether signs agree with the debit/credit mark.
func (x *extractor) observe(ev *evidence, r *Row, rs *rowScan) {
	lay := &x.lay
	for k := slotDate; k <= slotValueDate; k++ {
		c := &rs[k]
		if !c.ok || canonical(r, c.col) {
			continue
		}
		rd := c.date
		if k == slotDate {
			switch rd.kind {
			case dkYearFirst, dkCompact:
				ev.yearFirst++
			case dkMonthName:
				ev.monthName++
			}
		}
		if rd.kind != dkYearLast {
			continue
		}
		switch {
		case rd.a > 12 && rd.b <= 12:
			ev.dmy++
		case rd.b > 12 && rd.a <= 12:
			ev.mdy++
		case rd.a <= 12 && rd.b <= 12:
			ev.openDates++
			if rd.sep == '.' {
				ev.dotDates++
			}
			if ev.openDateExample == "" {
				ev.openDateExample, ev.openDatePos = c.text, r.Pos
			}
		}
	}
	for k := slotAmount; k < numSlots; k++ {
		c := &rs[k]
		if !c.ok {
			continue
		}
		n := &c.num
		if n.currency != "" {
			if ev.currencies == nil {
				ev.currencies = map[string]int{}
			}
			ev.currencies[n.currency]++
		}
		if !canonical(r, c.col) {
			switch e := n.evidence(); e {
			case evPoint:
				ev.point++
			case evComma:
				ev.comma++
			case evAmbiguousPoint, evAmbiguousComma:
				if e == evAmbiguousPoint {
					ev.ambPoint++
				} else {
					ev.ambComma++
				}
				if ev.ambExample == "" {
					ev.ambExample, ev.ambPos = c.text, r.Pos
				}
			}
		}
		zero := isZeroCore(n.core)
		switch k {
		case slotAmount:
			switch {
			case n.mark == 'C':
				ev.amountCR++
			case n.mark == 'D':
				ev.amountDR++
			case n.neg:
				ev.amountNeg++
			case !zero:
				ev.amountPos++
			}
			if lay.flag >= 0 && !zero {
				if f := flagSign(cell(r.Cells, lay.flag)); f != 0 {
					if (f < 0) == n.neg {
						ev.flagAgree++
					} else {
						ev.flagDisagree++
					}
				}
			}
		case slotDebit:
			if n.neg {
				ev.debitNeg++
			} else if !zero {
				ev.debitPos++
			}
		case slotCredit:
			if n.neg {
				ev.creditNeg++
			} else if !zero {
				ev.creditPos++
			}
		}
	}
	if lay.currency >= 0 {
		if c := currencyOf(cellText(cell(r.Cells, lay.currency))); c != "" {
			if ev.currencies == nil {
				ev.currencies = map[string]int{}
			}
			ev.currencies[c]++
		}
	}
}

// commaLocales are the header languages whose numbers use a decimal comma and whose dates put
// the day first.
var commaLocales = map[string]bool{"de": true, "nl": true, "fr": true, "es": true, "it": true, "pt": true,
	"pl": true, "cs": true, "sk": true, "hu": true, "da": true, "sv": true, "no": true, "uk": true,
	"ru": true, "lt": true}

// decision is how the table's rows are read: fixed once for the table.
type decision struct {
	mark  byte
	order dateOrder
	mode  amountMode
	// debitMixed and creditMixed: the column holds both signs, so a sign means a reversal.
	debitMixed, creditMixed bool
	// debitsNegative: most of a mixed debit column's values are negative, the way its bank
	// writes a debit; a positive one is the reversal.
	debitsNegative bool
	problems       []statement.Problem
	dialect        []string
}

// same reports whether two decisions read rows alike.
func (d decision) same(e decision) bool {
	return d.mark == e.mark && d.order == e.order && d.mode == e.mode && d.debitMixed == e.debitMixed && d.debitsNegative == e.debitsNegative &&
		d.creditMixed == e.creditMixed
}

// decide fixes the table's decimal mark, date order and sign mode from the evidence.
func (x *extractor) decide(ev *evidence) decision {
	lay := &x.lay
	var d decision
	problem := func(code statement.ReviewCode, pos statement.Position, msg string, args ...any) {
		d.problems = append(d.problems, statement.Problem{Code: code, Pos: pos, Message: fmt.Sprintf(msg, args...)})
	}
	localeComma := ev.dotDates > 0 || commaLocales[lay.lang]

	// Decimal mark.
	switch {
	case ev.point > 0 || ev.comma > 0:
		d.mark = '.'
		if ev.comma > ev.point {
			d.mark = ','
		}
	case ev.ambPoint > 0 || ev.ambComma > 0:
		d.mark = localeMark(localeComma)
		how := "the rows do not say"
		if localeComma {
			how = "the table's language and dates use a decimal comma"
		}
		problem(statement.ReviewAmbiguousDecimalMark, ev.ambPos,
			"every amount, such as %q, has three digits after its only separator, so it could be thousands or decimals; "+
				"read with %s as the decimal mark because %s", ev.ambExample, markName(d.mark), how)
	default:
		d.mark = localeMark(localeComma)
	}
	d.dialect = append(d.dialect, "decimal="+markWord(d.mark))

	// Date order.
	switch {
	case ev.dmy > 0 || ev.mdy > 0:
		d.order = orderDMY
		if ev.mdy > ev.dmy {
			d.order = orderMDY
		}
	case ev.openDates > 0:
		d.order = orderDMY
		switch cur := x.topCurrency(ev); {
		case ev.dotDates > 0, ev.point+ev.comma > 0 && d.mark == ',', commaLocales[lay.lang]:
			// Day first: dotted dates, a decimal comma and these languages are day-first locales.
		case x.aroundOrder() != orderUnknown:
			// The dates printed around the table (the period, the statement date) say it.
			d.order = x.aroundOrder()
		case x.periodOrder() != orderUnknown:
			// The rows' dates fall in the statement period under one order only.
			d.order = x.periodOrder()
		case cur == "USD":
			d.order = orderMDY
		case cur != "":
			// Every other currency's country writes the day first (Canada aside, whose banks
			// export ISO dates).
		default:
			problem(statement.ReviewAmbiguousDateOrder, ev.openDatePos,
				"no date, such as %q, has a day over 12, and nothing else in the table tells day-first from "+
					"month-first; read day first", ev.openDateExample)
		}
	default:
		d.order = orderDMY
	}
	switch {
	case ev.dmy+ev.mdy+ev.openDates > 0:
		d.dialect = append(d.dialect, "dates="+d.order.String())
	case ev.yearFirst > 0:
		d.dialect = append(d.dialect, "dates=YMD")
	case ev.monthName > 0:
		d.dialect = append(d.dialect, "dates=DMY")
	}

	// Signs.
	switch {
	case lay.amount >= 0 && lay.debitOnly:
		d.mode = modeDebitOnly
	case lay.amount >= 0 && lay.flag >= 0 && ev.amountNeg == 0:
		d.mode = modeFlag
	case lay.amount >= 0 && lay.flag >= 0 && ev.flagDisagree >= 2 && ev.flagDisagree*10 >= (ev.flagAgree+ev.flagDisagree)*9:
		// Purchases positive and payments negative, against the file's own DEBIT/CREDIT
		// marks: a card export from the card holder's side. Money out is negative here.
		d.mode = modeInverted
	case lay.amount >= 0 && !x.t.Card && ev.amountCR > 0 && ev.amountDR == 0 && ev.amountNeg == 0 && ev.amountPos > 0:
		// Credits marked CR, debits written plain (FNB's "1,234.56Cr" beside "56.78"): a
		// plain amount is money out.
		d.mode = modeCreditMarked
	case lay.amount >= 0:
		d.mode = modeSigned
	default:
		d.mode = modeDebitCredit
	}
	d.debitMixed = ev.debitPos > 0 && ev.debitNeg > 0
	d.debitsNegative = ev.debitNeg > ev.debitPos
	d.creditMixed = ev.creditPos > 0 && ev.creditNeg > 0
	d.dialect = append(d.dialect, "amount="+modeNames[d.mode])
	return d
}

// localeMark is the decimal mark of the table's locale when its amounts leave it open.
func localeMark(localeComma bool) byte {
	if localeComma {
		return ','
	}
	return '.'
}

// topCurrency is the currency the table names most.
func (x *extractor) topCurrency(ev *evidence) string {
	if x.currency != "" {
		return x.currency
	}
	best, bestN := "", 0
	for c, n := range ev.currencies {
		if n > bestN || n == bestN && c < best {
			best, bestN = c, n
		}
	}
	return best
}

func markWord(m byte) string {
	if m == ',' {
		return "comma"
	}
	return "point"
}

func markName(m byte) string {
	if m == ',' {
		return "the comma"
	}
	return "the point"
}

// aroundOrder returns the order of day and month that the numeric dates printed before the
// table and around it show (a period "01-04-2022 to 30-04-2022", a statement date), or
// orderUnknown when they show none or both.
func (x *extractor) aroundOrder() dateOrder {
	dmy, mdy := 0, 0
	look := func(text string) {
		for _, tok := range strings.Fields(text) {
			tok = strings.Trim(tok, ",;:()[]")
			rd, ok := scanDate(tok)
			if !ok || rd.kind != dkYearLast || rd.noYear {
				continue
			}
			switch {
			case rd.a > 12 && rd.a <= 31 && rd.b <= 12:
				dmy++
			case rd.b > 12 && rd.b <= 31 && rd.a <= 12:
				mdy++
			}
		}
	}
	for i := 0; i < x.lay.dataStart && i < len(x.sample); i++ {
		if i != x.lay.header {
			look(strings.Join(x.sample[i].Cells, " "))
		}
	}
	for _, l := range x.t.Context {
		look(l)
	}
	switch {
	case dmy > 0 && mdy == 0:
		return orderDMY
	case mdy > 0 && dmy == 0:
		return orderMDY
	}
	return orderUnknown
}

// periodOrder returns the order of day and month under which the table's dates fall in the
// statement period printed around it ("July 1, 2022 through July 31, 2022" over rows of
// "7/1" ... "7/29"), when one order puts clearly more of them there; else orderUnknown.
func (x *extractor) periodOrder() dateOrder {
	var lines []string
	for i := 0; i < x.lay.dataStart && i < len(x.sample); i++ {
		if i != x.lay.header {
			lines = append(lines, strings.Join(x.sample[i].Cells, " "))
		}
	}
	lines = append(lines, x.t.Context...)
	inside := func(o dateOrder) int {
		s, e, ok := findPeriod(lines, o)
		if !ok || x.lay.date < 0 {
			return -1
		}
		n := 0
		for i := x.lay.dataStart; i < len(x.sample); i++ {
			rd, ok := scanDate(cellText(cell(x.sample[i].Cells, x.lay.date)))
			if !ok || rd.kind != dkYearLast {
				continue
			}
			d, ok := rd.resolve(o)
			if !ok {
				continue
			}
			for y := s.Year(); y <= e.Year(); y++ {
				if !rd.noYear && y != d.Year() {
					continue
				}
				if dd, ok := statement.NewDate(y, d.Month(), d.Day()); ok && dd.Compare(s) >= 0 && dd.Compare(e) <= 0 {
					n++
					break
				}
			}
		}
		return n
	}
	dmy, mdy := inside(orderDMY), inside(orderMDY)
	switch {
	case dmy > mdy && mdy >= 0 || dmy > 0 && mdy < 0:
		return orderDMY
	case mdy > dmy && dmy >= 0 || mdy > 0 && dmy < 0:
		return orderMDY
	}
	return orderUnknown
}
