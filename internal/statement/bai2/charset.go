package bai2

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/statementmatch/service/internal/statement"
)

// decode returns the file as UTF-8 text and the name of the charset it was in. BAI2 is ASCII
// by specification; banks add UTF-8 or Windows-1252 text, a byte-order mark or UTF-16 from
// Windows tools, and mainframes send EBCDIC (code page 037), found by "01," in EBCDIC.
func decode(data []byte) (string, string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return decodeUTF8(data[3:], "utf-8")
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data[2:], "utf-16le")
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data[2:], "utf-16be")
	case len(data) >= 4 && data[0] == '0' && data[1] == 0 && data[2] == '1' && data[3] == 0:
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data, "utf-16le")
	case len(data) >= 4 && data[0] == 0 && data[1] == '0' && data[2] == 0 && data[3] == '1':
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data, "utf-16be")
	case bytes.HasPrefix(data, []byte{0xF0, 0xF1, 0x6B}):
		s, cs, err := decodeWith(charmap.CodePage037, data, "ebcdic-037")
		// EBCDIC ends lines with NL (0x15), which code page 037 maps to U+0085.
		return strings.ReplaceAll(s, "\u0085", "\n"), cs, err
	}
	return decodeUTF8(data, "")
}

// decodeUTF8 returns data as is when it is ASCII or UTF-8, and read as Windows-1252 otherwise
// (the usual charset of Western bank text that is not UTF-8).
func decodeUTF8(data []byte, name string) (string, string, error) {
	ascii := isASCII(data)
	switch {
	case ascii && name == "":
		return string(data), "ascii", nil
	case ascii || utf8.Valid(data):
		return string(data), "utf-8", nil
	}
	return decodeWith(charmap.Windows1252, data, "windows-1252")
}

func decodeWith(enc encoding.Encoding, data []byte, name string) (string, string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", name, statement.Errorf(statement.FormatBAI2, statement.ErrCorrupt, statement.Position{},
			"the file cannot be read as %s: %v", name, err)
	}
	return string(out), name, nil
}

// isASCII reports whether every byte of data is below 0x80, eight bytes at a time.
func isASCII(data []byte) bool {
	const high = 0x8080808080808080
	for len(data) >= 8 {
		if binary.LittleEndian.Uint64(data)&high != 0 {
			return false
		}
		data = data[8:]
	}
	for _, c := range data {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
