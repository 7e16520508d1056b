package mt940

import (
	"bytes"
	"os"
	"testing"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// benchInput concatenates the corpus's MT940 files until about size bytes: the UTF-8 ones
// without SOH/ETX or DOS end-of-file bytes, which would each switch the whole input to another
// charset or the slower line scanner, and without the MT942 reports.
func benchInput(b *testing.B, size int) []byte {
	b.Helper()
	var files [][]byte
	for _, path := range statementtest.CorpusFiles(b, statementtest.CorpusDir) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if bytes.ContainsAny(data, "\x01\x03\x1a") || !utf8.Valid(data) || bytes.Contains(data, []byte(":34F:")) {
			continue
		}
		if data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		files = append(files, data)
	}
	var buf bytes.Buffer
	for buf.Len() < size {
		for _, f := range files {
			buf.Write(f)
		}
	}
	return buf.Bytes()
}

// BenchmarkParse parses about 20 MB of concatenated real statements per iteration. Besides
// the wall-clock MB/s it reports MB per CPU-second of the process (parsing and garbage
// collection), which stays meaningful on a machine busy with other work.
func BenchmarkParse(b *testing.B) {
	data := benchInput(b, 20<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuTime()
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
	if used := (cpuTime() - cpu0).Seconds(); cpu0 > 0 && used > 0 {
		b.ReportMetric(float64(n)*float64(len(data))/1e6/used, "MB/cpu-s")
	}
}
