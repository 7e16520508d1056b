package statement

import (
	"strings"
	"testing"
	"time"

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
	dates := []Date{
		{}, {2024, time.February, 29}, {2024, time.March, 1}, {2023, time.December, 31},
		{2024, time.April, 31}, {2024, time.May, 1}, {2024, time.April, 30}, {2024, 13, 1},
		{2025, time.January, 1}, {2024, time.January, 0}, {1, time.January, 1}, {9999, time.December, 31},
	}
	for _, d := range dates {
		for _, e := range dates {
			require.Equal(t, d.Time().Compare(e.Time()), d.Compare(e), "%v against %v", d, e)
		}
	}
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
