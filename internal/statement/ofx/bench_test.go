package ofx

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/statementtest"
)

// benchSize is the size of the generated benchmark files.
const benchSize = 20 << 20

// genOFX generates a bank statement of about size bytes: OFX 2 XML when xmlSyntax, else
// OFX 1.02 SGML with unclosed leaves, both with the same records.
func genOFX(size int, xmlSyntax bool) []byte {
	var b bytes.Buffer
	leaf := func(name, v string) {
		if xmlSyntax {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", name, v, name)
		} else {
			fmt.Fprintf(&b, "<%s>%s\n", name, v)
		}
	}
	if xmlSyntax {
		b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n" +
			`<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>` + "\n")
	} else {
		b.WriteString("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\nCHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n")
	}
	b.WriteString("<OFX>\n<SIGNONMSGSRSV1>\n<SONRS>\n<STATUS>\n")
	leaf("CODE", "0")
	leaf("SEVERITY", "INFO")
	b.WriteString("</STATUS>\n")
	leaf("DTSERVER", "20240131120000.000[-5:EST]")
	leaf("LANGUAGE", "ENG")
	b.WriteString("<FI>\n")
	leaf("ORG", "Example Bank")
	leaf("FID", "1234")
	b.WriteString("</FI>\n</SONRS>\n</SIGNONMSGSRSV1>\n<BANKMSGSRSV1>\n<STMTTRNRS>\n")
	leaf("TRNUID", "1")
	b.WriteString("<STMTRS>\n")
	leaf("CURDEF", "USD")
	b.WriteString("<BANKACCTFROM>\n")
	leaf("BANKID", "121000248")
	leaf("ACCTID", "1234567890")
	leaf("ACCTTYPE", "CHECKING")
	b.WriteString("</BANKACCTFROM>\n<BANKTRANLIST>\n")
	leaf("DTSTART", "20240101")
	leaf("DTEND", "20240131")
	for i := 0; b.Len() < size; i++ {
		b.WriteString("<STMTTRN>\n")
		if i%2 == 0 {
			leaf("TRNTYPE", "DEBIT")
			leaf("DTPOSTED", fmt.Sprintf("202401%02d120000.000[-5:EST]", i%28+1))
			leaf("TRNAMT", fmt.Sprintf("-%d.%02d", i%5000, i%100))
		} else {
			leaf("TRNTYPE", "CREDIT")
			leaf("DTPOSTED", fmt.Sprintf("202401%02d", i%28+1))
			leaf("TRNAMT", fmt.Sprintf("%d.%02d", i%7000, i%97))
		}
		leaf("FITID", fmt.Sprintf("2024010%08d", i))
		leaf("NAME", fmt.Sprintf("MERCHANT %d &amp; SONS", i%977))
		leaf("MEMO", fmt.Sprintf("POS PURCHASE CARD 1234 MERCHANT %d LONDON GB", i%977))
		b.WriteString("</STMTTRN>\n")
	}
	b.WriteString("</BANKTRANLIST>\n<LEDGERBAL>\n")
	leaf("BALAMT", "1000.00")
	leaf("DTASOF", "20240131")
	b.WriteString("</LEDGERBAL>\n</STMTRS>\n</STMTTRNRS>\n</BANKMSGSRSV1>\n</OFX>\n")
	return b.Bytes()
}

var (
	benchOnce           sync.Once
	benchXML, benchSGML []byte
)

func benchFiles() ([]byte, []byte) {
	benchOnce.Do(func() {
		benchXML = genOFX(benchSize, true)
		benchSGML = genOFX(benchSize, false)
	})
	return benchXML, benchSGML
}

// benchTx is the number of transactions Parse reads from data.
func benchTx(data []byte) int {
	st, err := Parse(data, statement.Options{})
	if err != nil {
		panic(err)
	}
	return len(st.Transactions)
}

var benchTxXML = sync.OnceValue(func() int { x, _ := benchFiles(); return benchTx(x) })

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

// BenchmarkOFXvsLimits sets Parse beside the raw limits on the same bytes, a generated OFX 2
// XML statement of about 20 MiB (genOFX), so one run shows them side by side:
//
//   - parse: this package's Parse, from bytes to a Statement (Finish not included).
//   - xml-token-scan: encoding/xml's Decoder.Token loop over the file, reading nothing: the
//     yardstick of an XML reader (BenchmarkEncodingXMLRawToken is the cheaper RawToken loop,
//     BenchmarkScan this package's own tokenizer).
//   - bytes-count: bytes.Count of the newlines, the memory-speed floor nothing can beat.
//
// Each reports MB/s, tx/s and cpu-MB/s; tx/s counts the transactions Parse finds in the file
// for every sub-benchmark, so a limit's tx/s is the rate a parser as fast as it would reach.
// Run it on one core: go test -run '^$' -bench 'OFXvsLimits' -benchmem -cpu 1.
func BenchmarkOFXvsLimits(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		x, _ := benchFiles()
		benchParse(b, x, benchTxXML())
	})
	b.Run("xml-token-scan", func(b *testing.B) {
		x, _ := benchFiles()
		statementtest.Measure(b, x, benchTxXML(), func() error {
			d := xml.NewDecoder(bytes.NewReader(x))
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
		x, _ := benchFiles()
		tx := benchTxXML()
		statementtest.Measure(b, x, tx, func() error {
			if n := statementtest.Lines(x); n < tx {
				return fmt.Errorf("%d lines for %d transactions", n, tx)
			}
			return nil
		})
	})
}

// BenchmarkParseSGML parses the same records as OFX 1.02 SGML with unclosed leaves (about
// 20 MiB); it reports MB/s, tx/s and cpu-MB/s as BenchmarkOFXvsLimits/parse does, to set the
// two syntaxes side by side.
func BenchmarkParseSGML(b *testing.B) {
	_, s := benchFiles()
	benchParse(b, s, benchTx(s))
}

// BenchmarkEncodingXMLRawToken is encoding/xml's cheaper RawToken loop over the same file.
func BenchmarkEncodingXMLRawToken(b *testing.B) {
	x, _ := benchFiles()
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	b.ResetTimer()
	start := statementtest.CPUTime()
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(x))
		for {
			if _, err := d.RawToken(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
	statementtest.ReportCPU(b, start, len(x))
}

// cpuTime returns the CPU time this process has used. The benchmarks report throughput per
// CPU second ("cpu-MB/s") beside the wall-clock MB/s, because on a shared machine the wall

// BenchmarkScan is this package's tokenizer alone over the OFX 2 XML file: the counterpart of
// BenchmarkEncodingXMLRawToken.
func BenchmarkScan(b *testing.B) {
	x, _ := benchFiles()
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	b.ResetTimer()
	start := statementtest.CPUTime()
	for b.Loop() {
		s := scanner{b: x}
		var t token
		n := 0
		for s.next(&t) {
			n++
		}
		if n == 0 {
			b.Fatal("no tokens")
		}
	}
	statementtest.ReportCPU(b, start, len(x))
}
