package match

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

func exp(ref, amount, currency string) Expected {
	return Expected{Reference: ref, Amount: decimal.RequireFromString(amount), Currency: currency}
}

func line(text, amount, currency string) BankEntry {
	return BankEntry{Text: text, Amount: decimal.RequireFromString(amount), Currency: currency}
}

// due returns e with the due date d (YYYY-MM-DD).
func due(e Expected, d string) Expected {
	e.DueDate = date(d)
	return e
}

// on returns b dated d (YYYY-MM-DD).
func on(b BankEntry, d string) BankEntry {
	b.Date = date(d)
	return b
}

func date(s string) statement.Date {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return statement.DateOf(t)
}

// rendered is a Result in a form that is short to write in a table and compares exactly: one
// string per reference ("matched exact [0] 100", "partial amount_mismatch [1 2] 90",
// "unmatched"), the unused lines, and the summary.
type rendered struct {
	Refs    []string
	Unused  []int
	Summary string
}

func render(t testing.TB, res Result) rendered {
	t.Helper()
	out := rendered{Unused: res.Unused}
	require.NotNil(t, res.References)
	require.NotNil(t, res.Unused)
	for i, ref := range res.References {
		require.Equal(t, i, ref.Expected, "reference %d", i)
		require.NotNil(t, ref.Entries, "reference %d", i)
		var s string
		switch ref.Outcome {
		case Matched:
			require.Empty(t, ref.Reason)
			require.Nil(t, ref.Suggestions)
			s = fmt.Sprintf("matched %s %v %s", ref.Rule, ref.Entries, ref.Paid)
		case Partial:
			require.Equal(t, Rule(ref.Reason), ref.Rule, "a partial reference's rule is its reason's")
			require.Nil(t, ref.Suggestions)
			s = fmt.Sprintf("partial %s %v %s", ref.Reason, ref.Entries, ref.Paid)
		case Unmatched:
			require.Empty(t, ref.Reason)
			require.Empty(t, ref.Rule)
			require.Empty(t, ref.Entries)
			require.True(t, ref.Paid.IsZero())
			s = "unmatched"
			if ref.Suggestions != nil {
				require.NotEmpty(t, ref.Suggestions)
				s += fmt.Sprintf(" suggest %v", ref.Suggestions)
			}
		default:
			t.Fatalf("reference %d: outcome %d", i, ref.Outcome)
		}
		out.Refs = append(out.Refs, s)
	}
	sm := res.Summary
	out.Summary = fmt.Sprintf("expected=%d matched=%d partial=%d unmatched=%d unused=%d total=%s matched_total=%s",
		sm.ExpectedCount, sm.MatchedCount, sm.PartialCount, sm.UnmatchedCount,
		sm.UnmatchedBankEntriesCount, sm.ExpectedTotal, sm.MatchedTotal)
	return out
}

