package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// hostileKinds are the failures a damaged or hostile PDF may end in.
var hostileKinds = []error{statement.ErrCorrupt, statement.ErrResourceLimit, statement.ErrNoTextLayer,
	statement.ErrEncrypted, statement.ErrPasswordRequired, statement.ErrNotAStatement, statement.ErrNoTransactions,
	statement.ErrTooManyRows}

// requireContained checks that a parse of hostile input ended in a success or a failure of a
// kind from hostileKinds: never a panic (Parse would report ErrInternal) and never a bare error.
func requireContained(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var se *statement.Error
	require.True(t, errors.As(err, &se), "error %v is not a *statement.Error", err)
	for _, k := range hostileKinds {
		if errors.Is(err, k) {
			return
		}
	}
	t.Fatalf("unexpected error kind: %v", err)
}

func TestHostileStructures(t *testing.T) {
	t.Parallel()
	page := "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	text := []byte("BT /F1 10 Tf 50 700 Td (Date) Tj 100 0 Td (Amount) Tj ET")
	lying := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font,
		fmt.Sprintf("<< /Length 99999999 >>\nstream\n%s\nendstream", text))
	lyingIndirect := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font,
		fmt.Sprintf("<< /Length 6 0 R >>\nstream\n%s\nendstream", text), "88888888")
	manyLying := func() []byte {
		objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font,
			streamObj("", text)}
		for range 2000 {
			objs = append(objs, "<< /Length 900000 >>\nstream\nx\nendstream")
		}
		return rawPDF(objs...)
	}()
	outside := bytes.Replace(onePage(string(text)), []byte("0000000009 00000 n"), []byte("0999999999 00000 n"), 1)
	brokenXref := func() []byte {
		d := onePage(string(text))
		i := bytes.Index(d, []byte("xref\n"))
		copy(d[i+5:], "garbage garbage garbage")
		return d
	}()
	noXref := func() []byte {
		d := onePage(string(text))
		return d[:bytes.Index(d, []byte("xref\n"))]
	}()
	hugeXref := bytes.Replace(onePage(string(text)), []byte("xref\n0 6\n"), []byte("xref\n0 100000000\n"), 1)
	xrefStream := func() []byte {
		// An xref stream claiming two billion entries.
		body := onePage(string(text))
		i := bytes.Index(body, []byte("xref\n"))
		xs := fmt.Sprintf("6 0 obj\n<< /Type /XRef /Size 2147483647 /Index [0 2147483647] /W [1 4 2] /Root 1 0 R /Length %d /Filter /FlateDecode >>\nstream\n", len(pdftest.Deflate(make([]byte, 70))))
		out := append([]byte(nil), body[:i]...)
		start := len(out)
		out = append(out, xs...)
		out = append(out, pdftest.Deflate(make([]byte, 70))...)
		out = append(out, fmt.Sprintf("\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)...)
		return out
	}()
	nested := func(depth int) string {
		return strings.Repeat("[", depth) + strings.Repeat("]", depth)
	}
	deepArray := rawPDF("<< /Type /Catalog /Pages 2 0 R /Deep "+nested(100000)+" >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, streamObj("", text))
	deepDict := rawPDF("<< /Type /Catalog /Pages 2 0 R /Deep "+strings.Repeat("<< /A ", 50000)+strings.Repeat(">> ", 50000)+" >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, streamObj("", text))
	selfPages := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>")
	kidsCycle := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [6 0 R 3 0 R] /Count 1 >>", page, font,
		streamObj("", text), "<< /Type /Pages /Kids [2 0 R 6 0 R] /Parent 2 0 R >>")
	refCycle := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources 6 0 R /Contents 5 0 R >>", font, streamObj("", text), "7 0 R", "6 0 R")
	deepTree := func() []byte {
		objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
		for i := 2; i < 3000; i++ {
			objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] >>", i+1))
		}
		return rawPDF(objs...)
	}()
	manyPages := func() []byte {
		kids := strings.Repeat("3 0 R ", 5000)
		return rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids ["+kids+"] >>",
			"<< /Type /Page /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>", font, streamObj("", text))
	}()
	distinctPages := func() []byte {
		objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
		var kids strings.Builder
		for i := range 2100 {
			fmt.Fprintf(&kids, "%d 0 R ", i+3)
			objs = append(objs, "<< /Type /Page /Contents 5 0 R >>")
		}
		objs[1] = "<< /Type /Pages /Kids [" + kids.String() + "] >>"
		return rawPDF(objs...)
	}()

	// Shapes that reach the cross-reference rebuild (repair.go): no usable xref at all.
	noXrefWith := func(objs ...string) []byte {
		d := rawPDF(objs...)
		return d[:bytes.Index(d, []byte("xref\n"))]
	}
	manyTrailers := noXrefWith("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font,
		streamObj("", text)+strings.Repeat("\ntrailer\n<< /Root 1 0 R /Info << /A [[[[[[[[ >> >>", 100000))
	sparseObjects := func() []byte {
		d := noXrefWith("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, streamObj("", text))
		for _, n := range []int{400000, 524287, 524288, 9999999, 2147483647} {
			d = fmt.Appendf(d, "%d 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n", n)
		}
		return d
	}()
	hugeObjStm := noXrefWith("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font,
		streamObj("", text), streamObj("/Type /ObjStm /N 100000000 /First 99999999 /Filter /FlateDecode", gibBomb()))
	manyObjects := func() []byte {
		d := noXrefWith("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, font, streamObj("", text))
		for i := 6; i < 20000; i++ {
			d = fmt.Appendf(d, "%d 0 obj [%d 0 R] endobj\n", i, i+1)
		}
		return d
	}()

	tests := []struct {
		name string
		data []byte
		opts statement.Options
		want error // nil: success or any contained failure
	}{
		{name: "a hundred thousand trailers and no xref", data: manyTrailers},
		{name: "object numbers at and past the limit and no xref", data: sparseObjects},
		{name: "an object stream claiming 100 million objects and inflating to 1 GiB, and no xref", data: hugeObjStm},
		{name: "twenty thousand objects referring to the next and no xref", data: manyObjects},
		{name: "not a PDF at all", data: []byte("Date,Amount\n2024-01-01,1.00\n"), want: statement.ErrNotAStatement},
		{name: "a PDF header and nothing else", data: []byte("%PDF-1.7\n"), want: statement.ErrCorrupt},
		{name: "a /Length larger than the file", data: lying},
		{name: "an indirect /Length larger than the file", data: lyingIndirect},
		{name: "two thousand streams each claiming most of the file", data: manyLying},
		{name: "an xref entry pointing outside the file", data: outside},
		{name: "a broken xref table", data: brokenXref},
		{name: "no xref table", data: noXref},
		{name: "an xref subsection claiming 100 million entries", data: hugeXref},
		{name: "an xref stream claiming two billion entries", data: xrefStream},
		{name: "arrays nested 100000 deep", data: deepArray},
		{name: "dictionaries nested 50000 deep", data: deepDict},
		{name: "a /Pages node that is its own kid", data: selfPages, want: statement.ErrCorrupt},
		{name: "a /Kids cycle between two page tree nodes", data: kidsCycle},
		{name: "references that refer to each other", data: refCycle},
		{name: "a page tree 3000 levels deep", data: deepTree, want: statement.ErrResourceLimit},
		{name: "one page listed 5000 times is read once", data: manyPages},
		{name: "2100 pages", data: distinctPages, want: statement.ErrResourceLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := parseForTest(tc.data, tc.opts)
			require.Less(t, time.Since(start), raceSlowdown*60*time.Second)
			requireContained(t, err)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
			}
		})
	}
}

