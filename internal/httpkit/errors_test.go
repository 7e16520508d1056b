package httpkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

func TestToClientError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		err         error
		wantStatus  int
		wantCode    string
		wantMessage string
	}{
		{name: "a client error passes through as it is", err: &Error{Status: 409, Code: "JOB_NOT_READY", Message: "not yet"},
			wantStatus: 409, wantCode: "JOB_NOT_READY", wantMessage: "not yet"},
		{name: "a wrapped client error is found", err: fmt.Errorf("get job: %w", &Error{Status: 404, Code: CodeNotFound, Message: "no job"}),
			wantStatus: 404, wantCode: CodeNotFound, wantMessage: "no job"},
		{name: "an unknown error is a 500 that hides its text", err: errors.New("pq: relation \"jobs\" does not exist"),
			wantStatus: 500, wantCode: CodeServerError, wantMessage: "could not complete the request"},
		{name: "echo's 404 is NOT_FOUND", err: echo.ErrNotFound, wantStatus: 404, wantCode: CodeNotFound, wantMessage: "No such path"},
		{name: "echo's 405 is METHOD_NOT_ALLOWED", err: echo.ErrMethodNotAllowed, wantStatus: 405, wantCode: CodeMethodNotAllowed},
		{name: "a validation 400 keeps its first line", err: &echo.HTTPError{Code: 400, Message: `parameter "limit" in query has an error`},
			wantStatus: 400, wantCode: CodeInvalidRequest, wantMessage: `parameter "limit"`},
		{name: "a 415 is an invalid request", err: echo.ErrUnsupportedMediaType, wantStatus: 400, wantCode: CodeInvalidRequest},
		{name: "an over-long body is 413", err: fmt.Errorf("read: %w", &http.MaxBytesError{Limit: 10}),
			wantStatus: 413, wantCode: CodeFileTooLarge},
		{name: "an over-long body under an echo error is 413", err: &echo.HTTPError{Code: 400, Internal: &http.MaxBytesError{Limit: 10}},
			wantStatus: 413, wantCode: CodeFileTooLarge},
		{name: "an echo 500 hides its message", err: &echo.HTTPError{Code: 500, Message: "error validating route: boom"},
			wantStatus: 500, wantCode: CodeServerError, wantMessage: "could not complete the request"},
		{name: "an echo 503 is SERVICE_UNAVAILABLE", err: echo.ErrServiceUnavailable, wantStatus: 503, wantCode: CodeServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := toClientError(tt.err)
			require.Equal(t, tt.wantStatus, got.Status)
			require.Equal(t, tt.wantCode, got.Code)
			require.Contains(t, got.Message, tt.wantMessage)
			require.NotContains(t, got.Message, "boom")
			require.NotContains(t, got.Message, "pq:")
		})
	}
}

// testSpec declares the routes of TestMiddleware, with no body schema, so only the middleware
// decides.
const testSpec = `
openapi: 3.0.3
info: {title: test, version: "1"}
paths:
  /panic:
    get:
      responses: {"200": {description: ok}}
  /read:
    post:
      requestBody:
        content:
          "*/*": {schema: {type: string}}
      responses: {"204": {description: ok}}
`

// testEcho is an echo instance with the shared middleware and a plain JSON error body.
func testEcho(t *testing.T, uploadLimit int64) (*echo.Echo, *strings.Builder) {
	t.Helper()
	var logs strings.Builder
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	spec, err := openapi3.NewLoader().LoadFromData([]byte(testSpec))
	require.NoError(t, err)
	e, err := NewEcho(EchoConfig{API: "test", Logger: logger, MaxUploadBodyBytes: uploadLimit, Spec: spec,
		Render: func(c echo.Context, e *Error) error {
			return c.JSON(e.Status, map[string]string{"code": e.Code, "message": e.Message})
		}})
	require.NoError(t, err)
	return e, &logs
}

