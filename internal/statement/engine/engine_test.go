package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// emptyByDesign are corpus files that hold no transactions and no balances at all.
var emptyByDesign = map[string]bool{
	"cantino__reckon__bom_utf8_file.csv": true, // a PayPal export: the header row and nothing else
}

// TestParseCorpus parses every file of the shared corpus whose format has a parser, through the
// engine: each must give a finished statement with transactions or balances, consistent section
// ranges and a Type on every transaction. The parsers' own golden tests check the contents.
func TestParseCorpus(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir(sharedCorpus)
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("the shared corpus is not beside this checkout")
	}
	require.NoError(t, err)
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(sharedCorpus, dir.Name()))
		require.NoError(t, err)
		for _, f := range files {
			path := filepath.Join(sharedCorpus, dir.Name(), f.Name())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			format, err := Detect(data)
			require.NoError(t, err)
			if _, ok := parsers[format]; !ok {
				continue
			}
			t.Run(f.Name(), func(t *testing.T) {
				t.Parallel()
				// Stream, which the parse jobs use, must read every file as Parse does.
				st, err := statementtest.ParsedAndStreamed(t, data, statement.Options{}, Parse, Stream)
				if emptyByDesign[f.Name()] {
					require.ErrorIs(t, err, statement.ErrNoTransactions, "an export without rows is a clear failure, not an empty success")
					return
				}
				require.NoError(t, err)
				require.True(t, len(st.Transactions) > 0 || st.ClosingBalance != nil || st.OpeningBalance != nil)
				for _, s := range st.Sections {
					require.LessOrEqual(t, s.First+s.Count, len(st.Transactions))
				}
				for _, tx := range st.Transactions {
					require.NotEmpty(t, tx.Type)
				}
			})
		}
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("%PDF-1.4 not really"), statement.Options{})
	if _, ok := parsers[statement.FormatPDF]; !ok {
		require.ErrorIs(t, err, statement.ErrNotAStatement)
		require.Contains(t, err.Error(), "not read by this version yet")
	}
	_, err = Parse([]byte{0x00, 0x01, 0x02, 0x00, 0x00, 0x00}, statement.Options{})
	require.ErrorIs(t, err, statement.ErrNotAStatement)
}

func TestParseContainsPanics(t *testing.T) {
	saved, savedStream := parsers[statement.FormatQIF], streamers[statement.FormatQIF]
	parsers[statement.FormatQIF] = func([]byte, statement.Options) (*statement.Statement, error) { panic("index out of range") }
	streamers[statement.FormatQIF] = func([]byte, statement.Options) (*statement.Stream, error) { panic("index out of range") }
	defer func() {
		parsers[statement.FormatQIF], streamers[statement.FormatQIF] = saved, savedStream
	}()
	_, err := Parse([]byte("!Type:Bank\nD01/02/2026\nT1\n^\n"), statement.Options{})
	require.ErrorIs(t, err, statement.ErrInternal)
	var se *statement.Error
	require.ErrorAs(t, err, &se)
	require.NotContains(t, se.Error(), "index out of range", "the client-facing error hides the panic")
	require.Contains(t, err.Error(), "index out of range", "the log-facing text keeps it")
	_, err = Stream([]byte("!Type:Bank\nD01/02/2026\nT1\n^\n"), statement.Options{})
	require.ErrorIs(t, err, statement.ErrInternal, "Stream contains a parser's panic too")
}

// TestBalancesWithoutActivityComplete parses, through the engine, files that state balances and
// list no transaction: each is a statement of its sections with zero transactions (PRODUCT.md
// section 6), whether the file holds one account or several, whose top-level balances Finish
// leaves empty.
func TestBalancesWithoutActivityComplete(t *testing.T) {
	t.Parallel()
	const ofxHdr = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n"
	ofxBank := func(acct, bal string) string {
		return "<STMTTRNRS><TRNUID>1<STMTRS><CURDEF>BRL<BANKACCTFROM><BANKID>1<ACCTID>" + acct +
			"<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>20170220<DTEND>20170220</BANKTRANLIST>" +
			"<LEDGERBAL><BALAMT>" + bal + "<DTASOF>20170220</LEDGERBAL></STMTRS></STMTTRNRS>"
	}
	camtBal := func(code, amount string) string {
		return `<Bal><Tp><CdOrPrtry><Cd>` + code + `</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">` + amount +
			`</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-03-31</Dt></Dt></Bal>`
	}
	tests := []struct {
		name     string
		data     string
		format   statement.Format
		sections int
		closing  []string
	}{
		{
			name: "a BAI2 file of two accounts with balances and no 16 records",
			data: "01,S,R,260301,0800,1,,,2/\n02,R,O,1,260228,,USD,2/\n03,111,,010,500,,,015,500,,,/\n49,1000,2/\n" +
				"03,222,,010,700,,,015,700,,,/\n49,1400,2/\n98,2400,2,6/\n99,2400,1,8/\n",
			format: statement.FormatBAI2, sections: 2, closing: []string{"5.00", "7.00"},
		},
		{
			name:   "an OFX file of two STMTRS with balances and no STMTTRN",
			data:   ofxHdr + "<OFX><BANKMSGSRSV1>" + ofxBank("455000-5", "0.00") + ofxBank("655000-2", "4555.28") + "</BANKMSGSRSV1></OFX>",
			format: statement.FormatOFX, sections: 2, closing: []string{"0.00", "4555.28"},
		},
		{
			name:   "an MT940 statement with balances and no :61:",
			data:   ":20:X\n:25:NL91ABNA0417164300\n:28C:1/1\n:60F:C200101EUR1,00\n:62F:C200131EUR1,00\n-",
			format: statement.FormatMT940, sections: 1, closing: []string{"1.00"},
		},
		{
			name: "a CAMT.053 statement with balances and no Ntry",
			data: `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>` +
				`<GrpHdr><MsgId>M1</MsgId><CreDtTm>2024-03-31T18:00:00</CreDtTm></GrpHdr><Stmt><Id>S1</Id>` +
				`<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>` + camtBal("OPBD", "10.00") + camtBal("CLBD", "10.00") +
				`</Stmt></BkToCstmrStmt></Document>`,
			format: statement.FormatCAMT053, sections: 1, closing: []string{"10.00"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse([]byte(tc.data), statement.Options{})
			require.NoError(t, err)
			require.Equal(t, tc.format, st.Format)
			require.Empty(t, st.Transactions)
			require.Len(t, st.Sections, tc.sections)
			var closing []string
			for _, s := range st.Sections {
				require.Zero(t, s.Count)
				require.NotNil(t, s.ClosingBalance)
				closing = append(closing, s.ClosingBalance.StringFixed(2))
			}
			require.Equal(t, tc.closing, closing)
			require.Empty(t, st.Review, "balances that agree need no review")
		})
	}
}

func TestStatementsWithoutBalancesOrActivityFail(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("01,S,R,260301,0800,1,,,2/\n02,R,O,1,260228,,USD,2/\n03,1,,,,,/\n49,0,2/\n98,0,1,4/\n99,0,1,6/\n"), statement.Options{})
	require.ErrorIs(t, err, statement.ErrNoTransactions)
}
