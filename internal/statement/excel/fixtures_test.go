package excel

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// Fixtures are built in the tests: with excelize, as a real writer would, or as hand-written
// SpreadsheetML where we need what excelize does not write (cached formula results, inline
// strings, namespace prefixes, phonetic runs).

// xlsxFile builds a workbook with excelize: build adds the content.
func xlsxFile(t testing.TB, build func(f *excelize.File)) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	build(f)
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf))
	return buf.Bytes()
}

// must fails the test on an excelize error.
func must(t testing.TB, err error) {
	t.Helper()
	require.NoError(t, err)
}

// setRows writes rows of values starting at row 1 of sheet; an excelize.Cell value is written
// with its style.
func setRows(t testing.TB, f *excelize.File, sheet string, rows [][]any) {
	t.Helper()
	for i, r := range rows {
		for j, v := range r {
			if v == nil {
				continue
			}
			cell, err := excelize.CoordinatesToCellName(j+1, i+1)
			must(t, err)
			if c, ok := v.(excelize.Cell); ok {
				must(t, f.SetCellValue(sheet, cell, c.Value))
				must(t, f.SetCellStyle(sheet, cell, cell, c.StyleID))
				continue
			}
			must(t, f.SetCellValue(sheet, cell, v))
		}
	}
}

// style returns a style id with a built-in number format id or a custom format code.
func style(t testing.TB, f *excelize.File, numFmt int, custom string) int {
	t.Helper()
	s := &excelize.Style{NumFmt: numFmt}
	if custom != "" {
		s.CustomNumFmt = &custom
	}
	id, err := f.NewStyle(s)
	must(t, err)
	return id
}

// rawSheet is one worksheet of a hand-written workbook.
type rawSheet struct {
	name  string
	state string // "", "hidden"
	xml   string // the whole worksheet part; see sheetXML
}

// sheetXML wraps sheetData content (and what follows it, such as mergeCells) in a worksheet.
func sheetXML(sheetData string, after ...string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
		`<sheetData>` + sheetData + `</sheetData>` + strings.Join(after, "") + `</worksheet>`
}

// rawBook is a hand-written workbook package.
type rawBook struct {
	sheets   []rawSheet
	sst      []string // <si> inner XML
	numFmts  map[int]string
	xfFmts   []int // cellXfs numFmtId by index; index 0 should be 0 (General)
	date1904 bool
	extra    map[string]string // more parts, by name
	override map[string]string // parts written instead of the generated ones
}

// withPart returns the book with a part's content replaced.
func (b rawBook) withPart(name, content string) rawBook {
	o := map[string]string{name: content}
	for k, v := range b.override {
		o[k] = v
	}
	b.override = o
	return b
}

func (b rawBook) build(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name, content string) {
		if o, ok := b.override[name]; ok {
			content = o
		}
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	put("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`)
	put("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	var sheets, rels strings.Builder
	for i, s := range b.sheets {
		state := ""
		if s.state != "" {
			state = fmt.Sprintf(` state="%s"`, s.state)
		}
		fmt.Fprintf(&sheets, `<sheet name="%s" sheetId="%d"%s r:id="rId%d"/>`, s.name, i+1, state, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, i+1)
		put(fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), s.xml)
	}
	n := len(b.sheets)
	fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>`, n+1)
	fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="/xl/sharedStrings.xml"/>`, n+2)
	pr := ""
	if b.date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	put("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`+pr+`<sheets>`+sheets.String()+`</sheets></workbook>`)
	put("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+rels.String()+`</Relationships>`)
	var styles strings.Builder
	styles.WriteString(`<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	if len(b.numFmts) > 0 {
		styles.WriteString(`<numFmts>`)
		for id, code := range b.numFmts {
			fmt.Fprintf(&styles, `<numFmt numFmtId="%d" formatCode="%s"/>`, id, code)
		}
		styles.WriteString(`</numFmts>`)
	}
	// cellStyleXfs comes first in real files and must not be mistaken for cellXfs.
	styles.WriteString(`<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs><cellXfs>`)
	xfs := b.xfFmts
	if len(xfs) == 0 {
		xfs = []int{0}
	}
	for _, id := range xfs {
		fmt.Fprintf(&styles, `<xf numFmtId="%d" fontId="0" applyNumberFormat="1"/>`, id)
	}
	styles.WriteString(`</cellXfs></styleSheet>`)
	put("xl/styles.xml", styles.String())
	var sst strings.Builder
	sst.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	for _, si := range b.sst {
		sst.WriteString(`<si>` + si + `</si>`)
	}
	sst.WriteString(`</sst>`)
	put("xl/sharedStrings.xml", sst.String())
	for name, content := range b.extra {
		put(name, content)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// oneSheet is a hand-written workbook of one sheet.
func oneSheet(sheetData string, after ...string) rawBook {
	return rawBook{sheets: []rawSheet{{name: "Sheet1", xml: sheetXML(sheetData, after...)}}}
}
