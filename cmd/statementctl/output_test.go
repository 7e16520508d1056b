package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/sdk/parseclient"
	"github.com/statementmatch/service/gen/sdk/reconclient"
)

// walkThroughResults is the README's reconciliation example, as the API answers it.
const walkThroughResults = `{
  "job_id": "3f6c2a9e-8b1d-4c57-9a2e-5d7b0e4f1c83",
  "matched": [
    {"reference": "INV-2024-001", "amount": 1250.50, "currency": "EUR", "rule": "exact", "bank_entry": "SEPA CREDIT ACME GMBH INV 2024 001",
     "bank_entries": [{"line": 1, "date": "2024-03-04", "amount": 1250.50, "currency": null, "text": "SEPA CREDIT ACME GMBH INV 2024 001"}]},
    {"reference": "INV-2024-002", "amount": 900.00, "currency": "EUR", "rule": "instalments", "bank_entry": "BETA LTD INV-2024-002 1/2",
     "bank_entries": [{"line": 2, "date": "2024-03-06", "amount": 450.00, "currency": null, "text": "BETA LTD INV-2024-002 1/2"},
                      {"line": 3, "date": "2024-03-20", "amount": 450.00, "currency": null, "text": "BETA LTD INV-2024-002 2/2"}]}
  ],
  "partial": [
    {"reference": "INV-2024-005", "expected_amount": 300.00, "matched_amount": 600.00, "currency": "EUR", "reason": "duplicate_payment", "rule": "duplicate_payment",
     "bank_entries": [{"line": 5, "date": "2024-03-21", "amount": 300.00, "currency": null, "text": "DELTA AG INV-2024-005"},
                      {"line": 6, "date": "2024-03-22", "amount": 300.00, "currency": null, "text": "DELTA AG INV-2024-005 AGAIN"}]}
  ],
  "unmatched": [{"reference": "INV-2024-003", "amount": 75.00,
                 "suggestions": [{"line": 7, "date": "2024-03-25", "amount": 75.00, "currency": null, "text": "EPSILON SRL"}]}],
  "unmatched_bank_entries": [{"line": 4, "date": "2024-03-21", "amount": -42.99, "currency": "EUR", "text": "CARD PAYMENT\tOFFICE\nSUPPLIES"},
                             {"line": 7, "date": "2024-03-25", "amount": 75.00, "currency": null, "text": "EPSILON SRL"}],
  "summary": {"expected_count": 4, "expected_total": 2525.50, "matched_count": 2, "matched_total": 2150.50,
              "partial_count": 1, "unmatched_count": 1, "unmatched_bank_entries_count": 2}
}`

func TestPrintReconResults(t *testing.T) {
	t.Parallel()
	var res reconclient.JobResults
	require.NoError(t, json.Unmarshal([]byte(walkThroughResults), &res))
	var out bytes.Buffer
	require.NoError(t, printReconResults(&out, res))
	want := `RESULT     REFERENCE     EXPECTED  PAID     CURRENCY  BANK LINES  RULE
matched    INV-2024-001  1250.50   1250.50  EUR       1           exact
matched    INV-2024-002  900.00    900.00   EUR       2,3         instalments
partial    INV-2024-005  300.00    600.00   EUR       5,6         duplicate_payment
unmatched  INV-2024-003  75.00     -        -         -           suggested: 7

Bank lines that paid no reference:
LINE  DATE        AMOUNT  CURRENCY  TEXT
4     2024-03-21  -42.99  EUR       CARD PAYMENT OFFICE SUPPLIES
7     2024-03-25  75.00   -         EPSILON SRL

2 matched, 1 partial, 1 unmatched of 4 references (2150.50 of 2525.50 expected matched); 2 bank lines paid nothing
`
	require.Equal(t, want, out.String())
}

func TestPrintReconResultsWithoutUnmatchedBankLines(t *testing.T) {
	t.Parallel()
	res := reconclient.JobResults{Summary: reconclient.ResultsSummary{}}
	var out bytes.Buffer
	require.NoError(t, printReconResults(&out, res))
	require.Equal(t, "RESULT  REFERENCE  EXPECTED  PAID  CURRENCY  BANK LINES  RULE\n\n"+
		"0 matched, 0 partial, 0 unmatched of 0 references (0 of 0 expected matched); 0 bank lines paid nothing\n", out.String())
}

