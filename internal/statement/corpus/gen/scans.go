package main

// The scanned part of the corpus: committed producer PDFs rasterized by pdftoppm and made into
// what a scanner or a phone writes, for the OCR reader. The image work is done here in Go with
// seeded randomness, so that a rebuild writes the same bytes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/statementmatch/service/internal/statement/corpus"
)

// scanSources are the producers' own PDFs that are scanned and photographed: every layout but
// the right-to-left ones (their scripts are not in the OCR languages), each producer, none over
// four pages.
var scanSources = []string{
	"us-checking-chromium",
	"us-checking-yearend-xelatex",
	"uk-current-libreoffice",
	"uk-current-groff",
	"in-savings-pdflatex",
	"in-savings-ddmmyy-libreoffice",
	"nl-sepa-xelatex",
	"de-giro-groff",
	"br-extrato-groff",
	"credit-card-libreoffice",
	"credit-card-uk-chromium",
	"mobile-money-pdflatex",
}

// buildScans writes the scans of scanSources from the PDFs in dir into dir/scans, replacing
// what is there.
func buildScans(dir, work string) {
	out := filepath.Join(dir, "scans")
	old, _ := filepath.Glob(filepath.Join(out, "*"))
	for _, f := range old {
		must(os.Remove(f))
	}
	must(os.MkdirAll(out, 0o755))
	var total int64
	var n int
	for _, name := range scanSources {
		src := filepath.Join(dir, name+".pdf")
		k, err := corpus.ReadKey(src)
		if err != nil {
			log.Fatal(err)
		}
		if k.Variant != "" {
			log.Fatalf("%s: a scan is made from a producer's own file, not a %s copy", name, k.Variant)
		}
		for _, v := range []struct {
			variant string
			dpi     int
			make    func(r *rand.Rand, src, base, work string) (file string, pages []int, err error)
		}{
			{"scan-300", 300, scan300}, {"scan-150", 150, scan150}, {"photo", 300, photo},
		} {
			base := filepath.Join(out, name+"-"+v.variant)
			// One seed per file, from its name: adding a source changes no other file.
			h := fnv.New64a()
			h.Write([]byte(filepath.Base(base)))
			r := rand.New(rand.NewPCG(2026, h.Sum64()))
			file, pages, err := v.make(r, src, base, work)
			if err != nil {
				log.Fatalf("%s: %v", base, err)
			}
			sk, err := scanKey(k, src, v.variant, v.dpi, pages)
			if err != nil {
				log.Fatalf("%s: %v", base, err)
			}
			b, _ := json.MarshalIndent(sk, "", "  ")
			must(os.WriteFile(base+".key.json", append(b, '\n'), 0o644))
			fi, err := os.Stat(file)
			must(err)
			total += fi.Size()
			n++
			log.Printf("%-48s %8d bytes  %d of %d pages, %d of %d transactions", filepath.Base(file), fi.Size(),
				sk.Pages, sk.SourcePages, len(sk.Transactions), len(k.Transactions))
		}
	}
	log.Printf("%d scans, %d bytes", n, total)
}

// rasterize renders pages first..last (last 0: to the end) of the PDF at dpi with pdftoppm, in
// gray or in colour, and returns the page images in order.
func rasterize(pdf, work string, dpi, first, last int, gray bool) ([]image.Image, error) {
	tmp, err := os.MkdirTemp(work, "pages-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	args := []string{"-r", strconv.Itoa(dpi), "-png", "-f", strconv.Itoa(first)}
	if last > 0 {
		args = append(args, "-l", strconv.Itoa(last))
	}
	if gray {
		args = append(args, "-gray")
	}
	if err := run(tmp, "pdftoppm", append(args, pdf, filepath.Join(tmp, "p"))...); err != nil {
		return nil, err
	}
	// pdftoppm pads the page numbers to one width, so the names sort in page order.
	files, _ := filepath.Glob(filepath.Join(tmp, "p-*.png"))
	var imgs []image.Image
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		imgs = append(imgs, img)
	}
	if len(imgs) == 0 {
		return nil, fmt.Errorf("pdftoppm rendered no page of %s", pdf)
	}
	return imgs, nil
}

// toGray returns the page as 8-bit gray (pdftoppm -gray still writes an RGB PNG).
func toGray(img image.Image) *image.Gray {
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	g := image.NewGray(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(g, g.Bounds(), img, img.Bounds().Min, draw.Src)
	return g
}

// pageNumbers returns 1..n.
func pageNumbers(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i + 1
	}
	return p
}

