package parsejob

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/cursor"
	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/upload"
)

func memFile(name string, data []byte) upload.File {
	return upload.File{Name: name, Size: int64(len(data)), SHA256: sha256.Sum256(data),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

func csvRows(n int) []byte {
	var b strings.Builder
	b.WriteString("Date,Description,Amount\n")
	for i := range n {
		fmt.Fprintf(&b, "2024-03-%02d,PAYMENT %d,%d.50\n", i%28+1, i, i+1)
	}
	return []byte(b.String())
}

func TestCheckFile(t *testing.T) {
	t.Parallel()
	pdfLike := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 100)...)
	tests := []struct {
		name       string
		data       []byte
		maxRows    int
		wantFormat statement.Format
		wantErr    string
		tooLarge   bool
	}{
		{name: "a CSV statement is accepted with its format", data: csvRows(3), wantFormat: statement.FormatCSV},
		{name: "an empty file is refused", data: nil, wantErr: "empty"},
		{name: "binary content is refused", data: []byte{0x89, 'P', 'N', 'G', 0, 0, 0, 0, 1, 2, 3}, wantErr: "binary"},
		{name: "a broken PDF is refused when it is opened", data: pdfLike, wantErr: "file: pdf"},
		{name: "a CSV with no more lines than the row limit is not parsed at upload", data: csvRows(4), maxRows: 5, wantFormat: statement.FormatCSV},
		{name: "a CSV with more rows than the limit is too large", data: csvRows(10), maxRows: 5, wantErr: "row limit", tooLarge: true},
		{name: "a CSV with more lines than the limit but few rows is accepted",
			data: append(csvRows(3), bytes.Repeat([]byte("\n"), 20)...), maxRows: 5, wantFormat: statement.FormatCSV},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &Service{Limits: statement.Options{MaxRows: tc.maxRows}}
			format, err := s.checkFile(memFile("s.csv", tc.data))
			if tc.wantErr == "" {
				require.NoError(t, err)
				require.Equal(t, tc.wantFormat, format)
				return
			}
			var ferr *FileError
			require.ErrorAs(t, err, &ferr)
			require.Contains(t, ferr.Error(), tc.wantErr)
			require.Equal(t, tc.tooLarge, ferr.TooLarge)
		})
	}
}

func TestFailureOfNamesTheCodeOfEachKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind error
		want ErrorCode
	}{
		{statement.ErrNotAStatement, CodeUnsupportedFormat},
		{statement.ErrCorrupt, CodeFileCorrupt},
		{statement.ErrEncrypted, CodeFileEncrypted},
		{statement.ErrPasswordRequired, CodePasswordRequired},
		{statement.ErrPasswordIncorrect, CodePasswordIncorrect},
		{statement.ErrNoTextLayer, CodeNoTextLayer},
		{statement.ErrNoTransactions, CodeNoTransactions},
		{statement.ErrTooManyRows, CodeTooManyRows},
		{statement.ErrResourceLimit, CodeResourceLimit},
		{statement.ErrInternal, CodeInternalError},
	}
	for _, tc := range tests {
		t.Run(string(tc.want), func(t *testing.T) {
			t.Parallel()
			err := statement.Errorf(statement.FormatMT940, tc.kind, statement.Position{Line: 7}, "detail")
			f := failureOf(err)
			require.Equal(t, tc.want, f.Code)
			if tc.want == CodeInternalError {
				require.Equal(t, statement.ErrInternal.Error(), f.Message, "a parser bug shows only the fixed text")
			} else {
				require.Equal(t, "mt940: line 7: detail: "+tc.kind.Error(), f.Message)
			}
		})
	}
	t.Run("a contained panic keeps its stack out of the message", func(t *testing.T) {
		t.Parallel()
		err := fmt.Errorf("%w (panic: boom)\nstack", statement.Errorf(statement.FormatCSV, statement.ErrInternal, statement.Position{}, ""))
		require.Equal(t, Failure{Code: CodeInternalError, Message: statement.ErrInternal.Error()}, *failureOf(err))
	})
	t.Run("an error of no known kind is internal", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, CodeInternalError, failureOf(errors.New("odd")).Code)
	})
}

