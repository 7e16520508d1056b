// Package httpkit is the HTTP plumbing shared by the service's listeners: request ids, access
// logs, panic recovery, OpenAPI request validation, and the one error handler per API that turns
// every error into that API's error body. It knows nothing of reconciliation or parsing; each API
// package (internal/reconhttp, internal/parsehttp) supplies how its error body looks.
package httpkit

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// Error codes shared by both APIs. Each API's spec lists the codes it uses in its ErrorCode enum.
const (
	CodeUnauthorized        = "UNAUTHORIZED"
	CodeAuthInvalid         = "AUTH_INVALID"
	CodeForbidden           = "FORBIDDEN"
	CodeNotFound            = "NOT_FOUND"
	CodeMethodNotAllowed    = "METHOD_NOT_ALLOWED"
	CodeInvalidRequest      = "INVALID_REQUEST"
	CodeFileTooLarge        = "FILE_TOO_LARGE"
	CodeRateLimited         = "RATE_LIMITED"
	CodeLimitExceeded       = "LIMIT_EXCEEDED"
	CodeServerError         = "SERVER_ERROR"
	CodeServiceUnavailable  = "SERVICE_UNAVAILABLE"
	messageServerError      = "The server could not complete the request. Retry later; if it persists, contact support with the X-Request-Id."
	messageNotFoundPath     = "No such path in this API. The API's paths are listed at /api/v1/openapi.yaml."
	messageMethodNotAllowed = "This path does not accept this method; the Allow header lists the ones it does."
)

// Error is an error that is shown to the client: its status, code and message go into the API's
// error body as they are, so Message must be written for a client and never hold a Go error's
// text. Err, if set, is logged and never shown.
type Error struct {
	Status  int
	Code    string
	Message string
	// Header holds extra response headers, such as Allow, Retry-After or WWW-Authenticate.
	Header http.Header
	Err    error
}

// Error returns the code and message, and the internal error when there is one, for logs.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the internal error.
func (e *Error) Unwrap() error { return e.Err }

// Renderer writes an API's error body for a client error. Each API has one.
type Renderer func(c echo.Context, e *Error) error

// toClientError turns any error a handler, a middleware or echo itself returned into the Error
// that is shown to the client. Unknown errors become a 500 with a fixed message.
func toClientError(err error) *Error {
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return TooLarge(err)
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromEchoError(he)
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeServerError, Message: messageServerError, Err: err}
}

// fromEchoError maps the errors echo and its middlewares raise. Their messages are fixed texts,
// so only the ones known to be written for a client are kept.
func fromEchoError(he *echo.HTTPError) *Error {
	var ce *Error
	if errors.As(he.Internal, &ce) {
		return ce
	}
	var mbe *http.MaxBytesError
	if errors.As(he.Internal, &mbe) {
		return TooLarge(he.Internal)
	}
	msg, _ := he.Message.(string)
	e := &Error{Status: he.Code, Err: he.Internal}
	switch he.Code {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		e.Status, e.Code = http.StatusBadRequest, CodeInvalidRequest
		e.Message = "The request does not match the API specification"
		if msg != "" && msg != http.StatusText(he.Code) {
			e.Message += ": " + msg
		}
	case http.StatusNotFound:
		e.Code, e.Message = CodeNotFound, messageNotFoundPath
	case http.StatusMethodNotAllowed:
		e.Code, e.Message = CodeMethodNotAllowed, messageMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		e.Code, e.Message = CodeFileTooLarge, "The request body is larger than this server accepts."
	case http.StatusUnauthorized:
		e.Code, e.Message = CodeUnauthorized, "Authentication is required."
	case http.StatusForbidden:
		e.Code, e.Message = CodeForbidden, "The credential lacks the permission this operation needs."
	case http.StatusTooManyRequests:
		e.Code, e.Message = CodeRateLimited, "Too many requests; retry after the time in Retry-After."
	case http.StatusServiceUnavailable:
		e.Code, e.Message = CodeServiceUnavailable, "The service is temporarily unavailable; retry later."
	default:
		e.Status, e.Code, e.Message = http.StatusInternalServerError, CodeServerError, messageServerError
		if e.Err == nil {
			e.Err = he
		}
	}
	return e
}
