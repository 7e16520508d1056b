package tabular

import (
	"github.com/statementmatch/service/internal/statement"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// numScan is an amount cell taken apart before the file's decimal mark is decided: the digits
// with their separators, and what surrounded them.
type numScan struct {
	// core holds digits and the separators between them: "1.234,56", "1 234.56", ".23".
	core string
	neg  bool
	// signed says the cell wrote its sign: '+', '-', parentheses, CR or DR.
	signed bool
	// currency is the ISO code a symbol or code next to the number stood for.
	currency string
	// mark is 'C' or 'D' when the number carried a CR or DR mark.
	mark byte
}

// maxDigits bounds the digits of an amount; longer runs are identifiers, not money.
const maxDigits = 40

// currencySymbols maps symbols that name one currency only. "$", "¥" and "kr" name several, so
// they are read as signs of money but give no currency.
var currencySymbols = map[string]string{
	"€": "EUR", "£": "GBP", "₴": "UAH", "₽": "RUB", "₹": "INR", "₩": "KRW", "₪": "ILS", "₺": "TRY",
	"zł": "PLN", "Kč": "CZK", "Ft": "HUF", "US$": "USD", "R$": "BRL", "S$": "SGD", "A$": "AUD",
	"C$": "CAD", "NZ$": "NZD", "HK$": "HKD", "$": "", "¥": "", "kr": "", "kr.": "", "Lt": "LTL",
	"грн": "UAH", "руб": "RUB", "Fr.": "CHF", "лв": "BGN", "lei": "RON", "Lei": "RON", "LEI": "RON",
}

// symbolsByLength lists currencySymbols longest first, so "US$" is not read as "U" then "S$".
var symbolsByLength = func() []string {
	syms := make([]string, 0, len(currencySymbols))
	for sym := range currencySymbols {
		syms = append(syms, sym)
	}
	sort.Slice(syms, func(i, j int) bool {
		if len(syms[i]) != len(syms[j]) {
			return len(syms[i]) > len(syms[j])
		}
		return syms[i] < syms[j]
	})
	return syms
}()

// takeCurrency strips a currency symbol or ISO code from the start of s.
func takeCurrency(s string) (rest, code string, ok bool) {
	if len(s) >= 3 && isUpper(s[0]) && isUpper(s[1]) && isUpper(s[2]) && isCurrencyCode(s[:3]) {
		if len(s) == 3 || !isASCIILetter(s[3]) {
			return s[3:], s[:3], true
		}
	}
	for _, sym := range symbolsByLength {
		if !strings.HasPrefix(s, sym) {
			continue
		}
		rest := s[len(sym):]
		// A symbol made of letters must stand alone: "kr" but not "krona".
		if isASCIILetter(sym[len(sym)-1]) && rest != "" && isASCIILetter(rest[0]) {
			continue
		}
		return rest, currencySymbols[sym], true
	}
	return s, "", false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// scanNumber reads a cell as an amount: an optional sign, currency symbol or code, digits with
// separators, then optionally a currency, a trailing sign, or CR/DR. It returns false for
// anything else, such as "8.10 SGD @ .9765" or "2020-02-20".
func scanNumber(s string) (numScan, bool) {
	var n numScan
	s = statement.TrimSpace(s)
	if s == "" {
		return n, false
	}
	if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		n.neg, n.signed = true, true
		s = statement.TrimSpace(s[1 : len(s)-1])
	}
	// Prefix: signs, currency, spaces, in any order ("- $21.59", "-$76.00", "EUR -5,00").
	signs := 0
	for s != "" {
		c := s[0]
		switch {
		case c == '-' || c == '+':
			signs++
			n.signed = true
			n.neg = n.neg != (c == '-')
			s = s[1:]
			continue
		case c == ' ':
			s = s[1:]
			continue
		case strings.HasPrefix(s, "−"): // U+2212 minus sign
			signs++
			n.signed, n.neg = true, !n.neg
			s = s[len("−"):]
			continue
		case isDigit(c) || c == '.' || c == ',':
		default:
			rest, code, ok := takeCurrency(s)
			if !ok || n.currency != "" {
				return n, false
			}
			n.currency, s = code, rest
			if code == "" {
				n.currency = "?"
			}
			continue
		}
		break
	}
	if signs > 1 {
		return n, false
	}
	// Core: digits and separators. A space belongs to the number only between digits.
	i, nd := 0, 0
	for i < len(s) {
		c := s[i]
		if isDigit(c) {
			nd++
			i++
			continue
		}
		if c == '.' || c == ',' || c == '\'' {
			if i+1 < len(s) && isDigit(s[i+1]) {
				i++
				continue
			}
			break
		}
		if c == ' ' && nd > 0 && i+1 < len(s) && isDigit(s[i+1]) {
			i++
			continue
		}
		if c >= utf8.RuneSelf && nd > 0 {
			r, w := utf8.DecodeRuneInString(s[i:])
			if (r == 0xA0 || r == 0x202F || r == 0x2009 || r == '’') && i+w < len(s) && isDigit(s[i+w]) {
				i += w
				continue
			}
		}
		break
	}
	if nd == 0 || nd > maxDigits {
		return n, false
	}
	n.core = s[:i]
	s = s[i:]
	// A decimal mark with no digits after it, as in "500." or "203,".
	if s != "" && (s[0] == '.' || s[0] == ',') && (len(s) == 1 || s[1] == ' ') {
		s = s[1:]
	}
	// Suffix: currency, trailing sign, CR/DR.
	for s != "" {
		c := s[0]
		switch {
		case c == ' ':
			s = s[1:]
		case c == '-' || c == '+':
			if signs > 0 {
				return n, false
			}
			signs++
			n.signed, n.neg = true, n.neg != (c == '-')
			s = s[1:]
		case (c == 'C' || c == 'c') && len(s) >= 2 && (s[1] == 'R' || s[1] == 'r') && (len(s) == 2 || s[2] == ' '):
			n.signed, n.mark = true, 'C'
			s = s[2:]
		case len(s) == 1 && (c == 'S' || c == 'D' || c == 'H' || c == 'C'):
			// German Soll/Haben and Dutch, Brazilian debet/credit marks: "73,39 S", "12,00 D".
			n.signed = true
			if c == 'S' || c == 'D' {
				n.neg, n.mark = true, 'D'
			} else {
				n.mark = 'C'
			}
			s = s[1:]
		case (c == 'D' || c == 'd') && len(s) >= 2 && (s[1] == 'R' || s[1] == 'r') && (len(s) == 2 || s[2] == ' '):
			// DR makes the amount a debit, also where a minus already says so ("-15.62 Dr").
			n.signed, n.neg, n.mark = true, true, 'D'
			s = s[2:]
		default:
			rest, code, ok := takeCurrency(s)
			if !ok || n.currency != "" {
				return n, false
			}
			n.currency, s = code, rest
			if code == "" {
				n.currency = "?"
			}
		}
	}
	if n.currency == "?" {
		n.currency = ""
	}
	return n, true
}

// markEvidence is what one amount says about the file's decimal mark.
type markEvidence uint8

const (
	// evNone: an integer, which fits either mark.
	evNone markEvidence = iota
	evPoint
	evComma
	// evAmbiguousPoint and evAmbiguousComma: one separator followed by exactly three digits,
	// "1.234" or "1,234", which is a thousand or one and a bit depending on the mark.
	evAmbiguousPoint
	evAmbiguousComma
)

// evidence classifies the amount's separators.
func (n numScan) evidence() markEvidence {
	dots, commas, lastDot, lastComma, lastGroup := 0, 0, -1, -1, -1
	for i := 0; i < len(n.core); i++ {
		switch c := n.core[i]; {
		case c == '.':
			dots++
			lastDot = i
		case c == ',':
			commas++
			lastComma = i
		case !isDigit(c):
			lastGroup = i // a space, apostrophe or no-break space: only ever a thousands separator
		}
	}
	switch {
	case dots == 0 && commas == 0:
		return evNone
	case lastGroup > max(lastDot, lastComma):
		// A thousands separator after the last point or comma ("1,00 000", "1.234 567"): no
		// decimals follow a decimal mark, so that point or comma groups thousands too.
		if lastComma > lastDot {
			return evPoint
		}
		return evComma
	case dots > 0 && commas > 0:
		if lastComma > lastDot {
			return evComma
		}
		return evPoint
	case dots > 1:
		return evComma // 1.234.567: dots group thousands
	case commas > 1:
		return evPoint
	}
	p, c := lastDot, byte('.')
	if dots == 0 {
		p, c = lastComma, ','
	}
	after := len(n.core) - p - 1
	before := 0
	for i := p - 1; i >= 0 && isDigit(n.core[i]); i-- {
		before++
	}
	if after == 3 && before >= 1 && before <= 3 && n.core[0] != '0' {
		if c == '.' {
			return evAmbiguousPoint
		}
		return evAmbiguousComma
	}
	if c == '.' {
		return evPoint
	}
	return evComma
}

// value reads the amount with mark as the decimal mark; the other of '.' and ',' and any
// space or apostrophe group thousands (in groups of three, or two for Indian lakhs). It returns
// false when the digits do not fit that reading, such as "1,5" when the mark is '.'.
func (n numScan) value(mark byte) (decimal.Decimal, bool) {
	core := n.core
	var mant uint64
	sig, scale := 0, 0
	seenMark := false
	group := -1 // digits since the last grouping separator; -1 before any
	lead := 0   // digits before the first separator
	slow := false
	for i := 0; i < len(core); {
		c := core[i]
		switch {
		case isDigit(c):
			if seenMark {
				scale++
			}
			if group >= 0 {
				group++
			} else if !seenMark {
				lead++
			}
			if sig > 0 || c != '0' {
				sig++
			}
			if sig <= 18 {
				mant = mant*10 + uint64(c-'0')
			} else {
				slow = true
			}
			i++
			continue
		case c == mark:
			if seenMark || (group >= 0 && group != 3) {
				return decimal.Decimal{}, false
			}
			seenMark = true
			group = -1
		default:
			// A grouping separator: not after the mark, and between whole groups.
			if seenMark || (group >= 0 && group != 3 && group != 2) || (group < 0 && (lead == 0 || lead > 3 || core[0] == '0')) {
				return decimal.Decimal{}, false
			}
			group = 0
		}
		if c < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRuneInString(core[i:])
			i += w
		}
	}
	if group >= 0 && group != 3 {
		return decimal.Decimal{}, false
	}
	if slow {
		var b strings.Builder
		if n.neg {
			b.WriteByte('-')
		}
		intPart := true
		for i := 0; i < len(core); i++ {
			c := core[i]
			if isDigit(c) {
				b.WriteByte(c)
			} else if c == mark && intPart {
				b.WriteByte('.')
				intPart = false
			}
		}
		d, err := decimal.NewFromString(b.String())
		return d, err == nil
	}
	v := int64(mant)
	if n.neg {
		v = -v
	}
	return decimal.New(v, -int32(scale)), true
}

