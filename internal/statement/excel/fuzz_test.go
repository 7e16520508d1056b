package excel

import (
	"testing"

	"github.com/statementmatch/service/internal/statement"
)

// fuzzOpts keeps each fuzz input cheap: a mutated size field must not make one run slow.
var fuzzOpts = statement.Options{MaxRows: 10000, MaxDecompressedBytes: 8 << 20}

// FuzzXLSX feeds the parser mutations of generated workbooks: it must not panic, and a
// successful parse must be consistent.
func FuzzXLSX(f *testing.F) {
	f.Add(germanStatement(f))
	f.Add(oneSheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>Amount</t></is></c></row>`+
		`<row r="2"><c r="A2" s="1"><v>45000</v></c><c r="B2"><v>-1.5E-1</v></c></row>`,
		`<mergeCells count="1"><mergeCell ref="A2:A3"/></mergeCells>`).build(f))
	f.Add(rawBook{date1904: true, xfFmts: []int{0, 14}, sst: []string{`<t>Date</t>`, `<r><t>Am</t></r><r><t>ount</t></r>`},
		sheets: []rawSheet{{name: "S", xml: sheetXML(`<row r="1"><c t="s"><v>0</v></c><c t="s"><v>1</v></c></row><row r="2"><c s="1"><v>41639</v></c><c><v>12.5</v></c></row>`)}}}.build(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Parse(data, fuzzOpts)
		if err != nil {
			return
		}
		checkConsistent(t, st)
		statement.Finish(st)
	})
}

// FuzzXLS feeds the parser mutations of the Raiffeisen workbook and of a generated BIFF8
// workbook with every record type the reader knows.
func FuzzXLS(f *testing.F) {
	f.Add(readCorpus(f, raiffeisenXLS))
	f.Add(xlsFile(sampleBIFF()))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Parse(data, fuzzOpts)
		if err != nil {
			return
		}
		checkConsistent(t, st)
		statement.Finish(st)
	})
}
