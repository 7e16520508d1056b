package scan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))))
	return b.Bytes()
}

func TestCheck(t *testing.T) {
	t.Parallel()
	var jpg bytes.Buffer
	require.NoError(t, jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 40, 30)), nil))
	tif, err := os.ReadFile(filepath.Join("..", "corpus", "testdata", "scans", "us-checking-chromium-scan-300.tif"))
	require.NoError(t, err)
	tests := []struct {
		name   string
		data   []byte
		opts   statement.Options
		format statement.Format
		want   error
	}{
		{name: "a PNG", data: pngOf(t, 20, 10), format: statement.FormatPNG},
		{name: "a JPEG", data: jpg.Bytes(), format: statement.FormatJPEG},
		{name: "a scanner's TIFF", data: tif, format: statement.FormatTIFF},
		{name: "a PNG whose header is broken", data: append([]byte("\x89PNG\r\n\x1a\n"), "no chunks"...),
			format: statement.FormatPNG, want: statement.ErrCorrupt},
		{name: "a picture over the pixel bound", data: pngOf(t, 2000, 1000), opts: statement.Options{OCR: &statement.OCR{MaxPixels: 1_000_000}},
			format: statement.FormatPNG, want: statement.ErrResourceLimit},
		{name: "a PNG cut off after its header", data: pngOf(t, 20, 10)[:33], format: statement.FormatPNG, want: statement.ErrCorrupt},
		{name: "a JPEG cut off before its end", data: jpg.Bytes()[:jpg.Len()-80], format: statement.FormatJPEG, want: statement.ErrCorrupt},
		{name: "no picture", data: []byte("Date,Amount\n"), want: statement.ErrNotAStatement},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			format, err := Check(tc.data, tc.opts)
			require.Equal(t, tc.format, format)
			if tc.want == nil {
				require.NoError(t, err)
				_, err := Parse(tc.data, statement.Options{})
				require.ErrorIs(t, err, statement.ErrNoTextLayer, "without OCR a picture is left to the workers")
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
	require.Len(t, tiffDirectories(tif), 2, "the corpus TIFF has two pages")
}

// FuzzScan: a hostile picture is checked (and refused or left to OCR) without a panic, and
// every failure is a *statement.Error.
func FuzzScan(f *testing.F) {
	f.Add(pngOf(f, 3, 2))
	f.Add([]byte("II*\x00\x08\x00\x00\x00\x01\x00\x00\x01\x03\x00\x01\x00\x00\x00\xff\xff\x00\x00\x08\x00\x00\x00"))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08"))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE0})
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = tiffDirectories(data)
		_, err := Parse(data, statement.Options{})
		var se *statement.Error
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("a failure that is no *statement.Error: %v", err)
		}
	})
}

// TestParseStopsWithItsContext: a job attempt that ends (its deadline, a worker's shutdown)
// stops the OCR of its file at once, and says so with the context's error, not as a failure
// of the file.
func TestParseStopsWithItsContext(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "corpus", "testdata", "scans", "us-checking-chromium-scan-300.tif"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Parse(data, statement.Options{OCR: &statement.OCR{}}.WithContext(ctx))
	require.ErrorIs(t, err, context.Canceled, "the attempt's end, not a failure of the file")
	var se *statement.Error
	require.False(t, errors.As(err, &se))
}

// FuzzTIFFPages: every page of a hostile TIFF is found and decoded (or refused) through its
// directory without a panic, and a decoded page is within the pixel bound.
func FuzzTIFFPages(f *testing.F) {
	tif, err := os.ReadFile(filepath.Join("..", "corpus", "testdata", "scans", "us-checking-chromium-scan-300.tif"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tif[:min(len(tif), 4096)])
	f.Add([]byte("II*\x00\x08\x00\x00\x00\x01\x00\x00\x01\x03\x00\x01\x00\x00\x00\xff\xff\x00\x00\x08\x00\x00\x00"))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\x00\x00\x00\x00\x00\x08"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, ok := Detect(data); !ok {
			return
		}
		for _, off := range tiffDirectories(data) {
			img, err := decode(tiffPage(data, off), statement.FormatTIFF, 1<<16)
			if err != nil {
				continue
			}
			if b := img.Bounds(); int64(b.Dx())*int64(b.Dy()) > 1<<16 {
				t.Fatalf("decoded a %v page past the bound", b)
			}
		}
	})
}

// TestTIFFPages: each page of a multi-page TIFF is read through its own directory.
func TestTIFFPages(t *testing.T) {
	t.Parallel()
	tif, ifds := twoPageTIFF(t)
	var first []byte
	for i, off := range ifds {
		img, err := decode(tiffPage(tif, off), statement.FormatTIFF, statement.DefaultOCRMaxPixels)
		require.NoError(t, err, "page %d", i+1)
		g := toGray(img)
		if i == 0 {
			first = g.Pix
			continue
		}
		require.NotEqual(t, first, g.Pix, "the second page is not the first again")
	}
	_, err := decode(tiffPage(tif, ifds[1]), statement.FormatTIFF, 1000)
	require.ErrorContains(t, err, "more than the 1000 allowed")
}

