package reconhttp

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/ratelimit"
)

// Accounts is what the Reconciliation API needs of the account rules; *account.Service has it.
type Accounts interface {
	IssueToken(ctx context.Context, clientID, clientSecret string, env account.Environment, requested []account.Permission) (string, account.AccessToken, error)
	AuthenticateToken(ctx context.Context, token string, env account.Environment) (account.AccessToken, error)
}

// Security scheme names of openapi/reconciliation.yaml.
const (
	schemeClientCredentials = "ClientCredentials"
	schemeClientBasic       = "ClientBasic"
)

// Caller is the authenticated API client of a request: who it is, for which account, in which
// environment, and what its token allows.
type Caller struct {
	AccountID   uuid.UUID
	ClientID    string
	Env         account.Environment
	Permissions []account.Permission
}

type callerKey struct{}

// CallerFrom returns the authenticated caller of the request ctx belongs to.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Messages of the authentication answers. They are the same whatever made a token invalid, so
// an answer tells nothing about which tokens exist.
const (
	msgNoToken       = "Missing Authorization header; send Authorization: Bearer with an access token from POST /api/v1/token."
	msgNotBearer     = "The Authorization header is not a Bearer credential; send \"Authorization: Bearer \" (one space) followed by an access token from POST /api/v1/token."
	msgInvalidToken  = "Invalid access token."
	msgExpiredToken  = "The access token has expired; request a new one."
	msgInvalidClient = "Invalid client credentials."
)

// countUnrouted counts a request to a path or method the API does not have against the rate
// limit of its token's account, so its 404 or 405 carries the X-RateLimit headers like every
// answer to a valid token. Without a valid token the 404 or 405 stands alone.
func (s *Server) countUnrouted(ctx context.Context, req *http.Request) error {
	token, err := httpkit.BearerCredential(req.Header)
	if err != nil {
		return nil
	}
	rec, err := s.accounts.AuthenticateToken(httpkit.RequestContext(ctx), token, s.env)
	if err != nil {
		return nil
	}
	httpkit.SetAuthenticated(ctx, rec.AccountID.String(), nil)
	// Production and sandbox share the account's budget.
	return httpkit.ApplyRateLimit(ctx, s.limiter, rec.AccountID, ratelimit.Recon, httpkit.CodeLimitExceeded)
}

// authenticate checks the bearer token of every operation that requires ClientCredentials: it
// must exist, belong to this listener's environment, be unexpired and unrevoked, and carry every
// permission (scope) the operation lists. The caller goes into the request's context.
func (s *Server) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecuritySchemeName != schemeClientCredentials {
		// ClientBasic is an alternative on the token endpoint only, whose handler checks it.
		return nil
	}
	token, err := httpkit.BearerCredential(in.RequestValidationInput.Request.Header)
	switch {
	case errors.Is(err, httpkit.ErrNotBearer):
		return s.refuse(ctx, httpkit.Unauthenticated(msgNotBearer))
	case errors.Is(err, httpkit.ErrNoCredentials):
		return s.refuse(ctx, httpkit.Unauthenticated(msgNoToken))
	case err != nil:
		return s.refuse(ctx, httpkit.InvalidToken(httpkit.CodeAuthInvalid, msgInvalidToken))
	}
	rec, err := s.accounts.AuthenticateToken(httpkit.RequestContext(ctx), token, s.env)
	switch {
	case errors.Is(err, account.ErrTokenExpired):
		return s.refuse(ctx, httpkit.InvalidToken(httpkit.CodeTokenExpired, msgExpiredToken))
	case errors.Is(err, account.ErrInvalidCredentials):
		return s.refuse(ctx, httpkit.InvalidToken(httpkit.CodeAuthInvalid, msgInvalidToken))
	case err != nil:
		return httpkit.AuthFailure(err)
	}
	caller := Caller{AccountID: rec.AccountID, ClientID: rec.ClientID, Env: rec.Env, Permissions: rec.Permissions}
	httpkit.SetAuthenticated(ctx, rec.AccountID.String(), func(ctx context.Context) context.Context {
		return context.WithValue(ctx, callerKey{}, caller)
	})
	// Every request of a known caller counts, also one its permissions then refuse. Production
	// and sandbox share the account's budget. The reads clients poll count in the same statement
	// as their read.
	withRead := countedWithRead[in.RequestValidationInput.Route.Operation.OperationID]
	if err := httpkit.CountRequest(ctx, s.limiter, rec.AccountID, ratelimit.Recon, httpkit.CodeLimitExceeded, withRead); err != nil {
		return err
	}
	for _, need := range in.Scopes {
		if !account.HasPermission(rec.Permissions, account.Permission(need)) {
			return httpkit.InsufficientScope("This access token lacks the "+strings.Join(in.Scopes, " ")+" permission.", in.Scopes)
		}
	}
	return nil
}

// basicAuth is what the token endpoint's Authorization header held.
type basicAuth struct {
	// present: there was an Authorization header.
	present bool
	// err says why the header is not usable client authentication; empty when it is.
	err          string
	clientID     string
	clientSecret string
}

type basicAuthKey struct{}

// countedWithRead are the operations whose request is counted by the job store's read
// (httpkit.DeferRateLimit): reads without side effects that read the job first.
var countedWithRead = map[string]bool{"getJob": true, "getJobResults": true}

// sourceKey holds the token request's source address (httpkit.SourceAddress).
type sourceKey struct{}

// clientBasic is the strict middleware that hands the token endpoint what the strict handler
// cannot read itself: its HTTP Basic credentials and the address the request came from.
func clientBasic(f reconapi.StrictHandlerFunc, operationID string) reconapi.StrictHandlerFunc {
	if operationID != "CreateToken" {
		return f
	}
	return func(c echo.Context, request any) (any, error) {
		req := c.Request()
		b := parseClientBasic(req.Header.Get(echo.HeaderAuthorization))
		if len(req.Header.Values(echo.HeaderAuthorization)) > 1 {
			b = basicAuth{present: true, err: "Authorization: send one Authorization header, not several."}
		}
		ctx := context.WithValue(req.Context(), basicAuthKey{}, b)
		ctx = context.WithValue(ctx, sourceKey{}, httpkit.SourceAddress(req))
		c.SetRequest(req.WithContext(ctx))
		return f(c, request)
	}
}

// parseClientBasic reads client credentials from an HTTP Basic header: client_id and
// client_secret are form-urlencoded before they are joined with ":" and base64-encoded (RFC 6749
// section 2.3.1), so each is unescaped after decoding.
func parseClientBasic(header string) basicAuth {
	if header == "" {
		return basicAuth{}
	}
	const malformed = "Authorization: malformed HTTP Basic client credentials; send base64(client_id:client_secret)."
	scheme, rest, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return basicAuth{present: true, err: "Authorization: this endpoint accepts only HTTP Basic client credentials (or none, with the credentials in the body)."}
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return basicAuth{present: true, err: malformed}
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return basicAuth{present: true, err: malformed}
	}
	id, err1 := url.QueryUnescape(user)
	secret, err2 := url.QueryUnescape(pass)
	if err1 != nil || err2 != nil || id == "" || secret == "" {
		return basicAuth{present: true, err: malformed}
	}
	return basicAuth{present: true, clientID: id, clientSecret: secret}
}

// refuse answers a request refused for its credentials: it counts against its source address's
// budget for requests without valid credentials.
func (s *Server) refuse(ctx context.Context, refusal error) error {
	return httpkit.RefuseAnonymous(ctx, s.anonymous, ratelimit.Recon, httpkit.CodeLimitExceeded, refusal)
}
