package reconhttp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
)

// FailedAuthBudget is the number of failed client authentications allowed per client and
// calendar minute (the spec's token endpoint description); the token answers' X-RateLimit-*
// headers report what is left of it.
const FailedAuthBudget = 10

// tokenRequest is a token request in either of its two forms, after the validator checked it
// against the spec.
type tokenRequest struct {
	clientID, clientSecret string
	env                    *reconapi.Environment
	scope                  *string
	// inBody: credentials came in the body (either of them).
	inBody bool
}

// CreateToken exchanges client credentials for an access token bound to this listener's
// environment (OAuth 2.0 client credentials grant, RFC 6749 section 4.4).
func (s *Server) CreateToken(ctx context.Context, request reconapi.CreateTokenRequestObject) (reconapi.CreateTokenResponseObject, error) {
	var tr tokenRequest
	switch {
	case request.JSONBody != nil:
		b := request.JSONBody
		tr = tokenRequest{clientID: b.ClientId, clientSecret: b.ClientSecret, env: b.Env, inBody: true}
	case request.FormdataBody != nil:
		b := request.FormdataBody
		tr = tokenRequest{env: b.Env, scope: b.Scope, inBody: b.ClientId != nil || b.ClientSecret != nil}
		if b.ClientId != nil {
			tr.clientID = *b.ClientId
		}
		if b.ClientSecret != nil {
			tr.clientSecret = *b.ClientSecret
		}
	default:
		// The validator lets through only the two declared content types.
		return tokenBadRequest("The body must be JSON or an OAuth 2.0 form (application/x-www-form-urlencoded)."), nil
	}

	basic, _ := ctx.Value(basicAuthKey{}).(basicAuth)
	switch {
	case basic.err != "":
		return tokenBadRequest(basic.err), nil
	case basic.present && tr.inBody:
		return tokenBadRequest("Client credentials were sent both in the body and with HTTP Basic; send them one way only."), nil
	case basic.present:
		tr.clientID, tr.clientSecret = basic.clientID, basic.clientSecret
	case tr.clientID == "" || tr.clientSecret == "":
		return tokenBadRequest("client_id and client_secret are required, in the body or with HTTP Basic."), nil
	}

	if tr.env != nil && account.Environment(*tr.env) != s.env {
		return tokenBadRequest(fmt.Sprintf("env: this is the %s environment; request %s tokens from the %s base URL.",
			s.env, *tr.env, *tr.env)), nil
	}
	var requested []account.Permission
	if tr.scope != nil {
		names := strings.Fields(*tr.scope)
		if len(names) == 0 {
			return tokenBadRequest("scope: names no permission; leave it out to get all the client's permissions."), nil
		}
		for _, n := range names {
			if !slices.Contains(account.AllPermissions, account.Permission(n)) {
				return tokenBadRequest(fmt.Sprintf("scope: unknown permission %q; the permissions are jobs:read, jobs:write and limits:read.", n)), nil
			}
		}
		perms, err := account.ParsePermissions(names)
		if err != nil {
			return nil, fmt.Errorf("parse scope: %w", err)
		}
		requested = perms
	}

	// Failed attempts are counted per client id, the same for unknown ids and wrong secrets, so
	// the throttle tells nothing about which clients exist.
	throttleKey := "client:" + tr.clientID
	budget, err := s.throttle.Check(ctx, throttleKey)
	if err != nil {
		return nil, httpkit.Unavailable(err)
	}
	if !budget.Allowed {
		retry := budget.RetryAfter(s.now())
		return reconapi.CreateToken429JSONResponse{TokenTooManyRequestsJSONResponse: reconapi.TokenTooManyRequestsJSONResponse{
			Body: errorBody(httpkit.CodeLimitExceeded, fmt.Sprintf("Too many failed authentications for this client; retry in %d seconds.", retry)),
			Headers: reconapi.TokenTooManyRequestsResponseHeaders{RetryAfter: retry, XRateLimitLimit: budget.Limit,
				XRateLimitRemaining: budget.Remaining, XRateLimitReset: int(budget.Reset.Unix())},
		}}, nil
	}

	token, rec, err := s.accounts.IssueToken(ctx, tr.clientID, tr.clientSecret, s.env, requested)
	switch {
	case errors.Is(err, account.ErrInvalidCredentials):
		after, err := s.throttle.Fail(ctx, throttleKey)
		if err != nil {
			return nil, httpkit.Unavailable(err)
		}
		limit, remaining, reset := after.Limit, after.Remaining, int(after.Reset.Unix())
		return reconapi.CreateToken401JSONResponse{TokenUnauthorizedJSONResponse: reconapi.TokenUnauthorizedJSONResponse{
			Body: errorBody(httpkit.CodeAuthInvalid, msgInvalidClient),
			Headers: reconapi.TokenUnauthorizedResponseHeaders{WWWAuthenticate: httpkit.Challenge{Scheme: "Basic", Realm: httpkit.Realm}.String(),
				XRateLimitLimit: &limit, XRateLimitRemaining: &remaining, XRateLimitReset: &reset},
		}}, nil
	case errors.Is(err, account.ErrPermission):
		return tokenBadRequest("scope: the client does not hold every permission asked for; leave scope out to get all it holds."), nil
	case err != nil:
		return nil, fmt.Errorf("issue token: %w", err)
	}

	pragma := "no-cache"
	return reconapi.CreateToken200JSONResponse{
		Body: reconapi.AccessToken{
			AccessToken: token,
			TokenType:   reconapi.TokenTypeBearer,
			ExpiresIn:   expiresIn(rec),
			Scope:       joinPermissions(rec.Permissions),
		},
		Headers: reconapi.CreateToken200ResponseHeaders{
			CacheControl: "no-store", Pragma: &pragma,
			XRateLimitLimit: budget.Limit, XRateLimitRemaining: budget.Remaining, XRateLimitReset: int(budget.Reset.Unix()),
		},
	}, nil
}

// expiresIn is the token's lifetime in whole seconds, at least 1.
func expiresIn(rec account.AccessToken) int {
	secs := int(math.Round(rec.ExpiresAt.Sub(rec.IssuedAt).Seconds()))
	return max(secs, 1)
}

func joinPermissions(perms []account.Permission) string {
	names := make([]string, len(perms))
	for i, p := range perms {
		names[i] = string(p)
	}
	return strings.Join(names, " ")
}

func tokenBadRequest(message string) reconapi.CreateToken400JSONResponse {
	return reconapi.CreateToken400JSONResponse{TokenBadRequestJSONResponse: reconapi.TokenBadRequestJSONResponse{
		Body: errorBody(httpkit.CodeInvalidRequest, message),
	}}
}
