// Package engine reads a bank statement of any supported format: it finds the format from the
// content (magic bytes, XML root and namespace, tags), never from the file name, hands the bytes
// to that format's parser, and completes the result with statement.Finish.
package engine

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/scan"
)

// sniffLen is how much of a file detection looks at.
const sniffLen = 64 << 10

var (
	magicPDF  = []byte("%PDF-")
	magicZIP  = []byte("PK\x03\x04")
	magicOLE2 = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// Detect returns the format of a statement file from its content. A file of no supported format
// gives a *statement.Error of kind statement.ErrNotAStatement that says what the file looks like.
func Detect(data []byte) (statement.Format, error) {
	head := data[:min(len(data), sniffLen)]
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return "", notAStatement("the file is empty")
	case bytes.Contains(head[:min(len(head), 1024)], magicPDF):
		return statement.FormatPDF, nil
	case bytes.HasPrefix(data, magicZIP):
		return detectZIP(data)
	case bytes.HasPrefix(data, magicOLE2):
		// Old Excel, or an encrypted OOXML workbook (also OLE2): the xls parser tells them apart.
		return statement.FormatXLS, nil
	}
	if format, ok := scan.Detect(data); ok {
		return format, nil
	}
	text, ok := sniffText(head)
	if !ok {
		return "", notAStatement(fmt.Sprintf("binary content of no supported kind (it starts with % x)", head[:min(len(head), 8)]))
	}
	return detectText(text)
}

func notAStatement(why string) error {
	return statement.Errorf("", statement.ErrNotAStatement, statement.Position{}, "%s", why)
}

// detectZIP tells an Excel workbook from other ZIP archives by its entries.
func detectZIP(data []byte) (statement.Format, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", statement.Errorf(statement.FormatXLSX, statement.ErrCorrupt, statement.Position{}, "a ZIP archive that cannot be opened: %v", err)
	}
	for _, f := range zr.File {
		if f.Name == "xl/workbook.xml" || f.Name == "xl/workbook.bin" {
			return statement.FormatXLSX, nil
		}
	}
	return "", notAStatement("a ZIP archive that is not an Excel workbook")
}

// sniffText returns the start of the file as UTF-8 text for the text formats, decoding UTF-16 by
// its byte-order mark or NUL pattern; false when the bytes are not text at all.
func sniffText(head []byte) (string, bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		head = head[3:]
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return decodeUTF16(head[2:], false), true
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return decodeUTF16(head[2:], true), true
	case len(head) >= 4 && head[1] == 0 && head[3] == 0 && head[0] != 0:
		return decodeUTF16(head, false), true
	case len(head) >= 4 && head[0] == 0 && head[2] == 0 && head[1] != 0:
		return decodeUTF16(head, true), true
	}
	// Text in any 8-bit charset: few control characters besides whitespace and the SOH/ETX/SUB
	// wrappers some MT940 files carry.
	control := 0
	for _, b := range head {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != 0x01 && b != 0x03 && b != 0x1A && b != 0x0C {
			control++
		}
	}
	if control > len(head)/100 {
		return "", false
	}
	if !utf8.Valid(head) {
		// A Latin charset: map bytes to runes one to one, which keeps ASCII markers intact.
		var b strings.Builder
		for _, c := range head {
			b.WriteRune(rune(c))
		}
		return b.String(), true
	}
	return string(head), true
}