func TestMiddleware(t *testing.T) {
	t.Parallel()
	e, logs := testEcho(t, 100)
	e.GET("/panic", func(echo.Context) error { panic("kaboom") })
	e.POST("/read", func(c echo.Context) error {
		_, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		// As the generated strict handlers do: set the declared header from an unset field.
		c.Response().Header().Set(HeaderRequestID, "")
		return c.NoContent(http.StatusNoContent)
	})

	tests := []struct {
		name        string
		method      string
		path        string
		body        string
		contentType string
		chunked     bool
		header      string // the value of an X-Padding header
		wantStatus  int
		wantCode    string
	}{
		{name: "a panic is a 500 in the API's body", method: "GET", path: "/panic", wantStatus: 500, wantCode: CodeServerError},
		{name: "an unknown route is a 404 in the API's body", method: "GET", path: "/nope", wantStatus: 404, wantCode: CodeNotFound},
		{name: "a small body is read", method: "POST", path: "/read", contentType: "text/plain", body: "hello", wantStatus: 204},
		{name: "a JSON body over 1 MiB is refused before reading", method: "POST", path: "/read", contentType: "application/json",
			body: strings.Repeat("x", MaxJSONBodyBytes+1), wantStatus: 413, wantCode: CodeRequestTooLarge},
		{name: "a JSON body without a length is cut at 1 MiB", method: "POST", path: "/read", contentType: "application/json",
			body: strings.Repeat("x", MaxJSONBodyBytes+1), chunked: true, wantStatus: 413, wantCode: CodeRequestTooLarge},
		{name: "headers over 64 KiB are refused", method: "POST", path: "/read", contentType: "text/plain",
			header: strings.Repeat("x", MaxHeaderBytes), wantStatus: 431, wantCode: CodeRequestTooLarge},
		{name: "headers just under 64 KiB are read", method: "POST", path: "/read", contentType: "text/plain",
			header: strings.Repeat("x", MaxHeaderBytes-200), wantStatus: 204},
		{name: "an upload over its limit is refused before reading", method: "POST", path: "/read", contentType: "multipart/form-data; boundary=x",
			body: strings.Repeat("x", 101), wantStatus: 413, wantCode: CodeFileTooLarge},
		{name: "an upload without a length is cut at its limit", method: "POST", path: "/read", contentType: "multipart/form-data; boundary=x",
			body: strings.Repeat("x", 101), chunked: true, wantStatus: 413, wantCode: CodeFileTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.chunked {
				req.ContentLength = -1
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			req.Header.Set(HeaderRequestID, "trace-1")
			if tt.header != "" {
				req.Header.Set("X-Padding", tt.header)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			require.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			require.Equal(t, "trace-1", rec.Header().Get(HeaderRequestID), "the request id survives whatever the handler set")
			if tt.wantCode != "" {
				var body map[string]string
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
				require.Equal(t, tt.wantCode, body["code"])
			}
		})
	}
	t.Run("the panic is logged with its stack, the access log has the final status", func(t *testing.T) {
		req := httptest.NewRequest("GET", "/panic", nil)
		e.ServeHTTP(httptest.NewRecorder(), req)
		require.Contains(t, logs.String(), "kaboom")
		require.Contains(t, logs.String(), `"status":500`)
	})
}

// pinger answers pings with err.
type pinger struct{ err error }

func (p pinger) PingContext(context.Context) error { return p.err }

func TestAnUnexpectedErrorIs503WhileTheDatabaseIsUnreachable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		db         Pinger
		wantStatus int
		wantCode   string
		retryAfter string
	}{
		{name: "with the database up it is a bug: 500", db: pinger{}, wantStatus: 500, wantCode: CodeServerError},
		{name: "with the database down it is 503 with Retry-After", db: pinger{errors.New("connection refused")},
			wantStatus: 503, wantCode: CodeServiceUnavailable, retryAfter: "5"},
		{name: "without a database to ask it is 500", db: nil, wantStatus: 500, wantCode: CodeServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs strings.Builder
			handler := ErrorHandler(slog.New(slog.NewJSONHandler(&logs, nil)), func(c echo.Context, e *Error) error {
				return c.JSON(e.Status, map[string]string{"code": e.Code, "message": e.Message})
			}, tt.db)
			e := echo.New()
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest("GET", "/x", nil), rec)
			handler(errors.New("pq: database is not accepting connections"), c)
			require.Equal(t, tt.wantStatus, rec.Code)
			require.Contains(t, rec.Body.String(), tt.wantCode)
			require.NotContains(t, rec.Body.String(), "pq:", "the cause is logged, never shown")
			require.Contains(t, logs.String(), "pq: database is not accepting connections")
			require.Equal(t, tt.retryAfter, rec.Header().Get(HeaderRetryAfter))
		})
	}
}
