package corpus

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// BenchmarkRealLayout parses the corpus's longest statement, a year of a UK current account
// rendered by LibreOffice over 68 pages (wrapped descriptions, a summary box, repeated
// headers, page furniture), the way a job does: detection, the PDF reader, the table reader
// and the checks. It reports pages/s beside the usual figures; the target is 50 pages in
// under a second on one core (-cpu 1).
func BenchmarkRealLayout(b *testing.B) {
	const name = "uk-current-year-libreoffice"
	path := filepath.Join("testdata", name+".pdf")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	k, err := ReadKey(path)
	if err != nil {
		b.Fatal(err)
	}
	pages := 0
	statementtest.Measure(b, data, len(k.Transactions), func() error {
		st, err := engine.Parse(data, statement.Options{})
		if err != nil {
			return err
		}
		if len(st.Transactions) != len(k.Transactions) {
			b.Fatalf("%d transactions, want %d", len(st.Transactions), len(k.Transactions))
		}
		_, rest, _ := strings.Cut(st.Dialect, "pages=")
		pages, _ = strconv.Atoi(strings.SplitN(rest, ";", 2)[0])
		return nil
	})
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
}
