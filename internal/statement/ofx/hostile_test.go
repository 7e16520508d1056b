package ofx

import (
	"fmt"
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

// requireSane asserts what any successful parse must hold, and for OFX also that every
// transaction's Raw is its STMTTRN element and that something was read or reported: a
// transaction, a problem, or a balance (a statement of a period without activity).
func requireSane(t testing.TB, st *statement.Statement) {
	t.Helper()
	for _, x := range st.Transactions {
		require.True(t, strings.HasPrefix(x.Raw, "<") && strings.HasSuffix(x.Raw, ">"), x.Raw)
	}
	balance := false
	for _, s := range st.Sections {
		balance = balance || s.OpeningBalance != nil || s.ClosingBalance != nil
	}
	require.True(t, len(st.Transactions) > 0 || len(st.Problems) > 0 || balance, "nothing read, nothing reported")
	statementtest.RequireSane(t, st)
}

func TestEveryPrefixOfAFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"jseutter__ofxparse__bank_medium.ofx", "asgrim__ofxparser__ofxdata-banking-xml200.ofx",
		"jseutter__ofxparse__ofx-v102-empty-tags.ofx", "asgrim__ofxparser__ofxdata-credit-card.ofx"} {
		data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
		require.NoError(t, err)
		for n := 0; n <= len(data); n++ {
			// Stream, which the parse jobs use, must read every prefix as Parse does.
			statementtest.ParsedAndStreamed(t, data[:n], statement.Options{}, Parse, Stream)
			st, err := Parse(data[:n], statement.Options{})
			if err == nil {
				requireSane(t, st)
			} else {
				var se *statement.Error
				require.ErrorAs(t, err, &se, "prefix %d of %s", n, name)
			}
		}
	}
}

func TestGarbage(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("<>/!?-[]&;#OFXSTMTRN \n\t\x00\xff\xc3")
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.IntN(300))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		for _, prefix := range []string{"", "OFXHEADER:100\n", "<OFX>"} {
			st, err := Parse(append([]byte(prefix), b...), statement.Options{})
			if err == nil {
				requireSane(t, st)
			}
		}
	}
}

func TestHostileInputsEndQuickly(t *testing.T) {
	t.Parallel()
	big := func(s string, n int) []byte { return []byte("<OFX>" + strings.Repeat(s, n)) }
	var distinct strings.Builder
	distinct.WriteString("<OFX>")
	for i := 0; i < 20_000; i++ {
		distinct.WriteString("<T" + strings.Repeat("X", i%7) + string(rune('A'+i%26)) + string(rune('A'+i/26%26)) + string(rune('A'+i/676%26)) + ">v")
	}
	var kids strings.Builder
	kids.WriteString("<OFX>")
	for rep := 0; rep < 40; rep++ {
		for i := 0; i < 5000; i++ {
			fmt.Fprintf(&kids, "<N%d><A>1</A></N%d>", i, i)
		}
	}
	laughs := `<?xml version="1.0"?><?OFX OFXHEADER="200"?><!DOCTYPE OFX [<!ENTITY l0 "ha">` +
		`<!ENTITY l1 "&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;"><!ENTITY l2 "&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;">` +
		`<!ENTITY l3 "&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;&l2;"><!ENTITY l9 "&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;&l3;">]>` +
		`<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST><STMTTRN><DTPOSTED>20200101</DTPOSTED><TRNAMT>1</TRNAMT><MEMO>&l9;&l9;</MEMO></STMTTRN>` +
		`</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`
	tests := []struct {
		name string
		data []byte
		kind error // nil: must parse
	}{
		{"a million unclosed start tags", big("<A>", 1_000_000), statement.ErrNoTransactions},
		{"a million stray end tags", big("</A>", 1_000_000), statement.ErrNoTransactions},
		{"half a million tags then their ends in the wrong order", append(big("<A><B>", 250_000), strings.Repeat("</A></B>", 250_000)...), statement.ErrResourceLimit},
		{"deep nesting", big("<A><B>", 100_000), statement.ErrNoTransactions},
		{"deep nesting that closes", append(big("<A>", 100_000), strings.Repeat("</A>", 100_000)...), statement.ErrResourceLimit},
		{"too many distinct tag names", []byte(distinct.String()), statement.ErrResourceLimit},
		{"an entity bomb", []byte(laughs), nil},
		{"a parent with thousands of differently named aggregates", []byte(kids.String()), statement.ErrNoTransactions},
		{"a record of 10,000 lines", []byte(sgml(stmttrn("<DTPOSTED>20200101<TRNAMT>1" + strings.Repeat("\n<MEMO>x", 10_000)))), nil},
		{"an endless comment", []byte("<OFX><!--" + strings.Repeat("-", 1_000_000)), statement.ErrNoTransactions},
		{"an endless tag", []byte("<OFX><STMTTRN" + strings.Repeat("x", 1_000_000)), statement.ErrNoTransactions},
		{"a million records in a file that allows ten", []byte(sgml(strings.Repeat(stmttrn("<TRNAMT>1"), 1_000_000))), statement.ErrTooManyRows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			st, err := Parse(tc.data, statement.Options{MaxRows: 10})
			if tc.kind == nil {
				require.NoError(t, err)
				requireSane(t, st)
			} else {
				require.ErrorIs(t, err, tc.kind)
			}
			require.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func FuzzOFX(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.ofx"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(sgml(stmttrn("<DTPOSTED>20200105<TRNAMT>1,5<NAME>A&amp;B<PAYEE><NAME>P</PAYEE><BANKACCTTO><ACCTID>X</BANKACCTTO>"))))
	f.Add([]byte(`<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="211"?><OFX><CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS>` +
		`<BANKTRANLIST><STMTTRN><TRNAMT>-1</TRNAMT><MEMO><![CDATA[x]]></MEMO></STMTTRN></BANKTRANLIST></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		statementtest.ParsedAndStreamed(t, data, statement.Options{MaxRows: 1000}, Parse, Stream)
		st, err := Parse(data, statement.Options{MaxRows: 1000})
		if err != nil {
			var se *statement.Error
			require.ErrorAs(t, err, &se)
			return
		}
		requireSane(t, st)
	})
}
