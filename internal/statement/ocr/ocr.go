// Package ocr reads the words of scanned statement pages (images, and PDF pages rendered as
// images) with Tesseract, each word with its box and confidence, so that the PDF layout reader
// can rebuild the statement's table from them as it does from a PDF's text.
//
// Tesseract runs as a program of its own (`tesseract`, Debian's tesseract-ocr), one process a
// page: a crash or runaway on a hostile image ends that process, not the worker, and each page
// is bounded in time. A page image is prepared first (Prepare): turned level when its print is
// askew, and its ruled lines erased. What skew is left is taken out of the words' boxes, so
// that the words of one printed row end at one height.
package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/statementmatch/service/internal/statement"
)

// Word is one word Tesseract read, with its box in pixels of the page image (origin at the top
// left, y down) and its confidence from 0 to 100.
type Word struct {
	Text                     string
	Left, Top, Width, Height float64
	Conf                     float64
	// Line tells Tesseract's lines apart on the page: words with the same Line were read as one
	// line of text.
	Line int
	// Baseline is the line's baseline (y down), straightened with the page.
	Baseline float64
}

// Page is the words of one page image.
type Page struct {
	// Width and Height are the image's, in pixels; DPI its resolution.
	Width, Height int
	DPI           float64
	Words         []Word
	// Skew is the angle, in degrees, by which the words were then turned to run level: what
	// is left of the page's skew after it was turned level (Image.Prepare).
	Skew float64
	// Placed is how the page was turned before it was read; with Skew, it says where the words
	// stand on the image as it came (ToSource).
	Placed Placement
}

// Placement is how a page image was turned before it was read (Image.Prepare): stood upright
// by quarter turns, then levelled about its centre onto a canvas grown to hold it. The zero
// Placement is a page read as it came.
type Placement struct {
	// Width and Height are the image's as it came, in pixels; zero for a page read as it came.
	Width, Height int
	// Quarters is how many quarter turns clockwise stood the page upright.
	Quarters int
	// Level is the angle, in degrees, the upright page was turned by (Rotate) to run level.
	Level float64
}

// SourceSize is the size in pixels of the page's image as it came.
func (p Page) SourceSize() (width, height int) {
	if p.Placed.Width <= 0 || p.Placed.Height <= 0 {
		return p.Width, p.Height
	}
	return p.Placed.Width, p.Placed.Height
}

// ToSource is where the point (x, y), in pixels of the page's words (origin at the top left,
// y down), stands on the page's image as it came: the words' straightening (Skew), the
// levelling and the quarter turns undone, in that order. A person checks a row against the
// page as it came, so that is where its outline is drawn.
func (p Page) ToSource(x, y float64) (float64, float64) {
	cx, cy := float64(p.Width)/2, float64(p.Height)/2
	if p.Skew != 0 {
		// straighten turned each word's centre by -Skew about the page's centre.
		x, y = turn(x-cx, y-cy, p.Skew)
		x, y = x+cx, y+cy
	}
	q := p.Placed
	if q.Width <= 0 || q.Height <= 0 {
		return x, y
	}
	tw, th := float64(q.Width), float64(q.Height)
	if q.Quarters%2 == 1 {
		tw, th = th, tw
	}
	if q.Level != 0 {
		// As Rotate finds the point of the upright page that lands on each of its pixels.
		rad := q.Level * math.Pi / 180
		sin, cos := math.Sin(rad), math.Cos(rad)
		dx, dy := x-cx, y-cy
		x, y = dx*cos+dy*sin+tw/2, -dx*sin+dy*cos+th/2
	}
	w, h := float64(q.Width), float64(q.Height)
	switch ((q.Quarters % 4) + 4) % 4 {
	case 1: // quarterTurns took (x, y) to (h-y, x)
		x, y = y, h-x
	case 2:
		x, y = w-x, h-y
	case 3: // (x, y) to (y, w-x)
		x, y = w-y, x
	}
	return x, y
}

