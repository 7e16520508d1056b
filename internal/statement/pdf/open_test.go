package pdf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// The fixtures in testdata/open are small statements made by real producers, so that the
// reader meets their structure, not only the raw writer's:
//
//	pdftex.pdf          pdfTeX 1.40 (pdflatex, a tabular; Helvetica not embedded): object
//	                    streams and a cross-reference stream
//	chrome.pdf          Chromium 156 headless --print-to-pdf of an HTML table (Skia/PDF)
//	libreoffice.pdf     LibreOffice 7.4 soffice --headless --convert-to pdf of the same HTML
//	ghostscript.pdf     groff -t -ms -Tps, then Ghostscript 10 pdfwrite -dEmbedAllFonts=false
//	qpdf-linearized.pdf qpdf --linearize --object-streams=disable pdftex.pdf
//	qpdf-rc4-40.pdf     qpdf --allow-weak-crypto --encrypt "" owner 40 -- pdftex.pdf
//	qpdf-rc4-128.pdf    qpdf --allow-weak-crypto --encrypt "" owner 128 -- pdftex.pdf
//	qpdf-aes-128.pdf    qpdf --encrypt "" owner 128 --use-aes=y -- pdftex.pdf
//	qpdf-aes-256.pdf    qpdf --encrypt "" owner 256 -- pdftex.pdf
//	qpdf-aes-256-user.pdf      qpdf --encrypt secret owner 256 -- pdftex.pdf
//	qpdf-rc4-128-classic.pdf   qpdf --allow-weak-crypto --object-streams=disable
//	                           --encrypt "" owner 128 -- pdftex.pdf
//
// The encrypted ones have an empty user password except qpdf-aes-256-user.pdf. Each shows the
// table of tableContent; the damaged shapes are made from them by the functions below.

// fixture reads testdata/open/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "open", name))
	require.NoError(t, err)
	return data
}

// tableObjects are the objects of onePage showing tableContent: catalog, page tree, page,
// font, content stream.
func tableObjects() []string {
	content := tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) })
	return []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		streamObj("", []byte(content)),
	}
}

// requireTableText checks that the extraction holds the rows of tableContent.
func requireTableText(t *testing.T, ex *extraction) {
	t.Helper()
	var all []string
	for _, pg := range allLines(ex.pages) {
		for _, l := range pg {
			all = append(all, l.text())
		}
	}
	text := strings.Join(all, "\n")
	for _, w := range []string{"Date", "Coffee shop", "1,596.50"} {
		require.Contains(t, text, w)
	}
}

// lastStartxref returns the value of the last startxref and where its digits are.
func lastStartxref(t testing.TB, d []byte) (v, from, to int) {
	t.Helper()
	i := bytes.LastIndex(d, []byte("startxref"))
	require.GreaterOrEqual(t, i, 0)
	from = skipSpace(d, i+len("startxref"))
	to = from
	for to < len(d) && d[to] >= '0' && d[to] <= '9' {
		to++
	}
	v, err := strconv.Atoi(string(d[from:to]))
	require.NoError(t, err)
	return v, from, to
}

// withStartxref points the last startxref to v.
func withStartxref(t testing.TB, d []byte, v int) []byte {
	_, from, to := lastStartxref(t, d)
	return slicesConcat(d[:from], []byte(strconv.Itoa(v)), d[to:])
}

func slicesConcat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}

var xrefEntry = regexp.MustCompile(`(?m)^(\d{10}) (\d{5}) n`)

// shiftOffsets adds n to every in-use entry of the last classic xref table, as a tool that
// rewrote the header or line ends without fixing the table leaves it.
func shiftOffsets(t testing.TB, d []byte, n int) []byte {
	sx, _, _ := lastStartxref(t, d)
	require.True(t, bytes.HasPrefix(d[sx:], []byte("xref")))
	tail := xrefEntry.ReplaceAllFunc(bytes.Clone(d[sx:]), func(m []byte) []byte {
		v, _ := strconv.Atoi(string(m[:10]))
		return fmt.Appendf(nil, "%010d %s n", v+n, m[11:16])
	})
	return slicesConcat(d[:sx], tail)
}

