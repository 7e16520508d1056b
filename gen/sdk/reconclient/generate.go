// Package reconclient is the Go SDK of the Reconciliation API: the client and models generated from openapi/reconciliation.yaml.
//
// Do not edit the *.gen.go files: change the spec and run `make gen`.
package reconclient

//go:generate go -C ../../.. tool oapi-codegen -config openapi/codegen/reconclient.yaml -o gen/sdk/reconclient/reconclient.gen.go openapi/reconciliation.yaml
