package mt940

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/mt940/mt940test"
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

func TestGeneratedFileIsClean(t *testing.T) {
	t.Parallel()
	data, n := mt940test.Generate(1 << 20)
	st := parseFinished(t, data)
	require.Empty(t, st.Problems)
	require.Empty(t, st.Review)
	require.Len(t, st.Transactions, n)
	require.Equal(t, "E2E-INVOICE-0", st.Transactions[0].Reference)
	require.Equal(t, "E2E-INVOICE-1", st.Transactions[1].Reference)
}

// mt940Bench is the input of BenchmarkMT940vsLimits, generated once: about 20 MiB, and the
// number of transactions in it.
var mt940Bench = sync.OnceValues(func() ([]byte, int) { return mt940test.Generate(20 << 20) })

// BenchmarkMT940vsLimits sets Parse beside the raw limit on the same bytes, generated
// statements of about 20 MiB (see generate), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat; MT940
//     has no standard library reader to compare with.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the file's transactions for both, so the
// floor's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'MT940vsLimits' -benchmem -cpu 1.
func BenchmarkMT940vsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		data, tx := mt940Bench()
		benchParse(b, data, tx)
	})
	b.Run("bytes-count", func(b *testing.B) {
		data, tx := mt940Bench()
		statementtest.Measure(b, data, tx, func() error {
			if n := statementtest.Lines(data); n < tx {
				return fmt.Errorf("%d lines for %d transactions", n, tx)
			}
			return nil
		})
	})
}

// BenchmarkParseCorpus parses about 20 MB of the corpus's real statements concatenated (see
// benchInput), for the mix of banks and :86: structures a generator does not have. It reports
// MB/s, tx/s and cpu-MB/s like BenchmarkMT940vsLimits/parse.
func BenchmarkParseCorpus(b *testing.B) {
	data := benchInput(b, 20<<20)
	st, err := Parse(data, statement.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, data, len(st.Transactions))
}

// benchParse measures Parse over data, which holds tx transactions.
func benchParse(b *testing.B, data []byte, tx int) {
	statementtest.Measure(b, data, tx, func() error {
		st, err := Parse(data, statement.Options{})
		if err == nil && len(st.Transactions) != tx {
			err = fmt.Errorf("%d transactions, want %d", len(st.Transactions), tx)
		}
		return err
	})
}
