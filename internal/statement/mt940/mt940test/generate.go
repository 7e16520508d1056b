// Package mt940test generates MT940 files for the benchmarks of the MT940 reader and the peers
// comparison (make bench-peers): the same bytes for both sides.
package mt940test

import (
	"bytes"
	"fmt"
)

// Generate writes MT940 statements of about size bytes in all, as German and Dutch banks
// send them without an envelope: statements of 50 lines each, every :61: statement line with
// a :86: of German GVC subfields (EREF+, SVWZ+, name, IBAN) or of SWIFT slash codes (/EREF/,
// /NAME/, /REMI/), wrapped at 65 characters, and balances that add up. It returns the file and
// the number of transactions in it.
func Generate(size int) ([]byte, int) {
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
