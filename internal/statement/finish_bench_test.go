package statement

import (
	"testing"

	"github.com/shopspring/decimal"
)

// BenchmarkFinish runs Finish on a statement of 20,000 transactions in 400 sections of 50, each
// with opening and closing balances and a running balance on every line (as MT940 gives them):
// the after-parse cost every format pays.
func BenchmarkFinish(b *testing.B) {
	const sections, perSection = 400, 50
	st := &Statement{}
	balance := decimal.New(1_000_000, -2)
	for s := range sections {
		open := balance
		sec := Section{Account: "DE89370400440532013000", Currency: "EUR", OpeningBalance: &open, First: s * perSection, Count: perSection}
		for k := range perSection {
			amount := decimal.New(int64((s*perSection+k)%9973-4986), -2)
			balance = balance.Add(amount)
			bal := balance
			st.Transactions = append(st.Transactions, Transaction{Date: MustDate(2024, 3, 1+k%28),
				Amount: amount, Description: "SEPA CREDIT", Balance: &bal})
		}
		closing := balance
		sec.ClosingBalance = &closing
		st.Sections = append(st.Sections, sec)
	}
	b.ReportAllocs()
	for b.Loop() {
		Finish(st)
		if len(st.Review) != 0 {
			b.Fatalf("review: %v", st.Review)
		}
	}
	b.ReportMetric(float64(len(st.Transactions)*b.N)/b.Elapsed().Seconds(), "tx/s")
}
