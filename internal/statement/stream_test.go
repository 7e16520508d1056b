package statement

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRead drives Read with a reader of a few transactions: the first reading makes the
// statement, the count and the first position; every reading of Each yields the same
// transactions in order; a caller that stops early stops the reader, and what the reader then
// returns is not the caller's error; a reader that fails fails the Stream or the reading.
func TestRead(t *testing.T) {
	t.Parallel()
	errBroken := errors.New("broken")
	tests := []struct {
		name      string
		lines     int
		failFirst bool // the first reading fails
		failLater bool // later readings fail after their transactions
		stopAfter int  // the caller stops after this many (0: never)
		wantErr   error
		want      []int
	}{
		{name: "three transactions", lines: 3, want: []int{1, 2, 3}},
		{name: "none", lines: 0},
		{name: "the caller stops after one", lines: 3, stopAfter: 1, want: []int{1}},
		{name: "a stopped reader's own error is not the caller's", lines: 3, stopAfter: 2, failLater: true, want: []int{1, 2}},
		{name: "a later reading fails", lines: 2, failLater: true, wantErr: errBroken, want: []int{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			readings := 0
			read := func(emit func(*Transaction) bool) (*Statement, error) {
				readings++
				st := &Statement{Transactions: []Transaction{{Raw: "held"}}, Sections: []Section{{Count: tc.lines}}}
				for i := 1; i <= tc.lines; i++ {
					tx := Transaction{Pos: Position{Line: i}}
					if !emit(&tx) {
						return nil, errBroken
					}
				}
				if readings > 1 && tc.failLater {
					return nil, errBroken
				}
				return st, nil
			}
			s, err := Read(read)
			require.NoError(t, err)
			require.Nil(t, s.Statement.Transactions, "the transactions still held are dropped")
			require.Equal(t, tc.lines, s.Count)
			if tc.lines > 0 {
				require.Equal(t, Position{Line: 1}, s.First)
			}
			for range 2 {
				var got []int
				err := s.Each(func(tx *Transaction) bool {
					got = append(got, tx.Pos.Line)
					return tc.stopAfter == 0 || len(got) < tc.stopAfter
				})
				require.ErrorIs(t, err, tc.wantErr)
				if tc.wantErr == nil {
					require.NoError(t, err)
				}
				require.Equal(t, tc.want, got)
			}
		})
	}

	t.Run("a first reading that fails fails the stream", func(t *testing.T) {
		t.Parallel()
		_, err := Read(func(func(*Transaction) bool) (*Statement, error) { return nil, errBroken })
		require.ErrorIs(t, err, errBroken)
	})
}
