package ofx

import (
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

func TestMain(m *testing.M) {
	statementtest.SetDecimalJSON()
	os.Exit(m.Run())
}

// parseFinished parses and finishes as the engine does, and checks that Stream reads the same.
func parseFinished(t testing.TB, data []byte) (*statement.Statement, error) {
	t.Helper()
	return statementtest.ParsedAndStreamed(t, data, statement.Options{}, Parse, Stream)
}

func TestCorpusGolden(t *testing.T) {
	t.Parallel()
	statementtest.RunCorpus(t, statementtest.CorpusDir, func(t *testing.T, path string, data []byte) {
		st, err := parseFinished(t, data)
		require.NoError(t, err)
		checkConsistent(t, st)
		statementtest.Golden(t, statementtest.GoldenPath(path, ".ofx"), st)
	})
}

// checkConsistent asserts what every successful parse must hold: sections delimit the
// transactions in order, and each transaction's Raw is one STMTTRN element.
func checkConsistent(t testing.TB, st *statement.Statement) {
	t.Helper()
	require.NotNil(t, st.Transactions)
	require.Equal(t, statement.FormatOFX, st.Format)
	statementtest.RequireSections(t, st)
	for _, x := range st.Transactions {
		require.True(t, strings.HasPrefix(strings.ToUpper(x.Raw), "<STMTTRN"), x.Raw)
		require.True(t, strings.HasSuffix(strings.ToUpper(x.Raw), "</STMTTRN>"), x.Raw)
	}
}

// sgml wraps a BANKTRANLIST body in an OFX 1.02 file with one bank statement.
func sgml(trns string) string {
	return "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\n" +
		"COMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n" +
		"<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20200131</SONRS></SIGNONMSGSRSV1>\r\n" +
		"<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>EUR\r\n" +
		"<BANKACCTFROM><BANKID>12345<ACCTID>ACC1<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n" +
		"<BANKTRANLIST><DTSTART>20200101<DTEND>20200131\r\n" + trns + "\r\n</BANKTRANLIST>\r\n" +
		"<LEDGERBAL><BALAMT>100.00<DTASOF>20200131</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n"
}

// requireAmount asserts that d equals the decimal want, whatever its stated decimals.
func requireAmount(t *testing.T, want string, d decimal.Decimal) {
	t.Helper()
	require.True(t, decimal.RequireFromString(want).Equal(d), "want %s, got %s", want, d)
}

// stmttrn is one STMTTRN with the given inner text.
func stmttrn(inner string) string { return "<STMTTRN>" + inner + "</STMTTRN>" }

func TestTransactionFields(t *testing.T) {
	t.Parallel()
	d := func(y, m, day int) statement.Date { return statement.MustDate(y, time.Month(m), day) }
	tests := []struct {
		name  string
		inner string
		check func(t *testing.T, x statement.Transaction)
	}{
		{"a decimal comma in TRNAMT is read", "<TRNTYPE>DEBIT<DTPOSTED>20200105<TRNAMT>-12,34<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "-12.34", x.Amount.String()) }},
		{"thousands separators are tolerated", "<DTPOSTED>20200105<TRNAMT>-1.234,56<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "-1234.56", x.Amount.String()) }},
		{"the sign wins over TRNTYPE", "<TRNTYPE>DEBIT<DTPOSTED>20200105<TRNAMT>5.00<FITID>1",
			func(t *testing.T, x statement.Transaction) { requireAmount(t, "5", x.Amount) }},
		{"a zero amount takes its type from TRNTYPE", "<TRNTYPE>DEBIT<DTPOSTED>20200105<TRNAMT>0.00<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, statement.Debit, x.Type) }},
		{"milliseconds after a colon are ignored", "<DTPOSTED>20180804093914:014<TRNAMT>1<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, d(2018, 8, 4), x.Date) }},
		{"a time zone does not shift the date", "<DTPOSTED>20100409230000[-5:EST]<TRNAMT>1<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, d(2010, 4, 9), x.Date) }},
		{"a positive offset does not shift the date", "<DTPOSTED>20100409000000.000[+12:NZST]<TRNAMT>1<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, d(2010, 4, 9), x.Date) }},
		{"an empty DTPOSTED is the zero date", "<DTPOSTED><TRNAMT>1<FITID>1",
			func(t *testing.T, x statement.Transaction) { require.True(t, x.Date.IsZero()) }},
		{"DTAVAIL is the value date before DTUSER", "<DTPOSTED>20200105<DTUSER>20200103<DTAVAIL>20200106<TRNAMT>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, d(2020, 1, 6), x.ValueDate) }},
		{"DTUSER is the value date when alone", "<DTPOSTED>20200105<DTUSER>20200103<TRNAMT>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, d(2020, 1, 3), x.ValueDate) }},
		{"non-standard VALUEDATE is read", "<DTPOSTED>20200105<VALUEDATE>20200107<TRNAMT>1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, d(2020, 1, 7), x.ValueDate) }},
		{"FITID is the reference", "<DTPOSTED>20200105<TRNAMT>1<FITID>F1<REFNUM>R1<CHECKNUM>C1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "F1", x.Reference) }},
		{"REFNUM is the reference without FITID", "<DTPOSTED>20200105<TRNAMT>1<FITID><REFNUM>R1<CHECKNUM>C1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "R1", x.Reference) }},
		{"CHECKNUM is the last resort reference", "<DTPOSTED>20200105<TRNAMT>1<CHECKNUM>C1",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "C1", x.Reference) }},
		{"PAYEE/NAME is the counterparty without NAME", "<DTPOSTED>20200105<TRNAMT>1<PAYEE><NAME>ACME<CITY>X</PAYEE>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "ACME", x.CounterpartyName) }},
		{"BANKACCTTO/ACCTID is the counterparty account",
			"<DTPOSTED>20200105<TRNAMT>1<BANKACCTTO><BANKID>9<ACCTID>DE123<ACCTTYPE>CHECKING</BANKACCTTO>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "DE123", x.CounterpartyAccount) }},
		{"CCACCTTO/ACCTID is the counterparty account", "<DTPOSTED>20200105<TRNAMT>1<CCACCTTO><ACCTID>4111</CCACCTTO>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "4111", x.CounterpartyAccount) }},
		{"CURRENCY/CURSYM overrides CURDEF", "<DTPOSTED>20200105<TRNAMT>1<CURRENCY><CURRATE>1.1<CURSYM>USD</CURRENCY>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "USD", x.Currency) }},
		{"ORIGCURRENCY leaves the amount in CURDEF", "<DTPOSTED>20200105<TRNAMT>1<ORIGCURRENCY><CURRATE>1.1<CURSYM>USD</ORIGCURRENCY>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "EUR", x.Currency) }},
		{"MEMO holding NAME is the description", "<DTPOSTED>20200105<TRNAMT>1<NAME>ACME<MEMO>POS ACME  LONDON",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "POS ACME LONDON", x.Description) }},
		{"NAME and a different MEMO are both described", "<DTPOSTED>20200105<TRNAMT>1<NAME>ACME<MEMO>INVOICE 7",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "ACME / INVOICE 7", x.Description) }},
		{"an unclosed empty leaf does not swallow the next", "<DTPOSTED>20200105<TRNAMT>1<NAME><MEMO>M",
			func(t *testing.T, x statement.Transaction) {
				require.Equal(t, "", x.CounterpartyName)
				require.Equal(t, "M", x.Description)
			}},
		{"closed, unclosed and empty leaves mix", "<DTPOSTED>20200105</DTPOSTED><TRNAMT>2<NAME></NAME><MEMO>M</MEMO>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "2", x.Amount.String()) }},
		{"an end tag on its own line closes the leaf", "<DTPOSTED>20200105\r\n</DTPOSTED>\r\n<TRNAMT>3\r\n</TRNAMT>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "3", x.Amount.String()) }},
		{"entities are decoded", "<DTPOSTED>20200105<TRNAMT>1<NAME>AT&amp;T &#233;&#xE9; &lol;",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "AT&T éé &lol;", x.CounterpartyName) }},
		{"a bare ampersand stays", "<DTPOSTED>20200105<TRNAMT>1<NAME>M&S",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "M&S", x.CounterpartyName) }},
		{"CDATA and comments are text", "<DTPOSTED>20200105<TRNAMT>1<NAME><![CDATA[A<B]]><!-- c --></NAME>",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "A<B", x.CounterpartyName) }},
		{"a '<' that starts no tag is text", "<DTPOSTED>20200105<TRNAMT>1<NAME>I <3 OFX<MEMO>x",
			func(t *testing.T, x statement.Transaction) { require.Equal(t, "I <3 OFX", x.CounterpartyName) }},
		{"lower-case tags are read", "<dtposted>20200105<trnamt>7<name>low",
			func(t *testing.T, x statement.Transaction) {
				require.Equal(t, "7", x.Amount.String())
				require.Equal(t, "low", x.CounterpartyName)
			}},
		{"unknown tags and aggregates are skipped", "<DTPOSTED>20200105<X.FOO>1<X.AGG><NAME>inner</X.AGG><TRNAMT>8<NAME>outer",
			func(t *testing.T, x statement.Transaction) {
				require.Equal(t, "8", x.Amount.String())
				require.Equal(t, "outer", x.CounterpartyName)
			}},
		{"ACCTBAL is a running balance", "<DTPOSTED>20200105<TRNAMT>8<ACCTBAL>108.00",
			func(t *testing.T, x statement.Transaction) { requireAmount(t, "108", *x.Balance) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse([]byte(sgml(stmttrn(tc.inner))), statement.Options{})
			require.NoError(t, err)
			require.Empty(t, st.Problems)
			require.Len(t, st.Transactions, 1)
			checkConsistent(t, st)
			statement.Finish(st)
			tc.check(t, st.Transactions[0])
		})
	}
}

func TestUnreadableRecordsAreProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trns    string
		read    int
		message string
	}{
		{"an amount that is no number", stmttrn("<DTPOSTED>20200105<TRNAMT>12x") + stmttrn("<DTPOSTED>20200105<TRNAMT>1"), 1,
			`TRNAMT "12x" is not a number`},
		{"a missing amount", stmttrn("<DTPOSTED>20200105<NAME>x"), 0, "STMTTRN has no amount (TRNAMT)"},
		{"a date that is no date", stmttrn("<DTPOSTED>2020<TRNAMT>1"), 0, `DTPOSTED "2020" is not a date`},
		{"30 February", stmttrn("<DTPOSTED>20200230<TRNAMT>1"), 0, `DTPOSTED "20200230" is not a date`},
		{"an empty record", stmttrn(""), 0, "STMTTRN holds no fields"},
		{"a record of text", "<STMTTRN>*snipped*</STMTTRN>", 0, `STMTTRN holds no fields (its text is "*snipped*")`},
		{"a huge amount", stmttrn("<DTPOSTED>20200105<TRNAMT>" + strings.Repeat("9", 10000)), 0, "is too long for an amount"},
		{"a record without end tag", "<STMTTRN><DTPOSTED>20200105<TRNAMT>1\r\n" + stmttrn("<DTPOSTED>20200106<TRNAMT>2"), 1,
			"STMTTRN has no end tag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse([]byte(sgml(tc.trns)), statement.Options{})
			require.NoError(t, err)
			checkConsistent(t, st)
			require.Len(t, st.Transactions, tc.read)
			require.Len(t, st.Problems, 1)
			require.Contains(t, st.Problems[0].Message, tc.message)
			require.NotZero(t, st.Problems[0].Pos.Line)
		})
	}
}

func TestStatements(t *testing.T) {
	t.Parallel()
	const hdr = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n"
	bank := func(acct, ccy string, trns string) string {
		return "<STMTTRNRS><TRNUID>1<STMTRS><CURDEF>" + ccy + "<BANKACCTFROM><BANKID>1<ACCTID>" + acct +
			"<ACCTTYPE>SAVINGS</BANKACCTFROM><BANKTRANLIST>" + trns + "</BANKTRANLIST><LEDGERBAL><BALAMT>5<DTASOF>20200101</LEDGERBAL></STMTRS></STMTTRNRS>"
	}
	card := "<CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>1<CCSTMTRS><CURDEF>GBP<CCACCTFROM><ACCTID>4111</CCACCTFROM>" +
		"<BANKTRANLIST>" + stmttrn("<DTPOSTED>20200102<TRNAMT>-3") + "</BANKTRANLIST></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1>"
	t1 := stmttrn("<DTPOSTED>20200101<TRNAMT>1")
	t.Run("several statements become sections", func(t *testing.T) {
		t.Parallel()
		doc := hdr + "<OFX><BANKMSGSRSV1>" + bank("A", "EUR", t1+t1) + bank("B", "USD", t1) + "</BANKMSGSRSV1>" + card + "</OFX>"
		st, err := Parse([]byte(doc), statement.Options{})
		require.NoError(t, err)
		checkConsistent(t, st)
		require.Len(t, st.Sections, 3)
		require.Equal(t, []string{"A", "B", "4111"}, []string{st.Sections[0].Account, st.Sections[1].Account, st.Sections[2].Account})
		require.Equal(t, []int{2, 1, 1}, []int{st.Sections[0].Count, st.Sections[1].Count, st.Sections[2].Count})
		require.Equal(t, "USD", st.Transactions[2].Currency)
		require.Equal(t, "GBP", st.Transactions[3].Currency)
		require.Nil(t, st.Sections[0].OpeningBalance, "OFX states no opening balance")
		require.Equal(t, "5", st.Sections[0].ClosingBalance.String())
		require.Contains(t, st.Dialect, ";kind=bank+creditcard")
		require.Equal(t, "/OFX/BANKMSGSRSV1/STMTTRNRS[2]/STMTRS/BANKTRANLIST/STMTTRN[1]", st.Transactions[2].Pos.Path)
	})
	t.Run("an investment statement is a problem", func(t *testing.T) {
		t.Parallel()
		inv := "<INVSTMTMSGSRSV1><INVSTMTTRNRS><INVSTMTRS><INVTRANLIST><INVBANKTRAN>" + t1 +
			"</INVBANKTRAN></INVTRANLIST></INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1>"
		st, err := Parse([]byte(hdr+"<OFX><BANKMSGSRSV1>"+bank("A", "EUR", t1)+"</BANKMSGSRSV1>"+inv+"</OFX>"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		require.Len(t, st.Problems, 1)
		require.Contains(t, st.Problems[0].Message, "INVSTMTRS")
		_, err = Parse([]byte(hdr+"<OFX>"+inv+"</OFX>"), statement.Options{})
		require.ErrorIs(t, err, statement.ErrNoTransactions)
	})
	t.Run("statements with balances and no transactions are sections without activity", func(t *testing.T) {
		t.Parallel()
		st, err := Parse([]byte(hdr+"<OFX><BANKMSGSRSV1>"+bank("A", "EUR", "")+bank("B", "EUR", t1)+bank("C", "EUR", "")+"</BANKMSGSRSV1></OFX>"), statement.Options{})
		require.NoError(t, err)
		checkConsistent(t, st)
		require.Len(t, st.Sections, 3)
		require.Equal(t, []int{0, 1, 0}, []int{st.Sections[0].Count, st.Sections[1].Count, st.Sections[2].Count})
		st, err = Parse([]byte(hdr+"<OFX><BANKMSGSRSV1>"+bank("A", "EUR", "")+bank("B", "EUR", "")+"</BANKMSGSRSV1></OFX>"), statement.Options{})
		require.NoError(t, err, "two accounts without activity state their balances")
		require.Empty(t, st.Transactions)
		require.Equal(t, []string{"A", "B"}, []string{st.Sections[0].Account, st.Sections[1].Account})
		require.Equal(t, "5", st.Sections[1].ClosingBalance.String())
	})
	t.Run("a statement without transactions or balances is no statement to read", func(t *testing.T) {
		t.Parallel()
		noBal := "<STMTTRNRS><TRNUID>1<STMTRS><CURDEF>EUR<BANKACCTFROM><BANKID>1<ACCTID>A<ACCTTYPE>SAVINGS</BANKACCTFROM>" +
			"<BANKTRANLIST></BANKTRANLIST></STMTRS></STMTTRNRS>"
		_, err := Parse([]byte(hdr+"<OFX><BANKMSGSRSV1>"+noBal+"</BANKMSGSRSV1></OFX>"), statement.Options{})
		require.ErrorIs(t, err, statement.ErrNoTransactions)
		require.Contains(t, err.Error(), "no balance")
		_, err = Parse([]byte(hdr+"<OFX><SIGNONMSGSRSV1><SONRS></SONRS></SIGNONMSGSRSV1></OFX>"), statement.Options{})
		require.ErrorIs(t, err, statement.ErrNoTransactions)
	})
	t.Run("OFX 2 XML with a DOCTYPE, comments and entities", func(t *testing.T) {
		t.Parallel()
		doc := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE"?>` + "\n" +
			`<!DOCTYPE OFX [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` + "\n" +
			"<!-- exported --><OFX><BANKMSGSRSV1>" + bank("A", "EUR", "<STMTTRN><DTPOSTED>20200101</DTPOSTED><TRNAMT>1</TRNAMT><NAME>&b;&amp;</NAME></STMTTRN>") +
			"</BANKMSGSRSV1></OFX>"
		st, err := Parse([]byte(doc), statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "&b;&", st.Transactions[0].CounterpartyName, "declared entities are never expanded")
		require.Equal(t, "ofx;version=211;syntax=xml;charset=utf-8;kind=bank", st.Dialect)
	})
	t.Run("a header on one line, leading blank lines and a byte-order mark", func(t *testing.T) {
		t.Parallel()
		doc := "\xEF\xBB\xBF\n\n  OFXHEADER:100 DATA:OFXSGML VERSION:160 CHARSET:1252 <OFX><BANKMSGSRSV1>" + bank("A", "EUR", t1) + "</BANKMSGSRSV1></OFX>"
		st, err := Parse([]byte(doc), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
		require.Equal(t, 3, st.Transactions[0].Pos.Line)
		require.Contains(t, st.Dialect, "version=160")
	})
	t.Run("a body without header", func(t *testing.T) {
		t.Parallel()
		st, err := Parse([]byte("\n<OFX><BANKMSGSRSV1>"+bank("A", "EUR", t1)+"</BANKMSGSRSV1></OFX>"), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 1)
	})
	t.Run("a BANKID that is a known BIC names the bank", func(t *testing.T) {
		t.Parallel()
		doc := hdr + "<OFX><BANKMSGSRSV1>" + strings.Replace(bank("A", "EUR", t1), "<BANKID>1", "<BANKID>INGBNL2A", 1) + "</BANKMSGSRSV1></OFX>"
		st, err := Parse([]byte(doc), statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "INGBNL2A", st.BankID)
		require.Equal(t, "ING", st.BankName)
	})
	t.Run("FI/ORG names the bank only when it reads as a name", func(t *testing.T) {
		t.Parallel()
		for org, name := range map[string]string{"Banco do Brasil S/A": "Banco do Brasil S/A", "Citigroup": "Citigroup", "B1": "", "FAKE": "", "XXXX": ""} {
			doc := hdr + "<OFX><SIGNONMSGSRSV1><SONRS><FI><ORG>" + org + "<FID>77</FI></SONRS></SIGNONMSGSRSV1><BANKMSGSRSV1>" + bank("A", "EUR", t1) + "</BANKMSGSRSV1></OFX>"
			st, err := Parse([]byte(doc), statement.Options{})
			require.NoError(t, err)
			require.Equal(t, "77", st.BankID)
			require.Equal(t, name, st.BankName, org)
		}
	})
}

func TestCharsets(t *testing.T) {
	t.Parallel()
	body := sgml(stmttrn("<DTPOSTED>20200105<TRNAMT>1<NAME>CAFÉ"))
	t.Run("UTF-8 despite CHARSET:1252", func(t *testing.T) {
		t.Parallel()
		st, err := Parse([]byte(body), statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "CAFÉ", st.Transactions[0].CounterpartyName)
		require.Contains(t, st.Dialect, ";charset=utf-8;declared=windows-1252")
	})
	t.Run("Windows-1252 as declared", func(t *testing.T) {
		t.Parallel()
		st, err := Parse([]byte(strings.Replace(body, "É", "\xC9", 1)), statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "CAFÉ", st.Transactions[0].CounterpartyName)
		require.Contains(t, st.Dialect, ";charset=windows-1252")
	})
	t.Run("UTF-16 with a byte-order mark", func(t *testing.T) {
		t.Parallel()
		u := utf16.Encode([]rune(body))
		b := []byte{0xFF, 0xFE}
		for _, c := range u {
			b = append(b, byte(c), byte(c>>8))
		}
		st, err := Parse(b, statement.Options{})
		require.NoError(t, err)
		require.Equal(t, "CAFÉ", st.Transactions[0].CounterpartyName)
		require.Contains(t, st.Dialect, ";charset=utf-16le")
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	good := sgml(stmttrn("<DTPOSTED>20200105<TRNAMT>1") + stmttrn("<DTPOSTED>20200106<TRNAMT>2"))
	tests := []struct {
		name string
		data string
		opts statement.Options
		kind error
	}{
		{"empty input", "", statement.Options{}, statement.ErrNotAStatement},
		{"a CSV file", "date,amount\n2020-01-01,1.00\n", statement.Options{}, statement.ErrNotAStatement},
		{"a CAMT document", `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"></Document>`,
			statement.Options{}, statement.ErrNotAStatement},
		{"an OFX header without body", "OFXHEADER:100\nDATA:OFXSGML\n", statement.Options{}, statement.ErrCorrupt},
		{"a file cut inside a record", good[:strings.Index(good, "<TRNAMT>2")], statement.Options{}, statement.ErrCorrupt},
		{"a file cut inside the statement", good[:strings.Index(good, "<LEDGERBAL>")], statement.Options{}, statement.ErrCorrupt},
		{"more records than MaxRows", good, statement.Options{MaxRows: 1}, statement.ErrTooManyRows},
		{"nesting deeper than MaxDepth", "<OFX>" + strings.Repeat("<A>", 100) + strings.Repeat("</A>", 100) + "</OFX>",
			statement.Options{}, statement.ErrResourceLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.data), tc.opts)
			require.ErrorIs(t, err, tc.kind)
			var se *statement.Error
			require.ErrorAs(t, err, &se)
			require.Equal(t, statement.FormatOFX, se.Format)
		})
	}
	t.Run("a file that only lacks its final end tags is read", func(t *testing.T) {
		t.Parallel()
		st, err := Parse([]byte(good[:strings.Index(good, "</STMTTRNRS>")]), statement.Options{})
		require.NoError(t, err)
		require.Len(t, st.Transactions, 2)
	})
}

// TestTwoStatementsOfTheCorpus pins the Banco do Brasil file of two STMTRS (asgrim/ofxparser's
// ofxdata-bb-two-stmtrs.ofx): each account is its own section, the first without activity in
// its period (its LEDGERBAL of 0.00 only), the second with its 36 transactions.
func TestTwoStatementsOfTheCorpus(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/corpus/asgrim__ofxparser__ofxdata-bb-two-stmtrs.ofx")
	require.NoError(t, err)
	st, err := parseFinished(t, data)
	require.NoError(t, err)
	checkConsistent(t, st)
	require.Len(t, st.Sections, 2)
	first, second := st.Sections[0], st.Sections[1]
	require.Equal(t, []string{"455000-5", "655000-2"}, []string{first.Account, second.Account})
	require.Equal(t, []int{0, 36}, []int{first.Count, second.Count})
	require.Equal(t, "0.00", first.ClosingBalance.StringFixed(2))
	require.Equal(t, "4555.28", second.ClosingBalance.StringFixed(2))
	require.Len(t, st.Transactions, 36)
	require.Empty(t, st.Account, "the statement's account is its sections' when they agree")
}
