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

// CodeSample is a file of code samples for the reference pages: regions between
// "sample:start API OPERATION" and "sample:end" comments, each shown with that operation of that
// API. The tests run every file against a server (contract-tests/docs_samples_test.go, and the
// TypeScript SDK's contract test), so a sample that no longer works fails them.
type CodeSample struct {
	// Lang names the language for the page's syntax class ("shell", "go", "typescript").
	Lang string
	// Label is the tab's title ("curl", "Go", "TypeScript").
	Label string
	// Source is the file.
	Source []byte
}

//go:embed samples/curl/samples.sh
var curlSamples []byte

//go:embed samples/gosamples/samples.go
var goSamples []byte

//go:embed samples/ts/samples.ts
var tsSamples []byte

// CodeSamples are the sample files, in the order their tabs are shown.
var CodeSamples = []CodeSample{
	{Lang: "shell", Label: "curl", Source: curlSamples},
	{Lang: "go", Label: "Go", Source: goSamples},
	{Lang: "typescript", Label: "TypeScript", Source: tsSamples},
}
