package excel

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

const benchRows = 200_000

var (
	benchOnce sync.Once
	benchData []byte
)

// benchWorkbook is a 200,000-row statement laid out as Excel saves one: a preamble, a header,
// then booking and value dates as serials with a date format, descriptions and references in
// the shared string table (Excel puts every distinct text there), amounts and running balances
// as numbers with a "#,##0.00" format, every cell with its r attribute.
func benchWorkbook(b testing.TB) []byte {
	benchOnce.Do(func() {
		var sst []string
		str := func(s string) int { sst = append(sst, "<t>"+s+"</t>"); return len(sst) - 1 }
		var rows strings.Builder
		inline := func(ref, s string) string { return fmt.Sprintf(`<c r="%s" t="s"><v>%d</v></c>`, ref, str(s)) }
		fmt.Fprintf(&rows, `<row r="1">%s</row>`, inline("A1", "Account statement"))
		fmt.Fprintf(&rows, `<row r="2">%s%s</row>`, inline("A2", "IBAN"), inline("B2", "DE89370400440532013000"))
		fmt.Fprintf(&rows, `<row r="4" spans="1:6">%s%s%s%s%s%s</row>`, inline("A4", "Booking date"), inline("B4", "Value date"),
			inline("C4", "Description"), inline("D4", "Reference"), inline("E4", "Amount"), inline("F4", "Balance"))
		descriptions := make([]int, 5000)
		for i := range descriptions {
			descriptions[i] = str(fmt.Sprintf("Card payment shop %d Berlin", i))
		}
		balance := int64(10000000)
		for i := range benchRows {
			r := i + 5
			cents := int64((i*7919)%200000 - 100000)
			balance += cents
			fmt.Fprintf(&rows, `<row r="%d" spans="1:6"><c r="A%d" s="1"><v>%d</v></c><c r="B%d" s="1"><v>%d</v></c>`+
				`<c r="C%d" t="s"><v>%d</v></c><c r="D%d" t="s"><v>%d</v></c><c r="E%d" s="2"><v>%s</v></c><c r="F%d" s="2"><v>%s</v></c></row>`,
				r, r, 45000+i/500, r, 45001+i/500, r, descriptions[i%5000], r, str(fmt.Sprintf("REF%09d", i)),
				r, centsText(cents), r, centsText(balance))
		}
		benchData = rawBook{
			xfFmts: []int{0, 14, 4},
			sst:    sst,
			sheets: []rawSheet{{name: "Statement", xml: sheetXML(rows.String())}},
		}.build(b)
	})
	return benchData
}

// centsText writes an amount in cents as Excel stores it: -1234.5, 12, 0.07.
func centsText(c int64) string {
	s := strconv.FormatFloat(float64(c)/100, 'f', -1, 64)
	return s
}

// BenchmarkXLSXCells measures reading the cells of a 200,000-row sheet into text rows.
func BenchmarkXLSXCells(b *testing.B) {
	data := benchWorkbook(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := statementtest.CPUTime()
	for range b.N {
		wb, err := openWorkbook(data, statement.Options{}.WithDefaults())
		if err != nil {
			b.Fatal(err)
		}
		sh, err := wb.readSheetAt(0)
		if err != nil {
			b.Fatal(err)
		}
		if sh.rowCount() != benchRows+3 {
			b.Fatalf("%d rows", sh.rowCount())
		}
	}
	reportRows(b, cpu)
}

// BenchmarkXLSX measures Parse end to end, table layer included, on a 200,000-row sheet
// (every row a transaction): MB/s of the .xlsx file, rows/s, rows/cpu-s, and tx/s as the other
// formats' benchmarks report it (here equal to rows/s). Run it on one core: -cpu 1.
func BenchmarkXLSX(b *testing.B) {
	data := benchWorkbook(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := statementtest.CPUTime()
	for range b.N {
		st, err := Parse(data, statement.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Transactions) != benchRows {
			b.Fatalf("%d transactions", len(st.Transactions))
		}
	}
	reportRows(b, cpu)
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "tx/s")
}

// reportRows reports rows/s by the wall clock, and rows per CPU-second: on a shared machine the
// wall clock says more about the neighbours than about the parser.
func reportRows(b *testing.B, cpuStart time.Duration) {
	b.StopTimer() // so that the rates below share one elapsed time
	rows := float64(benchRows) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	if used := statementtest.CPUTime() - cpuStart; used > 0 {
		b.ReportMetric(rows/used.Seconds(), "rows/cpu-s")
	}
}
