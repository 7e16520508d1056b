package tabular

import (
	"github.com/statementmatch/service/internal/statement"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// cellText returns a cell's value as a person reads it: trimmed, and unwrapped from the ="..."
// form that exports use to stop Excel from turning an account number into a number.
func cellText(s string) string {
	s = statement.TrimSpace(s)
	if len(s) >= 3 && s[0] == '=' && s[1] == '"' && s[len(s)-1] == '"' {
		s = statement.TrimSpace(s[2 : len(s)-1])
	}
	return s
}

// isEmptyValue reports a cell that holds no value: blank, or a lone dash that some exports
// (monobank's "—") print in place of an empty amount.
func isEmptyValue(s string) bool {
	switch s {
	case "", "-", "—", "–", "--":
		return true
	}
	return false
}

// foldRunes maps the letters that Unicode decomposition leaves alone to their plain Latin
// spelling, so "Beløb", "Kwota płatności" and "Straße" match their ASCII dictionary entries.
var foldRunes = map[rune]string{
	'ø': "o", 'æ': "ae", 'œ': "oe", 'ß': "ss", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i",
	'’': "'", '‘': "'", '´': "'", '`': "'",
}

// fold returns s lower-cased, without diacritics, with punctuation other than '/' turned into
// spaces and runs of spaces collapsed: the form in which header names and labels are compared.
// Cyrillic keeps its letters (й and ї become и and і).
func fold(s string) string {
	s = strings.ToLower(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		s = norm.NFD.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r == '/' || r == '+':
			// '/' separates pairs such as D/K and S/H, which are names in their own right.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		if f, ok := foldRunes[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
		space = false
	}
	return strings.TrimRight(b.String(), " ")
}

// letterShare returns the share of letters among the non-space runes of s, and how many runes
// were counted.
func letterShare(s string) (share float64, n int) {
	letters := 0
	for _, r := range s {
		if statement.IsSpace(r) {
			continue
		}
		n++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(letters) / float64(n), n
}