func decodeUTF16(b []byte, bigEndian bool) string {
	units := make([]uint16, len(b)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			units[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return string(utf16.Decode(units))
}

// detectText recognises the text formats by their own markers, most specific first; anything
// else that is text is offered to the CSV parser, which says whether it holds a statement.
func detectText(text string) (statement.Format, error) {
	trimmed := strings.TrimLeft(text, " \t\r\n\x01\x00")
	upper := strings.ToUpper(trimmed[:min(len(trimmed), 4096)])
	switch {
	case strings.HasPrefix(trimmed, "<"):
		return detectXML(trimmed)
	case strings.HasPrefix(upper, "OFXHEADER:") || strings.Contains(upper, "<OFX>"):
		return statement.FormatOFX, nil
	case looksLikeQIF(trimmed):
		return statement.FormatQIF, nil
	case looksLikeBAI2(trimmed):
		return statement.FormatBAI2, nil
	case looksLikeMT94x(trimmed):
		return statement.FormatMT940, nil
	}
	return statement.FormatCSV, nil
}

// looksLikeQIF looks for a QIF header line (!Type:, !Account, !Option:) at the start, after
// any lines of comment: exporters such as HomeBank and bank scripts open with "# ..." or
// "### exported ..." lines, which no QIF record starts with, so they cannot hide a CSV row.
func looksLikeQIF(text string) bool {
	for lines := 0; strings.HasPrefix(text, "#") && lines < 64; lines++ {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return false
		}
		text = strings.TrimLeft(text[nl+1:], " \t\r\n")
	}
	upper := strings.ToUpper(text[:min(len(text), 16)])
	return strings.HasPrefix(upper, "!TYPE:") || strings.HasPrefix(upper, "!ACCOUNT") || strings.HasPrefix(upper, "!OPTION")
}

// looksLikeBAI2 looks for a BAI2 file header record (01) followed by a group header (02),
// on the next line or on the same physical line after the header's '/'.
func looksLikeBAI2(text string) bool {
	if !strings.HasPrefix(text, "01,") {
		return false
	}
	end := strings.IndexByte(text, '/')
	if end < 0 {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(text[end+1:], " \t\r\n"), "02,")
}

// looksLikeMT94x looks for the tags every MT940/MT942 message has: a transaction reference
// (:20:) and an account (:25:), followed by balances or entries.
func looksLikeMT94x(text string) bool {
	if !strings.Contains(text, ":20:") || !strings.Contains(text, ":25:") {
		return false
	}
	for _, tag := range []string{":60F:", ":60M:", ":61:", ":62F:", ":34F:", ":28C:", ":28:"} {
		if strings.Contains(text, tag) {
			return true
		}
	}
	return false
}

// detectXML finds the kind of an XML document from its root element and namespace (CAMT) or
// its OFX processing instruction or root.
func detectXML(text string) (statement.Format, error) {
	if strings.Contains(text[:min(len(text), 4096)], "<?OFX") {
		return statement.FormatOFX, nil
	}
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	depth := 0
	var root xml.Name
	for depth < 3 {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		depth++
		if depth == 1 {
			root = se.Name
			if strings.EqualFold(root.Local, "OFX") {
				return statement.FormatOFX, nil
			}
			if f := camtFormat(root.Space); f != "" && root.Local == "Document" {
				return f, nil
			}
			if root.Local == "Workbook" && root.Space == spreadsheetNS {
				return statement.FormatSpreadsheetML, nil
			}
			if isHTMLElement(root.Local) {
				return statement.FormatHTML, nil
			}
			continue
		}
		switch se.Name.Local {
		case "BkToCstmrAcctRpt":
			return statement.FormatCAMT052, nil
		case "BkToCstmrStmt":
			return statement.FormatCAMT053, nil
		case "BkToCstmrDbtCdtNtfctn":
			return statement.FormatCAMT054, nil
		}
	}
	if root.Local == "" && !looksLikeHTML(text) {
		return "", notAStatement("an XML document without a readable root element")
	}
	if looksLikeHTML(text) && !strings.EqualFold(root.Local, "Workbook") {
		return statement.FormatHTML, nil
	}
	return "", notAStatement(fmt.Sprintf("an XML document of an unsupported kind (root element %q)", root.Local))
}

// spreadsheetNS is the namespace of Excel 2003's XML Spreadsheet (SpreadsheetML 2003).
const spreadsheetNS = "urn:schemas-microsoft-com:office:spreadsheet"

// isHTMLElement reports whether an element that opens a document is one an HTML page opens
// with: a bank's "Excel export" is often a bare <table>, or a <meta> and <style> before it.
func isHTMLElement(local string) bool {
	switch strings.ToLower(local) {
	case "html", "head", "body", "table", "meta", "style", "title":
		return true
	}
	return false
}

// looksLikeHTML reports whether markup that is no known XML kind holds an HTML table early on
// (in the detection head), as the HTML table exports do after a prolog, comments or a <div>.
func looksLikeHTML(text string) bool {
	lower := strings.ToLower(text)
	return strings.Contains(lower, "<table") && (strings.Contains(lower, "<td") || strings.Contains(lower, "<th"))
}

// camtFormat returns the CAMT message of an ISO 20022 namespace such as
// urn:iso:std:iso:20022:tech:xsd:camt.053.001.02.
func camtFormat(ns string) statement.Format {
	switch {
	case strings.Contains(ns, "camt.052."):
		return statement.FormatCAMT052
	case strings.Contains(ns, "camt.053."):
		return statement.FormatCAMT053
	case strings.Contains(ns, "camt.054."):
		return statement.FormatCAMT054
	}
	return ""
}
