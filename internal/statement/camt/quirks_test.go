package camt

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/statementmatch/service/internal/statement"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

const ns053v2 = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"

// doc wraps the inside of one Stmt into a camt.053 document of namespace ns ("" for none).
func doc(ns, stmt string) string {
	attr := ""
	if ns != "" {
		attr = ` xmlns="` + ns + `"`
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<Document` + attr + `>
<BkToCstmrStmt>
<GrpHdr><MsgId>M1</MsgId><CreDtTm>2024-03-31T18:00:00</CreDtTm></GrpHdr>
<Stmt>
<Id>S1</Id>
<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
` + stmt + `
</Stmt>
</BkToCstmrStmt>
</Document>
`
}

// ntry is a booked entry; extra goes inside the Ntry after its dates.
func ntry(amount, cdi, extra string) string {
	return `<Ntry><Amt Ccy="EUR">` + amount + `</Amt><CdtDbtInd>` + cdi + `</CdtDbtInd><Sts>BOOK</Sts>` +
		`<BookgDt><Dt>2024-03-05</Dt></BookgDt><ValDt><Dt>2024-03-06</Dt></ValDt>` + extra + `</Ntry>`
}

func bal(code, amount, cdi string) string {
	return `<Bal><Tp><CdOrPrtry><Cd>` + code + `</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">` + amount +
		`</Amt><CdtDbtInd>` + cdi + `</CdtDbtInd><Dt><Dt>2024-03-31</Dt></Dt></Bal>`
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestQuirks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, st *statement.Statement)
	}{
		{
			name: "a status as text (up to V07) and as Sts/Cd (V08 on) are both booked",
			data: doc(ns053v2, ntry("1.00", "CRDT", "")+
				`<Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2024-03-05</Dt></BookgDt></Ntry>`+
				`<Ntry><Amt Ccy="EUR">4.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-03-05</Dt></BookgDt></Ntry>`),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 3, "an entry without status counts as booked")
			},
		},
		{
			name: "pending, future and information entries are left out and counted in the dialect",
			data: doc(ns053v2, ntry("1.00", "CRDT", "")+
				`<Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>PDNG</Sts></Ntry>`+
				`<Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts></Ntry>`+
				`<Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>FUTR</Cd></Sts></Ntry>`+
				`<Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>INFO</Sts></Ntry>`),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Equal(t, "camt.053.001.02;charset=utf-8;pending=2;future=1;info=1", st.Dialect)
				require.Empty(t, st.Problems)
			},
		},
		{
			name: "an unknown status is a problem, not a silent drop",
			data: doc(ns053v2, ntry("1.00", "CRDT", "")+
				`<Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Prtry>HELD</Prtry></Sts></Ntry>`),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				require.Len(t, st.Problems, 1)
				require.Contains(t, st.Problems[0].Message, `Ntry/Sts "HELD"`)
				require.Equal(t, "/Document/BkToCstmrStmt/Stmt[1]/Ntry[2]", st.Problems[0].Pos.Path)
			},
		},
		{
			name: "a document without namespace is read by its message element",
			data: doc("", ntry("1.00", "CRDT", "")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, statement.FormatCAMT053, st.Format)
				require.Equal(t, "camt.053;ns=none;charset=utf-8", st.Dialect)
			},
		},
		{
			name: "prefixed elements are matched by local name",
			data: `<ns2:Document xmlns:ns2="urn:iso:std:iso:20022:tech:xsd:camt.054.001.13"><ns2:BkToCstmrDbtCdtNtfctn>` +
				`<ns2:Ntfctn><ns2:Acct><ns2:Id><ns2:Othr><ns2:Id>12345</ns2:Id></ns2:Othr></ns2:Id></ns2:Acct>` +
				`<ns2:Ntry><ns2:Amt Ccy="CHF">5.10</ns2:Amt><ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd><ns2:Sts><ns2:Cd>BOOK</ns2:Cd></ns2:Sts>` +
				`<ns2:BookgDt><ns2:DtTm>2024-01-02T23:30:00-05:00</ns2:DtTm></ns2:BookgDt></ns2:Ntry>` +
				`</ns2:Ntfctn></ns2:BkToCstmrDbtCdtNtfctn></ns2:Document>`,
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, statement.FormatCAMT054, st.Format)
				require.Equal(t, "camt.054.001.13;charset=utf-8", st.Dialect)
				require.Equal(t, "12345", st.Account)
				require.Equal(t, "CHF", st.Currency, "the currency comes from the amounts without Acct/Ccy")
				tx := st.Transactions[0]
				require.Equal(t, statement.MustDate(2024, time.January, 2), tx.Date, "the bank's own calendar day, not UTC")
				require.True(t, d("-5.10").Equal(tx.Amount))
				require.Equal(t, "/Document/BkToCstmrDbtCdtNtfctn/Ntfctn[1]/Ntry[1]", tx.Pos.Path)
			},
		},
		{
			name: "version 1 spells the message with a V01 suffix",
			data: `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.01"><BkToCstmrAcctRptV01><Rpt>` +
				ntry("3", "CRDT", "") + `</Rpt></BkToCstmrAcctRptV01></Document>`,
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, statement.FormatCAMT052, st.Format)
				require.Len(t, st.Transactions, 1)
			},
		},
		{
			name: "amounts keep every stated decimal",
			data: doc(ns053v2, bal("OPBD", "5442.09000", "CRDT")+ntry("0.12345", "DBIT", "")+bal("CLBD", "5441.96655", "CRDT")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "-0.12345", st.Transactions[0].Amount.String())
				require.Equal(t, int32(-5), st.OpeningBalance.Exponent())
				require.Equal(t, "5442.09000", st.OpeningBalance.StringFixed(5))
				require.Empty(t, st.Review, "opening plus entries is closing")
			},
		},
		{
			name: "a Dt holding a date-time with nanoseconds is read by its date part",
			data: doc(ns053v2, `<Ntry><Amt Ccy="EUR">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`+
				`<BookgDt><Dt>2025-07-23T00:00:00.000000000</Dt></BookgDt><ValDt><DtTm>2025-07-24T06:10:29.000000000</DtTm></ValDt></Ntry>`),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "2025-07-23", st.Transactions[0].Date.String())
				require.Equal(t, "2025-07-24", st.Transactions[0].ValueDate.String())
			},
		},
		{
			name: "an entry without BookgDt is dated by its ValDt",
			data: doc(ns053v2, `<Ntry><Amt Ccy="EUR">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><ValDt><Dt>2024-02-29</Dt></ValDt></Ntry>`),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "2024-02-29", st.Transactions[0].Date.String())
			},
		},
		{
			name: "a credit's counterparty is the debtor, a debit's the creditor, in V02 and V08 shapes",
			data: doc(ns053v2,
				ntry("1", "CRDT", `<NtryDtls><TxDtls><RltdPties><Dbtr><Nm>Payer  Ltd</Nm></Dbtr><DbtrAcct><Id><IBAN>GB33BUKB20201555555555</IBAN></Id></DbtrAcct>`+
					`<Cdtr><Nm>Us</Nm></Cdtr></RltdPties></TxDtls></NtryDtls>`)+
					ntry("2", "DBIT", `<NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Us</Nm></Pty></Dbtr>`+
						`<Cdtr><Pty><Nm>Payee AG</Nm></Pty></Cdtr><CdtrAcct><Id><Othr><Id>987654</Id></Othr></Id></CdtrAcct></RltdPties></TxDtls></NtryDtls>`)),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "Payer Ltd", st.Transactions[0].CounterpartyName)
				require.Equal(t, "GB33BUKB20201555555555", st.Transactions[0].CounterpartyAccount)
				require.Equal(t, "Payee AG", st.Transactions[1].CounterpartyName)
				require.Equal(t, "987654", st.Transactions[1].CounterpartyAccount)
			},
		},
		{
			name: "the reference is the end-to-end id, else the creditor reference, else the bank's",
			data: doc(ns053v2,
				ntry("1", "CRDT", `<AcctSvcrRef>BANK1</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>E2E1</EndToEndId></Refs>`+
					`<RmtInf><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls>`)+
					ntry("2", "CRDT", `<AcctSvcrRef>BANK2</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>`+
						`<RmtInf><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls>`)+
					ntry("3", "CRDT", `<AcctSvcrRef>BANK3</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs></TxDtls></NtryDtls>`)+
					ntry("4", "CRDT", `<NtryRef>NREF4</NtryRef>`)),
			check: func(t *testing.T, st *statement.Statement) {
				var refs []string
				for _, tx := range st.Transactions {
					refs = append(refs, tx.Reference)
				}
				require.Equal(t, []string{"E2E1", "RF18539007547034", "BANK3", "NREF4"}, refs)
			},
		},
		{
			name: "the description is AddtlNtryInf and the Ustrd lines, whitespace collapsed, repeats once",
			data: doc(ns053v2, ntry("1", "CRDT", `<NtryDtls><TxDtls><RmtInf><Ustrd>Invoice 12
				 and 13</Ustrd><Ustrd>SEPA Gutschrift</Ustrd></RmtInf></TxDtls></NtryDtls><AddtlNtryInf>SEPA   Gutschrift</AddtlNtryInf>`)),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "SEPA Gutschrift Invoice 12 and 13", st.Transactions[0].Description)
			},
		},
		{
			name: "a batch entry stays one transaction and joins its details' distinct values",
			data: doc(ns053v2, bal("OPBD", "100.00", "CRDT")+ntry("30.00", "DBIT", `<NtryDtls><Btch><NbOfTxs>3</NbOfTxs></Btch>`+
				strings.Repeat(`<TxDtls><Refs><EndToEndId>E1</EndToEndId></Refs><Amt Ccy="EUR">10.00</Amt><RltdPties><Cdtr><Nm>A</Nm></Cdtr></RltdPties></TxDtls>`, 2)+
				`<TxDtls><Refs><EndToEndId>E2</EndToEndId></Refs><Amt Ccy="EUR">10.00</Amt><RltdPties><Cdtr><Nm>B</Nm></Cdtr></RltdPties></TxDtls></NtryDtls>`)+
				bal("CLBD", "70.00", "CRDT")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1, "the entry's amount is what moved; details are not transactions")
				require.Equal(t, "E1; E2", st.Transactions[0].Reference)
				require.Equal(t, "A; B", st.Transactions[0].CounterpartyName)
				require.Contains(t, st.Dialect, "batch=1")
				require.Empty(t, st.Review)
			},
		},
		{
			name: "a batch of many details lists the first values and counts the rest",
			data: doc(ns053v2, ntry("1", "DBIT", "<NtryDtls>"+func() string {
				var b strings.Builder
				for i := range 25 {
					b.WriteString(`<TxDtls><Refs><EndToEndId>E` + string(rune('A'+i)) + `</EndToEndId></Refs></TxDtls>`)
				}
				return b.String()
			}()+"</NtryDtls>")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "EA; EB; EC; ED; EE; EF; EG; EH; EI; EJ; (and 15 more)", st.Transactions[0].Reference)
			},
		},
		{
			name: "a reversal keeps the direction of its CdtDbtInd and a zero debit stays a debit",
			data: doc(ns053v2, ntry("5.00", "DBIT", `<RvslInd>true</RvslInd>`)+ntry("0.00", "DBIT", "")),
			check: func(t *testing.T, st *statement.Statement) {
				require.True(t, d("-5").Equal(st.Transactions[0].Amount))
				require.Equal(t, statement.Debit, st.Transactions[1].Type)
				require.Contains(t, st.Dialect, "reversals=1")
			},
		},
		{
			name: "PRCD opens when there is no OPBD; interim and available balances do not count",
			data: doc(ns053v2, bal("ITBD", "999", "CRDT")+bal("PRCD", "10.00", "DBIT")+bal("CLAV", "1", "CRDT")+
				ntry("4.00", "CRDT", "")+bal("CLBD", "6.00", "DBIT")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "-10.00", st.OpeningBalance.StringFixed(2))
				require.Equal(t, "-6.00", st.ClosingBalance.StringFixed(2))
				require.Empty(t, st.Review)
				require.Contains(t, st.Dialect, "balances=ITBD,PRCD,CLAV,CLBD")
			},
		},
		{
			name: "declared totals go to Finish, which flags a mismatch",
			data: doc(ns053v2, `<TxsSummry><TtlNtries><NbOfNtries>3</NbOfNtries><Sum>3.00</Sum><TtlNetNtry><Amt>1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></TtlNetNtry></TtlNtries>`+
				`<TtlCdtNtries><NbOfNtries>1</NbOfNtries><Sum>2.00</Sum></TtlCdtNtries><TtlDbtNtries><NbOfNtries>1</NbOfNtries><Sum>1.00</Sum></TtlDbtNtries></TxsSummry>`+
				ntry("2.00", "CRDT", "")+ntry("1.00", "DBIT", "")),
			check: func(t *testing.T, st *statement.Statement) {
				dc := st.Sections[0].Declared
				require.NotNil(t, dc)
				require.Equal(t, 3, *dc.Count)
				require.Equal(t, "1.00", dc.Net.StringFixed(2))
				require.Equal(t, "2.00", dc.Credits.StringFixed(2))
				require.Equal(t, "1.00", dc.Debits.StringFixed(2))
				require.Len(t, st.Review, 1)
				require.Equal(t, statement.ReviewControlTotalMismatch, st.Review[0].Code)
				require.Contains(t, st.Review[0].Message, "3 entries declared, 2 read")
			},
		},
		{
			name: "totals only this parser can check (TtlNtries/Sum, per-direction counts) become problems",
			data: doc(ns053v2, `<TxsSummry><TtlNtries><NbOfNtries>2</NbOfNtries><Sum>9.99</Sum><TtlNetNtryAmt>1.00</TtlNetNtryAmt><CdtDbtInd>CRDT</CdtDbtInd></TtlNtries>`+
				`<TtlCdtNtries><NbOfNtries>2</NbOfNtries><Sum>2.00</Sum></TtlCdtNtries></TxsSummry>`+
				ntry("2.00", "CRDT", "")+ntry("1.00", "DBIT", "")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Problems, 2)
				require.Equal(t, statement.ReviewControlTotalMismatch, st.Problems[0].Code)
				require.Contains(t, st.Problems[0].Message, "TtlNtries/Sum declares 9.99, the entries read sum to 3.00")
				require.Contains(t, st.Problems[1].Message, "2 credit entries, 1 were read")
			},
		},
		{
			name: "a report whose totals count its pending entries too is consistent",
			data: doc(ns053v2, `<TxsSummry><TtlNtries><NbOfNtries>2</NbOfNtries><TtlNetNtryAmt>3.00</TtlNetNtryAmt><CdtDbtInd>CRDT</CdtDbtInd></TtlNtries></TxsSummry>`+
				ntry("2.00", "CRDT", "")+`<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>PDNG</Sts></Ntry>`),
			check: func(t *testing.T, st *statement.Statement) {
				require.Nil(t, st.Sections[0].Declared)
				require.Empty(t, st.Review)
			},
		},
		{
			name: "an unreadable entry is a problem and the others are kept",
			data: doc(ns053v2, ntry("12x", "CRDT", "")+ntry("1", "SIDEWAYS", "")+ntry("-1", "CRDT", "")+
				`<Ntry><Amt Ccy="EUR">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-02-30</Dt></BookgDt></Ntry>`+
				`<Ntry><Amt Ccy="EUR">1</Amt><CdtDbtInd>CRDT</CdtDbtInd></Ntry>`+ntry("7", "CRDT", "")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Transactions, 1)
				var msgs []string
				for _, p := range st.Problems {
					msgs = append(msgs, p.Message)
				}
				require.Equal(t, []string{
					`Ntry/Amt "12x" is not a number`,
					`Ntry/CdtDbtInd "SIDEWAYS" is neither CRDT nor DBIT`,
					`Ntry/Amt "-1" is not a number`,
					`Ntry/BookgDt "2024-02-30" is not a date`,
					`Ntry has neither BookgDt nor ValDt`,
				}, msgs)
				require.Equal(t, "/Document/BkToCstmrStmt/Stmt[1]/Ntry[4]", st.Problems[3].Pos.Path)
				require.Equal(t, 8, st.Problems[0].Pos.Line)
				require.Equal(t, statement.ReviewUnreadableRows, st.Review[0].Code)
			},
		},
		{
			name: "the servicer's BIC names the bank; a servicer known only by name is not guessed",
			data: strings.Replace(doc(ns053v2, ntry("1", "CRDT", "")), "</Ccy>",
				"</Ccy><Svcr><FinInstnId><BIC>INGBNL2A</BIC><Nm>ING Bank N.V.</Nm></FinInstnId></Svcr>", 1),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "INGBNL2A", st.BankID)
				require.Equal(t, "ING", st.BankName)
			},
		},
		{
			name: "without FrToDt the period runs from the first booking to the closing balance's date",
			data: doc(ns053v2, ntry("1", "CRDT", "")+bal("CLBD", "1", "CRDT")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, "2024-03-05", st.PeriodStart.String())
				require.Equal(t, "2024-03-31", st.PeriodEnd.String())
			},
		},
		{
			name: "Raw is the entry's source text, with its line and path",
			data: doc(ns053v2, "\n"+ntry("1", "CRDT", "<AddtlNtryInf>a &amp; b</AddtlNtryInf>")+"\n"+ntry("2", "CRDT", "")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Equal(t, ntry("1", "CRDT", "<AddtlNtryInf>a &amp; b</AddtlNtryInf>"), st.Transactions[0].Raw)
				require.Equal(t, "a & b", st.Transactions[0].Description)
				require.Equal(t, ntry("2", "CRDT", ""), st.Transactions[1].Raw)
				require.Equal(t, 9, st.Transactions[0].Pos.Line)
				require.Equal(t, 10, st.Transactions[1].Pos.Line)
				require.Equal(t, "/Document/BkToCstmrStmt/Stmt[1]/Ntry[2]", st.Transactions[1].Pos.Path)
			},
		},
		{
			name: "a statement without entries but with a balance problem is still a statement",
			data: doc(ns053v2, bal("CLBD", "1", "CRDT")+strings.Replace(bal("OPBD", "1", "CRDT"), "EUR", "USD", 1)),
			check: func(t *testing.T, st *statement.Statement) {
				require.Len(t, st.Problems, 1)
				require.Equal(t, statement.ReviewBalanceMismatch, st.Problems[0].Code)
				require.Equal(t, "/Document/BkToCstmrStmt/Stmt[1]/Bal[2]", st.Problems[0].Pos.Path)
			},
		},
		{
			name: "a statement without entries is a statement",
			data: doc(ns053v2, bal("OPBD", "1", "CRDT")+bal("CLBD", "1", "CRDT")),
			check: func(t *testing.T, st *statement.Statement) {
				require.Empty(t, st.Transactions)
				require.NotNil(t, st.Transactions)
				require.Len(t, st.Sections, 1)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseFinished(t, []byte(tc.data))
			require.NoError(t, err)
			checkConsistent(t, st)
			tc.check(t, st)
		})
	}
}

