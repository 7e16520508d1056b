// Package match is the reconciliation engine: it matches the rows of an expected-references file
// against the lines of a bank statement, following the rules of the Reconciliation API
// (openapi/reconciliation.yaml, GET /api/v1/jobs/{job_id}/results). It is pure and
// deterministic: no I/O, no clock, no randomness; the same input always gives the same Result.
package match

import (
	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
)

// Expected is one row of an expected-references file: a payment the business expects.
type Expected struct {
	// Row is the row's 1-based position in its file (the header is row 1 in a CSV file), for
	// messages.
	Row int
	// Reference is the reference as written in the file; it is matched by its tokens.
	Reference string
	// Amount is the expected amount; its sign is ignored.
	Amount decimal.Decimal
	// Currency is an ISO 4217 code, or empty when the file names none.
	Currency string
	// DueDate is the zero Date when the file has none.
	DueDate statement.Date
	// Name is the payer's name, informational only.
	Name string
}

// BankEntry is one line (transaction) of a bank statement.
type BankEntry struct {
	// Line is the entry's 1-based position in the statement's own order.
	Line int
	Date statement.Date
	// Amount is signed: credits positive, debits negative. Matching ignores the sign.
	Amount decimal.Decimal
	// Currency is an ISO 4217 code, or empty when the statement names none.
	Currency string
	// Text is what references are searched in: booking text, remittance information and
	// reference fields joined by single spaces.
	Text string
}
