package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// FailureStore counts failed authentications per key (a client id) and calendar minute.
type FailureStore interface {
	// Failures returns the failures counted for key in the window that starts at windowStart.
	Failures(ctx context.Context, key string, windowStart time.Time) (int, error)
	// AddFailure counts one more failure, atomically, and returns the window's count.
	AddFailure(ctx context.Context, key string, windowStart time.Time) (int, error)
}

// Throttle limits failed authentications: once Budget attempts of a key have failed within a
// calendar minute, every further attempt is refused until the minute ends, even one with the
// right credentials, so guessing a secret costs an attacker minutes, not milliseconds.
type Throttle struct {
	Store  FailureStore
	Now    func() time.Time
	Budget int
}

// Check says whether an attempt for key may be tried now, with the budget left.
func (t *Throttle) Check(ctx context.Context, key string) (Decision, error) {
	start := t.Now().UTC().Truncate(Window)
	n, err := t.Store.Failures(ctx, key, start)
	if err != nil {
		return Decision{}, fmt.Errorf("read failed authentications: %w", err)
	}
	return t.decision(start, n), nil
}

// Fail records a failed attempt for key and returns the budget left after it.
func (t *Throttle) Fail(ctx context.Context, key string) (Decision, error) {
	start := t.Now().UTC().Truncate(Window)
	n, err := t.Store.AddFailure(ctx, key, start)
	if err != nil {
		return Decision{}, fmt.Errorf("count failed authentication: %w", err)
	}
	return t.decision(start, n), nil
}

func (t *Throttle) decision(start time.Time, failures int) Decision {
	return Decision{Limit: t.Budget, Remaining: max(t.Budget-failures, 0), Reset: start.Add(Window), Allowed: failures < t.Budget}
}

// Count counts a request for key, as a Limiter counts an account's: Allowed while the window's
// count including this request is within Budget. It limits requests that carry no valid
// credentials, per source address.
func (t *Throttle) Count(ctx context.Context, key string) (Decision, error) {
	start := t.Now().UTC().Truncate(Window)
	n, err := t.Store.AddFailure(ctx, key, start)
	if err != nil {
		return Decision{}, fmt.Errorf("count request: %w", err)
	}
	return Decision{Limit: t.Budget, Remaining: max(t.Budget-n, 0), Reset: start.Add(Window), Allowed: n <= t.Budget}, nil
}
