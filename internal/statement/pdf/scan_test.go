package pdf

import (
	"testing"

	"github.com/stretchr/testify/require"

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
