package httpkit

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/ratelimit"
)

const deferSpec = `
openapi: 3.0.3
info: {title: test, version: "1"}
security:
  - Key: []
paths:
  /jobs/{id}:
    get:
      operationId: getJob
      parameters:
        - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    Key: {type: http, scheme: bearer}
`

// countStore counts in memory, as the database's store does.
type countStore struct {
	mu     sync.Mutex
	counts map[string]int
}

func (s *countStore) Hit(_ context.Context, id uuid.UUID, api ratelimit.API, start time.Time) (int, ratelimit.Plans, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := id.String() + string(api) + start.String()
	s.counts[k]++
	return s.counts[k], ratelimit.Plans{Parse: account.ParseFree}, nil
}

func (s *countStore) Forget(context.Context, time.Time) error { return nil }

// TestDeferredRateLimitCountsEveryRequestOnce: a request whose count is deferred (DeferRateLimit)
// is counted exactly once however it ends: by its handler's read, by the settle after the handler,
// by the validator when its parameters are refused, or after a panic; and once the budget is
// spent its handler's answer, or the validator's 400, is replaced by the 429.
func TestDeferredRateLimitCountsEveryRequestOnce(t *testing.T) {
	t.Parallel()
	spec, err := openapi3.NewLoader().LoadFromData([]byte(deferSpec))
	require.NoError(t, err)
	store := &countStore{counts: map[string]int{}}
	limiter := &ratelimit.Limiter{Store: store, Now: time.Now}
	acct := uuid.New()
	authenticate := func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
		SetAuthenticated(ctx, acct.String(), nil)
		return DeferRateLimit(ctx, limiter, acct, ratelimit.Parse, CodeRateLimited)
	}
	e, err := NewEcho(EchoConfig{API: "test", Logger: slog.New(slog.DiscardHandler), MaxUploadBodyBytes: 1 << 20, Spec: spec,
		Validation: ValidatorOptions{Authenticate: authenticate},
		Render: func(c echo.Context, e *Error) error {
			return c.JSON(e.Status, map[string]string{"code": e.Code})
		}})
	require.NoError(t, err)
	strict := StrictSettleRateLimit(func(c echo.Context, _ any) (any, error) {
		switch c.QueryParam("how") {
		case "read": // a store counts it with its read
			d := ratelimit.Pending(c.Request().Context(), acct)
			require.NotNil(t, d, "the count waits in the request's context")
			d.Record(store.Hit(c.Request().Context(), d.AccountID, d.API, d.WindowStart))
		case "panic":
			panic("handler failed")
		}
		return "the job", nil
	})
	e.GET("/jobs/:id", func(c echo.Context) error {
		res, err := strict(c, nil)
		if err != nil {
			return err
		}
		return c.String(http.StatusOK, res.(string))
	})

	awayFromWindowEnd(t)
	tests := []struct {
		path   string
		status int
	}{
		{"/jobs/" + uuid.NewString() + "?how=read", http.StatusOK},
		{"/jobs/" + uuid.NewString(), http.StatusOK},
		{"/jobs/not-a-uuid", http.StatusBadRequest},
		{"/jobs/" + uuid.NewString() + "?how=panic", http.StatusInternalServerError},
	}
	for i := range 16 {
		tc := tests[i%len(tests)]
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		req.Header.Set("Authorization", "Bearer k")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		require.Equal(t, "10", rec.Header().Get(HeaderRateLimitLimit), "request %d: %s", i+1, tc.path)
		require.Equal(t, strconv.Itoa(max(10-(i+1), 0)), rec.Header().Get(HeaderRateLimitRemaining), "request %d: %s counted once", i+1, tc.path)
		if i < 10 {
			require.Equal(t, tc.status, rec.Code, "request %d: %s", i+1, tc.path)
			continue
		}
		if tc.status == http.StatusInternalServerError {
			// The handler ran, and a panic is a bug Recover reports as such, over the limit or not.
			require.Equal(t, http.StatusInternalServerError, rec.Code, "request %d: %s", i+1, tc.path)
			continue
		}
		require.Equal(t, http.StatusTooManyRequests, rec.Code, "request %d: %s", i+1, tc.path)
		require.NotContains(t, rec.Body.String(), "the job")
		require.True(t, strings.Contains(rec.Body.String(), CodeRateLimited), rec.Body.String())
	}
}

// awayFromWindowEnd waits, if the minute is nearly over, for the next, so a test's requests
// fall in one rate-limit window.
func awayFromWindowEnd(t *testing.T) {
	t.Helper()
	now := time.Now()
	if left := now.Truncate(time.Minute).Add(time.Minute).Sub(now); left < 5*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}
