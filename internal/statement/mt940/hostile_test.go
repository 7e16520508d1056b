package mt940

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

// checkOutcome is what any input must give: a consistent statement, or an error of one of the
// statement kinds; never a crash (parse has no recover, so a crash fails the test).
func checkOutcome(t testing.TB, data []byte, opts statement.Options) {
	t.Helper()
	// Stream, which the parse jobs use, must read every file as Parse does.
	statementtest.ParsedAndStreamed(t, data, opts, parse, stream)
	st, err := parse(data, opts)
	if err != nil {
		var perr *statement.Error
		require.ErrorAs(t, err, &perr)
		require.Nil(t, st)
		return
	}
	requireConsistent(t, st)
	statement.Finish(st)
	for _, r := range st.Review {
		require.NotContains(t, r.Message, "could not be delimited")
	}
}

// TestEveryPrefix cuts small corpus files at every byte: a truncated file must not crash.
func TestEveryPrefix(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"sandermarechal__jejik-mt940__postfinance.txt", "sandermarechal__jejik-mt940__sparkasse.txt",
		"sandermarechal__jejik-mt940__triodos.txt", "wolph__mt940__mBank_mt942.sta", "wolph__mt940__raiffeisen-cmi.sta",
		"fruitl00p__php-mt940__Kbs_sample", "sandermarechal__jejik-mt940__rabobank-iban.txt", "wolph__mt940__citi_mt940.txt",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata/corpus", name))
			require.NoError(t, err)
			for n := 0; n <= len(data); n++ {
				checkOutcome(t, data[:n], statement.Options{})
			}
		})
	}
}

// TestHostileInput feeds inputs built to be slow, large or confusing. Each must end quickly.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	head := ":20:X\n:25:1\n:60F:C200101EUR0,00\n"
	tests := []struct {
		name string
		in   string
		opts statement.Options
	}{
		{"a :86: of 10,000 lines", head + ":61:200101C1,NTRFNONREF\n:86:" + strings.Repeat("?20SVWZ+text ?21more\n", 10000) + ":62F:C200101EUR1,\n", statement.Options{}},
		{"a free-text :86: of 10,000 lines", head + ":61:200101C1,NTRFNONREF\n:86:" + strings.Repeat("REK: ; TYT.: /NAME/ x\n", 10000), statement.Options{}},
		{"10,000 :86: fields on one line", head + ":61:200101C1,NTRFNONREF\n" + strings.Repeat(":86:/EREF/x/NAME/y\n", 10000), statement.Options{}},
		{"one line of a megabyte", head + ":61:200101C1,NTRF" + strings.Repeat("A", 1<<20), statement.Options{}},
		{"an amount of 100,000 digits", head + ":61:200101C" + strings.Repeat("9", 100000) + ",NTRF\n", statement.Options{}},
		{"a balance of 100,000 digits", ":20:X\n:25:1\n:60F:C200101EUR" + strings.Repeat("9", 100000) + "\n:61:200101C1,NTRF\n", statement.Options{}},
		{"an amount of 30 digits", head + ":61:200101C" + strings.Repeat("9", 30) + ",99NTRF\n:62F:C200101EUR1,\n", statement.Options{}},
		{"10,000 nested envelope blocks", strings.Repeat("{1:", 10000) + "\n" + head + ":61:200101C1,NTRF\n", statement.Options{}},
		{"10,000 envelopes on one line", strings.Repeat("{1:F01INGBNL2AXXXX00001}{2:I940INGBNL2AXXXN}{4:-}", 10000), statement.Options{}},
		{"100,000 subfield markers", head + ":61:200101C1,NTRF\n:86:166" + strings.Repeat("?2", 100000) + "\n", statement.Options{}},
		{"100,000 slash keys", head + ":61:200101C1,NTRF\n:86:" + strings.Repeat("/EREF/", 100000) + "\n", statement.Options{}},
		{"100,000 SEPA keywords", head + ":61:200101C1,NTRF\n:86:166?20" + strings.Repeat("EREF+", 100000) + "\n", statement.Options{}},
		{"100,000 statements without lines", strings.Repeat(":20:X\n:25:1\n:60F:C200101EUR0,00\n:62F:C200101EUR0,00\n-\n", 100000) + head + ":61:200101C1,NTRF\n", statement.Options{}},
		{"a million statement lines over the row limit", head + strings.Repeat(":61:200101C1,NTRF\n", 1_000_000), statement.Options{MaxRows: 10}},
		{"only terminators and braces", strings.Repeat("-}\n{\n}\n-\n", 50000), statement.Options{}},
		{"NUL bytes between the tags", strings.ReplaceAll(head+":61:200101C1,NTRF\n:86:x\n", "\n", "\x00\n"), statement.Options{}},
		{"a lone CR file of one huge line", strings.Repeat(":86:x\r", 100000), statement.Options{}},
		// Found by FuzzMT940 (testdata/fuzz/FuzzMT940/3d0bcb09ae77a450): a slash key starting
		// on the closing slash of the one before it sliced a value backwards.
		{"a slash key on the closing slash of the key before it", ":61:000101C0\n:86:/BENM/ORDB/0", statement.Options{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			checkOutcome(t, []byte(tc.in), tc.opts)
			require.Less(t, time.Since(start), 10*time.Second)
		})
	}
}

// TestGarbage feeds random bytes and random mutations of a real file.
func TestGarbage(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata/corpus", "sandermarechal__jejik-mt940__volksbankenraiffeisenbanken.txt"))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(":?>/{}-0123456789CDRNSFEUR,. \r\n\x01\x03\x1a\xc2\xad\xa0\xff")
	for range 2000 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkOutcome(t, b, statement.Options{})

		m := append([]byte(nil), data...)
		for range 1 + rng.IntN(20) {
			m[rng.IntN(len(m))] = alphabet[rng.IntN(len(alphabet))]
		}
		checkOutcome(t, m, statement.Options{})
	}
}

// FuzzMT940 must not crash, and a statement it returns must be consistent.
func FuzzMT940(f *testing.F) {
	names, err := os.ReadDir("testdata/corpus")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range names {
		if e.Name() == "SOURCES.md" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata/corpus", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkOutcome(t, data, statement.Options{MaxRows: 1000})
	})
}
