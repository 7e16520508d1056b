package expected

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// formats is how the file's cells are read, decided once for the file from all its rows.
type formats struct {
	// mark is the decimal mark of amounts that are text: '.' or ','.
	mark byte
	// monthFirst reads day/month/year due dates month first.
	monthFirst bool
}

// evidence is what the rows say about the file's formats.
type evidence struct {
	point, comma           int
	dayFirst, monthFirst   int
	openDates, dottedDates int
	currencies             map[string]int
}

// cellOf returns column col of a row as a person reads it, "" past the row's end.
func cellOf(r *tabular.Row, col int) string {
	if col < 0 || col >= len(r.Cells) {
		return ""
	}
	return tabular.CellText(r.Cells[col])
}

// canonical reports a cell the reader wrote from a typed value (an Excel number or date): its
// form is certain, so it says nothing about the file's formats and reads with a point.
func canonical(r *tabular.Row, col int) bool {
	return col >= 0 && col < len(r.Canonical) && r.Canonical[col]
}

// read reads the data rows in two passes: the first counts them against the row limit and
// gathers what they say about the decimal mark and date order, the second reads each row under
// that decision. Reading the rows twice holds no copy of them; the source re-reads its text.
func (t *table) read(opts statement.Options) ([]match.Expected, error) {
	var ev evidence
	n := 0
	var tooMany error
	t.dataRows(func(r *tabular.Row) bool {
		if n++; n > opts.MaxRows {
			tooMany = &Error{Msg: fmt.Sprintf("the file has more than %d rows, the limit", opts.MaxRows), Kind: ErrTooLarge}
			return false
		}
		t.observe(&ev, r)
		return true
	})
	if tooMany != nil {
		return nil, tooMany
	}
	f := decide(&ev)
	out := make([]match.Expected, 0, n)
	var rowErr error
	t.dataRows(func(r *tabular.Row) bool {
		e, err := t.row(r, f)
		if err != nil {
			rowErr = err
			return false
		}
		out = append(out, e)
		return true
	})
	if rowErr != nil {
		return nil, rowErr
	}
	return out, nil
}

// dataRows calls fn for each row after the header that is not empty, until fn returns false.
func (t *table) dataRows(fn func(r *tabular.Row) bool) {
	i := 0
	// One Row for all: the address of the loop variable would move every row to the heap.
	var row tabular.Row
	for r := range t.src.rows {
		if i++; i <= t.headerIndex+1 || isBlank(r.Cells) {
			continue
		}
		row = r
		if !fn(&row) {
			return
		}
	}
}

// observe adds what one row says about the formats: its amount's separators, its due date's
// field order, and the currency it names.
func (t *table) observe(ev *evidence, r *tabular.Row) {
	count := func(code string) {
		if ev.currencies == nil {
			ev.currencies = map[string]int{}
		}
		ev.currencies[code]++
	}
	if col := t.cols[roleAmount]; !canonical(r, col) {
		if a, ok := tabular.ScanAmount(cellOf(r, col)); ok {
			// An amount counts only when it reads with the mark it shows: "12,50,00" shows a
			// point by its two commas but reads with neither mark, and says nothing.
			switch a.Mark() {
			case tabular.MarkPoint:
				if _, ok := a.Value('.'); ok {
					ev.point++
				}
			case tabular.MarkComma:
				if _, ok := a.Value(','); ok {
					ev.comma++
				}
			}
			if c := a.Currency(); c != "" {
				count(c)
			}
		}
	}
	if c, ok := currencyCode(cellOf(r, t.cols[roleCurrency])); ok && c != "" {
		count(c)
	}
	if col := t.cols[roleDueDate]; !canonical(r, col) {
		if d, ok := tabular.ScanDate(cellOf(r, col)); ok {
			switch d.Order() {
			case tabular.DayFirst:
				ev.dayFirst++
			case tabular.MonthFirst:
				ev.monthFirst++
			case tabular.OrderOpen:
				ev.openDates++
				if d.Dotted() {
					ev.dottedDates++
				}
			}
		}
	}
}

// decide fixes the file's formats from the evidence, as the package comment describes.
func decide(ev *evidence) formats {
	f := formats{mark: '.'}
	if ev.comma > ev.point {
		f.mark = ','
	}
	switch {
	case ev.dayFirst > 0 || ev.monthFirst > 0:
		f.monthFirst = ev.monthFirst > ev.dayFirst
	case ev.openDates > 0:
		dayFirstLocale := ev.dottedDates > 0 || f.mark == ','
		f.monthFirst = !dayFirstLocale && topCurrency(ev.currencies) == "USD"
	}
	return f
}

