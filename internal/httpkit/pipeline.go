// Package httpkit is the request pipeline both API listeners share (internal/reconhttp,
// internal/parsehttp): request ids, access logs, panic recovery, body limits, OpenAPI validation
// with authentication and rate limits, and the one error handler per API that turns every error
// into that API's error body. It knows nothing of reconciliation or parsing: each API supplies
// its spec, its AuthenticationFunc and how its error body looks. Two concerns live in
// sub-packages that import this one: streamed multipart uploads (internal/httpkit/spool) and
// the listeners with their timeouts (internal/httpkit/listen).
//
// # One request, in order
//
// NewEcho builds the pipeline; reconhttp.New and parsehttp.New call it with their spec,
// Server.authenticate and renderError, then register the generated strict handlers on it.
// cmd/statementd serves the result on a listen.Listener (which bounds slow clients).
//
//  1. Route. Echo's router picks the handler first (c.Path(), for the access log). The
//     validator (step 6) routes again over the spec, and answers 404 for a path the spec does
//     not have and 405, with Allow, for a method it does not declare; a valid credential on
//     such a request still counts against its rate limit, and the answer carries the
//     X-RateLimit headers (ValidatorOptions.Unrouted: the APIs' countUnrouted).
//  2. Client and request id: ClientAddress resolves who sent the request, the connection's peer
//     or, from a trusted proxy (EchoConfig.TrustedProxies), the client its X-Forwarded-For
//     names, for the throttles (SourceAddress) and the access log (ClientIP).
//     RequestIDMiddleware keeps a sane X-Request-Id or makes one, puts it in the context
//     (RequestID) and owns the response header. SecurityHeaders then sets the headers
//     every answer carries (nosniff, no-store, the docs page's Content-Security-Policy).
//  3. Access log: AccessLog writes one line per request. It renders an error itself (c.Error)
//     before logging, so the line holds the status the client got, and the account once step 7
//     has put it in the context.
//  4. Recover: Recover turns a panic into a 500 in the API's body, and logs its stack.
//  5. Limits: HeaderLimit answers 431 to a request line and headers over MaxHeaderBytes.
//     BodyLimit answers 413 on a declared length over the limit and cuts a longer
//     body while it is read: MaxJSONBodyBytes for every body, EchoConfig.MaxUploadBodyBytes for
//     multipart ones (cmd/statementd: two files of STATEMENTD_MAX_UPLOAD_BYTES plus framing).
//  6. Validate: Validator checks the request against the spec with kin-openapi (through
//     oapi-codegen's echo middleware): parameters and body, 400 INVALID_REQUEST naming the field.
//     Before that it lowers the media type (lowerMediaType).
//  7. Authenticate, inside step 6 and before parameters and body: authenticateFirst runs the
//     operation's security requirements through the API's AuthenticationFunc
//     (ValidatorOptions.Authenticate: reconhttp's and parsehttp's Server.authenticate) on a copy
//     of the request without its body. kin-openapi checks security first too, so a request that
//     is both unauthenticated and invalid gets 401, not 400; but it reads the whole body first,
//     so a client without credentials could make the server buffer a full upload just to be
//     refused. authCheckedKey then keeps kin-openapi's own security pass from checking again. The
//     AuthenticationFunc answers with the 401/403 of bearer.go (Unauthenticated, InvalidToken,
//     InsufficientScope, with their WWW-Authenticate challenge), and records the caller with
//     SetAuthenticated; applyAuthenticated puts it into the request's context once validation is
//     over, whether it passed or not. RequestContext gives the function the request's own context.
//  8. Rate limit, inside the AuthenticationFunc (ratelimit.go): once the credential is known,
//     ApplyRateLimit counts the request against its account (429 with the API's code; the
//     X-RateLimit headers on every answer; 503 if counting fails), before the scopes are checked;
//     a refused credential is counted against its source address by RefuseAnonymous (429 past
//     AnonymousBudget, otherwise the 401 stands). The reads clients poll (a job, its results)
//     defer their count instead (DeferRateLimit): the job store counts the request in the same
//     statement as its read (ratelimit.Deferred), so the request costs one round trip, and the
//     count is settled, with the same 429 or headers, after the handler and before its answer is
//     written (StrictSettleRateLimit, step 10), or at the end of step 6 when validation refused
//     the request.
//  9. Streamed upload: with ValidatorOptions.StreamUploads (both APIs), a multipart body sent to
//     an operation that declares one (isUpload) is hidden from kin-openapi (hiddenBodyKey), which
//     would read it whole into memory, both to validate it and in its security pass, and is
//     handed back for the handler. The validator checks only its parameters; the handler
//     (reconhttp's and parsehttp's Server.CreateJob) reads the parts with spool.Read, which
//     spools each file to disk, checks the parts against its FormSpec and answers 413 as soon as
//     a file passes MaxFileBytes, closing the connection.
//  10. Handler: the generated strict handler binds the request and calls the API's Server method
//     (both wrap it in StrictSettleRateLimit; reconhttp in clientBasic for the token endpoint,
//     parsehttp in keepRateLimitHeaders). Create operations check their Idempotency-Key with IdempotencyKey.
//  11. Errors: every error, from a handler, a middleware, the validator or the router, reaches
//     ErrorHandler. toClientError makes it an *Error: an *Error as it is, a body over its limit
//     413, echo's errors by status, anything else 500 with a fixed message (the cause is only
//     logged). The outage rule: a 500 whose error the database calls an outage
//     (OutageTeller, postgres.Health), or any 500 while the database does not answer a ping
//     (Ready), is 503 SERVICE_UNAVAILABLE with Retry-After (Unavailable), which a client may
//     retry. The API's Renderer (reconhttp's and parsehttp's renderError) writes the body.
package httpkit

import (
	"fmt"
	"log/slog"
	"time"

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
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client
	// (ClientAddress); none: the connection's peer is the client.
	TrustedProxies TrustedProxies
	// Observe, when set, is told of every request answered, as the access log is.
	Observe RequestObserver
}

// RequestObserver is told of a request answered, for the metrics: its route template ("" when
// no route took it), method, status and how long it took.
type RequestObserver func(route, method string, status int, took time.Duration)

// NewEcho returns an echo instance with the middleware every API listener runs, in the order the
// package documentation walks through: client address, request id, security headers, access log,
// panic recovery, body limit, spec validation (with authentication, rate limits and streamed
// uploads), and the API's error handler. The caller registers the API's handlers on it.
func NewEcho(cfg EchoConfig) (*echo.Echo, error) {
	validator, err := Validator(cfg.Spec, cfg.Validation)
	if err != nil {
		return nil, fmt.Errorf("%s validator: %w", cfg.API, err)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = ClientIP
	e.HTTPErrorHandler = ErrorHandler(cfg.Logger, cfg.Render, cfg.DB)
	e.Use(ClientAddress(cfg.TrustedProxies), RequestIDMiddleware(), SecurityHeaders(), AccessLog(cfg.Logger, cfg.API, cfg.Observe), Recover(cfg.Logger), HeaderLimit(), BodyLimit(cfg.MaxUploadBodyBytes), validator)
	return e, nil
}