// scan300 is a flatbed scan at 300 DPI in gray: a small skew and a little sensor noise, which
// the scanner's white point clips to white on the paper and leaves at the edges of the print.
// The gray is kept to 16 levels, as a 4-bit scan mode does, which halves the files. One page is
// a PNG, several a multi-page TIFF.
func scan300(r *rand.Rand, src, base, work string) (string, []int, error) {
	pages, err := rasterize(src, work, 300, 1, 0, true)
	if err != nil {
		return "", nil, err
	}
	var scans []*image.Gray
	for _, p := range pages {
		g := rotateGray(toGray(p), signed(r, 0.3, 1.5), 255)
		addNoise(r, g, 7)
		levels(g, 24, 232)
		posterize(g, 16)
		scans = append(scans, g)
	}
	if len(scans) == 1 {
		var b bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(&b, scans[0]); err != nil {
			return "", nil, err
		}
		return base + ".png", []int{1}, os.WriteFile(base+".png", pngDPI(b.Bytes(), 300), 0o644)
	}
	b, err := multiTIFF(scans, 300)
	if err != nil {
		return "", nil, err
	}
	return base + ".tif", pageNumbers(len(scans)), os.WriteFile(base+".tif", b, 0o644)
}

// scan150 is a cheaper scan at 150 DPI: more skew, noise and a slight blur, written as scanners
// write PDFs: one JPEG per page and no text layer.
func scan150(r *rand.Rand, src, base, work string) (string, []int, error) {
	pages, err := rasterize(src, work, 150, 1, 0, true)
	if err != nil {
		return "", nil, err
	}
	var jpegs [][]byte
	var sizes []image.Point
	for _, p := range pages {
		g := rotateGray(toGray(p), signed(r, 1, 3), 255)
		blurGray(g)
		addNoise(r, g, 10)
		levels(g, 20, 236)
		var b bytes.Buffer
		if err := jpeg.Encode(&b, g, &jpeg.Options{Quality: 75}); err != nil {
			return "", nil, err
		}
		jpegs = append(jpegs, b.Bytes())
		sizes = append(sizes, g.Bounds().Size())
	}
	return base + ".pdf", pageNumbers(len(pages)), os.WriteFile(base+".pdf", imagePDF(jpegs, sizes, 150), 0o644)
}

// photo is a phone photo of the first page at about 300 DPI: the page on a desk, seen a little
// askew (a perspective and a rotation), lit unevenly, slightly soft, saved as a JPEG.
func photo(r *rand.Rand, src, base, work string) (string, []int, error) {
	pages, err := rasterize(src, work, 300, 1, 1, false)
	if err != nil {
		return "", nil, err
	}
	img := photograph(r, pages[0])
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		return "", nil, err
	}
	return base + ".jpg", []int{1}, os.WriteFile(base+".jpg", b.Bytes(), 0o644)
}

// signed returns a value of magnitude between lo and hi, of either sign.
func signed(r *rand.Rand, lo, hi float64) float64 {
	v := lo + r.Float64()*(hi-lo)
	if r.IntN(2) == 0 {
		return -v
	}
	return v
}

// scanKey is the source's key for a scan of the given pages of it. When not every page is in
// the scan, it keeps the transactions printed on those pages, and a balance only when it is
// printed there: the reader of a first page cannot know the closing balance printed on the
// last one.
func scanKey(k corpus.Key, src, variant string, dpi int, pages []int) (corpus.Key, error) {
	n, err := pageCount(src)
	if err != nil {
		return k, err
	}
	k.Variant = variant
	k.Source = strings.TrimSuffix(filepath.Base(src), ".pdf")
	k.DPI, k.Pages, k.SourcePages = dpi, len(pages), n
	if len(pages) == n {
		return k, nil
	}
	texts := make([]string, n)
	for i := range texts {
		out, err := exec.Command("pdftotext", "-q", "-layout", "-f", strconv.Itoa(i+1), "-l", strconv.Itoa(i+1), src, "-").Output()
		if err != nil {
			return k, fmt.Errorf("pdftotext page %d: %v", i+1, err)
		}
		texts[i] = string(out)
	}
	toks := pageTokens(texts)
	at, err := transactionTokens(k.Transactions, toks)
	if err != nil {
		return k, err
	}
	in := map[int]bool{}
	var shown []string
	for _, p := range pages {
		in[p] = true
		shown = append(shown, texts[p-1])
	}
	var txns []corpus.KeyTransaction
	for i, t := range k.Transactions {
		if !in[toks[at[i]].page] {
			continue
		}
		if i+1 < len(at) && !in[toks[at[i+1]].page] {
			// The last transaction before a page left out: its row may go on over the page
			// break, so keep what of it is printed on its own page.
			from := 0
			if i > 0 {
				from = at[i-1] + 1
			}
			var tail []string
			for _, tk := range toks[from:] {
				if tk.page == toks[at[i]].page {
					tail = append(tail, tk.text)
				}
			}
			t = printedPart(t, tail)
		}
		txns = append(txns, t)
	}
	k.Transactions = txns
	for _, b := range []**string{&k.OpeningBalance, &k.ClosingBalance} {
		if *b != nil && !printed(amountDigits(**b), strings.Join(shown, "\n")) {
			*b = nil
		}
	}
	return k, nil
}

