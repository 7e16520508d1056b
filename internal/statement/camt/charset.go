package camt

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// toUTF8 returns the document as UTF-8 and the charset it was read in, for the Dialect. The whole
// input is decoded before parsing rather than through xml.Decoder.CharsetReader, so that the
// decoder's InputOffset indexes the same text the entries' Raw is sliced from. The charset comes
// from the byte-order mark, else the NUL pattern of UTF-16 without one, else the XML declaration's
// encoding; a file that declares (or defaults to) UTF-8 but is not valid UTF-8 is read as
// Windows-1252, the usual mistake of banks' exports, and says so ("(guessed)").
func toUTF8(data []byte) (text []byte, charset string, bom bool, err error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
		if !utf8.Valid(data) {
			text, charset, err = decodeWith(charmap.Windows1252, data, "windows-1252(guessed)")
			return text, charset, true, err
		}
		return data, "utf-8", true, nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		text, charset, err = decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data[2:], "utf-16le")
		return text, charset, true, err
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		text, charset, err = decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data[2:], "utf-16be")
		return text, charset, true, err
	}
	switch {
	case len(data) >= 4 && data[0] == '<' && data[1] == 0 && data[3] == 0:
		text, charset, err = decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data, "utf-16le")
		return text, charset, false, err
	case len(data) >= 4 && data[0] == 0 && data[1] == '<' && data[2] == 0:
		text, charset, err = decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data, "utf-16be")
		return text, charset, false, err
	}
	label := strings.ToLower(declaredEncoding(data))
	switch label {
	case "", "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be":
		// UTF-16 declared on 8-bit bytes is a file re-encoded without its declaration being
		// updated: the bytes decide.
		if utf8.Valid(data) {
			if label == "" {
				label = "utf-8"
			}
			return data, label, false, nil
		}
		text, charset, err = decodeWith(charmap.Windows1252, data, "windows-1252(guessed)")
		return text, charset, false, err
	}
	enc, err := ianaindex.IANA.Encoding(label)
	if err != nil || enc == nil {
		if enc, err = htmlindex.Get(label); err != nil {
			return nil, "", false, statement.Errorf("", statement.ErrCorrupt, statement.Position{Line: 1},
				"the XML declaration names the character encoding %q, which is not supported", label)
		}
	}
	text, charset, err = decodeWith(enc, data, label)
	return text, charset, false, err
}

func decodeWith(enc encoding.Encoding, data []byte, charset string) ([]byte, string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return nil, "", statement.Errorf("", statement.ErrCorrupt, statement.Position{},
			"the text cannot be decoded as %s: %v", charset, err)
	}
	return out, charset, nil
}

// declaredEncoding returns the encoding pseudo-attribute of the XML declaration that starts
// data, or "" when there is none.
func declaredEncoding(data []byte) string {
	head := data[:min(len(data), 512)]
	head = bytes.TrimLeft(head, " \t\r\n")
	if !bytes.HasPrefix(head, []byte("<?xml")) {
		return ""
	}
	end := bytes.Index(head, []byte("?>"))
	if end < 0 {
		return ""
	}
	decl := head[:end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	q := rest[0]
	j := bytes.IndexByte(rest[1:], q)
	if j < 0 {
		return ""
	}
	return string(rest[1 : 1+j])
}
