package mt940

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// parseText parses and finishes a statement given as text.
func parseText(t *testing.T, in string) *statement.Statement {
	t.Helper()
	return parseFinished(t, []byte(in))
}

func amountOf(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	return decimal.RequireFromString(s)
}

func requireAmount(t *testing.T, want string, got decimal.Decimal) {
	t.Helper()
	require.True(t, amountOf(t, want).Equal(got), "want %s, got %s", want, got)
}

func day(y int, m time.Month, d int) statement.Date { return statement.MustDate(y, m, d) }

// stmt wraps statement lines in a minimal MT940 around them.
func stmt(lines ...string) string {
	return ":20:REF\n:25:NL91ABNA0417164300\n:28C:1/1\n:60F:C200101EUR100,00\n" +
		strings.Join(lines, "\n") + "\n:62F:C200101EUR100,00\n-\n"
}

func TestStatementLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, st *statement.Statement)
	}{
		{
			name: "a reversal of a credit (RC) takes money out and a reversal of a debit (RD) puts it back",
			in:   stmt(":61:2001010101RC10,00NTRFNONREF", ":61:2001010101RD10,00NTRFNONREF", ":61:2001010101RCR5,NTRFNONREF", ":61:2001010101RDR5,NTRFNONREF"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 4)
				requireAmount(t, "-10.00", st.Transactions[0].Amount)
				require.Equal(t, statement.Debit, st.Transactions[0].Type)
				requireAmount(t, "10.00", st.Transactions[1].Amount)
				require.Equal(t, statement.Credit, st.Transactions[1].Type)
				requireAmount(t, "-5", st.Transactions[2].Amount)
				requireAmount(t, "5", st.Transactions[3].Amount)
			},
		},
		{
			name: "DR, CR, DD and CD marks are debits and credits with a funds code",
			in:   stmt(":61:2001010101DR1,NTRFNONREF", ":61:2001010101CR2,NTRFNONREF", ":61:200101    DD3,NMSCNONREF//", ":61:200101CD0,00NDEFNONREF//"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 4)
				requireAmount(t, "-1", st.Transactions[0].Amount)
				requireAmount(t, "2", st.Transactions[1].Amount)
				requireAmount(t, "-3", st.Transactions[2].Amount)
				require.Equal(t, statement.Credit, st.Transactions[3].Type, "a zero amount keeps the mark's type")
			},
		},
		{
			name: "amounts are read exactly as written: no decimals, one decimal, zero-padded",
			in:   stmt(":61:200101D203,N426NONREF", ":61:200101D11,8N426NONREF", ":61:200101C500NTRFNONREF//B4", ":61:200101D000000000025,00N102EREF"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 4)
				require.Equal(t, "-203", st.Transactions[0].Amount.String())
				require.Equal(t, "-11.8", st.Transactions[1].Amount.String())
				require.Equal(t, "500", st.Transactions[2].Amount.String())
				require.Equal(t, "-25.00", st.Transactions[3].Amount.String())
			},
		},
		{
			name: "the entry date takes the year that puts it nearest the value date",
			in:   stmt(":61:1912310102D1,00NTRFNONREF", ":61:2001021231D1,00NTRFNONREF", ":61:2002170204C1,00NTRFNONREF"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, day(2020, time.January, 2), st.Transactions[0].Date)
				require.Equal(t, day(2019, time.December, 31), st.Transactions[0].ValueDate)
				require.Equal(t, day(2019, time.December, 31), st.Transactions[1].Date)
				require.Equal(t, day(2020, time.January, 2), st.Transactions[1].ValueDate)
				require.Equal(t, day(2020, time.February, 4), st.Transactions[2].Date)
			},
		},
		{
			name: "the customer reference runs to // and the bank reference follows; NONREF is no reference",
			in:   stmt(":61:200101C1,NTRFMYREF//BANKREF", ":61:200101C1,NTRFNONREF//BANKREF2", ":61:200101C1, NRTIKREF+//2016021783252833", ":61:200101CN2,00//19239782213"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "MYREF", st.Transactions[0].Reference)
				require.Equal(t, "BANKREF2", st.Transactions[1].Reference)
				require.Equal(t, "2016021783252833", st.Transactions[2].Reference, "KREF+ alone is no reference")
				require.Equal(t, "19239782213", st.Transactions[3].Reference, "no type code before //")
				requireAmount(t, "2", st.Transactions[3].Amount)
			},
		},
		{
			name: "text after a padded 16-character reference is the counterparty (old Rabobank)",
			in:   stmt(":61:110527D000000001213,28N0440121470966      W.P. Jansen                      "),
			check: func(t *testing.T, st *statement.Statement) {
				tx := st.Transactions[0]
				require.Equal(t, "0121470966", tx.Reference)
				require.Equal(t, "W.P. Jansen", tx.CounterpartyName)
			},
		},
		{
			name: "supplementary details on the next line join the description, an IBAN there is the counterparty's account",
			in: stmt(":61:0310201020C20000,00FMSCNONREF//8327000090031789", "Card transaction", ":86:Payment",
				":61:130101D000000000025,00N102EREF            ", "NL70ABNA0987654321", ":86:/EREF/E2E-1/BENM//NAME/CONTRA HOLDER/REMI/Invoice 1/"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "Card transaction Payment", st.Transactions[0].Description)
				tx := st.Transactions[1]
				require.Equal(t, "NL70ABNA0987654321", tx.CounterpartyAccount)
				require.Equal(t, "CONTRA HOLDER", tx.CounterpartyName)
				require.Equal(t, "E2E-1", tx.Reference, "the EREF placeholder in :61: defers to /EREF/")
				require.Equal(t, "Invoice 1", tx.Description)
			},
		},
		{
			name: "a statement line that cannot be read is a problem and the others are kept",
			in:   stmt(":61:200101C1,00NTRFNONREF", ":86:good", ":61:20AB01C1,00NTRFNONREF", ":86:lost", ":61:200101X1,00NTRF", ":61:200101C12x4NTRF", ":61:200101C2,00NTRFNONREF"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 2)
				require.Len(t, st.Problems, 3)
				require.Contains(t, st.Problems[0].Message, "value date")
				require.Equal(t, 7, st.Problems[0].Pos.Line)
				require.Contains(t, st.Problems[1].Message, "debit/credit mark")
				require.Contains(t, st.Problems[2].Message, "amount")
			},
		},
		{
			name: "an invalid entry date keeps the line with its value date",
			in:   stmt(":61:2001011340C1,00NTRFNONREF"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Equal(t, day(2020, time.January, 1), st.Transactions[0].Date)
				require.Len(t, st.Problems, 1)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.check(t, parseText(t, tc.in))
		})
	}
}

