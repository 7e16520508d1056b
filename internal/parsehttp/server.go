// Package parsehttp serves the Parsing API: it implements the strict server interface generated
// from openapi/parsing.yaml and converts between the generated types and the business packages.
// Every answer, errors included, is the envelope {ok, data | detail+error, meta}, except the file
// downloads (the job export, the spec, the docs). It holds no SQL and no business rules.
package parsehttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/platform/apidocs"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/openapi"
)

// Config is what the Parsing API listener needs.
type Config struct {
	Logger *slog.Logger
	// DB is pinged by /readyz.
	DB httpkit.Pinger
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client.
	TrustedProxies httpkit.TrustedProxies
	// Observe, when set, is told of every request answered, for the metrics.
	Observe httpkit.RequestObserver
	// MaxUploadBodyBytes bounds the body of a statement upload.
	MaxUploadBodyBytes int64
	// Accounts checks API keys.
	Accounts Accounts
	// Limiter counts requests against each account's rate limit; nil limits nothing.
	Limiter httpkit.RateLimiter
	// Anonymous limits requests without valid credentials per source address; nil limits nothing.
	Anonymous *ratelimit.Throttle
	// Jobs creates and reads parsing jobs, usage and the account's plan.
	Jobs Jobs
	// Webhooks manages webhook endpoints and sends test events.
	Webhooks Webhooks
	// WebhookTests limits each account's test requests a minute (STATEMENTD_WEBHOOK_TESTS_PER_MINUTE,
	// 10: enough to try an endpoint while setting it up, too few to probe a network); nil limits
	// nothing.
	WebhookTests *ratelimit.Throttle
	// MaxFileBytes bounds the uploaded statement file.
	MaxFileBytes int64
	// Version is the server version GET /api/v1/status reports.
	Version string
}

// Server implements the generated strict server interface.
type Server struct {
	// published is the spec and docs page this listener serves; db is pinged by /readyz.
	published httpkit.Published
	db        httpkit.Pinger
	accounts  Accounts
	limiter   httpkit.RateLimiter
	// anonymous limits requests without valid credentials per source address.
	anonymous *ratelimit.Throttle
	// scopes are the scopes each operation requires, by operation id.
	scopes map[string][]account.Scope
	jobs   Jobs
	// webhooks manages the caller's webhook endpoints; webhookTests limits test requests.
	webhooks     Webhooks
	webhookTests *ratelimit.Throttle
	// maxFileBytes bounds the uploaded statement file.
	maxFileBytes int64
	version      string
	logger       *slog.Logger
	// now is the clock of Retry-After.
	now func() time.Time
}

var _ parseapi.StrictServerInterface = (*Server)(nil)

// New returns the HTTP handler of the Parsing API listener: the generated routes behind the
// shared middleware and the spec validator.
func New(cfg Config) (*echo.Echo, error) {
	spec, err := parseapi.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("load embedded parsing spec: %w", err)
	}
	if cfg.Accounts == nil {
		return nil, errors.New("parsing listener: no account service")
	}
	if cfg.Webhooks == nil {
		return nil, errors.New("parsing listener: no webhook service")
	}
	if cfg.Jobs == nil {
		return nil, errors.New("parsing listener: no job service")
	}
	if cfg.MaxFileBytes <= 0 {
		return nil, errors.New("parsing listener: no upload limit")
	}
	if cfg.Logger == nil {
		return nil, errors.New("parsing listener: no logger")
	}
	scopes, err := requiredScopes(spec)
	if err != nil {
		return nil, fmt.Errorf("parsing spec: %w", err)
	}
	samples := apidocs.Samples{}
	for _, f := range openapi.CodeSamples {
		if err := samples.Add("parsing", f.Lang, f.Label, f.Source); err != nil {
			return nil, err
		}
	}
	published, err := httpkit.Publish(openapi.Parsing, spec, samples)
	if err != nil {
		return nil, err
	}
	s := &Server{published: published, db: cfg.DB, accounts: cfg.Accounts, limiter: cfg.Limiter, anonymous: cfg.Anonymous, scopes: scopes,
		jobs: cfg.Jobs, webhooks: cfg.Webhooks, webhookTests: cfg.WebhookTests, maxFileBytes: cfg.MaxFileBytes, version: cfg.Version, logger: cfg.Logger, now: time.Now}
	e, err := httpkit.NewEcho(httpkit.EchoConfig{
		API:                "parse",
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
	settle := func(f parseapi.StrictHandlerFunc, _ string) parseapi.StrictHandlerFunc {
		return httpkit.StrictSettleRateLimit(f)
	}
	// The last is outermost: the count is settled before keepRateLimitHeaders reads its headers.
	parseapi.RegisterHandlers(e, parseapi.NewStrictHandler(s, []parseapi.StrictMiddlewareFunc{settle, keepRateLimitHeaders}))
	return e, nil
}

// rateLimitHeaders are the headers of the account's request budget.
var rateLimitHeaders = []string{httpkit.HeaderRateLimitLimit, httpkit.HeaderRateLimitRemaining, httpkit.HeaderRateLimitReset}

// keepRateLimitHeaders makes the X-RateLimit headers of an answer the ones counting the request
// set (httpkit.ApplyRateLimit, or httpkit.SettleRateLimit for a deferred count), whatever the
// generated response writes. The generated 2xx answers declare them as plain ints and always
// write them, from fields the handlers leave zero. When a limiter counted the request, its own
// hook puts its values back before the status line, and this one keeps them; when nothing
// counted it (no limiter configured), there is no budget to report and the headers are removed
// rather than sent as "0".
func keepRateLimitHeaders(f parseapi.StrictHandlerFunc, _ string) parseapi.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		answer, err := f(c, request)
		res := c.Response()
		set := make([]string, len(rateLimitHeaders))
		for i, name := range rateLimitHeaders {
			set[i] = res.Header().Get(name)
		}
		res.Before(func() {
			for i, name := range rateLimitHeaders {
				if set[i] == "" {
					res.Header().Del(name)
				} else {
					res.Header().Set(name, set[i])
				}
			}
		})
		return answer, err
	}
}

