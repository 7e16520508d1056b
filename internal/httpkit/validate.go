package httpkit

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"
	oapimw "github.com/oapi-codegen/echo-middleware"
)

var uuidPattern = regexp.MustCompile(openapi3.FormatOfStringForUUIDOfRFC9562)

// registerOnce guards kin-openapi's global format and decoder registries.
var registerOnce sync.Once

// ValidatorOptions configures the request validator of one API.
type ValidatorOptions struct {
	// Authenticate checks a request's credentials for one security requirement of the
	// operation. Nil accepts every request: authentication is then someone else's job.
	Authenticate openapi3filter.AuthenticationFunc
}

// Validator returns the middleware that enforces spec on every request: unknown paths are 404,
// wrong methods 405 (with Allow), and anything else that breaks the spec 400, all rendered by the
// API's error handler. Schema errors name the offending field but never dump the schema or value.
// The spec's servers are cleared so requests are not matched against a host name.
func Validator(spec *openapi3.T, opts ValidatorOptions) (echo.MiddlewareFunc, error) {
	registerOnce.Do(func() {
		// IDs are UUIDs; kin-openapi checks only date and date-time formats unless told, and a
		// malformed id must be the validator's clear 400, not a binding error further in.
		openapi3.DefineStringFormatValidator("uuid", openapi3.NewCallbackValidator(func(v string) error {
			if !uuidPattern.MatchString(v) {
				return errors.New("must be a UUID such as 3f6c2a9e-8b1d-4c7a-9e2f-5a4b3c2d1e0f")
			}
			return nil
		}))
		// Uploaded statements are files: a bank's CSV may have a preamble, ragged rows or stray
		// quotes, which our parsers handle and report, so the validator must not parse text/csv
		// parts itself and refuse them with a generic 400.
		openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.FileBodyDecoder)
	})
	spec.Servers = nil
	router, err := gorillamux.NewRouter(spec)
	if err != nil {
		return nil, err
	}
	auth := opts.Authenticate
	if auth == nil {
		auth = openapi3filter.NoopAuthenticationFunc
	}
	return oapimw.OapiRequestValidatorWithOptions(spec, &oapimw.Options{
		Options: openapi3filter.Options{
			AuthenticationFunc:      auth,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
		},
		SilenceServersWarning: true,
		MultiErrorHandler: func(me openapi3.MultiError) *echo.HTTPError {
			return &echo.HTTPError{Code: http.StatusBadRequest, Message: firstLine(me.Error()), Internal: me}
		},
		ErrorHandler: func(c echo.Context, he *echo.HTTPError) error {
			if he.Code == http.StatusMethodNotAllowed {
				return &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed,
					Message: messageMethodNotAllowed,
					Header:  http.Header{"Allow": {allowedMethods(router, c.Request())}}}
			}
			return he
		},
	}), nil
}

// allowedMethods lists the methods the spec declares for the request's path.
func allowedMethods(router routers.Router, req *http.Request) string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := httptest.NewRequest(m, req.URL.String(), nil)
		if _, _, err := router.FindRoute(probe); err == nil {
			allowed = append(allowed, m)
		}
	}
	return strings.Join(allowed, ", ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
