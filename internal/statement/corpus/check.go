package corpus

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/statementmatch/service/internal/statement"
	"github.com/statementmatch/service/internal/statement/engine"
)

// Status is how the parser did on one corpus file.
type Status string

// The statuses, from best to worst for a user.
const (
	// Exact: no error, and the transactions (count, dates, signed amounts) and the balances
	// the key has are the key's.
	Exact Status = "exact"
	// ReviewWrong: the answer differs from the key but the statement went to review: honest.
	ReviewWrong Status = "review-wrong"
	// Failed: the parser returned an error; the job fails.
	Failed Status = "failed"
	// Incomplete: no review reasons and the key's transactions, but a balance the statement
	// prints was not read. Nothing read is wrong, so no check could fail; not exact either.
	Incomplete Status = "incomplete"
	// CompletedWrong: no review reasons but the answer differs: the silent wrong answer.
	CompletedWrong Status = "completed-wrong"
)

// Result is the parser's outcome on one corpus file, compared with the key.
type Result struct {
	Name   string
	Key    Key
	Status Status
	// Opened is true when the parser read the PDF's structure: no error, or an error about the
	// content (no transaction table, no transactions, no text layer) rather than about the file
	// (corrupt, encrypted, a resource limit, internal).
	Opened bool
	// Got and Want are the transaction counts; the sums are of credits and of debits.
	Got, Want                  int
	GotCredits, GotDebits      decimal.Decimal
	WantCredits, WantDebits    decimal.Decimal
	OpeningCheck, ClosingCheck string
	// Note is the error, or the first review reason.
	Note string
}

// Check parses data as the service does (engine.Parse with default options and the key's
// password) and compares the result with the key.
func Check(name string, data []byte, k Key) Result {
	st, err := engine.Parse(data, statement.Options{Password: k.Password})
	return Classify(name, st, err, k)
}

// Classify compares a parse's outcome (the statement, or the error) with the key.
func Classify(name string, st *statement.Statement, err error, k Key) Result {
	r := Result{Name: name, Key: k, Want: len(k.Transactions)}
	for _, t := range k.Transactions {
		a, _ := decimal.NewFromString(t.Amount)
		if a.IsNegative() {
			r.WantDebits = r.WantDebits.Add(a)
		} else {
			r.WantCredits = r.WantCredits.Add(a)
		}
	}
	if err != nil {
		r.Note = firstLine(err.Error())
		// Every corpus file starts with %PDF- (TestCorpus checks it), so ErrNotAStatement here
		// means the text was read but no transaction table found in it: the file opened.
		r.Opened = !errors.Is(err, statement.ErrCorrupt) && !errors.Is(err, statement.ErrEncrypted) &&
			!errors.Is(err, statement.ErrPasswordRequired) && !errors.Is(err, statement.ErrPasswordIncorrect) &&
			!errors.Is(err, statement.ErrInternal) && !errors.Is(err, statement.ErrResourceLimit)
		r.Status = Failed
		r.OpeningCheck, r.ClosingCheck = "-", "-"
		return r
	}
	r.Opened = true
	r.Got = len(st.Transactions)
	for _, t := range st.Transactions {
		if t.Amount.IsNegative() {
			r.GotDebits = r.GotDebits.Add(t.Amount)
		} else {
			r.GotCredits = r.GotCredits.Add(t.Amount)
		}
	}
	var okOpen, okClose bool
	r.OpeningCheck, okOpen = balanceCheck(st.OpeningBalance, k.OpeningBalance)
	r.ClosingCheck, okClose = balanceCheck(st.ClosingBalance, k.ClosingBalance)
	if len(st.Review) > 0 {
		r.Note = string(st.Review[0].Code) + ": " + firstLine(st.Review[0].Message)
	}
	same := sameTransactions(st.Transactions, k.Transactions)
	switch {
	case okOpen && okClose && same:
		r.Status = Exact
	case st.NeedsReview():
		r.Status = ReviewWrong
	case same && (okOpen || r.OpeningCheck == "missing") && (okClose || r.ClosingCheck == "missing"):
		r.Status = Incomplete
	default:
		r.Status = CompletedWrong
	}
	return r
}

// balanceCheck compares a balance with the key's: "ok", "missing", "got X", or "-" when the key
// has none (then anything the parser read is accepted).
func balanceCheck(got *decimal.Decimal, want *string) (string, bool) {
	if want == nil {
		return "-", true
	}
	w, err := decimal.NewFromString(*want)
	switch {
	case err != nil:
		return "bad key", false
	case got == nil:
		return "missing", false
	case !got.Equal(w):
		return "got " + got.String(), false
	}
	return "ok", true
}

type dateAmount struct {
	date   string
	amount decimal.Decimal
}

// sameTransactions reports whether the parser's transactions are the key's, by date and signed
// amount, in the key's order or in reverse (a statement printed newest first may be listed
// oldest first) or in date order (a statement printed section by section, deposits then
// checks, may be listed by date).
func sameTransactions(got []statement.Transaction, want []KeyTransaction) bool {
	if len(got) != len(want) {
		return false
	}
	g := make([]dateAmount, len(got))
	for i, t := range got {
		g[i] = dateAmount{fmt.Sprintf("%04d-%02d-%02d", t.Date.Year(), t.Date.Month(), t.Date.Day()), t.Amount}
	}
	w := make([]dateAmount, len(want))
	for i, t := range want {
		a, err := decimal.NewFromString(t.Amount)
		if err != nil {
			return false
		}
		w[i] = dateAmount{t.Date, a}
	}
	eq := func(a, b dateAmount) bool { return a.date == b.date && a.amount.Equal(b.amount) }
	if slices.EqualFunc(g, w, eq) {
		return true
	}
	rev := slices.Clone(g)
	slices.Reverse(rev)
	if slices.EqualFunc(rev, w, eq) {
		return true
	}
	byDate := func(a, b dateAmount) int {
		return cmp.Or(strings.Compare(a.date, b.date), a.amount.Cmp(b.amount))
	}
	slices.SortFunc(g, byDate)
	slices.SortFunc(w, byDate)
	return slices.EqualFunc(g, w, eq)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 110 {
		s = s[:110] + "..."
	}
	return s
}
