package qif

import (
	"fmt"
	"sync"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/qif/qiftest"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// qifBench is the input of BenchmarkQIFvsLimits, generated once: about 20 MiB, and the number
// of transactions Parse reads from it.
var qifBench = sync.OnceValues(func() ([]byte, int) {
	data, n := qiftest.Generate(20 << 20)
	if st, err := Parse(data, statement.Options{}); err != nil || len(st.Transactions) != n {
		panic(fmt.Sprint("the generated register does not read back: ", err))
	}
	return data, n
})

// BenchmarkQIFvsLimits sets Parse beside the raw limit on the same bytes, a generated bank
// register of about 20 MiB (qiftest.Generate), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat; QIF
//     is line-based, with no standard library reader to compare with.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the transactions Parse finds in the file
// for both, so the floor's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'QIFvsLimits' -benchmem -cpu 1.
func BenchmarkQIFvsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		data, tx := qifBench()
		statementtest.Measure(b, data, tx, func() error {
			st, err := Parse(data, statement.Options{})
			if err == nil && len(st.Transactions) != tx {
				err = fmt.Errorf("%d transactions, want %d", len(st.Transactions), tx)
			}
			return err
		})
	})
	b.Run("bytes-count", func(b *testing.B) {
		data, tx := qifBench()
		statementtest.Measure(b, data, tx, func() error {
			if n := statementtest.Lines(data); n < tx {
				return fmt.Errorf("%d lines for %d transactions", n, tx)
			}
			return nil
		})
	})
}

// cpuTime returns the CPU time this process has used. The benchmarks report throughput per
// CPU second ("cpu-MB/s") beside the wall-clock MB/s, because on a shared machine the wall
