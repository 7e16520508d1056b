package bai2

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// generate builds a BAI2 file of about size bytes with correct trailers: groups of accounts,
// each with a mix of the record shapes seen in the corpus (value-dated fixed-width text,
// plain text with an 88 text continuation, Goldman Sachs style keyed 88s). It returns the file
// and the number of transactions in it.
func generate(size int) ([]byte, int) {
	var b strings.Builder
	b.Grow(size + 4096)
	fileRecs, fileSum, groups, txs := 0, int64(0), 0, 0
	rec := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	rec("01,GENBANK,CUSTOMER,260301,0800,1,,,2/")
	fileRecs++
	for g := 0; b.Len() < size; g++ {
		groups++
		rec(fmt.Sprintf("02,CUSTOMER,021000021,1,2603%02d,2400,USD,2/", g%28+1))
		groupRecs, groupSum, accounts := 1, int64(0), 0
		for a := 0; a < 20 && b.Len() < size; a++ {
			accounts++
			opening := int64(1_000_000 + a*1000)
			var credits, debits int64
			var body strings.Builder
			recs := 0
			for i := 0; i < 50; i++ {
				amt := int64(1000 + (i*7919+a*104729)%900000)
				switch i % 3 {
				case 0:
					credits += amt
					fmt.Fprintf(&body, "16,165,%015d,V,260301,,,,ACH CREDIT %06d      /\n", amt, i)
					recs++
				case 1:
					debits += amt
					fmt.Fprintf(&body, "16,475,%d,Z,BREF%08d,%08d,CHECK PAID NO %d TO SUPPLIER %d, INVOICE %d/\n88,PAID VIA LOCKBOX 12/03 BATCH %d/\n", amt, i, i, i, a, i, g)
					recs += 2
				default:
					credits += amt
					fmt.Fprintf(&body, "16,195,%d,,GI%013d,E2E%010d,Incoming Wire,From: CUSTOMER %d, Remittance Info: \"INV %d\", GS ID: GI%013d\n88,EREF: E2E%010d\n88,DBNM: CUSTOMER %d LLC\n88,DACT: %012d\n88,REMI: INV %d\n", amt, i, i, a, i, i, i, a, a*1000+i, i)
					recs += 5
				}
			}
			closing := opening + credits - debits
			acctSum := opening + closing + credits + debits + credits + debits
			rec(fmt.Sprintf("03,%010d,USD,010,%d,,,015,%d,,,100,%d,,,400,%d,,/", 4_000_000_000+a, opening, closing, credits, debits))
			b.WriteString(body.String())
			rec(fmt.Sprintf("49,%d,%d/", acctSum, recs+2))
			groupRecs += recs + 2
			groupSum += acctSum
			txs += 50
		}
		groupRecs++
		rec(fmt.Sprintf("98,%d,%d,%d/", groupSum, accounts, groupRecs))
		fileRecs += groupRecs
		fileSum += groupSum
	}
	fileRecs++
	rec(fmt.Sprintf("99,%d,%d,%d/", fileSum, groups, fileRecs))
	return []byte(b.String()), txs
}

func TestGeneratedFileIsClean(t *testing.T) {
	t.Parallel()
	data, n := generate(1 << 20)
	st := parseFinished(t, data)
	require.Empty(t, st.Problems)
	require.Empty(t, st.Review)
	require.Len(t, st.Transactions, n)
	tx := st.Transactions[2]
	require.Equal(t, "E2E0000000002", tx.Reference)
	require.Equal(t, "CUSTOMER 0 LLC", tx.CounterpartyName)
}

// bai2Bench is the input of BenchmarkBAI2vsLimits, generated once: about 20 MiB, and the
// number of transactions in it.
var bai2Bench = sync.OnceValues(func() ([]byte, int) { return generate(20 << 20) })

// BenchmarkBAI2vsLimits sets Parse beside the raw limit on the same bytes, a generated file of
// about 20 MiB (see generate), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat; BAI2
//     is comma-separated records, but not CSV (no quoting, '/' ends a record, 88
//     continuations), so there is no standard library reader to compare with.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the file's transactions for both, so the
// floor's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'BAI2vsLimits' -benchmem -cpu 1.
func BenchmarkBAI2vsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		data, tx := bai2Bench()
		benchParse(b, data, tx)
	})
	b.Run("bytes-count", func(b *testing.B) {
		data, tx := bai2Bench()
		statementtest.Measure(b, data, tx, func() error {
			if n := statementtest.Lines(data); n < tx {
				return fmt.Errorf("%d lines for %d transactions", n, tx)
			}
			return nil
		})
	})
}

// BenchmarkParseCorpus parses the corpus's Goldman Sachs file with its group repeated to about
// 20 MB: real records rather than generated ones. It reports MB/s, tx/s and cpu-MB/s.
func BenchmarkParseCorpus(b *testing.B) {
	sample := corpusFile(b, "moov-io__bai2__sample4-continuations-newline-delimited.txt")
	// Repeat the group: header and trailer once, the 02..98 group many times.
	text := string(sample)
	start, end := strings.Index(text, "\n02,")+1, strings.Index(text, "\n99,")+1
	var sb strings.Builder
	sb.WriteString(text[:start])
	for sb.Len() < 20<<20 {
		sb.WriteString(text[start:end])
	}
	sb.WriteString(text[end:])
	data := []byte(sb.String())
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