func TestInformationToAccountOwner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		info  string // the :86: field, lines separated by \n
		supp  string // :61: supplementary details
		own   string // :25:, when the case needs its own
		desc  string
		ref   string
		name_ string
		acct  string
	}{
		{
			name: "German GVC subfields with SEPA keywords, wrapped mid-word and mid-marker",
			info: "166?00GUTSCHRIFT?100004772?20EREF+SCP 100 / 0082002528?21SVWZ+D 8\n" +
				"03020001000145464 +?221000145463 XXXXXXX,XXXXXX?30OLBODEH2XXX?31D\n" +
				"E59280200501000000000?32EWE VERTRIEB GmbH",
			desc: "GUTSCHRIFT D 803020001000145464 +1000145463 XXXXXXX,XXXXXX", ref: "SCP 100 / 0082002528",
			name_: "EWE VERTRIEB GmbH", acct: "DE59280200501000000000",
		},
		{
			name:  "a subfield marker broken across lines (?2 / 2...) still splits",
			info:  "191?00SEPA-UEBERW?100399?20KREF+TFNr 01005 PayId CTSc-?2101 EBB?2\n2MTLG:SEPA-Ueberweisungsauft?23rag Datei",
			desc:  "SEPA-UEBERW MTLG:SEPA-Ueberweisungsauftrag Datei",
			ref:   "TFNr 01005 PayId CTSc-01 EBB",
			name_: "",
		},
		{
			name:  "an identifier ends with the subfield that stops short; text after it is description",
			info:  "159?00RETOURE?100399?20EREF+TFNR 40005 00005?21MTLG:Grund nicht s\npezifizie?22rt",
			desc:  "RETOURE MTLG:Grund nicht spezifiziert",
			ref:   "TFNR 40005 00005",
			name_: "",
		},
		{
			name:  "an identifier runs on through full 27-character subfields",
			info:  "109?00SEPA-LASTSCHR.?20EREF+A1.200080779.400143254?21.4961336 KREF+SEPA-DA202006?2201221740 SVWZ+RECHNUNG",
			desc:  "SEPA-LASTSCHR. RECHNUNG",
			ref:   "A1.200080779.400143254.4961336",
			name_: "",
		},
		{
			name:  "NOTPROVIDED is no end-to-end reference",
			info:  "166?00GUTSCHRIFT?20EREF+NOTPROVIDED?21SVWZ+Rechnung 12?32Max Muster",
			supp:  "",
			desc:  "GUTSCHRIFT Rechnung 12",
			name_: "Max Muster",
		},
		{
			name: "pre-SEPA purpose lines are joined with spaces, full ones without",
			info: "051?00UEBERWEISUNG?20Miete November?21Wohnung 3?32MUELLER?31234567",
			desc: "UEBERWEISUNG Miete November Wohnung 3", name_: "MUELLER", acct: "234567",
		},
		{
			name:  "a name in ?32 that fills 27 characters runs on into ?33",
			info:  "899?00STORNO?32GEBÜHREN MANUELL GG UST-FRE?33I",
			desc:  "STORNO",
			name_: "GEBÜHREN MANUELL GG UST-FREI",
		},
		{
			name:  "a leading space before the GVC and the IBAN in ?38 (Polish BPH)",
			info:  " 020?00Wyplata?20FAKTURA 1?310000777777777777?32HUTA?38PL08106000760000777777777777",
			desc:  "Wyplata FAKTURA 1",
			name_: "HUTA", acct: "PL08106000760000777777777777",
		},
		{
			name: "Triodos '>' subfields: >10 is the counterparty's account, >31 the statement's own",
			info: "000>100987654321\n>20ALGEMENE TUSSENREKENING KOS>21TEN VAN 01-10-2010 TOT EN M\n>22ET 31-12-2010>310390123456",
			own:  "TRIODOSBANK/0390123456",
			desc: "ALGEMENE TUSSENREKENING KOSTEN VAN 01-10-2010 TOT EN MET 31-12-2010", acct: "0987654321",
		},
		{
			name:  "slash codes: /EREF/, /NAME/, /REMI/, /IBAN/",
			info:  "/TRTP/SEPA OVERBOEKING/IBAN/NL86INGB0002445588/BIC/INGBNL2A/NAME/J. DOE/REMI/USTD//Factuur 7/EREF/E2E-99",
			desc:  "SEPA OVERBOEKING Factuur 7",
			ref:   "E2E-99",
			name_: "J. DOE", acct: "NL86INGB0002445588",
		},
		{
			name:  "slash codes wrapped mid-word at 64 characters (Rabobank)",
			info:  "/EREF/01-01-2013 12:00 0030000987654321/BENM//NAME/CONTRA ACCOUN\nT HOLDER/REMI/Ref 1/ISDT/2013-07-11",
			desc:  "Ref 1",
			ref:   "01-01-2013 12:00 0030000987654321",
			name_: "CONTRA ACCOUNT HOLDER",
		},
		{
			name: "/OCMT/ and /CHGS/ end with their own slash; the rest is text",
			info: "/OCMT/USD2853,12/\nPAYMENT OF INVOICES 204011665",
			desc: "PAYMENT OF INVOICES 204011665",
		},
		{
			name:  "Komercijalna Banka's positional slash lines",
			info:  "/ORDP/300000000460495\n/IVOTEHNA DOOEL SKOPJE\n/747//747\n/EMPTY/\n/Uplata po faktura 747",
			desc:  "747//747 Uplata po faktura 747",
			name_: "IVOTEHNA DOOEL SKOPJE", acct: "300000000460495",
		},
		{
			name:  "Knab's REK: and NAAM:",
			info:  "FACTUUR 201403110, 201403113\nREK: NL65INGB0123456789/NAAM: PICQER",
			desc:  "FACTUUR 201403110, 201403113",
			name_: "PICQER", acct: "NL65INGB0123456789",
		},
		{
			name: "mBank's ';'-separated fields",
			info: "911 TRANSAKCJA COLLECT; ID IPH: XX000000000001; Z RACH.: \n56114010810000267002001001; OD: JAN NOWAK  \n" +
				"UL. NIJAKA 1 M 2 31-234 KRAKOW; TYT.: PRZELEW SRODKOW   ; \nTNR: 179171073864111.010001",
			desc:  "TRANSAKCJA COLLECT PRZELEW SRODKOW",
			name_: "JAN NOWAK", acct: "56114010810000267002001001",
		},
		{
			name:  "SNS: the supplementary details name the counterparty after its account in :86:",
			info:  "0987654321 marechal s\n" + strings.Repeat(" ", 65) + "\ndit is een test",
			supp:  "marechal s",
			desc:  "dit is een test",
			name_: "marechal s", acct: "0987654321",
		},
		{
			name: "free text: full lines join without a space, short ones with one; soft hyphens and tabs go",
			info: "GIRO AUS ONLINE-SIC 80701 AUFTRAGGEBER: XXXXXXXXX XXX XXXXXXXXSTR\nASSE 111\nKN: 10\u00ad06\u00ad2010\tOK",
			desc: "GIRO AUS ONLINE-SIC 80701 AUFTRAGGEBER: XXXXXXXXX XXX XXXXXXXXSTRASSE 111 KN: 10062010 OK",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			line := ":61:200101C1,00NTRFNONREF"
			if tc.supp != "" {
				line += "\n" + tc.supp
			}
			in := stmt(line, ":86:"+tc.info)
			if tc.own != "" {
				in = strings.Replace(in, "NL91ABNA0417164300", tc.own, 1)
			}
			st := parseText(t, in)
			require.Len(t, st.Transactions, 1)
			tx := st.Transactions[0]
			require.Equal(t, tc.desc, tx.Description)
			require.Equal(t, tc.ref, tx.Reference)
			require.Equal(t, tc.name_, tx.CounterpartyName)
			require.Equal(t, tc.acct, tx.CounterpartyAccount)
		})
	}
}