func TestReconcile(t *testing.T) {
	tests := []struct {
		name     string
		expected []Expected
		bank     []BankEntry
		want     rendered
	}{{
		name:     "INV-1 is not found in INV-10",
		expected: []Expected{exp("INV-1", "100", "EUR")},
		bank:     []BankEntry{line("PAYMENT INV-10", "100", "EUR")},
		want: rendered{
			Refs: []string{"unmatched suggest [0]"}, Unused: []int{0},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=1 total=100 matched_total=0",
		},
	}, {
		name:     "INV-10 is not found in XINV-10",
		expected: []Expected{exp("INV-10", "100", "EUR")},
		bank:     []BankEntry{line("PAYMENT XINV-10", "100", "EUR")},
		want: rendered{
			Refs: []string{"unmatched suggest [0]"}, Unused: []int{0},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=1 total=100 matched_total=0",
		},
	}, {
		name: "INV-2024-001 is found spaced, run together and with slashes",
		expected: []Expected{
			exp("INV-2024-001", "1", ""), exp("INV-2024-001", "2", ""), exp("INV-2024-001", "3", ""),
		},
		bank: []BankEntry{
			line("SEPA INV 2024 001", "1", ""), line("INV2024001 THANKS", "2", ""), line("inv/2024/001", "3", ""),
		},
		want: rendered{
			Refs: []string{"matched exact [0] 1", "matched exact [1] 2", "matched exact [2] 3"}, Unused: []int{},
			Summary: "expected=3 matched=3 partial=0 unmatched=0 unused=0 total=6 matched_total=6",
		},
	}, {
		name:     "dots, underscores and runs of separators join tokens",
		expected: []Expected{exp("INV-2024-001", "5", "EUR")},
		bank:     []BankEntry{line("X INV.2024_001", "1", "EUR"), line("INV - 2024 -- 001", "4", "EUR")},
		want: rendered{
			Refs: []string{"matched instalments [0 1] 5"}, Unused: []int{},
			Summary: "expected=1 matched=1 partial=0 unmatched=0 unused=0 total=5 matched_total=5",
		},
	}, {
		name:     "a comma breaks the chain, but the tokens after it still match alone",
		expected: []Expected{exp("INV-2024", "10", ""), exp("2024-7", "10", "")},
		bank:     []BankEntry{line("INV,2024 7", "10", ""), line("INV:2024", "10", "")},
		want: rendered{
			Refs: []string{"unmatched suggest [1]", "matched exact [0] 10"}, Unused: []int{1},
			Summary: "expected=2 matched=1 partial=0 unmatched=1 unused=1 total=20 matched_total=10",
		},
	}, {
		name:     "references are found whatever their case",
		expected: []Expected{exp("inv-ab-9", "7.5", "eur")},
		bank:     []BankEntry{line("Payment Inv Ab 9", "7.50", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [0] 7.5"}, Unused: []int{},
			Summary: "expected=1 matched=1 partial=0 unmatched=0 unused=0 total=7.5 matched_total=7.5",
		},
	}, {
		name:     "non-ASCII letters are tokens and fold case",
		expected: []Expected{exp("réf-12", "30", "EUR"), exp("ÜBER-1", "5", "EUR")},
		bank:     []BankEntry{line("Überweisung RÉF-12", "30", "EUR"), line("überweisung über 1", "5", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [0] 30", "matched exact [1] 5"}, Unused: []int{},
			Summary: "expected=2 matched=2 partial=0 unmatched=0 unused=0 total=35 matched_total=35",
		},
	}, {
		name:     "a line naming two references pays the one whose amount it matches, even when listed second",
		expected: []Expected{exp("INV-2", "200", "EUR"), exp("INV-1", "100", "EUR")},
		bank:     []BankEntry{line("INV-1 INV-2", "100", "EUR")},
		want: rendered{
			Refs: []string{"unmatched", "matched exact [0] 100"}, Unused: []int{},
			Summary: "expected=2 matched=1 partial=0 unmatched=1 unused=0 total=300 matched_total=100",
		},
	}, {
		name:     "a line naming two references that pays neither nor both makes both partial",
		expected: []Expected{exp("INV-2", "200", "EUR"), exp("INV-1", "100", "EUR")},
		bank:     []BankEntry{line("INV-1 INV-2", "50", "EUR")},
		want: rendered{
			Refs: []string{"partial amount_mismatch [0] 50", "partial amount_mismatch [0] 50"}, Unused: []int{},
			Summary: "expected=2 matched=0 partial=2 unmatched=0 unused=0 total=300 matched_total=0",
		},
	}, {
		name:     "a combined payment matches every reference it names, sharing the line",
		expected: []Expected{exp("INV-2024-011", "500.00", "EUR"), exp("X", "1", ""), exp("INV-2024-012", "600.5", "EUR")},
		bank:     []BankEntry{line("OTHER", "1100.50", "EUR"), line("PAYMENT INV-2024-011 INV-2024-012", "-1100.50", "EUR")},
		want: rendered{
			Refs:    []string{"matched combined_payment [1] 500", "unmatched", "matched combined_payment [1] 600.5"},
			Unused:  []int{0},
			Summary: "expected=3 matched=2 partial=0 unmatched=1 unused=1 total=1101.5 matched_total=1100.5",
		},
	}, {
		name: "a combined payment of three references, one of them with no currency",
		expected: []Expected{
			exp("A-1", "10", "GBP"), exp("A-2", "20", ""), exp("A-3", "30.25", "GBP"),
		},
		bank: []BankEntry{line("A-3 / A-1 / A-2", "60.25", "")},
		want: rendered{
			Refs: []string{
				"matched combined_payment [0] 10", "matched combined_payment [0] 20", "matched combined_payment [0] 30.25",
			},
			Unused:  []int{},
			Summary: "expected=3 matched=3 partial=0 unmatched=0 unused=0 total=60.25 matched_total=60.25",
		},
	}, {
		name:     "a combined payment 0.01 short makes both references partial",
		expected: []Expected{exp("INV-11", "500.00", "EUR"), exp("INV-12", "600.00", "EUR")},
		bank:     []BankEntry{line("PAYMENT INV-11 INV-12", "1099.99", "EUR")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0] 1099.99", "partial amount_mismatch [0] 1099.99"},
			Unused:  []int{},
			Summary: "expected=2 matched=0 partial=2 unmatched=0 unused=0 total=1100 matched_total=0",
		},
	}, {
		name:     "a line naming a reference and a token that only looks like another pays neither",
		expected: []Expected{exp("INV-11", "500", "EUR"), exp("INV-12", "600", "EUR")},
		bank:     []BankEntry{line("PAYMENT INV-11 INV-123", "1100", "EUR")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0] 1100", "unmatched"},
			Unused:  []int{},
			Summary: "expected=2 matched=0 partial=1 unmatched=1 unused=0 total=1100 matched_total=0",
		},
	}, {
		name:     "the same two references on two lines are no combined payment",
		expected: []Expected{exp("INV-11", "500", "EUR"), exp("INV-12", "600", "EUR")},
		bank:     []BankEntry{line("INV-11 INV-12", "1100", "EUR"), line("INV-11 INV-12", "1100", "EUR")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0 1] 2200", "partial amount_mismatch [0 1] 2200"},
			Unused:  []int{},
			Summary: "expected=2 matched=0 partial=2 unmatched=0 unused=0 total=1100 matched_total=0",
		},
	}, {
		name:     "a combined payment in another currency is a currency mismatch for both",
		expected: []Expected{exp("INV-11", "500", "EUR"), exp("INV-12", "600", "EUR")},
		bank:     []BankEntry{line("INV-11 INV-12", "1100", "USD")},
		want: rendered{
			Refs:    []string{"partial currency_mismatch [0] 1100", "partial currency_mismatch [0] 1100"},
			Unused:  []int{},
			Summary: "expected=2 matched=0 partial=2 unmatched=0 unused=0 total=1100 matched_total=0",
		},
	}, {
		name:     "references in two currencies are never added up, even on a line that names none",
		expected: []Expected{exp("INV-11", "500", "EUR"), exp("INV-12", "600", "USD")},
		bank:     []BankEntry{line("INV-11 INV-12", "1100", "")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0] 1100", "partial amount_mismatch [0] 1100"},
			Unused:  []int{},
			Summary: "expected=2 matched=0 partial=2 unmatched=0 unused=0 total=1100 matched_total=0",
		},
	}, {
		name: "three references where one is also paid elsewhere: no combined payment",
		expected: []Expected{
			exp("INV-1", "100", "EUR"), exp("INV-2", "200", "EUR"), exp("INV-3", "300", "EUR"),
		},
		bank: []BankEntry{line("INV-1 INV-2 INV-3", "600", "EUR"), line("INV-3", "300", "EUR")},
		want: rendered{
			Refs: []string{
				"partial amount_mismatch [0] 600", "partial amount_mismatch [0] 600", "matched exact [1] 300",
			},
			Unused:  []int{},
			Summary: "expected=3 matched=1 partial=2 unmatched=0 unused=0 total=600 matched_total=300",
		},
	}, {
		name: "a line paying the two references it names but not a third is no combined payment",
		expected: []Expected{
			exp("INV-1", "100", "EUR"), exp("INV-2", "200", "EUR"), exp("INV-3", "400", "EUR"),
		},
		bank: []BankEntry{line("INV-1 INV-2 INV-3", "300", "EUR")},
		want: rendered{
			Refs: []string{
				"partial amount_mismatch [0] 300", "partial amount_mismatch [0] 300", "partial amount_mismatch [0] 300",
			},
			Unused:  []int{},
			Summary: "expected=3 matched=0 partial=3 unmatched=0 unused=0 total=700 matched_total=0",
		},
	}, {
		name: "a line naming three references that pays one of them exactly pays that one only",
		expected: []Expected{
			exp("INV-1", "100", "EUR"), exp("INV-2", "200", "EUR"), exp("INV-3", "300", "EUR"),
		},
		bank: []BankEntry{line("INV-1 INV-2 INV-3", "300", "EUR")},
		want: rendered{
			Refs:    []string{"unmatched", "unmatched", "matched exact [0] 300"},
			Unused:  []int{},
			Summary: "expected=3 matched=1 partial=0 unmatched=2 unused=0 total=600 matched_total=300",
		},
	}, {
		name:     "a reference listed twice in the expected file is never part of a combined payment",
		expected: []Expected{exp("INV-1", "100", "EUR"), exp("INV-2", "200", "EUR"), exp("INV-2", "200", "EUR")},
		bank:     []BankEntry{line("INV-1 INV-2", "300", "EUR")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0] 300", "partial amount_mismatch [0] 300", "unmatched"},
			Unused:  []int{},
			Summary: "expected=3 matched=0 partial=2 unmatched=1 unused=0 total=500 matched_total=0",
		},
	}, {
		name:     "a reference of amount zero is never part of a combined payment",
		expected: []Expected{exp("INV-1", "100", "EUR"), exp("INV-2", "0", "EUR")},
		bank:     []BankEntry{line("INV-1 INV-2", "100", "EUR")},
		want: rendered{
			Refs:    []string{"matched exact [0] 100", "unmatched"},
			Unused:  []int{},
			Summary: "expected=2 matched=1 partial=0 unmatched=1 unused=0 total=100 matched_total=100",
		},
	}, {
		name:     "a reference paid in instalments is not also part of a combined payment",
		expected: []Expected{exp("INV-1", "100", "EUR"), exp("INV-2", "200", "EUR")},
		bank:     []BankEntry{line("INV-1 INV-2", "250", "EUR"), line("INV-2 1/2", "50", "EUR")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0] 250", "partial amount_mismatch [0 1] 300"},
			Unused:  []int{},
			Summary: "expected=2 matched=0 partial=2 unmatched=0 unused=0 total=300 matched_total=0",
		},
	}, {
		name:     "rows of one reference in two currencies each see their own lines in pass 3",
		expected: []Expected{exp("INV-1", "100", "EUR"), exp("INV-1", "50", "USD"), exp("INV-1", "70", "USD")},
		bank:     []BankEntry{line("INV-1", "30", "EUR"), line("INV-1", "20", "USD")},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [0] 30", "partial amount_mismatch [1] 20", "unmatched"},
			Unused:  []int{},
			Summary: "expected=3 matched=0 partial=2 unmatched=1 unused=0 total=220 matched_total=0",
		},
	}, {
		name:     "one reference paid on two lines is matched with both as instalments",
		expected: []Expected{exp("INV-5", "900.00", "EUR")},
		bank: []BankEntry{
			line("INV-5 1/2", "450.00", "EUR"), line("OTHER", "900.00", "EUR"), line("INV-5 2/2", "450", "EUR"),
		},
		want: rendered{
			Refs: []string{"matched instalments [0 2] 900"}, Unused: []int{1},
			Summary: "expected=1 matched=1 partial=0 unmatched=0 unused=1 total=900 matched_total=900",
		},
	}, {
		name:     "one reference paid in full twice is a duplicate payment with both lines",
		expected: []Expected{exp("INV-6", "80", "EUR")},
		bank:     []BankEntry{line("INV-6", "80", "EUR"), line("INV-6 AGAIN", "80.00", "EUR")},
		want: rendered{
			Refs: []string{"partial duplicate_payment [0 1] 160"}, Unused: []int{},
			Summary: "expected=1 matched=0 partial=1 unmatched=0 unused=0 total=80 matched_total=0",
		},
	}, {
		name:     "a duplicate payment takes only the full-amount lines, the others stay unused",
		expected: []Expected{exp("INV-6", "80", "EUR")},
		bank: []BankEntry{
			line("INV-6", "80", "EUR"), line("INV-6 PART", "5", "EUR"), line("INV-6", "80", "USD"), line("INV-6", "80", ""),
		},
		want: rendered{
			Refs: []string{"partial duplicate_payment [0 3] 160"}, Unused: []int{1, 2},
			Summary: "expected=1 matched=0 partial=1 unmatched=0 unused=2 total=80 matched_total=0",
		},
	}, {
		name:     "an under-payment is an amount mismatch reporting what was paid",
		expected: []Expected{exp("INV-7", "100", "EUR")},
		bank:     []BankEntry{line("INV-7", "60", "EUR")},
		want: rendered{
			Refs: []string{"partial amount_mismatch [0] 60"}, Unused: []int{},
			Summary: "expected=1 matched=0 partial=1 unmatched=0 unused=0 total=100 matched_total=0",
		},
	}, {
		name:     "an over-payment on two lines is an amount mismatch with both",
		expected: []Expected{exp("INV-7", "100", "EUR")},
		bank:     []BankEntry{line("INV-7", "60", "EUR"), line("INV-7 REST", "60.50", "EUR")},
		want: rendered{
			Refs: []string{"partial amount_mismatch [0 1] 120.5"}, Unused: []int{},
			Summary: "expected=1 matched=0 partial=1 unmatched=0 unused=0 total=100 matched_total=0",
		},
	}, {
		name:     "the same amount in another currency is a currency mismatch",
		expected: []Expected{exp("INV-8", "100", "EUR")},
		bank:     []BankEntry{line("INV-8", "100", "USD")},
		want: rendered{
			Refs: []string{"partial currency_mismatch [0] 100"}, Unused: []int{},
			Summary: "expected=1 matched=0 partial=1 unmatched=0 unused=0 total=100 matched_total=0",
		},
	}, {
		name:     "an agreeing line makes a mismatch about amount, not currency, and leaves the other currency unused",
		expected: []Expected{exp("INV-8", "100", "EUR")},
		bank:     []BankEntry{line("INV-8", "100", "USD"), line("INV-8", "30", "EUR")},
		want: rendered{
			Refs: []string{"partial amount_mismatch [1] 30"}, Unused: []int{0},
			Summary: "expected=1 matched=0 partial=1 unmatched=0 unused=1 total=100 matched_total=0",
		},
	}, {
		name:     "a currency missing on either side agrees",
		expected: []Expected{exp("INV-9", "10", ""), exp("INV-10", "20", "EUR")},
		bank:     []BankEntry{line("INV-9", "10", "JPY"), line("INV-10", "20", "")},
		want: rendered{
			Refs: []string{"matched exact [0] 10", "matched exact [1] 20"}, Unused: []int{},
			Summary: "expected=2 matched=2 partial=0 unmatched=0 unused=0 total=30 matched_total=30",
		},
	}, {
		name:     "negative bank amounts pay by their absolute value",
		expected: []Expected{exp("INV-11", "1250.50", "EUR"), exp("INV-12", "-40", "EUR")},
		bank:     []BankEntry{line("INV-11", "-1250.5", "EUR"), line("INV-12 A", "-15", "EUR"), line("INV-12 B", "25", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [0] 1250.5", "matched instalments [1 2] 40"}, Unused: []int{},
			Summary: "expected=2 matched=2 partial=0 unmatched=0 unused=0 total=1290.5 matched_total=1290.5",
		},
	}, {
		name:     "1250.5 equals 1250.50",
		expected: []Expected{exp("INV-13", "1250.50", "EUR")},
		bank:     []BankEntry{line("INV-13", "1250.5", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [0] 1250.5"}, Unused: []int{},
			Summary: "expected=1 matched=1 partial=0 unmatched=0 unused=0 total=1250.5 matched_total=1250.5",
		},
	}, {
		name:     "an expected row no line mentions is unmatched",
		expected: []Expected{exp("INV-14", "10", "EUR"), exp("INV-15", "10", "EUR")},
		bank:     []BankEntry{line("INV-14", "10", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [0] 10", "unmatched"}, Unused: []int{},
			Summary: "expected=2 matched=1 partial=0 unmatched=1 unused=0 total=20 matched_total=10",
		},
	}, {
		name:     "a reference with no letter or digit matches nothing",
		expected: []Expected{exp("--", "10", "EUR")},
		bank:     []BankEntry{line("-- / --", "10", "EUR")},
		want: rendered{
			Refs: []string{"unmatched suggest [0]"}, Unused: []int{0},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=1 total=10 matched_total=0",
		},
	}, {
		name:     "two identical expected rows paid twice each get one line",
		expected: []Expected{exp("RENT-42", "1000", "EUR"), exp("rent 42", "1000.00", "EUR")},
		bank:     []BankEntry{line("RENT-42 JAN", "1000", "EUR"), line("RENT-42 FEB", "1000", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [0] 1000", "matched exact [1] 1000"}, Unused: []int{},
			Summary: "expected=2 matched=2 partial=0 unmatched=0 unused=0 total=2000 matched_total=2000",
		},
	}, {
		name:     "two identical expected rows paid three times: the last reports the duplicate",
		expected: []Expected{exp("RENT-42", "1000", "EUR"), exp("RENT-42", "1000", "EUR")},
		bank: []BankEntry{
			line("RENT-42", "1000", "EUR"), line("RENT-42", "1000", "EUR"), line("RENT-42", "1000", "EUR"),
		},
		want: rendered{
			Refs: []string{"matched exact [0] 1000", "partial duplicate_payment [1 2] 2000"}, Unused: []int{},
			Summary: "expected=2 matched=1 partial=1 unmatched=0 unused=0 total=2000 matched_total=1000",
		},
	}, {
		name:     "expected rows sharing a reference with different amounts each take their own line",
		expected: []Expected{exp("ORDER-3", "30", "EUR"), exp("ORDER-3", "20", "EUR")},
		bank:     []BankEntry{line("ORDER-3", "20", "EUR"), line("ORDER-3", "30", "EUR")},
		want: rendered{
			Refs: []string{"matched exact [1] 30", "matched exact [0] 20"}, Unused: []int{},
			Summary: "expected=2 matched=2 partial=0 unmatched=0 unused=0 total=50 matched_total=50",
		},
	}, {
		name:     "an exact payment in pass 1 wins a line an earlier reference would have used as an instalment",
		expected: []Expected{exp("INV-1", "100", "EUR"), exp("INV-2", "50", "EUR")},
		bank:     []BankEntry{line("INV-1 1/2", "50", "EUR"), line("INV-1 INV-2", "50", "EUR")},
		want: rendered{
			Refs: []string{"partial amount_mismatch [0] 50", "matched exact [1] 50"}, Unused: []int{},
			Summary: "expected=2 matched=1 partial=1 unmatched=0 unused=0 total=150 matched_total=50",
		},
	}, {
		name:     "an instalment match in pass 2 takes lines before a later reference's pass 3",
		expected: []Expected{exp("INV-2", "70", "EUR"), exp("INV-1", "100", "EUR")},
		bank:     []BankEntry{line("INV-1 INV-2", "50", "EUR"), line("INV-1", "50", "EUR"), line("INV-2", "20", "EUR")},
		want: rendered{
			Refs: []string{"matched instalments [0 2] 70", "partial amount_mismatch [1] 50"}, Unused: []int{},
			Summary: "expected=2 matched=1 partial=1 unmatched=0 unused=0 total=170 matched_total=70",
		},
	}, {
		name:     "a partial reference gets no suggestions, even with an unused line of its amount",
		expected: []Expected{exp("INV-20", "75.00", "EUR"), exp("INV-21", "10", "EUR")},
		bank: []BankEntry{
			line("SEPA CREDIT EPSILON", "75", "EUR"), line("INV-21", "10", "EUR"), line("CARD", "-75.00", ""),
			line("OTHER", "75.01", "EUR"), line("IN DOLLARS", "75", "USD"), line("INV-20 IS PAID ELSEWHERE", "7", "EUR"),
		},
		want: rendered{
			Refs:    []string{"partial amount_mismatch [5] 7", "matched exact [1] 10"},
			Unused:  []int{0, 2, 3, 4},
			Summary: "expected=2 matched=1 partial=1 unmatched=0 unused=4 total=85 matched_total=10",
		},
	}, {
		name:     "suggestions agree in currency where both name one, and skip lines any reference used",
		expected: []Expected{exp("INV-20", "75.00", "EUR"), exp("INV-22", "75", ""), exp("INV-23", "75", "EUR")},
		bank: []BankEntry{
			line("SEPA CREDIT EPSILON", "75", "EUR"), line("CARD", "-75.00", ""), line("OTHER", "75.01", "EUR"),
			line("IN DOLLARS", "75", "USD"), line("INV-23", "75", "EUR"), line("ZERO", "0", ""),
		},
		want: rendered{
			Refs: []string{
				"unmatched suggest [0 1]", "unmatched suggest [0 1 3]", "matched exact [4] 75",
			},
			Unused:  []int{0, 1, 2, 3, 5},
			Summary: "expected=3 matched=1 partial=0 unmatched=2 unused=5 total=225 matched_total=75",
		},
	}, {
		name:     "at most three suggestions, nearest to the due date first, ties to the earlier line",
		expected: []Expected{due(exp("INV-30", "99.90", "EUR"), "2024-03-10")},
		bank: []BankEntry{
			on(line("A", "99.9", "EUR"), "2024-03-08"), on(line("B", "99.9", "EUR"), "2024-03-12"),
			line("UNDATED", "99.9", "EUR"), on(line("C", "99.9", "EUR"), "2024-03-11"),
			on(line("D", "99.9", "EUR"), "2024-03-09"), on(line("E", "99.9", "EUR"), "2024-03-11"),
		},
		want: rendered{
			Refs:    []string{"unmatched suggest [3 4 5]"},
			Unused:  []int{0, 1, 2, 3, 4, 5},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=6 total=99.9 matched_total=0",
		},
	}, {
		name:     "many lines on the day before the due date: the earliest three",
		expected: []Expected{due(exp("INV-31", "5", ""), "2024-03-10")},
		bank: []BankEntry{
			on(line("A", "5", "EUR"), "2024-03-01"), on(line("B", "5", "EUR"), "2024-03-09"),
			on(line("C", "5", "USD"), "2024-03-09"), on(line("D", "5", ""), "2024-03-09"),
			on(line("E", "5", "EUR"), "2024-03-09"), on(line("F", "5", "EUR"), "2024-03-20"),
		},
		want: rendered{
			Refs:    []string{"unmatched suggest [1 2 3]"},
			Unused:  []int{0, 1, 2, 3, 4, 5},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=6 total=5 matched_total=0",
		},
	}, {
		name:     "an undated line is suggested after every dated one",
		expected: []Expected{due(exp("INV-32", "5", "EUR"), "2024-03-10")},
		bank:     []BankEntry{line("UNDATED", "5", "EUR"), on(line("LATE", "5", ""), "2025-12-31")},
		want: rendered{
			Refs:    []string{"unmatched suggest [1 0]"},
			Unused:  []int{0, 1},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=2 total=5 matched_total=0",
		},
	}, {
		name:     "without a due date, the first three in statement order",
		expected: []Expected{exp("INV-33", "5", "EUR")},
		bank: []BankEntry{
			on(line("A", "5", ""), "2024-03-09"), on(line("B", "5", "EUR"), "2024-03-01"),
			on(line("C", "5", "EUR"), "2024-03-09"), on(line("D", "5", ""), "2024-03-02"),
		},
		want: rendered{
			Refs:    []string{"unmatched suggest [0 1 2]"},
			Unused:  []int{0, 1, 2, 3},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=4 total=5 matched_total=0",
		},
	}, {
		name:     "an amount of zero suggests nothing",
		expected: []Expected{exp("INV-34", "0.00", "EUR")},
		bank:     []BankEntry{line("FEE", "0", "EUR")},
		want: rendered{
			Refs:    []string{"unmatched"},
			Unused:  []int{0},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=1 total=0 matched_total=0",
		},
	}, {
		name: "no expected rows leaves every line unused",
		bank: []BankEntry{line("A", "1", ""), line("B", "2", "")},
		want: rendered{
			Refs: nil, Unused: []int{0, 1},
			Summary: "expected=0 matched=0 partial=0 unmatched=0 unused=2 total=0 matched_total=0",
		},
	}, {
		name:     "no bank lines leaves every reference unmatched",
		expected: []Expected{exp("INV-1", "1", "")},
		want: rendered{
			Refs: []string{"unmatched"}, Unused: []int{},
			Summary: "expected=1 matched=0 partial=0 unmatched=1 unused=0 total=1 matched_total=0",
		},
	}, {
		name: "nothing at all gives an empty result",
		want: rendered{
			Refs: nil, Unused: []int{},
			Summary: "expected=0 matched=0 partial=0 unmatched=0 unused=0 total=0 matched_total=0",
		},
	}, {
		name:     "unused lines are listed in statement order",
		expected: []Expected{exp("INV-3", "3", "")},
		bank: []BankEntry{
			line("X", "1", ""), line("INV-3", "3", ""), line("Y", "2", ""), line("Z", "4", ""),
		},
		want: rendered{
			Refs: []string{"matched exact [1] 3"}, Unused: []int{0, 2, 3},
			Summary: "expected=1 matched=1 partial=0 unmatched=0 unused=3 total=3 matched_total=3",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Reconcile(tc.expected, tc.bank)
			require.Len(t, res.References, len(tc.expected))
			require.Equal(t, tc.want, render(t, res))
			// The oracle agrees on every hand-written case too.
			require.Equal(t, render(t, naiveReconcile(tc.expected, tc.bank)), render(t, res))
		})
	}
}

func TestReconcileJSONShapes(t *testing.T) {
	res := Reconcile(nil, nil)
	require.NotNil(t, res.References)
	require.NotNil(t, res.Unused)
}

// TestReconcileManyIdenticalLines checks the pathological cases the engine must survive in
// linear time: they would take minutes if each reference re-walked every line per line.
func TestReconcileManyIdenticalLines(t *testing.T) {
	const n = 50_000
	t.Run("one reference paid by 50,000 identical lines is one duplicate payment", func(t *testing.T) {
		bank := make([]BankEntry, n)
		for i := range bank {
			bank[i] = line("PAYMENT INV-7 100.00", "100.00", "EUR")
		}
		res := Reconcile([]Expected{exp("INV-7", "100.00", "EUR")}, bank)
		ref := res.References[0]
		require.Equal(t, Partial, ref.Outcome)
		require.Equal(t, ReasonDuplicatePayment, ref.Reason)
		require.Len(t, ref.Entries, n)
		for i, l := range ref.Entries {
			require.Equal(t, i, l)
		}
		require.Equal(t, "5000000", ref.Paid.String())
		require.Empty(t, res.Unused)
	})
	t.Run("50,000 references of the same amount each take their own line", func(t *testing.T) {
		expected := make([]Expected, n)
		bank := make([]BankEntry, n)
		for i := range n {
			expected[i] = exp(fmt.Sprintf("INV-%d", i), "100.00", "EUR")
			// In reverse order, so statement and file order differ.
			bank[n-1-i] = line(fmt.Sprintf("PAYMENT INV-%d 100.00", i), "100.00", "EUR")
		}
		res := Reconcile(expected, bank)
		require.Equal(t, n, res.Summary.MatchedCount)
		for i, ref := range res.References {
			require.Equal(t, []int{n - 1 - i}, ref.Entries)
		}
		require.Empty(t, res.Unused)
	})
	t.Run("50,000 identical expected rows against 50,000 identical lines each take one", func(t *testing.T) {
		expected := make([]Expected, n)
		bank := make([]BankEntry, n)
		for i := range n {
			expected[i] = exp("INV-7", "100", "EUR")
			bank[i] = line("INV-7", "100", "EUR")
		}
		res := Reconcile(expected, bank)
		require.Equal(t, n, res.Summary.MatchedCount)
		for i, ref := range res.References {
			require.Equal(t, []int{i}, ref.Entries)
		}
	})
	t.Run("50,000 rows of one reference with distinct amounts against lines in reverse", func(t *testing.T) {
		expected := make([]Expected, n)
		bank := make([]BankEntry, n)
		for i := range n {
			expected[i] = exp("INV-7", fmt.Sprint(i+1), "EUR")
			bank[n-1-i] = line("INV-7", fmt.Sprint(i+1), "USD")
		}
		// Every line disagrees in currency: pass 1 and 2 take nothing, pass 3 gives all the
		// lines to the first row as a currency mismatch.
		res := Reconcile(expected, bank)
		require.Equal(t, ReasonCurrencyMismatch, res.References[0].Reason)
		require.Len(t, res.References[0].Entries, n)
		require.Equal(t, n-1, res.Summary.UnmatchedCount)
	})
	t.Run("50,000 rows of one reference asking for instalments while others take its lines", func(t *testing.T) {
		// Row 2k is INV-1 for an amount no sum reaches; row 2k+1 is X-k, paid in pass 2 by a
		// line it shares with INV-1 and one of its own. Every INV-1 row asks pass 2 for the
		// sum of what is left, which changes after each X-k: kept up to date, not recomputed.
		var expected []Expected
		var bank []BankEntry
		for k := range n / 2 {
			expected = append(expected,
				exp("INV-1", fmt.Sprint(1_000_000+k), "EUR"), exp(fmt.Sprintf("X-%d", k), "3", "EUR"))
			bank = append(bank,
				line(fmt.Sprintf("INV-1 X-%d", k), "1.5", "EUR"), line(fmt.Sprintf("X-%d", k), "1.5", "EUR"))
		}
		res := Reconcile(expected, bank)
		require.Equal(t, n/2, res.Summary.MatchedCount)
		require.Equal(t, n/2, res.Summary.UnmatchedCount)
		require.Equal(t, []int{0, 1}, res.References[1].Entries)
	})
	t.Run("25,000 rows of one reference in as many currencies each find their line", func(t *testing.T) {
		var expected []Expected
		var bank []BankEntry
		for k := range n / 2 {
			cur := fmt.Sprintf("C%05d", k)
			expected = append(expected, exp("INV-7", "10", cur))
			bank = append(bank, line("INV-7", "5", cur))
		}
		res := Reconcile(expected, bank)
		require.Equal(t, n/2, res.Summary.PartialCount)
		for k, ref := range res.References {
			require.Equal(t, []int{k}, ref.Entries)
			require.Equal(t, ReasonAmountMismatch, ref.Reason)
		}
	})
	t.Run("one reference named by every line, each line also paying its own", func(t *testing.T) {
		expected := []Expected{exp("BATCH-1", "1", "EUR")}
		bank := make([]BankEntry, n)
		for i := range n {
			expected = append(expected, exp(fmt.Sprintf("INV-%d", i), "7", "EUR"))
			bank[i] = line(fmt.Sprintf("BATCH-1 INV-%d", i), "7", "EUR")
		}
		res := Reconcile(expected, bank)
		// BATCH-1 comes first but wants 1.00: all lines are its candidates, none pays it
		// exactly, so pass 1 gives every line to its own invoice.
		require.Equal(t, "unmatched", render(t, res).Refs[0])
		require.Equal(t, n, res.Summary.MatchedCount)
	})
	t.Run("one line naming 50,000 references pays their sum: a combined payment", func(t *testing.T) {
		var text strings.Builder
		expected := make([]Expected, n)
		for i := range n {
			expected[i] = exp(fmt.Sprintf("INV-%d", i), "0.01", "EUR")
			fmt.Fprintf(&text, "INV-%d ", i)
		}
		res := Reconcile(expected, []BankEntry{line(text.String(), "500", "EUR")})
		require.Equal(t, n, res.Summary.MatchedCount)
		require.Equal(t, RuleCombinedPayment, res.References[n-1].Rule)
		// A cent more and the line pays none of them: each is partial with it.
		res = Reconcile(expected, []BankEntry{line(text.String(), "500.01", "EUR")})
		require.Equal(t, n, res.Summary.PartialCount)
		require.Equal(t, "partial amount_mismatch [0] 500.01", render(t, res).Refs[n-1])
	})
	t.Run("50,000 unmatched references of one amount against 50,000 unused lines of it", func(t *testing.T) {
		expected := make([]Expected, n)
		bank := make([]BankEntry, n)
		start := date("2024-01-01").Time()
		for i := range n {
			// Due dates run forwards, lines backwards, ten lines a day.
			expected[i] = due(exp(fmt.Sprintf("INV-%d", i), "100", "EUR"), start.AddDate(0, 0, i/10).Format(time.DateOnly))
			bank[i] = on(line("NO REFERENCE", "100", "EUR"), start.AddDate(0, 0, (n-1-i)/10).Format(time.DateOnly))
		}
		res := Reconcile(expected, bank)
		require.Equal(t, n, res.Summary.UnmatchedCount)
		require.Len(t, res.Unused, n)
		// Row 0 is due on day 0, which the last ten lines share: the first three of them.
		require.Equal(t, []int{n - 10, n - 9, n - 8}, res.References[0].Suggestions)
		require.Equal(t, []int{0, 1, 2}, res.References[n-1].Suggestions)
	})
}

// TestAmountKey checks that the amount keys of the index identify equal absolute amounts.
func TestAmountKey(t *testing.T) {
	same := [][]string{{"100", "100.00", "-100.0", "1e2"}, {"0", "0.00", "-0"}, {"1250.5", "1250.50"}, {"0.010", "0.01"}}
	for _, group := range same {
		for _, a := range group {
			require.Equal(t, amountKey(decimal.RequireFromString(group[0])), amountKey(decimal.RequireFromString(a)), a)
		}
	}
	require.NotEqual(t, amountKey(decimal.RequireFromString("10")), amountKey(decimal.RequireFromString("100")))
	require.NotEqual(t, amountKey(decimal.RequireFromString("1.1")), amountKey(decimal.RequireFromString("11")))
}

func TestSameCurrency(t *testing.T) {
	require.True(t, sameCurrency("EUR", "eur"))
	require.True(t, sameCurrency("", ""))
	require.False(t, sameCurrency("EUR", "USD"))
	require.False(t, sameCurrency("EU", "EUR"))
	require.False(t, sameCurrency("@", "`")) // differ only in bit 0x20, but not letters
	require.True(t, agree("", "USD"))
	require.True(t, agree("EUR", ""))
	require.False(t, agree("EUR", "USD"))
}

// TestAdder checks that the adder gives the very decimal (value and scale) that adding the
// absolute values one by one with decimal.Add gives, including past int64 and across scales.
func TestAdder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []string{"0", "0.00", "1", "-1", "100.00", "-1250.5", "1e3", "999999999999999999",
		"-999999999999999999", "9999999999999999999", "0.001", "123456789012345678.9", "5e-20"}
	for range 2000 {
		var a adder
		var want decimal.Decimal
		n := rng.IntN(25)
		for i := range n {
			d := decimal.RequireFromString(values[rng.IntN(len(values))])
			a.addAbs(d)
			if i == 0 {
				want = d.Abs()
			} else {
				want = want.Add(d.Abs())
			}
		}
		got := a.sum()
		if n == 0 {
			require.True(t, got.IsZero())
			continue
		}
		require.True(t, want.Equal(got), "%s != %s", got, want)
		require.Equal(t, want.Exponent(), got.Exponent(), "scale of %s", want)
	}
}
