package httpkit

import (
	"github.com/labstack/echo/v4"

	"github.com/statementmatch/service/internal/platform/apidocs"
)

// DocsContentSecurityPolicy is the policy of the HTML docs page: nothing loads but its own
// inline styles and its one search script (allowed by its hash, no other script runs), and no
// other site may frame it (frame-ancestors works only as a header, not in the page's meta tag).
var DocsContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src " + apidocs.ScriptSource +
	"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// SecurityHeaders sets the headers every answer carries, whoever writes it (a handler, the
// validator, the error handler): X-Content-Type-Options: nosniff, so a browser never reads a
// JSON answer holding bank data as a script or page; Cache-Control: no-store on everything but
// the published spec and docs page, which hold no account data; and the docs page's
// Content-Security-Policy.
func SecurityHeaders() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("X-Content-Type-Options", "nosniff")
			switch c.Request().URL.Path {
			case "/docs":
				h.Set("Content-Security-Policy", DocsContentSecurityPolicy)
				h.Set("X-Frame-Options", "DENY") // for browsers that predate frame-ancestors
			case "/api/v1/openapi.yaml":
			default:
				h.Set("Cache-Control", "no-store")
			}
			return next(c)
		}
	}
}
