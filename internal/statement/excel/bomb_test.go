package excel

import (
	"archive/zip"
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/excel/exceltest"
)

// bombSheet is a deflate stream of a worksheet that expands to about mib MiB of rows, built
// without compressing them: one MiB of whole rows is compressed once, flushed to a byte
// boundary, and its blocks repeated (a repeated block refers only to the periodic text before
// it, so it decodes to the same rows each time). It returns the compressed bytes, the expanded
// size and its CRC-32.
func bombSheet(t testing.TB, mib int) ([]byte, uint64, uint32) {
	t.Helper()
	head := []byte(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	// Rows padded with the white space XML allows between elements: it compresses at deflate's
	// best ratio (about 1:1000), so 520 MiB fit in about 750 KiB.
	unit := []byte(`<row><c><v>1</v></c></row>` + strings.Repeat(" ", 4070))
	chunk := bytes.Repeat(unit, (1<<20)/len(unit))
	tail := []byte(`</sheetData></worksheet>`)
	return exceltest.DeflateRepeated(head, chunk, tail, uint64(mib*len(chunk)))
}

// bombBook is a workbook whose sheet1 is the given raw deflate data, declared to expand to
// declared bytes.
func bombBook(t testing.TB, deflated []byte, declared uint64, crc uint32) []byte {
	t.Helper()
	book, err := exceltest.ReplaceSheet(oneSheet(`<row r="1"><c><v>1</v></c></row>`).build(t), deflated, declared, crc, 0)
	require.NoError(t, err)
	return book
}

// TestZipBombs checks that archives built to exhaust memory or time end quickly in
// ErrResourceLimit or ErrCorrupt, with the heap bounded. It does not run in parallel: it
// measures the bytes the parse allocates (runtime.MemStats.TotalAlloc, which bounds the peak
// heap from above), and other tests allocating at the same time would be counted too.
func TestZipBombs(t *testing.T) {
	deflated, size, crc := bombSheet(t, 520)
	require.Greater(t, size, uint64(512<<20))
	require.Less(t, len(deflated), 1<<20)

	var many bytes.Buffer
	zw := zip.NewWriter(&many)
	for i := range 20000 {
		_, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("xl/media/p%d", i), Method: zip.Store})
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())

	tests := []struct {
		name string
		data []byte
		opts statement.Options
		kind error
	}{
		{"520 MiB of rows in under 1 MiB, sizes declared honestly", bombBook(t, deflated, size, crc), statement.Options{}, statement.ErrResourceLimit},
		{"the same declaring 4 KiB: the real size is found out while reading", bombBook(t, deflated, 4096, crc), statement.Options{}, statement.ErrCorrupt},
		{"the same declaring 1 MiB: 256 rows are read before the lie shows", bombBook(t, deflated, 1<<20, crc), statement.Options{}, statement.ErrCorrupt},
		{"the same declaring 20 MiB under a 16 MiB limit", bombBook(t, deflated, 20<<20, crc), statement.Options{MaxDecompressedBytes: 16 << 20}, statement.ErrResourceLimit},
		{"20,000 entries", many.Bytes(), statement.Options{}, statement.ErrResourceLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Parse(tt.data, tt.opts)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, tt.kind)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v in %v, %d KiB allocated", err, elapsed, allocated>>10)
			require.Less(t, elapsed, 10*time.Second)
			require.Less(t, allocated, uint64(64<<20))
		})
	}
}
