package pdf

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// parseForTest is the entry point the hostile tests drive.
func parseForTest(data []byte, opts statement.Options) (*statement.Statement, error) {
	return Parse(data, opts)
}

// FuzzPDFExtract feeds mutated statement PDFs to Parse: it must not panic (a contained panic
// shows as ErrInternal), every failure must be a *statement.Error, and a statement it returns
// must be consistent once finished, and the same with the pages packed. (A truncated statement whose table has a header and no
// rows parses to no transactions: the table reader's call, see testdata/fuzz.)
func FuzzPDFExtract(f *testing.F) {
	for _, s := range []pdftest.Spec{
		{Pages: 1, RowsPerPage: 4},
		{Pages: 1, RowsPerPage: 4, NoCompress: true},
		{Pages: 2, RowsPerPage: 3, Signed: true, HeaderOnce: true},
		{Pages: 1, RowsPerPage: 3, Protect: true},
		{Pages: 1, RowsPerPage: 3, CP1250: true},
	} {
		data, _ := pdftest.Statement(f, s)
		f.Add(data)
	}
	if ttf := pdftest.DejaVu(); ttf != "" {
		data, _ := pdftest.Statement(f, pdftest.Spec{Pages: 1, RowsPerPage: 3, UTF8Font: ttf})
		f.Add(data)
	}
	f.Add(onePage(tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) })))
	f.Add(pdftest.Compressed(tableObjects()...))
	// The real producers' files (object streams, linearization, encryption; see
	// open_test.go), those under 4 KiB: the fuzzer minimizes every new input it finds, which
	// takes long on the larger files with embedded fonts.
	fixtures, err := filepath.Glob(filepath.Join("testdata", "open", "*.pdf"))
	if err != nil || len(fixtures) == 0 {
		f.Fatalf("no fixtures in testdata/open: %v", err)
	}
	for _, name := range fixtures {
		if data := fixture(f, filepath.Base(name)); len(data) <= 4<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := statement.Options{MaxDecompressedBytes: 16 << 20}
		st, err := Parse(data, opts)
		// With every page packed from the first (pageStore), the file reads the same.
		packed, perr := parse(data, opts, 0)
		if fmt.Sprint(err) != fmt.Sprint(perr) || !reflect.DeepEqual(st, packed) {
			t.Fatalf("packed pages read otherwise: %v, %v", err, perr)
		}
		if err != nil {
			var se *statement.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *statement.Error", err)
			}
			if errors.Is(err, statement.ErrInternal) {
				t.Fatalf("contained panic: %v", err)
			}
			return
		}
		statement.Finish(st)
		for _, sec := range st.Sections {
			if sec.First < 0 || sec.Count < 0 || sec.First+sec.Count > len(st.Transactions) {
				t.Fatalf("section %+v outside %d transactions", sec, len(st.Transactions))
			}
		}
	})
}
