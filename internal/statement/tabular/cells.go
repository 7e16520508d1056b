package tabular

import (
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// This file lends the cell readers of the statement tables to other tables, such as the
// expected-references files of package expected, so that an amount or a date reads the same in
// every file the service accepts. The decisions made once per table (decimal mark, date order)
// stay with the caller: what counts as evidence differs between a statement and another table.

// CellText returns a cell's value as a person reads it: trimmed of white space (byte-order marks
// and no-break spaces included), and unwrapped from the ="..." form that exports use to stop
// Excel from turning an identifier into a number.
func CellText(s string) string { return cellText(s) }

// Amount is a cell read as an amount before the table's decimal mark is decided: its digits and
// separators, its sign and the currency a symbol or code beside it named.
type Amount struct{ n numScan }

// ScanAmount reads a cell as an amount as statement columns are read: an optional sign (also
// parentheses, a trailing minus, CR or DR), a currency symbol or ISO code before or after, and
// digits with separators. It returns false for anything else, such as "12 apples" or a date.
func ScanAmount(s string) (Amount, bool) {
	n, ok := scanNumber(s)
	return Amount{n}, ok
}

// Currency returns the ISO 4217 code the cell named by a code ("12.50 EUR") or by a symbol of
// one currency only ("€ 12.50"); "" when it named none, or a symbol of several such as "$".
func (a Amount) Currency() string { return a.n.currency }

// Negative reports whether the cell wrote a negative sign.
func (a Amount) Negative() bool { return a.n.neg }

// MarkEvidence is what one amount says about its table's decimal mark.
type MarkEvidence uint8

// What an amount can say about the decimal mark.
const (
	// MarkNone: no separator, so either mark fits ("1250").
	MarkNone MarkEvidence = iota
	// MarkPoint: only a decimal point reads it ("12.50", "1,250.50", "1,250,000").
	MarkPoint
	// MarkComma: only a decimal comma reads it ("12,50", "1.250,50", "1.250.000").
	MarkComma
	// MarkAmbiguous: one separator followed by exactly three digits ("1,250" or "1.250"),
	// a thousand and some or one and a fraction depending on the mark.
	MarkAmbiguous
)

// Mark returns what the amount's separators say about the decimal mark.
func (a Amount) Mark() MarkEvidence {
	switch a.n.evidence() {
	case evPoint:
		return MarkPoint
	case evComma:
		return MarkComma
	case evAmbiguousPoint, evAmbiguousComma:
		return MarkAmbiguous
	}
	return MarkNone
}

// Value returns the signed amount read with mark ('.' or ',') as the decimal mark, the other of
// the two, spaces and apostrophes grouping thousands. It returns false when the digits do not
// fit that reading, such as "1,5" when the mark is '.'.
func (a Amount) Value(mark byte) (decimal.Decimal, bool) { return a.n.value(mark) }

// DateCell is a cell read as a date before the table's order of day and month is decided.
type DateCell struct{ r rawDate }

// ScanDate reads a whole trimmed cell as a date in the forms statements write: 2024-03-05,
// 05.03.2024, 03/05/24, 20240305, 5 Mar 2024, Mar 5, 2024, optionally followed by a time of day.
// It returns false for anything else.
func ScanDate(s string) (DateCell, bool) {
	r, ok := scanDate(s)
	return DateCell{r}, ok && !r.noYear && r.plausible()
}

// DateEvidence is what one date says about its table's order of day and month.
type DateEvidence uint8

// What a date can say about the order of day and month.
const (
	// OrderFixed: the form fixes the order (2024-03-05, 5 Mar 2024, 20240305).
	OrderFixed DateEvidence = iota
	// DayFirst: only day-first reads it (31/12/2024).
	DayFirst
	// MonthFirst: only month-first reads it (12/31/2024).
	MonthFirst
	// OrderOpen: both orders read it (03/05/2024).
	OrderOpen
)

// Order returns what the date says about the order of day and month.
func (d DateCell) Order() DateEvidence {
	r := d.r
	if r.kind != dkYearLast {
		return OrderFixed
	}
	switch {
	case r.a > 12 && r.b <= 12:
		return DayFirst
	case r.b > 12 && r.a <= 12:
		return MonthFirst
	}
	return OrderOpen
}

// Dotted reports a day/month/year date written with dots (05.03.2024), a form only day-first
// locales use.
func (d DateCell) Dotted() bool { return d.r.kind == dkYearLast && d.r.sep == '.' }

// Resolve returns the date, reading a day/month/year date month first when monthFirst is set;
// false when it names no calendar date in that order.
func (d DateCell) Resolve(monthFirst bool) (statement.Date, bool) {
	o := orderDMY
	if monthFirst {
		o = orderMDY
	}
	return d.r.resolve(o)
}
