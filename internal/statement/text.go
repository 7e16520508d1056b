package statement

import (
	"strings"
	"unicode/utf8"
)

// IsSpace reports whether r is white space in a statement's text: ASCII white space and the
// no-break, figure, narrow, thin and zero-width spaces and byte-order marks banks put in exports.
func IsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0xA0, 0x2007, 0x202F, 0x2009, 0x200B, 0xFEFF:
		return true
	}
	return false
}

// TrimSpace trims IsSpace runes from both ends of s, without allocating.
func TrimSpace(s string) string {
	for len(s) > 0 {
		r, n := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s)
		}
		if !IsSpace(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		r, n := rune(s[len(s)-1]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeLastRuneInString(s)
		}
		if !IsSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// CollapseSpace returns s with its ends trimmed and every run of white space made one blank.
// It returns s itself when nothing changes, so clean text costs no allocation.
func CollapseSpace(s string) string {
	s = TrimSpace(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c > ' ' && c < utf8.RuneSelf:
			continue
		case c == ' ':
			// s is trimmed, so a blank is never last.
			if n := s[i+1]; n > ' ' {
				continue
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !IsSpace(r) {
				i += n - 1
				continue
			}
		}
		return collapseSlow(s)
	}
	return s
}

func collapseSlow(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prevSpace := false
	for _, r := range s {
		if IsSpace(r) {
			prevSpace = true
			continue
		}
		if prevSpace && b.Len() > 0 {
			b.WriteByte(' ')
		}
		prevSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

// Describe makes a transaction's description from a payee or name and a memo, as OFX (NAME,
// MEMO) and QIF (P, M) give them: the memo when it already holds the name (banks repeat a
// truncated name at the start of the memo), the name when there is no memo, both otherwise,
// since banks put the words that say what a payment was in either.
func Describe(name, memo string) string {
	switch {
	case memo == "":
		return name
	case name == "" || ContainsFold(memo, name):
		return memo
	}
	return name + " / " + memo
}

// ContainsFold reports whether sub is in s, ignoring case, without allocating. Past a few
// kilobytes (no bank writes such a memo) only the exact match is tried, which keeps the time
// linear.
func ContainsFold(s, sub string) bool {
	if strings.Contains(s, sub) {
		return true
	}
	if len(s) > 4096 {
		return false
	}
	if sub == "" {
		return true
	}
	c0 := lowerASCII(sub[0])
	for i := 0; i+len(sub) <= len(s); i++ {
		// The first byte rules out most positions cheaply; a non-ASCII first byte is left to
		// EqualFold's Unicode folding.
		if (c0 >= 0x80 || lowerASCII(s[i]) == c0) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
