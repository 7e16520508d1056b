package excel

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
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
	segment := func(data []byte, final bool) []byte {
		var b bytes.Buffer
		w, err := flate.NewWriter(&b, flate.BestCompression)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
		if final {
			require.NoError(t, w.Close())
		} else {
			require.NoError(t, w.Flush())
		}
		return b.Bytes()
	}
	var out bytes.Buffer
	out.Write(segment(head, false))
	block := segment(chunk, false)
	crc := crc32.Update(0, crc32.IEEETable, head)
	size := uint64(len(head))
	for range mib {
		out.Write(block)
		crc = crc32.Update(crc, crc32.IEEETable, chunk)
		size += uint64(len(chunk))
	}
	out.Write(segment(tail, true))
	crc = crc32.Update(crc, crc32.IEEETable, tail)
	return out.Bytes(), size + uint64(len(tail)), crc
}

// bombBook is a workbook whose sheet1 is the given raw deflate data, declared to expand to
// declared bytes.
func bombBook(t testing.TB, deflated []byte, declared uint64, crc uint32) []byte {
	t.Helper()
	small := oneSheet(`<row r="1"><c><v>1</v></c></row>`).build(t)
	zr, err := zip.NewReader(bytes.NewReader(small), int64(len(small)))
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if f.Name == "xl/worksheets/sheet1.xml" {
			w, err := zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, CRC32: crc,
				CompressedSize64: uint64(len(deflated)), UncompressedSize64: declared})
			require.NoError(t, err)
			_, err = w.Write(deflated)
			require.NoError(t, err)
			continue
		}
		require.NoError(t, zw.Copy(f))
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
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
