package scan

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"

	"golang.org/x/image/draw"

	"github.com/statementmatch/service/internal/statement"
)

// ErrNoPage: the picture has no such page.
var ErrNoPage = errors.New("no such page")

// RenderPNG draws page (1-based) of a picture as PNG, at most width pixels wide (a smaller
// picture keeps its size), for a person to check a row against; a picture of more than
// maxPixels is refused before it is decoded. The boxes the reader records for its rows
// (statement.Box) are fractions of this picture: OCR's turns are undone on them.
func RenderPNG(data []byte, format statement.Format, page, width int, maxPixels int64) ([]byte, error) {
	r := bytes.NewReader(data)
	var img image.Image
	var err error
	switch {
	case format == statement.FormatTIFF:
		ifds := tiffDirectories(data)
		if page < 1 || page > len(ifds) {
			return nil, ErrNoPage
		}
		img, err = decode(tiffPage(data, ifds[page-1]), format, maxPixels)
	case page != 1:
		return nil, ErrNoPage
	default:
		var cfg image.Config
		if cfg, _, err = image.DecodeConfig(r); err != nil {
			return nil, fmt.Errorf("decode page %d: %w", page, err)
		}
		if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
			return nil, fmt.Errorf("a page of %d×%d pixels, more than the %d allowed", cfg.Width, cfg.Height, maxPixels)
		}
		_, _ = r.Seek(0, 0)
		img, err = decode(r, format, maxPixels)
	}
	if err != nil {
		return nil, fmt.Errorf("decode page %d: %w", page, err)
	}
	if b := img.Bounds(); width > 0 && b.Dx() > width {
		small := image.NewRGBA(image.Rect(0, 0, width, b.Dy()*width/b.Dx()))
		draw.ApproxBiLinear.Scale(small, small.Bounds(), img, b, draw.Src, nil)
		img = small
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("encode page %d: %w", page, err)
	}
	return out.Bytes(), nil
}
