package pdf

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/ocr"
)

// TestRunsOfOCRWords: OCR words become runs in points, y up from the page's foot at their
// line's baseline; lines near the page's common size take it, a speck does not make its line
// small, and a line of specks alone takes the page's size.
func TestRunsOfOCRWords(t *testing.T) {
	t.Parallel()
	w := func(text string, left, top, width, height float64, line int) ocr.Word {
		return ocr.Word{Text: text, Left: left, Top: top, Width: width, Height: height, Conf: 95, Line: line, Baseline: top + height}
	}
	p := ocr.Page{Width: 2480, Height: 3508, DPI: 300, Words: []ocr.Word{
		w("Trans", 200, 1000, 100, 30, 1), w("Post", 400, 1000, 90, 28, 1), w("Amount", 2100, 1000, 150, 31, 1),
		w("Date", 200, 1050, 90, 29, 2), w("5", 330, 1070, 8, 6, 2), // a speck in the second line
		w(".", 900, 1500, 6, 6, 3),           // a line of a speck alone
		w("STATEMENT", 200, 300, 600, 80, 4), // a heading, well above the common size
	}}
	runs := runsOf(p)
	require.Len(t, runs, len(p.Words))
	bySize := map[string]float64{}
	for _, r := range runs {
		bySize[r.text] = r.size
	}
	require.InDelta(t, bySize["Trans"], bySize["Date"], 1e-9, "the two lines of a header have one size")
	require.Equal(t, bySize["Date"], bySize["5"], "the speck takes its line's size")
	require.Equal(t, bySize["Trans"], bySize["."], "a line of a speck alone takes the page's common size")
	require.Greater(t, bySize["STATEMENT"], 1.5*bySize["Trans"], "a heading keeps its own size")
	require.InDelta(t, 8, bySize["Trans"], 2, "about 8 points: 28-pixel capitals at 300 DPI")
	for _, r := range runs {
		if r.text == "Trans" {
			require.InDelta(t, (3508.0-1030)*72/300, r.y, 1e-9, "y is the baseline's height above the foot, in points")
			require.InDelta(t, 200.0*72/300, r.x0, 1e-9)
		}
	}
}

// wordsPage lays out rows of cells as OCR words: each row a line, 60 pixels apart at 300 DPI,
// each cell's words at its column's left edge.
func wordsPage(rows [][]string) ocr.Page {
	cols := []float64{200, 700, 1500, 2000}
	p := ocr.Page{Width: 2480, Height: 3508, DPI: 300}
	for i, row := range rows {
		top := 400 + 60*float64(i)
		for c, cell := range row {
			x := cols[c]
			for _, word := range strings.Fields(cell) {
				width := 22 * float64(len(word))
				p.Words = append(p.Words, ocr.Word{Text: word, Left: x, Top: top, Width: width, Height: 30,
					Conf: 95, Line: i + 1, Baseline: top + 30})
				x += width + 20
			}
		}
	}
	return p
}

