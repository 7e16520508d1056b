package camt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// parseSafely parses and checks the outcome is either a consistent statement or a typed error.
func parseSafely(t testing.TB, data []byte, opts statement.Options) (*statement.Statement, error) {
	t.Helper()
	st, err := Parse(data, opts)
	if err != nil {
		require.Nil(t, st)
		var se *statement.Error
		require.True(t, errors.As(err, &se), "the error is a *statement.Error: %v", err)
		return nil, err
	}
	statement.Finish(st)
	checkConsistent(t, st)
	return st, nil
}

func TestEveryPrefixOfACorpusFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "genkgo__camt__camt054.v4.xml"))
	require.NoError(t, err)
	end := bytes.LastIndex(data, []byte("</Document>")) + len("</Document>")
	for n := range end {
		st, err := parseSafely(t, data[:n], statement.Options{})
		// A prefix ends before </Document>, so it is never a whole statement.
		require.Nil(t, st, "prefix of %d bytes", n)
		require.Error(t, err)
	}
}

func TestHostileInput(t *testing.T) {
	t.Parallel()
	laughs := `<?xml version="1.0"?>
<!DOCTYPE Document [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Ntry><AddtlNtryInf>&lol3;</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>`
	external := `<?xml version="1.0"?><!DOCTYPE Document SYSTEM "file:///etc/passwd"><Document/>`
	deep := doc(ns053v2, strings.Repeat("<Ntry>", 100_000))
	manyLines := doc(ns053v2, ntry("1", "CRDT", "<NtryDtls><TxDtls><RmtInf><Ustrd>"+strings.Repeat("line of remittance text\n", 10_000)+"</Ustrd></RmtInf></TxDtls></NtryDtls>"))
	manyDetails := doc(ns053v2, ntry("1", "CRDT", "<NtryDtls>"+strings.Repeat("<TxDtls><Refs><EndToEndId>SAME</EndToEndId></Refs><RmtInf><Ustrd>x</Ustrd></RmtInf></TxDtls>", 20_000)+"</NtryDtls>"))
	tests := []struct {
		name  string
		data  string
		kind  error // nil: parses
		check func(t *testing.T, st *statement.Statement)
	}{
		{"billion laughs", laughs, statement.ErrCorrupt, nil},
		{"an external entity", external, statement.ErrCorrupt, nil},
		{"100,000 nested elements", deep, statement.ErrResourceLimit, nil},
		{"binary garbage", "\x00\x01\x02\xff\xfe garbage", statement.ErrNotAStatement, nil},
		{"an XML declaration only", `<?xml version="1.0"?>`, statement.ErrNotAStatement, nil},
		{"two roots", doc(ns053v2, ntry("1", "CRDT", "")) + "<Document/>", nil, nil},
		{"a huge number", doc(ns053v2, ntry(strings.Repeat("9", 100_000), "CRDT", "")+ntry("1", "CRDT", "")), nil,
			func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Contains(t, st.Problems[0].Message, "Ntry/Amt \"999")
				require.Less(t, len(st.Problems[0].Message), 200, "the message quotes a clipped value")
			}},
		{"a huge declared count", doc(ns053v2, `<TxsSummry><TtlNtries><NbOfNtries>99999999999999999999999</NbOfNtries></TtlNtries></TxsSummry>`+ntry("1", "CRDT", "")), nil,
			func(t *testing.T, st *statement.Statement) {
				require.Equal(t, statement.ReviewControlTotalMismatch, st.Problems[0].Code)
			}},
		{"a 10,000-line remittance text", manyLines, nil,
			func(t *testing.T, st *statement.Statement) {
				require.LessOrEqual(t, len(st.Transactions[0].Description), maxDescription)
				require.True(t, strings.HasSuffix(st.Transactions[0].Description, "…"))
			}},
		{"an entry with 20,000 details", manyDetails, nil,
			func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "SAME", st.Transactions[0].Reference)
				require.Equal(t, "x", st.Transactions[0].Description)
			}},
		{"an entry with 20,000 distinct references", doc(ns053v2, ntry("1", "CRDT", "<NtryDtls>"+func() string {
			var b strings.Builder
			for i := range 20_000 {
				fmt.Fprintf(&b, "<TxDtls><Refs><EndToEndId>E%d</EndToEndId></Refs><RmtInf><Ustrd>line %d</Ustrd></RmtInf></TxDtls>", i, i)
			}
			return b.String()
		}()+"</NtryDtls>")), nil,
			func(t *testing.T, st *statement.Statement) {
				require.True(t, strings.HasSuffix(st.Transactions[0].Reference, "; (and 19990 more)"))
				require.True(t, strings.HasSuffix(st.Transactions[0].Description, "line 49 (and 19950 more)"), st.Transactions[0].Description)
			}},
		{"a 1 MB attribute", doc(ns053v2, `<Ntry><Amt Ccy="`+strings.Repeat("E", 1<<20)+`">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry>`), nil, nil},
		{"a 5 MB element name", "<Document><" + strings.Repeat("a", 5<<20) + "/></Document>", statement.ErrNotAStatement, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			st, err := parseSafely(t, []byte(tc.data), statement.Options{})
			// Catches a runaway (exponential expansion, a loop), not slowness: race-enabled
			// builds on a loaded machine are many times slower.
			require.Less(t, time.Since(start), time.Minute)
			if tc.kind != nil {
				require.ErrorIs(t, err, tc.kind)
				return
			}
			require.NoError(t, err)
			if tc.check != nil {
				tc.check(t, st)
			}
		})
	}
}

// FuzzCamt feeds arbitrary bytes, seeded with the corpus, to Parse: it must not panic, and a
// statement it returns must be consistent.
func FuzzCamt(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.xml"))
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(doc(ns053v2, bal("OPBD", "1", "CRDT")+ntry("1.5", "DBIT", `<RvslInd>true</RvslInd><NtryDtls><TxDtls><Refs><EndToEndId>E</EndToEndId></Refs></TxDtls></NtryDtls>`)+
		`<TxsSummry><TtlNtries><NbOfNtries>1</NbOfNtries><Sum>1.5</Sum></TtlNtries></TxsSummry>`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Stream, which the parse jobs use, must read every document as Parse does.
		statementtest.ParsedAndStreamed(t, bytes.Clone(data), statement.Options{MaxDepth: 32, MaxRows: 1000}, Parse, Stream)
		st, err := Parse(bytes.Clone(data), statement.Options{MaxDepth: 32, MaxRows: 1000})
		if err != nil {
			var se *statement.Error
			if !errors.As(err, &se) || st != nil {
				t.Fatalf("want a *statement.Error and no statement, got %v and %v", err, st)
			}
			return
		}
		statement.Finish(st)
		next := 0
		for _, s := range st.Sections {
			if s.First != next || s.Count < 0 || s.First+s.Count > len(st.Transactions) {
				t.Fatalf("section %+v does not follow at %d in %d transactions", s, next, len(st.Transactions))
			}
			next += s.Count
		}
		if next != len(st.Transactions) {
			t.Fatalf("sections cover %d of %d transactions", next, len(st.Transactions))
		}
	})
}
