package reconhttp

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/statementmatch/service/gen/reconapi"
	"github.com/statementmatch/service/internal/account"
	"github.com/statementmatch/service/internal/ratelimit"
	"github.com/statementmatch/service/internal/ratelimit/ratelimittest"
)

func TestParseClientBasic(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name       string
		header     string
		wantID     string
		wantSecret string
		wantErr    bool
	}{
		{name: "no header is no Basic credentials", header: ""},
		{name: "id and secret are read", header: "Basic " + b64("cli_a:cs_b"), wantID: "cli_a", wantSecret: "cs_b"},
		{name: "the scheme is case-insensitive", header: "basic " + b64("cli_a:cs_b"), wantID: "cli_a", wantSecret: "cs_b"},
		{name: "each part is form-unescaped (RFC 6749 2.3.1)", header: "Basic " + b64("cli%3Aa:c+s%25"), wantID: "cli:a", wantSecret: "c s%"},
		{name: "a colon in the secret stays in the secret", header: "Basic " + b64("cli_a:cs:b"), wantID: "cli_a", wantSecret: "cs:b"},
		{name: "no colon is malformed", header: "Basic " + b64("cli_a"), wantErr: true},
		{name: "an empty secret is malformed", header: "Basic " + b64("cli_a:"), wantErr: true},
		{name: "bad base64 is malformed", header: "Basic !!!", wantErr: true},
		{name: "a bad escape is malformed", header: "Basic " + b64("cli_a:%zz"), wantErr: true},
		{name: "a Bearer header is refused here", header: "Bearer sat_x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := parseClientBasic(tt.header)
			require.Equal(t, tt.header != "", got.present)
			require.Equal(t, tt.wantErr, got.err != "", got.err)
			require.Equal(t, tt.wantID, got.clientID)
			require.Equal(t, tt.wantSecret, got.clientSecret)
		})
	}
}

// fakeAccounts issues tokens for one client, cli_ok with secret cs_ok, holding jobs:read only.
type fakeAccounts struct{ now time.Time }

func (f fakeAccounts) IssueToken(_ context.Context, id, secret string, env account.Environment, requested []account.Permission) (string, account.AccessToken, error) {
	if id != "cli_ok" || secret != "cs_ok" {
		return "", account.AccessToken{}, account.ErrInvalidCredentials
	}
	for _, p := range requested {
		if p != account.JobsRead {
			return "", account.AccessToken{}, account.ErrPermission
		}
	}
	return "sat_token", account.AccessToken{ClientID: id, AccountID: uuid.New(), Env: env, Permissions: []account.Permission{account.JobsRead},
		IssuedAt: f.now, ExpiresAt: f.now.Add(90 * time.Second)}, nil
}

func (f fakeAccounts) AuthenticateToken(context.Context, string, account.Environment) (account.AccessToken, error) {
	return account.AccessToken{}, account.ErrInvalidCredentials
}

// TestCreateTokenThrottlesFailedAttempts: after ten failed attempts for a client within a minute,
// even the right secret is refused with 429 until the minute ends; the headers count down.
func TestCreateTokenThrottlesFailedAttempts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	clock := func() time.Time { return now }
	s := &Server{env: account.Production, accounts: fakeAccounts{now: now}, now: clock,
		throttle: &ratelimit.Throttle{Store: &ratelimittest.Failures{}, Now: clock, Budget: FailedAuthBudget}}
	try := func(secret string) reconapi.CreateTokenResponseObject {
		resp, err := s.CreateToken(context.Background(), reconapi.CreateTokenRequestObject{
			JSONBody: &reconapi.CreateTokenJSONRequestBody{ClientId: "cli_ok", ClientSecret: secret}})
		require.NoError(t, err)
		return resp
	}
	for i := 1; i <= FailedAuthBudget; i++ {
		resp, ok := try("cs_wrong").(reconapi.CreateToken401JSONResponse)
		require.True(t, ok, "attempt %d is a 401", i)
		require.Equal(t, FailedAuthBudget-i, *resp.Headers.XRateLimitRemaining)
	}
	limited, ok := try("cs_ok").(reconapi.CreateToken429JSONResponse)
	require.True(t, ok, "the right secret is refused while the client is throttled")
	require.Equal(t, reconapi.ErrorCodeLimitExceeded, limited.Body.Error)
	require.Equal(t, 48, limited.Headers.RetryAfter, "until the minute ends")

	now = now.Add(48 * time.Second)
	_, ok = try("cs_ok").(reconapi.CreateToken200JSONResponse)
	require.True(t, ok, "a new minute gives a new budget")
}

