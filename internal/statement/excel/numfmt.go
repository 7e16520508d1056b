package excel

import (
	"fmt"
	"strings"
	"time"
)

// fmtKind is what a number format makes of a numeric cell, as far as the table is concerned.
type fmtKind uint8

const (
	fmtNumber   fmtKind = iota // shown as a number: we give its plain decimal text
	fmtDate                    // a date, possibly with a time: we give YYYY-MM-DD
	fmtTime                    // a time of day only: we give HH:MM:SS
	fmtDuration                // [h]:mm:ss and friends: elapsed time, left as a number
)

// builtinFmtKind classifies the number formats that have no format code in the file: ids below
// 164 are built in (ECMA-376 Part 1, 18.8.30 numFmt; [MS-XLS] 2.5.165 IFmt for BIFF).
func builtinFmtKind(id int) fmtKind {
	switch {
	case id >= 14 && id <= 17, id == 22:
		return fmtDate
	case id >= 18 && id <= 21:
		return fmtTime
	case id == 45 || id == 47:
		return fmtTime
	case id == 46:
		return fmtDuration
	case id >= 27 && id <= 36, id >= 50 && id <= 58:
		// East Asian locale date formats (e.g. 27 = [$-404]e/m/d, 57 = ggge"年"m"月"d"日").
		return fmtDate
	}
	return fmtNumber
}

// formatCodeKind classifies a number format code such as "dd.mm.yyyy", "#,##0.00",
// "[$-418]d mmmm yyyy;@" or "h:mm". Only the first section counts: it is the one positive
// numbers use. Quoted literals, backslash escapes, fill and padding characters and bracketed
// locale or colour tags are not format tokens; [h], [mm] and [ss] make an elapsed time. A code
// with y or d (or e, the East Asian era year) is a date, possibly with a time; one with h, s or
// AM/PM but no y or d is a time, its m being minutes; one with m alone ("mmmm") is a month, so a
// date. Digit placeholders without a time make a number format whatever letters it shows.
func formatCodeKind(code string) fmtKind {
	var dateLetter, timeLetter, month, digits bool
loop:
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch c {
		case ';':
			break loop
		case '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				break loop
			}
			i += j + 1
		case '\\', '_', '*':
			i++ // the next character is a literal, a padding width or a fill
		case '[':
			j := strings.IndexByte(code[i+1:], ']')
			if j < 0 {
				break loop
			}
			if tag := strings.ToLower(code[i+1 : i+1+j]); tag != "" && strings.Trim(tag, "hms") == "" {
				return fmtDuration
			}
			i += j + 1
		case 'G', 'g':
			if strings.HasPrefix(strings.ToLower(code[i:]), "general") {
				i += len("general") - 1
			}
		case 'y', 'Y', 'd', 'D':
			dateLetter = true
		case 'e':
			// e is the era year unless it is the exponent of scientific notation (0.00e+00).
			if i+1 >= len(code) || (code[i+1] != '+' && code[i+1] != '-') {
				dateLetter = true
			}
		case 'm', 'M':
			month = true
		case '#', '?', '0':
			// Digit placeholders make a number format ("0.00 Lei" has an e but is no date);
			// in a time they are fractions of a second (ss.00), which timeLetter covers.
			digits = true
		case 'h', 'H', 's', 'S':
			timeLetter = true
		case 'a', 'A':
			up := strings.ToUpper(code[i:])
			if strings.HasPrefix(up, "AM/PM") {
				timeLetter = true
				i += 4
			} else if strings.HasPrefix(up, "A/P") {
				timeLetter = true
				i += 2
			}
		}
	}
	switch {
	case digits && !timeLetter:
		return fmtNumber
	case dateLetter:
		return fmtDate
	case timeLetter:
		return fmtTime
	case month:
		return fmtDate
	}
	return fmtNumber
}

// typedNumber is what a numeric cell with a number format of the given kind shows: its plain
// decimal text, or its date (YYYY-MM-DD) or time of day (HH:MM:SS). Numbers and dates are typed
// (their form is certain); a time of day is text to the table layer.
func typedNumber(num string, kind fmtKind, date1904 bool) (string, bool) {
	if kind == fmtDate || kind == fmtTime {
		if d, ok := serialText(num, kind, date1904); ok {
			return d, kind == fmtDate
		}
	}
	return num, true
}

// Serial date limits: Excel shows #### outside 1900-01-01 .. 9999-12-31.
const (
	maxSerial1900 = 2958465 // 9999-12-31
	maxSerial1904 = 2957003 // 9999-12-31
)

var (
	epoch1900 = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	epoch1904 = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
)

// serialText turns a date-formatted number (its plain decimal text) into what Excel shows: the
// date as YYYY-MM-DD for date formats, the time as HH:MM:SS for time formats. The 1900 system
// counts 1900 as a leap year (Lotus 1-2-3's bug kept by Excel): serial 60 is the nonexistent
// 1900-02-29, which we show as Excel does and leave the table layer to reject, and serials
// below 60 are one day later than a plain count from 1899-12-30 would give. The 1904 system
// (old Mac workbooks, workbookPr/@date1904, BIFF DATEMODE) counts from 1904-01-01. A value Excel
// would show as #### (negative, past 9999) stays a number. The fraction is rounded to the
// second, as Excel's display does, so 0.99999999 is the next midnight.
func serialText[T ~string | ~[]byte](num T, kind fmtKind, date1904 bool) (string, bool) {
	days, secs, ok := splitSerial(num)
	if !ok {
		return "", false
	}
	if kind == fmtTime {
		// A time format on a value with a date part shows only the time, as Excel does.
		return fmt.Sprintf("%02d:%02d:%02d", secs/3600, secs/60%60, secs%60), true
	}
	var t time.Time
	switch {
	case date1904:
		if days < 0 || days > maxSerial1904 {
			return "", false
		}
		t = epoch1904.AddDate(0, 0, int(days))
	case days < 1 || days > maxSerial1900:
		return "", false
	case days == 60:
		return "1900-02-29", true
	case days < 60:
		t = epoch1900.AddDate(0, 0, int(days)+1)
	default:
		t = epoch1900.AddDate(0, 0, int(days))
	}
	y, m, d := t.Date()
	var b [10]byte
	b[0], b[1], b[2], b[3] = byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10)
	b[4], b[5], b[6], b[7] = '-', byte('0'+int(m)/10), byte('0'+int(m)%10), '-'
	b[8], b[9] = byte('0'+d/10), byte('0'+d%10)
	return string(b[:]), true
}

