package csv

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/statementmatch/service/internal/statement/tabular"
)

// Character sets named in the Dialect.
const (
	charsetUTF8      = "utf-8"
	charsetUTF8BOM   = "utf-8-bom"
	charsetUTF8Lossy = "utf-8-lossy"
	charsetUTF16LE   = "utf-16le"
	charsetUTF16BE   = "utf-16be"
)

// singleByte are the 8-bit character sets tried when a file is not UTF-8, in order of
// preference when they read a file equally well: Western and Central European Windows code
// pages, Cyrillic, the ISO Latin-2 set and the DOS Latin-2 code page (CP852) that older
// Czech, Slovak, Polish and Hungarian bank software writes.
var singleByte = []struct {
	name string
	cm   *charmap.Charmap
}{
	{"windows-1252", charmap.Windows1252},
	{"windows-1250", charmap.Windows1250},
	{"windows-1251", charmap.Windows1251},
	{"iso-8859-2", charmap.ISO8859_2},
	{"cp852", charmap.CodePage852},
}

// decode returns the file's text as UTF-8 and the name of the character set it was in.
func decode(data []byte) (string, string) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return validUTF8(data[3:]), charsetUTF8BOM
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data[2:], xunicode.LittleEndian), charsetUTF16LE
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data[2:], xunicode.BigEndian), charsetUTF16BE
	}
	if e, ok := utf16ByNULs(data); ok {
		name := charsetUTF16LE
		if e == xunicode.BigEndian {
			name = charsetUTF16BE
		}
		return decodeUTF16(data, e), name
	}
	if utf8.Valid(data) {
		return string(data), charsetUTF8
	}
	if mostlyUTF8(data) {
		return strings.ToValidUTF8(string(data), "\uFFFD"), charsetUTF8Lossy
	}
	best, bestScore := 0, 0
	sample := data[:min(len(data), 64<<10)]
	for i, cs := range singleByte {
		if s := scoreCharset(sample, cs.cm); i == 0 || s > bestScore {
			best, bestScore = i, s
		}
	}
	cs := singleByte[best]
	name := cs.name
	if name == "windows-1252" && !hasC1(data) {
		// Without bytes 0x80-0x9F the file is ISO-8859-1 as much as Windows-1252, and
		// ISO-8859-1 is what such exports declare.
		name = "iso-8859-1"
	}
	return decodeSingleByte(data, cs.cm), name
}

func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func decodeUTF16(b []byte, e xunicode.Endianness) string {
	var enc encoding.Encoding = xunicode.UTF16(e, xunicode.IgnoreBOM)
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return ""
	}
	return validUTF8(out)
}

// utf16ByNULs recognises UTF-16 without a byte order mark by its NUL bytes: text in the Latin
// range has a NUL in every other byte, after the character (little endian) or before it.
func utf16ByNULs(data []byte) (xunicode.Endianness, bool) {
	n := min(len(data), 4096) &^ 1
	if n < 4 {
		return xunicode.LittleEndian, false
	}
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			even++
		}
		if data[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	switch {
	case odd*10 >= pairs*4 && even*20 < pairs:
		return xunicode.LittleEndian, true
	case even*10 >= pairs*4 && odd*20 < pairs:
		return xunicode.BigEndian, true
	}
	return xunicode.LittleEndian, false
}

// mostlyUTF8 reports a UTF-8 file with a few broken bytes: many valid multi-byte characters
// and few invalid bytes. An 8-bit file seldom forms valid multi-byte sequences by chance.
func mostlyUTF8(data []byte) bool {
	valid, invalid := 0, 0
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			invalid++
			i++
			continue
		}
		valid++
		i += n
	}
	return valid > 0 && invalid*10 <= valid
}

func hasC1(data []byte) bool {
	for _, b := range data {
		if b >= 0x80 && b <= 0x9F {
			return true
		}
	}
	return false
}

// decodeSingleByte converts 8-bit text to UTF-8 in one allocation.
func decodeSingleByte(data []byte, cm *charmap.Charmap) string {
	var table [256]rune
	for i := range table {
		table[i] = cm.DecodeByte(byte(i))
	}
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	start := 0
	for i, c := range data {
		if c < utf8.RuneSelf {
			continue
		}
		b.Write(data[start:i])
		b.WriteRune(table[c])
		start = i + 1
	}
	b.Write(data[start:])
	return b.String()
}