// TestCreateTokenIsNotLockedOutFromAnotherAddress: ten wrong secrets for a client from one
// address refuse that client there, even with the right secret, but not its owner elsewhere;
// only failures from many addresses together reach the backstop, which refuses the client
// everywhere and says so in the log.
func TestCreateTokenIsNotLockedOutFromAnotherAddress(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	clock := func() time.Time { return now }
	store := &ratelimittest.Failures{}
	var log strings.Builder
	const backstop = 25
	var clientAddressRefusals, backstopRefusals int
	s := &Server{env: account.Production, accounts: fakeAccounts{now: now}, now: clock,
		logger:    slog.New(slog.NewJSONHandler(&log, nil)),
		throttle:  &ratelimit.Throttle{Store: store, Now: clock, Budget: FailedAuthBudget, Refused: func() { clientAddressRefusals++ }},
		addresses: &ratelimit.Throttle{Store: store, Now: clock, Budget: FailedAuthAddressBudget},
		backstop:  &ratelimit.Throttle{Store: store, Now: clock, Budget: backstop, Refused: func() { backstopRefusals++ }}}
	try := func(source, secret string) reconapi.CreateTokenResponseObject {
		ctx := context.WithValue(context.Background(), sourceKey{}, source)
		resp, err := s.CreateToken(ctx, reconapi.CreateTokenRequestObject{
			JSONBody: &reconapi.CreateTokenJSONRequestBody{ClientId: "cli_ok", ClientSecret: secret}})
		require.NoError(t, err)
		return resp
	}
	const attacker, owner = "192.0.2.66", "198.51.100.7"
	for i := 1; i <= FailedAuthBudget; i++ {
		_, is401 := try(attacker, "cs_wrong").(reconapi.CreateToken401JSONResponse)
		require.True(t, is401, "attempt %d", i)
	}
	limited, is429 := try(attacker, "cs_ok").(reconapi.CreateToken429JSONResponse)
	require.True(t, is429, "the attacker's address is refused for this client, even with the right secret")
	require.Equal(t, "Too many failed authentications for this client from this address; retry in 48 seconds.", limited.Body.Detail.Message)
	_, isOK := try(owner, "cs_ok").(reconapi.CreateToken200JSONResponse)
	require.True(t, isOK, "the owner, elsewhere, is not locked out")

	// Failures from many addresses, a few each: the backstop.
	for i := range backstop - FailedAuthBudget {
		_, is401 := try(fmt.Sprintf("203.0.113.%d", i+1), "cs_wrong").(reconapi.CreateToken401JSONResponse)
		require.True(t, is401, "address %d", i+1)
	}
	require.NotContains(t, log.String(), "backstop")
	limited, is429 = try(owner, "cs_ok").(reconapi.CreateToken429JSONResponse)
	require.True(t, is429, "past the backstop the client is refused everywhere")
	require.Equal(t, "Too many failed authentications for this client; retry in 48 seconds.", limited.Body.Detail.Message)
	require.Equal(t, backstop, limited.Headers.XRateLimitLimit)
	require.Contains(t, log.String(), "passed the backstop")
	require.NotContains(t, log.String(), "cli_ok", "the log holds the client id's hash only")
	require.Equal(t, 1, clientAddressRefusals, "each refusal is counted, by the throttle that refused")
	require.Equal(t, 1, backstopRefusals, "the backstop's refusals are counted (metrics)")

	now = now.Add(48 * time.Second)
	_, isOK = try(owner, "cs_ok").(reconapi.CreateToken200JSONResponse)
	require.True(t, isOK, "a new minute gives a new budget")
}

