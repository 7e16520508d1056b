package statementtest

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// Measure runs pass b.N times over data and reports, beside ns/op and the MB/s of SetBytes,
// tx/s (tx transactions a pass) and cpu-MB/s (see ReportCPU).
func Measure(b *testing.B, data []byte, tx int, pass func() error) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runtime.GC() // the setup's garbage is not the loop's to collect
	start := CPUTime()
	for b.Loop() {
		if err := pass(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tx)*float64(b.N)/b.Elapsed().Seconds(), "tx/s")
	ReportCPU(b, start, len(data))
}

// ReportCPU reports cpu-MB/s, size bytes a pass over the CPU time used since start (a CPUTime):
// MB per CPU-second of the whole process, all threads and garbage collection included, the
// figure that does not depend on what else the machine runs. Nothing is reported where the CPU
// time is unknown.
func ReportCPU(b *testing.B, start time.Duration, size int) {
	if used := CPUTime() - start; start > 0 && used > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/used.Seconds(), "cpu-MB/s")
	}
}

// Lines counts the newlines of data: the bytes-count yardstick of the parsers' benchmarks, the
// memory-speed floor nothing can beat.
func Lines(data []byte) int { return bytes.Count(data, newline) }

var newline = []byte{'\n'}
