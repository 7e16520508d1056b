package pdf

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRTLCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, visual, want string
	}{
		{"Latin text is left alone", "Card payment 12/03", "Card payment 12/03"},
		{"a Persian header drawn in presentation forms and visual order", "ﺦﯾرﺎﺗ", "تاریخ"},
		{"Persian words keep a number in its own order", "۰۱۰۲۳۴۵۶۷۸۹ هرﺎﻤﺷ هدﺮﭙﺳ بﺎﺴﺤﺗرﻮﺻ", "صورتحساب سپرده شماره ۰۱۰۲۳۴۵۶۷۸۹"},
		{"a period between two Jalali dates", "1401/07/30 ﺦﯾرﺎﺗ ﺎﺗ 1401/07/01 ﺦﯾرﺎﺗ زا", "از تاریخ 1401/07/01 تا تاریخ 1401/07/30"},
		{"Arabic with a Latin reference", "INV-2024 ﻊﻓد", "دفع INV-2024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, rtlCell(tc.visual))
		})
	}
}

func TestASCIIDigits(t *testing.T) {
	t.Parallel()
	require.Equal(t, "1401/07/03", asciiDigits("۱۴۰۱/۰۷/۰۳"))
	require.Equal(t, "15,000,000", asciiDigits("۱۵,۰۰۰,۰۰۰"))
	require.Equal(t, "250.75", asciiDigits("٢٥٠٫٧٥"))
	require.Equal(t, "1,250", asciiDigits("١٬٢٥٠"))
	require.Equal(t, "plain 12", asciiDigits("plain 12"))
}

func TestLigatures(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Saldo final", ligatures("Saldo ﬁnal"))
	require.Equal(t, "Office affluent", ligatures("Oﬃce aﬄuent"))
	require.Equal(t, "plain", ligatures("plain"))
}

// TestNumberedGlyph reads the glyph names of TeX's Type 3 fonts: pdfTeX draws "$" with a
// bitmap font whose /Differences name it "a36".
func TestNumberedGlyph(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want rune
		ok   bool
	}{
		{"a36", '$', true}, {"g65", 'A', true}, {"cid49", '1', true},
		{"a7", 0, false}, {"a1234", 0, false}, {"dollar", 0, false}, {"36", 0, false},
	} {
		r, ok := numberedGlyph(tc.name)
		require.Equal(t, tc.ok, ok, tc.name)
		require.Equal(t, tc.want, r, tc.name)
	}
}

// TestLooksAmount is the layout's test of an amount cell, in the forms statements print.
func TestLooksAmount(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"1,234.56", "1.234,56", "1 234,56", "1,23,456.78", "-12.50", "(412.16)", "412.16-",
		"36.699,95 CR", "1,234.00 Dr", "15,000.00Cr", "73,39 S", "12,00 D", "£2,937.11", "R$ 1.234,56", "S$22,800.00", "EUR 5,00"} {
		require.True(t, looksAmount(s), s)
	}
	for _, s := range []string{"", "2023", "07/02", "Page 1 of 2", "12th Feb", "REF 000123", "1234567890"} {
		require.False(t, looksAmount(s), s)
	}
}
