package httpkit

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/statementmatch/service/internal/platform/apidocs"
)

// Published is what a listener publishes about its API besides the operations: the spec as
// written (GET /api/v1/openapi.yaml) and its HTML rendering (the docs page).
type Published struct {
	// SpecYAML is the listener's OpenAPI document as published.
	SpecYAML []byte
	// DocsHTML is the human-readable rendering of SpecYAML.
	DocsHTML []byte
}

// Publish returns what a listener whose spec is specYAML, parsed as spec, publishes, with
// samples shown on the docs page; the page is rendered once here, not per request.
func Publish(specYAML []byte, spec *openapi3.T, samples apidocs.Samples) (Published, error) {
	docs, err := apidocs.Render(spec, samples)
	if err != nil {
		return Published{}, fmt.Errorf("render API docs: %w", err)
	}
	return Published{SpecYAML: specYAML, DocsHTML: docs}, nil
}
