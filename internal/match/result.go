package match

import "github.com/shopspring/decimal"

// Outcome is what became of an expected reference.
type Outcome int

// The outcomes; every expected row gets exactly one.
const (
	// Unmatched: no bank line mentions the reference (or every one was used by another).
	Unmatched Outcome = iota
	// Matched: one bank line, or several together (instalments), pay exactly the amount, or
	// one line pays it together with the other references it names (a combined payment).
	Matched
	// Partial: bank lines mention the reference but do not pay it exactly; Reason says how.
	Partial
)

// Reason says why a reference is Partial.
type Reason string

// The reasons of a Partial reference, as in the API's PartialReason.
const (
	ReasonAmountMismatch   Reason = "amount_mismatch"
	ReasonCurrencyMismatch Reason = "currency_mismatch"
	ReasonDuplicatePayment Reason = "duplicate_payment"
)

// Rule names the matching rule that decided a reference, as in the API's MatchRule: a
// Matched reference's exact, combined_payment or instalments, a Partial one's reason.
type Rule string

// The rules.
const (
	// RuleExact: one line pays exactly the expected amount (pass 1).
	RuleExact Rule = "exact"
	// RuleCombinedPayment: one line names several references and pays exactly the sum of their
	// expected amounts (pass 1, after the exact payments).
	RuleCombinedPayment Rule = "combined_payment"
	// RuleInstalments: two or more lines together pay exactly the expected amount (pass 2).
	RuleInstalments Rule = "instalments"

	RuleAmountMismatch   = Rule(ReasonAmountMismatch)
	RuleCurrencyMismatch = Rule(ReasonCurrencyMismatch)
	RuleDuplicatePayment = Rule(ReasonDuplicatePayment)
)

// Reference is the outcome of one expected row.
type Reference struct {
	// Expected is the row's index in the expected slice given to Reconcile.
	Expected int
	Outcome  Outcome
	// Reason is set for Partial only.
	Reason Reason
	// Rule is the rule that decided a Matched or Partial reference; empty for Unmatched.
	Rule Rule
	// Entries are indexes into the bank slice given to Reconcile of the lines attributed to the
	// reference, in statement order; empty for Unmatched. A line belongs to one reference,
	// except the line of a combined payment, which belongs to every reference it pays, and a
	// line of a Partial reference decided in pass 3, which may also belong to other references
	// of pass 3 it names.
	Entries []int
	// Paid is the sum of the absolute amounts of Entries, except for a combined payment: there
	// it is the reference's share of the line, its expected amount.
	Paid decimal.Decimal
	// Suggestions, for an Unmatched reference only, are indexes of bank lines that no
	// reference used and that pay exactly its amount in an agreeing currency, at most
	// MaxSuggestions, nearest to its due date first (else in statement order). They decide
	// nothing; nil when there are none.
	Suggestions []int
}

// Summary counts the outcomes. Totals add amounts as written, without currency conversion.
type Summary struct {
	ExpectedCount             int
	MatchedCount              int
	PartialCount              int
	UnmatchedCount            int
	UnmatchedBankEntriesCount int
	// ExpectedTotal is the sum of the absolute expected amounts of all rows.
	ExpectedTotal decimal.Decimal
	// MatchedTotal is the sum of the absolute expected amounts of the Matched rows.
	MatchedTotal decimal.Decimal
}

// Result is the outcome of a reconciliation.
type Result struct {
	// References holds one Reference per expected row, in the order of the expected slice.
	References []Reference
	// Unused are indexes of the bank lines attributed to no reference, in statement order.
	Unused  []int
	Summary Summary
}
