package ocr

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tsv writes Tesseract's TSV for one page of w×h pixels and its words (level 5 rows).
func tsv(w, h int, words []Word) []byte {
	var b strings.Builder
	b.WriteString("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n")
	fmt.Fprintf(&b, "1\t1\t0\t0\t0\t0\t0\t0\t%d\t%d\t-1\t\n", w, h)
	for i, wd := range words {
		fmt.Fprintf(&b, "5\t1\t1\t1\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%s\n", wd.Line, i+1, wd.Left, wd.Top, wd.Width, wd.Height, wd.Conf, wd.Text)
	}
	return []byte(b.String())
}

func TestParseTSV(t *testing.T) {
	t.Parallel()
	out := []byte("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t200\t300\t400\t30\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t200\t300\t90\t30\t96.5\t12th\n" +
		"5\t1\t1\t1\t1\t2\t300\t300\t60\t30\t95\tFeb\n" +
		"5\t1\t2\t1\t1\t1\t200\t900\t2100\t7\t95\t \n" + // a rule line, read as a space
		"5\t1\t2\t1\t2\t1\t200\t950\t80\t28\t-1\tjunk\n" + // no confidence: not a word
		"1\t2\t0\t0\t0\t0\t0\t0\t1240\t1754\t-1\t\n" +
		"5\t2\t1\t1\t1\t1\t10\t20\t30\t15\t80\t1,250.50\n" +
		"5\t2\t1\t1\t1\t1\tshort row\n")
	pages, err := parseTSV(out)
	require.NoError(t, err)
	require.Len(t, pages, 2)
	require.Equal(t, 2480, pages[0].Width)
	require.Equal(t, []string{"12th", "Feb"}, []string{pages[0].Words[0].Text, pages[0].Words[1].Text})
	require.Len(t, pages[0].Words, 2, "a blank word and one without confidence are left out")
	require.Equal(t, pages[0].Words[0].Line, pages[0].Words[1].Line)
	require.Equal(t, 1754, pages[1].Height)
	require.Equal(t, "1,250.50", pages[1].Words[0].Text)
	require.InDelta(t, 80.0, pages[1].Confidence(), 1e-9)
}

// TestStraighten: the words of one printed row on a page scanned askew end at one baseline
// once straightened, whatever the tilt, and a word with a descender does not pull it down.
func TestStraighten(t *testing.T) {
	t.Parallel()
	for _, deg := range []float64{-2.5, -1, 0, 0.7, 3} {
		t.Run(fmt.Sprintf("%.1f degrees", deg), func(t *testing.T) {
			t.Parallel()
			tan := math.Tan(deg * math.Pi / 180)
			var words []Word
			// Two rows 60 px apart, each of five words, the page tilted by deg.
			for row := range 2 {
				for i, text := range []string{"12th", "Feb", "PAYMENT", "shopping", "62.22"} {
					x := 200 + float64(i)*400
					bottom := 1000 + float64(row)*60 + (x-1240)*tan
					h := 28.0
					if descends(text) {
						h = 36 // the descender reaches below the baseline
					}
					words = append(words, Word{Text: text, Left: x, Width: 120, Top: bottom - 28, Height: h, Conf: 95, Line: row + 1})
				}
			}
			pages, err := parseTSV(tsv(2480, 3508, words))
			require.NoError(t, err)
			p := pages[0]
			before := slices.Clone(p.Words)
			straighten(&p)
			require.InDelta(t, deg, p.Skew, 0.1)
			for i, w := range p.Words {
				// The word's centre is found again where it stood on the page as scanned.
				x, y := p.ToSource(w.Left+w.Width/2, w.Top+w.Height/2)
				require.InDelta(t, before[i].Left+before[i].Width/2, x, 0.01)
				require.InDelta(t, before[i].Top+before[i].Height/2, y, 0.01)
			}
			base := map[int]float64{}
			var lines []int
			for _, w := range p.Words {
				if b, ok := base[w.Line]; ok {
					require.InDelta(t, b, w.Baseline, 0.5, "one baseline a row")
					continue
				}
				base[w.Line] = w.Baseline
				lines = append(lines, w.Line)
			}
			require.Len(t, lines, 2)
			require.InDelta(t, 60, base[lines[1]]-base[lines[0]], 2, "the rows stay apart")
		})
	}
}

