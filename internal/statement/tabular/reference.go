package tabular

import (
	"regexp"
	"strings"
)

// Statements printed as PDFs have no reference column: the reference a payment carries is a
// line of its description ("Omschrijving: Factuur 2023-0042", "REF: INV-1043", "EREF+
// RE2023-77", "Betalingskenmerk: 1234 5678 9012"), often the second or third. refInText
// finds it there.

// refToken matches labels followed by one identifier (REF: INV-1043, EREF+ X, UTR N123).
var refToken = regexp.MustCompile(`(?i)(?:^|[\s/:;,(])` +
	`(?:end-?to-?end(?:[- ]?(?:ref|id))?|eref|mref|payment ref(?:erence)?|customer ref(?:erence)?|your ref(?:erence)?|` +
	`ref(?:erence)?(?: no| number)?|invoice(?: no| number)?|inv no|referenz|référence|referencia|referência|utr|rrn|txn id|transaction id)` +
	`\s*[:.#+=-]?\s*([A-Za-z0-9][A-Za-z0-9/._-]{2,34})`)

// refText matches labels followed by free text (a payment description of several words).
var refText = regexp.MustCompile(`(?i)(?:^|[\s/:;,(])(?:betalingskenmerk|kenmerk|omschrijving|verwendungszweck|remittance info(?:rmation)?)` +
	`\s*[:.+]\s*([A-Za-z0-9][A-Za-z0-9 /._-]{2,40})`)

// labelNext is where free text ends: the next label ("Naam:", "KREF+").
var labelNext = regexp.MustCompile(`\s+\S+[:+]`)

// refInText returns the first labelled reference in a description that holds a digit, or "".
func refInText(s string) string {
	if len(s) > 2000 {
		s = s[:2000]
	}
	if m := refText.FindStringSubmatch(s); m != nil {
		v := m[1]
		if i := labelNext.FindStringIndex(v); i != nil {
			v = v[:i[0]]
		}
		if v = strings.TrimSpace(v); strings.ContainsAny(v, "0123456789") {
			return v
		}
	}
	for _, m := range refToken.FindAllStringSubmatch(s, 4) {
		v := strings.TrimRight(m[1], ".,-/")
		if strings.ContainsAny(v, "0123456789") {
			return v
		}
	}
	return ""
}
