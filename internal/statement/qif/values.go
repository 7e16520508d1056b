package qif

import (
	"errors"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// dateParts is a D value split into its numbers, before the day/month order is known.
type dateParts struct {
	a, b, y int  // first, second field and the full year; for iso, a is the month, b the day
	iso     bool // year first (2020-12-31, 20201231): the order is certain
	ok      bool
}

// parseDateParts splits a QIF date: three runs of digits separated by slashes, dots, dashes,
// apostrophes or spaces ("12/31/2020", "12/31'20", "31.12.2020", "1/ 2/98", "2020-12-31"), or
// eight digits YYYYMMDD. A two-digit year after an apostrophe is 20yy (Quicken writes the apostrophe for
// years from 2000); other two-digit years are 19yy from 70 and 20yy below.
func parseDateParts(s string) (dateParts, bool) {
	var runs [3]struct{ v, n int }
	nr := 0
	apostrophe := false // before the third run
	inRun := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if !inRun {
				if nr == 3 {
					return dateParts{}, false
				}
				nr++
				inRun = true
			}
			r := &runs[nr-1]
			if r.n >= 8 {
				return dateParts{}, false
			}
			r.v = r.v*10 + int(c-'0')
			r.n++
		case c == '/' || c == '.' || c == '-' || c == ' ' || c == '\'':
			inRun = false
			if c == '\'' && nr == 2 {
				apostrophe = true
			}
		default:
			return dateParts{}, false
		}
	}
	if nr == 1 && runs[0].n == 8 {
		v := runs[0].v
		return dateParts{y: v / 10000, a: v / 100 % 100, b: v % 100, iso: true, ok: true}, true
	}
	if nr != 3 {
		return dateParts{}, false
	}
	if runs[0].n == 4 {
		return dateParts{y: runs[0].v, a: runs[1].v, b: runs[2].v, iso: true, ok: true}, true
	}
	if runs[0].n > 2 || runs[1].n > 2 {
		return dateParts{}, false
	}
	y := runs[2].v
	switch {
	case runs[2].n == 4:
	case runs[2].n <= 2 && apostrophe:
		y += 2000
	case runs[2].n == 2 && y >= 70:
		y += 1900
	case runs[2].n == 2:
		y += 2000
	default:
		return dateParts{}, false
	}
	return dateParts{a: runs[0].v, b: runs[1].v, y: y, ok: true}, true
}

// valid reports whether the parts make a date in at least one order.
func (d dateParts) valid() bool {
	_, mdy := d.date(orderMDY)
	_, dmy := d.date(orderDMY)
	return mdy || dmy
}

type order uint8

const (
	orderMDY order = iota
	orderDMY
)

// date returns the date the parts make in order o.
func (d dateParts) date(o order) (statement.Date, bool) {
	if !d.ok {
		return statement.Date{}, false
	}
	m, day := d.a, d.b
	if o == orderDMY && !d.iso {
		m, day = d.b, d.a
	}
	return statement.NewDate(d.y, time.Month(m), day)
}

// dateOrder is the file's day/month order and how it was found.
type dateOrder struct {
	order       order
	ambiguous   bool // every non-ISO date fits both orders
	iso         bool // every date is year first
	example     string
	exampleLine int
}

func (o dateOrder) name() string {
	switch {
	case o.ambiguous:
		return "ambiguous"
	case o.iso:
		return "YMD"
	case o.order == orderDMY:
		return "DMY"
	}
	return "MDY"
}

// why says why a date cannot be read in the file's order.
func (o dateOrder) why(d dateParts) string {
	if !d.ok {
		return "is not a date"
	}
	if d.valid() {
		if o.order == orderDMY {
			return "does not fit the file's day-first order (DD/MM)"
		}
		return "does not fit the file's month-first order (MM/DD)"
	}
	return "is not a date"
}

// dateTally counts a file's dates by the day/month orders they fit, record by record, so that
// the order is decided once for the file: the order that more dates can only be read in, month
// first when none decides.
type dateTally struct {
	onlyDMY, onlyMDY, both, nonISO, records int
	example                                 string
	exampleLine                             int
}

func (t *dateTally) add(r *record) {
	t.records++
	if !r.hasDate || r.date == "" {
		return
	}
	dp, _ := parseDateParts(r.date)
	if !dp.ok || dp.iso {
		return
	}
	t.nonISO++
	_, mdy := dp.date(orderMDY)
	_, dmy := dp.date(orderDMY)
	switch {
	case mdy && dmy:
		if dp.a != dp.b {
			t.both++
			if t.example == "" {
				t.example, t.exampleLine = r.date, r.dateLine
			}
		}
	case mdy:
		t.onlyMDY++
	case dmy:
		t.onlyDMY++
	}
}

