package pdf

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Right-to-left statements (Persian, Arabic, Hebrew) draw their glyphs in visual order, left
// to right on the page, often as Arabic presentation forms (U+FB50-U+FEFF). Read in x order,
// a word comes out reversed and its letters as contextual shapes; a table reader then finds no
// header it knows. rtlCell turns a cell's visual text into reading order: presentation forms
// become the letters they shape (NFKC), and the cell's runs of right-to-left text are
// reversed, as is their order, while runs of digits and Latin text inside keep their own
// left-to-right order (an account number, a date, an amount).

// isRTL reports a letter of a right-to-left script.
func isRTL(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana)
}

// isLTRStrong reports a character that keeps left-to-right order inside right-to-left
// text: digits of any script, Latin and other left-to-right letters, and the marks of a
// number (separators between digits are taken with them).
func isLTRStrong(r rune) bool {
	return unicode.IsDigit(r) || (unicode.IsLetter(r) && !isRTL(r))
}

// rtlCell returns the reading order of a cell drawn in visual order, or s unchanged when it
// holds no right-to-left letters.
func rtlCell(s string) string {
	// Right-to-left scripts start at U+0590, whose UTF-8 lead byte is 0xD6: text without
	// such a byte (every Latin statement) is returned at once.
	fast := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xD6 {
			fast = false
			break
		}
	}
	if fast || !strings.ContainsFunc(s, isRTL) {
		return s
	}
	s = norm.NFKC.String(s)
	rs := []rune(s)
	// Split into runs: left-to-right runs (digits, Latin, with the separators between their
	// characters), and everything else.
	type span struct {
		from, to int
		ltr      bool
	}
	var spans []span
	for i := 0; i < len(rs); {
		j := i
		if isLTRStrong(rs[i]) {
			for j < len(rs) && (isLTRStrong(rs[j]) || (j+1 < len(rs) && isLTRStrong(rs[j+1]) && strings.ContainsRune(".,/:-'٫٬", rs[j]))) {
				j++
			}
			spans = append(spans, span{i, j, true})
		} else {
			for j < len(rs) && !isLTRStrong(rs[j]) {
				j++
			}
			spans = append(spans, span{i, j, false})
		}
		i = j
	}
	var b strings.Builder
	b.Grow(len(s))
	for k := len(spans) - 1; k >= 0; k-- {
		sp := spans[k]
		if sp.ltr {
			b.WriteString(string(rs[sp.from:sp.to]))
			continue
		}
		for i := sp.to - 1; i >= sp.from; i-- {
			r := rs[i]
			switch r { // mirrored pairs keep their meaning in reversed text
			case '(':
				r = ')'
			case ')':
				r = '('
			case '[':
				r = ']'
			case ']':
				r = '['
			}
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// asciiDigits writes Persian and Arabic-Indic digits, and the Arabic decimal and thousands
// separators, as the ASCII ones the table reader parses: ۱۴۰۱/۰۷/۰۳, ٢٥٠٫٧٥.
func asciiDigits(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x660 && r <= 0x6F9 }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '٠' && r <= '٩':
			return '0' + (r - '٠')
		case r >= '۰' && r <= '۹':
			return '0' + (r - '۰')
		case r == '٫':
			return '.'
		case r == '٬':
			return ','
		}
		return r
	}, s)
}

// ligatures writes the typographic ligatures fonts draw as one glyph (ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ, ﬆ)
// as their letters, so that "Saldo ﬁnal" reads as the label it is.
func ligatures(s string) string {
	// U+FB00-U+FB06 are EF AC 80-86 in UTF-8.
	if !strings.Contains(s, "\xef\xac") {
		return s
	}
	return strings.NewReplacer("ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st").Replace(s)
}
