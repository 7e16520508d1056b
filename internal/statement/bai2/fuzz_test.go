package bai2

import (
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// FuzzBAI2 feeds the parser mutations of the corpus: it must never panic, and a statement it
// returns must be consistent.
func FuzzBAI2(f *testing.F) {
	statementtest.AddCorpus(f, statementtest.CorpusDir)
	f.Add(wellFormed)
	f.Add([]byte("01,S,R,260301,0800,1,40,,2/   02,R,O,1,260228,,USD,2/ 03,1,,010,100,,,/ 16,195,50,Z,,,PAID/ 49,150,3/"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Stream, which the parse jobs use, must read every file as Parse does.
		statementtest.ParsedAndStreamed(t, data, statement.Options{MaxRows: 10_000}, Parse, Stream)
		st, err := Parse(data, statement.Options{MaxRows: 10_000})
		if err != nil {
			if st != nil {
				t.Fatal("a statement and an error")
			}
			return
		}
		requireConsistent(t, st)
	})
}