func TestCreateToken(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	s := &Server{env: account.Production, accounts: fakeAccounts{now: now}, now: func() time.Time { return now },
		throttle: &ratelimit.Throttle{Store: &ratelimittest.Failures{}, Now: func() time.Time { return now }, Budget: FailedAuthBudget}}
	str := func(s string) *string { return &s }
	sandbox, production := reconapi.EnvironmentSandbox, reconapi.EnvironmentProduction
	basicOK := basicAuth{present: true, clientID: "cli_ok", clientSecret: "cs_ok"}
	tests := []struct {
		name       string
		req        reconapi.CreateTokenRequestObject
		basic      basicAuth
		wantStatus int
		wantText   string
	}{
		{name: "JSON credentials get a token", req: reconapi.CreateTokenRequestObject{JSONBody: &reconapi.TokenRequest{ClientId: "cli_ok", ClientSecret: "cs_ok", Env: &production}},
			wantStatus: 200},
		{name: "Basic credentials with a form get a token", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{Scope: str("jobs:read")}},
			basic: basicOK, wantStatus: 200},
		{name: "the other environment is 400", req: reconapi.CreateTokenRequestObject{JSONBody: &reconapi.TokenRequest{ClientId: "cli_ok", ClientSecret: "cs_ok", Env: &sandbox}},
			wantStatus: 400, wantText: "env: this is the production environment; request sandbox tokens from the sandbox base URL"},
		{name: "credentials both ways are 400", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{ClientId: str("cli_ok")}},
			basic: basicOK, wantStatus: 400, wantText: "both"},
		{name: "half the credentials in a form are 400", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{ClientId: str("cli_ok")}},
			wantStatus: 400, wantText: "client_id and client_secret are required"},
		{name: "a malformed Basic header is 400", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{}},
			basic: basicAuth{present: true, err: "Authorization: malformed"}, wantStatus: 400, wantText: "malformed"},
		{name: "a blank scope is 400", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{Scope: str("  ")}},
			basic: basicOK, wantStatus: 400, wantText: "scope"},
		{name: "an unknown scope is 400 naming it", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{Scope: str("jobs:read root")}},
			basic: basicOK, wantStatus: 400, wantText: `"root"`},
		{name: "an unheld scope is 400", req: reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{Scope: str("jobs:write")}},
			basic: basicOK, wantStatus: 400, wantText: "does not hold"},
		{name: "a wrong secret is 401", req: reconapi.CreateTokenRequestObject{JSONBody: &reconapi.TokenRequest{ClientId: "cli_ok", ClientSecret: "nope"}},
			wantStatus: 401, wantText: msgInvalidClient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.WithValue(context.Background(), basicAuthKey{}, tt.basic)
			resp, err := s.CreateToken(ctx, tt.req)
			require.NoError(t, err)
			switch r := resp.(type) {
			case reconapi.CreateToken200JSONResponse:
				require.Equal(t, tt.wantStatus, 200)
				require.Equal(t, reconapi.AccessToken{AccessToken: "sat_token", TokenType: reconapi.TokenTypeBearer, ExpiresIn: 90, Scope: "jobs:read"}, r.Body)
				require.Equal(t, "no-store", r.Headers.CacheControl)
				require.Equal(t, "no-cache", *r.Headers.Pragma)
				require.Equal(t, 10, r.Headers.XRateLimitLimit)
				require.Equal(t, int(now.Truncate(time.Minute).Add(time.Minute).Unix()), r.Headers.XRateLimitReset)
			case reconapi.CreateToken400JSONResponse:
				require.Equal(t, tt.wantStatus, 400)
				require.Equal(t, reconapi.ErrorCodeInvalidRequest, r.Body.Error)
				require.Contains(t, r.Body.Detail.Message, tt.wantText)
			case reconapi.CreateToken401JSONResponse:
				require.Equal(t, tt.wantStatus, 401)
				require.Equal(t, reconapi.ErrorCodeAuthInvalid, r.Body.Error)
				require.Equal(t, tt.wantText, r.Body.Detail.Message)
				require.Equal(t, `Basic realm="statementd"`, r.Headers.WWWAuthenticate)
			default:
				t.Fatalf("unexpected answer %T", resp)
			}
		})
	}
}

