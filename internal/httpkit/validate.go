package httpkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
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
	// StreamUploads leaves the bodies of multipart uploads to the operations' handlers, which
	// read them as a stream with spool.Read and check their parts; see isUpload.
	StreamUploads bool
	// Unrouted, when set, sees a request to a path or method no operation has before it is
	// answered 404 or 405, with a context as an AuthenticationFunc gets (for SetRateLimit and
	// ApplyRateLimit): a request with valid credentials counts against its account's rate limit
	// and its answer carries the X-RateLimit headers like any other. An error it returns (the
	// 429 of a spent budget) is the answer instead.
	Unrouted func(authCtx context.Context, req *http.Request) error
}

// Validator returns the middleware that enforces spec on every request: unknown paths are 404,
// wrong methods 405 (with Allow), credentials are checked through opts.Authenticate (kin-openapi
// checks the security requirements before parameters and body, so an unauthenticated request
// gets its 401 even when it also breaks the spec), and anything else that breaks the spec is 400,
// all rendered by the API's error handler. Schema errors name the offending field but never dump
// the schema or value. The spec's servers are cleared so requests are not matched against a host
// name.
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
		openapi3filter.RegisterBodyDecoder(echo.MIMEApplicationJSON, jsonTextDecoder)
	})
	spec.Servers = nil
	router, err := gorillamux.NewRouter(spec)
	if err != nil {
		return nil, err
	}
	auth := openapi3filter.NoopAuthenticationFunc
	if opts.Authenticate != nil {
		// The credentials were checked by authenticateFirst; the validator's own pass over the
		// security requirements must not check them again.
		auth = func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
			if ec := oapimw.GetEchoContext(ctx); ec != nil && ec.Get(authCheckedKey) == true {
				return nil
			}
			return opts.Authenticate(ctx, in)
		}
	}
	newValidator := func(excludeBody bool) *oapimw.Options {
		return &oapimw.Options{
			Options: openapi3filter.Options{
				AuthenticationFunc: auth,
				ExcludeRequestBody: excludeBody,
				// Without it kin-openapi puts a parameter's default in place of an empty value
				// (`?limit=`) before checking it, so the empty value passes; the handlers apply
				// the spec's defaults themselves.
				SkipSettingDefaults:     true,
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
				if he.Code == http.StatusBadRequest {
					if msg, ok := describeInvalid(he.Internal); ok {
						he.Message = msg // fromEchoError puts it after messageInvalidRequest
					}
				}
				return he
			},
		}
	}
	full, bodiless := newValidator(false), newValidator(true)
	// validate checks the request the route found (or the failure to find one, which becomes the
	// 404 or 405) against the spec, and runs next when it passes. It hands oapi-codegen's
	// validator the route rather than letting it route the request again.
	validate := func(c echo.Context, o *oapimw.Options, found foundRoute, next echo.HandlerFunc) error {
		if herr := oapimw.ValidateRequestFromContext(c, found, o); herr != nil {
			return o.ErrorHandler(c, herr)
		}
		return next(c)
	}
	// The identity an AuthenticationFunc recorded goes into the request's context after
	// validation: before the handler on success, and before the error is rendered and logged on
	// failure (a 400 after a successful authentication is still logged with its account).
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		handler := func(c echo.Context) error {
			applyAuthenticated(c)
			return next(c)
		}
		// kin-openapi's pass over the security requirements reads the whole body into memory
		// (in case an AuthenticationFunc wants it), ExcludeRequestBody or not: an upload's body
		// is hidden from the validator and given back to the handler, which streams it.
		streamingHandler := func(c echo.Context) error {
			if body, ok := c.Get(hiddenBodyKey).(io.ReadCloser); ok {
				c.Request().Body = body
			}
			return handler(c)
		}
		return func(c echo.Context) error {
			defer func() {
				if p := recover(); p != nil {
					// A handler that panicked did not settle its deferred count: the request
					// still counts (Recover answers it).
					_ = SettleRateLimit(c)
					panic(p)
				}
			}()
			lowerMediaType(c.Request().Header)
			// Routed once here: unknown routes are left to the validator (404, 405), after
			// Unrouted has counted them.
			var err error
			route, params, ferr := router.FindRoute(c.Request())
			switch {
			case ferr != nil && opts.Unrouted != nil:
				if err = opts.Unrouted(authContext(c), c.Request()); err != nil {
					applyAuthenticated(c)
					return err
				}
			case ferr == nil:
				err = authenticateFirst(c, route, params, opts.Authenticate)
			}
			if err == nil {
				found := foundRoute{route, params, ferr}
				if req := c.Request(); opts.StreamUploads && isUpload(req, route) {
					c.Set(hiddenBodyKey, req.Body)
					req.Body = http.NoBody
					err = validate(c, bodiless, found, streamingHandler)
				} else {
					err = validate(c, full, found, handler)
				}
			}
			applyAuthenticated(c)
			// A request that validation refused, or whose handler did not settle its deferred
			// count, is counted now; over the limit, the 429 is its answer, as it would have been
			// had the count come first.
			if serr := SettleRateLimit(c); serr != nil && !c.Response().Committed {
				return serr
			}
			return err
		}
	}, nil
}

// foundRoute is a routers.Router that answers with the route a request was found to have.
type foundRoute struct {
	route  *routers.Route
	params map[string]string
	err    error
}

func (f foundRoute) FindRoute(*http.Request) (*routers.Route, map[string]string, error) {
	return f.route, f.params, f.err
}

// lowerMediaType lowercases the media type of a Content-Type header and leaves its parameters as
// they are (a multipart boundary is case-sensitive). Type and subtype are case-insensitive (RFC
// 9110, section 8.3.1), but the generated handlers compare them as strings, and would take a
// body sent as APPLICATION/JSON for no body at all.
func lowerMediaType(h http.Header) {
	ct := h.Get(echo.HeaderContentType)
	end := strings.IndexByte(ct, ';')
	if end < 0 {
		end = len(ct)
	}
	if lower := strings.ToLower(ct[:end]); lower != ct[:end] {
		h.Set(echo.HeaderContentType, lower+ct[end:])
	}
}

// jsonTextDecoder is kin-openapi's JSON body decoder that also refuses anything but whitespace
// after the value: a JSON text is one value (RFC 8259), and `{...} {...}` would otherwise pass
// with its second half silently dropped.
func jsonTextDecoder(body io.Reader, h http.Header, schema *openapi3.SchemaRef, enc openapi3filter.EncodingFn) (any, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	v, err := openapi3filter.JSONBodyDecoder(bytes.NewReader(data), h, schema, enc)
	if err == nil && !json.Valid(data) {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat,
			Cause: errors.New("there is more data after the JSON value")}
	}
	return v, err
}

// isUpload reports whether the request is a multipart upload to an operation that declares
// one. kin-openapi would read such a body whole into memory to validate it, so it checks only
// the request's parameters and credentials; the operation's handler reads the parts as a stream
// and checks them against the spec itself (spool.Read). A multipart body without a boundary
// cannot be streamed; the full validator refuses it with a 400. route is the request's operation
// (nil for none).
func isUpload(req *http.Request, route *routers.Route) bool {
	mt, params, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if err != nil || mt != echo.MIMEMultipartForm || params["boundary"] == "" {
		return false
	}
	if route == nil || route.Operation.RequestBody == nil || route.Operation.RequestBody.Value == nil {
		return false
	}
	return route.Operation.RequestBody.Value.Content.Get(echo.MIMEMultipartForm) != nil
}

// hiddenBodyKey holds, on the echo context, an upload's body while the validator runs.
const hiddenBodyKey = "httpkit/hidden-body"

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
