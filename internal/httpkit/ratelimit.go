package httpkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	oapimw "github.com/oapi-codegen/echo-middleware"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/ratelimit"
)

// Rate-limit response headers, on every answer to an identified caller.
const (
	HeaderRateLimitLimit     = "X-RateLimit-Limit"
	HeaderRateLimitRemaining = "X-RateLimit-Remaining"
	HeaderRateLimitReset     = "X-RateLimit-Reset"
	HeaderRetryAfter         = "Retry-After"
)

// SetRateLimit gives the answer to the request being authenticated its X-RateLimit headers,
// whatever the answer turns out to be (success, validation error, 429, 501). Called inside an
// openapi3filter.AuthenticationFunc. The generated strict handlers write the headers the specs
// declare from fields the handlers leave empty, so, like the request id, the values are set again
// just before the status line is written.
func SetRateLimit(authCtx context.Context, limit, remaining int, reset time.Time) {
	if ec := oapimw.GetEchoContext(authCtx); ec != nil {
		setRateLimit(ec, limit, remaining, reset)
	}
}

func setRateLimit(ec echo.Context, limit, remaining int, reset time.Time) {
	res := ec.Response()
	set := func() {
		h := res.Header()
		h.Set(HeaderRateLimitLimit, strconv.Itoa(limit))
		h.Set(HeaderRateLimitRemaining, strconv.Itoa(remaining))
		h.Set(HeaderRateLimitReset, strconv.FormatInt(reset.Unix(), 10))
	}
	set()
	res.Before(set)
}

// LimitExceeded is the answer to a request over its rate limit: 429 with the API's code and
// Retry-After in whole seconds.
func LimitExceeded(code, message string, retryAfter int) *echo.HTTPError {
	return &echo.HTTPError{Code: http.StatusTooManyRequests, Internal: &Error{
		Status: http.StatusTooManyRequests, Code: code, Message: message,
		Header: http.Header{HeaderRetryAfter: {strconv.Itoa(retryAfter)}}}}
}

// SecondsUntil is a Retry-After until t: whole seconds from now, rounded up, at least 1.
func SecondsUntil(t, now time.Time) int { return max(1, int(t.Sub(now).Seconds()+0.999)) }

// RateLimiter counts requests against an account's rate limit; *ratelimit.Limiter is one.
type RateLimiter interface {
	Take(ctx context.Context, accountID uuid.UUID, api ratelimit.API) (ratelimit.Decision, error)
}

// DeferringLimiter is a RateLimiter that can count a request with its read (DeferRateLimit);
// *ratelimit.Limiter is one.
type DeferringLimiter interface {
	RateLimiter
	Defer(accountID uuid.UUID, api ratelimit.API) *ratelimit.Deferred
	Settle(ctx context.Context, d *ratelimit.Deferred) (ratelimit.Decision, error)
}

// ApplyRateLimit counts the authenticated request against its account's limit on api, gives the
// answer its X-RateLimit headers, and returns the 429 (with the API's code) when the request is
// over the limit. Called inside an openapi3filter.AuthenticationFunc once the caller is known.
// A nil limiter limits nothing.
func ApplyRateLimit(authCtx context.Context, l RateLimiter, accountID uuid.UUID, api ratelimit.API, code string) error {
	if l == nil {
		return nil
	}
	d, err := l.Take(RequestContext(authCtx), accountID, api)
	return decideRateLimit(oapimw.GetEchoContext(authCtx), d, err, code)
}

// DeferRateLimit is ApplyRateLimit for a read whose store counts the request in the same statement
// as its read (ratelimit.Deferred): the count goes into the request's context with the caller,
// and is settled, counted by then or counted now, once the handler has returned and before
// anything is written (SettleRateLimit), or when validation ends the request first. The answer is
// the one ApplyRateLimit gives: the handler's only if the request is within the limit, otherwise
// 429 (or 401 for a deleted account, 503 if counting failed). Only side-effect-free operations may
// defer, since their handler runs before the count is known; reconhttp and parsehttp defer their
// job and results reads, which are the reads clients poll.
func DeferRateLimit(authCtx context.Context, l RateLimiter, accountID uuid.UUID, api ratelimit.API, code string) error {
	ec := oapimw.GetEchoContext(authCtx)
	dl, ok := l.(DeferringLimiter)
	if !ok || ec == nil {
		return ApplyRateLimit(authCtx, l, accountID, api, code)
	}
	ec.Set(deferredLimitKey, &deferredLimit{limiter: dl, d: dl.Defer(accountID, api), code: code})
	return nil
}