func TestHostileContent(t *testing.T) {
	t.Parallel()
	content := func(c string) []byte {
		return rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
			streamObj("/Filter /FlateDecode", pdftest.Deflate([]byte(c))))
	}
	flood := func(op string, n int) []byte { return content("BT /F1 10 Tf (x) Tj ET " + strings.Repeat(op, n)) }
	bombPage := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", streamObj("/Filter /FlateDecode", gibBomb()))
	bombForm := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>",
		streamObj("", []byte("/X Do /X Do /X Do")),
		streamObj("/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Filter /FlateDecode", pdftest.Deflate(bytes.Repeat([]byte(" "), 4<<20))))
	hugeRange := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>",
		streamObj("", []byte("BT /F1 10 Tf 50 700 Td <00410042> Tj ET")),
		streamObj("", []byte("begincmap 1 begincodespacerange <00000000> <FFFFFFFF> endcodespacerange "+
			"1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange "+strings.Repeat("1 beginbfrange <0000> <FFFF> [<0041>] endbfrange ", 20000)+"endcmap")),
		"<< /Type /Font /Subtype /CIDFontType2 /W [0 4294967295 500 0 [1 2 3] 5 5 5] >>")
	tests := []struct {
		name string
		data []byte
		opts statement.Options
		want error
	}{
		{name: "a content stream inflating to 1 GiB", data: bombPage, want: statement.ErrResourceLimit},
		{name: "a content stream inflating past a small limit", data: bombPage,
			opts: statement.Options{MaxDecompressedBytes: 1 << 20}, want: statement.ErrResourceLimit},
		{name: "a form drawn three times, each 4 MiB, past a 10 MiB limit", data: bombForm,
			opts: statement.Options{MaxDecompressedBytes: 10 << 20}, want: statement.ErrResourceLimit},
		{name: "three million operators", data: flood("0 0 Td ", 3_000_000), want: statement.ErrResourceLimit},
		{name: "a million nested q", data: flood("q ", 1_000_000)},
		{name: "a million unbalanced Q", data: flood("Q ", 1_000_000)},
		{name: "a million operands without an operator", data: flood("1 ", 1_000_000)},
		{name: "a two-megabyte string", data: content("BT /F1 10 Tf (" + strings.Repeat("x", 2<<20) + ") Tj ET"), want: statement.ErrResourceLimit},
		{name: "arrays nested deeper than TJ needs", data: flood("[", 10000), want: statement.ErrResourceLimit},
		{name: "an unterminated dictionary", data: flood("<< /A ", 100000)},
		{name: "a ToUnicode range over all 4-byte codes and widths over all CIDs", data: hugeRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := parseForTest(tc.data, tc.opts)
			require.Less(t, time.Since(start), raceSlowdown*60*time.Second)
			requireContained(t, err)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
			}
		})
	}
}