func TestCell(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain text stays", "SEPA CREDIT", "SEPA CREDIT"},
		{"tabs and line breaks become one space", "A\tB\r\nC", "A B C"},
		{"terminal escapes lose their control character", "A\x1b[2JB", "A [2JB"},
		{"runs of spaces become one", "A    B", "A B"},
		{"long text is cut with an ellipsis", strings.Repeat("x", 70), strings.Repeat("x", 59) + "…"},
		{"text at the limit stays whole", strings.Repeat("é", 60), strings.Repeat("é", 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, cell(tt.in))
		})
	}
}

func TestTableLinesHaveNoTrailingSpaces(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	tw := newTable(&out)
	row(tw, "A", "LONG HEADER", "")
	row(tw, "a b", "", "")
	require.NoError(t, tw.Flush())
	require.Equal(t, "A    LONG HEADER\na b\n", out.String())
}

func seqOf[T any](items []T, err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, it := range items {
			if !yield(it, nil) {
				return
			}
		}
		if err != nil {
			var zero T
			yield(zero, err)
		}
	}
}

func TestPrintJSONSeq(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		items   []map[string]int
		err     error
		want    string
		wantErr bool
	}{
		{"elements are written one by one into an array", []map[string]int{{"a": 1}, {"a": 2}}, nil, "[\n  {\n    \"a\": 1\n  },\n  {\n    \"a\": 2\n  }\n]\n", false},
		{"no elements are an empty array", nil, nil, "[]\n", false},
		{"an error leaves the array open, so no reader takes it for whole", []map[string]int{{"a": 1}}, errors.New("page 2 failed"), "[\n  {\n    \"a\": 1\n  }", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			n, err := printJSONSeq(&out, seqOf(tt.items, tt.err))
			require.Equal(t, tt.wantErr, err != nil)
			require.Equal(t, len(tt.items), n)
			require.Equal(t, tt.want, out.String())
			if !tt.wantErr {
				var back []map[string]int
				require.NoError(t, json.Unmarshal(out.Bytes(), &back))
			}
		})
	}
}

func TestTake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		want []int
	}{
		{"n stops after n elements", 2, []int{1, 2}},
		{"0 takes all", 0, []int{1, 2, 3}},
		{"more than there are takes all", 5, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []int
			for v, err := range take(seqOf([]int{1, 2, 3}, nil), tt.n) {
				require.NoError(t, err)
				got = append(got, v)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPrintTransactions(t *testing.T) {
	t.Parallel()
	var txs []parseclient.Transaction
	require.NoError(t, json.Unmarshal([]byte(`[
		{"id": "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d", "date": "2025-03-03", "amount": 1250.50, "currency": "EUR",
		 "description": "SEPA CREDIT TRANSFER INV-2025-0042 ACME GMBH", "reference": "INV-2025-0042", "balance": 11500.50, "type": "credit", "raw": ""},
		{"id": "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", "date": "2025-03-04", "amount": -89.90, "currency": null,
		 "description": "CARD", "reference": null, "balance": null, "type": "debit", "raw": ""}]`), &txs))
	var out bytes.Buffer
	n, err := printTransactions(&out, seqOf(txs, nil))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, `DATE        AMOUNT   CURRENCY  DESCRIPTION                                   REFERENCE      BALANCE
2025-03-03  1250.50  EUR       SEPA CREDIT TRANSFER INV-2025-0042 ACME GMBH  INV-2025-0042  11500.50
2025-03-04  -89.90   -         CARD                                          -              -
`, out.String())
}

func TestPrintParseJob(t *testing.T) {
	t.Parallel()
	var job parseclient.Job
	require.NoError(t, json.Unmarshal([]byte(`{"job_id": "3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f", "status": "review", "file_name": "march.csv",
		"format": "csv", "bank_name": null, "account": "DE89370400440532013000", "currency": "EUR", "period_start": "2024-03-01",
		"period_end": "2024-03-31", "opening_balance": 1000.00, "closing_balance": 1900.00, "transactions_count": 4,
		"created_at": "2024-04-01T08:15:30Z", "completed_at": null, "error": null,
		"review_reasons": [{"code": "running_balance_break", "line": 3, "message": "balance 1710.00 does not follow"}]}`), &job))
	var out bytes.Buffer
	require.NoError(t, printParseJob(&out, job))
	require.Equal(t, `job              3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f
status           review
file             march.csv
format           csv
bank             -
account          DE89370400440532013000
currency         EUR
period           2024-03-01 to 2024-03-31
opening balance  1000.00
closing balance  1900.00
transactions     4
created          2024-04-01T08:15:30Z
completed        -
review           running_balance_break (line 3): balance 1710.00 does not follow
`, out.String())
}
