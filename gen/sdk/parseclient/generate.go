// Package parseclient is the Go SDK of the Parsing API: the client and models generated from openapi/parsing.yaml.
//
// Do not edit the *.gen.go files: change the spec and run `make gen`.
package parseclient

//go:generate go -C ../../.. tool oapi-codegen -config openapi/codegen/parseclient.yaml -o gen/sdk/parseclient/parseclient.gen.go openapi/parsing.yaml
