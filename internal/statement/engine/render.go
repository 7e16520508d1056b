package engine

import (
	"context"
	"errors"
	"time"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/pdf"
	"github.com/statementmatch/service/internal/statement/scan"
)

// Errors of RenderPage.
var (
	// ErrNoPage: the file has no such page.
	ErrNoPage = errors.New("no such page")
	// ErrNoPicture: the file's format has no pages to draw (CSV, MT940, ...).
	ErrNoPicture = errors.New("the file has no pages to draw")
)

// RenderPage draws page (1-based) of a statement file that has pages (a PDF or a picture) as a
// PNG at most width pixels wide, within timeout, so that a person can check a row against the
// original: a transaction's statement.Box is a fraction of this picture.
func RenderPage(ctx context.Context, data []byte, page, width int, timeout time.Duration, opts statement.Options) ([]byte, error) {
	opts = opts.WithDefaults()
	format, err := Detect(data)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch format {
	case statement.FormatPDF:
		out, err = pdf.RenderPNG(ctx, data, page, width, timeout)
	case statement.FormatPNG, statement.FormatJPEG, statement.FormatTIFF:
		maxPixels := statement.OCR{}.WithDefaults().MaxPixels
		if opts.OCR != nil {
			maxPixels = opts.OCR.WithDefaults().MaxPixels
		}
		out, err = scan.RenderPNG(data, format, page, width, maxPixels)
	default:
		return nil, ErrNoPicture
	}
	if errors.Is(err, pdf.ErrNoPage) || errors.Is(err, scan.ErrNoPage) {
		return nil, ErrNoPage
	}
	return out, err
}
