package httpkit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

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
	CodeRequestTooLarge     = "REQUEST_TOO_LARGE"
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

// messageInvalidRequest begins the message of every 400 INVALID_REQUEST the validator raises.
const messageInvalidRequest = "The request does not match the API specification"

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
		e.Message = messageInvalidRequest
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

// TooLarge is the answer to an upload's body over its limit. The rest of the body is never read, so the
// connection is closed after the answer, as spool.Read closes it after its early refusals.
func TooLarge(err error) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeFileTooLarge,
		Message: "The request body is larger than this server accepts.", Err: err,
		Header: http.Header{"Connection": {"close"}}}
}

// BodyTooLarge is the answer to a body that is not an upload (JSON, a form) over its limit: no
// file was sent, so the code is REQUEST_TOO_LARGE. Like TooLarge it closes the connection.
func BodyTooLarge(err error) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeRequestTooLarge,
		Message: "The request body is larger than this server accepts (1 MiB for a body that is not an upload).", Err: err,
		Header: http.Header{"Connection": {"close"}}}
}

// Unavailable is the answer when a dependency the request needs (the database) fails: 503 with
// Retry-After, logging err and showing nothing of it.
func Unavailable(err error) *echo.HTTPError {
	return &echo.HTTPError{Code: http.StatusServiceUnavailable, Internal: &Error{
		Status: http.StatusServiceUnavailable, Code: CodeServiceUnavailable,
		Message: "The service is temporarily unavailable; retry later.", Err: err,
		Header: http.Header{HeaderRetryAfter: {strconv.Itoa(RetryAfterUnavailable)}}}}
}

// RetryAfterUnavailable is the Retry-After, in seconds, of a 503 while the database is unreachable.
const RetryAfterUnavailable = 5

// OutageTeller is a database that tells an error saying it could not be reached from any
// other (postgres.Health is one): the store package knows its driver's errors, this one none.
type OutageTeller interface {
	Unreachable(err error) bool
}

// ErrorHandler returns the echo error handler of one API: every error, whether a handler, a
// middleware, the validator or echo's router raised it, is written with render. Server errors are
// logged with their cause; the client only ever sees the fixed message. An unexpected error that
// db says is an outage (when it is an OutageTeller), or any while db does not answer a ping, is
// not a bug: the answer is 503 SERVICE_UNAVAILABLE with Retry-After, which a client may retry,
// rather than 500. A nil db pings nothing.
func ErrorHandler(logger *slog.Logger, render Renderer, db Pinger) echo.HTTPErrorHandler {
	outage, _ := db.(OutageTeller)
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		ce := toClientError(err)
		if ce.Status == http.StatusInternalServerError &&
			(outage != nil && outage.Unreachable(err) || db != nil && !Ready(c.Request().Context(), db)) {
			ce = Unavailable(err).Internal.(*Error)
		}
		if ce.Status >= 500 {
			logger.ErrorContext(c.Request().Context(), "request failed",
				slog.String("request_id", RequestID(c.Request().Context())),
				slog.Int("status", ce.Status),
				slog.String("error", err.Error()))
		}
		for name, values := range ce.Header {
			for _, v := range values {
				c.Response().Header().Add(name, v)
			}
		}
		if c.Request().Method == http.MethodHead {
			err = c.NoContent(ce.Status)
		} else {
			err = render(c, ce)
		}
		if err != nil {
			logger.ErrorContext(c.Request().Context(), "writing error response", slog.String("error", err.Error()))
		}
	}
}
