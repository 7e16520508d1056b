package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/ocr"
	"github.com/statementmatch/service/internal/statement/tabular"
)

// Scanned is a statement's scanned pages, as ParseReadings reads them.
type Scanned struct {
	// Read gives the statement's pages as OCR reads them in a mode.
	Read func(ocr.Mode) ([]ocr.Page, error)
	// Upright turns the scanned pages that lie on their side or upside down the right way up,
	// and reports whether it turned any. Nil: the pages are read as they lie.
	Upright func() (bool, error)
	// Pages is the number of scanned pages.
	Pages int
}

// ParseReadings reads a statement of scanned pages. Tesseract's way of finding a page's text
// (ocr.Mode) decides which words it keeps, and no one mode keeps every table's: a ruled or
// sparse table can lose a column in one and keep it in another. So the statement is read in the
// first mode and, when its own numbers do not bear that reading out (Statement.Reconciled),
// read again in the next, up to ocr.Modes; the first reading that reconciles is taken, else the
// one with the most transactions and, of those, the fewest review reasons (the first of
// equals). A statement of more than MaxRereadPages scanned pages is read once, to keep its time
// bounded.
//
// When the first reading finds no transaction, the pages may lie the wrong way (upside down,
// OCR reads junk; on its side, Tesseract reads the words well but in columns): they are turned
// upright (Scanned.Upright) and, if any was turned, read again from the first mode.
func ParseReadings(sc Scanned, format statement.Format, opts statement.Options) (*statement.Statement, error) {
	modes := ocr.Modes
	if sc.Pages > MaxRereadPages {
		modes = modes[:1]
	}
	var best *statement.Statement
	var firstErr error
	upright := sc.Upright
	for i := 0; i < len(modes); i++ {
		pages, err := sc.Read(modes[i])
		if err != nil {
			var se *statement.Error
			if !errors.As(err, &se) || se.Kind == statement.ErrResourceLimit || se.Kind == statement.ErrNoTextLayer {
				// The attempt ended, a bound was passed or OCR is missing: no other reading helps.
				return nil, err
			}
		}
		var st *statement.Statement
		if err == nil {
			st, err = ParseWords(pages, format, opts)
		}
		if i == 0 && upright != nil && (err != nil || len(st.Transactions) == 0) {
			turned, uerr := upright()
			if uerr != nil {
				return nil, uerr
			}
			upright = nil
			if turned {
				best, firstErr, i = nil, nil, -1
				continue
			}
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		// The engine finishes the statement again (Finish is idempotent); its checks are
		// what tell one reading from another.
		statement.Finish(st)
		if st.Reconciled() {
			return st, nil
		}
		if best == nil || len(st.Transactions) > len(best.Transactions) ||
			len(st.Transactions) == len(best.Transactions) && len(st.Review) < len(best.Review) {
			best = st
		}
	}
	if best != nil {
		return best, nil
	}
	return nil, firstErr
}

// MaxRereadPages is the most scanned pages a statement may have to be read again in another
// mode when its first reading does not reconcile.
const MaxRereadPages = 10

// ParseWords reads a statement from the words OCR found on its page images, through the same
// lines, cells and table reading as a PDF's text, and adds the review reason ocr with the mean
// word confidence. format is the format of the file the pages came from.
func ParseWords(pages []ocr.Page, format statement.Format, opts statement.Options) (*statement.Statement, error) {
	opts = opts.WithDefaults()
	var lines [][]line
	words, confSum := 0, 0.0
	for i, p := range pages {
		runs := runsOf(p)
		words += len(runs)
		for _, w := range p.Words {
			confSum += w.Conf
		}
		lines = append(lines, buildLines(runs, i+1))
	}
	if words == 0 {
		return nil, statement.Errorf(format, statement.ErrNoTransactions, statement.Position{},
			"OCR found no text on the %d scanned pages", len(pages))
	}
	g := buildGrid(pagesOf(lines))
	for _, p := range pages {
		g.frames = append(g.frames, pageFrame(p))
	}
	st, err := tabular.Extract(tabular.Table{Format: format, Rows: g.handOver(), Context: g.outside, Card: g.card}, opts)
	if err != nil {
		return nil, err
	}
	st.Format = format
	for i := range st.Transactions {
		pos := &st.Transactions[i].Pos
		if pos.Box != nil && pos.Page >= 1 && pos.Page <= len(pages) {
			pos.Box = onSource(pages[pos.Page-1], *pos.Box)
		}
	}
	if bic, name := bankOf(g.outside); bic != "" {
		st.BankID = bic
		if name != "" {
			st.BankName = name
		}
	}
	conf := confSum / float64(words)
	st.OCRConfidence = conf
	dialect := fmt.Sprintf("%s;ocr;pages=%d;confidence=%.0f", format, len(pages), conf)
	if st.Dialect != "" {
		dialect += ";" + st.Dialect
	}
	st.Dialect = dialect
	return st, nil
}

// onSource is box b, read on page p as fractions of the page OCR read (turned upright and
// levelled), as fractions of the page's image as it came, which is the page a person is shown:
// its corners when the print runs askew on it, and the sides that bound them.
func onSource(p ocr.Page, b statement.Box) *statement.Box {
	if p.Skew == 0 && p.Placed == (ocr.Placement{}) {
		return &b
	}
	sw, sh := p.SourceSize()
	if sw <= 0 || sh <= 0 || p.Width <= 0 || p.Height <= 0 {
		return nil
	}
	w, h := float64(p.Width), float64(p.Height)
	var c [4][2]float64
	for i, xy := range [4][2]float64{{b.Left, b.Top}, {b.Right, b.Top}, {b.Right, b.Bottom}, {b.Left, b.Bottom}} {
		x, y := p.ToSource(xy[0]*w, xy[1]*h)
		c[i] = [2]float64{fraction(x / float64(sw)), fraction(y / float64(sh))}
	}
	out := statement.Box{Left: 1, Top: 1}
	for _, xy := range c {
		out.Left, out.Right = min(out.Left, xy[0]), max(out.Right, xy[0])
		out.Top, out.Bottom = min(out.Top, xy[1]), max(out.Bottom, xy[1])
	}
	if out.Right <= out.Left || out.Bottom <= out.Top {
		return nil
	}
	// The shoelace formula: a print that runs level (a page only turned by quarters) fills
	// the sides that bound it, and needs no corners.
	area := 0.0
	for i := range c {
		j := (i + 1) % 4
		area += c[i][0]*c[j][1] - c[j][0]*c[i][1]
	}
	if math.Abs(area)/2 < 0.99*(out.Right-out.Left)*(out.Bottom-out.Top) {
		out.Corners = &c
	}
	return &out
}

// fraction is v kept within the page (0 to 1) to four figures, what a page drawn on a screen
// can show.
func fraction(v float64) float64 { return math.Round(math.Max(0, math.Min(1, v))*10000) / 10000 }

// pageFrame is a page image's frame in the points runsOf gives its words, [0, 0, width,
// height]; zero when OCR did not say the image's size.
func pageFrame(p ocr.Page) [4]float64 {
	if p.Width <= 0 || p.Height <= 0 {
		return [4]float64{}
	}
	dpi := p.DPI
	if dpi <= 0 {
		dpi = 300
	}
	return [4]float64{0, 0, float64(p.Width) * pointsPerInch / dpi, float64(p.Height) * pointsPerInch / dpi}
}

// pointsPerInch converts image pixels to PDF points.
const pointsPerInch = 72.0

// runsOf turns a page's OCR words into the runs the layout reader takes: positions in points
// with y up from the page's foot, the baseline of the word's line, and a font size from the
// line's height, and a space wide enough that the gaps OCR leaves between the words of a
// phrase (its boxes hug the ink) join them.
func runsOf(p ocr.Page) []run {
	dpi := p.DPI
	if dpi <= 0 {
		dpi = 300
	}
	scale := pointsPerInch / dpi
	// A word's box without descenders is about 0.7 of its font size high. A line's size is
	// taken low among its words' (the 30th percentile), so that descenders, a bold heading's
	// spread or a box grown by the page's skew (a long word on a page 1.5 degrees askew is
	// taller by a twentieth of its width) do not make it large: the lines of a header set
	// over two lines must come out the same size.
	tilt := math.Abs(math.Tan(p.Skew * math.Pi / 180))
	var pageHeights []float64
	for _, w := range p.Words {
		pageHeights = append(pageHeights, w.Height)
	}
	sort.Float64s(pageHeights)
	// Specks read as words ("5", "T", a dot) are far smaller than the print: they say nothing
	// of a line's size.
	speck := 0.0
	if len(pageHeights) > 0 {
		speck = 0.45 * pageHeights[len(pageHeights)/2]
	}
	heights := map[int][]float64{}
	for _, w := range p.Words {
		if w.Height < speck {
			continue
		}
		// The part above the baseline: a word that reaches below it ("Omschrijving") is
		// otherwise taller than the print's size says.
		h := w.Height
		if above := w.Baseline - w.Top; above > 0.5*h && above < h {
			h = above
		}
		heights[w.Line] = append(heights[w.Line], math.Max(h-w.Width*tilt, 0.5*h))
	}
	sizes := map[int]float64{}
	var all []float64
	for l, hs := range heights {
		sort.Float64s(hs)
		sizes[l] = hs[(len(hs)-1)*3/10] * scale / 0.7
		all = append(all, sizes[l])
	}
	// Box heights are noisy (bold strokes, specks, blur): a line within a third of the page's
	// common size is taken to be of that size, as print mostly is; headings well above it,
	// and small print well below, keep their own.
	common := 10.0
	if len(all) > 0 {
		sort.Float64s(all)
		common = all[len(all)/2]
		for l, sz := range sizes {
			if math.Abs(sz-common) < common/3 {
				sizes[l] = common
			}
		}
	}
	runs := make([]run, 0, len(p.Words))
	for _, w := range p.Words {
		size, ok := sizes[w.Line]
		if !ok {
			// A line of specks alone: the page's common size.
			size = common
		}
		runs = append(runs, run{text: w.Text, x0: w.Left * scale, x1: (w.Left + w.Width) * scale,
			y: (float64(p.Height) - w.Baseline) * scale, size: size, space: 0.4 * size})
	}
	return runs
}

// ocrDPI is the resolution scanned PDF pages are rendered at: what Tesseract reads best, and
// small print (8 points) is still some 25 pixels high.
const ocrDPI = 300

// scannedPages are the pages of data that have no text, to be read with OCR: each is rendered
// to an image by poppler's pdftoppm when it is read (and again when it is turned upright), and
// prepared in dir (ocr.Image). pages are the page numbers (1-based), sizes every page's size in
// points. The PDF is written into dir for pdftoppm.
func scannedPages(data []byte, pages []int, sizes [][2]float64, o statement.OCR, dir string) (map[int]*ocr.Image, error) {
	o = o.WithDefaults()
	if len(pages) > o.MaxPages {
		return nil, errf(statement.ErrResourceLimit, statement.Position{},
			"%d scanned pages, more than the %d that are read with OCR", len(pages), o.MaxPages)
	}
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return nil, fmt.Errorf("%w (pdftoppm, of poppler-utils, renders scanned PDF pages)", ocr.ErrUnavailable)
	}
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, err
	}
	out := map[int]*ocr.Image{}
	for _, n := range pages {
		dpi := renderDPI(sizes[n-1], o.MaxPixels)
		render := func() (*image.Gray, float64, error) {
			g, err := renderPage(in, dir, n, dpi, o)
			return g, dpi, err
		}
		out[n] = ocr.NewImage(render, dir, strconv.Itoa(n))
	}
	return out, nil
}