func TestEnvelopesAndHeaders(t *testing.T) {
	t.Parallel()
	body := ":20:REF\r\n:25:123456789\r\n:28C:1/1\r\n:60F:C200101EUR10,00\r\n:61:200101C1,00NTRFNONREF\r\n:86:X\r\n:62F:C200101EUR11,00\r\n"
	body2 := strings.NewReplacer("EUR10,00", "EUR11,00", "EUR11,00", "EUR12,00").Replace(body)
	tests := []struct {
		name    string
		in      string
		dialect string
		bankID  string
		bank    string
		count   int
	}{
		{"no envelope", body, "mt940;envelope=none;charset=ascii;eol=crlf;info86=free", "", "", 1},
		{"SWIFT blocks on one line and the -} trailer",
			"{1:F01KNABNL2HAXXX0000000000}{2:I940KNABNL2HXXXXN3020}{4:\r\n" + body + "-}\r\n",
			"mt940;envelope=swift;charset=ascii;eol=crlf;info86=free", "KNABNL2H", "Knab", 1},
		{"SWIFT blocks on separate lines",
			"{1:F01INGBNL2AXXXX00001}\r\n{2:I940INGBNL2AXXXN}\r\n{4:\r\n" + body + "-}\r\n",
			"mt940;envelope=swift;charset=ascii;eol=crlf;info86=free", "INGBNL2A", "ING", 1},
		{"the sender in an output message's application header outranks block 1",
			"{1:F01BANKDEFFAXXX0000000000}{2:O9401200200101DEUTDEFFAXXX00000000002001011200N}{4:\r\n" + body + "-}",
			"mt940;envelope=swift;charset=ascii;eol=crlf;info86=free", "DEUTDEFF", "Deutsche Bank", 1},
		{"SOH/ETX wrappers, a user header block and two messages on touching lines",
			"\x01{1:F01POFICHBEAXXX0000000000}{2:I940XXXXXXXXXXXXN}{3:{108:140407CH00000000}}{4:\r\n" + body +
				"-}\x03\x01{1:F01POFICHBEAXXX0000000000}{2:I940XXXXXXXXXXXXN}{4:\r\n" + body2 + "-}{5:{MAC:00000000}{CHK:000000000000}}\x03\r\n",
			"mt940;envelope=swift;soh-etx;charset=ascii;eol=crlf;info86=free", "POFICHBE", "PostFinance", 2},
		{"ING's ASCII header lines", "0000 01INGBNL2AXXXX00001\r\n0000 01INGBNL2AXXXX00001\r\n940 00\r\n" + body,
			"mt940;envelope=header;charset=ascii;eol=crlf;info86=free", "INGBNL2A", "ING", 1},
		{"ABN AMRO's ASCII header lines", "ABNANL2A\r\n940\r\nABNANL2A\r\n" + body + "-\r\nABNANL2A\r\n940\r\nABNANL2A\r\n" + body2 + "-\r\n",
			"mt940;envelope=header;charset=ascii;eol=crlf;info86=free", "ABNANL2A", "ABN AMRO", 2},
		{"Rabobank's :940: line and a DOS end-of-file byte", ":940:\r\n" + body + "\x1a",
			"mt940;envelope=header;dos-eof;charset=ascii;eol=crlf;info86=free", "", "", 1},
		{"old Mac line ends (CR only) and blank lines", strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\r\r"), ":28C:", "\r:28C:"),
			"mt940;envelope=none;charset=ascii;eol=cr;info86=free", "", "", 1},
		{"LF line ends and a UTF-8 byte-order mark", "\ufeff" + strings.ReplaceAll(body, "\r\n", "\n"),
			"mt940;envelope=none;charset=ascii;eol=lf;info86=free", "", "", 1},
		{"an envelope whose braces close on lines of their own", "{1:F01INGBNL2AXXXX00001}\n{2:I940INGBNL2AXXXN}\n{4:\n" + strings.ReplaceAll(body, "\r\n", "\n") + "-\n}\n",
			"mt940;envelope=swift;charset=ascii;eol=lf;info86=free", "INGBNL2A", "ING", 1},
		{"the -XXX terminator behind a soft hyphen", strings.ReplaceAll(body, "\r\n", "\n") + "\u00ad-XXX",
			"mt940;envelope=none;charset=utf-8;eol=lf;info86=free", "", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := parseText(t, tc.in)
			require.Equal(t, tc.dialect, st.Dialect)
			require.Equal(t, tc.bankID, st.BankID)
			require.Equal(t, tc.bank, st.BankName)
			require.Len(t, st.Sections, tc.count)
			require.Len(t, st.Transactions, tc.count)
			require.Empty(t, st.Review, "every statement adds up")
			require.Equal(t, "123456789", st.Account)
		})
	}
}