// turn turns the point (x, y) about the origin by deg degrees (clockwise on a page, whose y
// runs down).
func turn(x, y, deg float64) (float64, float64) {
	sin, cos := math.Sincos(deg * math.Pi / 180)
	return x*cos - y*sin, x*sin + y*cos
}

// Confidence is the mean confidence of the page's words, from 0 to 100; 0 without words.
func (p Page) Confidence() float64 {
	var sum float64
	for _, w := range p.Words {
		sum += w.Conf
	}
	if len(p.Words) == 0 {
		return 0
	}
	return sum / float64(len(p.Words))
}

// ErrUnavailable: Tesseract is not installed where the statement is read.
var ErrUnavailable = errors.New("OCR is not available on this server (the tesseract program is missing)")

// Languages returns the languages to read with: o.Languages, or every installed language but
// the orientation data (osd), English first.
func Languages(o statement.OCR) (string, error) {
	if o.Languages != "" {
		return o.Languages, nil
	}
	installedOnce.Do(func() { installed, installedErr = listLanguages() })
	return installed, installedErr
}

var (
	installedOnce sync.Once
	installed     string
	installedErr  error
)

func listLanguages() (string, error) {
	out, err := exec.Command("tesseract", "--list-langs").CombinedOutput()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrUnavailable
		}
		return "", fmt.Errorf("tesseract --list-langs: %w: %s", err, bytes.TrimSpace(out))
	}
	var langs []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, " ") || strings.HasSuffix(l, ":") || l == "osd" {
			continue
		}
		langs = append(langs, l)
	}
	slices.Sort(langs)
	if i := slices.Index(langs, "eng"); i > 0 {
		langs = append([]string{"eng"}, slices.Delete(langs, i, i+1)...)
	}
	if len(langs) == 0 {
		return "", fmt.Errorf("%w: no language data installed", ErrUnavailable)
	}
	return strings.Join(langs, "+"), nil
}

// Source gives a page's image as it came (in gray) and its resolution in DPI (0 when unknown),
// each time it is called: a page is prepared from it when it is first read, and again when it
// is turned upright.
type Source func() (*image.Gray, float64, error)

// Image is a page to be read by Tesseract: its Source, and the page made ready for Tesseract
// (Prepare) in a file of dir while it is kept, so that it can be read in several Modes without
// being prepared again. Release drops the file; the next Read prepares the page again.
type Image struct {
	src       Source // nil for a page read as it is (AsIs)
	dir, name string
	// path is the prepared page's file; "" until it is prepared, and after Release.
	path          string
	dpi           float64
	width, height int
	// quarters is how many quarter turns clockwise stand the page upright (Upright).
	quarters int
	// placed is how the prepared page was turned.
	placed Placement
}

// NewImage is the page whose image src gives, prepared into the file name in dir when it is
// read.
func NewImage(src Source, dir, name string) *Image {
	return &Image{src: src, dir: dir, name: name}
}

// AsIs is a page image in the file at path that Go cannot decode (a TIFF compressed in a way
// Go's decoder lacks, such as JPEG), handed to Tesseract as it is: not levelled, not cleared of
// rules and not turned upright, but read. Its resolution is the file's own.
func AsIs(path string) *Image { return &Image{path: path} }

// Prepare makes the page ready to be read and writes it into its file, unless it is there
// already: the page turned upright (quarters), then, when its print is askew, turned level
// (Tesseract reads a skewed line worse, and the rules of a skewed table cut through the words
// of its header), and its ruled lines erased (Tesseract drops the words that touch them).
func (im *Image) Prepare() error {
	if im.path != "" {
		return nil
	}
	g, dpi, err := im.src()
	if err != nil {
		return err
	}
	placed := Placement{Width: g.Bounds().Dx(), Height: g.Bounds().Dy(), Quarters: im.quarters}
	g = quarterTurns(g, im.quarters)
	if skew := Skew(g); math.Abs(skew) >= minSkew {
		g = Rotate(g, -skew)
		placed.Level = -skew
	}
	eraseRules(g, dpi)
	path := filepath.Join(im.dir, im.name+".pgm")
	if err := writePGM(path, g); err != nil {
		return err
	}
	im.path, im.dpi, im.width, im.height, im.placed = path, dpi, g.Bounds().Dx(), g.Bounds().Dy(), placed
	return nil
}

