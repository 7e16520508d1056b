package camt

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"github.com/statementmatch/service/internal/statement"
)

// maxDigits bounds an amount's digits. ISO 20022 amounts have at most 18 digits; the margin
// admits odd exports while keeping hostile numbers out of the decimal arithmetic.
const maxDigits = 30

// parseAmount reads an ISO 20022 amount (Amt, Sum, TtlNetNtry/Amt): unsigned digits with an
// optional '.' and fraction, kept exactly as stated (8.850 stays 8.850). The direction is never in
// the number but in the CdtDbtInd beside it, so a sign is refused. It returns the problem as text
// instead of an error, ready for a message such as "Ntry/Amt \"12x\" is not a number".
func parseAmount(s string) (decimal.Decimal, string) {
	if s == "" {
		return decimal.Decimal{}, "is missing"
	}
	digits, dots := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return decimal.Decimal{}, fmt.Sprintf("%q is not a number", clip(s))
		}
	}
	if digits == 0 || dots > 1 {
		return decimal.Decimal{}, fmt.Sprintf("%q is not a number", clip(s))
	}
	if digits > maxDigits {
		return decimal.Decimal{}, fmt.Sprintf("%q has more than %d digits", clip(s), maxDigits)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Sprintf("%q is not a number", clip(s))
	}
	return d, ""
}

// parseDate reads the date part of an ISO date (Dt) or date-time (DtTm). Some banks put a full
// date-time, even with nanoseconds, into Dt, and xs:date may carry a zone, so anything after
// YYYY-MM-DD that starts like a time or zone is accepted and ignored: the bank's own calendar
// day is the date, not a conversion to UTC.
func parseDate(s string) (statement.Date, bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' || !isDigits(s[:4]) || !isDigits(s[5:7]) || !isDigits(s[8:10]) {
		return statement.Date{}, false
	}
	if len(s) > 10 && !strings.ContainsRune("TZ+- ", rune(s[10])) {
		return statement.Date{}, false
	}
	return statement.NewDate(atoi(s[:4]), timeMonth(atoi(s[5:7])), atoi(s[8:10]))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// trimmed returns an identifier or code without surrounding whitespace.
func trimmed(b []byte) string {
	return truncate(strings.TrimSpace(string(b)), maxField)
}

// collapse returns human text with every run of whitespace (line breaks of wrapped remittance
// lines included) made one space.
func collapse(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	space := false
	for _, r := range string(b) {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' {
			space = true
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	return truncate(sb.String(), maxField)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// clip shortens a value quoted in a message.
func clip(s string) string { return truncate(s, 40) }

func timeMonth(m int) time.Month { return time.Month(m) }