// topCurrency returns the currency named most, the alphabetically first on a tie.
func topCurrency(counts map[string]int) string {
	best, bestN := "", 0
	for c, n := range counts {
		if n > bestN || n == bestN && c < best {
			best, bestN = c, n
		}
	}
	return best
}

// row reads one data row.
func (t *table) row(r *tabular.Row, f formats) (match.Expected, error) {
	line := r.Pos.Line
	e := match.Expected{Row: line}

	ref := cellOf(r, t.cols[roleReference])
	switch {
	case ref == "":
		return e, rowError(line, "reference", "the reference is empty")
	case !hasLetterOrDigit(ref):
		return e, rowError(line, "reference", "reference %s has no letter or digit", quote(ref))
	}
	e.Reference = strings.Clone(ref)

	amountText := cellOf(r, t.cols[roleAmount])
	amount, amountCurrency, err := readAmount(r, t.cols[roleAmount], amountText, f.mark, line)
	if err != nil {
		return e, err
	}
	e.Amount = amount

	curText := cellOf(r, t.cols[roleCurrency])
	cur, ok := t.currencyCode(curText)
	switch {
	case !ok:
		return e, rowError(line, "currency", "currency %s is not a three-letter ISO 4217 code", quote(curText))
	case cur == "":
		cur = amountCurrency
	case amountCurrency != "" && amountCurrency != cur:
		return e, rowError(line, "amount", "amount %s is in %s, but the currency column says %s", quote(amountText), amountCurrency, cur)
	}
	e.Currency = cur

	if col := t.cols[roleDueDate]; col >= 0 {
		d, err := readDueDate(r, col, f.monthFirst, line)
		if err != nil {
			return e, err
		}
		e.DueDate = d
	}
	if name := cellOf(r, t.cols[roleName]); name != "" {
		e.Name = strings.Clone(name)
	}
	return e, nil
}

// readAmount reads the amount cell: its absolute value and the currency it names, if any.
func readAmount(r *tabular.Row, col int, text string, mark byte, line int) (decimal.Decimal, string, error) {
	if text == "" {
		return decimal.Decimal{}, "", rowError(line, "amount", "the amount is empty")
	}
	a, ok := tabular.ScanAmount(text)
	if !ok {
		return decimal.Decimal{}, "", rowError(line, "amount", "amount %s is not a decimal number", quote(text))
	}
	if canonical(r, col) {
		mark = '.'
	}
	v, ok := a.Value(mark)
	if !ok {
		other := byte(',')
		if mark == ',' {
			other = '.'
		}
		if _, ok := a.Value(other); ok {
			return decimal.Decimal{}, "", rowError(line, "amount",
				"amount %s is not a decimal number with a decimal %s, which the file's other amounts use", quote(text), markWord(mark))
		}
		return decimal.Decimal{}, "", rowError(line, "amount", "amount %s is not a decimal number", quote(text))
	}
	if v.Sign() < 0 {
		v = v.Neg()
	}
	return v, a.Currency(), nil
}

func markWord(mark byte) string {
	if mark == ',' {
		return "comma"
	}
	return "point"
}

// readDueDate reads the due-date cell; the zero Date when it is empty.
func readDueDate(r *tabular.Row, col int, monthFirst bool, line int) (statement.Date, error) {
	text := cellOf(r, col)
	if text == "" {
		return statement.Date{}, nil
	}
	d, ok := tabular.ScanDate(text)
	if !ok {
		return statement.Date{}, rowError(line, "due_date", "due date %s is not a date", quote(text))
	}
	date, ok := d.Resolve(monthFirst)
	if !ok {
		order := "day first (DD/MM/YYYY)"
		if monthFirst {
			order = "month first (MM/DD/YYYY)"
		}
		return statement.Date{}, rowError(line, "due_date",
			"due date %s is not a date when read %s, as the file's other due dates are", quote(text), order)
	}
	return date, nil
}

// currencyCode is the package's currencyCode, each code allocated once per file rather than
// once per row.
func (t *table) currencyCode(s string) (string, bool) {
	if s == "" {
		return "", true
	}
	if c, ok := t.codes[s]; ok {
		return c, true
	}
	c, ok := currencyCode(s)
	if ok && len(t.codes) < 1000 {
		if t.codes == nil {
			t.codes = map[string]string{}
		}
		t.codes[strings.Clone(s)] = c
	}
	return c, ok
}

// currencyCode reads a currency cell: "" when empty, else three ASCII letters in upper case;
// false for anything else.
func currencyCode(s string) (string, bool) {
	if s == "" {
		return "", true
	}
	if len(s) != 3 {
		return "", false
	}
	var b [3]byte
	for i := 0; i < 3; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		default:
			return "", false
		}
		b[i] = c
	}
	return string(b[:]), true
}

// hasLetterOrDigit reports whether a reference has something to match: a reference of dashes or
// punctuation only has no token.
func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
