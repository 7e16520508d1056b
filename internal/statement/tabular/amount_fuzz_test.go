package tabular

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// FuzzAmountParse fuzzes the amount reader of the statement tables (CSV, Excel and PDF statements
// and the expected-references files all read amounts with scanNumber and numScan.value, through
// ScanAmount in the other packages). Two halves:
//
// Any cell: reading never panics; an amount read with either decimal mark keeps exactly the
// digits the cell wrote (none lost, none invented) with as many decimals as it wrote after the
// mark; its sign is the cell's; its evidence never names a mark under which it cannot be read and
// never hides the other; and the amount written back as a plain decimal (with '.' or ',' as the
// mark, grouped in thousands by each separator statements use or not) reads back equal, to the
// last decimal.
//
// Any amount (mant × 10^-scale, scale 0 to 5), written as statements write money (a decimal point or comma,
// thousands grouped or not, a leading, trailing, parenthesised, U+2212 or DR sign, a currency
// code or symbol before or after): it reads back exactly, with its sign and currency, and its
// mark evidence agrees with the mark it was written with.
func FuzzAmountParse(f *testing.F) {
	for _, cell := range []string{
		"1250.50", "-42.99", "1.234,56", "1,234.56", "1 234,56", "1'234.56", "(1,250.00)", "12.50-", "12.50 CR", "12.50 DR",
		"€ 12,50", "EUR -5,00", "- $21.59", "US$1,000", "1,23,456.78", "0.5", ".23", "500.", "1,250", "1.250", "−12.50",
		"12 apples", "2020-02-20", "8.10 SGD @ .9765", "", " ", "+-1", "1,5", "000123.4500", "12345678901234567890.123",
		strings.Repeat("9", 40), strings.Repeat("9", 41) + ".5", "1\u00a0234,56", "1\u202f234.56", "12.50 EUR DR",
	} {
		f.Add(cell, int64(125050), uint8(2), uint8(0), uint8(0))
	}
	for form := range uint8(12) {
		for deco := range uint8(36) {
			f.Add("", int64(-1234567)+int64(deco)*int64(form), form%6, form, deco)
		}
	}
	f.Add("", int64(-9223372036854775808), uint8(5), uint8(1), uint8(5))
	f.Add("", int64(9223372036854775807), uint8(0), uint8(7), uint8(35))

	f.Fuzz(func(t *testing.T, cell string, mant int64, scale, form, deco uint8) {
		checkCell(t, cell)
		checkWritten(t, decimal.New(mant, -int32(scale%6)), form, deco)
	})
}

// checkCell checks what the readers make of any cell.
func checkCell(t *testing.T, cell string) {
	a, ok := ScanAmount(cell)
	_, _, _ = a.Mark(), a.Currency(), a.Negative()
	n, nok := scanNumber(cell)
	if ok != nok {
		t.Fatalf("ScanAmount and scanNumber disagree on %q", cell)
	}
	if !ok {
		return
	}
	digits := 0
	for i := 0; i < len(n.core); i++ {
		if isDigit(n.core[i]) {
			digits++
		}
	}
	if digits < 1 || digits > maxDigits {
		t.Fatalf("%q: an amount of %d digits (core %q)", cell, digits, n.core)
	}
	ev := n.evidence()
	read := map[byte]bool{}
	for _, mark := range []byte{'.', ','} {
		d, ok := n.value(mark)
		read[mark] = ok
		if !ok {
			continue
		}
		// Every digit of the cell, none lost or invented, and the decimals it wrote.
		if want, got := significant(onlyDigits(n.core)), significant(strings.TrimPrefix(d.Coefficient().String(), "-")); want != got {
			t.Fatalf("%q read with %q is %s: digits %s, the cell wrote %s", cell, mark, d, got, want)
		}
		decimals := 0
		if i := strings.LastIndexByte(n.core, mark); i >= 0 {
			decimals = len(onlyDigits(n.core[i+1:]))
		}
		if -d.Exponent() != int32(decimals) {
			t.Fatalf("%q read with %q is %s: %d decimals, the cell wrote %d", cell, mark, d, -d.Exponent(), decimals)
		}
		if d.Sign() < 0 && !n.neg || n.neg && d.Sign() > 0 {
			t.Fatalf("%q read with %q is %s, but the cell's sign is negative=%v", cell, mark, d, n.neg)
		}
		// Written back plainly, and grouped, it reads back the same.
		for _, w := range writings(mark) {
			text := write(d, w.mark, w.group)
			if d.Sign() < 0 {
				text = "-" + text
			}
			requireReads(t, text, w.mark, d, "the amount "+d.String()+" read from "+strconv.Quote(cell))
		}
	}
	switch ev {
	case evPoint:
		if read[','] {
			t.Fatalf("%q: the evidence says a decimal point, yet it reads with a comma", cell)
		}
	case evComma:
		if read['.'] {
			t.Fatalf("%q: the evidence says a decimal comma, yet it reads with a point", cell)
		}
	}
}

