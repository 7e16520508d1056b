package bai2

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"

	"github.com/statementmatch/service/internal/statement"
)

// lines joins records into a file, one per line.
func lines(rs ...string) []byte { return []byte(strings.Join(rs, "\n") + "\n") }

// problems returns the messages of the statement's problems with the given code.
func problems(st *statement.Statement, code statement.ReviewCode) []string {
	var out []string
	for _, p := range st.Problems {
		if p.Code == code {
			out = append(out, p.Message)
		}
	}
	return out
}

// A well-formed file: one group, one USD account opening at 100.00 and closing at 130.00, a
// credit of 50.00 and a debit of 20.00, every trailer right.
var wellFormed = lines(
	"01,SENDER,RECEIVER,260301,0800,1,80,,2/",
	"02,RECEIVER,021000021,1,260228,2400,USD,2/",
	"03,12345,,010,10000,,,015,13000,,,100,5000,1,,400,2000,1,/",
	"16,165,5000,Z,BANKREF1,CUSTREF1,INVOICE 42 ACME CORP/",
	"16,455,2000,Z,BANKREF2,0,ACH DEBIT UTILITY/",
	"49,37000,4/",
	"98,37000,1,6/",
	"99,37000,1,8/",
)

func TestParseQuirks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  []byte
		check func(t *testing.T, st *statement.Statement)
	}{
		{
			name: "a well-formed file has sections, signed amounts, references and no problems",
			data: wellFormed,
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "bai2;version=2;charset=ascii", st.Dialect)
				require.Equal(t, "021000021", st.BankID)
				require.Empty(t, st.BankName, "a routing number is not turned into a name")
				require.Len(t, st.Sections, 1)
				s := st.Sections[0]
				require.Equal(t, "12345", s.Account)
				require.Equal(t, "USD", s.Currency)
				require.Equal(t, "2026-02-28", s.PeriodStart.String())
				require.Equal(t, "100.00", s.OpeningBalance.StringFixed(2))
				require.Equal(t, "130.00", s.ClosingBalance.StringFixed(2))
				require.Len(t, st.Transactions, 2)
				require.Equal(t, "50.00", st.Transactions[0].Amount.String())
				require.Equal(t, "-20.00", st.Transactions[1].Amount.String())
				require.Equal(t, "CUSTREF1", st.Transactions[0].Reference)
				require.Equal(t, "BANKREF2", st.Transactions[1].Reference, "a customer reference of 0 says nothing")
				require.Equal(t, "INVOICE 42 ACME CORP", st.Transactions[0].Description)
				require.Equal(t, statement.Position{Line: 4, Record: 4}, st.Transactions[0].Pos)
				require.Equal(t, "16,165,5000,Z,BANKREF1,CUSTREF1,INVOICE 42 ACME CORP/", st.Transactions[0].Raw)
			},
		},
		{
			name: "records packed on one line after '/' and blanks are split",
			data: lines(
				"01,S,R,260301,0800,1,,,2/   02,R,O,1,260228,,USD,2/",
				"03,1,,010,100,,,015,50,,,/",
				"16,455,25,Z,,,FEE ONE/ 16,455,25,Z,,,FEE TWO/  49,200,4/",
				"98,200,1,6/ 99,200,1,8/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, ";packed")
				require.Len(t, st.Transactions, 2)
				require.Equal(t, "FEE TWO", st.Transactions[1].Description)
				require.Equal(t, statement.Position{Line: 3, Record: 5}, st.Transactions[1].Pos)
				require.Equal(t, "16,455,25,Z,,,FEE TWO/", st.Transactions[1].Raw)
			},
		},
		{
			name: "a text field may hold commas and slashes; only the '/' at the end terminates",
			data: lines(
				"01,S,R,260301,0800,1,,,2/",
				"02,R,O,1,260228,,USD,2/",
				"03,1,,,,,/",
				"16,195,100,Z,AB/CD/1,REF/2,PAYMENT 12/03/2026, INV 7/ 16 PARTS,NET/",
				"49,100,3/", "98,100,1,5/", "99,100,1,7/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Len(t, st.Transactions, 1)
				require.Equal(t, "PAYMENT 12/03/2026, INV 7/ 16 PARTS,NET", st.Transactions[0].Description)
				require.Equal(t, "REF/2", st.Transactions[0].Reference)
			},
		},
		{
			name: "an 88 continuation of text continues the text after a blank",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,195,100,Z,,,WIRE FROM ACME/",
				"88,CORPORATION INV 42/",
				"88,AND 43/",
				"49,100,5/", "98,100,1,7/", "99,100,1,9/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "WIRE FROM ACME CORPORATION INV 42 AND 43", st.Transactions[0].Description)
				require.Equal(t, "16,195,100,Z,,,WIRE FROM ACME/\n88,CORPORATION INV 42/\n88,AND 43/", st.Transactions[0].Raw)
			},
		},
		{
			name: "an 88 after a 16 that ended before its text carries the next fields",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,218,20000000,V,040622,,SP4738/",
				"88,YRC065321,PROCEEDS OF LETTER OF CREDIT/",
				"49,20000000,4/", "98,20000000,1,6/", "99,20000000,1,8/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				tx := st.Transactions[0]
				require.Equal(t, "YRC065321", tx.Reference)
				require.Equal(t, "PROCEEDS OF LETTER OF CREDIT", tx.Description)
				require.Equal(t, "2004-06-22", tx.ValueDate.String())
			},
		},
		{
			name: "an 88 continues an 03 summary mid-group: type code on the 03, amount on the 88",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/",
				"03,9876543210,,010,-500000,,,015/",
				"88,-400000,,/",
				"16,195,100000,Z,,,X/",
				"49,-800000,4/", "98,-800000,1,6/", "99,-800000,1,8/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "-5000.00", st.Sections[0].OpeningBalance.StringFixed(2))
				require.Equal(t, "-4000.00", st.Sections[0].ClosingBalance.StringFixed(2))
			},
		},
		{
			name: "funds types S, V and D bring their own fields, so references stay in place",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/",
				"03,1,,190,70000000,4,D,3,0,20000000,1,30000000,3,20000000,010,100,,,/",
				"16,115,450000,S,100000,200000,150000,BREF-S,CREF-S,LOCKBOX/",
				"16,195,1000,V,260301,1200,BREF-V,CREF-V,VALUE DATED/",
				"16,195,2000,D,2,0,1500,1,500,BREF-D,CREF-D,DISTRIBUTED/",
				"49,70453100,5/", "98,70453100,1,7/", "99,70453100,1,9/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "1.00", st.Sections[0].OpeningBalance.StringFixed(2), "010 after a D distribution")
				require.Len(t, st.Transactions, 3)
				for i, want := range []string{"CREF-S", "CREF-V", "CREF-D"} {
					require.Equal(t, want, st.Transactions[i].Reference)
				}
				require.Equal(t, "LOCKBOX", st.Transactions[0].Description)
				require.Equal(t, "2026-03-01", st.Transactions[1].ValueDate.String())
				require.True(t, st.Transactions[2].ValueDate.IsZero())
			},
		},
		{
			name: "implied decimals follow the currency: JPY 0, KWD 3, the 02 currency when the 03 has none",
			data: lines(
				"01,S,R,260301,0800,1,,,2/",
				"02,R,O,1,260228,,JPY,2/",
				"03,JP1,,010,150000,,,/",
				"16,195,1234,Z,,,YEN/",
				"49,151234,3/",
				"03,KW1,KWD,010,1500,,,/",
				"16,495,1234,Z,,,DINAR/",
				"49,2734,3/",
				"98,153968,2,8/", "99,153968,1,10/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "JPY", st.Sections[0].Currency)
				require.Equal(t, "150000", st.Sections[0].OpeningBalance.String())
				require.Equal(t, "1234", st.Transactions[0].Amount.String())
				require.Equal(t, "KWD", st.Transactions[1].Currency)
				require.Equal(t, "-1.234", st.Transactions[1].Amount.String())
				require.Equal(t, "1.500", st.Sections[1].OpeningBalance.String())
			},
		},
		{
			name: "with no currency in 03 or 02 the amounts are USD",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,,2/", "03,1,,,,,/",
				"16,195,+000000000012345,Z,,,X/", "49,12345,3/", "98,12345,1,5/", "99,12345,1,7/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "USD", st.Transactions[0].Currency)
				require.Equal(t, "123.45", st.Transactions[0].Amount.String())
			},
		},
		{
			name: "the type code gives the sign; custom 9xx codes are credits below 960; a zero amount keeps its type",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,108,100,Z,,,CREDIT 108/",
				"16,699,100,Z,,,DEBIT 699/",
				"16,720,100,Z,,,LOAN PAYMENT 720/",
				"16,760,100,Z,,,LOAN DISBURSEMENT 760/",
				"16,959,100,Z,,,CUSTOM CREDIT 959/",
				"16,960,100,Z,,,CUSTOM DEBIT 960/",
				"16,475,0,Z,,,ZERO CHECK/",
				"16,890,0,Z,,,NON-MONETARY NOTICE/",
				"49,600,10/", "98,600,1,12/", "99,600,1,14/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				var got []string
				for _, tx := range st.Transactions {
					got = append(got, tx.Amount.String())
				}
				require.Equal(t, []string{"1.00", "-1.00", "1.00", "-1.00", "1.00", "-1.00", "0.00"}, got,
					"890 is non-monetary information, not a transaction")
				require.Equal(t, statement.Debit, st.Transactions[6].Type)
			},
		},
		{
			name: "a 16 with a status type code cannot be signed and is reported",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,015,100,Z,,,NOT A TRANSACTION/", "16,195,100,Z,,,OK/",
				"49,200,4/", "98,200,1,6/", "99,200,1,8/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Len(t, st.Problems, 1)
				require.Equal(t, statement.Position{Line: 4, Record: 4}, st.Problems[0].Pos)
				require.Contains(t, st.Problems[0].Message, `type code 015 is neither a credit`)
			},
		},
		{
			name: "a 49 control total that does not add up is a control total mismatch with both figures",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/",
				"03,ACCT9,,010,1000,,,/",
				"16,195,500,Z,,,X/",
				"49,1600,4/", "98,1600,1,5/", "99,1600,1,7/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				got := problems(st, statement.ReviewControlTotalMismatch)
				require.Equal(t, []string{
					"49 trailer of account ACCT9: control total 1600 declared, but the amounts of its 03 and 16 records add up to 1500 (in minor units)",
					"49 trailer of account ACCT9: 4 records declared, 3 read",
				}, got)
				require.Equal(t, statement.Position{Line: 5, Record: 5}, st.Problems[0].Pos)
			},
		},
		{
			name: "98 and 99 totals, account and group counts are checked",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,195,500,Z,,,X/", "49,500,3/", "98,600,2,5/", "99,700,2,8/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, []string{
					"98 trailer of the group at line 2: control total 600 declared, but the control totals of its 49 account trailers add up to 500 (in minor units)",
					"98 trailer of the group at line 2: 2 accounts declared, 1 read",
					"99 file trailer: control total 700 declared, but the control totals of its 98 group trailers add up to 600 (in minor units)",
					"99 file trailer: 2 groups declared, 1 read",
					"99 file trailer: 8 records declared, 7 read",
				}, problems(st, statement.ReviewControlTotalMismatch))
			},
		},
		{
			name: "a truncated file says which trailers are missing",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,77,,,,,/",
				"16,195,500,Z,,,X/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Equal(t, []string{
					"the file ends without its 49 trailer of account 77, 98 group trailer, 99 file trailer: it may be truncated, and its totals cannot be checked",
				}, problems(st, statement.ReviewControlTotalMismatch))
			},
		},
		{
			name: "an '88:' record is reported and skipped, and the 88s after it still continue the 16",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,195,500,,BANKREF,,Incoming Wire,-",
				"88:EREF: LOST",
				"88,DBNM: PAYER INC",
				"49,500,5/", "98,500,1,7/", "99,500,1,9/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Problems, 1)
				require.Equal(t, statement.Position{Line: 5, Record: 5}, st.Problems[0].Pos)
				require.Equal(t, `record "88:EREF: LOST" does not have a comma after its record code; skipped`, st.Problems[0].Message)
				tx := st.Transactions[0]
				require.Equal(t, "PAYER INC", tx.CounterpartyName)
				require.Equal(t, "BANKREF", tx.Reference)
				require.Equal(t, "Incoming Wire,-", tx.Description)
			},
		},
		{
			name: "Goldman Sachs keyed 88s give reference, counterparty by direction and remittance",
			data: lines(
				"01,GSBI,R,260301,0800,1,,,2/", "02,R,026015079,1,260228,,,/", "03,1,USD,,,,/",
				"16,495,50500,,GI2321400000090,GSV0DL6RKT,Outgoing Wire,To: TEST COMPANY, Client Ref ID: GSV0DL6RKT",
				"88,REMI: INVOICE 77",
				"88,EREF: E2E-1",
				"88,CRNM: TEST COMPANY",
				"88,DBNM: US INC",
				"88,CACT: 609873838",
				"88,DACT: 111",
				"16,195,1125,,GI2229300000187,GS0D9VGMP1IWPLW,Incoming Wire,-",
				"88,DBNM: PAYER LLC",
				"88,DACT: 8348572423",
				"88,CRNM: US INC",
				"88,NOTE: free text",
				"49,51625,14/", "98,51625,1,16/", "99,51625,1,18/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, ";keyed-88")
				require.Contains(t, st.Dialect, ";unterminated")
				out, in := st.Transactions[0], st.Transactions[1]
				require.Equal(t, "E2E-1", out.Reference)
				require.Equal(t, "TEST COMPANY", out.CounterpartyName)
				require.Equal(t, "609873838", out.CounterpartyAccount)
				require.Equal(t, "Outgoing Wire,To: TEST COMPANY, Client Ref ID: GSV0DL6RKT INVOICE 77", out.Description)
				require.Equal(t, "GS0D9VGMP1IWPLW", in.Reference)
				require.Equal(t, "PAYER LLC", in.CounterpartyName)
				require.Equal(t, "8348572423", in.CounterpartyAccount)
				require.Equal(t, "Incoming Wire,- NOTE: free text", in.Description, "an unknown key is text")
			},
		},
		{
			name: "a record wrapped onto a line that opens no record is joined with a blank",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,142,2500,Z,,,111111     ACH_SETL           1111111111",
				"111111111111111        /",
				"49,2500,3/", "98,2500,1,5/", "99,2500,1,7/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, ";wrapped")
				require.Equal(t, "111111 ACH_SETL 1111111111 111111111111111", st.Transactions[0].Description)
			},
		},
		{
			name: "a line cut at the declared physical record length continues without a blank",
			data: lines(
				"01,S,R,260301,0800,1,20,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,195,10,Z,,,PAYMEN",
				"T RECEIVED/",
				"49,10,3/", "98,10,1,5/", "99,10,1,7/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "PAYMENT RECEIVED", st.Transactions[0].Description)
			},
		},
		{
			name: "text cut at the declared physical record length continues in its 88 without a blank",
			data: lines(
				"01,S,R,260301,0800,1,30,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"16,195,10,Z,,,PAYMENT FROM ACM",
				"88,E CORP",
				"16,195,10,Z,,,SHORT LINE",
				"88,NEXT WORD/",
				"49,20,6/", "98,20,1,8/", "99,20,1,10/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "PAYMENT FROM ACME CORP", st.Transactions[0].Description)
				require.Equal(t, "SHORT LINE NEXT WORD", st.Transactions[1].Description)
			},
		},
		{
			name: "a file without line breaks (fixed blocks padded with blanks) is read record by record",
			data: []byte("01,S,R,260301,0800,1,40,,2/             02,R,O,1,260228,,USD,2/                 " +
				"03,1,,010,100,,,015,150,,,/             16,195,50,Z,,,PAID/                     " +
				"49,300,3/                               98,300,1,5/                             99,300,1,7/"),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, ";no-line-breaks")
				require.Equal(t, "PAID", st.Transactions[0].Description)
			},
		},
		{
			name: "CRLF and CR line ends read the same",
			data: []byte(strings.ReplaceAll(string(wellFormed), "\n", "\r\n")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Len(t, st.Transactions, 2)
				require.Equal(t, "16,165,5000,Z,BANKREF1,CUSTREF1,INVOICE 42 ACME CORP/", st.Transactions[0].Raw)
			},
		},
		{
			name: "old Mac CR-only line ends are lines too",
			data: []byte(strings.ReplaceAll(string(wellFormed), "\n", "\r")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, 5, st.Transactions[1].Pos.Line)
			},
		},
		{
			name: "a UTF-8 byte-order mark is skipped",
			data: append([]byte{0xEF, 0xBB, 0xBF}, wellFormed...),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, "charset=utf-8")
			},
		},
		{
			name: "UTF-16LE with a byte-order mark is decoded",
			data: utf16le("\ufeff" + string(wellFormed)),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, "charset=utf-16le")
				require.Len(t, st.Transactions, 2)
			},
		},
		{
			name: "text that is not UTF-8 is read as Windows-1252",
			data: []byte(strings.Replace(string(wellFormed), "ACME CORP", "M\xdcLLER GMBH", 1)),
			check: func(t *testing.T, st *statement.Statement) {
				require.Contains(t, st.Dialect, "charset=windows-1252")
				require.Equal(t, "INVOICE 42 MÜLLER GMBH", st.Transactions[0].Description)
			},
		},
		{
			name: "EBCDIC (code page 037) from a mainframe is decoded",
			data: ebcdic(string(wellFormed)),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Contains(t, st.Dialect, "charset=ebcdic-037")
				require.Equal(t, "-20.00", st.Transactions[1].Amount.String())
			},
		},
		{
			name: "unknown record types, garbage lines and text after '/' are problems, not silence",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/",
				"17,SOMETHING/",
				"16,195,500,Z,,,X/",
				"49,500,4/ trailing words",
				"this line is no record",
				"98,500,1,6/", "99,500,1,8/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				var got []string
				for _, p := range st.Problems {
					got = append(got, p.Pos.String()+": "+p.Message)
				}
				require.Equal(t, []string{
					"line 4, record 4: record type 17 is not a BAI2 record type; skipped",
					`line 6, record 6: text "trailing words" after the record's closing '/' is ignored`,
					`line 7: "this line is no record" is not a BAI2 record`,
				}, got)
			},
		},
		{
			name: "bad amounts and dates are reported where they stand",
			data: lines(
				"01,S,R,260301,0800,1,,,2/", "02,R,O,1,261340,,USD,2/", "03,1,,010,12.50,,,/",
				"16,195,12x,Z,,,X/", "16,195,5,V,990231,,,,Y/", "16,195,,Z,,,Z/",
				"16,195,1234567890123456789,Z,,,HUGE/",
				"49,5,6/", "98,5,1,8/", "99,5,1,10/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				var got []string
				for _, p := range st.Problems {
					got = append(got, p.Pos.String()+": "+p.Message)
				}
				require.Equal(t, []string{
					`line 2, record 2: 02 group header: as-of date "261340" is not a date (YYMMDD)`,
					`line 3, record 3: 03 account 1, type code "010": amount "12.50" is not a number (BAI2 amounts are whole numbers in the currency's minor unit)`,
					`line 4, record 4: 16 transaction: amount "12x" is not a number (BAI2 amounts are whole numbers in the currency's minor unit); skipped`,
					`line 5, record 5: 16 transaction: value date "990231" is not a date (YYMMDD); left out`,
					`line 6, record 6: 16 transaction has no amount; skipped`,
					`line 7, record 7: 16 transaction: amount "1234567890123456789" has more than 18 digits; skipped`,
				}, got, "the totals are not compared once an amount they cover is unreadable")
			},
		},
		{
			name: "two files one after the other are both read",
			data: append(append([]byte{}, wellFormed...), wellFormed...),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Len(t, st.Sections, 2)
				require.Len(t, st.Transactions, 4)
				require.Equal(t, 2, st.Sections[1].First)
			},
		},
		{
			name: "groups from different originators name the file's sender as the bank",
			data: lines(
				"01,SENDERID,R,260301,0800,1,,,2/",
				"02,R,111000025,1,260228,,USD,2/", "03,1,,,,,/", "16,195,1,Z,,,A/", "49,1,3/", "98,1,1,5/",
				"02,R,222000111,1,260228,,USD,2/", "03,2,,,,,/", "16,195,1,Z,,,B/", "49,1,3/", "98,1,1,5/",
				"99,2,2,12/",
			),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Problems)
				require.Equal(t, "SENDERID", st.BankID)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse(tc.data, statement.Options{})
			require.NoError(t, err)
			tc.check(t, st)
			statement.Finish(st)
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		opts statement.Options
		kind error
		msg  string
	}{
		{name: "a CSV is not a BAI2 file", data: []byte("Date,Amount\n2026-03-01,1.00\n"), kind: statement.ErrNotAStatement,
			msg: "bai2: line 1: the file does not start with a BAI2 01 file header record: not a supported bank statement"},
		{name: "an empty file is not a BAI2 file", data: nil, kind: statement.ErrNotAStatement},
		{name: "a file of headers and trailers has no transactions",
			data: lines("01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,,,,/", "49,0,2/", "98,0,1,4/", "99,0,1,6/"),
			kind: statement.ErrNoTransactions},
		{name: "a header followed by garbage is corrupt",
			data: lines("01,S,R,260301,0800,1,,,2/", "\x00\x01garbage", "more garbage"),
			kind: statement.ErrCorrupt},
		{name: "more transactions than MaxRows", data: wellFormed, opts: statement.Options{MaxRows: 1},
			kind: statement.ErrTooManyRows, msg: "bai2: line 5, record 5: more than 1 transactions: more rows than the row limit"},
		{name: "a UTF-16 file cut after its first bytes is corrupt", data: []byte{0xFF, 0xFE, '0', 0, '1', 0, ',', 0, 'x'},
			kind: statement.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse(tc.data, tc.opts)
			require.Nil(t, st)
			require.Error(t, err)
			require.True(t, errors.Is(err, tc.kind), "got %v", err)
			var e *statement.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, statement.FormatBAI2, e.Format)
			if tc.msg != "" {
				require.Equal(t, tc.msg, err.Error())
			}
		})
	}
}

func TestBalanceOnlyFileIsAStatement(t *testing.T) {
	t.Parallel()
	st, err := Parse(lines("01,S,R,260301,0800,1,,,2/", "02,R,O,1,260228,,USD,2/", "03,1,,010,500,,,015,500,,,/",
		"49,1000,2/", "98,1000,1,4/", "99,1000,1,6/"), statement.Options{})
	require.NoError(t, err, "an account without activity still states its balances")
	require.Empty(t, st.Transactions)
	require.Equal(t, "5.00", st.Sections[0].ClosingBalance.String())
}

func utf16le(s string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func ebcdic(s string) []byte {
	s = strings.ReplaceAll(s, "\n", "\u0085")
	out, err := charmap.CodePage037.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return out
}
