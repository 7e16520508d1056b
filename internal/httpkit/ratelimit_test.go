package httpkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/ratelimit"
)

func TestSourceAddress(t *testing.T) {
	t.Parallel()
	for remote, want := range map[string]string{
		"192.0.2.7:51234":                        "192.0.2.7",
		"[::ffff:192.0.2.7]:51234":               "192.0.2.7",
		"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2::1]:443":                  "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":                  "2001:db8:1:3::/64",
		"[fe80::1%eth0]:80":                      "fe80::/64",
		"[::1]:80":                               "::/64",
		"@":                                      "@", // a unix socket's peer: one budget for all
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", "203.0.113.9")
		r.Header.Set("Forwarded", "for=203.0.113.9")
		r.Header.Set("X-Real-Ip", "203.0.113.9")
		require.Equal(t, want, SourceAddress(r), "%s: the peer, never a forwarding header", remote)
	}
}

// takeFunc is a RateLimiter answering with fn.
type takeFunc func() (ratelimit.Decision, error)

func (f takeFunc) Take(context.Context, uuid.UUID, ratelimit.API) (ratelimit.Decision, error) {
	return f()
}

// TestApplyRateLimitRefusesADeletedAccount: a credential authenticated (or cached) just before
// its account was deleted is refused as invalid (401), not answered as an outage (503); a
// limiter that fails otherwise is an outage.
func TestApplyRateLimitRefusesADeletedAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gone := ApplyRateLimit(ctx, takeFunc(func() (ratelimit.Decision, error) {
		return ratelimit.Decision{}, fmt.Errorf("count request: %w", account.ErrNotFound)
	}), uuid.New(), ratelimit.Parse, CodeRateLimited)
	var he *echo.HTTPError
	require.ErrorAs(t, gone, &he)
	require.Equal(t, http.StatusUnauthorized, he.Code)
	require.Contains(t, gone.Error(), CodeAuthInvalid)

	down := ApplyRateLimit(ctx, takeFunc(func() (ratelimit.Decision, error) {
		return ratelimit.Decision{}, errors.New("connection refused")
	}), uuid.New(), ratelimit.Parse, CodeRateLimited)
	require.ErrorAs(t, down, &he)
	require.Equal(t, http.StatusServiceUnavailable, he.Code)
}
