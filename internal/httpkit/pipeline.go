package httpkit

import (
	"fmt"
	"log/slog"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// EchoConfig describes one API listener's echo instance.
type EchoConfig struct {
	// API names the listener in logs, e.g. "recon" or "parse".
	API    string
	Logger *slog.Logger
	// Render writes this API's error body.
	Render Renderer
	// Spec is the API's OpenAPI document: every request is validated against it (see Validator,
	// which clears its servers).
	Spec *openapi3.T
	// Validation configures the validator.
	Validation ValidatorOptions
	// MaxUploadBodyBytes bounds a multipart upload's body; larger ones get 413 before they are read.
	MaxUploadBodyBytes int64
	// DB is pinged when a request fails unexpectedly, to tell an unreachable database (503) from
	// a bug (500); nil pings nothing.
	DB Pinger
}

// NewEcho returns an echo instance with the middleware every API listener runs, in this order:
// request id, access log, panic recovery, body limit, spec validation. The caller registers the
// API's handlers on it.
func NewEcho(cfg EchoConfig) (*echo.Echo, error) {
	validator, err := Validator(cfg.Spec, cfg.Validation)
	if err != nil {
		return nil, fmt.Errorf("%s validator: %w", cfg.API, err)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = ErrorHandler(cfg.Logger, cfg.Render, cfg.DB)
	e.Use(RequestIDMiddleware(), AccessLog(cfg.Logger, cfg.API), Recover(cfg.Logger), BodyLimit(cfg.MaxUploadBodyBytes), validator)
	return e, nil
}
