package reconhttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/httpkit"
	"github.com/statementmatch/service/internal/ratelimit"
)

// Failed client authentications allowed per calendar minute (the spec's token endpoint
// description): per client id and source address (httpkit.SourceAddress); per source address,
// whatever client ids it names, so that spraying guesses over many clients is slowed down as
// much as guessing one client's secret; and per client id from all addresses, a backstop high
// enough that only a flood from many addresses reaches it, so that nobody who knows a client id
// can lock its owner out from where the owner is. The token answers' X-RateLimit-* headers
// report the budget with least left.
const (
	FailedAuthBudget         = 10
	FailedAuthAddressBudget  = 100
	FailedAuthClientBackstop = 1000
)

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

	// The attempt is counted before the credentials are checked and given back unless they
	// turn out wrong: however many requests run at once, no more than the budgets' failures get
	// through in a minute.
	att, refused, err := s.countAttempt(ctx, tr.clientID)
	if err != nil {
		return nil, httpkit.Unavailable(err)
	}
	if refused != nil {
		return refused, nil
	}

	token, rec, err := s.accounts.IssueToken(ctx, tr.clientID, tr.clientSecret, s.env, requested)
	if errors.Is(err, account.ErrInvalidCredentials) {
		budget := att.left()
		limit, remaining, reset := budget.Limit, budget.Remaining, int(budget.Reset.Unix())
		return reconapi.CreateToken401JSONResponse{TokenUnauthorizedJSONResponse: reconapi.TokenUnauthorizedJSONResponse{
			Body: errorBody(httpkit.CodeAuthInvalid, msgInvalidClient),
			Headers: reconapi.TokenUnauthorizedResponseHeaders{WWWAuthenticate: httpkit.Challenge{Scheme: "Basic", Realm: httpkit.Realm}.String(),
				XRateLimitLimit: &limit, XRateLimitRemaining: &remaining, XRateLimitReset: &reset},
		}}, nil
	}
	// Not a failed authentication, whatever else it is.
	budget := s.refund(ctx, att)
	switch {
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

// attempt is a token request counted against the failed-authentication budgets of its client
// at its source address, of its source address, and of its client everywhere.
type attempt struct {
	clientKey, addressKey, backstopKey string
	client, address, backstop          ratelimit.Decision
	// byAddress and byBackstop: the address, and the client everywhere, were counted (there
	// are such throttles).
	byAddress, byBackstop bool
}

// left is the budget an answer reports: the one with least left, the client's at this address
// on a tie.
func (a attempt) left() ratelimit.Decision {
	d := a.client
	if a.byAddress && a.address.Remaining < d.Remaining {
		d = a.address
	}
	if a.byBackstop && a.backstop.Remaining < d.Remaining {
		d = a.backstop
	}
	return d
}

// clientThrottleKey is the key of a client id's budget. The id is hashed: it is what the
// request said, which may be a secret pasted into the wrong field, or longer than a key may be.
func clientThrottleKey(clientID string) string {
	sum := sha256.Sum256([]byte(clientID))
	return "client:" + hex.EncodeToString(sum[:])
}

// countAttempt counts a token request against its address's budget, then its client's at that
// address, then its client's everywhere. While any is spent the request is refused (429) before
// any credential is checked, even correct ones: were those let through, a guesser would learn
// which guess was right and the budget would not slow guessing at all.
func (s *Server) countAttempt(ctx context.Context, clientID string) (attempt, reconapi.CreateTokenResponseObject, error) {
	source, _ := ctx.Value(sourceKey{}).(string)
	client := clientThrottleKey(clientID)
	a := attempt{clientKey: client + "@" + source, backstopKey: client}
	if s.addresses != nil {
		a.addressKey, a.byAddress = "token-addr:"+source, true
		d, err := s.addresses.Count(ctx, a.addressKey)
		if err != nil {
			return a, nil, err
		}
		a.address = d
		if !d.Allowed {
			// Not given back: the address stays refused until the minute ends whatever its
			// count, and so a flood of refused requests costs one query each.
			return a, s.tooManyFailures(d, "from this address"), nil
		}
	}
	d, err := s.throttle.Count(ctx, a.clientKey)
	if err != nil {
		s.refundAddress(ctx, &a)
		return a, nil, err
	}
	a.client = d
	if !d.Allowed {
		// The address gets its count back: no credential was checked, and a client retrying
		// with its budget spent must not use up the budget of others at its address.
		s.refundAddress(ctx, &a)
		return a, s.tooManyFailures(d, "for this client from this address"), nil
	}
	if s.backstop != nil {
		// The client's count at this address and the address's are given back when the
		// backstop fails or refuses (refund, before byBackstop is set): no credential was
		// checked. The backstop's own count stays, as the address's does above.
		d, err := s.backstop.Count(ctx, a.backstopKey)
		if err != nil {
			s.refund(ctx, a)
			return a, nil, err
		}
		if !d.Allowed {
			s.refund(ctx, a)
			// Only a flood from many addresses gets here; the log line holds the id's hash.
			s.logger.WarnContext(ctx, "failed authentications of one client from many addresses passed the backstop; its token requests are refused until the minute ends",
				"client", a.backstopKey, "budget", d.Limit, "request_id", httpkit.RequestID(ctx))
			a.backstop, a.byBackstop = d, true
			return a, s.tooManyFailures(d, "for this client"), nil
		}
		a.backstop, a.byBackstop = d, true
	}
	return a, nil, nil
}

// refund gives back an attempt that was not a failed authentication and returns the budget an
// answer reports. A refund that fails leaves the attempt counted as a failure: the safe side.
func (s *Server) refund(ctx context.Context, a attempt) ratelimit.Decision {
	ctx = context.WithoutCancel(ctx) // the client hanging up must not cost it the refund
	if d, err := s.throttle.Refund(ctx, a.clientKey, a.client); err == nil {
		a.client = d
	}
	s.refundAddress(ctx, &a)
	if a.byBackstop {
		if d, err := s.backstop.Refund(ctx, a.backstopKey, a.backstop); err == nil {
			a.backstop = d
		}
	}
	return a.left()
}

func (s *Server) refundAddress(ctx context.Context, a *attempt) {
	if !a.byAddress {
		return
	}
	if d, err := s.addresses.Refund(context.WithoutCancel(ctx), a.addressKey, a.address); err == nil {
		a.address = d
	}
}

// tooManyFailures is the 429 of a spent failed-authentication budget.
func (s *Server) tooManyFailures(d ratelimit.Decision, whose string) reconapi.CreateToken429JSONResponse {
	retry := d.RetryAfter(s.now())
	return reconapi.CreateToken429JSONResponse{TokenTooManyRequestsJSONResponse: reconapi.TokenTooManyRequestsJSONResponse{
		Body: errorBody(httpkit.CodeLimitExceeded, fmt.Sprintf("Too many failed authentications %s; retry in %d seconds.", whose, retry)),
		Headers: reconapi.TokenTooManyRequestsResponseHeaders{RetryAfter: retry, XRateLimitLimit: d.Limit,
			XRateLimitRemaining: d.Remaining, XRateLimitReset: int(d.Reset.Unix())},
	}}
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