// TestParseReadings: a scanned statement is read again in the next mode while its reading does
// not reconcile, the first reading that does is taken, else the one with the most
// transactions; an attempt's end stops it, and a long statement is read once.
func TestParseReadings(t *testing.T) {
	t.Parallel()
	table := func(salary string, rows int) ocr.Page {
		lines := [][]string{{"Date", "Description", "Amount", "Balance"}}
		all := [][]string{
			{"13/03/2023", "Coffee shop", "-3.50", "96.50"},
			{"14/03/2023", "Salary ACME", salary, "1,096.50"},
			{"15/03/2023", "Rent", "-500.00", "596.50"},
		}
		return wordsPage(append(lines, all[:rows]...))
	}
	// A misread salary: the running balance does not bear it out.
	right, misread, short := table("1,000.00", 3), table("1,600.00", 3), table("1,600.00", 2)
	cases := []struct {
		name       string
		readings   map[ocr.Mode]ocr.Page
		scanned    int
		wantReads  []ocr.Mode
		wantSalary string // the second transaction's amount
		wantCount  int
	}{
		{"first reconciles", map[ocr.Mode]ocr.Page{ocr.Blocks: right, ocr.Column: misread}, 1,
			[]ocr.Mode{ocr.Blocks}, "1000", 3},
		{"second reconciles", map[ocr.Mode]ocr.Page{ocr.Blocks: misread, ocr.Column: right}, 1,
			[]ocr.Mode{ocr.Blocks, ocr.Column}, "1000", 3},
		{"none reconciles: most transactions", map[ocr.Mode]ocr.Page{ocr.Blocks: short, ocr.Column: misread, ocr.Sparse: short}, 1,
			ocr.Modes, "1600", 3},
		{"too long to read again", map[ocr.Mode]ocr.Page{ocr.Blocks: misread, ocr.Column: right}, MaxRereadPages + 1,
			[]ocr.Mode{ocr.Blocks}, "1600", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var reads []ocr.Mode
			read := func(m ocr.Mode) ([]ocr.Page, error) {
				reads = append(reads, m)
				p, ok := tc.readings[m]
				if !ok {
					return []ocr.Page{{Width: 2480, Height: 3508, DPI: 300}}, nil
				}
				return []ocr.Page{p}, nil
			}
			st, err := ParseReadings(Scanned{Read: read, Pages: tc.scanned}, statement.FormatPNG, statement.Options{})
			require.NoError(t, err)
			require.Equal(t, tc.wantReads, reads)
			require.Len(t, st.Transactions, tc.wantCount)
			require.Equal(t, tc.wantSalary, st.Transactions[1].Amount.String())
		})
	}
	t.Run("the attempt ends", func(t *testing.T) {
		t.Parallel()
		calls := 0
		_, err := ParseReadings(Scanned{Read: func(ocr.Mode) ([]ocr.Page, error) {
			calls++
			return nil, context.Canceled
		}, Pages: 1}, statement.FormatPNG, statement.Options{})
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 1, calls, "no other reading is tried")
	})
	t.Run("no reading finds a table", func(t *testing.T) {
		t.Parallel()
		_, err := ParseReadings(Scanned{Read: func(ocr.Mode) ([]ocr.Page, error) {
			return []ocr.Page{wordsPage([][]string{{"Dear customer"}})}, nil
		}, Pages: 1}, statement.FormatPNG, statement.Options{})
		var se *statement.Error
		require.ErrorAs(t, err, &se, "the first reading's failure")
	})
	// Pages that lie the wrong way read as junk, or as words in columns: when the first reading
	// finds no transaction they are turned upright once, and read again from the first mode. A
	// reading with transactions is no reason to turn them, and pages that are upright already
	// go on to the next modes.
	junk := wordsPage([][]string{{"uʍop", "ǝpısdn"}})
	for _, tc := range []struct {
		name       string
		first      ocr.Page
		lying      bool
		wantTurn   bool
		wantReads  []string
		wantTxs    int
		wantFailed bool
	}{
		{"no transaction, pages lying", junk, true, true, []string{"3 lying", "3 up"}, 3, false},
		{"no transaction, pages upright", junk, false, true, []string{"3 lying", "4 lying", "11 lying"}, 0, true},
		{"a reading with transactions", misread, true, false, []string{"3 lying", "4 lying", "11 lying"}, 3, false},
	} {
		t.Run("upright: "+tc.name, func(t *testing.T) {
			t.Parallel()
			up, turns := false, 0
			var reads []string
			sc := Scanned{Pages: 1,
				Read: func(m ocr.Mode) ([]ocr.Page, error) {
					if up {
						reads = append(reads, fmt.Sprint(int(m), " up"))
						return []ocr.Page{right}, nil
					}
					reads = append(reads, fmt.Sprint(int(m), " lying"))
					return []ocr.Page{tc.first}, nil
				},
				Upright: func() (bool, error) {
					turns++
					up = tc.lying
					return tc.lying, nil
				},
			}
			st, err := ParseReadings(sc, statement.FormatPNG, statement.Options{})
			require.Equal(t, tc.wantReads, reads)
			require.Equal(t, tc.wantTurn, turns == 1)
			if tc.wantFailed {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Len(t, st.Transactions, tc.wantTxs)
		})
	}
}
