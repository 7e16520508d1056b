// Package scan reads statements that are pictures: PNG, JPEG and TIFF images of statement
// pages (scans, phone photos). Tesseract reads their words (package ocr) and the PDF layout
// reader rebuilds the table from them (pdf.ParseWords), so every rule of reading a PDF's
// layout applies to a picture too.
package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	_ "image/jpeg" // image.Decode of JPEG
	_ "image/png"  // image.Decode of PNG

	"golang.org/x/image/draw"
	"golang.org/x/image/tiff"

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
	pages := 1
	var ifds []int
	if format == statement.FormatTIFF {
		// A multi-page TIFF: Go's decoder reads the first page, so each page is read as the
		// file with its first page pointed at that page's directory.
		ifds = tiffDirectories(data)
		if len(ifds) > o.MaxPages {
			return nil, statement.Errorf(format, statement.ErrResourceLimit, statement.Position{},
				"%d pages, more than the %d that are read with OCR", len(ifds), o.MaxPages)
		}
		pages = len(ifds)
	}
	dir, err := os.MkdirTemp("", "statementd-scan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var images []*ocr.Image
	for i := range pages {
		page := func() io.ReadSeeker {
			if format == statement.FormatTIFF {
				return tiffPage(data, ifds[i])
			}
			return bytes.NewReader(data)
		}
		if format == statement.FormatTIFF && !goDecodes(data, ifds[i]) {
			// A compression Go's decoder lacks (JPEG in TIFF, as some scanners write):
			// Tesseract's own reader has it, so the page goes to it as it is, alone. Its size
			// is within the pixel bound: the header says so, and is checked here.
			if _, err := decodeConfig(page(), o.MaxPixels); err != nil {
				return nil, statement.Errorf(format, statement.ErrCorrupt, pagePos(i, pages), "the image cannot be read: %v", err)
			}
			path := filepath.Join(dir, strconv.Itoa(i+1)+".tif")
			if err := os.WriteFile(path, singlePageTIFF(data, ifds[i]), 0o600); err != nil {
				return nil, err
			}
			images = append(images, ocr.AsIs(path))
			continue
		}
		source := func() (*image.Gray, float64, error) {
			img, err := decode(page(), format, o.MaxPixels)
			if err != nil {
				return nil, 0, statement.Errorf(format, statement.ErrCorrupt, pagePos(i, pages), "the image cannot be read: %v", err)
			}
			gray, scale := prepare(img, o.MaxPixels)
			return gray, estimateDPI(img.Bounds()) * scale, nil
		}
		images = append(images, ocr.NewImage(source, dir, strconv.Itoa(i+1)))
	}
	// A statement read once need not keep its prepared pages on disk while the rest are read.
	keep := len(images) <= pdf.MaxRereadPages
	read := func(mode ocr.Mode) ([]ocr.Page, error) {
		var ps []ocr.Page
		for i, im := range images {
			p, err := im.Read(o.Ctx(), mode, o)
			if !keep {
				im.Release()
			}
			if errors.Is(err, ocr.ErrUnavailable) {
				return nil, statement.Errorf(format, statement.ErrNoTextLayer, statement.Position{}, "a picture is read with OCR, and %v", err)
			}
			if err != nil {
				var se *statement.Error
				if errors.As(err, &se) && se.Format == "" {
					se.Format, se.Pos = format, pagePos(i, len(images))
				}
				return nil, err
			}
			ps = append(ps, p)
		}
		return ps, nil
	}
	upright := func() (bool, error) { return ocr.UprightAll(o.Ctx(), images, o) }
	return pdf.ParseReadings(pdf.Scanned{Read: read, Upright: upright, Pages: len(images)}, format, opts)
}

// decodeConfig reads a TIFF page's size from its header, refusing one of more than maxPixels.
func decodeConfig(r io.Reader, maxPixels int64) (image.Config, error) {
	cfg, err := tiff.DecodeConfig(r)
	if err != nil {
		return cfg, err
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return cfg, fmt.Errorf("a page of %d×%d pixels, more than the %d allowed", cfg.Width, cfg.Height, maxPixels)
	}
	return cfg, nil
}

