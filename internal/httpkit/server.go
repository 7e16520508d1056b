package httpkit

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

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

// MaxJSONBodyBytes bounds every request body that is not a multipart upload: no JSON or form
// body of these APIs comes near it.
const MaxJSONBodyBytes = 1 << 20

// BodyLimit answers 413 at once when the declared length is over the limit, and stops reading a
// body that turns out longer, so no request makes the server read or buffer more than the limit:
// uploadLimit for multipart bodies, MaxJSONBodyBytes for all others.
func BodyLimit(uploadLimit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			limit := int64(MaxJSONBodyBytes)
			if strings.HasPrefix(strings.ToLower(req.Header.Get(echo.HeaderContentType)), echo.MIMEMultipartForm) {
				limit = uploadLimit
			}
			if req.ContentLength > limit {
				return TooLarge(nil)
			}
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			return next(c)
		}
	}
}

// TooLarge is the answer to a body over its limit. The rest of the body is never read, so the
// connection is closed after the answer (see closesConnection).
func TooLarge(err error) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeFileTooLarge,
		Message: "The request body is larger than this server accepts.", Err: err,
		Header: http.Header{"Connection": {"close"}}}
}