func TestEncodings(t *testing.T) {
	t.Parallel()
	latin := func(decl, text string) []byte {
		s := strings.Replace(doc(ns053v2, ntry("1", "CRDT", "<AddtlNtryInf>"+text+"</AddtlNtryInf>")), `encoding="UTF-8"`, `encoding="`+decl+`"`, 1)
		b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
		require.NoError(t, err)
		return b
	}
	utf16 := func(e unicode.Endianness, bom unicode.BOMPolicy) []byte {
		s := strings.Replace(doc(ns053v2, ntry("1", "CRDT", "<AddtlNtryInf>Zürich</AddtlNtryInf>")), `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
		b, err := unicode.UTF16(e, bom).NewEncoder().Bytes([]byte(s))
		require.NoError(t, err)
		return b
	}
	tests := []struct {
		name    string
		data    []byte
		desc    string
		charset string
	}{
		{"UTF-8 with a byte-order mark", append([]byte{0xEF, 0xBB, 0xBF}, doc(ns053v2, ntry("1", "CRDT", "<AddtlNtryInf>Zürich</AddtlNtryInf>"))...), "Zürich", "charset=utf-8;bom"},
		{"declared ISO-8859-1", latin("ISO-8859-1", "Gebühr"), "Gebühr", "charset=iso-8859-1"},
		{"declared windows-1252 with a euro sign", latin("windows-1252", "5 € fee"), "5 € fee", "charset=windows-1252"},
		{"declared ISO-8859-15", latin("iso-8859-15", "Müller"), "Müller", "charset=iso-8859-15"},
		{"Latin bytes declared as UTF-8 are read as Windows-1252", latin("UTF-8", "Müller"), "Müller", "charset=windows-1252(guessed)"},
		{"UTF-16LE with a byte-order mark", utf16(unicode.LittleEndian, unicode.UseBOM), "Zürich", "charset=utf-16le;bom"},
		{"UTF-16BE with a byte-order mark", utf16(unicode.BigEndian, unicode.UseBOM), "Zürich", "charset=utf-16be;bom"},
		{"UTF-16LE without a byte-order mark", utf16(unicode.LittleEndian, unicode.IgnoreBOM), "Zürich", "charset=utf-16le"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := parseFinished(t, tc.data)
			require.NoError(t, err)
			require.Equal(t, tc.desc, st.Transactions[0].Description)
			require.Contains(t, st.Dialect, tc.charset)
			require.Contains(t, st.Transactions[0].Raw, tc.desc, "Raw is text, decoded")
			require.True(t, strings.HasPrefix(st.Transactions[0].Raw, "<Ntry>"))
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	valid := doc(ns053v2, ntry("1", "CRDT", ""))
	tests := []struct {
		name string
		data string
		opts statement.Options
		kind error
		msg  string
	}{
		{"not XML at all", "Date,Amount\n2024-01-01,5\n", statement.Options{}, statement.ErrNotAStatement, "text before the root"},
		{"an empty file", "", statement.Options{}, statement.ErrNotAStatement, "no XML root"},
		{"another XML document", `<OFX><BANKMSGSRSV1/></OFX>`, statement.Options{}, statement.ErrNotAStatement, "root element is <OFX>"},
		{"another ISO 20022 message", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>`, statement.Options{}, statement.ErrNotAStatement, "pain.001"},
		{"a camt namespace around another message", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><GrpHdr/></Document>`, statement.Options{}, statement.ErrCorrupt, "holds <GrpHdr>"},
		{"a message without statements", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr/></BkToCstmrStmt></Document>`, statement.Options{}, statement.ErrNoTransactions, "holds no Stmt"},
		{"a truncated file", valid[:len(valid)/2], statement.Options{}, statement.ErrCorrupt, ""},
		{"crossed tags", strings.Replace(valid, "</Stmt>", "</Acct>", 1), statement.Options{}, statement.ErrCorrupt, "closed by </Acct>"},
		{"a DOCTYPE", `<?xml version="1.0"?><!DOCTYPE Document [<!ENTITY a "b">]>` + valid[strings.Index(valid, "<Document"):], statement.Options{}, statement.ErrCorrupt, "DTD not allowed"},
		{"an undefined entity", strings.Replace(valid, "<Id>S1</Id>", "<Id>&lol;</Id>", 1), statement.Options{}, statement.ErrCorrupt, "entity"},
		{"more entries than MaxRows", doc(ns053v2, strings.Repeat(ntry("1", "CRDT", ""), 3)), statement.Options{MaxRows: 2}, statement.ErrTooManyRows, "more than 2 entries"},
		{"nesting deeper than MaxDepth", doc(ns053v2, strings.Repeat("<a>", 20)+strings.Repeat("</a>", 20)), statement.Options{MaxDepth: 16}, statement.ErrResourceLimit, "deeper than 16"},
		{"only unreadable entries", doc(ns053v2, ntry("x", "CRDT", "")), statement.Options{}, statement.ErrNoTransactions, `"x" is not a number`},
		{"only an entry of unknown status", doc(ns053v2, `<Ntry><Amt Ccy="EUR">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>HELD</Sts></Ntry>`), statement.Options{}, statement.ErrNoTransactions, `"HELD"`},
		{"an unsupported declared charset", strings.Replace(valid, "UTF-8", "x-klingon", 1), statement.Options{}, statement.ErrCorrupt, "x-klingon"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := Parse([]byte(tc.data), tc.opts)
			require.Nil(t, st)
			se := mustKind(t, err, tc.kind)
			require.Contains(t, se.Error(), tc.msg)
		})
	}
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, problem string
	}{
		{"8.850", "8.850", ""},
		{"200000", "200000", ""},
		{"0.12345", "0.12345", ""},
		{"", "", "is missing"},
		{"1,50", "", `"1,50" is not a number`},
		{"-1", "", `"-1" is not a number`},
		{"1e5", "", `"1e5" is not a number`},
		{"1.2.3", "", `"1.2.3" is not a number`},
		{".", "", `"." is not a number`},
		{strings.Repeat("1", 31), "", "has more than 30 digits"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, problem := parseAmount(tc.in)
			if tc.problem != "" {
				require.Contains(t, problem, tc.problem)
				return
			}
			require.Empty(t, problem)
			require.Equal(t, tc.want, got.StringFixed(-got.Exponent()))
		})
	}
}