// splitSerial splits a non-negative plain decimal into whole days and the fraction of a day in
// seconds, rounded to the nearest second, exactly (no float).
func splitSerial[T ~string | ~[]byte](num T) (days int64, secs int64, ok bool) {
	if len(num) == 0 || num[0] == '-' {
		return 0, 0, false
	}
	i := 0
	for ; i < len(num) && num[i] != '.'; i++ {
		if num[i] < '0' || num[i] > '9' {
			return 0, 0, false
		}
		days = days*10 + int64(num[i]-'0')
	}
	if i == 0 || i > 9 {
		return 0, 0, false
	}
	// 13 fraction digits keep 86400 × 10^13 within int64; the rest cannot move a second.
	var f, scale int64 = 0, 1
	for k := i + 1; k < len(num) && k <= i+13; k++ {
		if num[k] < '0' || num[k] > '9' {
			return 0, 0, false
		}
		f = f*10 + int64(num[k]-'0')
		scale *= 10
	}
	secs = (f*86400 + scale/2) / scale
	if secs >= 86400 {
		days, secs = days+1, secs-86400
	}
	return days, secs, true
}

// maxSignificant is the precision Excel shows and calculates to: 15 significant digits. A stored
// double such as 1234.5600000000001 (a formula's result, or a binary fraction) is 1234.56 on
// screen; the digits past the 15th are the binary representation's noise, not the amount.
const maxSignificant = 15

// numberText returns the plain decimal text of a number as stored in a workbook: xlsx <v> text
// such as "1234.56", "-5E-3" or "1.2345678901234567E+19", or strconv's shortest text of a BIFF
// double. It keeps every digit Excel would show (up to 15 significant ones, rounded half away
// from zero beyond that, the way Excel displays them), never goes through a float, and writes no
// exponent. ok is false when s is not a number, or one no double can hold.
func numberText(s string) (string, bool) {
	if plainNumber(s) {
		return s, true
	}
	return normalizeNumber(s)
}

// normalizeNumber is numberText's general case.
func normalizeNumber(s string) (string, bool) {
	if len(s) == 0 || len(s) > 400 {
		return "", false
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	intPart, fracPart, _ := strings.Cut(mant, ".")
	if intPart == "" && fracPart == "" || !allDigits(intPart) || !allDigits(fracPart) {
		return "", false
	}
	exp := 0
	if expText != "" {
		e, ok := smallInt(expText)
		if !ok {
			return "", false
		}
		exp = e
	}
	// digits × 10^(point - len(digits)): the decimal point sits after digits[:point].
	digits := strings.TrimLeft(intPart+fracPart, "0")
	point := len(intPart) - (len(intPart+fracPart) - len(digits)) + exp
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "0", true
	}
	if point > 309 || point < -330 {
		return "", false // beyond any double
	}
	if len(digits) > maxSignificant {
		digits, point = roundDigits(digits, point)
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case point <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	case point >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", point-len(digits)))
	default:
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	}
	return b.String(), true
}

// plainNumber reports whether s is already what numberText makes of it: an optional minus, an
// integer part without leading zeros, an optional fraction without trailing zeros, at most 15
// digits in all. Most stored numbers are; they need no rewriting.
func plainNumber[T ~string | ~[]byte](s T) bool {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		i = 1
	}
	if i >= len(s) || len(s)-i > maxSignificant+2 {
		return false
	}
	start, digits, point := i, 0, -1
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && point < 0:
			point = i
		default:
			return false
		}
	}
	switch {
	case s[start] == '0' && len(s) > start+1 && s[start+1] != '.':
		return false // leading zero
	case s[start] == '.' || point == len(s)-1:
		return false // ".5" or "5."
	case point >= 0 && s[len(s)-1] == '0':
		return false // trailing zero in the fraction
	case len(s) == 2 && s[0] == '-' && s[1] == '0':
		return false // "-0" is 0
	}
	return digits <= maxSignificant
}

// roundDigits rounds a digit string (no leading or trailing zeros) to maxSignificant digits,
// half away from zero, and returns it without trailing zeros with the decimal point moved when
// 999... carries into a new digit.
func roundDigits(digits string, point int) (string, int) {
	d := []byte(digits[:maxSignificant])
	if digits[maxSignificant] >= '5' {
		i := len(d) - 1
		for ; i >= 0; i-- {
			if d[i] < '9' {
				d[i]++
				break
			}
			d[i] = '0'
		}
		if i < 0 {
			d = append([]byte{'1'}, d...)
			point++
		}
	}
	return strings.TrimRight(string(d), "0"), point
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// smallInt parses an exponent such as "+05" or "-3", refusing ones too long to be a double's.
func smallInt(s string) (int, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || len(s) > 4 || !allDigits(s) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
