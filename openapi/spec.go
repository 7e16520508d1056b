// Package openapi holds the hand-written OpenAPI specs, the product's public interface. They are
// embedded as written so each listener serves its spec at /api/v1/openapi.yaml byte for byte.
package openapi

import _ "embed"

// Reconciliation is openapi/reconciliation.yaml, the Reconciliation API.
//
//go:embed reconciliation.yaml
var Reconciliation []byte

// Parsing is openapi/parsing.yaml, the Parsing API.
//
//go:embed parsing.yaml
var Parsing []byte
