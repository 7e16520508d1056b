package httpkit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DisplayText returns text a client sent (a file name, a webhook's description) fit to be shown
// back in a list: without control characters, invalid UTF-8 or bidirectional controls (with
// which "\u202egpj.csv" shows as "csv.jpg", and one entry of a list can reorder what follows
// it), and without surrounding spaces.
func DisplayText(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, s))
}
