package pdf

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/statementmatch/service/internal/statement/pdf/pdftest"
)

// rawPDF writes a PDF from object bodies (object i+1 is objs[i]) with a correct xref table
// (pdftest.Raw).
func rawPDF(objs ...string) []byte {
	return pdftest.Raw(objs...)
}

// streamObj is a stream object body with a correct /Length.
func streamObj(dict string, data []byte) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// onePage is a valid one-page PDF showing content with Helvetica as /F1.
func onePage(content string) []byte {
	return rawPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		streamObj("", []byte(content)),
	)
}

// tableContent draws a small statement table in a content stream with the given show
// operators per cell: fn(x, y, text) returns the operators.
func tableContent(fn func(x, y float64, text string) string) string {
	rows := [][]string{
		{"Date", "Description", "Amount", "Balance"},
		{"01.03.2024", "Coffee shop", "-3.50", "96.50"},
		{"02.03.2024", "Salary", "1,500.00", "1,596.50"},
	}
	xs := []float64{50, 130, 330, 430}
	var b strings.Builder
	b.WriteString("BT /F1 10 Tf\n")
	for r, row := range rows {
		for c, cellText := range row {
			b.WriteString(fn(xs[c], 700-float64(r)*14, cellText))
		}
	}
	b.WriteString("ET\n")
	return b.String()
}

var (
	bombOnce sync.Once
	bomb     []byte
)

// gibBomb is a zlib stream of just over 1 GiB of zero bytes, about 1 MiB compressed. It is
// built fast: after the first 64 KiB the deflate window holds only zeros, so a sync-flushed
// block encoding 1 MiB of zeros decodes the same wherever it stands, and is repeated.
func gibBomb() []byte {
	bombOnce.Do(func() {
		var b bytes.Buffer
		b.Write([]byte{0x78, 0xDA})
		fw, _ := flate.NewWriter(&b, flate.BestCompression)
		_, _ = fw.Write(make([]byte, 64<<10))
		_ = fw.Flush()
		p := b.Len()
		_, _ = fw.Write(make([]byte, 1<<20))
		_ = fw.Flush()
		block := bytes.Clone(b.Bytes()[p:])
		for range 1023 {
			b.Write(block)
		}
		b.Write([]byte{0x03, 0x00}) // an empty final block
		// Adler-32 of n zero bytes: A = 1, B = n mod 65521.
		n := uint32((64<<10 + 1024<<20) % 65521)
		_ = binary.Write(&b, binary.BigEndian, n<<16|1)
		bomb = b.Bytes()
	})
	return bomb
}

// pagesPDF is a valid PDF with one page per content stream, Helvetica as /F1.
func pagesPDF(contents ...string) []byte {
	n := len(contents)
	kids := make([]string, n)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
	for i, c := range contents {
		page := len(objs) + 1
		kids[i] = fmt.Sprintf("%d 0 R", page)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", page+1),
			streamObj("", []byte(c)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return rawPDF(objs...)
}
