package ofx

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// trimSpace trims ASCII white space, which is what surrounds SGML values (indentation, CRLF,
// the trailing blanks Banco do Brasil pads values with).
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// valueString returns a leaf's text as a string: trimmed, with comments and CDATA markers
// removed and the predefined and numeric character references decoded. Other entity references
// stay as written: OFX defines none, and expanding declared entities is how entity bombs work.
func valueString(v []byte, special bool) string {
	v = trimSpace(v)
	if special {
		v = stripMarkup(v)
	}
	if bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	return decodeEntities(v)
}

// stripMarkup removes comments and unwraps CDATA sections in a value.
func stripMarkup(v []byte) []byte {
	var out []byte
	for len(v) > 0 {
		i := bytes.IndexByte(v, '<')
		if i < 0 {
			out = append(out, v...)
			break
		}
		out = append(out, v[:i]...)
		v = v[i:]
		switch {
		case bytes.HasPrefix(v, []byte("<!--")):
			v = v[skipPast(v, 4, "-->"):]
		case bytes.HasPrefix(v, []byte("<![CDATA[")):
			end := bytes.Index(v[9:], []byte("]]>"))
			if end < 0 {
				out = append(out, v[9:]...)
				v = nil
			} else {
				out = append(out, v[9:9+end]...)
				v = v[9+end+3:]
			}
		default:
			out = append(out, '<')
			v = v[1:]
		}
	}
	return trimSpace(out)
}

func decodeEntities(v []byte) string {
	var sb strings.Builder
	sb.Grow(len(v))
	for len(v) > 0 {
		i := bytes.IndexByte(v, '&')
		if i < 0 {
			sb.Write(v)
			break
		}
		sb.Write(v[:i])
		v = v[i:]
		semi := bytes.IndexByte(v, ';')
		if semi < 0 || semi > 12 {
			sb.WriteByte('&')
			v = v[1:]
			continue
		}
		ref := string(v[1:semi])
		r, ok := rune(0), true
		switch ref {
		case "amp":
			r = '&'
		case "lt":
			r = '<'
		case "gt":
			r = '>'
		case "quot":
			r = '"'
		case "apos":
			r = '\''
		case "nbsp":
			r = ' '
		default:
			ok = false
			if len(ref) > 1 && ref[0] == '#' {
				var n uint64
				var err error
				if ref[1] == 'x' || ref[1] == 'X' {
					n, err = strconv.ParseUint(ref[2:], 16, 32)
				} else {
					n, err = strconv.ParseUint(ref[1:], 10, 32)
				}
				if err == nil && n > 0 && utf8.ValidRune(rune(n)) {
					r, ok = rune(n), true
				}
			}
		}
		if !ok {
			sb.WriteByte('&')
			v = v[1:]
			continue
		}
		sb.WriteRune(r)
		v = v[semi+1:]
	}
	return sb.String()
}

var errNotDate = errors.New("not a date")

// parseDate reads an OFX date or datetime, YYYYMMDD[HHMMSS[.XXX]][[+-]H[.MM][:TZ]], and returns
// the calendar date as stated: the time zone offset is not applied, because a statement's
// booking date is the bank's calendar date, not an instant. The text after the first eight
// digits is only looked at loosely (files write "20180804093914:014"). Also read: YYYY-MM-DD,
// which some exporters write. An empty value and the placeholder 00000000 are the zero Date.
func parseDate(s string) (statement.Date, error) {
	if s == "" {
		return statement.Date{}, nil
	}
	var y, m, d int
	switch {
	case len(s) >= 10 && s[4] == '-' && s[7] == '-' && digits(s[:4]) && digits(s[5:7]) && digits(s[8:10]):
		y, m, d = atoi(s[:4]), atoi(s[5:7]), atoi(s[8:10])
	case len(s) >= 8 && digits(s[:8]):
		if s[:8] == "00000000" {
			return statement.Date{}, nil
		}
		y, m, d = atoi(s[:4]), atoi(s[4:6]), atoi(s[6:8])
	default:
		return statement.Date{}, errNotDate
	}
	date, ok := statement.NewDate(y, time.Month(m), d)
	if !ok {
		return statement.Date{}, errNotDate
	}
	return date, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// maxAmountLen bounds an amount's text: no bank amount needs more, and decimal arithmetic on
// thousand-digit numbers is a way to burn time.
const maxAmountLen = 40

// parseAmount reads TRNAMT, BALAMT and similar: an optional sign, digits and a decimal point.
// OFX allows a decimal comma too ("12,34"), and exports write thousands separators now and
// then. A value with both marks takes the last one as the decimal mark, which must then occur
// once, and the other as thousands separators between groups of three digits; a value with one
// mark takes it as the decimal mark and it must occur once. Spaces inside ("1 234.56") are
// dropped. The result is exact.
func parseAmount(s string) (decimal.Decimal, error) {
	errBad := errors.New("is not a number")
	if len(s) > maxAmountLen {
		return decimal.Decimal{}, errors.New("is too long for an amount")
	}
	var dots, commas, last int
	var lastMark byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			dots++
			lastMark, last = '.', i
		case ',':
			commas++
			lastMark, last = ',', i
		}
	}
	if lastMark == '.' && dots > 1 || lastMark == ',' && commas > 1 {
		return decimal.Decimal{}, errBad
	}
	out := make([]byte, 0, len(s)+1)
	nd := 0
	group := -1 // digits since the last thousands separator; -1 before the first
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			out = append(out, c)
			nd++
			if group >= 0 {
				group++
			}
		case (c == '-' || c == '+') && len(out) == 0:
			if c == '-' {
				out = append(out, c)
			}
		case c == ' ':
		case i == last && (c == '.' || c == ','):
			if group >= 0 && group != 3 {
				return decimal.Decimal{}, errBad
			}
			out = append(out, '.')
			group = -2 // no separators after the decimal mark
		case c == '.' || c == ',':
			if group == -2 || group >= 0 && group != 3 || nd == 0 {
				return decimal.Decimal{}, errBad
			}
			group = 0
		default:
			return decimal.Decimal{}, errBad
		}
	}
	if nd == 0 {
		return decimal.Decimal{}, errBad
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
		return decimal.Decimal{}, errBad
	}
	return d, nil
}
