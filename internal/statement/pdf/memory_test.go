package pdf

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// liveHeap is the heap the program still reaches, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestGridLetsGoOfPages holds buildGrid to what makes a long statement's memory flat: once a
// page's rows are in the grid, nothing keeps that page's lines (words, cells) alive, so the
// grid of 200 pages weighs far less than their lines did. A pointer to a line kept anywhere in
// the grid (a map keyed by *line, a table's list of its lines) would pin every page again.
// Not parallel: it measures the process's heap.
func TestGridLetsGoOfPages(t *testing.T) {
	data, _ := pdftest.Statement(t, pdftest.Spec{Pages: 200, RowsPerPage: 30})
	before := liveHeap()
	ex, err := extract(data, statement.Options{}.WithDefaults(), maxHeldLines)
	require.NoError(t, err)
	pages := ex.pages
	ex = nil
	lines := liveHeap() - before
	g := buildGrid(pages)
	for i := range pages.len() {
		require.True(t, pages.lines[i] == nil && pages.packed[i] == nil, "page %d's lines are still in pages", i+1)
	}
	grid := liveHeap() - before
	t.Logf("the lines of 200 pages: %d KiB live; the grid: %d KiB", lines>>10, grid>>10)
	require.Less(t, float64(grid), 0.6*float64(lines), "the grid holds on to the pages' lines")
	runtime.KeepAlive(data)
	runtime.KeepAlive(g)
}

// TestPackedPagesWeighLess holds pageStore to what it is for: the lines of a long statement,
// packed, weigh well under half of the same lines held as read (a third, measured), so that
// the whole document's lines, which the table is found over, stay small beside the grid. Not
// parallel: it measures the process's heap.
func TestPackedPagesWeighLess(t *testing.T) {
	data, _ := pdftest.Statement(t, pdftest.Spec{Pages: 200, RowsPerPage: 30})
	weigh := func(held int) uint64 {
		before := liveHeap()
		ex, err := extract(data, statement.Options{}.WithDefaults(), held)
		require.NoError(t, err)
		n := liveHeap() - before
		require.Equal(t, 200, ex.pages.len())
		runtime.KeepAlive(ex)
		return n
	}
	held, packed := weigh(-1), weigh(0)
	t.Logf("the lines of 200 pages: %d KiB held as read, %d KiB packed", held>>10, packed>>10)
	require.Less(t, float64(packed), 0.5*float64(held), "packed pages weigh as much as held ones")
}