func TestAccountIdentification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, field, account, currency, bankID, bank string
	}{
		{"an IBAN, whose bank code names a Dutch bank", "NL71RABO0123456789", "NL71RABO0123456789", "", "RABO", "Rabobank"},
		{"a German IBAN gives its bank code, not a name", "DE19662800530622160900", "DE19662800530622160900", "", "66280053", ""},
		{"German bank code and account", "25040066/0123456789", "25040066/0123456789", "", "25040066", ""},
		{"BIC, account and currency", "UBRTHUHB/123456789150ABCDEF002/HUF", "123456789150ABCDEF002", "HUF", "UBRTHUHB", ""},
		{"BIC and account", "BPHKPLPK/320000546101", "320000546101", "", "BPHKPLPK", "Bank BPH"},
		{"Triodos names itself", "TRIODOSBANK/0390123456", "0390123456", "", "TRIODOSBANK", "Triodos Bank"},
		{"a currency stuck to the number", "1291.99.348EUR", "1291.99.348", "EUR", "", ""},
		{"a currency after a space", "0800003200000001610722 EUR", "0800003200000001610722", "EUR", "", ""},
		{"trailing spaces", "1014365930  ", "1014365930", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := ":20:REF\n:25:" + tc.field + "\n:28C:1\n:61:200101C1,00NTRFNONREF\n-\n"
			st, err := Parse([]byte(in), statement.Options{})
			require.NoError(t, err)
			require.Equal(t, tc.account, st.Sections[0].Account)
			require.Equal(t, tc.currency, st.Sections[0].Currency)
			require.Equal(t, tc.bankID, st.BankID)
			require.Equal(t, tc.bank, st.BankName)
		})
	}
}

