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
}

// KeyTransaction is one transaction of a key, in the order the statement prints it.
type KeyTransaction struct {
	Date        string `json:"date"` // YYYY-MM-DD
	Amount      string `json:"amount"`
	Description string `json:"description"`
	Reference   string `json:"reference"`
}

// KeyPath returns the key file that belongs to the corpus PDF at pdfPath.
func KeyPath(pdfPath string) string {
	return strings.TrimSuffix(pdfPath, ".pdf") + ".key.json"
}

// ReadKey reads the key of the corpus PDF at pdfPath.
func ReadKey(pdfPath string) (Key, error) {
	var k Key
	b, err := os.ReadFile(KeyPath(pdfPath))
	if err != nil {
		return k, err
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return k, fmt.Errorf("%s: %w", KeyPath(pdfPath), err)
	}
	return k, nil
}

// Files returns the corpus PDFs under dir, sorted by name.
func Files(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	sort.Strings(files)
	return files, err
}