func dec(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	t.Run("a consistent statement completes, with the currency's decimals and section currencies", func(t *testing.T) {
		t.Parallel()
		st := &statement.Statement{Format: statement.FormatMT940, BankName: "Bank", Account: "DE89", Currency: "",
			OpeningBalance: dec("100"), ClosingBalance: dec("1350.5"),
			Transactions: []statement.Transaction{
				{Amount: decimal.RequireFromString("1250.5"), Balance: dec("1350.5")},
				{Amount: decimal.RequireFromString("1000"), Currency: "JPY"},
			},
			Sections: []statement.Section{{Currency: "EUR", First: 0, Count: 1}, {Currency: "", First: 1, Count: 1}},
		}
		out := outcome(st, len(st.Transactions))
		txs := storedOf(t, st)
		require.Equal(t, StatusCompleted, out.Status)
		require.Equal(t, 2, out.TransactionsCount)
		require.Equal(t, "EUR", txs[0].Currency, "filled from its section")
		require.Equal(t, "1250.50", txs[0].Amount.String())
		require.Equal(t, "1350.50", txs[0].Balance.String())
		require.Equal(t, "1000", txs[1].Amount.String(), "JPY has no decimals")
		require.Equal(t, "100.00", out.OpeningBalance.String(), "2 decimals when the currency is unknown")
		require.Equal(t, "1350.50", out.ClosingBalance.String())
	})
	t.Run("a statement with review reasons is in review", func(t *testing.T) {
		t.Parallel()
		st := &statement.Statement{Format: statement.FormatCSV,
			Review: []statement.ReviewReason{{Code: statement.ReviewBalanceMismatch, Message: "m"}}}
		out := outcome(st, 0)
		require.Equal(t, StatusReview, out.Status)
		require.Equal(t, st.Review, out.ReviewReasons)
	})
	t.Run("amounts with more decimals than the currency keep them", func(t *testing.T) {
		t.Parallel()
		st := &statement.Statement{Transactions: []statement.Transaction{{Amount: decimal.RequireFromString("-0.12345"), Currency: "EUR"}}}
		require.Equal(t, "-0.12345", storedOf(t, st)[0].Amount.String())
	})
	t.Run("sections out of order still give each transaction its own section's currency", func(t *testing.T) {
		t.Parallel()
		st := &statement.Statement{
			Transactions: []statement.Transaction{{Amount: decimal.New(1, 0)}, {Amount: decimal.New(2, 0)}, {Amount: decimal.New(3, 0)}},
			Sections: []statement.Section{{Currency: "GBP", First: 2, Count: 1}, {Currency: "EUR", First: 0, Count: 2},
				{Currency: "USD", First: 1, Count: 9}},
		}
		var currencies []string
		for _, tx := range storedOf(t, st) {
			currencies = append(currencies, tx.Currency)
		}
		require.Equal(t, []string{"EUR", "EUR", "GBP"}, currencies, "a section past the transactions gives none")
	})
}

// storedOf returns the transactions a job stores of st, as Complete is handed them.
func storedOf(t *testing.T, st *statement.Statement) []statement.Transaction {
	t.Helper()
	read := statement.Held(st)
	txs, whole := stored(read)
	defer func() { require.True(t, *whole, "a whole reading finishes the statement") }()
	require.Equal(t, len(st.Transactions), txs.Count)
	var out []statement.Transaction
	require.NoError(t, txs.Each(func(tx *statement.Transaction) bool {
		out = append(out, *tx)
		return true
	}))
	return out
}

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		created, limit, remaining int
		percent                   float64
	}{
		{0, 50, 50, 0},
		{425, 1000, 575, 42.5},
		{1, 3, 2, 33.3},
		{2, 3, 1, 66.7},
		{60, 50, 0, 120},
	}
	for _, tc := range tests {
		u := Usage{JobsCreated: tc.created, JobsLimit: tc.limit}
		require.Equal(t, tc.remaining, u.JobsRemaining(), "%+v", tc)
		require.Equal(t, tc.percent, u.PercentUsed(), "%+v", tc)
	}
}

func TestMonthlyLimit(t *testing.T) {
	t.Parallel()
	for plan, want := range map[account.ParsePlan]int{
		account.ParseFree: 50, account.ParseStarter: 1000, account.ParsePro: 10000, account.ParseBusiness: 100000,
	} {
		require.Equal(t, want, MonthlyLimit(plan), plan)
	}
}

func TestCursors(t *testing.T) {
	t.Parallel()
	status := StatusCompleted
	after := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	filtered := ListRequest{Status: &status, CreatedAfter: &after}
	mark := Mark{CreatedAt: time.Date(2025, 4, 1, 8, 15, 30, 123456000, time.UTC), ID: uuid.New()}

	t.Run("a list cursor gives back its place for the same filters", func(t *testing.T) {
		t.Parallel()
		c := encodeListCursor(mark, listFilter(filtered))
		got, err := decodeListCursor(c, listFilter(filtered))
		require.NoError(t, err)
		require.True(t, mark.CreatedAt.Equal(got.CreatedAt))
		require.Equal(t, mark.ID, got.ID)
	})
	t.Run("a list cursor is refused with other filters", func(t *testing.T) {
		t.Parallel()
		c := encodeListCursor(mark, listFilter(filtered))
		_, err := decodeListCursor(c, listFilter(ListRequest{Status: &status}))
		require.ErrorIs(t, err, cursor.ErrBad)
		require.ErrorContains(t, err, "other filters")
	})
	t.Run("a results cursor belongs to its job", func(t *testing.T) {
		t.Parallel()
		id := uuid.New()
		seq, err := decodeResultsCursor(encodeResultsCursor(id, 99), id)
		require.NoError(t, err)
		require.Equal(t, 99, seq)
		_, err = decodeResultsCursor(encodeResultsCursor(id, 99), uuid.New())
		require.ErrorIs(t, err, cursor.ErrBad)
	})
	t.Run("a results cursor past any stored position is refused", func(t *testing.T) {
		t.Parallel()
		id := uuid.New()
		seq, err := decodeResultsCursor(encodeResultsCursor(id, maxCursorSeq), id)
		require.NoError(t, err)
		require.Equal(t, maxCursorSeq, seq)
		// A page after it would read positions beyond PostgreSQL's integer (a 500 before).
		for _, bad := range []int{-1, maxCursorSeq + 1, math.MaxInt32, math.MaxInt64} {
			_, err := decodeResultsCursor(encodeResultsCursor(id, bad), id)
			require.ErrorIs(t, err, cursor.ErrBad, "seq %d", bad)
		}
	})
	for _, bad := range []string{"%%%", "bm90IGpzb24", encodeResultsCursor(uuid.New(), 1), cursor.Encode(map[string]any{"v": 2})} {
		t.Run("a malformed or foreign list cursor is refused: "+bad, func(t *testing.T) {
			t.Parallel()
			_, err := decodeListCursor(bad, listFilter(ListRequest{}))
			require.ErrorIs(t, err, cursor.ErrBad)
		})
	}
}
