// Package ratelimit counts each account's requests to each API in fixed one-minute windows and
// decides whether a request is within the account's plan. The count lives in the shared
// database, so it is exact across every statementd process: with a limit of 100, exactly 100
// requests of a minute pass, however many servers share the load.
package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
)

// API names the API a request counts against; each has its own budget.
type API string

// The two APIs.
const (
	Recon API = "recon"
	Parse API = "parse"
)

// Window is the length of a rate-limit window: a calendar minute (UTC).
const Window = time.Minute

// Plans are an account's plans, which set its limits.
type Plans struct {
	Recon account.ReconPlan
	Parse account.ParsePlan
}

// Store counts requests.
type Store interface {
	// Hit counts one request of the account to api in the window that starts at windowStart,
	// atomically, and returns the window's count including this request and the account's
	// plans. An unknown account is account.ErrNotFound.
	Hit(ctx context.Context, accountID uuid.UUID, api API, windowStart time.Time) (int, Plans, error)
	// Forget deletes windows that started before cutoff.
	Forget(ctx context.Context, cutoff time.Time) error
}

// LimitFor returns the requests per window an account's plans allow on api (API reference,
// section 8).
func LimitFor(api API, p Plans) int {
	if api == Recon {
		if p.Recon == account.ReconPro {
			return 1000
		}
		return 100
	}
	switch p.Parse {
	case account.ParseStarter:
		return 60
	case account.ParsePro:
		return 200
	case account.ParseBusiness:
		return 1000
	}
	return 10
}

// Decision is the outcome of counting one request: what its X-RateLimit headers say.
type Decision struct {
	Limit     int
	Remaining int
	// Reset is when the window ends.
	Reset   time.Time
	Allowed bool
}

// RetryAfter returns the whole seconds, at least 1, until the window ends.
func (d Decision) RetryAfter(now time.Time) int {
	s := int(d.Reset.Sub(now).Seconds() + 0.999)
	return max(s, 1)
}

// Limiter decides requests.
type Limiter struct {
	Store Store
	// Now is the clock; time.Now in production.
	Now func() time.Time
	// Refused, when set, is called for every request Take refuses (a metric's counter).
	Refused func(API)

	// lastForget is the Unix time of the window in which old windows were last deleted.
	lastForget atomic.Int64
}

// forgetAfter is how long old windows are kept: long enough to look at when debugging.
const forgetAfter = time.Hour

// Take counts a request of the account to api and says whether it is within the limit. A
// request over the limit still counts: a client that keeps sending only stays limited.
func (l *Limiter) Take(ctx context.Context, accountID uuid.UUID, api API) (Decision, error) {
	now := l.Now().UTC()
	start := now.Truncate(Window)
	count, plans, err := l.Store.Hit(ctx, accountID, api, start)
	if err != nil {
		return Decision{}, fmt.Errorf("count request: %w", err)
	}
	if last := l.lastForget.Load(); start.Unix() > last && l.lastForget.CompareAndSwap(last, start.Unix()) {
		// Once a minute per process at most, on one request's time: old windows are only
		// clutter, and a failure to delete them changes no decision.
		_ = l.Store.Forget(ctx, start.Add(-forgetAfter))
	}
	limit := LimitFor(api, plans)
	d := Decision{Limit: limit, Remaining: max(limit-count, 0), Reset: start.Add(Window), Allowed: count <= limit}
	if !d.Allowed && l.Refused != nil {
		l.Refused(api)
	}
	return d, nil
}
