package httpkit

import (
	"context"
	"errors"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
	oapimw "github.com/oapi-codegen/echo-middleware"

	"github.com/statementmatch/service/internal/ratelimit"
)

// authCheckedKey marks, on the echo context, a request whose credentials authenticateFirst
// accepted.
const authCheckedKey = "httpkit/auth-checked"

// authenticateFirst checks the security requirements of the request's operation before anything
// reads the body. kin-openapi checks them first too, but reads the whole body beforehand (so an
// AuthenticationFunc could look at it), which would let a client without credentials make the
// server buffer an upload of the full size limit just to be told 401. Here the requirements see
// an empty body. route and params are the request's operation, as the router found it.
func authenticateFirst(c echo.Context, route *routers.Route, params map[string]string, authenticate openapi3filter.AuthenticationFunc) error {
	if authenticate == nil {
		return nil
	}
	security := route.Operation.Security
	if security == nil {
		security = &route.Spec.Security
	}
	probe := *c.Request()
	probe.Body, probe.GetBody, probe.ContentLength = http.NoBody, nil, 0
	in := &openapi3filter.RequestValidationInput{Request: &probe, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: authenticate}}
	err := openapi3filter.ValidateSecurityRequirements(authContext(c), in, *security)
	if err == nil {
		c.Set(authCheckedKey, true)
		return nil
	}
	// As echo-middleware does: the first *echo.HTTPError an AuthenticationFunc returned wins.
	var sre *openapi3filter.SecurityRequirementsError
	if errors.As(err, &sre) {
		for _, e := range sre.Errors {
			var he *echo.HTTPError
			if errors.As(e, &he) {
				return he
			}
		}
	}
	// An AuthenticationFunc of this service answers with an *echo.HTTPError; anything else (a
	// scheme the spec does not declare, say) is a bug of the server, not the client's fault.
	return &echo.HTTPError{Code: http.StatusInternalServerError, Internal: err}
}

// authContext is the context the validator gives an AuthenticationFunc: GetEchoContext finds c
// in it, and RequestContext the request's own context.
func authContext(c echo.Context) context.Context {
	return context.WithValue(context.Background(), oapimw.EchoContextKey, c) //lint:ignore SA1029 the key echo-middleware defines
}

// authContextKey is the echo context key under which an AuthenticationFunc leaves what the
// request's context must gain once validation is over.
const authContextKey = "httpkit/authenticated-context"

// RequestContext returns, inside an openapi3filter.AuthenticationFunc, the context of the HTTP
// request being validated: the validator calls the function with a context of its own that
// carries the echo context but neither the request's values nor its cancellation. Outside a
// validation it returns authCtx.
func RequestContext(authCtx context.Context) context.Context {
	if ec := oapimw.GetEchoContext(authCtx); ec != nil {
		return ec.Request().Context()
	}
	return authCtx
}

// SetAuthenticated records, inside an openapi3filter.AuthenticationFunc, the context values of
// an authenticated request: derive gets the request's context and returns it with the caller's
// identity added. The validator applies it to the request once it has finished validating, so
// the handlers and the access log see the identity. (Replacing the request from inside the
// AuthenticationFunc would hand the handlers a copy made before the validator restores the body
// it read, and lose what it writes back, such as defaults.) The account id is added for the
// access log.
func SetAuthenticated(authCtx context.Context, accountID string, derive func(context.Context) context.Context) {
	ec := oapimw.GetEchoContext(authCtx)
	if ec == nil {
		return
	}
	ec.Set(authContextKey, func(ctx context.Context) context.Context {
		ctx = WithAccountID(ctx, accountID)
		if derive != nil {
			ctx = derive(ctx)
		}
		return ctx
	})
}

// applyAuthenticated gives the request the identity an AuthenticationFunc recorded, once.
func applyAuthenticated(c echo.Context) {
	derive, ok := c.Get(authContextKey).(func(context.Context) context.Context)
	if !ok {
		return
	}
	c.Set(authContextKey, nil)
	req := c.Request()
	ctx := derive(req.Context())
	if p, ok := c.Get(deferredLimitKey).(*deferredLimit); ok && p != nil {
		// The request's count rides with its first read (DeferRateLimit).
		ctx = ratelimit.WithDeferred(ctx, p.d)
	}
	c.SetRequest(req.WithContext(ctx))
}
