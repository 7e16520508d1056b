package pdf

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// The base encodings of simple fonts (ISO 32000-1, Annex D), as code -> Unicode.
var (
	winAnsi     [256]rune
	macRoman    [256]rune
	standardEnc [256]rune
	// winAnsiCode maps Unicode back to WinAnsi codes, to look up widths of the standard 14
	// fonts, whose metrics pdfcpu keys by WinAnsi code.
	winAnsiCode = map[rune]byte{}
)

// glyphNames maps the glyph names used in /Differences arrays to Unicode: the Adobe Glyph
// List names of Latin-1, Latin Extended-A and WinAnsi punctuation, which is what Latin
// bank statements use. uniXXXX and uXXXX names are decoded by glyphRune.
var glyphNames = map[string]rune{}

// encodingsReady fills the tables above; package variables that use them (defaultFont)
// reference it so that Go initialises them in order.
var encodingsReady = buildEncodings()

func buildEncodings() bool {
	for c := range 256 {
		winAnsi[c] = charmap.Windows1252.DecodeByte(byte(c))
		macRoman[c] = charmap.Macintosh.DecodeByte(byte(c))
		standardEnc[c] = 0
		if c >= 0x20 && c < 0x7f {
			standardEnc[c] = rune(c)
		}
	}
	// WinAnsiEncoding differs from Windows-1252 in a few slots (Annex D, note 6 and 7).
	winAnsi[0xA0] = ' '
	winAnsi[0xAD] = '-'
	for c := 0x80; c < 0xA0; c++ {
		if winAnsi[c] == '\uFFFD' {
			winAnsi[c] = '\u2022' // undefined codes show as bullet
		}
	}
	for c := 255; c >= 0x20; c-- {
		if r := winAnsi[c]; r != '\uFFFD' {
			winAnsiCode[r] = byte(c)
		}
	}
	winAnsiCode[' '] = ' '
	winAnsiCode['-'] = '-'

	standardEnc['\''] = '\u2019'
	standardEnc['`'] = '\u2018'

	ascii := []string{
		"space", "exclam", "quotedbl", "numbersign", "dollar", "percent", "ampersand", "quotesingle",
		"parenleft", "parenright", "asterisk", "plus", "comma", "hyphen", "period", "slash",
		"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"colon", "semicolon", "less", "equal", "greater", "question", "at",
	}
	for i, n := range ascii {
		glyphNames[n] = rune(0x20 + i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		glyphNames[string(c)] = c
		glyphNames[string(c+32)] = c + 32
	}
	for i, n := range []string{"bracketleft", "backslash", "bracketright", "asciicircum", "underscore", "grave"} {
		glyphNames[n] = rune(0x5B + i)
	}
	for i, n := range []string{"braceleft", "bar", "braceright", "asciitilde"} {
		glyphNames[n] = rune(0x7B + i)
	}
	latin1 := []string{
		"nbspace", "exclamdown", "cent", "sterling", "currency", "yen", "brokenbar", "section",
		"dieresis", "copyright", "ordfeminine", "guillemotleft", "logicalnot", "sfthyphen", "registered", "macron",
		"degree", "plusminus", "twosuperior", "threesuperior", "acute", "mu", "paragraph", "periodcentered",
		"cedilla", "onesuperior", "ordmasculine", "guillemotright", "onequarter", "onehalf", "threequarters", "questiondown",
		"Agrave", "Aacute", "Acircumflex", "Atilde", "Adieresis", "Aring", "AE", "Ccedilla",
		"Egrave", "Eacute", "Ecircumflex", "Edieresis", "Igrave", "Iacute", "Icircumflex", "Idieresis",
		"Eth", "Ntilde", "Ograve", "Oacute", "Ocircumflex", "Otilde", "Odieresis", "multiply",
		"Oslash", "Ugrave", "Uacute", "Ucircumflex", "Udieresis", "Yacute", "Thorn", "germandbls",
		"agrave", "aacute", "acircumflex", "atilde", "adieresis", "aring", "ae", "ccedilla",
		"egrave", "eacute", "ecircumflex", "edieresis", "igrave", "iacute", "icircumflex", "idieresis",
		"eth", "ntilde", "ograve", "oacute", "ocircumflex", "otilde", "odieresis", "divide",
		"oslash", "ugrave", "uacute", "ucircumflex", "udieresis", "yacute", "thorn", "ydieresis",
	}
	for i, n := range latin1 {
		glyphNames[n] = rune(0xA0 + i)
	}
	extA := []string{
		"Amacron", "amacron", "Abreve", "abreve", "Aogonek", "aogonek", "Cacute", "cacute",
		"Ccircumflex", "ccircumflex", "Cdotaccent", "cdotaccent", "Ccaron", "ccaron", "Dcaron", "dcaron",
		"Dcroat", "dcroat", "Emacron", "emacron", "Ebreve", "ebreve", "Edotaccent", "edotaccent",
		"Eogonek", "eogonek", "Ecaron", "ecaron", "Gcircumflex", "gcircumflex", "Gbreve", "gbreve",
		"Gdotaccent", "gdotaccent", "Gcommaaccent", "gcommaaccent", "Hcircumflex", "hcircumflex", "Hbar", "hbar",
		"Itilde", "itilde", "Imacron", "imacron", "Ibreve", "ibreve", "Iogonek", "iogonek",
		"Idotaccent", "dotlessi", "IJ", "ij", "Jcircumflex", "jcircumflex", "Kcommaaccent", "kcommaaccent",
		"kgreenlandic", "Lacute", "lacute", "Lcommaaccent", "lcommaaccent", "Lcaron", "lcaron", "Ldot",
		"ldot", "Lslash", "lslash", "Nacute", "nacute", "Ncommaaccent", "ncommaaccent", "Ncaron",
		"ncaron", "napostrophe", "Eng", "eng", "Omacron", "omacron", "Obreve", "obreve",
		"Ohungarumlaut", "ohungarumlaut", "OE", "oe", "Racute", "racute", "Rcommaaccent", "rcommaaccent",
		"Rcaron", "rcaron", "Sacute", "sacute", "Scircumflex", "scircumflex", "Scedilla", "scedilla",
		"Scaron", "scaron", "Tcommaaccent", "tcommaaccent", "Tcaron", "tcaron", "Tbar", "tbar",
		"Utilde", "utilde", "Umacron", "umacron", "Ubreve", "ubreve", "Uring", "uring",
		"Uhungarumlaut", "uhungarumlaut", "Uogonek", "uogonek", "Wcircumflex", "wcircumflex", "Ycircumflex", "ycircumflex",
		"Ydieresis", "Zacute", "zacute", "Zdotaccent", "zdotaccent", "Zcaron", "zcaron", "longs",
	}
	for i, n := range extA {
		glyphNames[n] = rune(0x100 + i)
	}
	for n, r := range map[string]rune{
		"space": ' ', "quoteright": '\u2019', "quoteleft": '\u2018', "minus": '\u2212',
		"Euro": '\u20AC', "quotesinglbase": '\u201A', "florin": '\u0192', "quotedblbase": '\u201E',
		"ellipsis": '\u2026', "dagger": '\u2020', "daggerdbl": '\u2021', "circumflex": '\u02C6',
		"perthousand": '\u2030', "guilsinglleft": '\u2039', "guilsinglright": '\u203A',
		"quotedblleft": '\u201C', "quotedblright": '\u201D', "bullet": '\u2022', "endash": '\u2013',
		"emdash": '\u2014', "tilde": '\u02DC', "trademark": '\u2122', "fraction": '\u2044',
		"fi": '\uFB01', "fl": '\uFB02', "breve": '\u02D8', "dotaccent": '\u02D9', "ring": '\u02DA',
		"ogonek": '\u02DB', "caron": '\u02C7', "hungarumlaut": '\u02DD', "Scommaaccent": '\u0218',
		"scommaaccent": '\u0219', "Tcedilla": '\u0162', "tcedilla": '\u0163', "commaaccent": '\uF6C3',
		"Delta": '\u2206', "Omega": '\u2126', "pi": '\u03C0', "lozenge": '\u25CA',
		"notequal": '\u2260', "lessequal": '\u2264', "greaterequal": '\u2265', "infinity": '\u221E',
		"partialdiff": '\u2202', "summation": '\u2211', "product": '\u220F', "integral": '\u222B',
		"radical": '\u221A', "approxequal": '\u2248',
		"dotlessj": '\u0237', "nonbreakingspace": '\u00A0', "softhyphen": '\u00AD',
		"figurespace": '\u2007', "afii61289": '\u2113', "numero": '\u2116',
	} {
		glyphNames[n] = r
	}

	standardUpper := map[int]string{
		0xA1: "exclamdown", 0xA2: "cent", 0xA3: "sterling", 0xA4: "fraction", 0xA5: "yen", 0xA6: "florin",
		0xA7: "section", 0xA8: "currency", 0xA9: "quotesingle", 0xAA: "quotedblleft", 0xAB: "guillemotleft",
		0xAC: "guilsinglleft", 0xAD: "guilsinglright", 0xAE: "fi", 0xAF: "fl", 0xB1: "endash", 0xB2: "dagger",
		0xB3: "daggerdbl", 0xB4: "periodcentered", 0xB6: "paragraph", 0xB7: "bullet", 0xB8: "quotesinglbase",
		0xB9: "quotedblbase", 0xBA: "quotedblright", 0xBB: "guillemotright", 0xBC: "ellipsis", 0xBD: "perthousand",
		0xBF: "questiondown", 0xC1: "grave", 0xC2: "acute", 0xC3: "circumflex", 0xC4: "tilde", 0xC5: "macron",
		0xC6: "breve", 0xC7: "dotaccent", 0xC8: "dieresis", 0xCA: "ring", 0xCB: "cedilla", 0xCD: "hungarumlaut",
		0xCE: "ogonek", 0xCF: "caron", 0xD0: "emdash", 0xE1: "AE", 0xE3: "ordfeminine", 0xE8: "Lslash",
		0xE9: "Oslash", 0xEA: "OE", 0xEB: "ordmasculine", 0xF1: "ae", 0xF5: "dotlessi", 0xF8: "lslash",
		0xF9: "oslash", 0xFA: "oe", 0xFB: "germandbls",
	}
	for c, n := range standardUpper {
		standardEnc[c] = glyphNames[n]
	}
	addCyrillicNames()
	return true
}

// addCyrillicNames adds the afii100xx names of the Adobe Glyph List for Cyrillic, which
// Windows-1251 fonts use in their /Differences.
func addCyrillicNames() {
	// afii10017..afii10049: А..Я with Ё as afii10023; afii10065..afii10097: а..я with ё as
	// afii10071.
	upper := []rune("АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")
	lower := []rune("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")
	for i, r := range upper {
		glyphNames[fmt.Sprintf("afii%d", 10017+i)] = r
	}
	for i, r := range lower {
		glyphNames[fmt.Sprintf("afii%d", 10065+i)] = r
	}
	for n, r := range map[int]rune{
		10050: 'Ґ', 10051: 'Ђ', 10052: 'Ѓ', 10053: 'Є', 10054: 'Ѕ', 10055: 'І', 10056: 'Ї', 10057: 'Ј',
		10058: 'Љ', 10059: 'Њ', 10060: 'Ћ', 10061: 'Ќ', 10062: 'Ў', 10145: 'Џ',
		10098: 'ґ', 10099: 'ђ', 10100: 'ѓ', 10101: 'є', 10102: 'ѕ', 10103: 'і', 10104: 'ї', 10105: 'ј',
		10106: 'љ', 10107: 'њ', 10108: 'ћ', 10109: 'ќ', 10110: 'ў', 10193: 'џ', 61352: '№',
	} {
		glyphNames[fmt.Sprintf("afii%d", n)] = r
	}
}

// glyphRune maps a glyph name to Unicode: the table above, then the uniXXXX and uXXXX[XX]
// conventions, then a name with a suffix (a.sc, one.oldstyle, T_h) by its first part.
func glyphRune(name string) (rune, bool) {
	if r, ok := glyphNames[name]; ok {
		return r, true
	}
	if len(name) == 7 && strings.HasPrefix(name, "uni") {
		if v, err := strconv.ParseUint(name[3:], 16, 32); err == nil {
			return rune(v), true
		}
	}
	if len(name) >= 5 && len(name) <= 7 && name[0] == 'u' {
		if v, err := strconv.ParseUint(name[1:], 16, 32); err == nil && v <= 0x10FFFF {
			return rune(v), true
		}
	}
	if i := strings.IndexAny(name, "._"); i > 0 {
		return glyphRune(name[:i])
	}
	return 0, false
}

// numberedGlyph reads the glyph names that TeX's bitmap (Type 3) fonts and some
// converters give: a letter or two and the character code ("a36", "g65", "cid36"), as poppler
// does. Only printable ASCII codes are taken: the code is the character in the font's
// ASCII-based encoding ("a36" is "$").
func numberedGlyph(name string) (rune, bool) {
	i := 0
	for i < len(name) && i < 3 && (name[i] >= 'a' && name[i] <= 'z' || name[i] >= 'A' && name[i] <= 'Z') {
		i++
	}
	if i == 0 || i == len(name) || len(name)-i > 3 {
		return 0, false
	}
	v, err := strconv.Atoi(name[i:])
	if err != nil || v < 33 || v > 126 {
		return 0, false
	}
	return rune(v), true
}
