package mt940

import (
	"bytes"
	"strings"
)

// clean makes a text field fit for a person: tabs, line breaks and other control characters
// become spaces, soft hyphens (U+00AD, which ING scatters through dates) and byte-order marks
// go, runs of spaces collapse to one and the ends are trimmed. Text that is already clean is
// returned as is, without a copy: most fields are.
func clean(s string) string {
	if isClean(s) {
		return s
	}
	return string(cleanAppend(nil, s, false))
}

// Byte classes for clean: plain bytes are copied as they are; spaces and control characters
// become one space; lead bytes of the multi-byte characters clean removes need a closer look.
const (
	plain = iota
	blank
	special
)

var byteClass = func() (c [256]uint8) {
	for b := 0; b <= ' '; b++ {
		c[b] = blank
	}
	c[0x7F] = blank
	c[0xC2], c[0xE2], c[0xEF] = special, special, special
	return c
}()

// cleanAppend appends s to dst the way clean cleans it, without a trailing space; sep asks for
// a space between what dst holds and the first visible character of s. It copies runs of plain
// bytes at once and matches the few multi-byte characters it removes by their UTF-8 bytes, so
// it needs no decoding.
func cleanAppend[T string | []byte](dst []byte, s T, sep bool) []byte {
	space := sep
	for i := 0; i < len(s); {
		switch byteClass[s[i]] {
		case plain:
			k := i + 1
			for k < len(s) && byteClass[s[k]] == plain {
				k++
			}
			if space && len(dst) > 0 {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, s[i:k]...)
			i = k
			continue
		case blank:
			space = true
			i++
			continue
		}
		// A lead byte of a character clean may remove.
		switch c := s[i]; {
		case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xAD:
			i += 2 // soft hyphen: invisible, so "10<SHY>-06" reads "10-06"
			continue
		case c == 0xC2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0xA0:
			i += 2 // C1 control or no-break space
			space = true
			continue
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x8B:
			i += 3 // zero-width space
			continue
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9):
			i += 3 // line and paragraph separators
			space = true
			continue
		case c == 0xEF && i+2 < len(s) && s[i+1] == 0xBB && s[i+2] == 0xBF:
			i += 3 // byte-order mark
			continue
		}
		if space && len(dst) > 0 {
			dst = append(dst, ' ')
		}
		space = false
		dst = append(dst, s[i])
		i++
	}
	return dst
}

// isClean reports whether clean would return s unchanged: no space at either end, no two
// spaces in a row, and no other byte that clean changes.
func isClean(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if byteClass[c] == plain {
			continue
		}
		// A single space between words (never the first byte: checked above) is clean; so is
		// nothing else clean would change: control characters and the lead bytes of the
		// characters it removes, C2 (C1 controls, no-break space, soft hyphen), E2 (separators,
		// zero-width space), EF (BOM).
		if c != ' ' || s[i-1] == ' ' {
			return false
		}
	}
	return true
}

// indexEOL returns the index of the first CR or LF in s, or -1: two vectorised scans, cheaper
// than strings.IndexAny for a set it must build on every call.
func indexEOL(s string) int {
	i := strings.IndexByte(s, '\n')
	head := s
	if i >= 0 {
		head = s[:i]
	}
	if j := strings.IndexByte(head, '\r'); j >= 0 {
		return j
	}
	return i
}

// joinWords joins the non-empty parts with single spaces.
func joinWords(parts ...string) string {
	n := 0
	var one string
	for _, p := range parts {
		if p != "" {
			n++
			one = p
		}
	}
	if n <= 1 {
		return one
	}
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// trimSpace trims ASCII white space and line breaks, cheaper than strings.TrimSpace for the
// ASCII text MT940 mostly is.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n' || s[j-1] == '\r') {
		j--
	}
	return s[i:j]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// atoi reads a short run of ASCII digits the caller has checked.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// isBIC reports whether s has the shape of a BIC: four letters of bank code, two of country,
// two alphanumerics of location and an optional three of branch.
func isBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	for i := 0; i < 6; i++ {
		if !isUpper(s[i]) {
			return false
		}
	}
	for i := 6; i < len(s); i++ {
		if !isDigit(s[i]) && !isUpper(s[i]) {
			return false
		}
	}
	return true
}