// Release deletes the prepared page's file: a statement read only once need not keep every
// page on disk. A page read as it is keeps its file.
func (im *Image) Release() {
	if im.src == nil || im.path == "" {
		return
	}
	_ = os.Remove(im.path)
	im.path = ""
}

// Upright turns the page the right way up when Tesseract's orientation detection (OSD) finds
// its print on its side or upside down: a page fed into a scanner the wrong way, or
// photographed sideways. The page is prepared again from its source, turned by quarter turns
// (turning the levelled page would blur it twice). It reports whether it turned the page; not
// when it is upright or OSD cannot tell (no print, or no orientation data installed).
func (im *Image) Upright(ctx context.Context, o statement.OCR) (bool, error) {
	if im.src == nil {
		return false, nil
	}
	if err := im.Prepare(); err != nil {
		return false, err
	}
	o = o.WithDefaults()
	turn, err := orientation(ctx, im.path, im.dpi, o)
	if err != nil || turn == 0 {
		return false, err
	}
	im.Release()
	im.quarters = (im.quarters + turn/90) % 4
	return true, nil
}

// UprightAll turns upright each of the pages that lies the wrong way (Image.Upright), and
// reports whether it turned any.
func UprightAll(ctx context.Context, ims []*Image, o statement.OCR) (bool, error) {
	turned := false
	for _, im := range ims {
		ok, err := im.Upright(ctx, o)
		if err != nil {
			return false, err
		}
		turned = turned || ok
	}
	return turned, nil
}

// minOrientationConfidence is the least confidence of Tesseract's orientation detection that a
// page is turned on: on a page of print it says 5 to 15, on a speck or two about 0.
const minOrientationConfidence = 2

// orientation asks Tesseract (OSD, --psm 0) by how many degrees clockwise the image in the file
// at path must be turned to stand the right way up: 0, 90, 180 or 270. 0 when it cannot tell.
func orientation(parent context.Context, path string, dpi float64, o statement.OCR) (int, error) {
	ctx, cancel := context.WithTimeout(parent, o.PageTimeout)
	defer cancel()
	args := []string{path, "stdout", "--psm", "0"}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(int(math.Round(dpi))))
	}
	cmd := exec.CommandContext(ctx, "tesseract", args...)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if parent.Err() != nil {
		return 0, parent.Err()
	}
	if ctx.Err() != nil {
		return 0, statement.Errorf("", statement.ErrResourceLimit, statement.Position{},
			"finding which way up the scanned page is took longer than %s", o.PageTimeout)
	}
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return 0, ErrUnavailable
		}
		// Too little print to tell, or no orientation data: the page is read as it lies.
		return 0, nil
	}
	return parseOrientation(out), nil
}

// parseOrientation reads Tesseract's OSD report ("Rotate: 180", "Orientation confidence:
// 13.96"): the clockwise turn that stands the page up, 0 when unsure.
func parseOrientation(out []byte) int {
	turn, conf := 0, 0.0
	for _, l := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Rotate":
			turn, _ = strconv.Atoi(v)
		case "Orientation confidence":
			conf, _ = strconv.ParseFloat(v, 64)
		}
	}
	if conf < minOrientationConfidence || (turn != 90 && turn != 180 && turn != 270) {
		return 0
	}
	return turn
}

// Mode is how Tesseract finds the text of a page (its page segmentation mode).
type Mode int

// The modes a statement is read in, in the order they are tried.
const (
	// Blocks finds the page's blocks of text and reads each: right for most pages.
	Blocks Mode = 3
	// Column takes the page as one column of lines of varying sizes: it keeps a table's
	// columns that Blocks may take for a picture and drop.
	Column Mode = 4
	// Sparse finds as much text as it can, in no order: it keeps words Blocks and Column
	// lose between a table's rules.
	Sparse Mode = 11
)

// Modes are the ways a statement is read, in the order they are tried.
var Modes = []Mode{Blocks, Column, Sparse}

