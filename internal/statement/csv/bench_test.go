package csv

import (
	"bytes"
	stdcsv "encoding/csv"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// generateCSV writes a German-style statement of about size bytes: a preamble, a header,
// and rows with a decimal comma, thousands dots, quoted descriptions and a running balance.
func generateCSV(size int) []byte {
	var b strings.Builder
	b.Grow(size + 4096)
	b.WriteString("Kontonummer:;DE89370400440532013000\nZeitraum:;01.01.2024 - 31.12.2024\n\n")
	b.WriteString("Buchungstag;Valutadatum;Auftraggeber/Empfänger;Verwendungszweck;IBAN;Betrag;Saldo\n")
	bal := decimal.New(1000000, -2)
	payees := []string{"REWE Markt GmbH", "Stadtwerke München", "Amazon EU S.a.r.l.", "Max Mustermann", "Deutsche Bahn AG"}
	for i := 0; b.Len() < size; i++ {
		day := i%28 + 1
		month := i/1000%12 + 1
		cents := int64((i*7919)%250000 - 120000)
		amt := decimal.New(cents, -2)
		bal = bal.Add(amt)
		fmt.Fprintf(&b, "%02d.%02d.2024;%02d.%02d.2024;%s;\"Kartenzahlung %d, Ref. %08d\";DE%020d;%s;%s\n",
			day, month, day, month, payees[i%len(payees)], i, i, i, german(amt), german(bal))
	}
	return []byte(b.String())
}

// german writes d as 1.234,56.
func german(d decimal.Decimal) string {
	s := d.StringFixed(2)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var g []byte
	for i := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			g = append(g, '.')
		}
		g = append(g, intPart[i])
	}
	out := string(g) + "," + frac
	if neg {
		out = "-" + out
	}
	return out
}

// csvBench is the input of BenchmarkCSVvsLimits, generated once: about 25 MiB, and the number
// of transactions Parse reads from it.
var csvBench = sync.OnceValues(func() ([]byte, int) {
	data := generateCSV(25 << 20)
	st, err := Parse(data, statement.Options{})
	if err != nil {
		panic(err)
	}
	return data, len(st.Transactions)
})

// BenchmarkCSVvsLimits sets Parse beside the raw limits on the same bytes, a generated German
// statement of about 25 MiB (see generateCSV), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - encoding-csv: encoding/csv reading the same bytes into [][]string (ReadAll, ';'
//     separated, variable field counts): the yardstick. The target is that parse stays within
//     3x of its time, that is at least a third of its MB/s.
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the transactions Parse finds in the file
// for every sub-benchmark, so a limit's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'CSVvsLimits' -benchmem -cpu 1.
func BenchmarkCSVvsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		data, tx := csvBench()
		statementtest.Measure(b, data, tx, func() error {
			st, err := Parse(data, statement.Options{})
			if err == nil && len(st.Transactions) != tx {
				err = fmt.Errorf("%d transactions, want %d", len(st.Transactions), tx)
			}
			return err
		})
	})
	b.Run("encoding-csv", func(b *testing.B) {
		data, tx := csvBench()
		statementtest.Measure(b, data, tx, func() error {
			r := stdcsv.NewReader(bytes.NewReader(data))
			r.Comma = ';'
			r.FieldsPerRecord = -1
			records, err := r.ReadAll()
			if err == nil && len(records) < tx {
				err = fmt.Errorf("%d records for %d transactions", len(records), tx)
			}
			return err
		})
	})
	b.Run("bytes-count", func(b *testing.B) {
		data, tx := csvBench()
		statementtest.Measure(b, data, tx, func() error {
			if n := statementtest.Lines(data); n < tx {
				return fmt.Errorf("%d lines for %d transactions", n, tx)
			}
			return nil
		})
	})
}

// TestMemory25MiB measures the heap a 25 MiB file needs: the peak of HeapInuse sampled while
// parsing, and the total allocated.
func TestMemory25MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 25 MiB")
	}
	data := generateCSV(25 << 20)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var max uint64
		for {
			select {
			case <-stop:
				peak <- max
				return
			default:
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > max {
				max = m.HeapInuse
			}
		}
	}()
	st, err := Parse(data, statement.Options{})
	close(stop)
	p := <-peak
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("input %.1f MiB, %d transactions; peak heap in use %.1f MiB (input included), total allocated %.1f MiB, heap sys %.1f MiB",
		float64(len(data))/(1<<20), len(st.Transactions), float64(p)/(1<<20),
		float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), float64(after.HeapSys)/(1<<20))
	if p > 200<<20 {
		t.Errorf("peak heap %d MiB is over 200 MiB", p>>20)
	}
}
