package scan

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/ocr"
)

// benchPage is a one-page statement scanned at 300 DPI, from the corpus, whose first reading
// reconciles: it is read once, as most pages are.
var benchPage = filepath.Join("..", "corpus", "testdata", "scans", "credit-card-uk-chromium-scan-300.png")

// BenchmarkOCRPage reads one 300 DPI page through the whole pipeline a worker runs: decode,
// levelling and rule erasing, Tesseract, straightening, the layout reader and the statement's
// checks. Compare it with
// BenchmarkTesseractCommand, Tesseract alone on the same page with the same settings.
func BenchmarkOCRPage(b *testing.B) {
	data, err := os.ReadFile(benchPage)
	if err != nil {
		b.Fatal(err)
	}
	opts := statement.Options{OCR: &statement.OCR{}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkTesseractCommand runs the tesseract program on the page as the pipeline does (same
// languages, segmentation, threshold and TSV output, one thread), and nothing else.
func BenchmarkTesseractCommand(b *testing.B) {
	langs, err := ocr.Languages(statement.OCR{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.Command("tesseract", benchPage, "stdout", "-l", langs, "--psm", "3", "-c", "thresholding_method=2", "tsv")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkPreparePage is the pipeline's own work on the page before Tesseract: decode, gray,
// the skew measured and taken out, the rules erased, the image written for Tesseract.
func BenchmarkPreparePage(b *testing.B) {
	data, err := os.ReadFile(benchPage)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		source := func() (*image.Gray, float64, error) {
			img, _, err := image.Decode(bytes.NewReader(data))
			if err != nil {
				return nil, 0, err
			}
			gray, scale := prepare(img, statement.DefaultOCRMaxPixels)
			return gray, estimateDPI(img.Bounds()) * scale, nil
		}
		im := ocr.NewImage(source, dir, "page")
		if err := im.Prepare(); err != nil {
			b.Fatal(err)
		}
		im.Release()
	}
}