// Read reads the words of the page in the given mode, within o's time per page, preparing it
// first if it is not. The words' boxes are in pixels of the prepared (turned) page.
func (im *Image) Read(ctx context.Context, mode Mode, o statement.OCR) (Page, error) {
	if err := im.Prepare(); err != nil {
		return Page{}, err
	}
	ps, err := recognize(ctx, im.path, im.dpi, mode, o)
	if err != nil {
		return Page{}, err
	}
	p := Page{Width: im.width, Height: im.height, DPI: im.dpi}
	if len(ps) > 0 {
		p = ps[0]
	}
	p.Placed = im.placed
	return p, nil
}

// minSkew is the least skew, in degrees, worth turning a page for: below it a line of a page's
// width drifts by less than a pixel or two.
const minSkew = 0.1

// writePGM writes g as a binary PGM, which Tesseract (Leptonica) reads without the cost of
// compressing a PNG.
func writePGM(path string, g *image.Gray) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	b := g.Bounds()
	fmt.Fprintf(w, "P5\n%d %d\n255\n", b.Dx(), b.Dy())
	for y := 0; y < b.Dy(); y++ {
		w.Write(g.Pix[y*g.Stride : y*g.Stride+b.Dx()])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pagesRead counts the pages Tesseract has read in this process (PagesRead).
var pagesRead atomic.Int64

// PagesRead is how many page images Tesseract has read in this process, for the metrics: a page
// read again in another mode counts again.
func PagesRead() int64 { return pagesRead.Load() }

// recognize runs Tesseract in the given mode on the image in the file at path, of one page.
func recognize(parent context.Context, path string, dpi float64, mode Mode, o statement.OCR) ([]Page, error) {
	o = o.WithDefaults()
	langs, err := Languages(o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(parent, o.PageTimeout)
	defer cancel()
	args := []string{path, "stdout", "-l", langs, "--psm", strconv.Itoa(int(mode))}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(int(math.Round(dpi))))
	}
	// Sauvola's local threshold copes with the uneven light of phone photos.
	args = append(args, "-c", "thresholding_method=2", "tsv")
	cmd := exec.CommandContext(ctx, "tesseract", args...)
	// One thread a page: OpenMP's threads cost more than they give on a few cores, and the
	// workers already read several jobs at once.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pagesRead.Add(1)
	out, err := cmd.Output()
	if ctx.Err() != nil {
		if parent.Err() != nil {
			// The job's attempt ended (its deadline, a shutdown): its runner says why.
			return nil, parent.Err()
		}
		return nil, statement.Errorf("", statement.ErrResourceLimit, statement.Position{},
			"reading the scanned pages took longer than %s a page", o.PageTimeout)
	}
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrUnavailable
		}
		return nil, fmt.Errorf("tesseract: %w: %s", err, lastLine(stderr.String()))
	}
	ps, err := parseTSV(out)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		ps[i].DPI = dpi
		straighten(&ps[i])
		repairSeparators(&ps[i])
	}
	return ps, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// parseTSV reads Tesseract's TSV: one row a page (level 1), block, paragraph, line and word
