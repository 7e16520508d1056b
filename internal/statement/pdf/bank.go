package pdf

import (
	"regexp"
	"strings"

	"github.com/statementmatch/service/internal/statement"
)

// bicLabel finds a BIC written after its label, as statements print their bank's: "BIC:
// COBADEFFXXX", "SWIFT/BIC DEUTDEFF", "SWIFT code: BARCGB22". A bare "SWIFT" counts only
// before a colon ("SWIFT TRANSFER" is no BIC).
var bicLabel = regexp.MustCompile(`(?i)\b(?:BIC(?:[ /-]?(?:SWIFT|code))?|SWIFT[ /-]?(?:BIC|code)|SWIFT\s*:)\s*:?\s*([A-Za-z0-9]{8,11})\b`)

// isBIC checks the shape of a BIC (ISO 9362): four letters of bank, two of country, two
// letters or digits of location, and an optional three of branch.
func isBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		letter := c >= 'A' && c <= 'Z'
		if i < 6 && !letter || !letter && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// bankOf returns the BIC that the lines around the table name, and the bank it belongs to.
// Only a labelled BIC counts, and only when the statement names one: lines inside the table
// name counterparties' banks, and two different BICs leave the statement's own unknown.
func bankOf(lines []string) (bic, name string) {
	for _, l := range lines {
		for _, m := range bicLabel.FindAllStringSubmatch(l, -1) {
			b := m[1]
			if !isBIC(b) {
				continue
			}
			if bic != "" && bic != b && !(len(b) == 11 && strings.HasPrefix(b, bic) || len(bic) == 11 && strings.HasPrefix(bic, b)) {
				return "", ""
			}
			if len(b) > len(bic) {
				bic = b
			}
		}
	}
	if bic == "" {
		return "", ""
	}
	return bic, statement.BankByBIC(bic)
}
