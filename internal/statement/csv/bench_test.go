package csv

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
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

func BenchmarkParse(b *testing.B) {
	data := generateCSV(25 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	n := 0
	for b.Loop() {
		st, err := Parse(data, statement.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Transactions) == 0 {
			b.Fatal("no transactions")
		}
		n++
	}
	// Throughput per CPU second (all threads, garbage collection included): the figure that
	// does not depend on what else the machine runs.
	if cpu := cpuTime() - start; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(n)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
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
