package ofx

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// unBOM strips a UTF-8 byte-order mark and decodes UTF-16 (with a byte-order mark, or
// recognised by the NUL bytes of ASCII text). utf16 names the UTF-16 variant, else "".
func unBOM(data []byte) (text []byte, utf16 string) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:], ""
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		enc, utf16, data = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le", data[2:]
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		enc, utf16, data = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be", data[2:]
	case len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] != 0 && data[3] == 0:
		enc, utf16 = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le"
	case len(data) >= 4 && data[0] == 0 && data[1] != 0 && data[2] == 0 && data[3] != 0:
		enc, utf16 = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be"
	default:
		return data, ""
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		// The UTF-16 decoder replaces what it cannot decode; an error here means no UTF-16.
		return data, ""
	}
	return out, utf16
}

// charsetName returns the canonical name of a charset declared by an OFX 1.x CHARSET or
// ENCODING header or an OFX 2.x XML declaration, "" for none (NONE, US-ASCII).
func charsetName(label string) string {
	l := strings.ToLower(strings.TrimSpace(label))
	switch l {
	case "", "none", "usascii", "us-ascii", "ascii", "unicode":
		return ""
	case "1252", "windows-1252", "cp1252", "cp-1252", "win1252":
		return "windows-1252"
	case "iso-8859-1", "8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1":
		return "iso-8859-1"
	case "utf-8", "utf8":
		return "utf-8"
	}
	return l
}

// decode returns text as UTF-8 and the charset it was read in. A body that is valid UTF-8 is
// read as UTF-8 whatever the header declares: banks (Banco do Brasil) declare CHARSET:1252 and
// write UTF-8, and a single-byte text with accented letters is almost never valid UTF-8 by
// accident. Otherwise the declared charset decodes it, Windows-1252 when none is declared or
// the declaration is unknown. ISO-8859-1 is decoded as Windows-1252, its superset in practice:
// the C1 controls that differ are never meant in a statement.
func decode(text []byte, declared string) (out []byte, charset string) {
	if utf8.Valid(text) {
		switch ascii := isASCII(text); {
		case !ascii:
			return text, "utf-8"
		case declared == "":
			return text, "us-ascii"
		default:
			return text, declared
		}
	}
	enc := encoding.Encoding(charmap.Windows1252)
	charset = declared
	switch declared {
	case "", "utf-8":
		charset = "windows-1252(guessed)"
	case "windows-1252", "iso-8859-1":
	default:
		e, err := ianaindex.IANA.Encoding(declared)
		if err != nil || e == nil {
			e, err = htmlindex.Get(declared)
		}
		if err != nil || e == nil {
			charset = "windows-1252(guessed)"
		} else {
			enc = e
		}
	}
	out, err := enc.NewDecoder().Bytes(text)
	if err != nil {
		out, _ = charmap.Windows1252.NewDecoder().Bytes(text)
		charset = "windows-1252(guessed)"
	}
	return out, charset
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
