package engine

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// sharedCorpus is the project-wide corpus of real statement files (copied from the team's
// shared folder with its SOURCES.md); each folder is a format.
const sharedCorpus = "testdata/statements"

// TestDetectCorpus detects every real file of the corpus as its folder's format, whatever its
// file name says (the corpus has a CSV named .xls and a pipe-delimited .dat).
func TestDetectCorpus(t *testing.T) {
	t.Parallel()
	want := map[string]statement.Format{
		"bai2": statement.FormatBAI2, "camt052": statement.FormatCAMT052, "camt053": statement.FormatCAMT053,
		"camt054": statement.FormatCAMT054, "csv": statement.FormatCSV, "mt940": statement.FormatMT940,
		"mt942": statement.FormatMT940, // the MT940 parser tells MT942 apart
		"ofx":   statement.FormatOFX, "qif": statement.FormatQIF, "xls": statement.FormatXLS,
	}
	dirs, err := os.ReadDir(sharedCorpus)
	require.NoError(t, err)
	seen := 0
	for _, dir := range dirs {
		if !dir.IsDir() {
			continue
		}
		format, ok := want[dir.Name()]
		require.True(t, ok, "no expected format for corpus folder %s", dir.Name())
		files, err := os.ReadDir(filepath.Join(sharedCorpus, dir.Name()))
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(sharedCorpus, dir.Name(), f.Name()))
			require.NoError(t, err)
			got, err := Detect(data)
			require.NoError(t, err, f.Name())
			require.Equal(t, format, got, f.Name())
			seen++
		}
	}
	require.Greater(t, seen, 90)
}

func TestDetect(t *testing.T) {
	t.Parallel()
	utf16le := func(s string) []byte {
		b := []byte{0xFF, 0xFE}
		for _, r := range s {
			b = append(b, byte(r), 0)
		}
		return b
	}
	tests := []struct {
		name    string
		data    []byte
		want    statement.Format
		wantErr string
	}{
		{name: "a PDF by its magic", data: []byte("%PDF-1.7\n..."), want: statement.FormatPDF},
		{name: "an OLE2 file is old Excel", data: append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 100)...), want: statement.FormatXLS},
		{name: "a CAMT.053 by its namespace", data: []byte(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt/></Document>`), want: statement.FormatCAMT053},
		{name: "a CAMT.054 without a namespace by its message element", data: []byte(`<Document><BkToCstmrDbtCdtNtfctn/></Document>`), want: statement.FormatCAMT054},
		{name: "OFX 2 by its processing instruction", data: []byte(`<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="211"?><OFX></OFX>`), want: statement.FormatOFX},
		{name: "OFX 1 by its header", data: []byte("OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>"), want: statement.FormatOFX},
		{name: "QIF by its type line", data: []byte("!Type:Bank\nD01/02/2026\nT-1.00\n^\n"), want: statement.FormatQIF},
		{name: "QIF after lines of comment", data: []byte("# Exported 2026-03-01\n### Current account\r\n\n!Type:Bank\nD01/02/2026\nT-1.00\n^\n"), want: statement.FormatQIF},
		{name: "a CSV with comment lines stays CSV", data: []byte("# export\nDate,Amount\n2026-03-01,1.00\n"), want: statement.FormatCSV},
		{name: "BAI2 by its file and group headers", data: []byte("01,SENDER,RECEIVER,260301,1200,1,,,2/\n02,R,O,1,260301,,USD,2/\n"), want: statement.FormatBAI2},
		{name: "MT940 by its tags", data: []byte(":20:STMT\r\n:25:NL91ABNA0417164300\r\n:28C:1/1\r\n:60F:C260301EUR1,00\r\n"), want: statement.FormatMT940},
		{name: "a UTF-16 CSV is text", data: utf16le("Date,Amount\n2026-03-01,1.00\n"), want: statement.FormatCSV},
		{name: "a Windows-1252 CSV is text", data: []byte("Datum;Betrag;Verwendungszweck\n01.03.2026;1,00;M\xfcller\n"), want: statement.FormatCSV},
		{name: "an empty file is not a statement", data: []byte("  \n"), wantErr: "the file is empty"},
		{name: "binary noise is not a statement", data: []byte{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x00, 0x10}, wantErr: "binary content"},
		{name: "a ZIP that is not a workbook is not a statement", data: zipWith(t, "word/document.xml"), wantErr: "not an Excel workbook"},
		{name: "a workbook ZIP is XLSX", data: zipWith(t, "xl/workbook.xml"), want: statement.FormatXLSX},
		{name: "an HTML page is HTML, whatever its name says", data: []byte("<html><head><title>Statement</title></head><body><table><tr><td>Date</td></tr></table></body></html>"), want: statement.FormatHTML},
		{name: "an Excel HTML export with office namespaces", data: []byte(`<html xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:x="urn:schemas-microsoft-com:office:excel"><body><table><tr><td>x</td></tr></table>`), want: statement.FormatHTML},
		{name: "a bare table with an XML prolog", data: []byte("<?xml version=\"1.0\" encoding=\"windows-1252\"?>\r\n<table border=1><tr><th>Datum</th><th>Betrag</th></tr><tr><td>01.03.2026</td><td>1,00</td></tr></table>"), want: statement.FormatHTML},
		{name: "a doctype, a comment and a div before the table", data: []byte("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\">\n<!-- generated --><div class=x><TABLE><TR><TD>Date</TD></TR></TABLE></div>"), want: statement.FormatHTML},
		{name: "an HTML export in UTF-16 with its byte-order mark", data: utf16le("<html><body><table><tr><td>Date</td></tr></table></body></html>"), want: statement.FormatHTML},
		{name: "an HTML export in Windows-1252", data: []byte("<html><meta charset=windows-1252><table><tr><td>Caf\xe9</td></tr></table></html>"), want: statement.FormatHTML},
		{name: "an XML Spreadsheet 2003 by its namespace", data: []byte(`<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="S"><Table><Row><Cell><Data ss:Type="String">Date</Data></Cell></Row></Table></Worksheet></Workbook>`), want: statement.FormatSpreadsheetML},
		{name: "other XML is not a statement and names its root", data: []byte(`<?xml version="1.0"?><rss version="2.0"><channel/></rss>`), wantErr: `root element "rss"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Detect(tt.data)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, statement.ErrNotAStatement)
				require.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func zipWith(t *testing.T, name string) []byte {
	t.Helper()
	var b strings.Builder
	w := zip.NewWriter(&b)
	f, err := w.Create(name)
	require.NoError(t, err)
	_, _ = f.Write([]byte("<x/>"))
	require.NoError(t, w.Close())
	return []byte(b.String())
}
