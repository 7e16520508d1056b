package statement

import (
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
