package csv

import "testing"

// TestRowsHint: the result is sized for every line of a file of rows of 16 bytes or more (the
// largest file's 26-byte rows were sized short, and copied once more than they took), while a
// file of empty lines reserves a row per 16 bytes at most.
func TestRowsHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		size, lines int
		want        int
	}{
		{"25 MiB of 26-byte rows: every line", 25 << 20, 1_008_246, 1_008_247},
		{"rows of 16 bytes: every line", 16_000, 1_000, 1_001},
		{"a typical bank export, 120-byte rows", 1_200_000, 10_000, 10_001},
		{"1 MiB of empty lines: a row per 16 bytes", 1 << 20, 1 << 20, 1<<16 + 16},
		{"an empty file", 0, 0, 1},
	}
	for _, tt := range tests {
		if got := rowsHint(tt.size, tt.lines); got != tt.want {
			t.Errorf("%s: rowsHint(%d, %d) = %d, want %d", tt.name, tt.size, tt.lines, got, tt.want)
		}
	}
}
