package qif

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/statementmatch/service/internal/statement"
)

// genQIF generates a bank register of about size bytes.
func genQIF(size int) []byte {
	var b bytes.Buffer
	b.WriteString("!Type:Bank\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "D%d/%d/2023\nT%s%d,%03d.%02d\nN%d\nPMERCHANT %d LTD\nMCard payment %d London\nLGroceries\n^\n",
			i%12+1, i%28+1, []string{"-", ""}[i%2], i%90+1, i%1000, i%100, 100000+i, i%977, i)
	}
	return b.Bytes()
}

// BenchmarkParse parses a generated ~20 MB QIF register.
func BenchmarkParse(b *testing.B) {
	data := genQIF(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		st, err := Parse(data, statement.Options{})
		if err != nil || len(st.Transactions) == 0 {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, len(data))
}

// cpuTime returns the CPU time this process has used. The benchmarks report throughput per
// CPU second ("cpu-MB/s") beside the wall-clock MB/s, because on a shared machine the wall
// clock measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the throughput per CPU second of n runs over size bytes since start.
func reportCPU(b *testing.B, start time.Duration, size int) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
