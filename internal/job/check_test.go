package job_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/job"
	"github.com/statementmatch/service/internal/statement"
)

// TestCheckStatementNamesTheFormatOfAWorkbookItLeavesToTheWorker: a workbook larger than the
// head that format detection reads (whose ZIP directory, at its end, is out of the head's
// reach) and that the check leaves to the worker (a resource limit) still has its format: a job
// is never created without one.
func TestCheckStatementNamesTheFormatOfAWorkbookItLeavesToTheWorker(t *testing.T) {
	t.Parallel()
	book := bankXLSX(t)
	zr, err := zip.NewReader(bytes.NewReader(book), int64(len(book)))
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		require.NoError(t, zw.Copy(f))
	}
	for i := range 20000 { // past the parser's limit on entries, and far past 64 KiB
		_, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("xl/media/p%d.bin", i), Method: zip.Store})
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.Greater(t, buf.Len(), 64<<10)

	format, err := job.CheckStatement(fileOf("big.xlsx", buf.Bytes()), statement.Options{})
	require.ErrorIs(t, err, statement.ErrResourceLimit)
	require.Equal(t, statement.FormatXLSX, format)
}
