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
	f.Fuzz(parseConsistent)
}

// FuzzXLS feeds the parser mutations of the Raiffeisen workbook and of a generated BIFF8
// workbook with every record type the reader knows.
func FuzzXLS(f *testing.F) {
	f.Add(readCorpus(f, raiffeisenXLS))
	f.Add(xlsFile(sampleBIFF()))
	f.Fuzz(parseConsistent)
}

// FuzzHTML feeds the reader mutations of HTML table exports: the UK bank export of the corpus
// and small pages with the markup the reader handles (spans, nesting, entities, charsets). It
// must not panic, and a successful parse must be consistent.
func FuzzHTML(f *testing.F) {
	f.Add(readCorpus(f, "testdata/corpus/generated__uk-bank-export.html.xls"))
	f.Add(page(htmlStatement))
	f.Add(page(`<table><tr><td colspan=2>T</td></tr><tr><th>Date<th>Amount<tr><td rowspan=2>02/03/2026<td>1,00<tr><td>&minus;2,00</table>`))
	f.Add(utf16LE(`<?xml version="1.0"?><html><table><tr><td>Date</td><td>Amount</td></tr><tr><td>2026-03-02</td><td>1.00</td></tr></table></html>`))
	f.Add([]byte("<table><tr><td><table><tr><td>01/02/2026</td><td>-1</td></tr></table></td></tr></table>"))
	f.Fuzz(parseConsistent)
}

// FuzzSpreadsheetML feeds the reader mutations of Excel 2003 XML Spreadsheets: the corpus file
// and small documents with indexes, merges and every data type.
func FuzzSpreadsheetML(f *testing.F) {
	f.Add(readCorpus(f, "testdata/corpus/generated__spreadsheetml-2003.xls"))
	f.Add(xmlSpreadsheet(worksheet("S", smlHeader+smlRow("2026-03-02T00:00:00.000", "a &amp; b", "-1.5E1")+
		`<Row ss:Index="4"><Cell ss:MergeDown="1" ss:Index="1"><Data ss:Type="DateTime">2026-03-03T10:00:00</Data></Cell><Cell ss:MergeAcross="1"><Data ss:Type="Boolean">1</Data></Cell></Row>`)))
	f.Fuzz(parseConsistent)
}

// parseConsistent is the body of the package's fuzz targets: the parser must not panic, and a
// successful parse must be consistent and finish.
func parseConsistent(t *testing.T, data []byte) {
	st, err := Parse(data, fuzzOpts)
	if err != nil {
		return
	}
	checkConsistent(t, st)
	statement.Finish(st)
}