// isCurrencyCode reports an ISO 4217 code, current or recently replaced (LTL, LVL, EEK still
// appear in old statements).
func isCurrencyCode(s string) bool {
	return currencyCodeSet[s]
}

var currencyCodeSet = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(currencyCodes) {
		m[c] = true
	}
	return m
}()

const currencyCodes = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN " +
	"BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EEK EGP ERN ETB EUR FJD FKP GBP " +
	"GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF " +
	"KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LTL LVL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN " +
	"MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG " +
	"SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS " +
	"VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW ZWL "

// commonCurrencies are the codes accepted inside a header name ("Amount CZK", "Withdrawals
// (SGD)"): codes that are also words ("ALL", "TOP", "TRY") are left out.
var commonCurrencies = map[string]bool{
	"EUR": true, "USD": true, "GBP": true, "CHF": true, "PLN": true, "CZK": true, "HUF": true,
	"SEK": true, "NOK": true, "DKK": true, "UAH": true, "RUB": true, "LTL": true, "LVL": true,
	"EEK": true, "SGD": true, "AUD": true, "NZD": true, "CAD": true, "JPY": true, "CNY": true,
	"HKD": true, "INR": true, "BRL": true, "MXN": true, "ZAR": true, "RON": true, "BGN": true,
	"HRK": true, "ISK": true, "ILS": true, "KRW": true, "THB": true, "MYR": true, "IDR": true,
	"PHP": true, "AED": true, "SAR": true, "RSD": true, "BYN": true, "KZT": true, "GEL": true,
}

// currencyOf returns the ISO code a currency cell names: a code in any case, or a symbol.
func currencyOf(s string) string {
	s = statement.TrimSpace(s)
	if len(s) == 3 {
		u := strings.ToUpper(s)
		if isCurrencyCode(u) {
			return u
		}
	}
	if c, ok := currencySymbols[s]; ok {
		return c
	}
	return ""
}
