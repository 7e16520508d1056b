package dashboard

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/match"
	"github.com/statementmatch/service/internal/reconjob"
	"github.com/statementmatch/service/internal/statement"
)

func TestReasonWords(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	line := func(amount, currency string) reconjob.BankEntry {
		return reconjob.BankEntry{Amount: d(amount), Currency: currency}
	}
	for _, tc := range []struct {
		name string
		p    reconjob.PartialReference
		want string
	}{
		{"under-paid", reconjob.PartialReference{Reason: match.ReasonAmountMismatch, ExpectedAmount: d("500.00"), MatchedAmount: d("450.00"), Currency: "EUR"},
			"under-paid by 50.00 EUR"},
		{"over-paid, yen", reconjob.PartialReference{Reason: match.ReasonAmountMismatch, ExpectedAmount: d("1000"), MatchedAmount: d("1200"), Currency: "JPY"},
			"over-paid by 200 JPY"},
		{"no currency", reconjob.PartialReference{Reason: match.ReasonAmountMismatch, ExpectedAmount: d("12.5"), MatchedAmount: d("10")},
			"under-paid by 2.50"},
		{"twice", reconjob.PartialReference{Reason: match.ReasonDuplicatePayment, BankEntries: []reconjob.BankEntry{line("300", "EUR"), line("300", "EUR")}},
			"paid twice"},
		{"three times", reconjob.PartialReference{Reason: match.ReasonDuplicatePayment,
			BankEntries: []reconjob.BankEntry{line("300", ""), line("300", ""), line("300", "")}}, "paid 3 times"},
		{"other currency", reconjob.PartialReference{Reason: match.ReasonCurrencyMismatch, Currency: "EUR",
			BankEntries: []reconjob.BankEntry{line("100", "USD"), line("5", "USD")}}, "paid in another currency (USD)"},
		{"other currency unknown", reconjob.PartialReference{Reason: match.ReasonCurrencyMismatch, Currency: "EUR",
			BankEntries: []reconjob.BankEntry{line("100", "")}}, "paid in another currency"},
	} {
		require.Equal(t, tc.want, reasonWords(tc.p), tc.name)
	}
}

func TestFilterAndSortRows(t *testing.T) {
	t.Parallel()
	rows := []resultRow{
		{Reference: "INV-2", amount: decimal.RequireFromString("-900"), Lines: []lineView{{Date: "2024-03-02", Text: "BETA LTD"}}},
		{Reference: "INV-1", amount: decimal.RequireFromString("50"), Lines: []lineView{{Date: "2024-03-05"}}, Suggestions: []lineView{{Text: "Gamma SARL"}}},
		{Reference: "inv-3", amount: decimal.RequireFromString("100"), Lines: []lineView{{Date: "2024-03-01"}}},
	}
	refs := func(rs []resultRow) (out []string) {
		for _, r := range rs {
			out = append(out, r.Reference)
		}
		return out
	}
	for _, tc := range []struct {
		q, sort string
		want    []string
	}{
		{"", "", []string{"INV-2", "INV-1", "inv-3"}},
		{"gamma", "", []string{"INV-1"}},
		{"beta", "", []string{"INV-2"}},
		{"INV-3", "", []string{"inv-3"}},
		{"", "reference", []string{"INV-1", "INV-2", "inv-3"}},
		{"", "amount", []string{"INV-2", "inv-3", "INV-1"}},
		{"", "date", []string{"inv-3", "INV-2", "INV-1"}},
		{"inv", "date", []string{"inv-3", "INV-2", "INV-1"}},
		{"nothing", "", nil},
	} {
		got := filterRows(append([]resultRow(nil), rows...), tc.q)
		sortRows(got, tc.sort)
		require.Equal(t, tc.want, refs(got), "q=%q sort=%q", tc.q, tc.sort)
	}
}

func TestSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"no reference column":    "No reference column.",
		"the file is encrypted.": "The file is encrypted.",
		"  énorme fichier  ":     "Énorme fichier.",
		"":                       "",
	} {
		require.Equal(t, want, sentence(in), "%q", in)
	}
}

// TestBarChart draws a bar a day, scaled to the busiest, labelled every fifth day, with the total
// in its name.
func TestBarChart(t *testing.T) {
	t.Parallel()
	svg := string(barChart([]int{0, 2, 4, 1, 0}, 28, "jobs <of> a kind"))
	require.Equal(t, 5, strings.Count(svg, `class="bar"`))
	require.Contains(t, svg, `aria-label="7 jobs &lt;of&gt; a kind this month, at most 4 on one day"`)
	require.Contains(t, svg, `height="0.0" class="bar"><title>day 1: 0</title>`)
	require.Contains(t, svg, `height="132.0" class="bar"><title>day 3: 4</title>`, "the busiest day is full height")
	require.Contains(t, svg, `height="66.0" class="bar"><title>day 2: 2</title>`)
	for _, day := range []string{">1</text>", ">5</text>"} {
		require.Contains(t, svg, day)
	}
	require.NotContains(t, svg, ">2</text>")
	empty := string(barChart(nil, 31, "jobs"))
	require.Contains(t, empty, `aria-label="0 jobs this month, at most 0 on one day"`)
}

// TestPadded: an outline gets room around its print, kept on the page, and the corners of a
// row askew move out from its centre by as much.
func TestPadded(t *testing.T) {
	t.Parallel()
	require.Nil(t, padded(nil))
	level := padded(&statement.Box{Left: 0.1, Top: 0.2, Right: 0.9, Bottom: 0.22})
	require.InDeltaSlice(t, []float64{0.094, 0.197, 0.906, 0.223}, []float64{level.Left, level.Top, level.Right, level.Bottom}, 1e-9)
	require.Nil(t, level.Corners)
	require.Empty(t, cornerPoints(level))

	edge := padded(&statement.Box{Left: 0, Top: 0.001, Right: 1, Bottom: 0.999})
	require.Equal(t, statement.Box{Left: 0, Top: 0, Right: 1, Bottom: 1}, *edge)

	askew := padded(&statement.Box{Left: 0.1, Top: 0.2, Right: 0.9, Bottom: 0.24,
		Corners: &[4][2]float64{{0.1, 0.2}, {0.9, 0.22}, {0.9, 0.24}, {0.1, 0.22}}})
	require.NotNil(t, askew.Corners)
	want := [4][2]float64{{0.094, 0.197}, {0.906, 0.217}, {0.906, 0.243}, {0.094, 0.223}}
	for i := range want {
		require.InDeltaSlice(t, want[i][:], askew.Corners[i][:], 1e-9, "corner %d", i)
	}
	require.Equal(t, "0.094,0.197 0.906,0.217 0.906,0.243 0.094,0.223", cornerPoints(askew))
}
