package bai2

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
)

// fieldIter walks the comma-separated fields of a logical record: the record's own body and the
// bodies of the 88 records that continue it. The end of a part ends a field, because an 88
// record carries on with the next field, never the rest of a split one.
type fieldIter struct {
	parts []string
	i     int // the next part to enter
	cur   string
	// open says a field is still to be read from cur (cur may be empty: "a,,").
	open bool
}

func newFieldIter(parts []string) fieldIter { return fieldIter{parts: parts} }

// next returns the next field, and false when the record has no more.
func (it *fieldIter) next() (string, bool) {
	if !it.open {
		if it.i >= len(it.parts) {
			return "", false
		}
		it.cur, it.open = it.parts[it.i], true
		it.i++
	}
	if k := strings.IndexByte(it.cur, ','); k >= 0 {
		f := it.cur[:k]
		it.cur = it.cur[k+1:]
		return f, true
	}
	f := it.cur
	it.cur, it.open = "", false
	return f, true
}

// field returns the next field with its blanks trimmed, "" when there is none.
func (it *fieldIter) field() string {
	f, _ := it.next()
	return strings.TrimSpace(f)
}

// text returns everything left, commas included, as the text of a 16 record: the rest of the
// current part and the later parts whole. A continuation of text continues the text; the record
// boundary between two parts stands for a blank, unless glue[k] says part k continues a record
// cut at the declared physical record length, where a word may go on. White space is collapsed.
func (it *fieldIter) text(glue []bool) string {
	tail := it.parts[it.i:]
	switch {
	case !it.open && len(tail) == 0:
		return ""
	case it.open && len(tail) == 0:
		return statement.CollapseSpace(it.cur)
	case !it.open && len(tail) == 1:
		return statement.CollapseSpace(tail[0])
	}
	var b strings.Builder
	if it.open {
		b.WriteString(it.cur)
	}
	for m, part := range tail {
		k := it.i + m
		if (it.open || m > 0) && (k >= len(glue) || !glue[k]) {
			b.WriteByte(' ')
		}
		b.WriteString(part)
	}
	return statement.CollapseSpace(b.String())
}

// maxDigits is the most digits an amount may have: 18 always fit an int64.
const maxDigits = 18

// parseAmount reads a BAI2 amount: an optional sign and digits, in the currency's minor unit
// (implied decimals, no decimal mark). present is false for an empty (defaulted) field.
func parseAmount(f string) (v int64, present bool, problem string) {
	f = strings.TrimSpace(f)
	if f == "" {
		return 0, false, ""
	}
	digits := f
	neg := false
	switch f[0] {
	case '-':
		neg, digits = true, f[1:]
	case '+':
		digits = f[1:]
	}
	if digits == "" {
		return 0, false, "amount " + quote(f) + " is not a number"
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return 0, false, "amount " + quote(f) + " is not a number (BAI2 amounts are whole numbers in the currency's minor unit)"
		}
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) > maxDigits {
		return 0, false, "amount " + quote(f) + " has more than 18 digits"
	}
	for i := 0; i < len(digits); i++ {
		v = v*10 + int64(digits[i]-'0')
	}
	if neg {
		v = -v
	}
	return v, true, ""
}

// parseCount reads an item or record count; ok is false when it is not a whole number.
func parseCount(f string) (n int, present, ok bool) {
	f = strings.TrimSpace(f)
	if f == "" {
		return 0, false, true
	}
	f = strings.TrimPrefix(f, "+")
	if f == "" || len(f) > maxDigits {
		return 0, true, false
	}
	for i := 0; i < len(f); i++ {
		if !isDigit(f[i]) {
			return 0, true, false
		}
		n = n*10 + int(f[i]-'0')
	}
	return n, true, true
}

// parseDate reads YYMMDD (and, leniently, YYYYMMDD). Two-digit years below 70 are 20YY.
func parseDate(f string) (statement.Date, bool) {
	f = strings.TrimSpace(f)
	if len(f) != 6 && len(f) != 8 {
		return statement.Date{}, false
	}
	n := 0
	for i := 0; i < len(f); i++ {
		if !isDigit(f[i]) {
			return statement.Date{}, false
		}
		n = n*10 + int(f[i]-'0')
	}
	var y int
	if len(f) == 6 {
		y = n / 10000
		if y < 70 {
			y += 2000
		} else {
			y += 1900
		}
	} else {
		y = n / 10000
	}
	return statement.NewDate(y, time.Month(n/100%100), n%100)
}

// quote writes a field value into a message, quoted and clipped.
func quote(s string) string { return `"` + clip(s) + `"` }

// clip shortens a value from the file for a message, so a hostile field cannot flood it.
func clip(s string) string {
	const maxLen = 40
	if len(s) <= maxLen {
		return s
	}
	n := maxLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// isNoRef reports whether a reference field says nothing: blank or all zeros ("0").
func isNoRef(s string) bool {
	return strings.Trim(s, "0 ") == ""
}