func TestBalancesAndSections(t *testing.T) {
	t.Parallel()
	t.Run("intermediate balances without a currency (DATEV) take the statement's", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, ":20:STARTUMS\n:25:1222333444\n:28:1/1\n:60F:C020315DEM0,00\n:61:020322CM20000,00S051\n:62M:C02031520000,00\n"+
			":20:STARTUMS\n:25:1222333444\n:28:1/1\n:60M:C020315DEM20000,00\n:61:020324DM5000,00S051\n:62F:C02032415000,00\n")
		require.Len(t, st.Sections, 2)
		require.Equal(t, "DEM", st.Sections[0].Currency)
		requireAmount(t, "20000", *st.Sections[0].ClosingBalance)
		requireAmount(t, "15000", *st.Sections[1].ClosingBalance)
		require.Empty(t, st.Review)
	})
	t.Run("debit balances are negative and the period runs from opening to closing date", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, ":20:X\n:25:1\n:60F:D070903EUR1234718,36\n:61:0709040904DR10,NTRFNONREF\n:62F:D070904EUR1234728,36\n")
		requireAmount(t, "-1234718.36", *st.OpeningBalance)
		requireAmount(t, "-1234728.36", *st.ClosingBalance)
		require.Equal(t, day(2007, time.September, 3), st.PeriodStart)
		require.Equal(t, day(2007, time.September, 4), st.PeriodEnd)
	})
	t.Run("a dot as decimal mark in old exports", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, ":940:\n:20:940A030109\n:25:1700.59.308JPY\n:28:00000/00\n:60F:C030108JPY00000000000010.\n"+
			":61:030112C00000001560395.NMSCNONREF          YAN SO\n:62F:C030109JPY00000001560405.\n")
		require.Contains(t, st.Dialect, "decimal=dot")
		require.Equal(t, "1560395", st.Transactions[0].Amount.String())
		require.Empty(t, st.Review)
	})
	t.Run("a malformed forward balance and :64: do not fail the statement", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, stmt(":61:200101C0,00NTRFNONREF", ":64:C200101EUR100,00", ":65F:Dnullnull7414,3", ":65:garbage"))
		require.Len(t, st.Transactions, 1)
		require.Empty(t, st.Problems)
	})
	t.Run("information about the whole statement after the closing balance belongs to no line", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, ":20:X\n:25:1\n:60F:C100722EUR0,00\n:61:100722C1,00NTRFNONREF\n:86:one\n:62F:C100723EUR1,00\n:86:D000004C000002D25,24C28,71\n-")
		require.Equal(t, "one", st.Transactions[0].Description)
		require.Equal(t, ":61:100722C1,00NTRFNONREF\n:86:one", st.Transactions[0].Raw)
	})
	t.Run("proprietary :NS: fields stay in Raw", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, ":20:X\n:25:1\n:60F:C100722EUR0,00\n:61:1710111011DF2,00S   X\n:NS:01526715\n09Illetek\n:62F:C100723EUR-2,00\n")
		require.Equal(t, ":61:1710111011DF2,00S   X\n:NS:01526715\n09Illetek", st.Transactions[0].Raw)
		require.Contains(t, st.Dialect, ";ns")
	})
	t.Run("a statement cut short before its closing balance is a problem", func(t *testing.T) {
		t.Parallel()
		st := parseText(t, ":20:X\n:25:1\n:60F:C100722EUR0,00\n:61:100722C1,00NTRFNONREF\n:86:one\n")
		require.Len(t, st.Transactions, 1)
		require.Len(t, st.Problems, 1)
		require.Contains(t, st.Problems[0].Message, "closing balance")
	})
}