// shortBIC drops the head-office branch code XXX, so that a BIC reads the same whether a file
// gives it with 8 or 11 characters.
func shortBIC(bic string) string {
	if len(bic) == 11 && bic[8:] == "XXX" {
		return bic[:8]
	}
	return bic
}

// isIBAN reports whether s (without spaces) is an IBAN: country, check digits, and a
// basic bank account number that passes the ISO 13616 mod-97 check.
func isIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !isUpper(s[0]) || !isUpper(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	rem := 0
	add := func(c byte) bool {
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isUpper(c):
			v := int(c-'A') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
		return true
	}
	for i := 4; i < len(s); i++ {
		if !add(s[i]) {
			return false
		}
	}
	for i := 0; i < 4; i++ {
		add(s[i])
	}
	return rem == 1
}

// isIBANShape reports whether s looks like an IBAN (country, check digits, letters and digits)
// without checking its check digits: where a file puts an account, a mistyped or made-up IBAN
// is still the account it states.
func isIBANShape(s string) bool {
	if len(s) < 15 || len(s) > 34 || !isUpper(s[0]) || !isUpper(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	for i := 4; i < len(s); i++ {
		if !isDigit(s[i]) && !isUpper(s[i]) {
			return false
		}
	}
	return true
}

// compactAccount removes the spaces and line breaks an account number was wrapped or grouped with.
func compactAccount[T string | []byte](s T) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\n' || s[j-1] == '\r' || s[j-1] == '\t') {
		j--
	}
	s = s[i:j]
	spaced := false
	for k := 0; k < len(s); k++ {
		if c := s[k]; c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			spaced = true
			break
		}
	}
	if !spaced {
		return string(s)
	}
	b := make([]byte, 0, len(s))
	for k := 0; k < len(s); k++ {
		if c := s[k]; c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			b = append(b, c)
		}
	}
	return string(b)
}

// currencies are the ISO 4217 codes in use, so that three letters at the end of a :25:
// account ("1291.99.348EUR") are only taken for a currency when they are one.
const currencies = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD " +
	"BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DEM DJF DKK DOP DZD EGP ERN ETB EUR FJD " +
	"FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES " +
	"KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR " +
	"MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR " +
	"SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS " +
	"UAH UGX USD UYU UZS VES VND VUV WST XAF XAG XAU XCD XOF XPF YER ZAR ZMW ZWL ATS BEF ESP FIM FRF " +
	"IEP ITL LUF NLG PTE GRD"

// isCurrency reports whether s is an ISO 4217 code (current, or a legacy one such as DEM that old
// German statements still carry).
func isCurrency(s string) bool {
	if len(s) != 3 || !isUpper(s[0]) || !isUpper(s[1]) || !isUpper(s[2]) {
		return false
	}
	for i := 0; i+3 <= len(currencies); i += 4 {
		if currencies[i:i+3] == s {
			return true
		}
	}
	return false
}

// isCurrencyShape reports whether s is three capital letters, what SWIFT puts where a currency
// goes; the balance fields take any such code, the :25: suffix only a known one.
func isCurrencyShape(s string) bool {
	return len(s) == 3 && isUpper(s[0]) && isUpper(s[1]) && isUpper(s[2])
}

// runeLen counts the characters of s (the SWIFT line and subfield lengths count characters):
// the bytes that do not continue a UTF-8 sequence.
func runeLen[T string | []byte](s T) int {
	n, i := 0, 0
	// Eight bytes at a time while they are ASCII, as nearly all MT940 text is.
	for ; i+8 <= len(s); i += 8 {
		if (s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7])&0x80 != 0 {
			break
		}
		n += 8
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// indexByte returns the index of the first c in s, or -1: the standard library's vectorised
// search for either kind of text.
func indexByte[T string | []byte](s T, c byte) int {
	switch v := any(s).(type) {
	case string:
		return strings.IndexByte(v, c)
	case []byte:
		return bytes.IndexByte(v, c)
	}
	panic("unreachable")
}