var pagesRe = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)

func pageCount(pdf string) (int, error) {
	out, err := exec.Command("pdfinfo", pdf).Output()
	if err != nil {
		return 0, fmt.Errorf("pdfinfo: %v", err)
	}
	m := pagesRe.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pdfinfo prints no page count")
	}
	return strconv.Atoi(string(m[1]))
}

// amountRe is a printed amount, whatever its grouping and decimal mark: two decimals at the
// end, perhaps followed by a sign or a bracket.
var amountRe = regexp.MustCompile(`\d[.,]\d\d\D*$`)

// amountDigits is the digits of a key amount: "-1234.50" is "123450", as every layout prints
// it once the grouping, marks and signs are gone.
func amountDigits(a string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, a)
}

// printedPart returns the transaction with its description cut to the words that words has in
// order, and its reference emptied when the cut description and words lack it: what of a row
// broken over a page is printed on the first page.
func printedPart(t corpus.KeyTransaction, words []string) corpus.KeyTransaction {
	desc := strings.Fields(t.Description)
	var kept []string
	j := 0
	for _, w := range desc {
		var part string
		j, part = findWord(w, words, j)
		if part != "" {
			kept = append(kept, part)
		}
		if part != w {
			break
		}
	}
	if len(desc) > 0 && (len(kept) < len(desc) || kept[len(kept)-1] != desc[len(desc)-1]) {
		t.Description = strings.Join(kept, " ")
		log.Printf("  %s %s: the row goes on over the page break; the key keeps %q", t.Date, t.Amount, t.Description)
	}
	if t.Reference != "" && !strings.Contains(t.Description, t.Reference) && !slices.Contains(words, t.Reference) {
		t.Reference = ""
	}
	return t
}

// findWord looks for w in words from j on, perhaps wrapped over several of them (a narrow column
// breaks "UPI/CR/925841617389/RAHUL" after the slash, and other columns' words come between),
// and returns the index after it and what of w it found: all of it, or the part before a page
// break.
func findWord(w string, words []string, j int) (int, string) {
	rest := w
	for ; j < len(words); j++ {
		switch {
		case words[j] == rest:
			return j + 1, w
		case strings.HasPrefix(rest, words[j]):
			rest = rest[len(words[j]):]
		}
	}
	return j, w[:len(w)-len(rest)]
}

// token is a word of a page's text.
type token struct {
	text string
	page int
}

// pageTokens returns the words of the pages' texts, in order.
func pageTokens(texts []string) []token {
	var toks []token
	for i, t := range texts {
		for _, f := range strings.Fields(t) {
			toks = append(toks, token{f, i + 1})
		}
	}
	return toks
}

// printed reports whether the text prints an amount of the given digits.
func printed(digits, text string) bool {
	for _, f := range strings.Fields(text) {
		if amountRe.MatchString(f) && amountDigits(f) == digits {
			return true
		}
	}
	return false
}

// transactionTokens finds the token that is each transaction's printed amount: the statement
// prints them in the key's order, so each one's amount is looked for after the previous one's.
func transactionTokens(txns []corpus.KeyTransaction, toks []token) ([]int, error) {
	at := make([]int, len(txns))
	i := 0
	for n, t := range txns {
		d := amountDigits(t.Amount)
		for i < len(toks) && !(amountRe.MatchString(toks[i].text) && amountDigits(toks[i].text) == d) {
			i++
		}
		if i == len(toks) {
			return nil, fmt.Errorf("transaction %d (%s %s) is not printed after the one before it", n+1, t.Date, t.Amount)
		}
		at[n] = i
		i++
	}
	return at, nil
}
