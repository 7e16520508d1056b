package excel

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNumberText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"an integer stays as written", "1234", "1234", true},
		{"a decimal keeps its digits", "1234.5678", "1234.5678", true},
		{"trailing zeros add nothing", "100.50", "100.5", true},
		{"a negative exponent becomes leading zeros", "1.5E-3", "0.0015", true},
		{"a positive exponent becomes trailing zeros", "2.5e+4", "25000", true},
		{"a leading plus is dropped", "+7", "7", true},
		{"negative zero is zero", "-0", "0", true},
		{"binary noise past 15 digits is what Excel rounds away", "0.30000000000000004", "0.3", true},
		{"rounding carries", "99.999999999999986", "100", true},
		{"rounding carries into a new digit", "9.9999999999999999E+2", "1000", true},
		{"15 digits are kept", "123456789012345", "123456789012345", true},
		{"17 digits are shown as Excel shows them", "12345678901234567", "12345678901234600", true},
		{"a tiny value", "5E-324", "0." + strings.Repeat("0", 323) + "5", true},
		{"not a number", "12a", "", false},
		{"an empty mantissa", "E5", "", false},
		{"a huge exponent is no double", "1E+999999", "", false},
		{"a dot alone", ".", "", false},
		{"a leading dot", ".5", "0.5", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := numberText(tt.in)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

// TestPlainNumberFastPath checks that the numbers numberText passes through untouched are ones
// its general case would not change.
func TestPlainNumberFastPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	alphabet := "0123456789.-"
	for range 200000 {
		b := make([]byte, 1+rng.Intn(18))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		s := string(b)
		if plainNumber(s) {
			got, ok := normalizeNumber(s)
			require.True(t, ok, s)
			require.Equal(t, s, got)
		}
	}
}

func TestFormatCodeKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		want fmtKind
	}{
		{"General", fmtNumber},
		{"0.00", fmtNumber},
		{"#,##0.00 \"RON\"", fmtNumber},
		{"#,##0.00\\ [$€-407];[Red]\\-#,##0.00\\ [$€-407]", fmtNumber},
		{"0.00E+00", fmtNumber},
		{"0.00 Lei", fmtNumber},
		{"_-* #,##0.00_-;-* #,##0.00_-;_-* \"-\"??_-;_-@_-", fmtNumber},
		{"@", fmtNumber},
		{"dd.mm.yyyy", fmtDate},
		{"yyyy-mm-dd", fmtDate},
		{"DD/MM/YYYY", fmtDate},
		{"[$-418]d mmmm yyyy;@", fmtDate},
		{"mmm-yy", fmtDate},
		{"mmmm", fmtDate},
		{"d/m/yyyy h:mm", fmtDate},
		{"[$-F800]dddd, mmmm dd, yyyy", fmtDate},
		{"ge.m.d", fmtDate},
		{"h:mm", fmtTime},
		{"hh:mm:ss AM/PM", fmtTime},
		{"mm:ss.0", fmtTime},
		{"[h]:mm:ss", fmtDuration},
		{"[mm]:ss", fmtDuration},
		{"\"Day\" 0", fmtNumber},
		{"\"date\"", fmtNumber},
		{"[Red]0.00", fmtNumber},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, formatCodeKind(tt.code))
		})
	}
}

func TestBuiltinFmtKind(t *testing.T) {
	t.Parallel()
	for id, want := range map[int]fmtKind{0: fmtNumber, 2: fmtNumber, 4: fmtNumber, 14: fmtDate, 15: fmtDate, 17: fmtDate,
		18: fmtTime, 21: fmtTime, 22: fmtDate, 45: fmtTime, 46: fmtDuration, 47: fmtTime, 49: fmtNumber, 57: fmtDate, 164: fmtNumber} {
		require.Equal(t, want, builtinFmtKind(id), "id %d", id)
	}
}

