package httpkit

import (
	"context"
	"fmt"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/statementmatch/service/internal/platform/apidocs"
)

// Pinger is what readiness needs of the database.
type Pinger interface {
	PingContext(ctx context.Context) error
}

// Service holds what every listener serves outside its API operations: its spec as written, the
// HTML rendering of it, and the database whose reachability makes the listener ready.
type Service struct {
	// SpecYAML is the listener's OpenAPI document as published.
	SpecYAML []byte
	// DocsHTML is the human-readable rendering of SpecYAML.
	DocsHTML []byte
	// DB is pinged by the readiness check.
	DB Pinger
}

// NewService returns the Service of a listener whose spec is specYAML, parsed as spec; the docs
// page is rendered once here, not per request.
func NewService(specYAML []byte, spec *openapi3.T, db Pinger) (Service, error) {
	docs, err := apidocs.Render(spec)
	if err != nil {
		return Service{}, fmt.Errorf("render API docs: %w", err)
	}
	return Service{SpecYAML: specYAML, DocsHTML: docs, DB: db}, nil
}

// readinessTimeout bounds a readiness probe, so a hung database makes the probe fail rather than
// hang the prober.
const readinessTimeout = 2 * time.Second

// Ready reports whether the database answers within the readiness timeout.
func (s Service) Ready(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, readinessTimeout)
	defer cancel()
	return s.DB.PingContext(ctx) == nil
}

// RetryAfterUnavailable is the Retry-After, in seconds, of a 503 while the database is unreachable.
const RetryAfterUnavailable = 5
