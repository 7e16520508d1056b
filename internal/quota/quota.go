// Package quota holds what both APIs' monthly job quotas share: the calendar period a new job is
// charged to, the charge a store applies in the job's transaction, and the refusal once a
// period's count is used up. Each API decides its own limits and scope (reconjob.QuotaLimit,
// parsejob.MonthlyLimit); the store counts.
package quota

import (
	"errors"
	"fmt"
	"time"
)

// Period returns the calendar month (UTC) that holds now: its first instant and the first
// instant of the next month, when the quota resets.
func Period(now time.Time) (start, reset time.Time) {
	now = now.UTC()
	start = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

// Charge is the quota charge of a new job.
type Charge struct {
	// Scope names the counter: each API, and each environment of the Reconciliation API, counts
	// its own jobs.
	Scope  string
	Period time.Time
	Limit  int
	// ResetAt is when the period ends, for the Error.
	ResetAt time.Time
	// Announce lists the shares of Limit, in percent, whose reaching the store announces
	// (usage.threshold), once per account, scope and period.
	Announce []int
}

// ErrExceeded: the account's monthly job quota is used up; see Error.
var ErrExceeded = errors.New("job quota exceeded")

// Error is the ErrExceeded error with what a client needs to know.
type Error struct {
	Limit   int
	ResetAt time.Time
}

func (e *Error) Error() string {
	return fmt.Sprintf("the monthly quota of %d jobs is used up; it resets at %s", e.Limit, e.ResetAt.Format(time.RFC3339))
}

// Unwrap makes errors.Is(err, ErrExceeded) true.
func (e *Error) Unwrap() error { return ErrExceeded }
