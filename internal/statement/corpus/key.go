package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Key is the answer key of one corpus file, written by the generator from the same data the
// PDF was rendered from. Amounts and balances are decimal strings, signed from the account
// holder's side: credits (money in) positive, debits negative.
type Key struct {
	Layout   string `json:"layout"`
	Producer string `json:"producer"`
	// Variant is empty for the producer's own output, otherwise what was done to it
	// ("gs" re-distilled, "linearized", "objstm", "owner-encrypted", "user-encrypted",
	// "damaged-xref", ...).
	Variant string `json:"variant"`
	// PopplerOpens records whether poppler's pdftotext opened the file when it was generated.
	PopplerOpens bool `json:"poppler_opens"`
	// Password is the user password the file needs to open; empty when it opens without one.
	Password       string           `json:"password"`
	Account        string           `json:"account"`
	Currency       string           `json:"currency"`
	PeriodStart    string           `json:"period_start"`
	PeriodEnd      string           `json:"period_end"`
	OpeningBalance *string          `json:"opening_balance"`
	ClosingBalance *string          `json:"closing_balance"`
	Transactions   []KeyTransaction `json:"transactions"`

	// The fields of a scan (testdata/scans), absent from the PDFs' keys.

	// Source is the name of the corpus PDF the scan was made from, without ".pdf".
	Source string `json:"source,omitempty"`
	// DPI is the resolution of the scan's images: 300 or 150, or what a phone photo of the
	// page comes to.
	DPI int `json:"dpi,omitempty"`
	// Pages is the number of pages in the scan, SourcePages the number in its source. When
	// fewer, the scan holds the first Pages pages, Transactions are those printed on them, and
	// a balance is kept only when it is printed on them.
	Pages       int `json:"pages,omitempty"`
	SourcePages int `json:"source_pages,omitempty"`
}

// KeyTransaction is one transaction of a key, in the order the statement prints it.
type KeyTransaction struct {
	Date        string `json:"date"` // YYYY-MM-DD
	Amount      string `json:"amount"`
	Description string `json:"description"`
	Reference   string `json:"reference"`
}

// KeyPath returns the key file that belongs to the corpus file at path: a PDF, or a scan in
// any of its formats.
func KeyPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".key.json"
}

// ReadKey reads the key of the corpus file at path.
func ReadKey(path string) (Key, error) {
	var k Key
	b, err := os.ReadFile(KeyPath(path))
	if err != nil {
		return k, err
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return k, fmt.Errorf("%s: %w", KeyPath(path), err)
	}
	return k, nil
}

// ScanExts are the file types of the scans: a PNG or a multi-page TIFF from a flatbed, an
// image-only PDF, a JPEG from a phone.
var ScanExts = []string{".png", ".tif", ".pdf", ".jpg"}

// ScanFiles returns the scans under dir (testdata/scans), sorted by name.
func ScanFiles(dir string) ([]string, error) {
	var files []string
	for _, ext := range ScanExts {
		f, err := filepath.Glob(filepath.Join(dir, "*"+ext))
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	sort.Strings(files)
	return files, nil
}

// Files returns the corpus PDFs under dir, sorted by name.
func Files(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	sort.Strings(files)
	return files, err
}
