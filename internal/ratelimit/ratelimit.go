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
	return l.Settle(ctx, l.Defer(accountID, api))
}

// Defer starts counting a request whose count may travel with the request's first read of the
// database (see Deferred); Settle finishes it.
func (l *Limiter) Defer(accountID uuid.UUID, api API) *Deferred {
	return &Deferred{AccountID: accountID, API: api, WindowStart: l.Now().UTC().Truncate(Window)}
}

// Settle decides a deferred request: it counts the request now unless a store already counted it
// with its read, and says whether it is within the limit. The count is the same as Take's: one
// atomic increment per request, exact across processes.
func (l *Limiter) Settle(ctx context.Context, d *Deferred) (Decision, error) {
	if !d.counted {
		d.Record(l.Store.Hit(ctx, d.AccountID, d.API, d.WindowStart))
	}
	if d.err != nil {
		return Decision{}, fmt.Errorf("count request: %w", d.err)
	}
	start := d.WindowStart
	if last := l.lastForget.Load(); start.Unix() > last && l.lastForget.CompareAndSwap(last, start.Unix()) {
		// Once a minute per process at most, on one request's time: old windows are only
		// clutter, and a failure to delete them changes no decision.
		_ = l.Store.Forget(ctx, start.Add(-forgetAfter))
	}
	limit := LimitFor(d.API, d.plans)
	dec := Decision{Limit: limit, Remaining: max(limit-d.count, 0), Reset: start.Add(Window), Allowed: d.count <= limit}
	if !dec.Allowed && l.Refused != nil {
		l.Refused(d.API)
	}
	return dec, nil
}

// Deferred is the count of one request that has not been taken yet. An authenticated read sends
// it with the read's own query, so that the request costs the database one round trip, not two:
// the API puts it into the request's context (WithDeferred), a store that reads for the request
// takes Pending, counts it in the same statement as its read and Records the outcome, and the API
// then Settles it before it answers, counting it there if no store did.
type Deferred struct {
	AccountID   uuid.UUID
	API         API
	WindowStart time.Time

	counted bool
	count   int
	plans   Plans
	err     error
}

// Record keeps what counting the request gave, as Store.Hit returns it: the window's count with
// this request, the account's plans, or the error (account.ErrNotFound for an account that no
// longer exists).
func (d *Deferred) Record(count int, plans Plans, err error) {
	d.counted, d.count, d.plans, d.err = true, count, plans, err
}

type deferredKey struct{}

// WithDeferred returns ctx carrying the request's deferred count.
func WithDeferred(ctx context.Context, d *Deferred) context.Context {
	return context.WithValue(ctx, deferredKey{}, d)
}

// Pending returns the request's deferred count of accountID's requests while nobody has counted
// it yet, and nil otherwise.
func Pending(ctx context.Context, accountID uuid.UUID) *Deferred {
	d, _ := ctx.Value(deferredKey{}).(*Deferred)
	if d == nil || d.counted || d.AccountID != accountID {
		return nil
	}
	return d
}
