package corpus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// TestScans checks the scanned corpus without OCR: every scan has a key taken from its source
// PDF's key, its images decode at the key's resolution and page count, and the image-only PDFs
// have no text layer for the PDF parser to read.
func TestScans(t *testing.T) {
	files, err := ScanFiles(filepath.Join("testdata", "scans"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scans in testdata/scans: run make corpus-scans")
	}
	variants := map[string]int{}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			k, err := ReadKey(f)
			if err != nil {
				t.Fatal(err)
			}
			variants[k.Variant]++
			src, err := ReadKey(filepath.Join("testdata", k.Source+".pdf"))
			if err != nil {
				t.Fatalf("source %q: %v", k.Source, err)
			}
			checkScanKey(t, name, k, src)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// The first page's image, and the number of pages.
			var first image.Image
			n := 1
			switch filepath.Ext(f) {
			case ".png":
				first, err = png.Decode(bytes.NewReader(data))
			case ".jpg":
				first, err = jpeg.Decode(bytes.NewReader(data))
			case ".tif":
				first, n, err = tiffPages(data)
			case ".pdf":
				n, err = k.Pages, scanPDF(data, k.Pages)
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != k.Pages {
				t.Errorf("%d pages in the file, the key says %d", n, k.Pages)
			}
			if first != nil {
				// A4 or US Letter is 8.3 or 8.5 inches wide; a photo has the desk around it.
				w := float64(first.Bounds().Dx()) / float64(k.DPI)
				if w < 8 || w > 11 || (k.Variant != "photo" && w > 8.6) {
					t.Errorf("the first page is %.2f inches wide at %d DPI", w, k.DPI)
				}
			}
		})
	}
	for _, v := range []string{"scan-300", "scan-150", "photo"} {
		if variants[v] == 0 {
			t.Errorf("no scan of variant %s", v)
		}
	}
}

// checkScanKey compares a scan's key with its source's: the same statement, and the
// transactions the source's, or when only the first pages are scanned its first ones.
func checkScanKey(t *testing.T, name string, k, src Key) {
	t.Helper()
	if src.Variant != "" {
		t.Errorf("source %s is a %s copy, not a producer's own file", k.Source, src.Variant)
	}
	if want := k.Source + "-" + k.Variant; !strings.HasPrefix(name, want+".") {
		t.Errorf("named %s, want %s.<ext> from its key", name, want)
	}
	if k.Layout != src.Layout || k.Producer != src.Producer || k.Account != src.Account || k.Currency != src.Currency ||
		k.PeriodStart != src.PeriodStart || k.PeriodEnd != src.PeriodEnd {
		t.Errorf("the key's statement is not its source's")
	}
	if k.DPI <= 0 || k.Pages <= 0 || k.Pages > k.SourcePages {
		t.Errorf("dpi %d, pages %d of %d", k.DPI, k.Pages, k.SourcePages)
	}
	if k.Pages == k.SourcePages {
		if !slices.Equal(k.Transactions, src.Transactions) {
			t.Errorf("every page is scanned, but the transactions are not the source's")
		}
	} else if n := len(k.Transactions); n == 0 || n >= len(src.Transactions) ||
		!slices.Equal(k.Transactions[:n-1], src.Transactions[:n-1]) || !printedPartOf(k.Transactions[n-1], src.Transactions[n-1]) {
		t.Errorf("the first %d of %d pages are scanned, but the %d transactions are not the source's first ones",
			k.Pages, k.SourcePages, len(k.Transactions))
	}
	for _, b := range [][2]*string{{k.OpeningBalance, src.OpeningBalance}, {k.ClosingBalance, src.ClosingBalance}} {
		if b[0] != nil && (b[1] == nil || *b[0] != *b[1]) {
			t.Errorf("balance %s, the source's is %v", *b[0], b[1])
		}
	}
}

// printedPartOf reports whether a is b or, for a row broken over the page break, the part of b
// printed before it: the same date and amount, the description cut short, the reference b's
// or none.
func printedPartOf(a, b KeyTransaction) bool {
	return a.Date == b.Date && a.Amount == b.Amount && strings.HasPrefix(b.Description, a.Description) &&
		(a.Reference == b.Reference || a.Reference == "")
}

// tiffPages decodes the first page of a little-endian TIFF (the tiff package reads no other)
// and counts its pages, the image file directories in its chain.
func tiffPages(data []byte) (image.Image, int, error) {
	first, err := tiff.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, err
	}
	if !bytes.HasPrefix(data, []byte("II*\x00")) {
		return nil, 0, errors.New("not a little-endian TIFF")
	}
	le := binary.LittleEndian
	off := int(le.Uint32(data[4:]))
	for n := 1; n <= 100; n++ {
		if off+2 > len(data) {
			return nil, 0, errors.New("an IFD offset beyond the file")
		}
		next := off + 2 + 12*int(le.Uint16(data[off:]))
		if next+4 > len(data) {
			return nil, 0, errors.New("an IFD beyond the file")
		}
		if off = int(le.Uint32(data[next:])); off == 0 {
			return first, n, nil
		}
	}
	return nil, 0, errors.New("more than 100 pages: the IFDs loop")
}

// scanPDF checks an image-only PDF: one image per page, and no text layer for the parser.
func scanPDF(data []byte, pages int) error {
	if n := bytes.Count(data, []byte("/Subtype /Image")); n != pages {
		return fmt.Errorf("%d images, the key says %d pages", n, pages)
	}
	_, err := engine.Parse(data, statement.Options{})
	if !errors.Is(err, statement.ErrNoTextLayer) {
		return fmt.Errorf("the parser says %v, want ErrNoTextLayer", err)
	}
	return nil
}
