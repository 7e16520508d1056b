// Package reconclient is the Go SDK of the Reconciliation API: the client and models generated from openapi/reconciliation.yaml.
//
// Do not edit the *.gen.go files: change the spec and run `make gen`.
package reconclient

//go:generate go tool oapi-codegen -config ../../openapi/codegen/reconclient.yaml -o reconclient.gen.go ../../openapi/reconciliation.yaml
