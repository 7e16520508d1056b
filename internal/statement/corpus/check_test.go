package corpus

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	d := func(v string) *decimal.Decimal { x := decimal.RequireFromString(v); return &x }
	tx := func(y, m, dd int, amount string) statement.Transaction {
		return statement.Transaction{Date: statement.MustDate(y, time.Month(m), dd), Amount: decimal.RequireFromString(amount)}
	}
	key := Key{
		OpeningBalance: s("100.00"), ClosingBalance: s("70.00"),
		Transactions: []KeyTransaction{{Date: "2023-03-01", Amount: "-50.00"}, {Date: "2023-03-02", Amount: "20.00"}},
	}
	review := []statement.ReviewReason{{Code: statement.ReviewBalanceMismatch, Message: "does not add up"}}
	encrypted := statement.Errorf(statement.FormatPDF, statement.ErrEncrypted, statement.Position{}, "")
	tests := []struct {
		name       string
		st         *statement.Statement
		err        error
		key        Key
		want       Status
		wantOpened bool
	}{
		{"the key's transactions and balances are exact", &statement.Statement{
			Transactions:   []statement.Transaction{tx(2023, 3, 1, "-50"), tx(2023, 3, 2, "20.00")},
			OpeningBalance: d("100"), ClosingBalance: d("70")}, nil, key, Exact, true},
		{"newest first is exact", &statement.Statement{
			Transactions:   []statement.Transaction{tx(2023, 3, 2, "20"), tx(2023, 3, 1, "-50")},
			OpeningBalance: d("100"), ClosingBalance: d("70")}, nil, key, Exact, true},
		{"a sign flipped without review is a completed wrong answer", &statement.Statement{
			Transactions:   []statement.Transaction{tx(2023, 3, 1, "50"), tx(2023, 3, 2, "20")},
			OpeningBalance: d("100"), ClosingBalance: d("70")}, nil, key, CompletedWrong, true},
		{"a missing closing balance is not exact, but nothing read is wrong", &statement.Statement{
			Transactions:   []statement.Transaction{tx(2023, 3, 1, "-50"), tx(2023, 3, 2, "20")},
			OpeningBalance: d("100")}, nil, key, Incomplete, true},
		{"a closing balance read wrong without review is a completed wrong answer", &statement.Statement{
			Transactions:   []statement.Transaction{tx(2023, 3, 1, "-50"), tx(2023, 3, 2, "20")},
			OpeningBalance: d("100"), ClosingBalance: d("71")}, nil, key, CompletedWrong, true},
		{"a wrong date sent to review is honest", &statement.Statement{
			Transactions:   []statement.Transaction{tx(2022, 3, 1, "-50"), tx(2023, 3, 2, "20")},
			OpeningBalance: d("100"), ClosingBalance: d("70"), Review: review}, nil, key, ReviewWrong, true},
		{"balances the key lacks are not checked", &statement.Statement{
			Transactions: []statement.Transaction{tx(2023, 3, 1, "-50"), tx(2023, 3, 2, "20")}},
			nil, Key{Transactions: key.Transactions}, Exact, true},
		{"a protected file the key's password did not open has failed and not opened", nil,
			statement.Errorf(statement.FormatPDF, statement.ErrPasswordIncorrect, statement.Position{}, ""), Key{Password: "x"}, Failed, false},
		{"an owner-only encrypted file that does not open has failed", nil, encrypted, key, Failed, false},
		{"a corrupt file has failed and not opened", nil,
			statement.Errorf(statement.FormatPDF, statement.ErrCorrupt, statement.Position{}, ""), key, Failed, false},
		{"no transaction table found has failed but opened", nil,
			statement.Errorf(statement.FormatPDF, statement.ErrNotAStatement, statement.Position{}, ""), key, Failed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Classify("f", tt.st, tt.err, tt.key)
			if r.Status != tt.want || r.Opened != tt.wantOpened {
				t.Errorf("status %s opened %v, want %s opened %v (note %q)", r.Status, r.Opened, tt.want, tt.wantOpened, r.Note)
			}
		})
	}
}
