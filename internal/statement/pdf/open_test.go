package pdf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// tableObjects are the objects of onePage showing tableContent: catalog, page tree, page,
// font, content stream.
func tableObjects() []string {
	content := tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) })
	return []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		streamObj("", []byte(content)),
	}
}

// requireTableText checks that the extraction holds the rows of tableContent.
func requireTableText(t *testing.T, ex *extraction) {
	t.Helper()
	var all []string
	for _, pg := range ex.pages {
		for _, l := range pg {
			all = append(all, l.text())
		}
	}
	text := strings.Join(all, "\n")
	for _, w := range []string{"Date", "Coffee shop", "1,596.50"} {
		require.Contains(t, text, w)
	}
}

// TestOpenWhatViewersOpen reproduces the shapes of files that poppler and pdfium open, each
// from a real producer's habit, named in the case.
func TestOpenWhatViewersOpen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
	}{
		// pdfTeX, qpdf --object-streams=generate, Word and Acrobat's smaller files: the
		// catalog, page tree, pages and fonts are inside an object stream, indexed by an xref
		// stream. pdfcpu leaves these objects unparsed until they are dereferenced.
		{name: "objects stored in an object stream are read", data: pdftest.Compressed(tableObjects()...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ex, err := extract(tc.data, statement.Options{}.WithDefaults())
			require.NoError(t, err)
			requireTableText(t, ex)
		})
	}
}
