package pdf

import (
	"sort"
	"strings"

	pdffont "github.com/pdfcpu/pdfcpu/pkg/font"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// maxWidthEntries bounds a CID font's /W array.
const maxWidthEntries = 1 << 17

// font is what text extraction needs of a PDF font (ISO 32000-1, 9.5-9.10): how to split a
// shown string into codes, the Unicode text of each code, and each glyph's advance width in
// text space (ems), to know where a run of text ends.
type font struct {
	composite bool // Type0: multi-byte codes, CIDs, /W widths
	identity  bool // Type0 with Identity-H/V: two-byte codes
	// Simple fonts (Type1, TrueType, Type3): one byte per code.
	text   [256]string
	widths [256]float64
	// Composite fonts.
	encoding *cmap // codespace ranges of an embedded /Encoding CMap; nil for Identity-H/V
	cidW     map[uint32]float64
	cidRange []widthRange
	dw       float64
	toUni    *cmap
	// space is the width of a space glyph in ems, the unit of gaps between words.
	space float64
	// kind names the font type and encoding for the dialect, e.g. "type0-identity".
	kind string
}

type widthRange struct {
	lo, hi uint32
	w      float64
}

// defaultFont stands in when a content stream shows text without a valid Tf: Helvetica with
// WinAnsiEncoding, the most common case.
var defaultFont = func() *font {
	_ = encodingsReady
	f := &font{kind: "default"}
	for c := range 256 {
		if r := winAnsi[c]; r != '\uFFFD' && r >= ' ' {
			f.text[c] = string(r)
		}
		f.widths[c] = coreWidth("Helvetica", byte(c))
	}
	f.space = f.widths[' ']
	return f
}()

// coreNames maps the names producers give the standard 14 fonts (and their common
// TrueType look-alikes, which viewers substitute the same way) to pdfcpu's metric names.
var coreNames = map[string]string{
	"Arial": "Helvetica", "Arial,Bold": "Helvetica-Bold", "Arial,Italic": "Helvetica-Oblique",
	"Arial,BoldItalic": "Helvetica-BoldOblique", "ArialMT": "Helvetica", "Arial-BoldMT": "Helvetica-Bold",
	"Arial-ItalicMT": "Helvetica-Oblique", "Arial-BoldItalicMT": "Helvetica-BoldOblique",
	"TimesNewRoman": "Times-Roman", "TimesNewRoman,Bold": "Times-Bold", "TimesNewRomanPSMT": "Times-Roman",
	"TimesNewRomanPS-BoldMT": "Times-Bold", "CourierNew": "Courier", "CourierNewPSMT": "Courier",
	"CourierNew,Bold": "Courier-Bold", "Helvetica,Bold": "Helvetica-Bold",
}

// loadFont reads a font dictionary. It never fails: what cannot be read falls back to
// defaults, so text still comes out, at worst as U+FFFD for codes without a known mapping.
func (p *parser) loadFont(fd types.Dict) *font {
	if fd == nil {
		return defaultFont
	}
	d := p.doc
	var toUni *cmap
	if sd, ok := d.stream(fd["ToUnicode"]); ok {
		if data, err := readAll(sd, p.budget, maxCMapBytes); err == nil {
			toUni = parseCMap(data)
		} else if err == errBudget {
			p.fail(errBudget)
		}
	}
	switch d.name(fd["Subtype"]) {
	case "Type0":
		return p.loadType0(fd, toUni)
	default:
		return p.loadSimple(fd, toUni)
	}
}

func (p *parser) loadSimple(fd types.Dict, toUni *cmap) *font {
	d := p.doc
	f := &font{toUni: toUni}
	subtype := d.name(fd["Subtype"])
	base := d.name(fd["BaseFont"])
	if i := strings.IndexByte(base, '+'); i == 6 {
		base = base[7:] // subset prefix ABCDEF+
	}
	// Base encoding: the font's /Encoding name or /BaseEncoding, else the font type's
	// built-in one (StandardEncoding for Type 1; WinAnsi for TrueType, as viewers do).
	enc := &winAnsi
	encName := "winansi"
	if subtype == "Type1" || subtype == "MMType1" || subtype == "Type3" {
		enc, encName = &standardEnc, "standard"
	}
	var diffs types.Array
	pick := func(n string) {
		switch n {
		case "WinAnsiEncoding":
			enc, encName = &winAnsi, "winansi"
		case "MacRomanEncoding":
			enc, encName = &macRoman, "macroman"
		case "StandardEncoding":
			enc, encName = &standardEnc, "standard"
		}
	}
	switch e := d.resolve(fd["Encoding"]).(type) {
	case types.Name:
		pick(e.Value())
	case types.Dict:
		pick(d.name(e["BaseEncoding"]))
		diffs = d.array(e["Differences"])
	}
	for c := range 256 {
		if r := enc[c]; r > 0 && r != '\uFFFD' {
			f.text[c] = string(r)
		}
	}
	code := -1
	for i, o := range diffs {
		if i >= 1024 {
			break
		}
		switch v := d.resolve(o).(type) {
		case types.Integer:
			code = v.Value()
		case types.Name:
			if code >= 0 && code < 256 {
				if r, ok := glyphRune(v.Value()); ok {
					f.text[code] = string(r)
				} else if r, ok := numberedGlyph(v.Value()); ok {
					f.text[code] = string(r)
				} else {
					f.text[code] = "\uFFFD"
				}
				code++
			}
		}
	}
	if len(diffs) > 0 {
		encName += "+differences"
	}
	if toUni != nil {
		for c := range 256 {
			if s, ok := toUni.lookup(uint32(c), 1); ok {
				f.text[c] = s
			}
		}
		encName += "+tounicode"
	}
	f.kind = strings.ToLower(subtype) + "-" + encName

	// Widths: /FirstChar and /Widths; Type 3 glyph space is scaled by /FontMatrix.
	scale := 0.001
	if subtype == "Type3" {
		if m := d.array(fd["FontMatrix"]); len(m) == 6 {
			if a, ok := d.number(m[0]); ok && a > 0 && a < 1 {
				scale = a
			}
		}
	}
	missing := 0.0
	if fdesc := d.dict(fd["FontDescriptor"]); fdesc != nil {
		if w, ok := d.number(fdesc["MissingWidth"]); ok {
			missing = w * scale
		}
	}
	widths := d.array(fd["Widths"])
	if len(widths) > 0 {
		first := 0
		if v, ok := d.number(fd["FirstChar"]); ok && v >= 0 && v < 256 {
			first = int(v)
		}
		for c := range 256 {
			f.widths[c] = missing
		}
		for i, o := range widths {
			if first+i >= 256 {
				break
			}
			if w, ok := d.number(o); ok && w >= 0 && w < 1e5 {
				f.widths[first+i] = w * scale
			}
		}
	} else {
		core := base
		if n, ok := coreNames[base]; ok {
			core = n
		}
		isCore := pdffont.IsCoreFont(core)
		for c := range 256 {
			f.widths[c] = 0.5
			if isCore {
				r := []rune(f.text[c])
				if len(r) == 1 {
					if wc, ok := winAnsiCode[r[0]]; ok {
						f.widths[c] = coreWidth(core, wc)
					}
				}
			} else if missing > 0 {
				f.widths[c] = missing
			}
		}
	}
	f.space = 0
	for c := range 256 {
		if f.text[c] == " " && f.widths[c] > 0 {
			f.space = f.widths[c]
			break
		}
	}
	return f
}

func (p *parser) loadType0(fd types.Dict, toUni *cmap) *font {
	d := p.doc
	f := &font{composite: true, toUni: toUni, dw: 1, cidW: map[uint32]float64{}}
	encName := "identity"
	switch e := d.resolve(fd["Encoding"]).(type) {
	case types.Name:
		if n := e.Value(); n == "Identity-H" || n == "Identity-V" {
			f.identity = true
		} else {
			encName = "cmap"
		}
	case types.StreamDict:
		if data, err := readAll(e, p.budget, maxCMapBytes); err == nil {
			f.encoding = parseCMap(data)
			encName = "embedded-cmap"
		} else if err == errBudget {
			p.fail(errBudget)
		}
	}
	f.kind = "type0-" + encName
	if toUni != nil {
		f.kind += "+tounicode"
	}
	desc := d.array(fd["DescendantFonts"])
	if len(desc) == 0 {
		return f
	}
	cid := d.dict(desc[0])
	if cid == nil {
		return f
	}
	if w, ok := d.number(cid["DW"]); ok && w >= 0 && w < 1e5 {
		f.dw = w / 1000
	}
	// /W: c [w1 w2 ...] or cfirst clast w (ISO 32000-1, 9.7.4.3).
	w := d.array(cid["W"])
	entries := 0
	for i := 0; i < len(w) && entries < maxWidthEntries; {
		c1, ok := d.number(w[i])
		if !ok || c1 < 0 || i+1 >= len(w) {
			break
		}
		if arr := d.array(w[i+1]); arr != nil {
			for k, o := range arr {
				if v, ok := d.number(o); ok && v >= 0 && v < 1e5 {
					f.cidW[uint32(c1)+uint32(k)] = v / 1000
				}
				entries++
			}
			i += 2
			continue
		}
		if i+2 >= len(w) {
			break
		}
		c2, ok1 := d.number(w[i+1])
		v, ok2 := d.number(w[i+2])
		if ok1 && ok2 && c2 >= c1 && v >= 0 && v < 1e5 {
			f.cidRange = append(f.cidRange, widthRange{lo: uint32(c1), hi: uint32(c2), w: v / 1000})
		}
		entries++
		i += 3
	}
	sort.Slice(f.cidRange, func(i, j int) bool { return f.cidRange[i].lo < f.cidRange[j].lo })
	if toUni != nil && toUni.hasSpace {
		f.space = f.cidWidth(toUni.spaceCode)
	}
	return f
}

func (f *font) cidWidth(cid uint32) float64 {
	if w, ok := f.cidW[cid]; ok {
		return w
	}
	i := sort.Search(len(f.cidRange), func(i int) bool { return f.cidRange[i].lo > cid }) - 1
	if i >= 0 && cid <= f.cidRange[i].hi {
		return f.cidRange[i].w
	}
	return f.dw
}

// next splits the first code off s: its value, byte length, Unicode text and width in ems.
func (f *font) next(s []byte) (code uint32, n int, text string, w float64) {
	if !f.composite {
		c := s[0]
		return uint32(c), 1, f.text[c], f.widths[c]
	}
	n = 2
	if f.encoding != nil {
		if k := f.encoding.codeLen(s); k > 0 {
			n = k
		}
	} else if f.toUni != nil && !f.identity {
		if k := f.toUni.codeLen(s); k > 0 {
			n = k
		}
	}
	n = min(n, len(s))
	for _, c := range s[:n] {
		code = code<<8 | uint32(c)
	}
	text = "\uFFFD"
	if f.toUni != nil {
		if t, ok := f.toUni.lookup(code, n); ok {
			text = t
		}
	}
	return code, n, text, f.cidWidth(code)
}

// coreWidth is the width in ems of the glyph a WinAnsi code shows in a standard 14 font.
func coreWidth(name string, code byte) float64 {
	w, err := pdffont.CharWidth(name, rune(code))
	if err != nil || w <= 0 {
		return 0.5
	}
	return float64(w) / 1000
}