// halfXref drops the second half of the last xref table's lines, keeping its trailer: the
// subsection claims more entries than it lists.
func halfXref(t testing.TB, d []byte) []byte {
	sx, _, _ := lastStartxref(t, d)
	tr := sx + bytes.Index(d[sx:], []byte("trailer"))
	lines := bytes.Split(d[sx:tr], []byte("\n"))
	return slicesConcat(d[:sx], bytes.Join(lines[:len(lines)/2], []byte("\n")), []byte("\n"), d[tr:])
}

// replaceAll replaces every match of re in d.
func replaceAll(d []byte, re, with string) []byte {
	return regexp.MustCompile(re).ReplaceAll(bytes.Clone(d), []byte(with))
}

// withoutEOF drops the last %%EOF marker and what follows.
func withoutEOF(d []byte) []byte {
	return bytes.Clone(d[:bytes.LastIndex(d, []byte("%%EOF"))])
}

// insertInBody inserts a line in the middle of the body: every later offset is wrong.
func insertInBody(t testing.TB, d []byte) []byte {
	sx, _, _ := lastStartxref(t, d)
	mid := bytes.Index(d[sx/2:], []byte("\n")) + sx/2 + 1
	return slicesConcat(d[:mid], []byte("% a line added by a mail gateway\n"), d[mid:])
}

// cutAt keeps the file up to the last startxref's target, minus keep bytes less: a download
// that stopped in the cross-reference section (keep = -n keeps n bytes of it).
func cutAt(t testing.TB, d []byte, keep int) []byte {
	sx, _, _ := lastStartxref(t, d)
	return bytes.Clone(d[:sx+keep])
}

// appendObject appends object num with body after the file d, as an incremental update
// starts, and returns the file, the object's offset, the file's last startxref and its /Root.
func appendObject(t testing.TB, d []byte, num int, body string) (out []byte, off, sx int, root []byte) {
	sx, _, _ = lastStartxref(t, d)
	root = regexp.MustCompile(`/Root\s*\d+\s+\d+\s+R`).Find(d)
	require.NotNil(t, root)
	out = bytes.Clone(d)
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	off = len(out)
	return fmt.Appendf(out, "%d 0 obj\n%s\nendobj\n", num, body), off, sx, root
}

// appendUpdate appends an incremental update (Acrobat, iText stamping) that defines object
// num anew, with a classic xref section whose /Prev is the file's last startxref.
func appendUpdate(t testing.TB, d []byte, num int, body string) []byte {
	out, off, sx, root := appendObject(t, d, num, body)
	xref := len(out)
	return fmt.Appendf(out, "xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d %s /Prev %d >>\nstartxref\n%d\n%%%%EOF\n",
		num, off, num+1, root, sx, xref)
}

// appendUpdateStream appends an incremental update as Acrobat writes it to a PDF 1.5 file:
// object num anew and an uncompressed xref stream (object num+1) whose /Prev is the file's
// last startxref.
func appendUpdateStream(t testing.TB, d []byte, num int, body string) []byte {
	out, off, sx, root := appendObject(t, d, num, body)
	xref := len(out)
	rows := []byte{1, byte(off >> 24), byte(off >> 16), byte(off >> 8), byte(off), 0, 0,
		1, byte(xref >> 24), byte(xref >> 16), byte(xref >> 8), byte(xref), 0, 0}
	out = fmt.Appendf(out, "%d 0 obj\n<< /Type /XRef /Size %d /Index [%d 2] /W [1 4 2] %s /Prev %d /Length %d >>\nstream\n",
		num+1, num+2, num, root, sx, len(rows))
	out = append(out, rows...)
	return fmt.Appendf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xref)
}

// hybrid turns a file of pdftest.Compressed into a hybrid-reference file, as Word 2007 and
// later save PDF 1.5: a classic xref table lists the objects stored directly and marks the
// compressed ones out, and its trailer's /XRefStm points to the xref stream that lists them.
func hybrid(t testing.TB, d []byte) []byte {
	xrefStm, _, _ := lastStartxref(t, d)
	offsets := map[int]int{}
	for _, m := range regexp.MustCompile(`(?m)^(\d+) 0 obj`).FindAllSubmatchIndex(d, -1) {
		n, _ := strconv.Atoi(string(d[m[2]:m[3]]))
		offsets[n] = m[0]
	}
	size := 0
	for n := range offsets {
		size = max(size, n+1)
	}
	out := bytes.Clone(d[:bytes.LastIndex(d, []byte("startxref"))])
	xref := len(out)
	out = fmt.Appendf(out, "xref\n0 1\n0000000000 65535 f \n")
	for n := 1; n < size; n++ {
		if off, ok := offsets[n]; ok {
			out = fmt.Appendf(out, "%d 1\n%010d 00000 n \n", n, off)
		}
	}
	return fmt.Appendf(out, "trailer\n<< /Size %d /Root 1 0 R /XRefStm %d >>\nstartxref\n%d\n%%%%EOF\n", size, xrefStm, xref)
}