// TestUpsideDownAndSidewaysPages: a page scanned upside down or on its side is turned the
// right way up and read as the upright one is.
func TestUpsideDownAndSidewaysPages(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "corpus", "testdata", "scans", "credit-card-uk-chromium-scan-300.png")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	upright, err := Parse(data, statement.Options{OCR: testOCR()})
	require.NoError(t, err)
	require.NotEmpty(t, upright.Transactions)
	for _, quarters := range []int{2, 1} {
		t.Run(fmt.Sprint(quarters*90), func(t *testing.T) {
			t.Parallel()
			g := toGray(img)
			for range quarters {
				g = turnClockwise(g)
			}
			var b bytes.Buffer
			require.NoError(t, png.Encode(&b, g))
			st, err := Parse(b.Bytes(), statement.Options{OCR: testOCR()})
			require.NoError(t, err)
			require.Len(t, st.Transactions, len(upright.Transactions))
			for i, tx := range st.Transactions {
				require.Equal(t, upright.Transactions[i].Date, tx.Date)
				require.Equal(t, upright.Transactions[i].Amount.String(), tx.Amount.String())
			}
		})
	}
}

// turnClockwise turns g a quarter clockwise.
func turnClockwise(g *image.Gray) *image.Gray {
	w, h := g.Bounds().Dx(), g.Bounds().Dy()
	out := image.NewGray(image.Rect(0, 0, h, w))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			out.Pix[x*out.Stride+h-1-y] = g.Pix[y*g.Stride+x]
		}
	}
	return out
}

// TestJPEGCompressedTIFF: a TIFF in a compression Go's decoder lacks (JPEG, as some scanners
// write; testdata/jpeg-compressed.tif is the corpus scan credit-card-uk-chromium-scan-300.png
// written by ImageMagick with -compress JPEG) is read by Tesseract as it is, page by page.
func TestJPEGCompressedTIFF(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "jpeg-compressed.tif"))
	require.NoError(t, err)
	_, err = decode(tiffPage(data, tiffDirectories(data)[0]), statement.FormatTIFF, statement.DefaultOCRMaxPixels)
	require.ErrorContains(t, err, "compression", "Go's decoder cannot read it")
	png, err := os.ReadFile(filepath.Join("..", "corpus", "testdata", "scans", "credit-card-uk-chromium-scan-300.png"))
	require.NoError(t, err)
	want, err := Parse(png, statement.Options{OCR: testOCR()})
	require.NoError(t, err)
	st, err := Parse(data, statement.Options{OCR: testOCR()})
	require.NoError(t, err)
	require.Len(t, st.Transactions, len(want.Transactions))
	same := 0
	for i, tx := range st.Transactions {
		if tx.Date == want.Transactions[i].Date && tx.Amount.Equal(want.Transactions[i].Amount) {
			same++
		}
	}
	require.GreaterOrEqual(t, same, len(want.Transactions)-1, "read as the PNG is, but for a JPEG artefact or so")
}

// TestSinglePageTIFF: the one-page copy of a page of a multi-page TIFF holds that page alone.
func TestSinglePageTIFF(t *testing.T) {
	t.Parallel()
	tif, ifds := twoPageTIFF(t)
	for _, off := range ifds {
		one := singlePageTIFF(tif, off)
		require.Equal(t, []int{off}, tiffDirectories(one))
		a, err := decode(bytes.NewReader(one), statement.FormatTIFF, statement.DefaultOCRMaxPixels)
		require.NoError(t, err)
		b, err := decode(tiffPage(tif, off), statement.FormatTIFF, statement.DefaultOCRMaxPixels)
		require.NoError(t, err)
		require.Equal(t, toGray(b).Pix, toGray(a).Pix)
	}
	require.Len(t, singlePageTIFF([]byte("II*\x00"), 8), 4, "too short to patch: left as it is")
}

// testOCR is OCR with a page's time bound generous enough for tests that read pages side by
// side with other packages' on a machine of two cores: the bound is a guard against runaway
// pages, not what these tests measure.
func testOCR() *statement.OCR { return &statement.OCR{PageTimeout: 5 * time.Minute} }

// twoPageTIFF is a corpus scan of two pages in one TIFF, and its pages' directories.
func twoPageTIFF(t *testing.T) ([]byte, []int) {
	t.Helper()
	tif, err := os.ReadFile(filepath.Join("..", "corpus", "testdata", "scans", "us-checking-chromium-scan-300.tif"))
	require.NoError(t, err)
	ifds := tiffDirectories(tif)
	require.Len(t, ifds, 2, "the corpus TIFF has two pages")
	return tif, ifds
}