func TestMT942(t *testing.T) {
	t.Parallel()
	report := ":20:ST170119CYC/0001\n:25:PL29114010810000267002001002\n:28C:1/1\n:34F:PLN0\n:13D:1701191815+0100\n" +
		":61:1701190119CN0,01NTRFNONREF//MB1\n:86:one\n:61:1701190119DN0,02NTRFNONREF//MB2\n:86:two\n"
	tests := []struct {
		name     string
		in       string
		format   statement.Format
		declared *statement.ControlTotals
		codes    []statement.ReviewCode
	}{
		{"totals that agree", report + ":90D:1PLN0,02\n:90C:1PLN0,01\n-", statement.FormatMT942,
			&statement.ControlTotals{Count: ptr(2), Debits: dptr("0.02"), Credits: dptr("0.01")}, nil},
		{"a debit total that does not", report + ":90D:1PLN2,30\n:90C:1PLN0,01\n-", statement.FormatMT942,
			&statement.ControlTotals{Count: ptr(2), Debits: dptr("2.30"), Credits: dptr("0.01")},
			[]statement.ReviewCode{statement.ReviewControlTotalMismatch}},
		{"counts split wrongly between debits and credits", report + ":90D:2PLN0,02\n:90C:0PLN0,01\n-", statement.FormatMT942,
			&statement.ControlTotals{Count: ptr(2), Debits: dptr("0.02"), Credits: dptr("0.01")},
			[]statement.ReviewCode{statement.ReviewControlTotalMismatch}},
		{"only debits declared", report + ":90D:1PLN0,02\n-", statement.FormatMT942,
			&statement.ControlTotals{Debits: dptr("0.02")}, nil},
		{"the application header alone makes it an MT942",
			"{1:F01BPHKPLPKAXXX0000000000}{2:I942BPHKPLPKXXXXN}{4:\n:20:X\n:25:1\n:61:170119C1,NTRFNONREF\n-}", statement.FormatMT942, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := parseText(t, tc.in)
			require.Equal(t, tc.format, st.Format)
			require.True(t, strings.HasPrefix(st.Dialect, "mt942;"))
			if tc.declared == nil {
				require.Nil(t, st.Sections[0].Declared)
			} else {
				got := st.Sections[0].Declared
				require.NotNil(t, got)
				require.Equal(t, tc.declared.Count, got.Count)
				for _, pair := range [][2]*decimal.Decimal{{tc.declared.Debits, got.Debits}, {tc.declared.Credits, got.Credits}} {
					if pair[0] == nil {
						require.Nil(t, pair[1])
					} else {
						require.True(t, pair[0].Equal(*pair[1]))
					}
				}
			}
			var codes []statement.ReviewCode
			for _, r := range st.Review {
				codes = append(codes, r.Code)
			}
			require.Equal(t, tc.codes, codes)
			require.Nil(t, st.OpeningBalance)
			require.NotZero(t, st.PeriodEnd)
		})
	}
}

