package reconhttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/sheet"
	"github.com/statementmatch/service/internal/statement"
)

// benchResultsFile writes, once, the results document of a job of 100,000 references against
// 200,000 bank lines: 86 % matched (some by instalments), 4 % partial, 10 % unmatched with
// suggestions, and the 100,000 lines that paid nothing.
var benchResultsFile = sync.OnceValues(func() (string, error) {
	const refs = 100_000
	day := func(i int) statement.Date {
		return statement.DateOf(time.Date(2024, 1, 1+i%365, 0, 0, 0, 0, time.UTC))
	}
	entry := func(line int, amount decimal.Decimal) reconjob.BankEntry {
		return reconjob.BankEntry{Line: line, Date: day(line), Amount: amount, Currency: "EUR",
			Text: fmt.Sprintf("SEPA CREDIT TRANSFER MUELLER & SOHN KG INV-2024-%06d CUSTOMER %d", line, line%1000)}
	}
	res := reconjob.Results{Matched: []reconjob.MatchedReference{}, Partial: []reconjob.PartialReference{},
		Unmatched: []reconjob.UnmatchedReference{}, UnmatchedBankEntries: []reconjob.BankEntry{}}
	for i := range refs {
		ref := fmt.Sprintf("INV-2024-%06d", i)
		amount := decimal.New(int64(1000+(i*7919)%500000), -2)
		switch {
		case i%10 == 0:
			res.Unmatched = append(res.Unmatched, reconjob.UnmatchedReference{Reference: ref, Amount: amount, Currency: "EUR",
				Suggestions: []reconjob.BankEntry{entry(refs+i, amount)}})
		case i%25 == 1:
			res.Partial = append(res.Partial, reconjob.PartialReference{Reference: ref, ExpectedAmount: amount,
				MatchedAmount: amount.Sub(decimal.New(1, 0)), Reason: match.ReasonAmountMismatch, Rule: match.RuleAmountMismatch,
				Currency: "EUR", BankEntries: []reconjob.BankEntry{entry(i, amount.Sub(decimal.New(1, 0)))}})
		case i%50 == 2:
			half := amount.Div(decimal.New(2, 0)).Round(2)
			res.Matched = append(res.Matched, reconjob.MatchedReference{Reference: ref, Amount: amount, Currency: "EUR",
				Rule: match.RuleInstalments, BankEntries: []reconjob.BankEntry{entry(i, half), entry(2*refs+i, amount.Sub(half))}})
		default:
			res.Matched = append(res.Matched, reconjob.MatchedReference{Reference: ref, Amount: amount, Currency: "EUR",
				Rule: match.RuleExact, BankEntries: []reconjob.BankEntry{entry(i, amount)}})
		}
	}
	for l := range refs {
		res.UnmatchedBankEntries = append(res.UnmatchedBankEntries, entry(refs+l, decimal.New(int64(-l), -2)))
	}
	path := filepath.Join(os.TempDir(), "statementd-bench-results.json")
	data, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o600)
})

// BenchmarkResultsDownload writes the spreadsheet of a 100,000-reference job (200,000 rows)
// from its stored document, as GET /api/v1/jobs/{id}/results?format=csv|xlsx does, and reports
// the most heap it held at once beyond what was live before (peak-MiB, sampled every
// millisecond): the figure that must stay flat, whatever the job's size. The document is read
// from a file, as the service reads it from PostgreSQL a part at a time.
// Run: go test -run '^$' -bench ResultsDownload -benchtime 3x ./internal/reconhttp/
func BenchmarkResultsDownload(b *testing.B) {
	path, err := benchResultsFile()
	require.NoError(b, err)
	info, err := os.Stat(path)
	require.NoError(b, err)
	b.Logf("results document: %.1f MB", float64(info.Size())/1e6)
	for _, format := range []string{"csv", "xlsx"} {
		b.Run(format, func(b *testing.B) {
			var peak uint64
			var size int64
			for b.Loop() {
				f, err := os.Open(path)
				require.NoError(b, err)
				out := &countingWriter{}
				var t sheet.Table
				if format == "csv" {
					t, err = sheet.NewCSV(out, reconjob.ResultsColumns)
				} else {
					t, err = sheet.NewXLSX(out, "Results", reconjob.ResultsColumns)
				}
				require.NoError(b, err)
				p := watchHeap()
				require.NoError(b, reconjob.WriteResults(f, t, func() error { return nil }))
				peak = max(peak, p())
				require.NoError(b, f.Close())
				size = out.n
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(size)/1e6, "file-MB")
		})
	}
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)

// watchHeap collects garbage, then samples the bytes of live and unswept heap objects every
// millisecond until the returned function is called, which returns the most seen beyond the
// level after the collection.
func watchHeap() func() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		peak = max(peak, read())
		if peak < base {
			return 0
		}
		return peak - base
	}
}

func TestWriteResultsRowsOfEveryKind(t *testing.T) {
	t.Parallel()
	e := func(line int, amount string) reconjob.BankEntry {
		return reconjob.BankEntry{Line: line, Date: statement.MustDate(2024, 3, line), Amount: decimal.RequireFromString(amount),
			Currency: "EUR", Text: fmt.Sprintf("LINE %d", line)}
	}
	amount := decimal.RequireFromString
	res := reconjob.Results{
		// A result stored before rules were recorded: the rule follows from its lines.
		Matched: []reconjob.MatchedReference{{Reference: "A", Amount: amount("10.00"), Currency: "EUR", BankEntries: []reconjob.BankEntry{e(1, "4.00"), e(2, "6.00")}}},
		Partial: []reconjob.PartialReference{{Reference: "B", ExpectedAmount: amount("5.00"), MatchedAmount: amount("10.00"),
			Reason: match.ReasonDuplicatePayment, Currency: "EUR", BankEntries: []reconjob.BankEntry{e(3, "5.00"), e(4, "-5.00")}}},
		Unmatched:            []reconjob.UnmatchedReference{{Reference: "C", Amount: amount("1.50")}},
		UnmatchedBankEntries: []reconjob.BankEntry{e(5, "-1.00")},
	}
	doc, err := json.Marshal(res)
	require.NoError(t, err)
	var out stringsBuilder
	tb, err := sheet.NewCSV(&out, reconjob.ResultsColumns)
	require.NoError(t, err)
	flushes := 0
	require.NoError(t, reconjob.WriteResults(bytesReader(doc), tb, func() error { flushes++; return nil }))
	require.Equal(t, "status,reference,currency,expected_amount,matched_amount,reason,rule,bank_lines,bank_date,bank_amount,bank_text,suggested_lines\r\n"+
		"matched,A,EUR,10.00,10.00,,instalments,\"1, 2\",2024-03-01,10.00,LINE 1 | LINE 2,\r\n"+
		"partial,B,EUR,5.00,10.00,duplicate_payment,duplicate_payment,\"3, 4\",2024-03-03,0.00,LINE 3 | LINE 4,\r\n"+
		"unmatched,C,,1.50,,,,,,,,\r\n"+
		"unmatched_bank_entry,,EUR,,,,,5,2024-03-05,-1.00,LINE 5,\r\n", out.String())
	require.Zero(t, flushes, "fewer rows than a flush's worth")
}

type stringsBuilder = strings.Builder

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
