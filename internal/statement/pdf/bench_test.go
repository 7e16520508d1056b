package pdf

import (
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// BenchmarkParse200Pages parses a generated 200-page statement (30 transactions a page) and
// reports pages per second (the target is at least 50), MB/s of the PDF file, and tx/s as the
// other formats' benchmarks report it. Run it on one core: -cpu 1.
func BenchmarkParse200Pages(b *testing.B) {
	const pages = 200
	data, txs := pdftest.Statement(b, pdftest.Spec{Pages: pages, RowsPerPage: 30})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		st, err := Parse(data, statement.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Transactions) != len(txs) {
			b.Fatalf("%d transactions, want %d", len(st.Transactions), len(txs))
		}
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(len(txs)*b.N)/b.Elapsed().Seconds(), "tx/s")
}
