package engine

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/statement"
)

// TestRenderPage draws a page of a PDF (with pdftoppm) and of a picture as a PNG of the width
// asked (a smaller picture keeps its size), and refuses a page the file lacks and a format
// without pages.
func TestRenderPage(t *testing.T) {
	t.Parallel()
	pdfData, err := os.ReadFile("../corpus/testdata/us-checking-chromium.pdf")
	require.NoError(t, err)
	pic := image.NewGray(image.Rect(0, 0, 1200, 1600))
	for x := range 1200 {
		pic.SetGray(x, 800, color.Gray{Y: 0})
	}
	var picture bytes.Buffer
	require.NoError(t, png.Encode(&picture, pic))
	for _, tc := range []struct {
		name         string
		data         []byte
		page, width  int
		wantW, wantH int
		want         error
	}{
		{"a PDF page", pdfData, 1, 800, 800, 0, nil},
		{"a picture, scaled down", picture.Bytes(), 1, 600, 600, 800, nil},
		{"a picture, kept", picture.Bytes(), 1, 2000, 1200, 1600, nil},
		{"a page the PDF lacks", pdfData, 99, 800, 0, 0, ErrNoPage},
		{"a picture's second page", picture.Bytes(), 2, 800, 0, 0, ErrNoPage},
		{"a CSV", []byte("Date,Description,Amount\n2024-03-01,X,1.00\n"), 1, 800, 0, 0, ErrNoPicture},
	} {
		out, err := RenderPage(t.Context(), tc.data, tc.page, tc.width, 30*time.Second, statement.Options{})
		if tc.want != nil {
			require.ErrorIs(t, err, tc.want, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		cfg, err := png.DecodeConfig(bytes.NewReader(out))
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.wantW, cfg.Width, tc.name)
		if tc.wantH > 0 {
			require.Equal(t, tc.wantH, cfg.Height, tc.name)
		} else {
			require.InDelta(t, 800*11/8.5, cfg.Height, 3, "%s: US Letter's proportions", tc.name)
		}
	}
}