// TestClientBasicMiddleware checks that the strict middleware hands the header's credentials to
// the token handler, and only to it.
func TestClientBasicMiddleware(t *testing.T) {
	t.Parallel()
	var seen basicAuth
	next := func(c echo.Context, _ any) (any, error) {
		seen, _ = c.Request().Context().Value(basicAuthKey{}).(basicAuth)
		return nil, nil
	}
	req := httptest.NewRequest("POST", "/api/v1/token", nil)
	req.SetBasicAuth("cli_a", "cs_b")
	c := echo.New().NewContext(req, httptest.NewRecorder())
	_, _ = clientBasic(next, "CreateToken")(c, nil)
	require.Equal(t, basicAuth{present: true, clientID: "cli_a", clientSecret: "cs_b"}, seen)

	seen = basicAuth{}
	_, _ = clientBasic(next, "GetLimits")(echo.New().NewContext(req, httptest.NewRecorder()), nil)
	require.Equal(t, basicAuth{}, seen, "other operations get nothing")

	twice := httptest.NewRequest("POST", "/api/v1/token", nil)
	twice.SetBasicAuth("cli_a", "cs_b")
	twice.Header.Add("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("cli_c:cs_d")))
	_, _ = clientBasic(next, "CreateToken")(echo.New().NewContext(twice, httptest.NewRecorder()), nil)
	require.True(t, seen.present)
	require.Contains(t, seen.err, "one Authorization header", "two headers are refused, not one of them picked")
	require.Empty(t, seen.clientID)
}

// TestClientBasicMiddlewareHandsOverTheSourceAddress: the token handler's per-address budget is
// keyed on the connection's peer, never on a header the client wrote.
func TestClientBasicMiddlewareHandsOverTheSourceAddress(t *testing.T) {
	t.Parallel()
	var source string
	next := func(c echo.Context, _ any) (any, error) {
		source, _ = c.Request().Context().Value(sourceKey{}).(string)
		return nil, nil
	}
	req := httptest.NewRequest("POST", "/api/v1/token", nil)
	req.RemoteAddr = "192.0.2.10:40000"
	req.Header.Set("X-Forwarded-For", "203.0.113.1")
	_, _ = clientBasic(next, "CreateToken")(echo.New().NewContext(req, httptest.NewRecorder()), nil)
	require.Equal(t, "192.0.2.10", source)
}

// TestCreateTokenThrottlesFailuresPerAddress: 100 failed attempts from one address, each for
// another client id, spend the address's budget: the next attempt from that address is 429 even
// for the right credentials, while another address is not affected. The answers report the budget
// with less left.
func TestCreateTokenThrottlesFailuresPerAddress(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	clock := func() time.Time { return now }
	store := &ratelimittest.Failures{}
	s := &Server{env: account.Production, accounts: fakeAccounts{now: now}, now: clock,
		throttle:  &ratelimit.Throttle{Store: store, Now: clock, Budget: FailedAuthBudget},
		addresses: &ratelimit.Throttle{Store: store, Now: clock, Budget: FailedAuthAddressBudget}}
	try := func(source, id, secret string) reconapi.CreateTokenResponseObject {
		ctx := context.WithValue(context.Background(), sourceKey{}, source)
		resp, err := s.CreateToken(ctx, reconapi.CreateTokenRequestObject{
			JSONBody: &reconapi.CreateTokenJSONRequestBody{ClientId: id, ClientSecret: secret}})
		require.NoError(t, err)
		return resp
	}
	const attacker, neighbour = "192.0.2.66", "198.51.100.7"

	ok, isOK := try(attacker, "cli_ok", "cs_ok").(reconapi.CreateToken200JSONResponse)
	require.True(t, isOK)
	require.Equal(t, FailedAuthBudget, ok.Headers.XRateLimitLimit, "the client's budget has less left")
	require.Equal(t, FailedAuthBudget, ok.Headers.XRateLimitRemaining, "a success uses none of either budget")

	for i := 1; i <= FailedAuthAddressBudget; i++ {
		resp, is401 := try(attacker, fmt.Sprintf("cli_guess%03d", i), "cs_guess").(reconapi.CreateToken401JSONResponse)
		require.True(t, is401, "attempt %d is a 401", i)
		if left := FailedAuthAddressBudget - i; left < FailedAuthBudget-1 {
			require.Equal(t, FailedAuthAddressBudget, *resp.Headers.XRateLimitLimit, "attempt %d: the address's budget has less left", i)
			require.Equal(t, left, *resp.Headers.XRateLimitRemaining, "attempt %d", i)
		} else {
			require.Equal(t, FailedAuthBudget, *resp.Headers.XRateLimitLimit, "attempt %d: each client's budget has less left", i)
			require.Equal(t, FailedAuthBudget-1, *resp.Headers.XRateLimitRemaining, "attempt %d", i)
		}
	}
	for _, secret := range []string{"cs_guess", "cs_ok"} {
		limited, is429 := try(attacker, "cli_ok", secret).(reconapi.CreateToken429JSONResponse)
		require.True(t, is429, "with %s: the address's budget is spent, whatever the credentials", secret)
		require.Equal(t, reconapi.ErrorCodeLimitExceeded, limited.Body.Error)
		require.Equal(t, "Too many failed authentications from this address; retry in 48 seconds.", limited.Body.Detail.Message)
		require.Equal(t, 48, limited.Headers.RetryAfter)
		require.Equal(t, FailedAuthAddressBudget, limited.Headers.XRateLimitLimit)
		require.Zero(t, limited.Headers.XRateLimitRemaining)
		require.Equal(t, int(now.Truncate(time.Minute).Add(time.Minute).Unix()), limited.Headers.XRateLimitReset)
	}
	_, isOK = try(neighbour, "cli_ok", "cs_ok").(reconapi.CreateToken200JSONResponse)
	require.True(t, isOK, "another address has its own budget")

	for _, k := range store.Keys() {
		require.NotContains(t, k, "cli_", "client ids are counted by their hash: %s", k)
	}

	now = now.Add(48 * time.Second)
	_, isOK = try(attacker, "cli_ok", "cs_ok").(reconapi.CreateToken200JSONResponse)
	require.True(t, isOK, "a new minute gives a new budget")
}

// TestCreateTokenCountsOnlyFailures: successes and refusals for scope give their attempt back,
// and a client refused for its own spent budget uses none of its address's.
func TestCreateTokenCountsOnlyFailures(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 5, 14, 7, 12, 0, time.UTC)
	clock := func() time.Time { return now }
	store := &ratelimittest.Failures{}
	s := &Server{env: account.Production, accounts: fakeAccounts{now: now}, now: clock,
		throttle:  &ratelimit.Throttle{Store: store, Now: clock, Budget: FailedAuthBudget},
		addresses: &ratelimit.Throttle{Store: store, Now: clock, Budget: FailedAuthAddressBudget}}
	ctx := context.WithValue(context.Background(), sourceKey{}, "192.0.2.1")
	for range 3 * FailedAuthAddressBudget {
		resp, err := s.CreateToken(ctx, reconapi.CreateTokenRequestObject{JSONBody: &reconapi.CreateTokenJSONRequestBody{ClientId: "cli_ok", ClientSecret: "cs_ok"}})
		require.NoError(t, err)
		require.IsType(t, reconapi.CreateToken200JSONResponse{}, resp)
		str := "jobs:write"
		resp, err = s.CreateToken(context.WithValue(ctx, basicAuthKey{}, basicAuth{present: true, clientID: "cli_ok", clientSecret: "cs_ok"}),
			reconapi.CreateTokenRequestObject{FormdataBody: &reconapi.TokenFormRequest{Scope: &str}})
		require.NoError(t, err)
		require.IsType(t, reconapi.CreateToken400JSONResponse{}, resp, "an unheld scope, once authenticated")
	}
	for i := range 3 * FailedAuthAddressBudget {
		resp, err := s.CreateToken(ctx, reconapi.CreateTokenRequestObject{JSONBody: &reconapi.CreateTokenJSONRequestBody{ClientId: "cli_stuck", ClientSecret: "cs_wrong"}})
		require.NoError(t, err)
		if i < FailedAuthBudget {
			require.IsType(t, reconapi.CreateToken401JSONResponse{}, resp)
		} else {
			require.IsType(t, reconapi.CreateToken429JSONResponse{}, resp, "attempt %d: the client's budget is spent", i+1)
		}
	}
	resp, err := s.CreateToken(ctx, reconapi.CreateTokenRequestObject{JSONBody: &reconapi.CreateTokenJSONRequestBody{ClientId: "cli_ok", ClientSecret: "cs_ok"}})
	require.NoError(t, err)
	ok, isOK := resp.(reconapi.CreateToken200JSONResponse)
	require.True(t, isOK, "the address counted only the ten failures")
	require.Equal(t, FailedAuthBudget, ok.Headers.XRateLimitRemaining)
}
