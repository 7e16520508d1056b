// Package parseapi is generated from openapi/parsing.yaml: the echo strict server interface, models and embedded spec of the Parsing API.
//
// Do not edit the *.gen.go files: change the spec and run `make gen`.
package parseapi

//go:generate go tool oapi-codegen -config ../../openapi/codegen/parseapi.yaml -o parseapi.gen.go ../../openapi/parsing.yaml
