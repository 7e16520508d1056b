// Package parsehttp serves the Parsing API: it implements the strict server interface generated
// from openapi/parsing.yaml and converts between the generated types and the business packages.
// Every answer, errors included, is the envelope {ok, data | detail+error, meta}. It holds no SQL
// and no business rules.
package parsehttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/statementmatch/service/gen/parseapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/openapi"
)

// Config is what the Parsing API listener needs.
type Config struct {
	Logger *slog.Logger
	// DB is pinged by /readyz.
	DB httpkit.Pinger
	// MaxUploadBodyBytes bounds the body of a statement upload.
	MaxUploadBodyBytes int64
	// Accounts checks API keys.
	Accounts Accounts
	// Limiter counts requests against each account's rate limit; nil limits nothing.
	Limiter httpkit.RateLimiter
	// Anonymous limits requests without valid credentials per source address; nil limits nothing.
	Anonymous *ratelimit.Throttle
}

// Server implements the generated strict server interface.
type Server struct {
	svc      httpkit.Service
	accounts Accounts
	limiter  httpkit.RateLimiter
	// anonymous limits requests without valid credentials per source address.
	anonymous *ratelimit.Throttle
	// scopes are the scopes each operation requires, by operation id.
	scopes map[string][]account.Scope
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
	scopes, err := requiredScopes(spec)
	if err != nil {
		return nil, fmt.Errorf("parsing spec: %w", err)
	}
	svc, err := httpkit.NewService(openapi.Parsing, spec, cfg.DB)
	if err != nil {
		return nil, err
	}
	s := &Server{svc: svc, accounts: cfg.Accounts, limiter: cfg.Limiter, anonymous: cfg.Anonymous, scopes: scopes}
	e, err := httpkit.NewEcho(httpkit.EchoConfig{
		API:                "parse",
		Logger:             cfg.Logger,
		Render:             renderError,
		Spec:               spec,
		Validation:         httpkit.ValidatorOptions{Authenticate: s.authenticate},
		MaxUploadBodyBytes: cfg.MaxUploadBodyBytes,
	})
	if err != nil {
		return nil, err
	}
	parseapi.RegisterHandlers(e, parseapi.NewStrictHandler(s, nil))
	return e, nil
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

// notImplemented is the answer of the operations a later server version implements.
func notImplemented(ctx context.Context) parseapi.NotImplementedJSONResponse {
	return parseapi.NotImplementedJSONResponse{Body: errorBody(ctx, httpkit.CodeNotImplemented, httpkit.MessageNotImplemented)}
}

// CreateJob is not implemented yet.
func (s *Server) CreateJob(ctx context.Context, _ parseapi.CreateJobRequestObject) (parseapi.CreateJobResponseObject, error) {
	return parseapi.CreateJob501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// ListJobs is not implemented yet.
func (s *Server) ListJobs(ctx context.Context, _ parseapi.ListJobsRequestObject) (parseapi.ListJobsResponseObject, error) {
	return parseapi.ListJobs501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// GetJob is not implemented yet.
func (s *Server) GetJob(ctx context.Context, _ parseapi.GetJobRequestObject) (parseapi.GetJobResponseObject, error) {
	return parseapi.GetJob501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// GetJobResults is not implemented yet.
func (s *Server) GetJobResults(ctx context.Context, _ parseapi.GetJobResultsRequestObject) (parseapi.GetJobResultsResponseObject, error) {
	return parseapi.GetJobResults501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// ExportJob is not implemented yet.
func (s *Server) ExportJob(ctx context.Context, _ parseapi.ExportJobRequestObject) (parseapi.ExportJobResponseObject, error) {
	return parseapi.ExportJob501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// GetUsage is not implemented yet.
func (s *Server) GetUsage(ctx context.Context, _ parseapi.GetUsageRequestObject) (parseapi.GetUsageResponseObject, error) {
	return parseapi.GetUsage501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// GetStatus is not implemented yet: its 200 must carry the X-RateLimit-* headers of the
// account's request budget, which this version does not count yet.
func (s *Server) GetStatus(ctx context.Context, _ parseapi.GetStatusRequestObject) (parseapi.GetStatusResponseObject, error) {
	return parseapi.GetStatus501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// CreateWebhook is not implemented yet.
func (s *Server) CreateWebhook(ctx context.Context, _ parseapi.CreateWebhookRequestObject) (parseapi.CreateWebhookResponseObject, error) {
	return parseapi.CreateWebhook501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// ListWebhooks is not implemented yet.
func (s *Server) ListWebhooks(ctx context.Context, _ parseapi.ListWebhooksRequestObject) (parseapi.ListWebhooksResponseObject, error) {
	return parseapi.ListWebhooks501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// DeleteWebhook is not implemented yet.
func (s *Server) DeleteWebhook(ctx context.Context, _ parseapi.DeleteWebhookRequestObject) (parseapi.DeleteWebhookResponseObject, error) {
	return parseapi.DeleteWebhook501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// TestWebhook is not implemented yet.
func (s *Server) TestWebhook(ctx context.Context, _ parseapi.TestWebhookRequestObject) (parseapi.TestWebhookResponseObject, error) {
	return parseapi.TestWebhook501JSONResponse{NotImplementedJSONResponse: notImplemented(ctx)}, nil
}

// GetHealth answers that the process is up.
func (s *Server) GetHealth(ctx context.Context, _ parseapi.GetHealthRequestObject) (parseapi.GetHealthResponseObject, error) {
	return parseapi.GetHealth200JSONResponse{Body: parseapi.HealthEnvelope{
		Ok: true, Data: parseapi.Health{Status: parseapi.HealthStatusOk}, Meta: meta(ctx)}}, nil
}

// GetReadiness answers whether the database is reachable.
func (s *Server) GetReadiness(ctx context.Context, _ parseapi.GetReadinessRequestObject) (parseapi.GetReadinessResponseObject, error) {
	if !s.svc.Ready(ctx) {
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
	return parseapi.GetOpenAPISpec200ApplicationyamlResponse{Body: bytes.NewReader(s.svc.SpecYAML), ContentLength: int64(len(s.svc.SpecYAML))}, nil
}

// GetDocs serves the HTML rendering of this API's spec.
func (s *Server) GetDocs(context.Context, parseapi.GetDocsRequestObject) (parseapi.GetDocsResponseObject, error) {
	return parseapi.GetDocs200TexthtmlResponse{Body: bytes.NewReader(s.svc.DocsHTML), ContentLength: int64(len(s.svc.DocsHTML))}, nil
}