// Scripts and alphabets for scoring a decoding: a word reads as a word when all its letters
// beyond ASCII belong to one language's alphabet.
var alphabets = []string{
	"äöüß",              // German
	"àâæçéèêëîïôœùûüÿ",  // French
	"áéíñóúü",           // Spanish
	"áàâãçéêíóôõú",      // Portuguese
	"àèéìòù",            // Italian
	"áéëïóöüè",          // Dutch
	"æøåé",              // Danish, Norwegian
	"åäöé",              // Swedish, Finnish
	"áčďéěíňóřšťúůýž",   // Czech
	"áäčďéíĺľňóôŕšťúýž", // Slovak
	"ąćęłńóśźż",         // Polish
	"áéíóöőúüű",         // Hungarian
	"čćđšž",             // Croatian, Slovenian
	"ăâîșşțţ",           // Romanian
	"ąčęėįšųūž",         // Lithuanian
	"āčēģīķļņšūž",       // Latvian
	"äöõüšž",            // Estonian
	"çğıöşüâî",          // Turkish
	"áðéíóúýþæö",        // Icelandic
	"абвгґдеєжзиіїйклмнопрстуфхцчшщьюя", // Ukrainian
	"абвгдеёжзийклмнопрстуфхцчшщъыьэюя", // Russian
}

// cyrillicLangs marks the alphabets whose words have no Latin letters.
const cyrillicLangs = uint32(1)<<19 | uint32(1)<<20

var (
	letterLangs = func() map[rune]uint32 {
		m := map[rune]uint32{}
		for i, a := range alphabets {
			for _, r := range a {
				m[r] |= 1 << uint(i)
			}
		}
		return m
	}()
	latinLangs = func() uint32 {
		var all uint32
		for i := range alphabets {
			all |= 1 << uint(i)
		}
		return all &^ cyrillicLangs
	}()
)

// okSymbols are non-letters that text in any of these languages uses.
const okSymbols = "\u00a0€£§°«»„“”‘’‚–—…•·²³µ×№©®¢¥±½¼¾\u00ad¤"

// scoreCharset scores how well sample reads in cm: letters that form words of one language
// score, words that mix alphabets or change case inside cost, and control characters and
// unusual symbols cost; the header row's names, when some read as known column names, score
// most.
func scoreCharset(sample []byte, cm *charmap.Charmap) int {
	text := decodeSingleByte(sample, cm)
	score := 0
	var mask uint32
	nonASCII, lower := 0, false
	bad := false
	endWord := func() {
		if nonASCII > 0 {
			if mask != 0 && !bad {
				score += nonASCII
			} else {
				score -= 3 * nonASCII
			}
		}
		mask, nonASCII, lower, bad = latinLangs|cyrillicLangs, 0, false, false
	}
	endWord()
	for _, r := range text {
		if unicode.IsLetter(r) {
			// A capital beyond ASCII inside a lower-case word ("zaúÈtování") is a misread
			// letter; capitals among ASCII letters are common in masked and coded text.
			if r >= utf8.RuneSelf && unicode.IsUpper(r) && lower {
				bad = true
			}
			lower = unicode.IsLower(r)
			l := unicode.ToLower(r)
			if r < utf8.RuneSelf {
				mask &= latinLangs
				continue
			}
			nonASCII++
			mask &= letterLangs[l]
			continue
		}
		endWord()
		switch {
		case r < utf8.RuneSelf:
		case r >= 0x80 && r <= 0x9F, r == utf8.RuneError:
			score -= 5
		case strings.ContainsRune(okSymbols, r):
		case r >= 0x2500 && r <= 0x259F:
			score -= 4 // box drawing: DOS code pages read as something they are not
		default:
			score -= 2
		}
	}
	endWord()
	// Column names are the surest sign: try the first lines split at each delimiter.
	lines := strings.SplitN(text, "\n", 12)
	bestHeader := 0
	for _, line := range lines[:min(len(lines), 10)] {
		for _, d := range []string{";", ",", "\t", "|"} {
			cells := strings.Split(line, d)
			for i := range cells {
				cells[i] = strings.Trim(cells[i], "\" \r")
			}
			bestHeader = max(bestHeader, tabular.HeaderMatches(cells))
		}
	}
	return score + 20*bestHeader
}
