package statement

import (
	"runtime"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func pdec(s string) *decimal.Decimal { d := dec(s); return &d }

func day(d int) Date { return MustDate(2026, time.March, d) }

// tx is a transaction on March d with an amount and, if balance is not "", a running balance.
func tx(d int, amount, balance string, line int) Transaction {
	t := Transaction{Date: day(d), Amount: dec(amount), Pos: Position{Line: line}}
	if balance != "" {
		t.Balance = pdec(balance)
	}
	return t
}

func codes(st *Statement) []ReviewCode {
	var cs []ReviewCode
	for _, r := range st.Review {
		cs = append(cs, r.Code)
	}
	return cs
}

func TestFinish(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		st        Statement
		wantCodes []ReviewCode
		check     func(t *testing.T, st *Statement)
	}{
		{
			name: "a statement that adds up needs no review and gets types and currency",
			st: Statement{Account: "DE89370400440532013000", Currency: "EUR", OpeningBalance: pdec("100.00"), ClosingBalance: pdec("70.50"),
				Transactions: []Transaction{tx(1, "-40.00", "", 2), tx(2, "10.50", "", 3)}},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, Debit, st.Transactions[0].Type)
				require.Equal(t, Credit, st.Transactions[1].Type)
				require.Equal(t, "EUR", st.Transactions[0].Currency)
				require.Equal(t, day(1), st.PeriodStart, "the period comes from the transactions when not stated")
				require.Equal(t, day(2), st.PeriodEnd)
				require.Len(t, st.Sections, 1)
			},
		},
		{
			name: "a type the parser read is kept",
			st:   Statement{Transactions: []Transaction{{Amount: dec("0"), Type: Debit}}},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, Debit, st.Transactions[0].Type)
			},
		},
		{
			name: "balances that do not add up are a balance mismatch",
			st: Statement{OpeningBalance: pdec("100.00"), ClosingBalance: pdec("80.00"),
				Transactions: []Transaction{tx(1, "-40.00", "", 2)}},
			wantCodes: []ReviewCode{ReviewBalanceMismatch},
			check: func(t *testing.T, st *Statement) {
				require.Contains(t, st.Review[0].Message, "opening balance 100.00 plus transactions -40.00 is 60.00, but the closing balance is 80.00")
			},
		},
		{
			name: "running balances oldest first that follow need no review",
			st:   Statement{Transactions: []Transaction{tx(1, "-10", "90", 2), tx(2, "5", "95", 3), tx(3, "-1", "94", 4)}},
		},
		{
			name: "running balances newest first that follow need no review",
			st:   Statement{Transactions: []Transaction{tx(3, "-1", "94", 2), tx(2, "5", "95", 3), tx(1, "-10", "90", 4)}},
		},
		{
			name: "a balance printed only at the end of a day follows from all the day's amounts",
			st:   Statement{Transactions: []Transaction{tx(1, "-10", "90", 2), tx(2, "5", "", 3), tx(2, "-1", "94", 4), tx(3, "6", "100", 5)}},
		},
		{
			name: "newest first, a day balance follows from the amounts down to the next stated one",
			st:   Statement{Transactions: []Transaction{tx(3, "6", "100", 2), tx(2, "-1", "94", 3), tx(2, "5", "", 4), tx(1, "-10", "90", 5)}},
		},
		{
			name:      "a day balance that the amounts between do not explain is a break",
			st:        Statement{Transactions: []Transaction{tx(1, "-10", "90", 2), tx(2, "5", "", 3), tx(2, "-1", "95", 4)}},
			wantCodes: []ReviewCode{ReviewRunningBalanceBreak},
		},
		{
			name: "a day balance repeated on each line of the day is not a break",
			st:   Statement{Transactions: []Transaction{tx(1, "-10", "85", 2), tx(1, "-5", "85", 3), tx(2, "5", "90", 4)}},
		},
		{
			name:      "a running balance that jumps is a break at its line",
			st:        Statement{Transactions: []Transaction{tx(1, "-10", "90", 2), tx(2, "5", "95", 3), tx(3, "-1", "99", 4), tx(4, "1", "100", 5)}},
			wantCodes: []ReviewCode{ReviewRunningBalanceBreak},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, 4, st.Review[0].Line)
				require.Contains(t, st.Review[0].Message, "line 4")
			},
		},
		{
			name: "sections of one account give the first opening and the last closing",
			st: Statement{Transactions: []Transaction{tx(1, "-10", "", 5), tx(2, "20", "", 9)}, Sections: []Section{
				{Account: "A", Currency: "EUR", OpeningBalance: pdec("100"), ClosingBalance: pdec("90"), PeriodStart: day(1), PeriodEnd: day(1), First: 0, Count: 1},
				{Account: "A", Currency: "EUR", OpeningBalance: pdec("90"), ClosingBalance: pdec("110"), PeriodStart: day(2), PeriodEnd: day(2), First: 1, Count: 1},
			}},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, "A", st.Account)
				require.Equal(t, "100", st.OpeningBalance.String())
				require.Equal(t, "110", st.ClosingBalance.String())
				require.Equal(t, day(1), st.PeriodStart)
				require.Equal(t, day(2), st.PeriodEnd)
			},
		},
		{
			name: "a statement that does not open where the previous one closed is a mismatch",
			st: Statement{Transactions: []Transaction{tx(1, "-10", "", 5), tx(2, "20", "", 9)}, Sections: []Section{
				{Account: "A", OpeningBalance: pdec("100"), ClosingBalance: pdec("90"), First: 0, Count: 1},
				{Account: "A", OpeningBalance: pdec("91"), ClosingBalance: pdec("111"), First: 1, Count: 1, Pos: Position{Line: 7}},
			}},
			wantCodes: []ReviewCode{ReviewBalanceMismatch},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, 7, st.Review[0].Line)
				require.Contains(t, st.Review[0].Message, "Statement 2 (account A) opens with 91")
			},
		},
		{
			name: "sections of different accounts leave the top-level account and balances empty",
			st: Statement{Transactions: []Transaction{tx(1, "-10", "", 5)}, Sections: []Section{
				{Account: "A", Currency: "EUR", OpeningBalance: pdec("100"), ClosingBalance: pdec("90"), First: 0, Count: 1},
				{Account: "B", Currency: "USD", OpeningBalance: pdec("5"), ClosingBalance: pdec("5"), First: 1, Count: 0},
			}},
			check: func(t *testing.T, st *Statement) {
				require.Empty(t, st.Account)
				require.Empty(t, st.Currency)
				require.Nil(t, st.OpeningBalance)
			},
		},
		{
			name: "declared totals that match need no review",
			st: Statement{Transactions: []Transaction{tx(1, "-10", "", 2), tx(1, "25", "", 3)}, Sections: []Section{{Count: 2,
				Declared: &ControlTotals{Count: new(2), Net: pdec("15"), Credits: pdec("25"), Debits: pdec("10")}}}},
		},
		{
			name: "declared totals that differ are a control total mismatch naming each",
			st: Statement{Transactions: []Transaction{tx(1, "-10", "", 2)}, Sections: []Section{{Count: 1,
				Declared: &ControlTotals{Count: new(2), Debits: pdec("11")}}}},
			wantCodes: []ReviewCode{ReviewControlTotalMismatch},
			check: func(t *testing.T, st *Statement) {
				require.Contains(t, st.Review[0].Message, "2 entries declared, 1 read")
				require.Contains(t, st.Review[0].Message, "debits declared 11, read 10")
			},
		},
		{
			name: "unreadable rows become one reason listing them, other problems keep their code",
			st: Statement{Problems: []Problem{
				{Pos: Position{Line: 4}, Message: `amount "12x" is not a number`},
				{Pos: Position{Line: 9}, Message: `date "31/31/2026" is not a date`},
				{Code: ReviewAmbiguousDateOrder, Message: "every date reads as day-first and month-first"},
			}},
			wantCodes: []ReviewCode{ReviewUnreadableRows, ReviewAmbiguousDateOrder},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, 4, st.Review[0].Line)
				require.Contains(t, st.Review[0].Message, "2 parts of the file could not be read")
				require.Contains(t, st.Review[0].Message, "line 9: date")
			},
		},
		{
			name:      "a section range outside the transactions is reported, not a panic",
			st:        Statement{Transactions: []Transaction{tx(1, "1", "", 1)}, Sections: []Section{{First: 0, Count: 5}}},
			wantCodes: []ReviewCode{ReviewUnreadableRows},
		},
		{
			name:      "a message lists ten breaks and counts the rest",
			st:        Statement{Transactions: jumps(13)},
			wantCodes: []ReviewCode{ReviewRunningBalanceBreak},
			check: func(t *testing.T, st *Statement) {
				require.Equal(t, 3, st.Review[0].Line)
				require.Contains(t, st.Review[0].Message, "at lines 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 2 more.")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The same statement streamed through a Finisher, its transactions shown one at a
			// time and not held, must come out as Finish leaves it.
			streamed := clone(tt.st)
			shown := streamed.Transactions
			streamed.Transactions = nil
			f := NewFinisher(&streamed)
			for _, t := range shown {
				one := t
				f.Add(&one)
				streamed.Transactions = append(streamed.Transactions, one)
			}
			f.Done()

			st := clone(tt.st)
			Finish(&st)
			require.Equal(t, st, streamed, "a Finisher fed one transaction at a time finishes as Finish does")
			require.Equal(t, tt.wantCodes, codes(&st), "review: %+v", st.Review)
			if tt.check != nil {
				tt.check(t, &st)
			}
			again := st
			Finish(&again)
			require.Equal(t, st.Review, again.Review, "Finish is idempotent")
		})
	}
}