func TestSerialText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		num      string
		kind     fmtKind
		date1904 bool
		want     string
		ok       bool
	}{
		{"serial 1 is 1900-01-01", "1", fmtDate, false, "1900-01-01", true},
		{"serial 59 is 1900-02-28", "59", fmtDate, false, "1900-02-28", true},
		{"serial 60 is Excel's 1900-02-29", "60", fmtDate, false, "1900-02-29", true},
		{"serial 61 is 1900-03-01", "61", fmtDate, false, "1900-03-01", true},
		{"a modern date", "45351", fmtDate, false, "2024-02-29", true},
		{"the time of day does not change the date", "45351.99", fmtDate, false, "2024-02-29", true},
		{"a time that rounds to midnight is the next day", "45351.999999999", fmtDate, false, "2024-03-01", true},
		{"9999-12-31 is the last date", "2958465", fmtDate, false, "9999-12-31", true},
		{"past it Excel shows ####", "2958466", fmtDate, false, "", false},
		{"zero is no date in the 1900 system", "0", fmtDate, false, "", false},
		{"negative is no date", "-1", fmtDate, false, "", false},
		{"1904 system: zero is 1904-01-01", "0", fmtDate, true, "1904-01-01", true},
		{"1904 system: a modern date", "41639", fmtDate, true, "2018-01-01", true},
		{"a time of day", "0.5625", fmtTime, false, "13:30:00", true},
		{"a time format shows only the time", "45351.25", fmtTime, false, "06:00:00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := serialText(tt.num, tt.kind, tt.date1904)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCellRefs(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string][2]int{"A1": {0, 0}, "Z9": {25, 8}, "AA10": {26, 9}, "$C$3": {2, 2}, "XFD1048576": {16383, 1048575}, "B": {1, -1}, "7": {-1, 6}} {
		col, row, ok := parseCellRef([]byte(ref))
		require.True(t, ok, ref)
		require.Equal(t, want, [2]int{col, row}, ref)
	}
	for _, bad := range []string{"", "XFE1", "A0", "A1048577", "AAAA1", "A-1", "1A", "A99999999999999999999"} {
		_, _, ok := parseCellRef([]byte(bad))
		require.False(t, ok, bad)
	}
	for col, name := range map[int]string{0: "A", 25: "Z", 26: "AA", 701: "ZZ", 702: "AAA", 16383: "XFD"} {
		require.Equal(t, name, columnName(col))
	}
	r, ok := parseRange([]byte("D4:B2"))
	require.True(t, ok)
	require.Equal(t, cellRange{Row1: 1, Col1: 1, Row2: 3, Col2: 3}, r)
}

func TestXMLScanner(t *testing.T) {
	t.Parallel()
	in := `<?xml version="1.0"?><!-- a > comment --><a x='1>2' y="&amp;&#65;&#x42;&bogus;"><b/>t&lt;<![CDATA[<raw>&amp;]]></a>`
	s := newXMLScanner(strings.NewReader(in))
	var got []string
	for s.next() != tokEOF {
		switch s.kind {
		case tokStart:
			x, _ := s.attr("x")
			y, _ := s.attr("y")
			got = append(got, "<"+string(s.name)+" x="+x+" y="+y+">")
			if s.selfClose {
				got = append(got, "/")
			}
		case tokEnd:
			got = append(got, "</"+string(s.name)+">")
		case tokText:
			got = append(got, s.text())
		}
	}
	require.NoError(t, s.err)
	require.Equal(t, []string{"<a x=1>2 y=&AB&bogus;>", "<b x= y=>", "/", "t<", "<raw>&amp;", "</a>"}, got)

	for name, bad := range map[string]string{
		"a DTD is refused":           `<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>`,
		"an unterminated tag":        `<a b="1`,
		"an unterminated comment":    `<a><!-- x`,
		"an over-long attribute":     `<a b="` + strings.Repeat("x", maxToken+10) + `"/>`,
		"over-long text":             `<a>` + strings.Repeat("x", maxToken+10) + `</a>`,
		"an empty tag name":          `< a/>`,
		"an unterminated CDATA":      `<a><![CDATA[xx`,
		"a malformed CDATA":          `<a><![CDAT`,
		"a truncated end tag":        `<a></a`,
		"a truncated processing ins": `<?xml `,
	} {
		s := newXMLScanner(strings.NewReader(bad))
		for s.next() != tokEOF {
		}
		require.Error(t, s.err, name)
	}
}
