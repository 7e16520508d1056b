package bai2

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
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

// BenchmarkParse parses a generated file of about 20 MB; -bench prints MB/s.
func BenchmarkParse(b *testing.B) {
	data, _ := generate(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse(data, statement.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCorpus parses the corpus's Goldman Sachs file repeated to about 20 MB.
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
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse(data, statement.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
