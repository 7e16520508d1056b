// Package scan reads statements that are pictures: PNG, JPEG and TIFF images of statement
// pages (scans, phone photos). Tesseract reads their words (package ocr) and the PDF layout
// reader rebuilds the table from them (pdf.ParseWords), so every rule of reading a PDF's
// layout applies to a picture too.
package scan

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"

	_ "image/jpeg" // image.Decode of JPEG

	"golang.org/x/image/draw"
	_ "golang.org/x/image/tiff" // image.DecodeConfig of TIFF

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/ocr"
	"github.com/statementmatch/service/internal/statement/pdf"
)

// Magic numbers of the image formats.
var (
	magicPNG    = []byte("\x89PNG\r\n\x1a\n")
	magicJPEG   = []byte{0xFF, 0xD8, 0xFF}
	magicTIFFLE = []byte("II*\x00")
	magicTIFFBE = []byte("MM\x00*")
)

// Detect returns the image format data starts with; false for none.
func Detect(data []byte) (statement.Format, bool) {
	switch {
	case bytes.HasPrefix(data, magicPNG):
		return statement.FormatPNG, true
	case bytes.HasPrefix(data, magicJPEG):
		return statement.FormatJPEG, true
	case bytes.HasPrefix(data, magicTIFFLE), bytes.HasPrefix(data, magicTIFFBE):
		return statement.FormatTIFF, true
	}
	return "", false
}

// Check is the check of an image before a job is accepted: its header decodes and its size is
// within the pixel bound. The picture is read by OCR on a worker, not here.
func Check(data []byte, opts statement.Options) (statement.Format, error) {
	format, ok := Detect(data)
	if !ok {
		return "", statement.Errorf("", statement.ErrNotAStatement, statement.Position{}, "not an image")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return format, statement.Errorf(format, statement.ErrCorrupt, statement.Position{}, "the image cannot be read: %v", err)
	}
	if why := cutShort(format, data); why != "" {
		return format, statement.Errorf(format, statement.ErrCorrupt, statement.Position{}, "the image is cut short: %s", why)
	}
	o := statement.OCR{}
	if opts.OCR != nil {
		o = *opts.OCR
	}
	o = o.WithDefaults()
	if int64(cfg.Width)*int64(cfg.Height) > o.MaxPixels {
		return format, statement.Errorf(format, statement.ErrResourceLimit, statement.Position{},
			"the image has %d×%d pixels, more than the %d allowed", cfg.Width, cfg.Height, o.MaxPixels)
	}
	return format, nil
}

// Parse reads the statement pictured in data. Without opts.OCR the picture is refused as
// having no text (the upload check, which leaves reading to the workers).
func Parse(data []byte, opts statement.Options) (*statement.Statement, error) {
	format, err := Check(data, opts)
	if err != nil {
		return nil, err
	}
	if opts.OCR == nil {
		return nil, statement.Errorf(format, statement.ErrNoTextLayer, statement.Position{},
			"the picture is read with OCR by a worker")
	}
	o := opts.OCR.WithDefaults()
	dir, err := os.MkdirTemp("", "statementd-scan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "page")
	var dpi float64
	pages := 1
	if format == statement.FormatTIFF {
		// Tesseract reads every page of a TIFF itself; Go's decoder knows only the first.
		pages = tiffPages(data)
		if pages > o.MaxPages {
			return nil, statement.Errorf(format, statement.ErrResourceLimit, statement.Position{},
				"%d pages, more than the %d that are read with OCR", pages, o.MaxPages)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, err
		}
	} else {
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, statement.Errorf(format, statement.ErrCorrupt, statement.Position{}, "the image cannot be read: %v", err)
		}
		gray, scale := prepare(img, o.MaxPixels)
		dpi = estimateDPI(img.Bounds()) * scale
		var buf bytes.Buffer
		if err := png.Encode(&buf, gray); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			return nil, err
		}
	}
	ps, err := ocr.Recognize(o.Ctx(), path, dpi, pages, o)
	if errors.Is(err, ocr.ErrUnavailable) {
		return nil, statement.Errorf(format, statement.ErrNoTextLayer, statement.Position{}, "a picture is read with OCR, and %v", err)
	}
	if err != nil {
		var se *statement.Error
		if errors.As(err, &se) {
			se.Format = format
		}
		return nil, err
	}
	for i := range ps {
		if ps[i].DPI <= 0 {
			ps[i].DPI = estimateDPI(image.Rect(0, 0, ps[i].Width, ps[i].Height))
		}
	}
	return pdf.ParseWords(ps, format, opts)
}

