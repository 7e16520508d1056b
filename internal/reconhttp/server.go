// Package reconhttp serves the Reconciliation API: it implements the strict server interface
// generated from openapi/reconciliation.yaml and converts between the generated types and the
// business packages. It holds no SQL and no business rules.
package reconhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/platform/apidocs"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/openapi"
)

// Config is what a Reconciliation API listener needs.
type Config struct {
	// Env is the environment the listener serves (account.Production or account.Sandbox):
	// tokens and jobs of one environment do not exist in the other.
	Env    account.Environment
	Logger *slog.Logger
	// DB is pinged by /readyz.
	DB httpkit.Pinger
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client.
	TrustedProxies httpkit.TrustedProxies
	// Observe, when set, is told of every request answered, for the metrics.
	Observe httpkit.RequestObserver
	// MaxUploadBodyBytes bounds the body of a job upload.
	MaxUploadBodyBytes int64
	// Accounts issues and checks access tokens.
	Accounts Accounts
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Limiter counts requests against each account's rate limit; nil limits nothing.
	Limiter httpkit.RateLimiter
	// Anonymous limits requests without valid credentials per source address; nil limits nothing.
	Anonymous *ratelimit.Throttle
	// Throttle limits failed token requests per client and source address (FailedAuthBudget).
	Throttle *ratelimit.Throttle
	// AddressThrottle limits failed token requests per source address
	// (FailedAuthAddressBudget); nil limits nothing.
	AddressThrottle *ratelimit.Throttle
	// ClientBackstop limits failed token requests per client from all addresses
	// (FailedAuthClientBackstop); nil limits nothing.
	ClientBackstop *ratelimit.Throttle
	// Jobs creates and reads reconciliation jobs.
	Jobs Jobs
	// MaxFileBytes bounds each uploaded file.
	MaxFileBytes int64
}

// Server implements the generated strict server interface.
type Server struct {
	env account.Environment
	// published is the spec and docs page this listener serves; db is pinged by /readyz.
	published httpkit.Published
	db        httpkit.Pinger
	accounts  Accounts
	limiter   httpkit.RateLimiter
	// anonymous limits requests without valid credentials per source address.
	anonymous *ratelimit.Throttle
	// throttle, addresses and backstop limit failed token requests per client and source
	// address, per source address, and per client from everywhere.
	throttle  *ratelimit.Throttle
	addresses *ratelimit.Throttle
	backstop  *ratelimit.Throttle
	now       func() time.Time
	jobs      Jobs
	// maxFileBytes bounds each uploaded file of a job.
	maxFileBytes int64
	logger       *slog.Logger
}

var _ reconapi.StrictServerInterface = (*Server)(nil)

