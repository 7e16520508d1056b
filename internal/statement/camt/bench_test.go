package camt

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
	"github.com/stretchr/testify/require"
)

// benchDoc is a generated camt.053.001.08 of about 20 MB: one statement with balances, a
// TxsSummry and many entries shaped like real SEPA bookings (references, parties, remittance).
var benchDoc = sync.OnceValue(func() []byte { return generate(20 << 20) })

// generate writes a camt.053 document of at least size bytes.
func generate(size int) []byte {
	var entries bytes.Buffer
	n, cents := 0, 100000 // the opening balance, 1000.00
	for entries.Len() < size {
		n++
		cdi, party, acct := "CRDT", "Dbtr", "DbtrAcct"
		amount := (n%5000)*100 + n%100
		cents += amount
		if n%3 == 0 {
			cdi, party, acct = "DBIT", "Cdtr", "CdtrAcct"
			cents -= 2 * amount
		}
		fmt.Fprintf(&entries, `      <Ntry>
        <NtryRef>%[1]d</NtryRef>
        <Amt Ccy="EUR">%[2]d.%02[3]d</Amt>
        <CdtDbtInd>%[4]s</CdtDbtInd>
        <RvslInd>false</RvslInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>2024-03-%02[5]d</Dt></BookgDt>
        <ValDt><Dt>2024-03-%02[5]d</Dt></ValDt>
        <AcctSvcrRef>2024031500%08[1]d</AcctSvcrRef>
        <BkTxCd>
          <Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn>
          <Prtry><Cd>NTRF+166+00931</Cd><Issr>DK</Issr></Prtry>
        </BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs>
              <MsgId>MSG-%[1]d</MsgId>
              <AcctSvcrRef>2024031500%08[1]d</AcctSvcrRef>
              <EndToEndId>E2E-INVOICE-%[1]d</EndToEndId>
              <TxId>TX%[1]d</TxId>
            </Refs>
            <Amt Ccy="EUR">%[2]d.%02[3]d</Amt>
            <CdtDbtInd>%[4]s</CdtDbtInd>
            <RltdPties>
              <%[6]s><Pty><Nm>Counterparty Company %[1]d GmbH</Nm>
                <PstlAdr><StrtNm>Musterstrasse</StrtNm><BldgNb>%[1]d</BldgNb><PstCd>10115</PstCd><TwnNm>Berlin</TwnNm><Ctry>DE</Ctry></PstlAdr>
              </Pty></%[6]s>
              <%[7]s><Id><IBAN>DE89370400440532013%03[8]d</IBAN></Id></%[7]s>
            </RltdPties>
            <RltdAgts><DbtrAgt><FinInstnId><BICFI>COBADEFFXXX</BICFI></FinInstnId></DbtrAgt></RltdAgts>
            <RmtInf>
              <Ustrd>Invoice %[1]d of 2024-03-%02[5]d, customer number 4711, thank you</Ustrd>
            </RmtInf>
          </TxDtls>
        </NtryDtls>
        <AddtlNtryInf>SEPA Credit Transfer</AddtlNtryInf>
      </Ntry>
`, n, n%5000, n%100, cdi, 1+n%28, party, acct, n%1000)
	}
	var doc bytes.Buffer
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2024-03-31T18:00:00+01:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>BENCH-1</Id>
      <CreDtTm>2024-03-31T18:00:00+01:00</CreDtTm>
      <FrToDt><FrDtTm>2024-03-01T00:00:00+01:00</FrDtTm><ToDtTm>2024-03-31T23:59:59+01:00</ToDtTm></FrToDt>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy>
        <Svcr><FinInstnId><BICFI>COBADEFFXXX</BICFI></FinInstnId></Svcr></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-03-01</Dt></Dt></Bal>
`)
	sign := "CRDT"
	if cents < 0 {
		sign, cents = "DBIT", -cents
	}
	fmt.Fprintf(&doc, `      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">%d.%02d</Amt><CdtDbtInd>%s</CdtDbtInd><Dt><Dt>2024-03-31</Dt></Dt></Bal>
`, cents/100, cents%100, sign)
	fmt.Fprintf(&doc, "      <TxsSummry><TtlNtries><NbOfNtries>%d</NbOfNtries></TtlNtries></TxsSummry>\n", n)
	doc.Write(entries.Bytes())
	doc.WriteString("    </Stmt>\n  </BkToCstmrStmt>\n</Document>\n")
	return doc.Bytes()
}

// camtBench is the number of transactions Parse reads from benchDoc.
var camtBench = sync.OnceValue(func() int {
	st, err := Parse(benchDoc(), statement.Options{})
	if err != nil {
		panic(err)
	}
	return len(st.Transactions)
})

// BenchmarkCAMTvsLimits sets Parse beside the raw limits on the same bytes, benchDoc (a
// generated camt.053.001.08 of about 20 MiB), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - xml-token-scan: a loop over encoding/xml's Decoder.Token doing nothing: the yardstick.
//     The target is that parse stays within 2x of its time, that is at least half its MB/s.
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the entries Parse finds in the document
// for every sub-benchmark, so a limit's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'CAMTvsLimits' -benchmem -cpu 1.
func BenchmarkCAMTvsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		data, tx := benchDoc(), camtBench()
		statementtest.Measure(b, data, tx, func() error {
			st, err := Parse(data, statement.Options{})
			if err == nil && (len(st.Transactions) != tx || st.Sections[0].Count != tx) {
				err = fmt.Errorf("%d transactions, want %d", len(st.Transactions), tx)
			}
			return err
		})
	})
	b.Run("xml-token-scan", func(b *testing.B) {
		data, tx := benchDoc(), camtBench()
		statementtest.Measure(b, data, tx, func() error {
			d := xml.NewDecoder(bytes.NewReader(data))
			for {
				if _, err := d.Token(); err != nil {
					if err == io.EOF {
						return nil
					}
					return err
				}
			}
		})
	})
	b.Run("bytes-count", func(b *testing.B) {
		data, tx := benchDoc(), camtBench()
		statementtest.Measure(b, data, tx, func() error {
			if n := statementtest.Lines(data); n < tx {
				return fmt.Errorf("%d lines for %d entries", n, tx)
			}
			return nil
		})
	})
}

func TestGeneratedDocument(t *testing.T) {
	t.Parallel()
	data := generate(200 << 10)
	st, err := parseFinished(t, data)
	require.NoError(t, err)
	require.Empty(t, st.Review, "the generated statement is consistent")
	require.NotNil(t, st.ClosingBalance)
	require.NotNil(t, st.Sections[0].Declared)
	require.NotEmpty(t, st.Transactions)
	checkConsistent(t, st)
	first := st.Transactions[0]
	require.Equal(t, "E2E-INVOICE-1", first.Reference)
	require.Equal(t, "Counterparty Company 1 GmbH", first.CounterpartyName)
	require.Equal(t, "DE89370400440532013001", first.CounterpartyAccount)
	require.Equal(t, "SEPA Credit Transfer Invoice 1 of 2024-03-02, customer number 4711, thank you", first.Description)
	require.Equal(t, "Commerzbank", st.BankName)
}