// (level 5, with its text and confidence).
func parseTSV(out []byte) ([]Page, error) {
	var pages []Page
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	header := true
	for sc.Scan() {
		if header {
			header = false
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 {
			continue
		}
		num := func(i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v }
		switch f[0] {
		case "1":
			pages = append(pages, Page{Width: int(num(8)), Height: int(num(9))})
		case "5":
			text := cleanWord(f[11])
			if text == "" || len(pages) == 0 || num(10) < 0 {
				continue
			}
			p := &pages[len(pages)-1]
			line := int(num(2))*1_000_000 + int(num(3))*1_000 + int(num(4))
			p.Words = append(p.Words, Word{Text: text, Left: num(6), Top: num(7), Width: num(8), Height: num(9),
				Conf: num(10), Line: line})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read tesseract output: %w", err)
	}
	return pages, nil
}

// cleanWord drops what OCR makes of specks: a word of punctuation alone ("_", "|", "—"), and
// quotes stuck to a word of letters ("“Paid" for "Paid"); it reads a quote or tilde before an
// amount as the minus sign it was. Quotes around digits are left, and so
// is any sign or bracket: they may be an amount's.
func cleanWord(text string) string {
	text = strings.TrimSpace(text)
	if strings.Trim(text, "_|—–-~^`'\".,:;“”„‘’") == "" && !strings.ContainsAny(text, "-") {
		return ""
	}
	if m := dashedAmount.FindStringSubmatch(text); m != nil {
		return "-" + m[1]
	}
	core := strings.Trim(text, "“”„\"'‘’`")
	if core != "" && core != text && strings.IndexFunc(core, unicode.IsLetter) >= 0 && strings.IndexFunc(core, unicode.IsDigit) < 0 {
		return core
	}
	return repairDigits(text)
}

// Letters OCR reads for digits in print: O for 0, I and l for 1, S for 5.
var digitLike = strings.NewReplacer("O", "0", "o", "0", "I", "1", "l", "1", "S", "5")

var (
	// ordinal is a day with its ordinal suffix whose digits may have been read as letters
	// ("Ist" for 1st, "Sth" for 5th).
	ordinal = regexp.MustCompile(`^([0-9OIlS]{1,2})(st|nd|rd|th)$`)
	// numberLike is an amount or date whose digits may have been read as letters: signs,
	// brackets, separators and at least two real digits.
	numberLike = regexp.MustCompile(`^[-+(£$€]?[0-9OolIS][0-9OolIS.,/-]*[0-9OolIS][)%]?$`)
	// dashedAmount is an amount whose minus sign OCR read as a quote, a tilde or a dash of
	// another length ("“970.75", "~2,434.63", "—86.00"): no amount is printed after an opening
	// quote alone.
	dashedAmount = regexp.MustCompile(`^[“”"'‘’~—–‐−]([0-9][0-9.,]*[.,][0-9]{2})$`)
	// amountWithSuffix is an amount with its cents and a German debit mark set against it
	// ("73,39S"): the S is Soll, not a 5.
	amountWithSuffix = regexp.MustCompile(`[.,][0-9]{2}S$`)
)

// repairDigits turns the letters OCR read for digits back into digits, in a word that is
// otherwise a number: "Ist" is 1st, "1,O5O.00" is 1,050.00. A word with more such letters than
// digits is taken to be a word.
func repairDigits(text string) string {
	if m := ordinal.FindStringSubmatch(text); m != nil {
		return digitLike.Replace(m[1]) + m[2]
	}
	if !numberLike.MatchString(text) || amountWithSuffix.MatchString(text) {
		return text
	}
	digits, letters := 0, 0
	for _, r := range text {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("OolIS", r):
			letters++
		}
	}
	if letters == 0 || digits < 2 || letters > digits {
		return text
	}
	return digitLike.Replace(text)
}

// separated is an amount with its cents and digit groups: its separators are what OCR may
// have misread, a comma for a point or a point for a comma.
var separated = regexp.MustCompile(`^([-+(]?[£$€]?)([0-9]{1,3}(?:[.,][0-9]{3})*)([.,])([0-9]{2})(\)?)$`)

// repairSeparators reads the separators of the page's amounts by the page's own decimal mark:
// when nearly all its amounts that show their mark agree ("1,234.56" and "12.50": a point),
// an amount that cannot be written with that mark ("2,418,80", "8.677.99") had a separator
// misread, and takes the page's.
func repairSeparators(p *Page) {
	point, comma := 0, 0
	for _, w := range p.Words {
		m := separated.FindStringSubmatch(w.Text)
		if m == nil {
			continue
		}
		groups := strings.ContainsAny(m[2], ".,")
		switch {
		case m[3] == "." && (!groups || !strings.Contains(m[2], ".")):
			point++
		case m[3] == "," && (!groups || !strings.Contains(m[2], ",")):
			comma++
		}
	}
	mark, group := "", ""
	switch {
	case point >= 3 && point >= 3*comma:
		mark, group = ".", ","
	case comma >= 3 && comma >= 3*point:
		mark, group = ",", "."
	default:
		return
	}
	for i := range p.Words {
		w := &p.Words[i]
		m := separated.FindStringSubmatch(w.Text)
		if m == nil || (m[3] == mark && !strings.Contains(m[2], mark)) {
			continue
		}
		w.Text = m[1] + strings.NewReplacer(".", group, ",", group).Replace(m[2]) + mark + m[4] + m[5]
	}
}

// descent is the part of a word's box below the baseline when the word has a descender.
const descent = 0.22

// descends reports whether text has a letter that reaches below the baseline, so its box's
// bottom is not the baseline.
func descends(text string) bool { return strings.ContainsAny(text, "gjpqyQ,;()[]{}|/\\@$") }

// straighten turns the page's words by the skew their lines show, so that the words of one
// printed row end at one height, and gives each word its line's baseline. The skew of a line is
// the slope of its words' bottoms; the page's is the median over lines of three words or more.
func straighten(p *Page) {
	byLine := map[int][]int{}
	for i, w := range p.Words {
		byLine[w.Line] = append(byLine[w.Line], i)
	}
	var slopes []float64
	for _, idx := range byLine {
		if len(idx) < 3 {
			continue
		}
		var xs, ys []float64
		for _, i := range idx {
			w := p.Words[i]
			if descends(w.Text) {
				continue
			}
			xs = append(xs, w.Left+w.Width/2)
			ys = append(ys, w.Top+w.Height)
		}
		if s, ok := slope(xs, ys); ok {
			slopes = append(slopes, s)
		}
	}
	if len(slopes) > 0 {
		sort.Float64s(slopes)
		m := slopes[len(slopes)/2]
		if math.Abs(m) > math.Tan(0.05*math.Pi/180) && math.Abs(m) < math.Tan(10*math.Pi/180) {
			p.Skew = math.Atan(m) * 180 / math.Pi
			cx, cy := float64(p.Width)/2, float64(p.Height)/2
			sin, cos := math.Sin(-math.Atan(m)), math.Cos(-math.Atan(m))
			for i := range p.Words {
				w := &p.Words[i]
				x, y := w.Left+w.Width/2-cx, w.Top+w.Height/2-cy
				nx, ny := x*cos-y*sin+cx, x*sin+y*cos+cy
				w.Left, w.Top = nx-w.Width/2, ny-w.Height/2
			}
		}
	}
	for _, idx := range byLine {
		var bottoms, raised []float64
		for _, i := range idx {
			w := p.Words[i]
			if descends(w.Text) {
				// A letter's descender reaches about a fifth of the box below the baseline; a
				// comma, a slash or a bracket hardly does.
				d := 0.0
				if strings.ContainsAny(w.Text, "gjpqy") {
					d = descent * w.Height
				}
				raised = append(raised, w.Top+w.Height-d)
			} else {
				bottoms = append(bottoms, w.Top+w.Height)
			}
		}
		base := median(bottoms)
		if len(bottoms) == 0 {
			base = median(raised)
		}
		// Tesseract's lines are loose: a header cell's second line ("Withdrawal" over
		// "Amt.") may join the line beside it. A word whose own baseline is well off its
		// line's keeps its own.
		h := median(heightsOf(p.Words, idx))
		for _, i := range idx {
			w := &p.Words[i]
			own := w.Top + w.Height
			if descends(w.Text) {
				own -= descent * w.Height
			}
			w.Baseline = base
			if math.Abs(own-base) > 0.6*h {
				w.Baseline = own
			}
		}
	}
}

// slope fits y = a + b x by least squares; false for fewer than three points or no spread in x.
func slope(xs, ys []float64) (float64, bool) {
	if len(xs) < 3 {
		return 0, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

// heightsOf returns the heights of the words at idx.
func heightsOf(ws []Word, idx []int) []float64 {
	hs := make([]float64, len(idx))
	for k, i := range idx {
		hs[k] = ws[i].Height
	}
	return hs
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	return s[len(s)/2]
}