func (t *dateTally) decide() dateOrder {
	o := dateOrder{example: t.example, exampleLine: t.exampleLine}
	switch {
	case t.onlyDMY > t.onlyMDY:
		o.order = orderDMY
	case t.onlyMDY > 0:
		o.order = orderMDY
	case t.nonISO == 0:
		o.iso = t.records > 0
	case t.both > 0:
		o.ambiguous = true
	}
	return o
}

// decimalMark is the file's decimal mark and how it was found.
type decimalMark struct {
	mark byte
	// ambiguous is set when amounts such as "1,000" fit both marks and no amount decides.
	ambiguous   bool
	example     string
	exampleLine int
}

// markTally counts the decimal marks a file's amounts show, record by record, so that the mark
// is found from all of them: a value with both marks has the decimal mark last; one mark
// followed by other than three digits is a decimal mark; a mark that occurs twice separates
// thousands. When nothing decides, the mark is '.', as Quicken writes it.
type markTally struct {
	dot, comma  int
	example     string
	exampleLine int
}

func (t *markTally) add(r *record) {
	switch markOf(r.amount) {
	case '.':
		t.dot++
	case ',':
		t.comma++
	case 0:
		if t.example == "" && strings.ContainsAny(r.amount, ".,") {
			t.example, t.exampleLine = r.amount, r.amountLine
		}
	}
}

func (t *markTally) decide() decimalMark {
	m := decimalMark{mark: '.', example: t.example, exampleLine: t.exampleLine}
	if t.comma > t.dot {
		m.mark = ','
	}
	m.ambiguous = t.dot == 0 && t.comma == 0 && t.example != ""
	return m
}

// markOf returns the decimal mark one amount shows, or 0 when it shows none.
func markOf(s string) byte {
	dots, commas, last, lastMark := 0, 0, -1, byte(0)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			dots++
			last, lastMark = i, '.'
		case ',':
			commas++
			last, lastMark = i, ','
		}
	}
	switch {
	case lastMark == 0:
		return 0
	case dots > 0 && commas > 0:
		return lastMark
	}
	other := byte(',')
	if lastMark == ',' {
		other = '.'
	}
	if dots+commas > 1 {
		return other // 1,234,567 or 1.234.567: thousands separators
	}
	after := 0
	for i := last + 1; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		after++
	}
	if after == 3 {
		return 0 // 1,000: either
	}
	return lastMark
}

// maxAmountLen bounds an amount's text: no register amount needs more, and decimal
// arithmetic on thousand-digit numbers is a way to burn time.
const maxAmountLen = 40

var errNotNumber = errors.New("is not a number")

// parseAmount reads a T or U amount with the file's decimal mark: an optional sign ("+123" is
// written), digits, the other mark as thousands separator between groups of three
// ("10,000,000.00"), spaces ignored. The result is exact.
func parseAmount(s string, mark byte) (decimal.Decimal, error) {
	if len(s) > maxAmountLen {
		return decimal.Decimal{}, errors.New("is too long for an amount")
	}
	sep := byte(',')
	if mark == ',' {
		sep = '.'
	}
	var buf [maxAmountLen + 1]byte
	out := buf[:0]
	nd := 0
	group := -1 // digits since the last thousands separator; -1 before the first
	seenMark := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			out = append(out, c)
			nd++
			if group >= 0 && !seenMark {
				group++
			}
		case (c == '-' || c == '+') && len(out) == 0:
			if c == '-' {
				out = append(out, c)
			}
		case c == ' ':
		case c == mark && !seenMark:
			if group >= 0 && group != 3 {
				return decimal.Decimal{}, errNotNumber
			}
			out = append(out, '.')
			seenMark = true
		case c == sep && !seenMark && nd > 0 && (group < 0 || group == 3):
			group = 0
		default:
			return decimal.Decimal{}, errNotNumber
		}
	}
	if nd == 0 || !seenMark && group >= 0 && group != 3 {
		return decimal.Decimal{}, errNotNumber
	}
	if nd <= 18 {
		// The common case, without the string and big.Int parsing of NewFromString.
		var v int64
		exp, frac := int32(0), false
		for _, c := range out {
			switch {
			case c == '.':
				frac = true
			case c >= '0' && c <= '9':
				v = v*10 + int64(c-'0')
				if frac {
					exp--
				}
			}
		}
		if out[0] == '-' {
			v = -v
		}
		return decimal.New(v, exp), nil
	}
	d, err := decimal.NewFromString(string(out))
	if err != nil {
		return decimal.Decimal{}, errNotNumber
	}
	return d, nil
}
