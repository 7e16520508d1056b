package statement

import (
	"context"
	"time"
)

// Options bound what a parse may consume, and carry what opens a protected file. The zero value
// means the defaults.
type Options struct {
	// MaxRows is the most transactions (or table rows) a file may hold. Default 1,000,000.
	MaxRows int
	// MaxDecompressedBytes bounds what a compressed container (XLSX) may expand to. Default 256 MiB.
	MaxDecompressedBytes int64
	// MaxDepth bounds the nesting of XML and other tree formats. Default 64.
	MaxDepth int
	// OCR, when set, reads scanned statements (images, and PDF pages without text) with
	// Tesseract within its bounds; unset, a scan is refused as having no text layer. The
	// upload check leaves it unset: scans are read by workers only.
	OCR *OCR
	// Password opens a PDF protected by a user password. It is a secret: readers never put it
	// in a message, and nothing keeps it past the parse.
	Password string
}

// Defaults of Options.
const (
	DefaultMaxRows              = 1_000_000
	DefaultMaxDecompressedBytes = 256 << 20
	DefaultMaxDepth             = 64
)

// WithDefaults returns o with every unset limit at its default.
func (o Options) WithDefaults() Options {
	o.MaxRows = positiveOr(o.MaxRows, DefaultMaxRows)
	o.MaxDecompressedBytes = positiveOr(o.MaxDecompressedBytes, DefaultMaxDecompressedBytes)
	o.MaxDepth = positiveOr(o.MaxDepth, DefaultMaxDepth)
	return o
}

// positiveOr is v when it is set (above zero), else def.
func positiveOr[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// OCR bounds the reading of scanned statements.
type OCR struct {
	// MaxPages is the most scanned pages a file may have. Default 50.
	MaxPages int
	// PageTimeout bounds the reading of one page. Default 60 s.
	PageTimeout time.Duration
	// MaxPixels bounds the pixels of one page image. Default 60 million (A4 at 600 DPI is 35).
	MaxPixels int64
	// Languages are Tesseract's languages ("eng+deu"); empty means every installed one.
	Languages string
	// Context, when set, ends OCR early: the job attempt's, so that its deadline or a worker's
	// shutdown stops the Tesseract it runs. Nil means no end but the bounds.
	Context context.Context
}

// Ctx is o.Context, or a context that never ends.
func (o OCR) Ctx() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

// WithContext returns opts with OCR (when set) ending with ctx.
func (o Options) WithContext(ctx context.Context) Options {
	if o.OCR != nil {
		ocr := *o.OCR
		ocr.Context = ctx
		o.OCR = &ocr
	}
	return o
}

// Defaults of OCR.
const (
	DefaultOCRMaxPages    = 50
	DefaultOCRPageTimeout = 60 * time.Second
	DefaultOCRMaxPixels   = 60_000_000
)

// WithDefaults returns o with every unset bound at its default.
func (o OCR) WithDefaults() OCR {
	o.MaxPages = positiveOr(o.MaxPages, DefaultOCRMaxPages)
	o.PageTimeout = positiveOr(o.PageTimeout, DefaultOCRPageTimeout)
	o.MaxPixels = positiveOr(o.MaxPixels, DefaultOCRMaxPixels)
	return o
}
