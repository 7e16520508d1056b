package mt940

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Charsets named in Dialect as charset=...
const (
	charsetASCII   = "ascii"
	charsetUTF8    = "utf-8"
	charsetUTF16LE = "utf-16le"
	charsetUTF16BE = "utf-16be"
	charsetCP1252  = "cp1252"
	charsetCP852   = "cp852"
)

// decode turns the file into text. MT940 is defined on the SWIFT X character set (ASCII
// letters, digits and a little punctuation), but banks send their customers' names and purposes
// in whatever their system holds: UTF-8, Windows-1252 or ISO-8859-1 in the west, CP852 (DOS
// Latin-2) from Hungarian and Czech banks. Valid UTF-8 is taken as such; other bytes are read
// as CP852 when their letters sit where CP852 keeps its accented letters, else as Windows-1252
// (a superset of ISO-8859-1's printable characters).
func decode(data []byte) (string, string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data[2:], charsetUTF16LE)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data[2:], charsetUTF16BE)
	case len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] != 0 && data[3] == 0:
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data, charsetUTF16LE)
	case len(data) >= 4 && data[0] == 0 && data[1] != 0 && data[2] == 0 && data[3] != 0:
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data, charsetUTF16BE)
	}
	i := indexNonASCII(data)
	if i < 0 {
		return string(data), charsetASCII, nil
	}
	if utf8.Valid(data[i:]) {
		return string(data), charsetUTF8, nil
	}
	if looksCP852(data[i:]) {
		return decodeWith(charmap.CodePage852, data, charsetCP852)
	}
	return decodeWith(charmap.Windows1252, data, charsetCP1252)
}

func decodeWith(enc encoding.Encoding, data []byte, name string) (string, string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", name, err
	}
	return string(out), name, nil
}

// indexNonASCII returns the index of the first byte of data at or above 0x80, or -1; eight
// bytes at a time, since most statements are pure ASCII and this runs over the whole file.
func indexNonASCII(data []byte) int {
	i := 0
	for ; i+8 <= len(data); i += 8 {
		if binary.LittleEndian.Uint64(data[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(data); i++ {
		if data[i] >= 0x80 {
			return i
		}
	}
	return -1
}

// looksCP852 weighs the non-ASCII bytes that sit inside words (next to an ASCII letter). Windows-1252
// keeps its accented letters at 0xC0-0xFF; CP852 keeps most of the Hungarian, Czech and Polish
// ones (á í ó ú é ö ő ü ą ł ...) at 0x80-0xAF, where Windows-1252 has punctuation and symbols
// that do not occur inside words. The few Windows-1252 letters down there (Š Œ Ž š œ ž Ÿ) do
// not count for CP852.
func looksCP852(data []byte) bool {
	low, high := 0, 0
	for i, c := range data {
		if c < 0x80 {
			continue
		}
		inWord := (i > 0 && isLetter(data[i-1])) || (i+1 < len(data) && isLetter(data[i+1]))
		if !inWord {
			continue
		}
		switch {
		case c >= 0xC0:
			high++
		case c == 0x8A || c == 0x8C || c == 0x8E || c == 0x9A || c == 0x9C || c == 0x9E || c == 0x9F:
			// Letters in Windows-1252 as well.
		case c <= 0xAF:
			low++
		}
	}
	return low > 0 && 2*low >= high
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
