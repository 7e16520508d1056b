package httpkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// HeaderRequestID is the request id header, read from the client and sent on every response.
const HeaderRequestID = "X-Request-Id"

// saneRequestID is what a client-sent request id must look like to be kept: short, and safe to
// put in logs and headers as it is.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

type requestIDKey struct{}

// RequestID returns the request id of the request ctx belongs to, or "" outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// RequestIDMiddleware keeps a sane client-sent X-Request-Id, or makes a new UUID, puts it in the
// request's context and sends it on the response. The generated strict handlers also set the
// header (the specs declare it on every response) from a field the handlers leave empty, so the
// id is set again just before the status line is written: the middleware owns this header.
func RequestIDMiddleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(HeaderRequestID)
			if !saneRequestID.MatchString(id) {
				id = uuid.NewString()
			}
			req := c.Request()
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestIDKey{}, id)))
			res := c.Response()
			res.Header().Set(HeaderRequestID, id)
			res.Before(func() { res.Header().Set(HeaderRequestID, id) })
			return next(c)
		}
	}
}

// AccessLog writes one structured line per request: request id, method, route, status, sizes and
// latency, and tells observe (when set) of it for the metrics. It never logs headers or the
// query string, where credentials may travel.
func AccessLog(logger *slog.Logger, api string, observe RequestObserver) echo.MiddlewareFunc {
	var rs routes
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				// Render the error now, so the logged status is the one the client gets.
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			route := rs.of(c)
			attrs := []slog.Attr{
				slog.String("api", api),
				slog.String("request_id", RequestID(req.Context())),
				slog.String("method", req.Method),
				slog.String("path", req.URL.Path),
				slog.String("route", route),
				slog.Int("status", res.Status),
				slog.Int64("bytes_in", req.ContentLength),
				slog.Int64("bytes_out", res.Size),
				slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
				slog.String("remote_ip", ClientIP(req)),
			}
			if account := AccountID(req.Context()); account != "" {
				attrs = append(attrs, slog.String("account", account))
			}
			level := slog.LevelInfo
			if res.Status >= 500 {
				level = slog.LevelError
			}
			logger.LogAttrs(req.Context(), level, "request", attrs...)
			if observe != nil {
				observe(route, req.Method, res.Status, time.Since(start))
			}
			return nil
		}
	}
}

// routes knows the templates of an echo instance's routes, read once at its first request,
// after every route is registered. Echo names a request no route took by the closest node of
// its tree, or leaves it empty, so only a registered template is taken as a route.
type routes struct {
	once      sync.Once
	templates map[string]bool
}

// of is the template of the route that took the request, "" when none did.
func (rs *routes) of(c echo.Context) string {
	rs.once.Do(func() {
		rs.templates = map[string]bool{}
		for _, r := range c.Echo().Routes() {
			rs.templates[r.Path] = true
		}
	})
	if p := c.Path(); rs.templates[p] {
		return p
	}
	return ""
}

type accountIDKey struct{}

// WithAccountID returns a context that names the authenticated account, for logs and metrics.
func WithAccountID(ctx context.Context, accountID string) context.Context {
	return context.WithValue(ctx, accountIDKey{}, accountID)
}

// AccountID returns the authenticated account of the request, or "" when there is none.
func AccountID(ctx context.Context) string {
	id, _ := ctx.Value(accountIDKey{}).(string)
	return id
}

// Recover turns a panic in a handler into a 500 in the API's error body and logs the panic with
// its stack, so one bad request never takes the process down.
func Recover(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				if r == http.ErrAbortHandler {
					panic(r)
				}
				stack := make([]byte, 8<<10)
				stack = stack[:runtime.Stack(stack, false)]
				logger.ErrorContext(c.Request().Context(), "panic in handler",
					slog.String("request_id", RequestID(c.Request().Context())),
					slog.String("panic", fmt.Sprint(r)),
					slog.String("stack", string(stack)))
				err = &Error{Status: http.StatusInternalServerError, Code: CodeServerError,
					Message: messageServerError, Err: fmt.Errorf("panic: %v", r)}
			}()
			return next(c)
		}
	}
}

// MaxJSONBodyBytes bounds every request body that is not a multipart upload: no JSON or form
// body of these APIs comes near it.
const MaxJSONBodyBytes = 1 << 20

// BodyLimit answers 413 at once when the declared length is over the limit, and stops reading a
// body that turns out longer, so no request makes the server read or buffer more than the limit:
// uploadLimit for multipart bodies (FILE_TOO_LARGE), MaxJSONBodyBytes for all others
// (REQUEST_TOO_LARGE: no file was sent).
func BodyLimit(uploadLimit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			limit, tooLarge := int64(MaxJSONBodyBytes), BodyTooLarge
			if strings.HasPrefix(strings.ToLower(req.Header.Get(echo.HeaderContentType)), echo.MIMEMultipartForm) {
				limit, tooLarge = uploadLimit, TooLarge
			}
			if req.ContentLength > limit {
				return tooLarge(nil)
			}
			req.Body = limitedBody{http.MaxBytesReader(c.Response(), req.Body, limit), tooLarge}
			return next(c)
		}
	}
}

// limitedBody is a body cut at its limit by http.MaxBytesReader, whose overflow reads as the
// answer the limit gives (the *http.MaxBytesError stays inside it, for errors.As).
type limitedBody struct {
	io.ReadCloser
	tooLarge func(error) *Error
}

func (b limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return n, b.tooLarge(err)
	}
	return n, err
}

// MaxHeaderBytes bounds a request's line and headers together. Go's server refuses past
// listen's larger limit on its own, in plain text; between the two, HeaderLimit answers in the
// API's error body.
const MaxHeaderBytes = 64 << 10

// HeaderLimit answers 431 REQUEST_TOO_LARGE to a request whose line and headers together pass
// MaxHeaderBytes, without reading its body, and closes the connection.
func HeaderLimit() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if headerBytes(c.Request()) > MaxHeaderBytes {
				return &Error{Status: http.StatusRequestHeaderFieldsTooLarge, Code: CodeRequestTooLarge,
					Message: "The request headers are larger than this server accepts (64 KiB in all).",
					Header:  http.Header{"Connection": {"close"}}}
			}
			return next(c)
		}
	}
}

// headerBytes is about how many bytes r's request line and headers took on the wire.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len("Host: ") + len(r.Host) + 2
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + len(v) + 4
		}
	}
	return n
}
