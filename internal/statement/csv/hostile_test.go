package csv

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// parseSafely parses and fails the test on a panic; errors are allowed.
func parseSafely(t *testing.T, data []byte) (*statement.Statement, error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic on %q: %v", truncate(data), r)
		}
	}()
	st, err := Parse(data, statement.Options{})
	if err == nil {
		checkConsistent(t, st)
		statement.Finish(st)
	}
	return st, err
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

func TestEveryPrefixOfSmallFiles(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"bank2ynab__bank2ynab__TransactionHistory_20180418043121.csv",
		"bank2ynab__bank2ynab__kta_ei.dat",
		"cantino__reckon__multi-line-field.csv",
		"bank2ynab__bank2ynab__Movements_1234512345_201805271848.csv",
		"bank2ynab__bank2ynab__test_swedebank_statement.xls",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
		require.NoError(t, err)
		for n := 0; n <= len(data); n++ {
			_, _ = parseSafely(t, data[:n])
		}
	}
}

func TestGarbage(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("0123456789,.;\t|\"-+()$€ \n\r\x00\xff\xfeabcDK/:=")
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(400))
		for k := range b {
			if r.IntN(4) == 0 {
				b[k] = byte(r.IntN(256))
			} else {
				b[k] = alphabet[r.IntN(len(alphabet))]
			}
		}
		_, _ = parseSafely(t, b)
	}
}

func TestHostileShapes(t *testing.T) {
	t.Parallel()
	header := "Date,Description,Amount\n"
	for _, tc := range []struct {
		name string
		data string
		// check runs on a successful parse.
		check func(t *testing.T, st *statement.Statement)
	}{
		{
			name: "an amount beyond int64 is exact",
			data: header + "2024-01-01,A,-123456789012345678901234567890.12\n",
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "-123456789012345678901234567890.12", st.Transactions[0].Amount.String())
			},
		},
		{
			name: "ten thousand digits are no amount",
			data: header + "2024-01-01,A," + strings.Repeat("9", 10000) + "\n2024-01-02,B,-1.00\n",
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Len(t, st.Problems, 1)
			},
		},
		{
			name: "a quoted record of ten thousand lines",
			data: header + "2024-01-01,\"" + strings.Repeat("line\n", 10000) + "\",-1.00\n2024-01-02,B,-2.00\n",
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 2)
				require.Equal(t, 10003, st.Transactions[1].Pos.Line)
			},
		},
		{
			name: "a row of a hundred thousand fields",
			data: header + "2024-01-01,A,-1.00" + strings.Repeat(",x", 100000) + "\n",
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
			},
		},
		{
			name: "a record of five million empty fields",
			data: header + "2024-01-01,A,-1.00" + strings.Repeat(",", 5_000_000) + "\n",
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, 1, len(st.Transactions))
			},
		},
		{
			name: "a line of a megabyte",
			data: header + "2024-01-01," + strings.Repeat("A", 1<<20) + ",-1.00\n",
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
			},
		},
		{
			name: "many unreadable rows keep the problems bounded",
			data: header + "2024-01-01,A,-1.00\n" + strings.Repeat("2024-01-01,B,x\n", 5000),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, 1, len(st.Transactions))
				require.LessOrEqual(t, len(st.Problems), 1000)
			},
		},
		{
			name: "NUL bytes",
			data: header + "2024-01-01,A\x00,-1.00\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseSafely(t, []byte(tc.data))
			if tc.check != nil {
				require.NoError(t, err)
				tc.check(t, st)
			}
		})
	}
}

// TestUnterminatedQuoteStaysLinear: a quote that never closes is read as a character, with
// one scan to the end of the file; the rows after it are read as usual.
func TestUnterminatedQuoteStaysLinear(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Date,Description,Amount\n2024-01-01,\"open,-1.00\n")
	for i := 0; i < 100000; i++ {
		b.WriteString("2024-01-02,\"\"\"\",-1.00\n")
	}
	start := time.Now()
	st, err := parseSafely(t, []byte(b.String()))
	require.NoError(t, err)
	require.Equal(t, 100001, len(st.Transactions))
	require.Equal(t, "\"open", st.Transactions[0].Description)
	require.Equal(t, "\"", st.Transactions[1].Description)
	require.Less(t, time.Since(start), 20*time.Second)
}