// New returns the HTTP handler of one Reconciliation API listener: the generated routes behind the
// shared middleware and the spec validator.
func New(cfg Config) (*echo.Echo, error) {
	spec, err := reconapi.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("load embedded reconciliation spec: %w", err)
	}
	if cfg.Env != account.Production && cfg.Env != account.Sandbox {
		return nil, fmt.Errorf("unknown reconciliation environment %q", cfg.Env)
	}
	if cfg.Accounts == nil {
		return nil, errors.New("reconciliation listener: no account service")
	}
	if cfg.Jobs == nil {
		return nil, errors.New("reconciliation listener: no job service")
	}
	if cfg.MaxFileBytes <= 0 {
		return nil, errors.New("reconciliation listener: no upload limit")
	}
	samples := apidocs.Samples{}
	for _, f := range openapi.CodeSamples {
		if err := samples.Add("reconciliation", f.Lang, f.Label, f.Source); err != nil {
			return nil, err
		}
	}
	published, err := httpkit.Publish(openapi.Reconciliation, spec, samples)
	if err != nil {
		return nil, err
	}
	s := &Server{env: cfg.Env, published: published, db: cfg.DB, accounts: cfg.Accounts, limiter: cfg.Limiter, anonymous: cfg.Anonymous, throttle: cfg.Throttle, addresses: cfg.AddressThrottle, backstop: cfg.ClientBackstop, now: cfg.Now,
		jobs: cfg.Jobs, maxFileBytes: cfg.MaxFileBytes, logger: cfg.Logger}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	e, err := httpkit.NewEcho(httpkit.EchoConfig{
		API:                "recon-" + string(cfg.Env),
		Logger:             cfg.Logger,
		Render:             renderError,
		Spec:               spec,
		Validation:         httpkit.ValidatorOptions{Authenticate: s.authenticate, StreamUploads: true, Unrouted: s.countUnrouted},
		MaxUploadBodyBytes: cfg.MaxUploadBodyBytes,
		DB:                 cfg.DB,
		TrustedProxies:     cfg.TrustedProxies,
		Observe:            cfg.Observe,
	})
	if err != nil {
		return nil, err
	}
	settle := func(f reconapi.StrictHandlerFunc, _ string) reconapi.StrictHandlerFunc {
		return httpkit.StrictSettleRateLimit(f)
	}
	reconapi.RegisterHandlers(e, reconapi.NewStrictHandler(s, []reconapi.StrictMiddlewareFunc{settle, clientBasic}))
	return e, nil
}

// renderError writes the Reconciliation API's error body. A 401 always says how to authenticate
// (RFC 6750), whoever raised it.
func renderError(c echo.Context, e *httpkit.Error) error {
	if e.Status == http.StatusUnauthorized && c.Response().Header().Get("WWW-Authenticate") == "" {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="statementd"`)
	}
	return c.JSON(e.Status, errorBody(e.Code, e.Message))
}

func errorBody(code, message string) reconapi.Error {
	return reconapi.Error{Error: reconapi.ErrorCode(code), Detail: reconapi.ErrorDetail{Code: reconapi.ErrorCode(code), Message: message}}
}

// GetHealth answers that the process is up.
func (s *Server) GetHealth(context.Context, reconapi.GetHealthRequestObject) (reconapi.GetHealthResponseObject, error) {
	return reconapi.GetHealth200JSONResponse{Body: reconapi.Health{Status: reconapi.HealthStatusOk}}, nil
}

// GetReadiness answers whether the database is reachable.
func (s *Server) GetReadiness(ctx context.Context, _ reconapi.GetReadinessRequestObject) (reconapi.GetReadinessResponseObject, error) {
	if !httpkit.Ready(ctx, s.db) {
		return reconapi.GetReadiness503JSONResponse{NotReadyJSONResponse: reconapi.NotReadyJSONResponse{
			Body:    reconapi.Readiness{Status: reconapi.ReadinessStatusUnavailable, Database: reconapi.DatabaseStatusUnreachable},
			Headers: reconapi.NotReadyResponseHeaders{RetryAfter: httpkit.RetryAfterUnavailable},
		}}, nil
	}
	return reconapi.GetReadiness200JSONResponse{Body: reconapi.Readiness{Status: reconapi.ReadinessStatusReady, Database: reconapi.DatabaseStatusOk}}, nil
}

// GetOpenAPISpec serves this API's spec as written.
func (s *Server) GetOpenAPISpec(context.Context, reconapi.GetOpenAPISpecRequestObject) (reconapi.GetOpenAPISpecResponseObject, error) {
	return reconapi.GetOpenAPISpec200ApplicationyamlResponse{Body: bytes.NewReader(s.published.SpecYAML), ContentLength: int64(len(s.published.SpecYAML))}, nil
}

// GetDocs serves the HTML rendering of this API's spec.
func (s *Server) GetDocs(context.Context, reconapi.GetDocsRequestObject) (reconapi.GetDocsResponseObject, error) {
	return reconapi.GetDocs200TexthtmlResponse{Body: bytes.NewReader(s.published.DocsHTML), ContentLength: int64(len(s.published.DocsHTML))}, nil
}
