// Package parseclient is the Go SDK of the Parsing API. [New] returns a [Client] with one method per
// operation, each returning the typed result or an error ([*APIError] for every answer that is
// not a success); the models and the low-level RawClient and ClientWithResponses are generated
// from openapi/parsing.yaml, for what the one-call methods leave out.
//
// The package belongs to the module github.com/statementmatch/service/gen/sdk, which brings
// none of the server's dependencies and is released on its own, tagged gen/sdk/vX.Y.Z.
//
// Do not edit the *.gen.go files: change the spec and run `make gen`.
package parseclient

//go:generate go -C ../../.. tool oapi-codegen -config openapi/codegen/parseclient.yaml -o gen/sdk/parseclient/parseclient.gen.go openapi/parsing.yaml
