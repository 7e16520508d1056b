package httpkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
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

// The default timeouts of a Listener: headers within 10 s, a whole request (an upload
// included) within 5 minutes, and idle keep-alive connections are closed after 2 minutes.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 5 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
)

// Timeouts bound how long a client may hold a connection; a zero field means its default.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers, Read reading the whole request, headers
	// and body: a client that sends slower has its connection closed.
	ReadHeader time.Duration
	Read       time.Duration
	// Idle bounds the wait for the next request on a keep-alive connection.
	Idle time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = DefaultReadHeaderTimeout
	}
	if t.Read <= 0 {
		t.Read = DefaultReadTimeout
	}
	if t.Idle <= 0 {
		t.Idle = DefaultIdleTimeout
	}
	return t
}

// Listener is one HTTP listener of the process.
type Listener struct {
	Name     string
	Addr     string
	Handler  http.Handler
	Logger   *slog.Logger
	Timeouts Timeouts

	server *http.Server
	ln     net.Listener
}

// Listen binds the listener's address, so that a port already in use is reported before the
// process claims to be up. Addr may use port 0; Bound tells the port chosen.
func (l *Listener) Listen() error {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("listen %s on %s: %w", l.Name, l.Addr, err)
	}
	l.ln = ln
	t := l.Timeouts.withDefaults()
	l.server = &http.Server{
		Handler: l.Handler,
		// Slow clients must not hold connections (see Timeouts).
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(l.Logger.Handler(), slog.LevelWarn),
	}
	return nil
}

// Bound returns the address the listener is bound to.
func (l *Listener) Bound() string { return l.ln.Addr().String() }

// Serve serves until Shutdown; it returns nil after a shutdown.
func (l *Listener) Serve() error {
	l.Logger.Info("listening", slog.String("listener", l.Name), slog.String("addr", l.Bound()))
	if err := l.server.Serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", l.Name, err)
	}
	return nil
}

// Shutdown stops accepting connections and waits for in-flight requests until ctx ends.
func (l *Listener) Shutdown(ctx context.Context) error {
	return l.server.Shutdown(ctx)
}
