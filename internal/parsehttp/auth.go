package parsehttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/uuid"

	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/ratelimit"
)

// Accounts is what the Parsing API needs of the account rules; *account.Service has it.
type Accounts interface {
	AuthenticateAPIKey(ctx context.Context, key string) (account.APIKey, error)
}

const (
	// schemeAPIKey is the security scheme of openapi/parsing.yaml.
	schemeAPIKey = "ApiKeyAuth"
	// extRequiredScopes is the vendor extension that names each operation's scopes.
	extRequiredScopes = "x-required-scopes"
)

// Caller is the authenticated API key of a request and its account.
type Caller struct {
	AccountID uuid.UUID
	KeyID     uuid.UUID
	Scopes    []account.Scope
}

type callerKey struct{}

// CallerFrom returns the authenticated caller of the request ctx belongs to.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

const (
	msgNoKey      = "Missing Authorization header; send Authorization: Bearer with your API key (smk_live_...)."
	msgNotBearer  = "The Authorization header is not a Bearer credential; send \"Authorization: Bearer \" (one space) followed by your API key (smk_live_...)."
	msgInvalidKey = "Invalid API key."
)

// requiredScopes reads x-required-scopes of every operation that needs an API key, by
// operation id. An operation behind ApiKeyAuth without the extension, or naming a scope that
// does not exist, is an error: the server must not start with an operation nobody decided the
// scope of.
func requiredScopes(spec *openapi3.T) (map[string][]account.Scope, error) {
	out := map[string][]account.Scope{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			security := op.Security
			if security == nil {
				security = &spec.Security
			}
			needsKey := false
			for _, req := range *security {
				if _, ok := req[schemeAPIKey]; ok {
					needsKey = true
				}
			}
			if !needsKey {
				continue
			}
			raw, ok := op.Extensions[extRequiredScopes]
			if !ok {
				return nil, fmt.Errorf("%s %s: needs an API key but has no %s", method, path, extRequiredScopes)
			}
			list, ok := raw.([]any)
			if !ok {
				return nil, fmt.Errorf("%s %s: %s must be a list of scopes", method, path, extRequiredScopes)
			}
			scopes := make([]account.Scope, 0, len(list))
			for _, v := range list {
				name, ok := v.(string)
				if !ok || !isScope(name) {
					return nil, fmt.Errorf("%s %s: %s names an unknown scope %v", method, path, extRequiredScopes, v)
				}
				scopes = append(scopes, account.Scope(name))
			}
			out[op.OperationID] = scopes
		}
	}
	return out, nil
}

func isScope(name string) bool { return slices.Contains(account.AllScopes, account.Scope(name)) }

// countUnrouted counts a request to a path or method the API does not have against the rate
// limit of its key's account, so its 404 or 405 carries the X-RateLimit headers like every
// answer to a valid key. Without a valid key the 404 or 405 stands alone: such a request is no
// authentication attempt to throttle.
func (s *Server) countUnrouted(ctx context.Context, req *http.Request) error {
	key, err := httpkit.BearerCredential(req.Header)
	if err != nil {
		return nil
	}
	rec, err := s.accounts.AuthenticateAPIKey(httpkit.RequestContext(ctx), key)
	if err != nil {
		return nil
	}
	httpkit.SetAuthenticated(ctx, rec.AccountID.String(), nil)
	return httpkit.ApplyRateLimit(ctx, s.limiter, rec.AccountID, ratelimit.Parse, httpkit.CodeRateLimited)
}

// authenticate checks the API key of every operation behind ApiKeyAuth: it must exist and be
// unrevoked, and hold every scope of the operation's x-required-scopes (GET /status lists none:
// any valid key). The caller goes into the request's context.
func (s *Server) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecuritySchemeName != schemeAPIKey {
		return httpkit.AuthFailure(fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName))
	}
	op := in.RequestValidationInput.Route.Operation
	need, ok := s.scopes[op.OperationID]
	if !ok {
		// requiredScopes covered every operation behind ApiKeyAuth when the server started.
		return httpkit.AuthFailure(fmt.Errorf("operation %q has no required scopes", op.OperationID))
	}
	key, err := httpkit.BearerCredential(in.RequestValidationInput.Request.Header)
	switch {
	case errors.Is(err, httpkit.ErrNotBearer):
		return s.refuse(ctx, httpkit.Unauthenticated(msgNotBearer))
	case errors.Is(err, httpkit.ErrNoCredentials):
		return s.refuse(ctx, httpkit.Unauthenticated(msgNoKey))
	case err != nil:
		return s.refuse(ctx, httpkit.InvalidToken(httpkit.CodeAuthInvalid, msgInvalidKey))
	}
	rec, err := s.accounts.AuthenticateAPIKey(httpkit.RequestContext(ctx), key)
	switch {
	case errors.Is(err, account.ErrInvalidCredentials):
		return s.refuse(ctx, httpkit.InvalidToken(httpkit.CodeAuthInvalid, msgInvalidKey))
	case err != nil:
		return httpkit.AuthFailure(err)
	}
	caller := Caller{AccountID: rec.AccountID, KeyID: rec.ID, Scopes: rec.Scopes}
	httpkit.SetAuthenticated(ctx, rec.AccountID.String(), func(ctx context.Context) context.Context {
		return context.WithValue(ctx, callerKey{}, caller)
	})
	// Every request of a known caller counts, also one its key's scopes then refuse. The reads
	// clients poll count in the same statement as their read.
	withRead := countedWithRead[op.OperationID]
	if err := httpkit.CountRequest(ctx, s.limiter, rec.AccountID, ratelimit.Parse, httpkit.CodeRateLimited, withRead); err != nil {
		return err
	}
	var missing []string
	for _, sc := range need {
		if !account.HasScope(rec.Scopes, sc) {
			missing = append(missing, string(sc))
		}
	}
	if len(missing) > 0 {
		names := make([]string, len(need))
		for i, sc := range need {
			names[i] = string(sc)
		}
		return httpkit.InsufficientScope(fmt.Sprintf("This API key lacks the scope %q.", strings.Join(missing, " ")), names)
	}
	return nil
}

// countedWithRead are the operations whose request is counted by the job store's read
// (httpkit.DeferRateLimit): reads without side effects that read the job first.
var countedWithRead = map[string]bool{"getJob": true, "getJobResults": true}

// refuse answers a request refused for its credentials: it counts against its source address's
// budget for requests without valid credentials.
func (s *Server) refuse(ctx context.Context, refusal error) error {
	return httpkit.RefuseAnonymous(ctx, s.anonymous, ratelimit.Parse, httpkit.CodeRateLimited, refusal)
}
