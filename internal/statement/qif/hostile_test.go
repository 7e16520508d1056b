package qif

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

func TestEveryPrefixOfAFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"antoinejaussoin__rust-qif-parser__nasty.qif", "antoinejaussoin__rust-qif-parser__amex.qif"} {
		data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
		require.NoError(t, err)
		for n := 0; n <= len(data); n++ {
			st, err := parsed(t, data[:n], statement.Options{})
			if err == nil {
				statementtest.RequireSane(t, st)
			} else {
				var se *statement.Error
				require.ErrorAs(t, err, &se, "prefix %d of %s", n, name)
			}
		}
	}
}

func TestGarbage(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("DTUNPM^!$S/.,'- 0123456789\n\r\t\x00\xff\xc3")
	for i := 0; i < 3000; i++ {
		b := make([]byte, r.IntN(300))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		st, err := parsed(t, append([]byte("!Type:Bank\n"), b...), statement.Options{})
		if err == nil {
			statementtest.RequireSane(t, st)
		}
	}
}

func TestHostileInputsEndQuickly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		kind error // nil: must parse
	}{
		{"a record of 10,000 lines", "!Type:Bank\nD01/13/2020\nT1\n" + strings.Repeat("AAddress line\nSSplit\n$-1\nNx\n", 2500) + "^\n", nil},
		{"a 10 MB line", "!Type:Bank\nD01/13/2020\nT1\nP" + strings.Repeat("x ", 5<<20) + "\n^\n", nil},
		{"a 10,000-digit amount", "!Type:Bank\nD01/13/2020\nT" + strings.Repeat("9", 10_000) + "\n^\nD01/13/2020\nT1\n^\n", nil},
		{"a million empty records", "!Type:Bank\n" + strings.Repeat("^\n", 1_000_000), statement.ErrNoTransactions},
		{"a million headers", strings.Repeat("!Type:Bank\n", 1_000_000), statement.ErrNoTransactions},
		{"a million records in a file that allows ten", "!Type:Bank\n" + strings.Repeat("D01/13/2020\nT1\n^\n", 1_000_000), statement.ErrTooManyRows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			st, err := parsed(t, []byte(tc.data), statement.Options{MaxRows: 10})
			if tc.kind == nil {
				require.NoError(t, err)
				statementtest.RequireSane(t, st)
			} else {
				require.ErrorIs(t, err, tc.kind)
			}
			require.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func FuzzQIF(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.qif"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("!Option:AutoSwitch\n!Account\nNChecking\n^\n!Type:Bank\nD1/ 2'05\nT-1.234,56\n^\n!Type:Invst\nD1/2/98\nT1\n^\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parsed(t, data, statement.Options{MaxRows: 1000})
		if err != nil {
			var se *statement.Error
			require.ErrorAs(t, err, &se)
			return
		}
		statementtest.RequireSane(t, st)
	})
}
