package csv

import (
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// FuzzCSV feeds the parser mutations of the corpus: it must not panic, a successful parse
// must be consistent (sections delimit the transactions, each with its text and line), and
// Stream must read what Parse reads.
func FuzzCSV(f *testing.F) {
	statementtest.AddCorpus(f, statementtest.CorpusDir)
	f.Add([]byte(germanStatement))
	f.Add([]byte(czechStatement))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := statementtest.ParsedAndStreamed(t, data, statement.Options{MaxRows: 10000}, Parse, Stream)
		if err != nil {
			return
		}
		checkConsistent(t, st)
	})
}