func ptr(n int) *int { return &n }

func dptr(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }

func TestCharsets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      []byte
		charset string
		desc    string
	}{
		{"UTF-8 stays UTF-8", []byte("Überweisung für Müller"), "utf-8", "Überweisung für Müller"},
		{"Windows-1252 German", []byte("\xdcberweisung f\xfcr M\xfcller Stra\xdfe"), "cp1252", "Überweisung für Müller Straße"},
		{"CP852 Hungarian", []byte("Csoportos \xa0tutal\xa0s j\xa2v\xa0\xa1r\xa0sa, \x94sszevont ut\xa0nv\x82t"), "cp852", "Csoportos átutalás jóváírása, összevont utánvét"},
		{"CP852 Czech", []byte("P\xfd\xa1li\xe7 \xa7lu\x9Cou\x9Fk\xec k\x85\xe5 \xa3p\xd8l \xd4\xa0belsk\x82 \xa2dy"), "cp852", "Příliš žluťoučký kůň úpěl ďábelské ódy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]byte(stmt(":61:200101C0,00NTRFNONREF", ":86:")), []byte{}...)
			in = []byte(strings.Replace(string(in), ":86:", ":86:"+string(tc.in), 1))
			st := parseFinished(t, in)
			require.Contains(t, st.Dialect, "charset="+tc.charset)
			require.Equal(t, tc.desc, st.Transactions[0].Description)
		})
	}
	t.Run("UTF-16 with a byte-order mark", func(t *testing.T) {
		t.Parallel()
		text := stmt(":61:200101C0,00NTRFNONREF", ":86:Zahlung")
		u := []byte{0xFF, 0xFE}
		for _, r := range text {
			u = append(u, byte(r), byte(r>>8))
		}
		st := parseFinished(t, u)
		require.Contains(t, st.Dialect, "charset=utf-16le")
		require.Equal(t, "Zahlung", st.Transactions[0].Description)
	})
}

func TestWholeFileFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		opts statement.Options
		kind error
	}{
		{"a CSV file is not a statement", "date;amount\n2020-01-01;1,00\n", statement.Options{}, statement.ErrNotAStatement},
		{"empty input", "", statement.Options{}, statement.ErrNotAStatement},
		{"binary garbage", "\x00\x01\x02\xff\xfe:\x00", statement.Options{}, statement.ErrNotAStatement},
		{"an envelope with nothing in it", "{1:F01INGBNL2AXXXX00001}{2:I940INGBNL2AXXXN}{4:\n-}", statement.Options{}, statement.ErrCorrupt},
		{"a statement without balances or lines", ":20:X\n:25:1\n:28C:1\n-", statement.Options{}, statement.ErrNoTransactions},
		{"a statement whose every line is unreadable", ":20:X\n:25:1\n:60F:C200101EUR1,00\n:61:garbage\n:62F:C200101EUR1,00\n-", statement.Options{}, statement.ErrNoTransactions},
		{"more lines than allowed", stmt(":61:200101C1,NTRF", ":61:200101C1,NTRF", ":61:200101C1,NTRF"), statement.Options{MaxRows: 2}, statement.ErrTooManyRows},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse([]byte(tc.in), tc.opts)
			require.ErrorIs(t, err, tc.kind)
			require.Nil(t, st)
			var perr *statement.Error
			require.ErrorAs(t, err, &perr)
			require.NotEmpty(t, perr.Msg)
		})
	}
}

func TestBalancesWithoutLinesAreAStatement(t *testing.T) {
	t.Parallel()
	st, err := Parse([]byte(":20:A\n:25:1\n:60F:C200101EUR1,00\n:62F:C200131EUR1,00\n-\n:20:B\n:25:2\n:60F:C200101EUR2,00\n:62F:C200131EUR2,00\n-"), statement.Options{})
	require.NoError(t, err, "a period without activity is completed with zero transactions")
	require.Empty(t, st.Transactions)
	require.Len(t, st.Sections, 2)
	require.Equal(t, "2.00", st.Sections[1].ClosingBalance.StringFixed(2))
}