// FuzzTSV: any output of the OCR program is read without a panic, and every word it keeps has
// text and a confidence.
func FuzzTSV(f *testing.F) {
	f.Add(tsv(100, 100, []Word{{Text: "a", Left: 1, Top: 2, Width: 3, Height: 4, Conf: 90, Line: 1}}))
	f.Add([]byte("level\n1\t1\t0\t0\t0\t0\t0\t0\tx\ty\t-1\t\n5\t1\t1\t1\t1\t1\t1\t1\t1\t1\t1\t\t\n"))
	f.Add([]byte("\n\n5\t1\t1\t1\t1\t1\t1e308\t-1e308\tNaN\tInf\t50\tw\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		pages, err := parseTSV(out)
		if err != nil {
			return
		}
		for i := range pages {
			straighten(&pages[i])
			repairSeparators(&pages[i])
			for _, w := range pages[i].Words {
				if strings.TrimSpace(w.Text) == "" || w.Conf < 0 {
					t.Fatalf("kept a word without text or confidence: %+v", w)
				}
			}
		}
	})
}

// TestCleanWord: specks go, quotes leave words, a minus read as a quote or tilde is a minus
// again, and letters read for digits in a number are digits again.
func TestCleanWord(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"_", ""},
		{"|", ""},
		{"—", ""},
		{"-", "-"},
		{"“Paid", "Paid"},
		{"Paid”", "Paid"},
		{"“970.75", "-970.75"},
		{"~2,434.63", "-2,434.63"},
		{"—86.00", "-86.00"},
		{"‘1.250,00", "-1.250,00"},
		{"-86.00", "-86.00"},
		{"'23", "'23"},
		{"“2023”", "“2023”"},
		{"1,O5O.00", "1,050.00"},
		{"Ist", "1st"},
		{"Sth", "5th"},
		{"73,39S", "73,39S"},
		{"SOLO", "SOLO"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, cleanWord(tc.in), tc.in)
	}
}

// TestRepairSeparators: an amount that cannot be written with its page's decimal mark had a
// separator misread and takes the page's; a page without a clear mark is left alone.
func TestRepairSeparators(t *testing.T) {
	t.Parallel()
	page := func(texts ...string) *Page {
		p := &Page{}
		for _, s := range texts {
			p.Words = append(p.Words, Word{Text: s})
		}
		return p
	}
	texts := func(p *Page) []string {
		var out []string
		for _, w := range p.Words {
			out = append(out, w.Text)
		}
		return out
	}
	cases := []struct {
		name string
		in   []string
		want []string
	}{
		{"a point page", []string{"1,234.56", "12.50", "-86.00", "2,418,80", "8.677.99", "-4,314,27", "12,50", "2023-01-05"},
			[]string{"1,234.56", "12.50", "-86.00", "2,418.80", "8,677.99", "-4,314.27", "12.50", "2023-01-05"}},
		{"a comma page", []string{"1.234,56", "73,39", "115,64", "2.740.96", "9,374,29"},
			[]string{"1.234,56", "73,39", "115,64", "2.740,96", "9.374,29"}},
		{"no clear mark", []string{"1,234.56", "1.234,56", "12.50", "2,418,80"},
			[]string{"1,234.56", "1.234,56", "12.50", "2,418,80"}},
		{"signs, symbols and brackets stay", []string{"$1,234.56", "(12.50)", "£3.40", "($2,418,80)"},
			[]string{"$1,234.56", "(12.50)", "£3.40", "($2,418.80)"}},
	}
	for _, tc := range cases {
		p := page(tc.in...)
		repairSeparators(p)
		require.Equal(t, tc.want, texts(p), tc.name)
	}
}