// TestOpenWhatViewersOpen reproduces the shapes of files that poppler and pdfium open, each
// from a real producer's habit or a damage seen on real files, named in the case.
func TestOpenWhatViewersOpen(t *testing.T) {
	t.Parallel()
	raw := onePage(tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) }))
	compressed := pdftest.Compressed(tableObjects()...)
	pdftex := fixture(t, "pdftex.pdf")
	linearized := fixture(t, "qpdf-linearized.pdf")
	rc4 := fixture(t, "qpdf-rc4-128-classic.pdf")
	changed := strings.Replace(tableObjects()[4], "Salary", "Salarz", 1)

	tests := []struct {
		name     string
		data     []byte
		repaired bool   // mended: by pdfcpu, or through a rebuilt cross-reference table
		also     string // more text that must be there
	}{
		// Producers, as they write.
		{name: "pdfTeX's object streams and xref stream are read", data: pdftex},
		{name: "Chromium's print to PDF is read", data: fixture(t, "chrome.pdf")},
		{name: "LibreOffice's export is read", data: fixture(t, "libreoffice.pdf")},
		{name: "Ghostscript's pdfwrite is read", data: fixture(t, "ghostscript.pdf")},
		{name: "a file linearized by qpdf is read", data: linearized},
		// Word, Acrobat and iText write PDF 1.5 with the catalog, page tree, pages and fonts
		// in object streams: pdfcpu leaves these objects unparsed until dereferenced.
		{name: "objects stored in an object stream are read", data: compressed},
		{name: "Word's hybrid-reference file is read through its /XRefStm", data: hybrid(t, compressed)},

		// Owner-password encryption: viewers open these without asking.
		{name: "RC4 40-bit encryption with an empty user password opens", data: fixture(t, "qpdf-rc4-40.pdf")},
		{name: "RC4 128-bit encryption with an empty user password opens", data: fixture(t, "qpdf-rc4-128.pdf")},
		{name: "AES-128 encryption with an empty user password opens", data: fixture(t, "qpdf-aes-128.pdf")},
		{name: "AES-256 encryption with an empty user password opens", data: fixture(t, "qpdf-aes-256.pdf")},

		// Incremental updates (Acrobat, iText stamping, signing).
		{name: "an incremental update after a linearized first part is followed",
			data: appendUpdate(t, linearized, 900, "<< /Producer (Acrobat) /Title (Updated) >>")},
		{name: "an incremental update that replaces the content stream wins over the old one",
			data: appendUpdate(t, raw, 5, changed), also: "Salarz"},
		{name: "an incremental update after object streams is followed",
			data: appendUpdate(t, pdftex, 900, "<< /Producer (iText) >>")},
		{name: "an update with an xref stream after a linearized first part is followed",
			data: appendUpdateStream(t, linearized, 900, "<< /Producer (Acrobat) >>")},
		{name: "an update with an xref stream after object streams is followed",
			data: appendUpdateStream(t, pdftex, 900, "<< /Producer (Acrobat) >>")},
		{name: "an update with an xref stream that replaces the content stream wins",
			data: appendUpdateStream(t, raw, 5, changed), also: "Salarz"},

		// Damaged cross-reference tables.
		{name: "xref offsets 7 bytes too far are mended", data: shiftOffsets(t, raw, 7), repaired: true},
		{name: "xref offsets 3 bytes too short are mended", data: shiftOffsets(t, raw, -3)},
		{name: "an xref table with half its entries missing is mended", data: halfXref(t, raw), repaired: true},
		{name: "a line added to the body is mended", data: insertInBody(t, raw), repaired: true},
		{name: "a content stream whose /Length misses endstream is read to endstream",
			data: replaceAll(raw, `/Length \d+`, "/Length 40"), repaired: true},
		{name: "startxref pointing into the middle of the file is mended", data: withStartxref(t, raw, 300), repaired: true},
		{name: "startxref 0 is mended", data: withStartxref(t, raw, 0), repaired: true},
		{name: "a trailer /Root naming a missing object finds the catalog", data: replaceAll(raw, `/Root 1 0 R`, "/Root 99 0 R"), repaired: true},
		{name: "a trailer without /Root finds the catalog", data: replaceAll(raw, `/Root 1 0 R`, ""), repaired: true},
		{name: "a /Size too small is ignored", data: replaceAll(raw, `/Size \d+`, "/Size 3")},
		{name: "a /Size too large is ignored", data: replaceAll(raw, `/Size \d+`, "/Size 90000")},
		{name: "a mail header before %PDF is skipped", data: slicesConcat([]byte("Content-Type: application/pdf\r\n\r\n"), raw)},
		{name: "junk after %%EOF is ignored", data: slicesConcat(raw, []byte("\r\n<html>footer</html>\r\n"))},
		{name: "a missing %%EOF is forgiven", data: withoutEOF(raw), repaired: true},
		{name: "a file cut inside its xref table is rebuilt from its objects", data: cutAt(t, raw, 40), repaired: true},
		{name: "a file cut before its xref table is rebuilt from its objects", data: cutAt(t, raw, 0), repaired: true},

		// Damaged cross-reference streams: the catalog is found inside an object stream.
		{name: "an xref stream cut off is rebuilt from the object stream", data: cutAt(t, compressed, 0), repaired: true},
		{name: "startxref missing the xref stream is rebuilt", data: withStartxref(t, compressed, 77), repaired: true},
		{name: "pdfTeX's file cut before its xref stream is rebuilt", data: cutAt(t, pdftex, 0), repaired: true},
		{name: "pdfTeX's file with a line added to the body is rebuilt", data: insertInBody(t, pdftex), repaired: true},

		// Damaged and encrypted: the rebuilt table keeps /Encrypt and /ID from the trailer.
		{name: "an RC4 file without %%EOF is decrypted", data: withoutEOF(rc4), repaired: true},
		{name: "an RC4 file with startxref 0 is decrypted", data: withStartxref(t, rc4, 0), repaired: true},
		{name: "an RC4 file with shifted xref offsets is decrypted", data: shiftOffsets(t, rc4, 7), repaired: true},
		// Here the objects are in encrypted object streams, which a scan cannot list.
		{name: "an AES-256 file with object streams and without %%EOF is decrypted",
			data: withoutEOF(fixture(t, "qpdf-aes-256.pdf")), repaired: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ex, err := extract(tc.data, statement.Options{}.WithDefaults(), maxHeldLines)
			require.NoError(t, err)
			requireTableText(t, ex)
			if tc.also != "" {
				require.Contains(t, fmt.Sprint(allLines(ex.pages)), tc.also)
			}
			require.Equal(t, tc.repaired, strings.Contains(ex.dialect(), ";repaired"), ex.dialect())
		})
	}
}

func TestOpenFailuresSayWhy(t *testing.T) {
	t.Parallel()
	raw := onePage(tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) }))
	tests := []struct {
		name string
		data []byte
		want error
		says string
	}{
		{name: "a user password is asked for", data: fixture(t, "qpdf-aes-256-user.pdf"),
			want: statement.ErrPasswordRequired, says: "`password` field"},
		{name: "a damaged file with a user password still asks for it",
			data: withoutEOF(fixture(t, "qpdf-aes-256-user.pdf")), want: statement.ErrPasswordRequired, says: "`password` field"},
		{name: "a file without any catalog is damaged",
			data: replaceAll(replaceAll(raw, `/Type /Catalog`, "/Type /Katalog"), `/Root 1 0 R`, "/Root 99 0 R"),
			want: statement.ErrCorrupt, says: "catalog"},
		{name: "a file cut before its page tree is damaged", data: raw[:bytes.Index(raw, []byte("2 0 obj"))],
			want: statement.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := extract(tc.data, statement.Options{}.WithDefaults(), maxHeldLines)
			require.ErrorIs(t, err, tc.want)
			require.Contains(t, err.Error(), tc.says)
		})
	}
}