// clone copies a statement with its own transactions and sections, which Finish changes.
func clone(st Statement) Statement {
	st.Transactions = append([]Transaction(nil), st.Transactions...)
	st.Sections = append([]Section(nil), st.Sections...)
	return st
}

// jumps is n transactions oldest first whose running balance, after the first, never follows.
func jumps(n int) []Transaction {
	var txs []Transaction
	for i := range n {
		txs = append(txs, tx(1+i, "-1", decimal.New(int64(100+10*i), 0).String(), 2+i))
	}
	return txs
}

func TestDate(t *testing.T) {
	t.Parallel()
	_, ok := NewDate(2026, time.February, 30)
	require.False(t, ok, "30 February does not exist")
	d, ok := NewDate(2024, time.February, 29)
	require.True(t, ok)
	require.Equal(t, "2024-02-29", d.String())
	b, err := d.MarshalJSON()
	require.NoError(t, err)
	var back Date
	require.NoError(t, back.UnmarshalJSON(b))
	require.Equal(t, d, back)
	b, _ = Date{}.MarshalJSON()
	require.Equal(t, "null", string(b))
}

func TestBankByBIC(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ING", BankByBIC("INGBNL2A"))
	require.Equal(t, "ING", BankByBIC("ingbnl2axxx"))
	require.Equal(t, "", BankByBIC("GENODEF1S04"), "a shared prefix names no bank")
	require.Equal(t, "", BankByBIC("INGB"), "not a BIC")
}

// TestFinishSpendsNoMemoryPerTransactionWithoutBalances: the running-balance check reserves
// room only for the balances a statement states, so Finish on 20,000 transactions without one
// allocates a few kilobytes, not a pair per transaction.
func TestFinishSpendsNoMemoryPerTransactionWithoutBalances(t *testing.T) {
	st := &Statement{Format: FormatCSV, Transactions: make([]Transaction, 20_000)}
	for i := range st.Transactions {
		st.Transactions[i] = Transaction{Date: MustDate(2024, time.March, 1+i%28), Amount: decimal.New(int64(i%500-250), -2), Pos: Position{Line: i + 2}}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Finish(st)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("Finish allocated %d bytes for 20,000 transactions without balances, want under 64 KiB", got)
	}
}
