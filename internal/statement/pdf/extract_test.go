package pdf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// lineTexts extracts data and returns each line as "p<page>: cell | cell".
func lineTexts(t *testing.T, data []byte) []string {
	t.Helper()
	ex, err := extract(data, statement.Options{}.WithDefaults(), maxHeldLines)
	require.NoError(t, err)
	var out []string
	for _, pg := range allLines(ex.pages) {
		for _, l := range pg {
			out = append(out, fmt.Sprintf("p%d: %s", l.page, l.text()))
		}
	}
	return out
}

var tableLines = []string{
	"p1: Date | Description | Amount | Balance",
	"p1: 01.03.2024 | Coffee shop | -3.50 | 96.50",
	"p1: 02.03.2024 | Salary | 1,500.00 | 1,596.50",
}

func TestTextOperators(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{
			name:    "cells placed with Tm each form a line of cells",
			content: tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) }),
			want:    tableLines,
		},
		{
			name: "cells placed with Td relative moves",
			content: tableContent(func() func(x, y float64, s string) string {
				px, py := 0.0, 0.0
				return func(x, y float64, s string) string {
					op := fmt.Sprintf("%g %g Td (%s) Tj\n", x-px, y-py, s)
					px, py = x, y
					return op
				}
			}()),
			want: tableLines,
		},
		{
			name: "one Tj per line with runs of spaces between the columns",
			content: "BT /F1 10 Tf 50 700 Td (Date         Description       Amount) Tj\n" +
				"0 -14 Td (01.03.2024   Coffee shop       -3.50) Tj ET",
			want: []string{"p1: Date | Description | Amount", "p1: 01.03.2024 | Coffee shop | -3.50"},
		},
		{
			name:    "TJ kerning wide enough to be a column gap splits cells, small kerning does not",
			content: "BT /F1 10 Tf 50 700 Td [(Da) 20 (te) -8000 (Amo) -10 (unt)] TJ ET",
			want:    []string{"p1: Date | Amount"},
		},
		{
			name:    "T* and ' move down by the leading; \" sets spacing too",
			content: "BT /F1 10 Tf 14 TL 50 700 Td (first line) Tj T* (second line) Tj (third line) ' 0 0 (fourth line) \" ET",
			want:    []string{"p1: first line", "p1: second line", "p1: third line", "p1: fourth line"},
		},
		{
			name:    "TD sets the leading for the next T*",
			content: "BT /F1 10 Tf 50 700 Td (one) Tj 0 -20 TD (two) Tj T* (three) Tj ET",
			want:    []string{"p1: one", "p1: two", "p1: three"},
		},
		{
			name:    "letter spacing with Tc keeps a word whole",
			content: "BT /F1 10 Tf 3 Tc 50 700 Td (SPACED) Tj ET",
			want:    []string{"p1: SPACED"},
		},
		{
			// Ghostscript (ps2pdf of groff output) sets the space between two words as the
			// character spacing of a two-glyph string.
			name:    "a wide character spacing on two glyphs is the space between words",
			content: "BT /F1 10 Tf 1 0 0 1 50 700 Tm (Ne) Tj 2.5 Tc 11.12 0 Td (wB) Tj 0 Tc 16.37 0 Td (alance) Tj ET",
			want:    []string{"p1: New Balance"},
		},
		{
			name:    "word spacing with Tw widens spaces into a column gap",
			content: "BT /F1 10 Tf 40 Tw 50 700 Td (left right) Tj ET",
			want:    []string{"p1: left | right"},
		},
		{
			name:    "a raised superscript stays on its line",
			content: "BT /F1 10 Tf 50 700 Td (Fee) Tj 3 Ts (1) Tj 0 Ts ( charged) Tj ET",
			want:    []string{"p1: Fee1 charged"},
		},
		{
			name:    "cm scales and q/Q restores the CTM",
			content: "q 2 0 0 2 0 0 cm BT /F1 5 Tf 25 350 Td (scaled) Tj ET Q BT /F1 10 Tf 50 686 Td (plain) Tj ET",
			want:    []string{"p1: scaled", "p1: plain"},
		},
		{
			name:    "lines come out top to bottom whatever the drawing order",
			content: "BT /F1 10 Tf 50 600 Td (bottom) Tj ET BT /F1 10 Tf 50 700 Td (top) Tj ET",
			want:    []string{"p1: top", "p1: bottom"},
		},
		{
			name:    "overprinted fake bold is read once",
			content: "BT /F1 10 Tf 50 700 Td (Bold) Tj ET BT /F1 10 Tf 50.3 700 Td (Bold) Tj ET",
			want:    []string{"p1: Bold"},
		},
		{
			name:    "an inline image's binary data is skipped",
			content: "BI /W 2 /H 1 /BPC 8 /CS /G ID \x00(EI) Tj\xff\nEI BT /F1 10 Tf 50 700 Td (after image) Tj ET",
			want:    []string{"p1: after image"},
		},
		{
			name:    "marked content with an inline property dictionary",
			content: "/Span << /ActualText (x) /MCID 3 >> BDC BT /F1 10 Tf 50 700 Td (marked) Tj ET EMC",
			want:    []string{"p1: marked"},
		},
		{
			name:    "octal and escaped characters in literal strings",
			content: "BT /F1 10 Tf 50 700 Td (Caf\\351 \\(1\\) \\\\ ok) Tj ET",
			want:    []string{"p1: Café (1) \\ ok"},
		},
		{
			name:    "hex strings",
			content: "BT /F1 10 Tf 50 700 Td <48656C6C6F> Tj ET",
			want:    []string{"p1: Hello"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, lineTexts(t, onePage(tc.content)))
		})
	}
}