// cutShort says why a picture whose header reads is still no whole picture, without decoding
// it: a PNG without image data or its end chunk, a JPEG without its end marker (a download or
// upload cut off). "" when it looks whole.
func cutShort(format statement.Format, data []byte) string {
	switch format {
	case statement.FormatPNG:
		if !bytes.Contains(data, []byte("IDAT")) {
			return "the PNG has no image data"
		}
		if !bytes.Contains(data[max(0, len(data)-64):], []byte("IEND")) {
			return "the PNG has no end chunk"
		}
	case statement.FormatJPEG:
		if !bytes.Contains(data[max(0, len(data)-64):], []byte{0xFF, 0xD9}) {
			return "the JPEG has no end marker"
		}
	}
	return ""
}

// targetDPI is the resolution Tesseract reads best: a picture of a page at less is enlarged.
const targetDPI = 300

// estimateDPI guesses a picture's resolution from its size, taking its shorter side for the
// width of an A4 or Letter page (about 8.3 inches): scanners rarely record their resolution
// faithfully, and phone photos never.
func estimateDPI(b image.Rectangle) float64 {
	return float64(min(b.Dx(), b.Dy())) / 8.3
}

// prepare returns the picture in gray, enlarged (by the factor it returns) when it is of less
// than targetDPI, as far as the pixel bound allows: small print scanned at 150 DPI is too few
// pixels high for Tesseract.
func prepare(img image.Image, maxPixels int64) (*image.Gray, float64) {
	b := img.Bounds()
	scale := 1.0
	if dpi := estimateDPI(b); dpi > 0 && dpi < 0.8*targetDPI {
		scale = math.Min(targetDPI/dpi, math.Sqrt(float64(maxPixels)/float64(b.Dx()*b.Dy())))
		scale = math.Max(scale, 1)
	}
	w, h := int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)
	gray := image.NewGray(image.Rect(0, 0, w, h))
	if scale == 1 {
		draw.Draw(gray, gray.Bounds(), img, b.Min, draw.Src)
		return gray, 1
	}
	draw.CatmullRom.Scale(gray, gray.Bounds(), img, b, draw.Src, nil)
	return gray, scale
}

// tiffPages counts the pages (image file directories) of a TIFF, at most 10,000.
func tiffPages(data []byte) int {
	le := bytes.HasPrefix(data, magicTIFFLE)
	u16 := func(off int) int {
		if off+2 > len(data) {
			return -1
		}
		if le {
			return int(data[off]) | int(data[off+1])<<8
		}
		return int(data[off])<<8 | int(data[off+1])
	}
	u32 := func(off int) int {
		if off+4 > len(data) {
			return -1
		}
		if le {
			return int(data[off]) | int(data[off+1])<<8 | int(data[off+2])<<16 | int(data[off+3])<<24
		}
		return int(data[off])<<24 | int(data[off+1])<<16 | int(data[off+2])<<8 | int(data[off+3])
	}
	n, off := 0, u32(4)
	seen := map[int]bool{}
	for off > 0 && off < len(data) && !seen[off] && n < 10_000 {
		seen[off] = true
		n++
		entries := u16(off)
		if entries < 0 {
			break
		}
		off = u32(off + 2 + 12*entries)
	}
	return max(n, 1)
}