// renderPage renders page n of the PDF in the file in at dpi, in gray, with pdftoppm.
func renderPage(in, dir string, n int, dpi float64, o statement.OCR) (*image.Gray, error) {
	if err := o.Ctx().Err(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(o.Ctx(), o.PageTimeout)
	defer cancel()
	prefix := filepath.Join(dir, "render-"+strconv.Itoa(n))
	// -singlefile names the image prefix.pgm: gray, uncompressed.
	cmd := exec.CommandContext(ctx, "pdftoppm", "-r", strconv.FormatFloat(dpi, 'f', 1, 64), "-gray", "-singlefile",
		"-f", strconv.Itoa(n), "-l", strconv.Itoa(n), in, prefix)
	msg, err := cmd.CombinedOutput()
	if o.Ctx().Err() != nil {
		return nil, o.Ctx().Err()
	}
	if ctx.Err() != nil {
		return nil, errf(statement.ErrResourceLimit, statement.Position{Page: n}, "rendering the page took longer than %s", o.PageTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("render page %d: %w: %s", n, err, msg)
	}
	pgm, err := os.ReadFile(prefix + ".pgm")
	_ = os.Remove(prefix + ".pgm")
	if err != nil {
		return nil, fmt.Errorf("render page %d: %w", n, err)
	}
	g, err := ocr.DecodePGM(pgm, o.MaxPixels)
	if err != nil {
		return nil, fmt.Errorf("render page %d: %w", n, err)
	}
	return g, nil
}

// renderDPI is the resolution a page of size (in points) is rendered at: ocrDPI, or less for a
// page so large that it would pass the pixel bound.
func renderDPI(size [2]float64, maxPixels int64) float64 {
	w, h := size[0]/pointsPerInch, size[1]/pointsPerInch
	if w <= 0 || h <= 0 {
		return ocrDPI
	}
	return math.Min(ocrDPI, math.Floor(math.Sqrt(float64(maxPixels)/(w*h))))
}

// parseScanned reads a PDF some or all of whose pages are images without text: those pages
// are read with OCR, the others as text, and the whole goes through the table reader as one
// scanned statement (with the review reason ocr).
func parseScanned(data []byte, ex *extraction, opts statement.Options) (*statement.Statement, error) {
	o := opts.OCR.WithDefaults()
	dir, err := os.MkdirTemp("", "statementd-ocr-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	scanned, err := scannedPages(data, ex.textless, ex.sizes, o, dir)
	if errors.Is(err, ocr.ErrUnavailable) {
		return nil, errf(statement.ErrNoTextLayer, statement.Position{}, "%d of the %d pages have no text, and %v",
			len(ex.textless), ex.pages.len(), err)
	}
	if err != nil {
		return nil, err
	}
	// A statement read once need not keep its prepared pages on disk while the rest are read.
	keep := len(scanned) <= MaxRereadPages
	read := func(mode ocr.Mode) ([]ocr.Page, error) {
		pages := make([]ocr.Page, ex.pages.len())
		for i := range pages {
			im, ok := scanned[i+1]
			if !ok {
				pages[i] = textPage(ex.pages.page(i), ex.sizes[i])
				continue
			}
			p, err := im.Read(o.Ctx(), mode, o)
			if !keep {
				im.Release()
			}
			if errors.Is(err, ocr.ErrUnavailable) {
				return nil, errf(statement.ErrNoTextLayer, statement.Position{}, "%d of the %d pages have no text, and %v",
					len(ex.textless), ex.pages.len(), err)
			}
			if err != nil {
				var se *statement.Error
				if errors.As(err, &se) {
					se.Format, se.Pos = statement.FormatPDF, statement.Position{Page: i + 1}
				}
				return nil, err
			}
			pages[i] = p
		}
		return pages, nil
	}
	upright := func() (bool, error) {
		ims := make([]*ocr.Image, len(ex.textless))
		for i, n := range ex.textless {
			ims[i] = scanned[n]
		}
		return ocr.UprightAll(o.Ctx(), ims, o)
	}
	st, err := ParseReadings(Scanned{Read: read, Upright: upright, Pages: len(scanned)}, statement.FormatPDF, opts)
	if err != nil {
		return nil, err
	}
	st.Problems = append(ex.problems, st.Problems...)
	return st, nil
}

// textPage is a page of PDF text as if OCR had read it with full confidence, at 72 DPI (a pixel
// a point), so that it joins the scanned pages of its document.
func textPage(lines []line, size [2]float64) ocr.Page {
	p := ocr.Page{Width: int(size[0]), Height: int(size[1]), DPI: pointsPerInch}
	for i, l := range lines {
		for _, w := range l.words {
			h := 0.7 * w.size
			p.Words = append(p.Words, ocr.Word{Text: w.text, Left: w.x0, Top: size[1] - w.y - h, Width: w.x1 - w.x0, Height: h,
				Conf: 100, Line: i + 1, Baseline: size[1] - w.y})
		}
	}
	return p
}

// RenderPNG draws page (1-based) of the PDF in data as PNG, width pixels wide, with poppler's
// pdftoppm (within timeout), for a person to check a row against: the boxes the reader records
// (statement.Box) are fractions of this picture. A page the PDF does not have is ErrNoPage.
func RenderPNG(ctx context.Context, data []byte, page, width int, timeout time.Duration) ([]byte, error) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return nil, fmt.Errorf("%w (pdftoppm, of poppler-utils, draws PDF pages)", ocr.ErrUnavailable)
	}
	dir, err := os.MkdirTemp("", "statementd-page-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	prefix := filepath.Join(dir, "page")
	cmd := exec.CommandContext(ctx, "pdftoppm", "-png", "-singlefile", "-scale-to-x", strconv.Itoa(width), "-scale-to-y", "-1",
		"-f", strconv.Itoa(page), "-l", strconv.Itoa(page), in, prefix)
	msg, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("draw page %d: %w", page, ctx.Err())
	}
	if err != nil {
		if bytes.Contains(msg, []byte("Wrong page range")) || bytes.Contains(msg, []byte("last page")) {
			return nil, ErrNoPage
		}
		return nil, fmt.Errorf("draw page %d: %w: %s", page, err, msg)
	}
	return os.ReadFile(prefix + ".png")
}

// ErrNoPage: the PDF has no such page.
var ErrNoPage = errors.New("no such page")
