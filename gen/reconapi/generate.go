// Package reconapi is generated from openapi/reconciliation.yaml: the echo strict server interface, models and embedded spec of the Reconciliation API.
//
// Do not edit the *.gen.go files: change the spec and run `make gen`.
package reconapi

//go:generate go tool oapi-codegen -config ../../openapi/codegen/reconapi.yaml -o reconapi.gen.go ../../openapi/reconciliation.yaml