func TestFormXObjects(t *testing.T) {
	t.Parallel()
	form := streamObj("/Type /XObject /Subtype /Form /BBox [0 0 500 100] /Matrix [1 0 0 1 50 600] /Resources << /Font << /F2 4 0 R >> >>",
		[]byte("BT /F2 10 Tf 0 0 Td (inside the form) Tj ET /Fm1 Do"))
	data := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> /XObject << /Fm1 6 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		streamObj("", []byte("BT /F1 10 Tf 50 700 Td (page text) Tj ET /Fm1 Do q 1 0 0 1 0 -100 cm /Fm1 Do Q")),
		form,
	)
	// The form draws itself: that recursion is cut, the form is read where the page draws it.
	require.Equal(t, []string{"p1: page text", "p1: inside the form", "p1: inside the form"}, lineTexts(t, data))
}

func TestPageRotation(t *testing.T) {
	t.Parallel()
	// A landscape statement on a portrait page turned by /Rotate 90: text runs up the page.
	content := "BT /F1 10 Tf 0 1 -1 0 100 50 Tm (Date) Tj 0 1 -1 0 100 150 Tm (Amount) Tj " +
		"0 1 -1 0 114 50 Tm (01.03.2024) Tj 0 1 -1 0 114 150 Tm (12.50) Tj ET"
	data := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /Rotate 90 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		streamObj("", []byte(content)),
	)
	require.Equal(t, []string{"p1: Date | Amount", "p1: 01.03.2024 | 12.50"}, lineTexts(t, data))
}

func TestFontEncodings(t *testing.T) {
	t.Parallel()
	page := func(font string, extra []string, content string) []byte {
		objs := []string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
			font,
			streamObj("", []byte(content)),
		}
		return rawPDF(append(objs, extra...)...)
	}
	toUni := streamObj("", []byte(`/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Test def 1 begincodespacerange <0000> <FFFF> endcodespacerange
3 beginbfchar <0001> <0053> <0002> <0061> <0003> <0020> endbfchar
2 beginbfrange <0010> <0019> <0030> <0020> <0022> [<0141> <00F3> <017A>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`))
	simpleToUni := streamObj("", []byte(`begincmap 1 begincodespacerange <00> <FF> endcodespacerange
2 beginbfchar <41> <20AC> <42> <FB01> endbfchar endcmap`))
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{
			name: "Differences with Latin glyph names and uniXXXX",
			data: page("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 /Lslash /oacute /dzcaron /uni0107 /zacute.sc] >> >>", nil,
				"BT /F1 10 Tf 50 700 Td (ABCDEx) Tj ET"),
			want: []string{"p1: Łó\uFFFDćźx"},
		},
		{
			name: "WinAnsiEncoding upper half",
			data: page("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>", nil,
				"BT /F1 10 Tf 50 700 Td (\\200 12 \\226 M\\374ller) Tj ET"),
			want: []string{"p1: € 12 – Müller"},
		},
		{
			name: "MacRomanEncoding",
			data: page("<< /Type /Font /Subtype /TrueType /BaseFont /Arial /Encoding /MacRomanEncoding >>", nil,
				"BT /F1 10 Tf 50 700 Td (K\\212se \\333) Tj ET"),
			want: []string{"p1: Käse €"},
		},
		{
			name: "StandardEncoding is the default of Type 1 fonts",
			data: page("<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>", nil,
				"BT /F1 10 Tf 50 700 Td (it's \\256) Tj ET"),
			want: []string{"p1: it’s fi"},
		},
		{
			name: "ToUnicode of a simple font overrides its encoding",
			data: page("<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+Custom /FirstChar 65 /LastChar 66 /Widths [600 600] /ToUnicode 6 0 R >>",
				[]string{simpleToUni}, "BT /F1 10 Tf 50 700 Td (AB) Tj ET"),
			want: []string{"p1: €fi"},
		},
		{
			name: "Type0 Identity-H with ToUnicode bfchar, bfrange and /W widths",
			data: page("<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Sans /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>",
				[]string{toUni, "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Sans /DW 1000 /W [1 [600 500 300] 16 25 550 32 34 600] /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>"},
				"BT /F1 10 Tf 50 700 Td <000100020003001100120013> Tj <00030020002100220003> Tj 300 0 Td <0012> Tj ET"),
			want: []string{"p1: Sa 123 Łóź | 2"},
		},
		{
			name: "Type0 without ToUnicode gives replacement characters, not silence",
			data: page("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] >>",
				[]string{"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 >>"},
				"BT /F1 10 Tf 50 700 Td <00410042> Tj ET"),
			want: []string{"p1: \uFFFD\uFFFD"},
		},
		{
			name: "a Tf naming no font falls back to Helvetica",
			data: page("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", nil,
				"BT /Nope 10 Tf 50 700 Td (still read) Tj ET"),
			want: []string{"p1: still read"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, lineTexts(t, tc.data))
		})
	}
}

