package statement

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestCollapseSpace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"clean text", "clean text"},
		{"  two  blanks\tand a tab\n", "two blanks and a tab"},
		{"\u00a0no-break\u00a0spaces\u202f", "no-break spaces"},
		{"\ufeffBOM first", "BOM first"},
		{"Müller  GmbH", "Müller GmbH"},
		{"   ", ""},
		{"", ""},
	} {
		require.Equal(t, tc.want, CollapseSpace(tc.in), "%q", tc.in)
	}
}

// TestCollapseSpaceDoesNotCopyCleanText is not parallel: AllocsPerRun needs the process to itself.
func TestCollapseSpaceDoesNotCopyCleanText(t *testing.T) {
	s := "already clean"
	require.Equal(t, 0.0, testing.AllocsPerRun(10, func() { _ = CollapseSpace(s) }))
}

func TestDaysIn(t *testing.T) {
	t.Parallel()
	for year := 1896; year <= 2104; year++ {
		for m := time.January; m <= time.December; m++ {
			want := time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
			require.Equal(t, want, DaysIn(year, m), "%d-%02d", year, m)
		}
	}
}

// TestDateCompareAgreesWithTime holds Compare's field-by-field path to the time.Time order it
// stands for, dates that do not exist (which Time normalises: 31 April is 1 May) included.
func TestDateCompareAgreesWithTime(t *testing.T) {
	t.Parallel()
	// Raw dates, some that do not exist (NewDate refuses them), as a Date's fields may hold.
	raw := func(y int, m time.Month, d int) Date { return Date{int32(y), uint8(m), uint8(d)} }
	dates := []Date{
		{}, raw(2024, time.February, 29), raw(2024, time.March, 1), raw(2023, time.December, 31),
		raw(2024, time.April, 31), raw(2024, time.May, 1), raw(2024, time.April, 30), raw(2024, 13, 1),
		raw(2025, time.January, 1), raw(2024, time.January, 0), raw(1, time.January, 1), raw(9999, time.December, 31),
		raw(0, time.January, 1), raw(10000, time.January, 1),
	}
	for _, d := range dates {
		for _, e := range dates {
			require.Equal(t, d.Time().Compare(e.Time()), d.Compare(e), "%v against %v", d, e)
		}
	}
}

func TestDateFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		y     int
		m     time.Month
		d     int
		valid bool
	}{
		{2024, time.February, 29, true}, {2023, time.February, 29, false}, {1, time.January, 1, true},
		{9999, time.December, 31, true}, {10000, time.January, 1, false}, {0, time.January, 1, false},
		{2024, 13, 1, false}, {2024, time.April, 31, false}, {2024, time.April, 0, false},
		{1 << 40, time.January, 1, false}, {2024, 1 << 10, 1, false}, {2024, time.January, 257, false},
	} {
		d, ok := NewDate(tc.y, tc.m, tc.d)
		require.Equal(t, tc.valid, ok, "%d-%d-%d", tc.y, tc.m, tc.d)
		if !ok {
			require.True(t, d.IsZero())
			require.Panics(t, func() { MustDate(tc.y, tc.m, tc.d) })
			continue
		}
		require.Equal(t, []int{tc.y, int(tc.m), tc.d}, []int{d.Year(), int(d.Month()), d.Day()})
		require.Equal(t, d, DateOf(d.Time()))
		require.Equal(t, d, MustDate(tc.y, tc.m, tc.d))
	}
	// Two dates a transaction: kept small, for files of a million transactions.
	require.Equal(t, uintptr(8), unsafe.Sizeof(Date{}))
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, memo, want string }{
		{"ACME LTD", "", "ACME LTD"},
		{"", "Invoice 42", "Invoice 42"},
		{"ACME", "acme ltd invoice 42", "acme ltd invoice 42"},
		{"Müller", "Zahlung MÜLLER GmbH", "Zahlung MÜLLER GmbH"},
		{"ACME", "Invoice 42", "ACME / Invoice 42"},
	} {
		require.Equal(t, tc.want, Describe(tc.name, tc.memo), "%q + %q", tc.name, tc.memo)
	}
	require.False(t, ContainsFold(strings.Repeat("x", 5000)+"ACME", "acme"), "past 4 KiB only exact matches count")
}
