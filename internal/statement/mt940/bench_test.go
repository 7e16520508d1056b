package mt940

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// benchInput concatenates the corpus's MT940 files until about size bytes: the UTF-8 ones
// without SOH/ETX or DOS end-of-file bytes, which would each switch the whole input to another
// charset or the slower line scanner, and without the MT942 reports.
func benchInput(b *testing.B, size int) []byte {
	b.Helper()
	var files [][]byte
	for _, path := range statementtest.CorpusFiles(b, statementtest.CorpusDir) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if bytes.ContainsAny(data, "\x01\x03\x1a") || !utf8.Valid(data) || bytes.Contains(data, []byte(":34F:")) {
			continue
		}
		if data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		files = append(files, data)
	}
	var buf bytes.Buffer
	for buf.Len() < size {
		for _, f := range files {
			buf.Write(f)
		}
	}
	return buf.Bytes()
}

// generate writes MT940 statements of about size bytes in all, as German and Dutch banks
// send them without an envelope: statements of 50 lines each, every :61: statement line with
// a :86: of German GVC subfields (EREF+, SVWZ+, name, IBAN) or of SWIFT slash codes (/EREF/,
// /NAME/, /REMI/), wrapped at 65 characters, and balances that add up. It returns the file and
// the number of transactions in it.
func generate(size int) ([]byte, int) {
	var b bytes.Buffer
	b.Grow(size + 4096)
	// field writes a tag and its content, wrapped at 65 characters a line as banks do.
	field := func(tag, content string) {
		b.WriteString(tag)
		for len(content) > 65 {
			b.WriteString(content[:65])
			b.WriteByte('\n')
			content = content[65:]
		}
		b.WriteString(content)
		b.WriteByte('\n')
	}
	amount := func(cents int64) string { return fmt.Sprintf("%d,%02d", cents/100, cents%100) }
	balance := func(cents int64) string {
		if cents < 0 {
			return "D" + amount(-cents)
		}
		return "C" + amount(cents)
	}
	txs := 0
	for s := 0; b.Len() < size; s++ {
		day := s%28 + 1
		date := fmt.Sprintf("2403%02d", day)
		field(":20:", fmt.Sprintf("STARTUMS%08d", s))
		field(":25:", fmt.Sprintf("37040044/%010d", 532013000+s%100))
		field(":28C:", fmt.Sprintf("%05d/001", s%100000))
		bal := int64(1_000_000 + s%1000*100)
		field(":60F:", balance(bal)[:1]+date+"EUR"+amount(bal))
		for i := range 50 {
			n := s*50 + i
			cents := int64(100 + (n*7919)%250_000)
			mark := "C"
			if n%3 == 0 {
				mark = "D"
				bal -= cents
			} else {
				bal += cents
			}
			field(":61:", fmt.Sprintf("%s%02d%02d%s%sNTRFNONREF//%014d", date, 3, day, mark, amount(cents), n))
			if n%2 == 0 {
				field(":86:", fmt.Sprintf("166?00SEPA-UEBERWEISUNG?109310?20EREF+E2E-INVOICE-%d?21SVWZ+Rechnung %d vom %02d.03.2024?22Kundennummer 4711?30COBADEFFXXX?31DE89370400440532013%03d?32Firma %d GmbH",
					n, n, day, n%1000, n%977))
			} else {
				field(":86:", fmt.Sprintf("/EREF/E2E-INVOICE-%d/BENM//NAME/Counterparty Company %d BV/REMI/USTD//Invoice %d customer 4711/IBAN/NL91ABNA0417164%03d",
					n, n%977, n, n%1000))
			}
			txs++
		}
		field(":62F:", balance(bal)[:1]+date+"EUR"+amount(max(bal, -bal)))
		b.WriteString("-\n")
	}
	return b.Bytes(), txs
}

func TestGeneratedFileIsClean(t *testing.T) {
	t.Parallel()
	data, n := generate(1 << 20)
	st := parseFinished(t, data)
	require.Empty(t, st.Problems)
	require.Empty(t, st.Review)
	require.Len(t, st.Transactions, n)
	require.Equal(t, "E2E-INVOICE-0", st.Transactions[0].Reference)
	require.Equal(t, "E2E-INVOICE-1", st.Transactions[1].Reference)
}

// mt940Bench is the input of BenchmarkMT940vsLimits, generated once: about 20 MiB, and the
// number of transactions in it.
var mt940Bench = sync.OnceValues(func() ([]byte, int) { return generate(20 << 20) })

// BenchmarkMT940vsLimits sets Parse beside the raw limit on the same bytes, generated
// statements of about 20 MiB (see generate), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat; MT940
//     has no standard library reader to compare with.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the file's transactions for both, so the
// floor's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'MT940vsLimits' -benchmem -cpu 1.
func BenchmarkMT940vsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		data, tx := mt940Bench()
		benchParse(b, data, tx)
	})
	b.Run("bytes-count", func(b *testing.B) {
		data, tx := mt940Bench()
		statementtest.Measure(b, data, tx, func() error {
			if n := statementtest.Lines(data); n < tx {
				return fmt.Errorf("%d lines for %d transactions", n, tx)
			}
			return nil
		})
	})
}

// BenchmarkParseCorpus parses about 20 MB of the corpus's real statements concatenated (see
// benchInput), for the mix of banks and :86: structures a generator does not have. It reports
// MB/s, tx/s and cpu-MB/s like BenchmarkMT940vsLimits/parse.
func BenchmarkParseCorpus(b *testing.B) {
	data := benchInput(b, 20<<20)
	st, err := Parse(data, statement.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, data, len(st.Transactions))
}

// benchParse measures Parse over data, which holds tx transactions.
func benchParse(b *testing.B, data []byte, tx int) {
	statementtest.Measure(b, data, tx, func() error {
		st, err := Parse(data, statement.Options{})
		if err == nil && len(st.Transactions) != tx {
			err = fmt.Errorf("%d transactions, want %d", len(st.Transactions), tx)
		}
		return err
	})
}