// CountRequest counts an authenticated request, with its read when withRead (DeferRateLimit), at
// once otherwise (ApplyRateLimit).
func CountRequest(authCtx context.Context, l RateLimiter, accountID uuid.UUID, api ratelimit.API, code string, withRead bool) error {
	if withRead {
		return DeferRateLimit(authCtx, l, accountID, api, code)
	}
	return ApplyRateLimit(authCtx, l, accountID, api, code)
}

// deferredLimitKey holds a request's *deferredLimit in its echo context until it is settled.
const deferredLimitKey = "httpkit.deferredLimit"

type deferredLimit struct {
	limiter DeferringLimiter
	d       *ratelimit.Deferred
	code    string
}

// SettleRateLimit settles the request's deferred count, if it has one (DeferRateLimit): it sets the
// X-RateLimit headers and returns the error to answer instead of the handler's answer, nil when the
// request is within the limit. The APIs call it from a strict middleware after the handler
// returns; the validator calls it for a request that never reached the handler.
func SettleRateLimit(c echo.Context) error {
	p, ok := c.Get(deferredLimitKey).(*deferredLimit)
	if !ok || p == nil {
		return nil
	}
	c.Set(deferredLimitKey, nil)
	d, err := p.limiter.Settle(c.Request().Context(), p.d)
	return decideRateLimit(c, d, err, p.code)
}

// StrictSettleRateLimit wraps a generated strict handler so that a deferred count is settled
// after the handler and before its answer is written (SettleRateLimit).
func StrictSettleRateLimit[H ~func(echo.Context, any) (any, error)](f H) H {
	return func(c echo.Context, request any) (any, error) {
		res, err := f(c, request)
		if serr := SettleRateLimit(c); serr != nil {
			return nil, serr
		}
		return res, err
	}
}

// decideRateLimit turns a count into the request's X-RateLimit headers and its refusal, if any.
func decideRateLimit(ec echo.Context, d ratelimit.Decision, err error, code string) error {
	if errors.Is(err, account.ErrNotFound) {
		// The account was deleted after its credential was authenticated (and cached, for up
		// to the authentication cache's lifetime): the credential went with it.
		return InvalidToken(CodeAuthInvalid, "The credential's account no longer exists.")
	}
	if err != nil {
		return Unavailable(err)
	}
	if ec != nil {
		setRateLimit(ec, d.Limit, d.Remaining, d.Reset)
	}
	if d.Allowed {
		return nil
	}
	retry := d.RetryAfter(time.Now())
	return LimitExceeded(code, fmt.Sprintf("Rate limit of %d requests per minute reached; retry in %d seconds.", d.Limit, retry), retry)
}

// AnonymousBudget is how many requests without valid credentials a source address may send to
// one API per minute.
const AnonymousBudget = 60

// SourceAddress is what a per-address budget of r counts under: the client's address as
// ClientAddress resolved it, that is the connection's peer, or, from a trusted proxy, the
// address it forwards for; never a forwarding header (X-Forwarded-For, Forwarded, X-Real-IP)
// from any other peer, who could forge it. An IPv6 address counts with its whole /64 network,
// which one host or subscriber usually holds entire: otherwise every one of its 2^64 addresses
// would get a budget of its own.
func SourceAddress(r *http.Request) string {
	ip, ok := clientAddr(r)
	if !ok {
		return r.RemoteAddr
	}
	if ip.Is4() {
		return ip.String()
	}
	network, err := ip.Prefix(64)
	if err != nil {
		return ip.String()
	}
	return network.String()
}

// RefuseAnonymous counts a request refused for its credentials against its source address's
// budget on api, gives the answer that budget's X-RateLimit headers, and returns refusal, or the
// 429 (with the API's code) once the address is over the budget. The address is SourceAddress's,
// never a forwarding header a client could forge. If counting fails the refusal stands:
// a 401 is never turned into a 503.
func RefuseAnonymous(authCtx context.Context, t *ratelimit.Throttle, api ratelimit.API, code string, refusal error) error {
	ec := oapimw.GetEchoContext(authCtx)
	if t == nil || ec == nil {
		return refusal
	}
	d, err := t.Count(RequestContext(authCtx), string(api)+"-addr:"+SourceAddress(ec.Request()))
	if err != nil {
		return refusal
	}
	SetRateLimit(authCtx, d.Limit, d.Remaining, d.Reset)
	if d.Allowed {
		return refusal
	}
	retry := d.RetryAfter(time.Now())
	return LimitExceeded(code, fmt.Sprintf("Too many requests without valid credentials from this address; retry in %d seconds.", retry), retry)
}