// decode decodes one picture, refusing one of more than maxPixels before decoding it.
func decode(r io.ReadSeeker, format statement.Format, maxPixels int64) (image.Image, error) {
	if format == statement.FormatTIFF {
		if _, err := decodeConfig(r, maxPixels); err != nil {
			return nil, err
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return tiff.Decode(r)
	}
	img, _, err := image.Decode(r)
	return img, err
}

// goCompressions are the TIFF compressions Go's decoder reads: none, CCITT G3 and G4, LZW,
// Deflate and PackBits.
var goCompressions = map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 8: true, 32946: true, 32773: true}

// goDecodes reports whether Go's decoder reads the compression of the TIFF page whose
// directory is at off (tag 259; none when absent). A directory it cannot read is left to the
// decoder to refuse.
func goDecodes(data []byte, off int) bool {
	order := tiffOrder(data)
	if off < 0 || off+2 > len(data) {
		return true
	}
	n := int(order.Uint16(data[off:]))
	for k := 0; k < n; k++ {
		e := off + 2 + 12*k
		if e+12 > len(data) {
			return true
		}
		if order.Uint16(data[e:]) == 259 {
			return goCompressions[int(order.Uint16(data[e+8:]))]
		}
	}
	return true
}

// pagePos is the position of the i-th of n pictures: its page in a file of several.
func pagePos(i, n int) statement.Position {
	if n > 1 {
		return statement.Position{Page: i + 1}
	}
	return statement.Position{}
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
	if scale == 1 {
		return toGray(img), 1
	}
	gray := image.NewGray(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(gray, gray.Bounds(), toGray(img), b, draw.Src, nil)
	return gray, scale
}

// toGray returns the picture in 8-bit gray: a gray picture as it is, others converted.
func toGray(img image.Image) *image.Gray {
	if m, ok := img.(*image.Gray); ok {
		return m
	}
	b := img.Bounds()
	g := image.NewGray(b)
	draw.Draw(g, b, img, b.Min, draw.Src)
	return g
}

// tiffDirectories returns the offsets of the image file directories (one a page) of a TIFF,
// in order, at most 10,000; at least the first, as the header names it.
func tiffDirectories(data []byte) []int {
	order := tiffOrder(data)
	u16 := func(off int) int {
		if off < 0 || off+2 > len(data) {
			return -1
		}
		return int(order.Uint16(data[off:]))
	}
	u32 := func(off int) int {
		if off < 0 || off+4 > len(data) {
			return -1
		}
		return int(order.Uint32(data[off:]))
	}
	var ifds []int
	off := u32(4)
	seen := map[int]bool{}
	for off > 0 && off < len(data) && !seen[off] && len(ifds) < 10_000 {
		seen[off] = true
		ifds = append(ifds, off)
		entries := u16(off)
		if entries < 0 {
			break
		}
		off = u32(off + 2 + 12*entries)
	}
	if len(ifds) == 0 {
		ifds = append(ifds, max(u32(4), 0))
	}
	return ifds
}

func tiffOrder(data []byte) binary.ByteOrder {
	if bytes.HasPrefix(data, magicTIFFLE) {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// tiffPage is the TIFF in data read as if its first page were the one whose directory is at
// off: the header's pointer to the first directory is the only difference, and every other
// offset in a TIFF is from the file's start, so nothing is copied.
func tiffPage(data []byte, off int) io.ReadSeeker {
	var first [4]byte
	tiffOrder(data).PutUint32(first[:], uint32(off))
	return io.NewSectionReader(firstIFD{data: data, first: first}, 0, int64(len(data)))
}

// singlePageTIFF is a copy of the TIFF in data that holds only the page whose directory is at
// off, for a reader that reads every page: the header points at that directory, and the
// directory at no next one.
func singlePageTIFF(data []byte, off int) []byte {
	out := bytes.Clone(data)
	if len(out) < 8 {
		return out
	}
	order := tiffOrder(data)
	order.PutUint32(out[4:], uint32(off))
	if off+2 <= len(out) {
		next := off + 2 + 12*int(order.Uint16(out[off:]))
		if next >= 0 && next+4 <= len(out) {
			order.PutUint32(out[next:], 0)
		}
	}
	return out
}

// firstIFD reads data with bytes 4 to 7 (the offset of the first directory) replaced.
type firstIFD struct {
	data  []byte
	first [4]byte
}

func (r firstIFD) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	for i := int64(4); i < 8; i++ {
		if i >= off && i < off+int64(n) {
			p[i-off] = r.first[i-4]
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
