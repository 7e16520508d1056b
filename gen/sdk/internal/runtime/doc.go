// Package runtime is the part of github.com/oapi-codegen/runtime v1.8.0 that the generated
// clients call (parameter styling and binding, form encoding), copied with its license
// (LICENSE, Apache License 2.0) so that the SDK module does without the runtime module, whose
// requirements (gin, iris, echo and some 80 more) would all land in an integrator's module
// graph. Two changes: JSONMerge is rewritten on encoding/json (upstream uses a merge library),
// and MarshalForm marshals a JSON-encoded field's value (upstream marshals its reflect.Value).
// To update it with oapi-codegen, copy the files again from the runtime version the
// generator's templates expect.
package runtime
