package tabular

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// TestStreamReadsAsExtract reads tables whose statement depends on all of their rows (signs
// from running balances either way round, the reading order, runs of accounts, continuation
// rows, dates printed once a day, a card's balances) with Extract and with Stream: the stream
// must yield the transactions Extract holds, and make the same statement of the rest.
func TestStreamReadsAsExtract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tbl  Table
		card bool
		want func(t *testing.T, st *statement.Statement)
	}{
		{
			name: "unsigned amounts take their signs from the balances, oldest first",
			tbl: sheet(
				[]string{"Opening balance", "100.00"},
				[]string{"Date", "Description", "Amount", "Balance"},
				[]string{"2024-01-02", "Rent", "40.00", "60.00"},
				[]string{"2024-01-03", "Salary", "10.50", "70.50"},
				[]string{"2024-01-04", "Fee", "0.50", "70.00"},
			),
			want: func(t *testing.T, st *statement.Statement) {
				require.Contains(t, st.Dialect, "signs=balance")
				require.Equal(t, []string{"-40.00", "10.50", "-0.50"}, amounts(st))
				require.Equal(t, "100.00", st.Sections[0].OpeningBalance.String())
			},
		},
		{
			name: "unsigned amounts take their signs from the balances, newest first",
			tbl: sheet(
				[]string{"Opening balance", "100.00"},
				[]string{"Date", "Description", "Amount", "Balance"},
				[]string{"2024-01-04", "Fee", "0.50", "70.00"},
				[]string{"2024-01-03", "Salary", "10.50", "70.50"},
				[]string{"2024-01-02", "Rent", "40.00", "60.00"},
			),
			want: func(t *testing.T, st *statement.Statement) {
				require.Contains(t, st.Dialect, "signs=balance;order=newest-first")
				require.Equal(t, []string{"-0.50", "10.50", "-40.00"}, amounts(st))
			},
		},
		{
			name: "running balances without a stated opening derive it, newest first",
			tbl: sheet(
				[]string{"Date", "Description", "Amount", "Balance"},
				[]string{"2024-01-04", "Fee", "-0.50", "70.00"},
				[]string{"2024-01-03", "Salary", "10.50", "70.50"},
				[]string{"", "more text of the salary", "", ""},
				[]string{"2024-01-02", "Rent", "-40.00", "60.00"},
			),
			want: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "100.00", st.Sections[0].OpeningBalance.String())
				require.Equal(t, "70.00", st.Sections[0].ClosingBalance.String())
				require.Equal(t, "Salary more text of the salary", st.Transactions[1].Description)
			},
		},
		{
			name: "runs of own accounts are sections, each with its currency",
			tbl: sheet(
				[]string{"Own account", "Date", "Description", "Amount", "Currency", "Balance"},
				[]string{"DE89370400440532013000", "2024-01-02", "A", "-1.00", "EUR", "9.00"},
				[]string{"DE89370400440532013000", "2024-01-03", "B", "2.00", "EUR", "11.00"},
				[]string{"GB29NWBK60161331926819", "2024-01-02", "C", "-3.00", "GBP", "7.00"},
				[]string{"", "", "C continued", "", "", ""},
				[]string{"GB29NWBK60161331926819", "", "D", "4.00", "GBP", "11.00"},
			),
			want: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Sections, 2)
				require.Equal(t, "GBP", st.Sections[1].Currency)
				require.Equal(t, "10.00", st.Sections[1].OpeningBalance.String())
				require.Equal(t, st.Transactions[2].Date, st.Transactions[3].Date, "a date printed once a day")
			},
		},
		{
			name: "a card's balances are the holder's debt",
			card: true,
			tbl: sheet(
				[]string{"Previous balance", "50.00"},
				[]string{"New balance", "80.00"},
				[]string{"Date", "Description", "Amount"},
				[]string{"2024-01-02", "Shop", "30.00"},
			),
			want: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "-50.00", st.Sections[0].OpeningBalance.String())
				require.Equal(t, []string{"-30.00"}, amounts(st))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.tbl.Card = tt.card
			st := extractChecked(t, tt.tbl)
			statement.Finish(st)
			tt.want(t, st)
		})
	}
}

// extractChecked reads tbl with Extract and with Stream, and fails t unless they agree.
func extractChecked(t *testing.T, tbl Table) *statement.Statement {
	t.Helper()
	st, err := Extract(tbl, statement.Options{})
	require.NoError(t, err)
	s, err := Stream(tbl, statement.Options{})
	require.NoError(t, err)
	require.Equal(t, len(st.Transactions), s.Count)
	for range 2 {
		var got []statement.Transaction
		require.NoError(t, s.Each(func(tx *statement.Transaction) bool {
			got = append(got, *tx)
			return true
		}))
		require.Equal(t, st.Transactions, got, "Stream yields the transactions Extract holds")
	}
	rest := *st
	rest.Transactions = nil
	require.Equal(t, &rest, s.Statement, "Stream makes the statement Extract makes")
	// A stream stopped early stops reading.
	n := 0
	require.NoError(t, s.Each(func(*statement.Transaction) bool { n++; return false }))
	require.Equal(t, 1, n)
	return st
}

func amounts(st *statement.Statement) []string {
	var out []string
	for _, tx := range st.Transactions {
		out = append(out, tx.Amount.String())
	}
	return out
}
