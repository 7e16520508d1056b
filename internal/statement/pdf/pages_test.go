package pdf

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// allLines returns every page's lines, unpacking the packed ones.
func allLines(s *pageStore) [][]line {
	out := make([][]line, s.len())
	for i := range out {
		out[i] = s.page(i)
	}
	return out
}

// TestPackLinesKeepsEveryBit packs lines of every kind (numbers to the bit, -0 and infinities,
// cells of one word and of several, a line emptied by mergeHeaderLines, text in any script)
// and requires exactly the same lines back.
func TestPackLinesKeepsEveryBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "a", "12.345,67", "Überweisung", "תשלום", "日付", "x\x00y", strings.Repeat("long ", 60)}
	num := func() float64 {
		switch rng.IntN(8) {
		case 0:
			return math.Copysign(0, -1)
		case 1:
			return math.Inf(1 - 2*rng.IntN(2))
		case 2:
			return 0
		}
		return (rng.Float64() - 0.3) * 1000
	}
	for range 200 {
		var ls []line
		for no := range rng.IntN(6) {
			l := line{page: 1 + rng.IntN(3000), no: no + 1, y: num(), size: num(), header: int8(rng.IntN(3))}
			var prev run
			for range rng.IntN(9) {
				w := run{text: texts[rng.IntN(len(texts))], x0: num(), x1: num(), y: prev.y, size: prev.size, space: prev.space}
				if rng.IntN(2) == 0 {
					w.y = num()
				}
				if rng.IntN(2) == 0 {
					w.size = num()
				}
				if rng.IntN(2) == 0 {
					w.space = num()
				}
				l.words = append(l.words, w)
				prev = w
			}
			for first := 0; first < len(l.words); {
				last := first + 1 + rng.IntN(len(l.words)-first)
				c := cell{first: int32(first), last: int32(last), amount: rng.IntN(2) == 0, date: rng.IntN(2) == 0}
				switch rng.IntN(3) {
				case 0:
					c.text, c.x0, c.x1 = l.words[first].text, l.words[first].x0, l.words[last-1].x1
				default:
					c.text, c.x0, c.x1 = texts[rng.IntN(len(texts))], num(), num()
				}
				l.cells = append(l.cells, c)
				first = last
			}
			ls = append(ls, l)
		}
		got := unpackLines(packLines(ls))
		if len(ls) == 0 {
			require.Empty(t, got)
			continue
		}
		require.Equal(t, len(ls), len(got))
		for i := range ls {
			requireSameLine(t, ls[i], got[i])
		}
	}
}

// requireSameLine compares two lines to the bit (require.Equal takes -0 for 0).
func requireSameLine(t *testing.T, want, got line) {
	t.Helper()
	bits := math.Float64bits
	require.Equal(t, fmt.Sprintf("%d %d %x %x %d", want.page, want.no, bits(want.y), bits(want.size), want.header),
		fmt.Sprintf("%d %d %x %x %d", got.page, got.no, bits(got.y), bits(got.size), got.header))
	require.Equal(t, len(want.words), len(got.words))
	for i, w := range want.words {
		g := got.words[i]
		require.Equal(t, fmt.Sprintf("%q %x %x %x %x %x", w.text, bits(w.x0), bits(w.x1), bits(w.y), bits(w.size), bits(w.space)),
			fmt.Sprintf("%q %x %x %x %x %x", g.text, bits(g.x0), bits(g.x1), bits(g.y), bits(g.size), bits(g.space)))
	}
	require.Equal(t, len(want.cells), len(got.cells))
	for i, c := range want.cells {
		g := got.cells[i]
		require.Equal(t, fmt.Sprintf("%q %x %x %d %d %v %v", c.text, bits(c.x0), bits(c.x1), c.first, c.last, c.amount, c.date),
			fmt.Sprintf("%q %x %x %d %d %v %v", g.text, bits(g.x0), bits(g.x1), g.first, g.last, g.amount, g.date))
	}
}

// TestPackedPagesReadTheSame reads every PDF of the corpus, the package's own test files and
// generated statements twice, holding every page as read and packing every page from the
// first, and requires the same statement, or the same error, from both: buildGrid reads a
// packed page as it reads a held one. Stream must read each as Parse does.
func TestPackedPagesReadTheSame(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{}
	paths, err := filepath.Glob(filepath.Join("..", "corpus", "testdata", "*.pdf"))
	require.NoError(t, err)
	more, err := filepath.Glob(filepath.Join("testdata", "*", "*.pdf"))
	require.NoError(t, err)
	require.Greater(t, len(paths), 50, "the corpus is missing")
	for _, p := range append(paths, more...) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		files[p] = data
	}
	for i, spec := range []pdftest.Spec{
		{Pages: 12, RowsPerPage: 25},
		{Pages: 5, HeaderOnce: true, Signed: true},
		{Pages: 4, CP1250: true, DateFormat: "2006-01-02"},
	} {
		files[fmt.Sprintf("generated-%d", i)], _ = pdftest.Statement(t, spec)
	}
	for name, data := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			opts := statement.Options{}
			if key, err := os.ReadFile(strings.TrimSuffix(name, ".pdf") + ".key.json"); err == nil {
				var k struct{ Password string }
				require.NoError(t, json.Unmarshal(key, &k))
				opts.Password = k.Password
			}
			held, heldErr := parse(data, opts, -1)
			packed, packedErr := parse(data, opts, 0)
			require.Equal(t, fmt.Sprint(heldErr), fmt.Sprint(packedErr))
			require.Equal(t, held, packed)
			// Stream, which the parse jobs use, reads as Parse does, held or packed.
			statementtest.ParsedAndStreamed(t, data, opts,
				func(d []byte, o statement.Options) (*statement.Statement, error) { return parse(d, o, 0) },
				func(d []byte, o statement.Options) (*statement.Stream, error) { return stream(d, o, -1) })
		})
	}
}
