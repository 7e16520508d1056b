// Package types holds the OpenAPI types of the SDK's models: Date (a calendar date, format
// date), UUID, File and Email. It is a copy of github.com/oapi-codegen/runtime/types v1.8.0
// (Apache License 2.0, see ../internal/runtime/LICENSE), so that the SDK does without that
// module's requirements.
package types
