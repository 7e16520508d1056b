package reconjob

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/match"
)

// TestDecidingRule: a stored reference names the rule that decided it; one stored before
// rules were recorded has it from its lines (one line: exact; several: instalments) or its
// reason.
func TestDecidingRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		stored string
		want   match.Rule
	}{
		{"matched, recorded", `{"reference":"A","amount":"1","rule":"instalments","bank_entries":[{"line":1,"date":"2024-01-02","amount":"1","text":"A"}]}`, match.RuleInstalments},
		{"matched by one line, before rules", `{"reference":"A","amount":"1","bank_entries":[{"line":1,"date":"2024-01-02","amount":"1","text":"A"}]}`, match.RuleExact},
		{"matched by two lines, before rules", `{"reference":"A","amount":"2","bank_entries":[{"line":1,"date":"2024-01-02","amount":"1","text":"A"},{"line":2,"date":"2024-01-03","amount":"1","text":"A"}]}`, match.RuleInstalments},
	}
	for _, tc := range cases {
		var m MatchedReference
		require.NoError(t, json.Unmarshal([]byte(tc.stored), &m), tc.name)
		require.Equal(t, tc.want, m.DecidingRule(), tc.name)
	}
	partial := []struct {
		stored string
		want   match.Rule
	}{
		{`{"reference":"A","expected_amount":"1","matched_amount":"2","reason":"duplicate_payment","rule":"duplicate_payment","bank_entries":[]}`, match.RuleDuplicatePayment},
		{`{"reference":"A","expected_amount":"1","matched_amount":"2","reason":"amount_mismatch","bank_entries":[]}`, match.RuleAmountMismatch},
		{`{"reference":"A","expected_amount":"1","matched_amount":"1","reason":"currency_mismatch","bank_entries":[]}`, match.RuleCurrencyMismatch},
	}
	for _, tc := range partial {
		var p PartialReference
		require.NoError(t, json.Unmarshal([]byte(tc.stored), &p))
		require.Equal(t, tc.want, p.DecidingRule(), tc.stored)
	}
}

// TestBuildResultsRecordsTheRule: the results document stores the rule the engine decided by.
func TestBuildResultsRecordsTheRule(t *testing.T) {
	t.Parallel()
	exp := func(ref, amount string) match.Expected {
		return match.Expected{Reference: ref, Amount: mustDecimal(t, amount)}
	}
	line := func(text, amount string) match.BankEntry {
		return match.BankEntry{Text: text, Amount: mustDecimal(t, amount)}
	}
	expected := []match.Expected{exp("INV-1", "100"), exp("INV-2", "90"), exp("INV-3", "50")}
	bank := []match.BankEntry{line("INV-1", "100"), line("INV-2 1/2", "45"), line("INV-2 2/2", "45"), line("INV-3", "40")}
	res := buildResults(expected, bank, match.Reconcile(expected, bank))
	require.Len(t, res.Matched, 2)
	require.Equal(t, match.RuleExact, res.Matched[0].Rule)
	require.Equal(t, match.RuleInstalments, res.Matched[1].Rule)
	require.Len(t, res.Partial, 1)
	require.Equal(t, match.RuleAmountMismatch, res.Partial[0].Rule)
	b, err := json.Marshal(res.Matched[0])
	require.NoError(t, err)
	require.Contains(t, string(b), `"rule":"exact"`)
}

func mustDecimal(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	require.NoError(t, err)
	return d
}

// FuzzVisitResults feeds VisitResults any bytes: it must return an error or visit items, never
// panic or hang, whatever a damaged stored document holds.
func FuzzVisitResults(f *testing.F) {
	for _, s := range []string{
		`{"matched":[{"reference":"A","amount":1.00,"rule":"exact","bank_entries":[{"line":1,"date":"2024-03-04","amount":1.00,"text":"A"}]}],` +
			`"partial":[],"unmatched":[{"reference":"B","amount":2,"suggestions":[]}],"unmatched_bank_entries":[],"summary":{"expected_count":2}}`,
		`{}`, `{"matched":null}`, `{"x":[[[]]]}`, `[`, `{"summary":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		items := 0
		count := func() error { items++; return nil }
		_ = VisitResults(bytes.NewReader(doc), ResultsVisitor{
			Matched:   func(MatchedReference) error { return count() },
			Partial:   func(PartialReference) error { return count() },
			Unmatched: func(UnmatchedReference) error { return count() },
			BankEntry: func(BankEntry) error { return count() },
			Summary:   func(Summary) error { return count() },
		})
	})
}