func TestTruncatedAndFlipped(t *testing.T) {
	t.Parallel()
	small := onePage(tableContent(func(x, y float64, s string) string { return fmt.Sprintf("1 0 0 1 %g %g Tm (%s) Tj\n", x, y, s) }))
	for n := range len(small) {
		_, err := parseForTest(small[:n], statement.Options{})
		requireContained(t, err)
	}
	for _, s := range []pdftest.Spec{{Pages: 2, RowsPerPage: 8}, {Pages: 2, RowsPerPage: 8, NoCompress: true}} {
		data, _ := pdftest.Statement(t, s)
		step := max(1, len(data)/300)
		for n := 0; n < len(data); n += step {
			_, err := parseForTest(data[:n], statement.Options{})
			requireContained(t, err)
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(data))))
		for range 300 {
			d := bytes.Clone(data)
			for range 1 + rng.IntN(8) {
				d[rng.IntN(len(d))] = byte(rng.IntN(256))
			}
			_, err := parseForTest(d, statement.Options{})
			requireContained(t, err)
		}
	}
}

func TestNoTextLayer(t *testing.T) {
	t.Parallel()
	img := image.NewGray(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.Set(x, x/2, color.White)
	}
	var pngBuf bytes.Buffer
	require.NoError(t, png.Encode(&pngBuf, img))
	doc := fpdf.New("P", "mm", "A4", "")
	doc.AddPage()
	doc.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &pngBuf)
	doc.ImageOptions("scan", 10, 10, 190, 95, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	var out bytes.Buffer
	require.NoError(t, doc.Output(&out))
	_, err := parseForTest(out.Bytes(), statement.Options{})
	require.ErrorIs(t, err, statement.ErrNoTextLayer)

	empty := rawPDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R >>")
	_, err = parseForTest(empty, statement.Options{})
	require.ErrorIs(t, err, statement.ErrNoTextLayer)
}

func TestEncrypted(t *testing.T) {
	t.Parallel()
	open, _ := pdftest.Statement(t, pdftest.Spec{Pages: 1, RowsPerPage: 5, Protect: true})
	ex, err := extract(open, statement.Options{}.WithDefaults(), maxHeldLines)
	require.NoError(t, err, "an empty user password opens the file")
	require.Contains(t, ex.dialect(), "encrypted")
	require.Contains(t, ex.pages.page(0)[6].text(), "Date | Description")

	locked, _ := pdftest.Statement(t, pdftest.Spec{Pages: 1, RowsPerPage: 5, Protect: true, UserPass: "secret"})
	_, err = parseForTest(locked, statement.Options{})
	require.ErrorIs(t, err, statement.ErrPasswordRequired)
	_, err = parseForTest(locked, statement.Options{Password: "guess"})
	require.ErrorIs(t, err, statement.ErrPasswordIncorrect)
	require.NotContains(t, err.Error(), "guess", "a refusal never repeats the password")
	st, err := parseForTest(locked, statement.Options{Password: "secret"})
	require.NoError(t, err, "the user password opens the file")
	require.Len(t, st.Transactions, 5)
}
