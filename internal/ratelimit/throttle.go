package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// FailureStore counts attempts per key (a hashed client id, a source address) and calendar
// minute, exactly across every process that shares it.
type FailureStore interface {
	// AddFailure counts one more attempt, atomically, and returns the window's count.
	AddFailure(ctx context.Context, key string, windowStart time.Time) (int, error)
	// RemoveFailure takes one count back, atomically and never below zero, and returns the
	// window's count.
	RemoveFailure(ctx context.Context, key string, windowStart time.Time) (int, error)
}

// Throttle limits attempts per key and calendar minute: once Budget attempts of a key have
// been counted within a minute, every further attempt is refused until the minute ends, even
// one with the right credentials, so guessing a secret costs an attacker minutes, not
// milliseconds.
//
// An attempt whose outcome is not yet known is counted before it is tried (Count) and given
// back if it turns out not to be a failure (Refund): so no number of parallel requests gets
// more than Budget failures through in a minute, which checking the count first and adding to
// it after the failure would allow.
type Throttle struct {
	Store  FailureStore
	Now    func() time.Time
	Budget int
	// Refused, when set, is called for every attempt Count refuses (a metric's counter).
	Refused func()
}

// Count counts an attempt for key and says whether it is within the budget: Allowed while the
// window's count including this attempt is at most Budget. It limits requests refused for
// their credentials per source address as it is, and reserves a place for an attempt that
// Refund may give back.
func (t *Throttle) Count(ctx context.Context, key string) (Decision, error) {
	start := t.Now().UTC().Truncate(Window)
	n, err := t.Store.AddFailure(ctx, key, start)
	if err != nil {
		return Decision{}, fmt.Errorf("count attempt: %w", err)
	}
	d := t.decision(start, n)
	if !d.Allowed && t.Refused != nil {
		t.Refused()
	}
	return d, nil
}

// Refund gives back the attempt d counted, in the window it was counted in, and returns the
// budget left after it, which is what the attempt's answer should report.
func (t *Throttle) Refund(ctx context.Context, key string, d Decision) (Decision, error) {
	start := d.Reset.Add(-Window)
	n, err := t.Store.RemoveFailure(ctx, key, start)
	if err != nil {
		return d, fmt.Errorf("refund attempt: %w", err)
	}
	return t.decision(start, n), nil
}

// decision is the answer for an attempt that made the window's count n.
func (t *Throttle) decision(start time.Time, n int) Decision {
	return Decision{Limit: t.Budget, Remaining: max(t.Budget-n, 0), Reset: start.Add(Window), Allowed: n <= t.Budget}
}
