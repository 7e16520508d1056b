package statement

import "time"

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
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxDecompressedBytes <= 0 {
		o.MaxDecompressedBytes = DefaultMaxDecompressedBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
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
}

// Defaults of OCR.
const (
	DefaultOCRMaxPages    = 50
	DefaultOCRPageTimeout = 60 * time.Second
	DefaultOCRMaxPixels   = 60_000_000
)

// WithDefaults returns o with every unset bound at its default.
func (o OCR) WithDefaults() OCR {
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultOCRMaxPages
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = DefaultOCRPageTimeout
	}
	if o.MaxPixels <= 0 {
		o.MaxPixels = DefaultOCRMaxPixels
	}
	return o
}
