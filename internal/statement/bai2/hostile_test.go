package bai2

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

func corpusFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	require.NoError(t, err)
	return data
}

// requireConsistent checks what a successful parse promises: sections delimit transactions
// inside the slice, in order, and every transaction says where it came from. (Plain checks,
// not require: it runs for every prefix of a file and in the fuzzer.)
func requireConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	if st.Format != statement.FormatBAI2 {
		t.Fatalf("format %q", st.Format)
	}
	next := 0
	for i, s := range st.Sections {
		if s.First < next || s.Count < 0 || s.First+s.Count > len(st.Transactions) {
			t.Fatalf("section %d delimits transactions [%d, %d+%d) of %d", i, s.First, s.First, s.Count, len(st.Transactions))
		}
		next = s.First + s.Count
	}
	for i, tx := range st.Transactions {
		if tx.Raw == "" || tx.Pos.Line <= 0 || tx.Pos.Record <= 0 {
			t.Fatalf("transaction %d has no raw text or position: %+v", i, tx)
		}
	}
	if len(st.Problems) > maxProblems+1 {
		t.Fatalf("%d problems", len(st.Problems))
	}
	statement.Finish(st)
}

func TestEveryPrefixParsesWithoutPanic(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"moov-io__bai2__sample2.txt",
		"moov-io__bai2__sample3.txt",
		"moov-io__bai2__sample5-issue113.txt",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := corpusFile(t, name)
			for n := 0; n <= len(data); n++ {
				statementtest.ParsedAndStreamed(t, data[:n], statement.Options{}, Parse, Stream)
				st, err := Parse(data[:n], statement.Options{})
				if err == nil {
					requireConsistent(t, st)
				}
			}
		})
	}
}

func TestHostileInputs(t *testing.T) {
	t.Parallel()
	header := "01,S,R,260301,0800,1,,,2/\n02,R,O,1,260228,,USD,2/\n03,1,,,,,/\n"
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 1<<16)
	for i := range noise {
		noise[i] = byte(rng.IntN(256))
	}
	tests := []struct {
		name  string
		data  []byte
		opts  statement.Options
		check func(t *testing.T, st *statement.Statement, err error)
	}{
		{
			name: "random bytes after a valid header",
			data: append([]byte(header), noise...),
		},
		{
			name: "random bytes",
			data: noise,
			check: func(t *testing.T, _ *statement.Statement, err error) {
				require.ErrorIs(t, err, statement.ErrNotAStatement)
			},
		},
		{
			name: "a 16 record wrapped over 10,000 lines",
			data: []byte(header + "16,195,100,Z,,,START" + strings.Repeat("\nmore text", 10_000) + "/\n49,100,3/\n"),
			check: func(t *testing.T, st *statement.Statement, err error) {
				require.NoError(t, err)
				require.Len(t, st.Transactions, 1)
				require.Len(t, st.Transactions[0].Description, len("START")+10_000*len(" more text"))
			},
		},
		{
			name: "a 16 record with 10,000 88 continuations",
			data: []byte(header + "16,195,100,Z,,,START/" + strings.Repeat("\n88,EREF: x\n88,more/", 5_000) + "\n"),
			check: func(t *testing.T, st *statement.Statement, err error) {
				require.NoError(t, err)
				require.Len(t, st.Transactions, 1)
				require.Equal(t, "x", st.Transactions[0].Reference)
			},
		},
		{
			name: "an 03 with 10,000 88 continuations",
			data: []byte(header + "03,2,,010,1,,/" + strings.Repeat("\n88,,,,/", 10_000) + "\n16,195,1,Z,,,X/\n"),
		},
		{
			name: "a funds type D announcing 10^18 distributions",
			data: []byte(header + "16,195,100,D,999999999999999999,1,2/\n03,2,,010,1,,D,999999999999999999,0,1/\n"),
			check: func(t *testing.T, st *statement.Statement, err error) {
				require.NoError(t, err)
				require.Len(t, st.Transactions, 1, "the amount and type code are still good")
				require.Contains(t, st.Problems[0].Message, "funds type D announces 999999999999999999 distributions but the record ends before them")
			},
		},
		{
			name: "a single line of 1 MB without a record end",
			data: []byte(header + "16,195,1,Z,,," + strings.Repeat("x,/ ", 1<<18)),
		},
		{
			name: "amounts whose control sum leaves int64 are not compared",
			data: []byte(header + strings.Repeat("16,195,999999999999999999,Z,,,BIG/\n", 20) + "49,1,22/\n98,1,1,24/\n99,1,1,26/\n"),
			check: func(t *testing.T, st *statement.Statement, err error) {
				require.NoError(t, err)
				require.Len(t, st.Transactions, 20)
				require.Equal(t, "9999999999999999.99", st.Transactions[0].Amount.String())
				for _, p := range st.Problems {
					require.NotContains(t, p.Message, "49 trailer", "the sum overflowed, so no claim is made about it")
				}
			},
		},
		{
			name: "100,000 garbage lines are reported in a bounded list",
			data: []byte(header + "16,195,1,Z,,,X/\n" + strings.Repeat("??\n", 100_000)),
			check: func(t *testing.T, st *statement.Statement, err error) {
				require.NoError(t, err)
				require.Len(t, st.Problems, maxProblems+1)
				require.Contains(t, st.Problems[maxProblems].Message, "further problems are not listed")
			},
		},
		{
			name: "100,000 accounts against a row limit of 1,000",
			data: []byte("01,S,R,260301,0800,1,,,2/\n02,R,O,1,260228,,USD,2/\n" + strings.Repeat("03,1,,010,1,,/\n", 100_000)),
			opts: statement.Options{MaxRows: 1000},
			check: func(t *testing.T, _ *statement.Statement, err error) {
				require.ErrorIs(t, err, statement.ErrTooManyRows)
			},
		},
		{
			name: "NUL bytes and control characters in fields",
			data: []byte(header + "16,195,1\x00,Z,\x01,\x02,\x00TEXT\x7f/\n16,\x00\x00,1,Z,,,/\n"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			st, err := Parse(tc.data, tc.opts)
			require.Less(t, time.Since(start), 5*time.Second)
			if tc.check != nil {
				tc.check(t, st, err)
			}
			if err == nil {
				requireConsistent(t, st)
			}
		})
	}
}
