package corpus

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// maxOutlineOffset is the farthest, as a share of the page's width, the outline of a scanned
// row may stand from where the row stands on its source PDF's page turned as the scan turned
// it: a line of print is about 1.3 % of an A4 page's width high, so the outline stays on its
// row.
const maxOutlineOffset = 0.005

// outlineOffset measures how well the outlines of the rows read from a scan sit on the scan.
// The scans of the corpus are its PDFs' pages turned about their centre, within the same frame,
// so each row read from both must stand, on the scan, where it stands on the PDF's page turned
// by the angle its outline shows. The two readers may take a line more or less into a row of
// several lines (a heading above it, the last line of a long description), so a row is
// compared by its top edge or its bottom edge, whichever agrees: a row outlined in the wrong
// place agrees by neither. It returns the largest offset (a share of the page's width) and the
// rows compared: those whose date and amount are found once in each.
func outlineOffset(scan []byte, scanned, source *statement.Statement) (float64, int, error) {
	key := func(t statement.Transaction) string { return t.Date.String() + " " + t.Amount.StringFixed(2) }
	count := map[string]int{}
	for _, t := range scanned.Transactions {
		count[key(t)]++
	}
	bySource := map[string]statement.Transaction{}
	for _, t := range source.Transactions {
		count[key(t)] += 100
		bySource[key(t)] = t
	}
	aspects := map[int]float64{}
	worst, rows := 0.0, 0
	for _, t := range scanned.Transactions {
		src := bySource[key(t)]
		if count[key(t)] != 101 || t.Pos.Box == nil || src.Pos.Box == nil || t.Pos.Page != src.Pos.Page {
			continue
		}
		aspect, ok := aspects[t.Pos.Page]
		if !ok {
			var err error
			if aspect, err = pageAspect(scan, t.Pos.Page); err != nil {
				return 0, 0, err
			}
			aspects[t.Pos.Page] = aspect
		}
		// Points in units of the page's width, y down.
		b, s := t.Pos.Box, src.Pos.Box
		c := [4][2]float64{{b.Left, b.Top}, {b.Right, b.Top}, {b.Right, b.Bottom}, {b.Left, b.Bottom}}
		if b.Corners != nil {
			c = *b.Corners
		}
		for i := range c {
			c[i][1] *= aspect
		}
		angle := math.Atan2(c[1][1]-c[0][1], c[1][0]-c[0][0])
		sin, cos := math.Sincos(angle)
		turned := func(x, y float64) (float64, float64) {
			dx, dy := x-0.5, (y-0.5)*aspect
			return dx*cos - dy*sin + 0.5, dx*sin + dy*cos + 0.5*aspect
		}
		mid := (s.Left + s.Right) / 2
		topX, topY := turned(mid, s.Top)
		bottomX, bottomY := turned(mid, s.Bottom)
		top := math.Hypot((c[0][0]+c[1][0])/2-topX, (c[0][1]+c[1][1])/2-topY)
		bottom := math.Hypot((c[2][0]+c[3][0])/2-bottomX, (c[2][1]+c[3][1])/2-bottomY)
		worst = max(worst, min(top, bottom))
		rows++
	}
	return worst, rows, nil
}

// pageAspect is the height of page n of the file over its width, as it is drawn.
func pageAspect(data []byte, n int) (float64, error) {
	img, err := engine.RenderPage(context.Background(), data, n, 200, time.Minute, statement.Options{})
	if err != nil {
		return 0, fmt.Errorf("draw page %d: %w", n, err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return 0, fmt.Errorf("page %d: %w", n, err)
	}
	return float64(cfg.Height) / float64(cfg.Width), nil
}

// sourceOutlines is outlineOffset for a scan of the corpus, its source PDF read as it is; -1
// rows when the source cannot be read (TestCorpus reports it).
func sourceOutlines(scan []byte, k Key, scanned *statement.Statement) (float64, int, error) {
	data, err := os.ReadFile(filepath.Join("testdata", k.Source+".pdf"))
	if err != nil {
		return 0, 0, err
	}
	source, err := engine.Parse(data, statement.Options{})
	if err != nil {
		return 0, -1, nil
	}
	return outlineOffset(scan, scanned, source)
}