func meta(ctx context.Context) parseapi.Meta {
	return parseapi.Meta{RequestId: httpkit.RequestID(ctx)}
}

// renderError writes the Parsing API's error envelope. A 401 always says how to authenticate
// (RFC 6750), whoever raised it.
func renderError(c echo.Context, e *httpkit.Error) error {
	if e.Status == http.StatusUnauthorized && c.Response().Header().Get("WWW-Authenticate") == "" {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="statementd"`)
	}
	return c.JSON(e.Status, errorBody(c.Request().Context(), e.Code, e.Message))
}

func errorBody(ctx context.Context, code, detail string) parseapi.ErrorEnvelope {
	return parseapi.ErrorEnvelope{Ok: false, Error: parseapi.ErrorCode(code), Detail: detail, Meta: meta(ctx)}
}

// GetHealth answers that the process is up.
func (s *Server) GetHealth(ctx context.Context, _ parseapi.GetHealthRequestObject) (parseapi.GetHealthResponseObject, error) {
	return parseapi.GetHealth200JSONResponse{Body: parseapi.HealthEnvelope{
		Ok: true, Data: parseapi.Health{Status: parseapi.HealthStatusOk}, Meta: meta(ctx)}}, nil
}

// GetReadiness answers whether the database is reachable.
func (s *Server) GetReadiness(ctx context.Context, _ parseapi.GetReadinessRequestObject) (parseapi.GetReadinessResponseObject, error) {
	if !httpkit.Ready(ctx, s.db) {
		code, detail := parseapi.ErrorCodeServiceUnavailable, "The database is unreachable."
		return parseapi.GetReadiness503JSONResponse{
			Body: parseapi.ReadinessEnvelope{Ok: false, Error: &code, Detail: &detail, Meta: meta(ctx),
				Data: parseapi.Readiness{Status: parseapi.ReadinessStatusUnavailable, Database: parseapi.DatabaseStatusUnreachable}},
			Headers: parseapi.GetReadiness503ResponseHeaders{RetryAfter: httpkit.RetryAfterUnavailable},
		}, nil
	}
	return parseapi.GetReadiness200JSONResponse{Body: parseapi.ReadinessEnvelope{Ok: true, Meta: meta(ctx),
		Data: parseapi.Readiness{Status: parseapi.ReadinessStatusReady, Database: parseapi.DatabaseStatusOk}}}, nil
}

// GetOpenAPISpec serves this API's spec as written.
func (s *Server) GetOpenAPISpec(context.Context, parseapi.GetOpenAPISpecRequestObject) (parseapi.GetOpenAPISpecResponseObject, error) {
	return parseapi.GetOpenAPISpec200ApplicationyamlResponse{Body: bytes.NewReader(s.published.SpecYAML), ContentLength: int64(len(s.published.SpecYAML))}, nil
}

// GetDocs serves the HTML rendering of this API's spec.
func (s *Server) GetDocs(context.Context, parseapi.GetDocsRequestObject) (parseapi.GetDocsResponseObject, error) {
	return parseapi.GetDocs200TexthtmlResponse{Body: bytes.NewReader(s.published.DocsHTML), ContentLength: int64(len(s.published.DocsHTML))}, nil
}