func TestGeneratedStatementLines(t *testing.T) {
	t.Parallel()
	data, txs := pdftest.Statement(t, pdftest.Spec{Pages: 3, RowsPerPage: 10})
	lines := lineTexts(t, data)
	require.Contains(t, lines, "p1: Date | Description | Debit | Credit | Balance")
	require.Contains(t, lines, "p2: Date | Description | Debit | Credit | Balance")
	require.Contains(t, lines, "p1: Page 1 of 3")
	require.Contains(t, lines, "p3: Closing balance | "+pdftest.Money(txs[len(txs)-1].Balance))
	first := txs[0]
	require.Contains(t, lines, fmt.Sprintf("p1: %s | %s | %s | %s", first.Date.Format("02/01/2006"), first.Desc,
		pdftest.Money(-first.Amount), pdftest.Money(first.Balance)))
	require.Contains(t, lines, "p1: "+txs[2].Wrap)
}

func TestUTF8FontStatementLines(t *testing.T) {
	t.Parallel()
	ttf := pdftest.DejaVu()
	if ttf == "" {
		t.Skip("no DejaVuSans.ttf on this machine")
	}
	data, _ := pdftest.Statement(t, pdftest.Spec{Pages: 1, RowsPerPage: 4, UTF8Font: ttf})
	ex, err := extract(data, statement.Options{}.WithDefaults(), maxHeldLines)
	require.NoError(t, err)
	require.Contains(t, ex.dialect(), "type0-identity+tounicode")
	var all []string
	for _, l := range ex.pages.page(0) {
		all = append(all, l.text())
	}
	require.Contains(t, all, "Date | Description | Debit | Credit | Balance")
	require.Contains(t, all, "Account holder: Jane Doe")
	require.Contains(t, all, "Closing balance | 668.48")
}

func TestCP1250DifferencesStatementLines(t *testing.T) {
	t.Parallel()
	data, _ := pdftest.Statement(t, pdftest.Spec{Pages: 1, RowsPerPage: 4, CP1250: true})
	joined := strings.Join(lineTexts(t, data), "\n")
	require.Contains(t, joined, "Account holder: Zażółć Gęślą Jaźń")
	require.Contains(t, joined, "PRZELEW ŁÓDŹ ŻABKA")
}

func TestGlyphNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]rune{
		"A": 'A', "space": ' ', "Lslash": 'Ł', "zdotaccent": 'ż', "ecaron": 'ě', "germandbls": 'ß',
		"Euro": '€', "quotedblleft": '“', "uni20AC": '€', "u1F600": '\U0001F600', "a.sc": 'a',
		"afii10017": 'А', "afii10023": 'Ё', "afii10049": 'Я', "afii10065": 'а', "afii10071": 'ё',
		"afii10097": 'я', "afii10056": 'Ї', "longs": 'ſ', "Amacron": 'Ā',
	} {
		got, ok := glyphRune(name)
		require.True(t, ok, name)
		require.Equal(t, want, got, name)
	}
	_, ok := glyphRune("g123")
	require.False(t, ok)
}

func TestDamagedContentIsReported(t *testing.T) {
	t.Parallel()
	var content strings.Builder
	content.WriteString("BT /F1 10 Tf 50 800 Td 14 TL ")
	for i := range 400 {
		fmt.Fprintf(&content, "(line %d of the page) ' ", i)
	}
	content.WriteString("ET")
	z := pdftest.Deflate([]byte(content.String()))
	data := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		streamObj("/Filter /FlateDecode", z[:len(z)/2]),
	)
	ex, err := extract(data, statement.Options{}.WithDefaults(), maxHeldLines)
	require.NoError(t, err)
	require.Equal(t, "line 0 of the page", ex.pages.page(0)[0].text())
	require.Len(t, ex.problems, 1)
	require.Equal(t, statement.Position{Page: 1}, ex.problems[0].Pos)
	require.Contains(t, ex.problems[0].Message, "corrupt or truncated")
}