// checkWritten writes v as form (mark and grouping) and deco (sign and currency) say, and
// requires it read back exactly, with its sign and currency.
func checkWritten(t *testing.T, v decimal.Decimal, form, deco uint8) {
	mark := byte('.')
	if form/6%2 == 1 {
		mark = ','
	}
	w := writings(mark)[form%6]
	text := write(v, w.mark, w.group)
	currencies := []struct{ before, after, code string }{{"", "", ""}, {"EUR ", "", "EUR"}, {"", " EUR", "EUR"},
		{"€", "", "EUR"}, {"$", "", ""}, {"", " zł", "PLN"}}
	c := currencies[deco/6%6]
	text = c.before + text + c.after
	neg := v.Sign() < 0
	switch sign := deco % 6; {
	case !neg && sign == 1:
		text = "+" + text
	case !neg && sign == 2:
		text += " CR"
	case !neg:
	case sign == 0, sign == 1:
		text = "-" + text
	case sign == 2:
		text += "-"
	case sign == 3:
		text = "−" + text // U+2212
	case sign == 4:
		text += " DR"
	default:
		text = "(" + text + ")"
	}
	where := "the amount " + v.String() + " written " + strconv.Quote(text)
	a := requireReads(t, text, w.mark, v, where)
	if a.Negative() != neg {
		t.Fatalf("%s: negative=%v", where, a.Negative())
	}
	if a.Currency() != c.code {
		t.Fatalf("%s: currency %q, want %q", where, a.Currency(), c.code)
	}
	switch a.Mark() {
	case MarkPoint:
		if w.mark != '.' {
			t.Fatalf("%s: the evidence says a decimal point", where)
		}
	case MarkComma:
		if w.mark != ',' {
			t.Fatalf("%s: the evidence says a decimal comma", where)
		}
	}
}

// requireReads reads text with mark and requires want, to the last decimal.
func requireReads(t *testing.T, text string, mark byte, want decimal.Decimal, where string) Amount {
	t.Helper()
	a, ok := ScanAmount(text)
	if !ok {
		t.Fatalf("%s: %q is not read as an amount", where, text)
	}
	got, ok := a.Value(mark)
	if !ok || !got.Equal(want) || got.Exponent() != want.Exponent() {
		t.Fatalf("%s: %q read with %q is %s (ok=%v), want %s", where, text, mark, got, ok, want)
	}
	return a
}

// writing is a way to write an amount: its decimal mark and thousands separator ("" for none).
type writing struct {
	mark  byte
	group string
}

// writings are the ways statements write an amount with mark as the decimal mark.
func writings(mark byte) []writing {
	other := ","
	if mark == ',' {
		other = "."
	}
	return []writing{{mark, ""}, {mark, other}, {mark, " "}, {mark, "'"}, {mark, "\u00a0"}, {mark, "\u202f"}}
}

// write returns |v| with its decimals, mark as the decimal mark and group between thousands.
func write(v decimal.Decimal, mark byte, group string) string {
	places := max(0, -v.Exponent())
	intPart, frac, _ := strings.Cut(v.Abs().StringFixed(places), ".")
	if group != "" {
		var b strings.Builder
		for i := range len(intPart) {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				b.WriteString(group)
			}
			b.WriteByte(intPart[i])
		}
		intPart = b.String()
	}
	if places == 0 {
		return intPart
	}
	return intPart + string(mark) + frac
}

func onlyDigits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// significant strips leading zeros ("0" for zero).
func significant(digits string) string {
	if s := strings.TrimLeft(digits, "0"); s != "" {
		return s
	}
	return "0"
}
