package mt940

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// trickyText is what texts in a :86: are made of, and what clean must notice: spaces, tabs and
// line breaks, soft hyphens, no-break and zero-width spaces, byte-order marks, umlauts, and the
// other characters of the lead bytes clean looks at (C2 A3 is £, which stays).
var trickyText = []string{"a", "Z", "7", " ", "  ", "\t", "\n", "\r", "\u00ad", "\u00a0", "\u200b", "\u2028", "\ufeff", "ü", "£", "€", "\x7f", "\x01"}

// TestIsCleanAgreesWithClean: a text isClean accepts is one clean leaves as it is, and isClean
// accepts every such text made only of ASCII and umlauts (it may send texts with other
// multi-byte characters to the copying path, which must then give them back unchanged).
func TestIsCleanAgreesWithClean(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		var b strings.Builder
		for k := r.IntN(8); k >= 0; k-- {
			b.WriteString(trickyText[r.IntN(len(trickyText))])
		}
		s := b.String()
		cleaned := string(cleanAppend(nil, s, false))
		if isClean(s) {
			require.Equal(t, s, cleaned, "isClean(%q), but clean changes it", s)
		} else if cleaned == s {
			require.True(t, strings.ContainsAny(s, "£€\u00a0\u2028\u200b\ufeff\u00ad"), "%q is clean, isClean says not", s)
		}
		require.Equal(t, cleaned, clean(s))
		require.True(t, utf8.ValidString(clean(s)), "%q", s)
	}
}

// TestRuneLen counts characters eight ASCII bytes at a time and one by one past the first
// multi-byte character, wherever it falls.
func TestRuneLen(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "Müller", "abcdefgMüller", "abcdefghMüller GmbH und Co KG", strings.Repeat("ß", 9), strings.Repeat("x", 64) + "€"} {
		require.Equal(t, utf8.RuneCountInString(s), runeLen(s), "%q", s)
		require.Equal(t, utf8.RuneCountInString(s), runeLen([]byte(s)), "%q", s)
	}
}
